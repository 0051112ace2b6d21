/* Workload presets: each expands to the documented I/O mix (step counts,
 * block sizes, depths, read/write, prep jobs), settings override, and bad
 * names/settings are rejected with a message naming them. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/config/workload.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

static void preset_ok(const char *name, const char *const *k, const char *const *v, int n,
                      struct workload *w)
{
  char msg[512] = "";
  int rc = workload_preset(name, k, v, n, w, msg, sizeof msg);
  ck_assert_msg(rc == 0, "preset %s should expand: %s", name, msg);
  ck_assert_str_eq(w->preset, name);
}

static void preset_bad(const char *name, const char *key, const char *value, const char *needle)
{
  struct workload w;
  char msg[512] = "";
  const char *k[1] = {key}, *v[1] = {value};
  int rc = workload_preset(name, k, v, key ? 1 : 0, &w, msg, sizeof msg);
  ck_assert_msg(rc == -1, "preset %s %s=%s should fail", name, key ? key : "", value ? value : "");
  ck_assert_msg(strstr(msg, needle), "message lacks '%s': %s", needle, msg);
  ck_assert_msg(w.steps == NULL && w.nsteps == 0, "nothing left on failure");
}

static const struct job *preset_measured(const struct workload_step *s)
{
  const struct job *m = NULL;
  int n = 0;
  for (int i = 0; i < s->njobs; i++)
    if (!s->jobs[i].prep)
      m = &s->jobs[i], n++;
  ck_assert_msg(n == 1, "step %s: %d measured jobs, want 1", s->name, n);
  return m;
}

static int preset_count_group(const struct workload *w, const char *group)
{
  int n = 0;
  for (int i = 0; i < w->nsteps; i++)
    n += strcmp(w->steps[i].group, group) == 0;
  return n;
}

START_TEST(test_iperf)
{
  struct workload w;
  const char *k[] = {"streams", "direction", "runtime"};
  const char *v[] = {"3", "from-nas", "5s"};
  preset_ok("iperf", k, v, 3, &w);
  ck_assert_int_eq(w.nsteps, 1);
  const struct workload_step *st = &w.steps[0];
  ck_assert_msg(st->clients == 3 && st->njobs == 1, "3 streams = 3 client hosts, got %d", st->clients);
  const struct job *j = &st->jobs[0];
  ck_assert_msg(j->net_only && j->read_frac == 1.0 && j->bs_bytes[0] == 128 * KIB && j->time_based &&
                    j->runtime_s == 5.0,
                "iperf -R: raw stream from the NAS in 128 KiB writes for 5 s");
  workload_free(&w);
}
END_TEST

START_TEST(test_atto)
{
  struct workload w;
  preset_ok("atto", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 30, "15 sizes x write/read = 30 steps, got %d", w.nsteps);
  ck_assert_int_eq(w.combine, COMBINE_EACH);
  for (int i = 0; i < 15; i++) {
    const struct workload_step *ws = &w.steps[2 * i], *rs = &w.steps[2 * i + 1];
    double bs = 512.0 * pow(2.0, i);
    ck_assert_str_eq(ws->metric, "write_MBps");
    ck_assert_str_eq(rs->metric, "read_MBps");
    const struct job *wj = preset_measured(ws), *rj = preset_measured(rs);
    ck_assert_msg(wj->bs_bytes[0] == bs && rj->bs_bytes[0] == bs, "size %d: %g/%g, want %g", i,
                  wj->bs_bytes[0], rj->bs_bytes[0], bs);
    ck_assert_msg(wj->read_frac == 0.0 && rj->read_frac == 1.0, "write then read");
    ck_assert_msg(wj->iodepth == 4 && wj->access == JOB_SEQ && wj->direct == 1 &&
                      wj->size_bytes == 256 * MIB && wj->numjobs == 1,
                  "atto defaults: qd %d size %g", wj->iodepth, wj->size_bytes);
    ck_assert_msg(rs->njobs == 2 && rs->jobs[0].prep && rs->jobs[0].read_frac == 0.0 &&
                      rs->jobs[1].stonewall,
                  "read step lays the file out first");
  }
  ck_assert_str_eq(w.steps[0].name, "atto-write-512B");
  ck_assert_str_eq(w.steps[29].name, "atto-read-8MiB");
  workload_free(&w);

  const char *k[] = {"queue_depth", "file_size", "sizes"}, *v[] = {"10", "4GB", "1MiB"};
  preset_ok("atto", k, v, 3, &w);
  ck_assert_msg(w.nsteps == 2, "one size -> 2 steps, got %d", w.nsteps);
  const struct job *j = preset_measured(&w.steps[1]);
  ck_assert_msg(j->bs_bytes[0] == MIB && j->iodepth == 10 && j->size_bytes == 4e9,
                "bs %g qd %d size %g", j->bs_bytes[0], j->iodepth, j->size_bytes);
  ck_assert_str_eq(w.steps[1].name, "atto-read-1MiB");
  workload_free(&w);

  const char *k2[] = {"sizes", "overlapped"}, *v2[] = {"4KiB..64KiB, 1MiB", "0"};
  preset_ok("atto", k2, v2, 2, &w);
  ck_assert_msg(w.nsteps == 12, "6 sizes -> 12 steps, got %d", w.nsteps);
  ck_assert_msg(preset_measured(&w.steps[0])->iodepth == 1, "overlapped=0 -> QD1");
  ck_assert_msg(preset_measured(&w.steps[11])->bs_bytes[0] == MIB, "last size 1 MiB");
  workload_free(&w);
}
END_TEST

START_TEST(test_crystaldiskmark)
{
  struct workload w;
  preset_ok("crystaldiskmark", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 40, "4 tests x 2 directions x 5 iterations = 40, got %d", w.nsteps);
  ck_assert_int_eq(w.combine, COMBINE_BEST);
  static const char *const groups[] = {"cdm-seq-read", "cdm-seq-write", "cdm-512k-read",
                                       "cdm-512k-write", "cdm-4k-read", "cdm-4k-write",
                                       "cdm-4k-qd32-read", "cdm-4k-qd32-write"};
  for (int g = 0; g < 8; g++)
    ck_assert_msg(preset_count_group(&w, groups[g]) == 5, "group %s has %d steps", groups[g],
                  preset_count_group(&w, groups[g]));
  const struct job *seq = preset_measured(&w.steps[0]);
  ck_assert_msg(seq->bs_bytes[0] == MIB && seq->iodepth == 1 && seq->access == JOB_SEQ &&
                    seq->read_frac == 1.0 && seq->size_bytes == GIB && seq->direct == 1 &&
                    !seq->time_based,
                "seq read: bs %g qd %d", seq->bs_bytes[0], seq->iodepth);
  ck_assert_msg(w.steps[0].jobs[0].prep, "reads are preceded by the fill");
  const struct job *q32 = preset_measured(&w.steps[30]);
  ck_assert_str_eq(w.steps[30].group, "cdm-4k-qd32-read");
  ck_assert_msg(q32->bs_bytes[0] == 4 * KIB && q32->iodepth == 32 && q32->access == JOB_RANDOM &&
                    q32->time_based && q32->runtime_s == 5.0,
                "4K QD32: bs %g qd %d", q32->bs_bytes[0], q32->iodepth);
  const struct job *r512 = preset_measured(&w.steps[15]);
  ck_assert_msg(r512->bs_bytes[0] == 512 * KIB && r512->access == JOB_RANDOM &&
                    r512->read_frac == 0.0,
                "512K write step");
  workload_free(&w);

  const char *k[] = {"iterations", "file_size", "tests"}, *v[] = {"9", "4GB", "seq"};
  preset_ok("crystaldiskmark", k, v, 3, &w);
  ck_assert_msg(w.nsteps == 18, "9 iterations x read/write = 18, got %d", w.nsteps);
  ck_assert_msg(preset_measured(&w.steps[17])->size_bytes == 4e9, "file size");
  ck_assert_str_eq(w.steps[17].name, "cdm-seq-write-i9");
  /* the iterations of a test are one simulation (validate runs it once);
   * the read and the write, or another setting, are not */
  for (int it = 1; it < 9; it++) {
    ck_assert_msg(workload_steps_same(&w.steps[0], &w.steps[it]), "read i1 and i%d", it + 1);
    ck_assert_msg(workload_steps_same(&w.steps[9], &w.steps[9 + it]), "write i1 and i%d", it + 1);
  }
  ck_assert(!workload_steps_same(&w.steps[0], &w.steps[9]));
  struct workload_step other = w.steps[1];
  other.jobs[other.njobs - 1].iodepth = 2;
  ck_assert(!workload_steps_same(&w.steps[0], &other));
  other = w.steps[1];
  other.clients = 2;
  ck_assert(!workload_steps_same(&w.steps[0], &other));
  workload_free(&w);
}
END_TEST

START_TEST(test_iometer)
{
  struct workload w;
  preset_ok("iometer", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 100, "4 traces x 25 client counts = 100, got %d", w.nsteps);
  for (int i = 0; i < w.nsteps; i++) {
    ck_assert_msg(w.steps[i].clients == i % 25 + 1, "step %d clients %d", i, w.steps[i].clients);
    ck_assert_str_eq(w.steps[i].metric, "aggregate_MBps");
  }
  ck_assert_str_eq(w.steps[0].name, "iometer-seq-read-c01");
  const struct job *sr = preset_measured(&w.steps[0]), *sw = preset_measured(&w.steps[25]);
  const struct job *r8 = preset_measured(&w.steps[50]), *rl = preset_measured(&w.steps[99]);
  ck_assert_msg(sr->read_frac == 1.0 && sr->access == JOB_SEQ && sr->bs_bytes[0] == 32 * KIB,
                "seq read");
  ck_assert_msg(sw->read_frac == 0.0 && sw->access == JOB_SEQ, "seq write");
  ck_assert_msg(fabs(r8->read_frac - 0.7) < 1e-12 && r8->access == JOB_RANDOM &&
                    r8->bs_bytes[0] == 8 * KIB && r8->seq_frac == 0.0,
                "8K 70/30 random");
  ck_assert_msg(fabs(rl->read_frac - 0.65) < 1e-12 && fabs(rl->seq_frac - 0.4) < 1e-12 &&
                    rl->bs_bytes[0] == 8 * KIB && w.steps[99].clients == 25,
                "real life: 65 %% read, 60 %% random");
  ck_assert_msg(sr->time_based && sr->runtime_s == 60.0 && sr->ramp_s == 5.0 && sr->iodepth == 1,
                "timing defaults");
  workload_free(&w);

  const char *k[] = {"clients", "clients_from", "traces", "seq_bs"},
             *v[] = {"8", "5", "random-8k-70r,seq-read", "2MiB"};
  preset_ok("iometer", k, v, 4, &w);
  ck_assert_msg(w.nsteps == 8, "2 traces x 4 counts, got %d", w.nsteps);
  ck_assert_msg(w.steps[0].clients == 5 && w.steps[3].clients == 8, "ramp 5..8");
  ck_assert_msg(preset_measured(&w.steps[0])->bs_bytes[0] == 2 * MIB, "seq_bs override");
  workload_free(&w);
  preset_bad("iometer", "clients_from", "30", "clients_from (30) must be <= clients (25)");
}
END_TEST

START_TEST(test_iozone)
{
  struct workload w;
  preset_ok("iozone", NULL, NULL, 0, &w);
  /* files 64 KiB..2 GiB (16), records 4 KiB..16 MiB (13), record <= file: 172 pairs */
  ck_assert_msg(w.nsteps == 13 * 172, "13 tests x 172 pairs = 2236, got %d", w.nsteps);
  ck_assert_int_eq(w.combine, COMBINE_MEAN);
  static const char *const tests[] = {
      "init-write", "re-write", "read", "re-read", "random-read", "random-write", "backward-read",
      "record-re-write", "stride-read", "file-write", "file-re-write", "file-read", "file-re-read"};
  for (int t = 0; t < 13; t++) {
    char group[48];
    snprintf(group, sizeof group, "iozone-%s", tests[t]);
    ck_assert_msg(preset_count_group(&w, group) == 172, "%s: %d steps", group,
                  preset_count_group(&w, group));
  }
  for (int i = 0; i < w.nsteps; i++) {
    const struct workload_step *s = &w.steps[i];
    const struct job *m = preset_measured(s);
    ck_assert_str_eq(s->metric, "MBps");
    ck_assert_msg(m->bs_bytes[0] <= m->size_bytes, "%s: record %g > file %g", s->name,
                  m->bs_bytes[0], m->size_bytes);
    for (int k = 0; k < s->njobs; k++)
      ck_assert_msg(s->jobs[k].direct == 0 && s->jobs[k].iodepth == 1 &&
                        s->jobs[k].file_bytes == s->jobs[k].size_bytes && s->jobs[k].nfiles == 1,
                    "%s: buffered, synchronous, one file", s->name);
  }
  /* First pair is 64 KiB file / 4 KiB record; groups are in test order. */
  ck_assert_str_eq(w.steps[0].name, "iozone-init-write-f64KiB-r4KiB");
  ck_assert_msg(w.steps[0].njobs == 1, "init-write has no prep");
  const struct workload_step *reread = &w.steps[3 * 172];
  ck_assert_str_eq(reread->group, "iozone-re-read");
  ck_assert_msg(reread->njobs == 3 && reread->jobs[0].prep && reread->jobs[1].prep &&
                    reread->jobs[1].read_frac == 1.0 && !reread->jobs[2].prep &&
                    reread->jobs[2].stonewall,
                "re-read = write, read (prep), read");
  const struct job *bw = preset_measured(&w.steps[6 * 172]);
  ck_assert_msg(bw->access == JOB_BACKWARD && bw->read_frac == 1.0, "backward read");
  const struct job *rr = preset_measured(&w.steps[7 * 172 + 5]);
  ck_assert_msg(rr->access == JOB_STRIDE && rr->stride_bytes == 0.0 && rr->read_frac == 0.0,
                "record re-write: same spot");
  const struct job *st = preset_measured(&w.steps[8 * 172 + 5]);
  ck_assert_msg(st->access == JOB_STRIDE && st->stride_bytes == 17.0 * st->bs_bytes[0] &&
                    st->read_frac == 1.0,
                "stride read: 17 records");
  const struct job *last = preset_measured(&w.steps[w.nsteps - 1]);
  ck_assert_msg(last->size_bytes == 2 * GIB && last->bs_bytes[0] == 16 * MIB, "last pair 2G/16M");
  workload_free(&w);

  const char *k[] = {"sample", "max_file", "tests"}, *v[] = {"10", "1MiB", "read,re-read"};
  preset_ok("iozone", k, v, 3, &w);
  /* files 64K..1M: 5+6+7+8+9 = 35 pairs; every 10th: 4 per test */
  ck_assert_msg(w.nsteps == 2 * 4, "2 tests x ceil(35/10) = 8, got %d", w.nsteps);
  workload_free(&w);
  const char *k2[] = {"sample"}, *v2[] = {"10"};
  preset_ok("iozone", k2, v2, 1, &w);
  ck_assert_msg(w.nsteps == 13 * 18, "every 10th of 172 = 18 per test, got %d", w.nsteps);
  workload_free(&w);
  preset_bad("iozone", "tests", "read,reread", "unknown value 'reread' (allowed: init-write");
}
END_TEST

START_TEST(test_storagereview)
{
  struct workload w;
  preset_ok("storagereview", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 22, "2 + 2 + 16 + 2 = 22 steps, got %d", w.nsteps);
  for (int i = 0; i < w.nsteps; i++)
    ck_assert_msg(w.steps[i].precondition == 1, "%s preconditioned", w.steps[i].name);
  const struct job *r4 = preset_measured(&w.steps[0]);
  ck_assert_str_eq(w.steps[0].metric, "read_iops");
  ck_assert_msg(r4->bs_bytes[0] == 4 * KIB && r4->numjobs == 16 && r4->iodepth == 16 &&
                    r4->access == JOB_RANDOM && r4->read_frac == 1.0 && r4->direct,
                "4K random read 16T16Q");
  /* fio offset_increment: each of the 16 threads its own 25 GiB / 16 slice */
  ck_assert_msg(r4->shared_file && r4->size_bytes == 25.0 * GIB / 16 &&
                    r4->offset_increment_bytes == 25.0 * GIB / 16,
                "4K random: slice %g, increment %g", r4->size_bytes, r4->offset_increment_bytes);
  ck_assert_str_eq(w.steps[1].metric, "write_iops");
  const struct job *s8 = preset_measured(&w.steps[2]);
  ck_assert_msg(s8->bs_bytes[0] == 8 * KIB && s8->access == JOB_SEQ, "8K sequential");
  int seen_min = 0, seen_max = 0;
  for (int i = 4; i < 20; i++) {
    const struct job *m = preset_measured(&w.steps[i]);
    ck_assert_msg(fabs(m->read_frac - 0.7) < 1e-12 && m->bs_bytes[0] == 8 * KIB &&
                      m->access == JOB_RANDOM,
                  "%s: 8K 70/30", w.steps[i].name);
    seen_min |= m->numjobs == 2 && m->iodepth == 2;
    seen_max |= m->numjobs == 16 && m->iodepth == 16;
  }
  ck_assert_msg(seen_min && seen_max, "ladder spans 2T2Q..16T16Q");
  ck_assert_str_eq(w.steps[4].name, "sr-8k-70-30-2t2q");
  ck_assert_str_eq(w.steps[21].metric, "write_MBps");
  const struct job *w128 = preset_measured(&w.steps[21]);
  ck_assert_msg(w128->bs_bytes[0] == 128 * KIB && w128->offset_increment_bytes == 25.0 * GIB / 16,
                "128K sequential, 16 streams 25/16 GiB apart");
  const struct job *m2 = preset_measured(&w.steps[4]); /* 2T2Q: two halves */
  ck_assert_msg(m2->size_bytes == 12.5 * GIB && m2->offset_increment_bytes == 12.5 * GIB, "2T slices");
  workload_free(&w);
  const char *k[] = {"precondition"}, *v[] = {"0"};
  preset_ok("storagereview", k, v, 1, &w);
  ck_assert_msg(w.steps[0].precondition == 0, "precondition off");
  workload_free(&w);
  const char *k2[] = {"shared_file"}, *v2[] = {"0"};
  preset_ok("storagereview", k2, v2, 1, &w); /* a file per thread: each the whole size */
  ck_assert_msg(preset_measured(&w.steps[0])->size_bytes == 25.0 * GIB &&
                    preset_measured(&w.steps[0])->offset_increment_bytes == 0,
                "file per thread");
  workload_free(&w);
}
END_TEST

START_TEST(test_filecopy_vmio)
{
  struct workload w;
  preset_ok("filecopy", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 6, "3 folders x write/read = 6, got %d", w.nsteps);
  const struct job *ph = preset_measured(&w.steps[0]);
  ck_assert_str_eq(w.steps[0].name, "filecopy-photos-write");
  ck_assert_msg(ph->file_bytes == 4 * MIB && ph->nfiles == 2560 && ph->size_bytes == 10 * GIB &&
                    ph->read_frac == 0.0 && ph->numjobs == 1 && ph->iodepth == 1 &&
                    ph->direct == 0 && ph->access == JOB_SEQ,
                "photos: %g files of %g", ph->nfiles, ph->file_bytes);
  ck_assert_msg(w.steps[1].njobs == 2 && w.steps[1].jobs[0].prep, "read-back lays files out first");
  const struct job *br = preset_measured(&w.steps[5]);
  ck_assert_msg(br->file_bytes == 4 * GIB && br->nfiles == 3 && br->read_frac == 1.0, "bluray");
  ck_assert_msg(br->file_handles == 1 && br->direct == 0,
                "buffered (the client OS reads ahead), opens and closes as requests: %d",
                br->file_handles);
  workload_free(&w);

  preset_ok("vmware-io-analyzer", NULL, NULL, 0, &w);
  ck_assert_msg(w.nsteps == 6, "3 sizes x read/write, got %d", w.nsteps);
  const struct job *v4 = preset_measured(&w.steps[0]);
  ck_assert_msg(v4->bs_bytes[0] == 4 * KIB && v4->access == JOB_RANDOM && v4->iodepth == 16 &&
                    v4->size_bytes == 16 * GIB && v4->read_frac == 1.0,
                "4K random read");
  ck_assert_str_eq(w.steps[5].name, "vmio-64KiB-random-write");
  workload_free(&w);
  const char *k[] = {"bs", "rw", "outstanding"}, *v[] = {"8KiB", "write", "4"};
  preset_ok("vmware-io-analyzer", k, v, 3, &w);
  ck_assert_msg(w.nsteps == 1 && preset_measured(&w.steps[0])->iodepth == 4 &&
                    preset_measured(&w.steps[0])->read_frac == 0.0,
                "one write step");
  workload_free(&w);
}
END_TEST

START_TEST(test_errors)
{
  ck_assert_msg(strstr(workload_preset_names(), "vmware-io-analyzer") != NULL, "names list");
  preset_bad("atom", NULL, NULL, "unknown workload preset 'atom' (did you mean 'atto'?");
  preset_bad("zzzzzzzzzzzz", NULL, NULL, "valid: atto, crystaldiskmark");
  preset_bad("atto", "queue_dept", "8", "atto: unknown setting 'queue_dept' (did you mean 'queue_depth'?");
  preset_bad("atto", "queue_depth", "0", "atto: setting queue_depth: '0' out of range (must be between 1 and 256");
  preset_bad("atto", "queue_depth", "2.5", "not a whole number");
  preset_bad("atto", "file_size", "2", "has no unit");
  preset_bad("atto", "sizes", "1KiB..16MiB", "out of range");
  preset_bad("crystaldiskmark", "iterations", "10", "between 1 and 9");
  preset_bad("vmware-io-analyzer", "rw", "randread", "allowed: both, read, write");
  preset_bad("iozone", "max_file", "32KiB", "out of range");
  preset_bad("filecopy", "sets", "music", "unknown value 'music'");
  preset_bad("storagereview", "runtime", "10", "has no unit");
  struct workload zeroed;
  memset(&zeroed, 0, sizeof zeroed);
  workload_free(&zeroed); /* accepts a zeroed workload */
  workload_free(NULL);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("presets");
  TCase *tc = tcase_create("expand");
  tcase_add_test(tc, test_atto);
  tcase_add_test(tc, test_crystaldiskmark);
  tcase_add_test(tc, test_iometer);
  tcase_add_test(tc, test_iozone);
  tcase_add_test(tc, test_storagereview);
  tcase_add_test(tc, test_filecopy_vmio);
  tcase_add_test(tc, test_iperf);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_errors);
  suite_add_tcase(s, te);
  return ck_run(s);
}
