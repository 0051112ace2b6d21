/* fio job files: golden files parse to the expected jobs and steps; every
 * file in tests/fio/bad/ fails with the error text in its .expected file.
 * fio JSON: nastwin's --output-format=json holds every key real fio writes
 * for the same job (fio run here when installed), with honest values. */
#include <check.h>
#include "ck_run.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/config.h"
#include "sim/config/fio_lang.h"
#include "sim/config/workgen.h"
#include "sim/config/workload.h"
#include "cli_util.h"
#include "cli_util.c.inc"
#include "json_keys.c.inc"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *fio_test_dir(void)
{
  const char *d = getenv("NASTWIN_SOURCE_DIR");
  return d ? d : NASTWIN_SOURCE_DIR;
}

static void fio_test_parse(const char *file, struct workload *w, char **warnings)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fio/%s", fio_test_dir(), file);
  struct nw_err err;
  int rc = fio_parse_file(path, w, warnings, &err);
  ck_assert_msg(rc == 0, "%s should parse: %s:%d:%d: %s", file, err.file, err.line, err.col, err.msg);
}

#define CK_EQ(got, want)                                                                          \
  ck_assert_msg(fabs((double)(got) - (double)(want)) <= 1e-9 * fabs((double)(want)),             \
                "%s = %.12g, want %.12g", #got, (double)(got), (double)(want))

START_TEST(test_basic)
{
  struct workload w;
  char *warn = NULL;
  fio_test_parse("basic.fio", &w, &warn);
  ck_assert_msg(w.nsteps == 2, "stonewall gives 2 steps, got %d", w.nsteps);
  ck_assert_int_eq(w.combine, COMBINE_EACH);
  ck_assert_str_eq(w.preset, "");
  const struct workload_step *s0 = &w.steps[0], *s1 = &w.steps[1];
  ck_assert_int_eq(s0->njobs, 1);
  ck_assert_str_eq(s0->name, "rand-read-4k");
  ck_assert_str_eq(s0->metric, "read_MBps");
  const struct job *a = &s0->jobs[0];
  ck_assert_str_eq(a->name, "rand-read-4k");
  CK_EQ(a->read_frac, 1.0);
  ck_assert_int_eq(a->access, JOB_RANDOM);
  ck_assert_int_eq(a->nbs, 1);
  CK_EQ(a->bs_bytes[0], 4 * KIB);
  CK_EQ(a->bs_weight[0], 1.0);
  ck_assert_int_eq(a->iodepth, 32);
  ck_assert_int_eq(a->numjobs, 1);
  CK_EQ(a->size_bytes, GIB);
  CK_EQ(a->runtime_s, 30.0);
  ck_assert_int_eq(a->time_based, 1);
  ck_assert_int_eq(a->direct, 1);
  ck_assert_int_eq(a->stonewall, 0);
  ck_assert_int_eq(a->shared_file, 0); /* no filename=: a file per copy, fio's default */
  ck_assert_int_eq(s1->njobs, 1);
  ck_assert_str_eq(s1->metric, "write_MBps");
  const struct job *b = &s1->jobs[0];
  CK_EQ(b->read_frac, 0.0);
  ck_assert_int_eq(b->access, JOB_SEQ);
  CK_EQ(b->bs_bytes[0], MIB);
  ck_assert_int_eq(b->iodepth, 4);
  ck_assert_int_eq(b->numjobs, 2);
  ck_assert_int_eq(b->stonewall, 1);
  ck_assert_msg(strstr(warn, "basic.fio:3: warning: fio option 'ioengine' is accepted but not modelled"),
                "warnings: %s", warn);
  ck_assert_msg(!strstr(warn, "group_reporting"), "group_reporting is honoured: %s", warn);
  free(warn);
  workload_free(&w);
}
END_TEST

START_TEST(test_mixed)
{
  struct workload w;
  char *warn = NULL;
  fio_test_parse("mixed.fio", &w, &warn);
  ck_assert_msg(w.nsteps == 1 && w.steps[0].njobs == 2, "one step with two jobs, got %d steps",
                w.nsteps);
  ck_assert_str_eq(w.steps[0].metric, "MBps");
  const struct job *o = &w.steps[0].jobs[0];
  ck_assert_str_eq(o->name, "oltp");
  ck_assert_int_eq(o->rw_mixed, 1);
  /* rwmixread=70 from [global], set before rw; rate_iops=2000 caps reads
   * and writes each, and fio issues the other direction while one waits:
   * 2000 + 2000 I/O/s, half of them reads (fio io_u.c rate_ddir). */
  CK_EQ(o->read_frac, 0.5);
  CK_EQ(o->rwmixread_frac, 0.7);
  ck_assert_int_eq(o->access, JOB_RANDOM);
  ck_assert_int_eq(o->nbs, 3);
  CK_EQ(o->bs_bytes[0], 4 * KIB);
  CK_EQ(o->bs_weight[0], 0.10);
  CK_EQ(o->bs_bytes[1], 64 * KIB);
  CK_EQ(o->bs_weight[1], 0.50);
  CK_EQ(o->bs_bytes[2], 32 * KIB);
  CK_EQ(o->bs_weight[2], 0.40);
  ck_assert_int_eq(o->iodepth, 16);
  ck_assert_int_eq(o->numjobs, 4);
  CK_EQ(o->size_bytes, 10 * GIB);
  CK_EQ(o->offset_bytes, GIB);
  CK_EQ(o->offset_increment_bytes, 2 * GIB);
  ck_assert_int_eq(o->shared_file, 1); /* filename= in [global]: the copies share the file */
  CK_EQ(o->runtime_s, 120.0);
  CK_EQ(o->ramp_s, 10.0);
  ck_assert_int_eq(o->time_based, 1);
  ck_assert_int_eq(o->direct, 1);
  CK_EQ(o->thinktime_s, 500e-6);
  CK_EQ(o->rate_iops, 4000.0);
  ck_assert_int_eq(o->sync, 1);
  ck_assert_int_eq(o->fsync_every, 8);
  CK_EQ(o->seq_frac, 0.4);
  const struct job *l = &w.steps[0].jobs[1];
  CK_EQ(l->read_frac, 0.0); /* rw=write: rwmixwrite only stored */
  CK_EQ(l->rwmixread_frac, 0.9);
  ck_assert_int_eq(l->rw_mixed, 0);
  CK_EQ(l->bs_bytes[0], 512 * KIB);
  CK_EQ(l->size_bytes, 100 * MIB);
  CK_EQ(l->thinktime_s, 2e-3);
  ck_assert_int_eq(l->direct, 0);
  ck_assert_int_eq(l->iodepth, 1);
  ck_assert_int_eq(l->numjobs, 1);
  ck_assert_msg(strstr(warn, "'ioengine'"), "warnings lack ioengine: %s", warn);
  /* norandommap is modelled (random offsets with replacement), from
   * [global] into each job; randrepeat is timing-neutral (fio_names.c):
   * neither warns. */
  ck_assert_int_eq(o->norandommap, 1);
  ck_assert_int_eq(l->norandommap, 1);
  ck_assert_msg(!strstr(warn, "'norandommap'") && !strstr(warn, "'randrepeat'"), "neutral options warned: %s", warn);
  ck_assert_msg(!strstr(warn, "'filename'"), "filename is modelled (shared file): %s", warn);
  ck_assert_msg(strstr(warn, "mixed.fio:3:"), "warning names the line: %s", warn);
  free(warn);
  workload_free(&w);
}
END_TEST

START_TEST(test_groups)
{
  struct workload w;
  char *warn = NULL;
  fio_test_parse("groups.fio", &w, &warn);
  ck_assert_str_eq(warn, "");
  ck_assert_msg(w.nsteps == 2, "steps %d", w.nsteps);
  ck_assert_int_eq(w.steps[0].njobs, 2);
  ck_assert_int_eq(w.steps[1].njobs, 2);
  ck_assert_str_eq(w.steps[0].name, "a");
  ck_assert_str_eq(w.steps[1].name, "c");
  ck_assert_str_eq(w.steps[0].metric, "MBps");
  const struct job *a = &w.steps[0].jobs[0], *b = &w.steps[0].jobs[1];
  const struct job *c = &w.steps[1].jobs[0], *d = &w.steps[1].jobs[1];
  CK_EQ(a->bs_bytes[0], 64 * KIB);
  CK_EQ(a->size_bytes, 256 * MIB);
  ck_assert_int_eq(a->iodepth, 1);
  ck_assert_int_eq(b->access, JOB_RANDOM);
  CK_EQ(b->read_frac, 0.0);
  CK_EQ(c->bs_bytes[0], 8 * KIB); /* second [global] */
  ck_assert_int_eq(c->iodepth, 8);
  CK_EQ(c->size_bytes, 256 * MIB); /* first [global] still applies */
  CK_EQ(c->read_frac, 0.7);
  ck_assert_int_eq(c->stonewall, 1);
  ck_assert_int_eq(d->nbs, 3); /* empty shares split what is left: 25/25/50 */
  CK_EQ(d->bs_weight[0], 0.25);
  CK_EQ(d->bs_weight[1], 0.25);
  CK_EQ(d->bs_weight[2], 0.50);
  free(warn);
  workload_free(&w);
}
END_TEST

static void fio_test_opt(struct job *j, const char *k, const char *v)
{
  char msg[256] = "";
  int unm = -1;
  int rc = fio_set_option(j, k, v, &unm, msg, sizeof msg);
  ck_assert_msg(rc == 0, "%s=%s should apply: %s", k, v ? v : "(bare)", msg);
}

START_TEST(test_spellings)
{
  struct job j;
  job_defaults(&j);
  CK_EQ(j.bs_bytes[0], 4096.0);
  CK_EQ(j.read_frac, 1.0);
  ck_assert_int_eq(j.iodepth, 1);
  ck_assert_int_eq(j.numjobs, 1);
  static const struct {
    const char *v;
    double bytes;
  } sizes[] = {{"4096", 4096},     {"4k", 4096},      {"4K", 4096},     {"4KB", 4096},
               {"4KiB", 4096},     {"4kib", 4096},    {"1m", MIB},      {"1M", MIB},
               {"2g", 2 * GIB},    {"1.5g", 1.5 * GIB}, {"512", 512},   {"8MiB", 8 * MIB},
               {"1t", 1024 * GIB}, {"100b", 100}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    fio_test_opt(&j, "size", sizes[i].v);
    ck_assert_msg(j.size_bytes == sizes[i].bytes, "size=%s -> %.17g, want %.17g", sizes[i].v,
                  j.size_bytes, sizes[i].bytes);
  }
  static const struct {
    const char *key, *v;
    double s;
  } times[] = {{"runtime", "10", 10},   {"runtime", "10s", 10},     {"runtime", "2m", 120},
               {"runtime", "1h", 3600}, {"runtime", "500ms", 0.5},  {"ramp_time", "5", 5},
               {"thinktime", "250", 250e-6}, {"thinktime", "3ms", 3e-3}, {"thinktime", "1s", 1}};
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
    fio_test_opt(&j, times[i].key, times[i].v);
    double got = !strcmp(times[i].key, "runtime")     ? j.runtime_s
                 : !strcmp(times[i].key, "ramp_time") ? j.ramp_s
                                                      : j.thinktime_s;
    ck_assert_msg(fabs(got - times[i].s) <= 1e-12, "%s=%s -> %g s, want %g", times[i].key,
                  times[i].v, got, times[i].s);
  }
  /* rw and rwmix in either order. */
  fio_test_opt(&j, "rw", "randrw");
  CK_EQ(j.read_frac, 0.5);
  fio_test_opt(&j, "rwmixwrite", "25");
  CK_EQ(j.read_frac, 0.75);
  fio_test_opt(&j, "readwrite", "readwrite");
  ck_assert_int_eq(j.access, JOB_SEQ);
  CK_EQ(j.read_frac, 0.75);
  fio_test_opt(&j, "rw", "randwrite");
  CK_EQ(j.read_frac, 0.0);
  fio_test_opt(&j, "rwmixread", "100");
  CK_EQ(j.read_frac, 0.0);
  fio_test_opt(&j, "rw", "rw");
  CK_EQ(j.read_frac, 1.0);
  /* Flags and their spellings; unmodelled options. */
  fio_test_opt(&j, "direct", NULL);
  ck_assert_int_eq(j.direct, 1);
  fio_test_opt(&j, "buffered", "1");
  ck_assert_int_eq(j.direct, 0);
  fio_test_opt(&j, "sync", "dsync");
  ck_assert_int_eq(j.sync, 1);
  fio_test_opt(&j, "sync", "none");
  ck_assert_int_eq(j.sync, 0);
  fio_test_opt(&j, "stonewall", NULL);
  ck_assert_int_eq(j.stonewall, 1);
  /* KEY= with an empty value: fio 3.33 fails parsing it ("failed parsing
   * stonewall="), but for the few options that take an empty list. */
  char msg[256] = "";
  ck_assert_int_eq(fio_set_option(&j, "stonewall", "", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "stonewall: needs a value (stonewall=...; fio: \"failed parsing stonewall=\")"), "%s",
                msg);
  ck_assert_int_eq(fio_set_option(&j, "description", "", NULL, msg, sizeof msg), -1);
  ck_assert_int_eq(fio_set_option(&j, "cpus_allowed", "", NULL, msg, sizeof msg), 0);
  ck_assert_int_eq(fio_set_option(&j, "write_lat_log", "", NULL, msg, sizeof msg), 0);
  fio_test_opt(&j, "bs", "64k");
  fio_test_opt(&j, "bssplit", "4k/30:8k/70");
  ck_assert_int_eq(j.nbs, 2);
  fio_test_opt(&j, "blocksize", "128k");
  ck_assert_int_eq(j.nbs, 1);
  CK_EQ(j.bs_bytes[0], 128 * KIB);
  fio_test_opt(&j, "name", "renamed");
  ck_assert_str_eq(j.name, "renamed");
  int unm = 0;
  ck_assert_int_eq(fio_set_option(&j, "ioengine", "libaio", &unm, msg, sizeof msg), 0);
  ck_assert_msg(unm == 1, "ioengine is accepted but unmodelled");
  ck_assert_int_eq(fio_set_option(&j, "iodepth", "64", &unm, msg, sizeof msg), 0);
  ck_assert_msg(unm == 0 && j.iodepth == 64, "iodepth modelled");
  ck_assert_int_eq(fio_set_option(&j, "iodepht", "8", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "unknown fio option 'iodepht' (did you mean 'iodepth'?)"), "%s", msg);
  ck_assert_int_eq(fio_set_option(&j, "zzzzzzzz", "8", NULL, msg, sizeof msg), -1);
  ck_assert_msg(!strstr(msg, "did you mean"), "nothing close: %s", msg);
  ck_assert_int_eq(fio_set_option(&j, "numjobs", "4x", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "numjobs: bad value '4x' (allowed: integer 1..65536)"), "%s", msg);
  ck_assert_int_eq(fio_set_option(&j, "bs", "0x10", NULL, msg, sizeof msg), -1);
  ck_assert_int_eq(fio_set_option(&j, "size", "nan", NULL, msg, sizeof msg), -1);
}
END_TEST

/* verify=METHOD: a job that writes reads back what it wrote, after its
 * step, at the written block sizes (fio's do_verify); a read job checks as
 * it reads; do_verify=0 keeps the writes only; verify_only only reads. */
START_TEST(test_verify)
{
  static const char text[] = "[global]\nbs=64k\nsize=64m\n"
                             "[w]\nrw=randwrite\nverify=crc32c\niodepth=4\nrate_iops=100\n"
                             "[r]\nrw=read\nverify=md5\n"
                             "[mix]\nrw=randrw\nrwmixread=75\nbs=4k,16k\nverify=meta\n"
                             "[nov]\nstonewall\nrw=write\nverify=sha256\ndo_verify=0\n"
                             "[only]\nstonewall\nrw=write\nverify=xxhash\nverify_only\nloops=3\n";
  struct workload w;
  char *warn = NULL;
  struct nw_err err;
  ck_assert_msg(fio_parse_string(text, "v.fio", &w, &warn, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(w.nsteps, 4);
  ck_assert_int_eq(w.steps[0].njobs, 3);
  ck_assert_int_eq(w.steps[1].njobs, 2);
  const struct job *a = &w.steps[1].jobs[0], *m = &w.steps[1].jobs[1];
  ck_assert_str_eq(a->name, "w-verify");
  ck_assert_str_eq(w.steps[1].metric, "read_MBps");
  CK_EQ(a->read_frac, 1.0);
  ck_assert_int_eq(a->access, JOB_SEQ);
  CK_EQ(a->bs_bytes[0], 64 * KIB);
  CK_EQ(a->rate_iops, 0.0); /* do_verify is not paced */
  ck_assert_int_eq(a->iodepth, 4);
  CK_EQ(a->io_bytes, 0.0); /* the region once */
  ck_assert_str_eq(m->name, "mix-verify");
  CK_EQ(m->bs_bytes[0], 16 * KIB); /* read back at the written size */
  ck_assert_int_eq(m->nbs_w, 0);
  CK_EQ(m->io_bytes, 16 * MIB); /* the written quarter */
  ck_assert_int_eq(w.steps[2].njobs, 1);
  ck_assert_str_eq(w.steps[2].jobs[0].name, "nov");
  CK_EQ(w.steps[2].jobs[0].read_frac, 0.0);
  const struct job *o = &w.steps[3].jobs[0];
  ck_assert_str_eq(o->name, "only-verify");
  CK_EQ(o->read_frac, 1.0);
  ck_assert_int_eq(o->loops, 3);
  ck_assert_msg(!strstr(warn, "verify"), "verify is modelled: %s", warn);
  free(warn);
  workload_free(&w);
  ck_assert_int_eq(fio_parse_string("[j]\nrw=write\nverify=crc99\nloops=0\n", "bad.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "verify: bad value 'crc99' (allowed: 0, none, md5,") &&
                    strstr(err.msg, "loops: bad value '0' (allowed: integer >= 1)"),
                "%s", err.msg);
  /* loops: the region (or io_size) done that many times over. */
  struct job j;
  job_defaults(&j);
  j.loops = 2;
  struct workgen g;
  workgen_init(&g, &j, NULL, 0.0, 8 * KIB);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  int n = 0;
  for (struct workgen_io io; workgen_more(&g) && n < 10; n++)
    workgen_next(&g, rng, &io);
  ck_assert_int_eq(n, 4);
  gsl_rng_free(rng);
}
END_TEST

/* Option classes (fio_names.c): timing-neutral ones are accepted without a
 * warning, the ones that could change timing with one, the ones nastwin
 * cannot honour are refused; fio 3.41's new names are known. */
/* Inline YAML fio keys take verify the same way: the read-back step. */
START_TEST(test_verify_inline)
{
  char path[] = "/tmp/nastwin-verify-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  static const char y[] =
      "name: v\nsystem: ds1819plus\ndisks: {count: 4, drive: wd-red-14tb}\nvolume: {level: 5}\n"
      "network: {mode: single, nas_links: 1, nas_link_rate: 10Gbit/s, client_nics: 1, client_link_rate: 10Gbit/s}\n"
      "protocol: {kind: iscsi}\nclients: {count: 1}\n"
      "workload: {rw: randwrite, bs: 8k, size: 16m, verify: crc32c}\ntime: 1s\nseed: 1\n";
  ck_assert_int_eq(write(fd, y, sizeof y - 1), (ssize_t)(sizeof y - 1));
  close(fd);
  struct scenario sc;
  struct nw_err err;
  int rc = cfg_load(path, NULL, NULL, 0, NULL, &sc, &err);
  unlink(path);
  ck_assert_msg(rc == 0, "%s", err.msg);
  ck_assert_int_eq(sc.workload.nsteps, 2);
  ck_assert_str_eq(sc.workload.steps[1].jobs[0].name, "job-verify");
  CK_EQ(sc.workload.steps[1].jobs[0].read_frac, 1.0);
  CK_EQ(sc.workload.steps[1].jobs[0].bs_bytes[0], 8 * KIB);
  CK_EQ(sc.workload.steps[0].jobs[0].read_frac, 0.0);
  cfg_free(&sc);
}
END_TEST

START_TEST(test_option_classes)
{
  static const char *const neutral[] = {"write_lat_log", "thread", "verify_write_sequence", "fdp",
                                        "plids", "dataplacement", "log_window_value", "randrepeat",
                                        "job_start_clock_id", "filetype", "priohint", "stat_type",
                                        "initiator", "xnvme_dev_nsid", "clustername", "hdfsdirectory"};
  static const char *const unmodelled[] = {"thinkcycles", "sprandom", "spr_op", "num_range",
                                           "iodepth_batch", "verify_backlog", "startdelay",
                                           "xnvme_async", "xnvme_sync", "hipri_percentage",
                                           "exit_on_io_done", "thp", "single_instance"};
  struct job j;
  job_defaults(&j);
  char msg[600];
  for (size_t i = 0; i < sizeof neutral / sizeof neutral[0]; i++) {
    int unm = -1;
    ck_assert_msg(fio_set_option(&j, neutral[i], "1", &unm, msg, sizeof msg) == 0 && unm == 0, "%s: %s",
                  neutral[i], msg);
    ck_assert_msg(fio_option_neutral(neutral[i]) != NULL, "%s has a reason", neutral[i]);
  }
  for (size_t i = 0; i < sizeof unmodelled / sizeof unmodelled[0]; i++) {
    int unm = -1;
    ck_assert_msg(fio_set_option(&j, unmodelled[i], "1", &unm, msg, sizeof msg) == 0 && unm == 1, "%s: %s",
                  unmodelled[i], msg);
    ck_assert_msg(fio_option_neutral(unmodelled[i]) == NULL, "%s is not neutral", unmodelled[i]);
  }
  ck_assert_int_eq(fio_set_option(&j, "recover_zbd_write_error", "1", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "zoned devices"), "%s", msg);
  ck_assert_int_eq(fio_set_option(&j, "verify_write_sequenc", "1", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "did you mean 'verify_write_sequence'"), "%s", msg);
  /* fio's alias of protocol (engines/net.c) */
  ck_assert_int_eq(fio_set_option(&j, "proto", "nope", NULL, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "protocol: bad value 'nope'"), "%s", msg);
}
END_TEST

START_TEST(test_strings)
{
  struct workload w;
  char *warn = NULL;
  struct nw_err err;
  ck_assert_int_eq(fio_parse_string("[j]\r\nrw=write\r\nbs=8k\r\n", "crlf", &w, &warn, &err), 0);
  ck_assert_msg(w.nsteps == 1 && w.steps[0].jobs[0].bs_bytes[0] == 8192.0, "CRLF lines");
  free(warn);
  workload_free(&w);
  /* [global] stonewall: every job is its own step. */
  ck_assert_int_eq(fio_parse_string("[global]\nstonewall\n[a]\n[b]\n[c]\n", "sw", &w, NULL, &err), 0);
  ck_assert_msg(w.nsteps == 3, "steps %d", w.nsteps);
  workload_free(&w);
  ck_assert_int_eq(fio_parse_string("", "empty", &w, &warn, &err), -1);
  ck_assert_msg(warn == NULL && w.steps == NULL, "nothing left on failure");
  ck_assert_int_eq(fio_parse_file("/nonexistent/x.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "cannot open"), "%s", err.msg);
  workload_free(&w);
  workload_free(NULL);
}
END_TEST

static char *fio_test_read(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = calloc(1, 1 << 20);
  size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
    buf[--n] = '\0';
  return buf;
}

START_TEST(test_bad_corpus)
{
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/fio/bad", fio_test_dir());
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  int nfiles = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".fio") != 0)
      continue;
    char path[2048], exp_path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(exp_path, sizeof exp_path, "%s/%.*s.expected", dir, (int)(len - 4), e->d_name);
    char *expected = fio_test_read(exp_path);
    ck_assert_msg(expected && *expected, "%s has no .expected file", e->d_name);
    struct workload w;
    char *warn = NULL;
    struct nw_err err;
    int rc = fio_parse_file(path, &w, &warn, &err);
    ck_assert_msg(rc == -1, "%s should be rejected", e->d_name);
    ck_assert_msg(warn == NULL && w.nsteps == 0 && w.steps == NULL, "%s: output left behind",
                  e->d_name);
    char *printed = NULL;
    size_t plen = 0;
    FILE *mem = open_memstream(&printed, &plen);
    nw_err_print(&err, mem);
    fclose(mem);
    ck_assert_msg(strstr(printed, expected) != NULL, "%s:\n  got:  %s  want: %s", e->d_name, printed,
                  expected);
    free(printed);
    free(expected);
    nfiles++;
  }
  closedir(d);
  ck_assert_msg(nfiles >= 15, "only %d bad files found", nfiles);
}
END_TEST


/* ------------------------------------------------------------ fio JSON */

#define FJ_JOB "[r]\nrw=randread\nbs=4k\niodepth=4\nsize=1g\nruntime=1\ntime_based\n"

static char *fj_tmpdir(void)
{
  static char dir[64];
  snprintf(dir, sizeof dir, "/tmp/nastwin-fiojson-XXXXXX");
  ck_assert(mkdtemp(dir) != NULL);
  return dir;
}

static void fj_write(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* nastwin run --fio JOB with the given output-format arguments: stdout. */
static char *fj_run(const char *job, const char *fmt1, const char *fmt2)
{
  const char *args[] = {"run", "--fio", job, fmt1, fmt2, NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "run %s %s: exit %d: %s", fmt1, fmt2 ? fmt2 : "", r.status, r.err);
  char *out = r.out;
  r.out = NULL;
  cli_out_free(&r);
  return out;
}

static void fj_rmdir(const char *dir)
{
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_fio_json_values)
{
  char *dir = fj_tmpdir(), job[128];
  snprintf(job, sizeof job, "%s/r.fio", dir);
  fj_write(job, FJ_JOB);
  char *js = fj_run(job, "--output-format=json", NULL);
  char *keys = jk_keys(js);
  ck_assert_msg(keys != NULL, "not JSON: %.200s", js);
  /* fio's 17 default percentiles, in fio's key spelling. */
  static const char *const pct[] = {"1.000000",  "5.000000",  "10.000000", "20.000000", "30.000000",
                                    "40.000000", "50.000000", "60.000000", "70.000000", "80.000000",
                                    "90.000000", "95.000000", "99.000000", "99.500000", "99.900000",
                                    "99.950000", "99.990000"};
  for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
    char k[128];
    snprintf(k, sizeof k, "\njobs/read/clat_ns/percentile/%s\n", pct[i]);
    ck_assert_msg(strstr(keys, k), "no percentile %s", pct[i]);
  }
  const char *rd = strstr(js, "\"read\": ");
  double ios = cli_json_number(js, "\"read\": ", "total_ios");
  double runtime_ms = cli_json_number(js, "\"read\": ", "runtime");
  double iops = cli_json_number(js, "\"read\": ", "iops");
  double n = cli_json_number(rd, "\"clat_ns\"", "N");
  ck_assert_msg(ios > 100 && n == ios, "total_ios %g, clat N %g", ios, n);
  ck_assert_msg(fabs(iops - ios / (runtime_ms / 1e3)) <= 0.01 * iops, "iops %g vs %g I/Os in %g ms", iops,
                ios, runtime_ms);
  /* Percentiles ordered, within [min, max]. */
  double lo = cli_json_number(rd, "\"clat_ns\"", "min"), hi = cli_json_number(rd, "\"clat_ns\"", "max");
  double prev = lo;
  for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
    char k[64];
    snprintf(k, sizeof k, "%s", pct[i]);
    double v = cli_json_number(rd, "\"percentile\"", k);
    ck_assert_msg(v >= prev && v <= hi, "percentile %s = %g (prev %g, max %g)", k, v, prev, hi);
    prev = v;
  }
  /* Bandwidth samples: 2 slices of 0.5 s in the 1 s window, mean = bw. */
  double bw = cli_json_number(rd, NULL, "bw"), mean = cli_json_number(rd, NULL, "bw_mean");
  ck_assert_int_eq((int)cli_json_number(rd, NULL, "bw_samples"), 2);
  ck_assert_msg(fabs(mean - bw) <= 0.02 * bw, "bw_mean %g vs bw %g", mean, bw);
  ck_assert(cli_json_number(rd, NULL, "bw_min") <= mean && cli_json_number(rd, NULL, "bw_max") >= mean);
  /* The latency buckets cover every I/O. */
  double sum = 0.0;
  const char *groups[] = {"\"latency_ns\"", "\"latency_us\"", "\"latency_ms\""};
  for (int g = 0; g < 3; g++) {
    const char *p = strstr(js, groups[g]);
    ck_assert(p != NULL);
    const char *end = strchr(p, '}');
    for (const char *c = strchr(p + strlen(groups[g]), ':'); c && c < end; c = strchr(c + 1, ':'))
      sum += strtod(c + 1, NULL);
  }
  ck_assert_msg(fabs(sum - 100.0) < 0.01, "latency buckets sum to %g %%", sum);
  /* The space form prints the same bytes; json+ adds bins that hold every I/O. */
  char *js2 = fj_run(job, "--output-format", "fio-json");
  ck_assert_str_eq(js, js2);
  char *plus = fj_run(job, "--output-format", "json+");
  const char *bins = strstr(plus, "\"bins\": {");
  ck_assert(bins != NULL);
  double total = 0.0;
  for (const char *q = strchr(bins, ':') + 1; q && *q && *q != '}';) {
    const char *c = strchr(q, ':');
    const char *e = strchr(q, '}');
    if (!c || (e && e < c))
      break;
    total += strtod(c + 1, (char **)&q);
  }
  ck_assert_msg(total == ios, "json+ bins hold %g I/Os, want %g", total, ios);
  char *text = fj_run(job, "--output-format=normal", NULL);
  ck_assert(strstr(text, "read : IOPS=") != NULL);
  const char *bad[] = {"run", "--fio", job, "--output-format=terse", NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, bad, &r), 0);
  ck_assert_int_eq(r.status, 2);
  ck_assert(strstr(r.err, "json+") != NULL);
  cli_out_free(&r);
  free(text);
  free(plus);
  free(js2);
  free(keys);
  free(js);
  fj_rmdir(dir);
}
END_TEST

/* Every key real fio writes (top, job, read/write levels, clat
 * percentiles) is in nastwin's output for the same job. */
START_TEST(test_fio_json_keys_vs_real_fio)
{
  if (system("command -v fio >/dev/null 2>&1") != 0) {
    printf("test_fio_json_keys_vs_real_fio: skipped: fio is not installed (apt-get install fio)\n");
    return;
  }
  char *dir = fj_tmpdir(), job[128], cmd[512], ref[128];
  snprintf(job, sizeof job, "%s/r.fio", dir);
  fj_write(job, FJ_JOB);
  /* fio itself on a small file (its options in the job file win over the
   * command line's, so it gets its own). */
  char fjob[128];
  snprintf(fjob, sizeof fjob, "%s/f.fio", dir);
  fj_write(fjob, "[r]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\nioengine=psync\nfilename=ref.dat\n");
  snprintf(ref, sizeof ref, "%s/ref.json", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && fio --output-format=json f.fio >ref.json 2>/dev/null", dir);
  ck_assert_msg(system(cmd) == 0, "fio failed: %s", cmd);
  char *refjs = fio_test_read(ref);
  ck_assert(refjs != NULL);
  char *rk = strchr(refjs, '{') ? jk_keys(strchr(refjs, '{')) : NULL; /* after fio's notes */
  ck_assert_msg(rk != NULL, "fio's output is not JSON: %.200s", refjs);
  char *js = fj_run(job, "--output-format=json", NULL);
  char *nk = jk_keys(js);
  ck_assert(nk != NULL);
  int checked = 0;
  for (char *line = rk + 1; *line;) {
    char *nl = strchr(line, '\n');
    *nl = 0;
    int depth = 0;
    for (char *c = line; *c; c++)
      depth += *c == '/';
    /* Levels: top, jobs/X, jobs/read|write/X, the clat percentiles. */
    int want = strncmp(line, "disk_util", 9) != 0 && strncmp(line, "global options/", 15) != 0 &&
               strncmp(line, "jobs/job options/", 17) != 0 &&
               (depth <= 1 || (depth == 2 && (!strncmp(line, "jobs/read/", 10) || !strncmp(line, "jobs/write/", 11))) ||
                !strncmp(line, "jobs/read/clat_ns/percentile/", 29));
    if (want) {
      char k[1100];
      snprintf(k, sizeof k, "\n%s\n", line);
      ck_assert_msg(strstr(nk, k) != NULL, "fio writes '%s', nastwin does not", line);
      checked++;
    }
    line = nl + 1;
  }
  ck_assert_msg(checked > 60, "only %d keys compared", checked);
  free(nk);
  free(js);
  free(rk);
  free(refjs);
  fj_rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------ job language */

static void fio_lang_parse(const char *text, struct workload *w)
{
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "lang.fio", w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  free(warn);
}

static char *fio_lang_fail(const char *text)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_msg(fio_parse_string(text, "lang.fio", &w, &warn, &err) == -1, "should fail:\n%s", text);
  ck_assert(warn == NULL && w.steps == NULL);
  char *printed = NULL;
  size_t plen = 0;
  FILE *mem = open_memstream(&printed, &plen);
  nw_err_print(&err, mem);
  fclose(mem);
  return printed;
}

START_TEST(test_language)
{
  struct workload w;
  setenv("NASTWIN_TEST_BS", "16k", 1);
  unsetenv("NASTWIN_TEST_UNSET");
  fio_lang_parse("[j]\nbs=${NASTWIN_TEST_BS}\nsize=(2*3+2)m\niodepth=(2^3)\nruntime=(1500000)\n"
                 "numjobs=$ncpus\noffset=(1g/4)\n", &w);
  const struct job *j = &w.steps[0].jobs[0];
  CK_EQ(j->bs_bytes[0], 16 * KIB);
  CK_EQ(j->size_bytes, 8 * MIB);
  ck_assert_int_eq(j->iodepth, 8);
  CK_EQ(j->runtime_s, 1.5); /* expressions count time in microseconds */
  ck_assert_int_eq(j->numjobs, (int)sysconf(_SC_NPROCESSORS_ONLN));
  CK_EQ(j->offset_bytes, GIB / 4);
  workload_free(&w);
  fio_lang_parse("[j]\nbs=$pagesize\nsize=$mb_memory\n", &w);
  CK_EQ(w.steps[0].jobs[0].bs_bytes[0], (double)sysconf(_SC_PAGESIZE));
  ck_assert(w.steps[0].jobs[0].size_bytes >= 1.0);
  workload_free(&w);
  /* Percentages, io amounts, rate at the mean block size. */
  fio_lang_parse("[j]\nsize=25%\noffset=50%\nio_size=64m\nbssplit=4k/50:12k/50\nrate=8m\n"
                 "[k]\nbs=4k\nnumber_ios=100\nio_size=1m\nrate_iops=10\nrate=1m\n", &w);
  j = &w.steps[0].jobs[0];
  CK_EQ(j->size_frac, 0.25);
  CK_EQ(j->offset_frac, 0.5);
  CK_EQ(j->io_bytes, 64 * MIB);
  CK_EQ(j->rate_iops, 8 * MIB / (8 * KIB));
  const struct job *k = &w.steps[0].jobs[1];
  CK_EQ(k->io_bytes, 100 * 4 * KIB); /* number_ios below io_size: the lower wins */
  CK_EQ(k->rate_iops, 10.0);         /* rate_iops below rate/bs = 256 */
  workload_free(&w);
  /* rw=MODE:N: holes, backwards, random runs; bsrange; wait_for. */
  fio_lang_parse("[a]\nrw=write:60k\nbs=4k\n[b]\nrw=read:-8k\nbs=4k\n[c]\nrw=randread:8\n"
                 "[d]\nbsrange=4k-16k\n[e]\nwait_for=d\n", &w);
  ck_assert_int_eq(w.nsteps, 2);
  const struct job *a = &w.steps[0].jobs[0], *b = &w.steps[0].jobs[1], *c = &w.steps[0].jobs[2];
  ck_assert_int_eq(a->access, JOB_STRIDE);
  CK_EQ(a->stride_bytes, 64 * KIB);
  ck_assert_int_eq(b->access, JOB_BACKWARD);
  ck_assert_int_eq(c->access, JOB_RANDOM);
  ck_assert_int_eq(c->random_run, 8);
  const struct job *d = &w.steps[0].jobs[3];
  ck_assert_int_eq(d->nbs, 4);
  CK_EQ(d->bs_bytes[3], 16 * KIB);
  CK_EQ(d->bs_weight[0], 0.25);
  ck_assert_str_eq(w.steps[1].jobs[0].name, "e");
  workload_free(&w);
  /* As many jobs as run at once up to the step limit. */
  char many[STEP_MAX_JOBS * 8 + 64];
  size_t len = (size_t)snprintf(many, sizeof many, "[global]\nrw=read\n");
  for (int i = 0; i < STEP_MAX_JOBS; i++)
    len += (size_t)snprintf(many + len, sizeof many - len, "[j%d]\n", i);
  fio_lang_parse(many, &w);
  ck_assert_int_eq(w.steps[0].njobs, STEP_MAX_JOBS);
  workload_free(&w);
  /* An unset ${VAR} becomes nothing, as fio substitutes it: an empty
   * value is named with the variable; inside a value it just vanishes.
   * fio 3.33 refuses the empty value of any option but a few (parse.c),
   * a credential or a directory too: every one is listed. */
  char *msg = fio_lang_fail("[j]\nsize=${NASTWIN_TEST_UNSET}\n");
  ck_assert_msg(strstr(msg, "lang.fio:2:6: error: size: '${NASTWIN_TEST_UNSET}' is empty: the environment "
                            "variable is not set") && strstr(msg, "NASTWIN_TEST_UNSET=VALUE") &&
                    strstr(msg, "\"failed parsing size=${NASTWIN_TEST_UNSET}\""), "%s", msg);
  free(msg);
  msg = fio_lang_fail("[j]\nioengine=http\nhttp_s3_key=${NASTWIN_TEST_UNSET}\ndirectory=${NASTWIN_TEST_UNSET}\n"
                      "cpus_allowed=${NASTWIN_TEST_UNSET}\n");
  ck_assert_msg(strstr(msg, "lang.fio:3:13: error: http_s3_key: '${NASTWIN_TEST_UNSET}' is empty") &&
                    strstr(msg, "lang.fio:4:11: error: directory: '${NASTWIN_TEST_UNSET}' is empty") &&
                    !strstr(msg, "cpus_allowed"), "%s", msg);
  free(msg);
  fio_lang_parse("[j]\nbs=16${NASTWIN_TEST_UNSET}k\n", &w);
  CK_EQ(w.steps[0].jobs[0].bs_bytes[0], 16 * KIB);
  workload_free(&w);
  msg = fio_lang_fail("[j]\nsize=(2*)m\n");
  ck_assert_msg(strstr(msg, "lang.fio:2:6: error: size: bad expression"), "%s", msg);
  free(msg);
  char deep[512];
  snprintf(deep, sizeof deep, "[j]\niodepth=(%.*s1)\n", 100,
           "----------------------------------------------------------------------------------------------------");
  msg = fio_lang_fail(deep);
  ck_assert_msg(strstr(msg, "nested too deep"), "%s", msg);
  free(msg);
  msg = fio_lang_fail("[j]\niodepth=(1/0)\n");
  ck_assert_msg(strstr(msg, "division by zero"), "%s", msg);
  free(msg);
}
END_TEST

/* Every error of a file in one message, each with file:line:col. */
START_TEST(test_all_errors_at_once)
{
  char *msg = fio_lang_fail("[global]\nioengine=rdma\n[a]\nrw=trimm\nzonemode=zbd\nzonesize=100\nbs=4x\n"
                            "random_distribution=pareto:1.5\nblocksiz=4k\nread_iolog=t.log\n");
  static const char *const want[] = {
      "lang.fio:2:10: error: ioengine=rdma does no block I/O",
      "lang.fio:4:4: error: rw: bad value 'trimm' (allowed: read, write, randread, randwrite, rw, readwrite, "
      "randrw, trim, randtrim, trimwrite, randtrimwrite",
      "lang.fio:3:1: error: job 'a': zonemode=zbd: zonesize 100 B is too small (allowed: at least 512 B",
      "lang.fio:7:4: error: bs: bad value '4x'",
      "lang.fio:8:21: error: random_distribution: bad value 'pareto:1.5'",
      "lang.fio:9:1: error: 1 option(s) that are not generic fio options, of the refused engine(s) rdma: "
      "blocksiz (line 9; did you mean 'blocksize'?)",
      "lang.fio:10:1: error: fio option 'read_iolog' is not supported",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(msg, want[i]), "missing '%s' in:\n%s", want[i], msg);
  int lines = 0;
  for (const char *p = msg; (p = strstr(p, ": error: ")); p++)
    lines++;
  ck_assert_int_eq(lines, 7);
  free(msg);
  /* One reason, one line: an engine refused on several lines, options
   * refused for one reason. */
  /* A refused engine's own option is named as the engine's, with no
   * generic option guessed (nbd's uri is not a typo of rw). */
  msg = fio_lang_fail("[j]\nioengine=nbd\nuri=nbd+unix:///?socket=/tmp/s\n");
  ck_assert_msg(strstr(msg, "of the refused engine(s) nbd: uri (line 3)") && !strstr(msg, "did you mean"), "%s",
                msg);
  free(msg);
  msg = fio_lang_fail("[global]\nioengine=mtd\n[a]\nread_iolog=t.log\nreplay_no_stall=1\n[b]\nioengine=mtd\n");
  ck_assert_msg(strstr(msg, "lang.fio:2:10: error: ioengine=mtd does its I/O to a target a NAS does not serve") &&
                    strstr(msg, "(use psync, libaio, io_uring, ...) (lines 2, 7)") &&
                    strstr(msg, "lang.fio:4:1: error: fio options read_iolog (line 4), replay_no_stall (line 5) "
                                "are not supported by nastwin (I/O trace replay"),
                "%s", msg);
  lines = 0;
  for (const char *p = msg; (p = strstr(p, ": error: ")); p++)
    lines++;
  ck_assert_int_eq(lines, 2);
  free(msg);
  /* Many errors: the message says how many it could not show. */
  char big[8192];
  size_t len = (size_t)snprintf(big, sizeof big, "[j]\n");
  for (int i = 0; i < 40; i++)
    len += (size_t)snprintf(big + len, sizeof big - len, "random_distribution=pareto:1.%d\n", i);
  msg = fio_lang_fail(big);
  ck_assert_msg(strstr(msg, "more errors not shown)"), "%s", msg);
  free(msg);
  /* include: relative to the including file, no sections inside. */
  char dir[] = "/tmp/nastwin-fioinc-XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char main_path[128], inc_path[128];
  snprintf(main_path, sizeof main_path, "%s/main.fio", dir);
  snprintf(inc_path, sizeof inc_path, "%s/inc.fio", dir);
  fj_write(inc_path, "bs=8k\n[oops]\nrw=trimm\n");
  fj_write(main_path, "[j]\ninclude inc.fio\ninclude missing.fio\n");
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_file(main_path, &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "inc.fio:2:1: error: section '[oops]' in an included file") || strstr(err.file, "inc.fio"),
                "%s: %s", err.file, err.msg);
  ck_assert_msg(strstr(err.msg, "inc.fio:3:4: error: rw: bad value 'trimm'"), "%s", err.msg);
  ck_assert_msg(strstr(err.msg, "main.fio:3:1: error: include 'missing.fio':"), "%s", err.msg);
  fj_write(inc_path, "bs=8k\niodepth=(2*2)\n");
  fj_write(main_path, "[j]\ninclude inc.fio\nrw=randread\n");
  ck_assert_int_eq(fio_parse_file(main_path, &w, &warn, &err), 0);
  CK_EQ(w.steps[0].jobs[0].bs_bytes[0], 8 * KIB);
  ck_assert_int_eq(w.steps[0].jobs[0].iodepth, 4);
  workload_free(&w);
  free(warn);
  fj_rmdir(dir);
}
END_TEST

/* tests/fio/examples: written in the style of fio's own examples; each
 * parses, or is refused with one message listing its errors; >= 70 % run. */
START_TEST(test_examples)
{
  char path[2048];
  snprintf(path, sizeof path, "%s/tests/fio/examples/expected.txt", fio_test_dir());
  char *list = fio_test_read(path);
  ck_assert(list != NULL);
  setenv("NASTWIN_TEST_FIO_SIZE", "256m", 1);
  int ok = 0, refused = 0;
  char *save = NULL;
  for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || !line[0])
      continue;
    char name[128], what[16], text[256] = "";
    int nerr = 0;
    int got = sscanf(line, "%127s %15s %d %255[^\n]", name, what, &nerr, text);
    ck_assert_msg(got == 2 || got == 4, "bad line '%s'", line);
    snprintf(path, sizeof path, "%s/tests/fio/examples/%s", fio_test_dir(), name);
    struct workload w;
    struct nw_err err;
    char *warn = NULL;
    int rc = fio_parse_file(path, &w, &warn, &err);
    if (!strcmp(what, "ok")) {
      ck_assert_msg(rc == 0, "%s should parse: %s:%d:%d: %s", name, err.file, err.line, err.col, err.msg);
      ck_assert(w.nsteps >= 1);
      workload_free(&w);
      free(warn);
      ok++;
      continue;
    }
    ck_assert_msg(rc == -1, "%s should be refused", name);
    char *printed = NULL;
    size_t plen = 0;
    FILE *mem = open_memstream(&printed, &plen);
    nw_err_print(&err, mem);
    fclose(mem);
    int lines = 0;
    for (char *l = printed; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
      ck_assert_msg(strstr(l, ": error: ") && strstr(l, name), "%s: not a file:line:col line: %s", name, l);
      char *nl = strchr(l, '\n');
      char one[2048];
      snprintf(one, sizeof one, "%.*s", (int)(nl ? nl - l : (long)strlen(l)), l);
      ck_assert_msg(strstr(one, text), "%s: '%s' lacks '%s'", name, one, text);
      lines++;
    }
    ck_assert_msg(lines == nerr, "%s: %d errors listed, want %d:\n%s", name, lines, nerr, printed);
    free(printed);
    refused++;
  }
  free(list);
  ck_assert_msg(ok * 10 >= (ok + refused) * 7, "only %d of %d examples run", ok, ok + refused);
  ck_assert_int_ge(ok + refused, 30);
}
END_TEST

/* The CLI: a refused file exits 2 with every error, no output on stdout;
 * a bad http_mode is one error at its value's line and column. */
START_TEST(test_cli_refused)
{
  char path[2048];
  snprintf(path, sizeof path, "%s/tests/fio/examples/http-s3.fio", fio_test_dir());
  const char *args[] = {"run", "--fio", path, "--output-format=json", NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(r.out[0] == '\0', "stdout: %s", r.out);
  ck_assert_msg(strstr(r.err, "http-s3.fio:14:13: error: http_s3_key: '${S3_KEY}' is empty") &&
                strstr(r.err, "http-s3.fio:15:15: error: http_s3_keyid: '${S3_ID}' is empty"), "%s", r.err);
  cli_out_free(&r);
  snprintf(path, sizeof path, "%s/tests/fio/bad/bad_http_mode.fio", fio_test_dir());
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "bad_http_mode.fio:3:11: error: http_mode: bad value 'ftp' (allowed: webdav, s3, "
                              "swift)"), "%s", r.err);
  cli_out_free(&r);
}
END_TEST

/* ioengine=http: the job file runs on the NAS's WebDAV daemon (the scenario's
 * smb switched to webdav, said in a note); its trim is one DELETE per
 * block; an http job beside a file-engine job is refused (one protocol). */
START_TEST(test_http_engine)
{
  char *dir = fj_tmpdir(), job[128];
  snprintf(job, sizeof job, "%s/dav.fio", dir);
  fj_write(job, "[global]\nioengine=http\nhttp_mode=webdav\nhttp_host=nas\nbs=64k\nsize=1m\n"
                "[put]\nrw=write\nnumjobs=2\n[del]\nstonewall\nrw=trim\nio_size=256k\n");
  const char *args[] = {"run", "--fio", job, "--time", "0.5s", NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.err, "runs on the NAS's WebDAV daemon: protocol.kind webdav") &&
                strstr(r.err, "instead of the scenario's smb"), "%s", r.err);
  ck_assert_msg(strstr(r.out, "webdav over") && strstr(r.out, "soc.httpd0"), "%s", r.out);
  /* 2 jobs x 1 MiB / 64 KiB PUTs; 256 KiB / 64 KiB = 4 DELETEs */
  ck_assert_msg(strstr(r.out, "32 I/Os") && strstr(r.out, ", 4 I/Os"), "%s", r.out);
  cli_out_free(&r);
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_file(job, &w, &warn, &err), 0);
  ck_assert_int_eq(w.steps[1].jobs[0].meta_op, JOB_META_DELETE);
  ck_assert_double_eq(w.steps[1].jobs[0].nrfiles, 4.0);
  workload_free(&w);
  free(warn);
  fj_write(job, "[dav]\nioengine=http\nrw=write\nsize=1m\n[smb]\nioengine=psync\nrw=read\nsize=1m\n");
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "a run has one protocol"), "%s", r.err);
  cli_out_free(&r);
  fj_rmdir(dir);
}
END_TEST

/* Per-direction block sizes are written back in fio's READ,WRITE form. */
START_TEST(test_fio_json_per_direction)
{
  char *dir = fj_tmpdir(), job[128];
  snprintf(job, sizeof job, "%s/d.fio", dir);
  fj_write(job, "[d]\nrw=randrw\nbs=4k,64k\nsize=64m\nruntime=0.1\ntime_based\n");
  char *js = fj_run(job, "--output-format=json", NULL);
  ck_assert_msg(strstr(js, "\"bs\": \"4096,65536\""), "%.400s", js);
  free(js);
  fj_rmdir(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fio");
  TCase *tg = tcase_create("golden");
  tcase_add_test(tg, test_basic);
  tcase_add_test(tg, test_mixed);
  tcase_add_test(tg, test_groups);
  suite_add_tcase(s, tg);
  TCase *to = tcase_create("options");
  tcase_add_test(to, test_spellings);
  tcase_add_test(to, test_strings);
  tcase_add_test(to, test_verify);
  tcase_add_test(to, test_verify_inline);
  tcase_add_test(to, test_option_classes);
  suite_add_tcase(s, to);
  TCase *tb = tcase_create("bad");
  tcase_add_test(tb, test_bad_corpus);
  suite_add_tcase(s, tb);
  TCase *tl = tcase_create("language");
  tcase_add_test(tl, test_language);
  tcase_add_test(tl, test_all_errors_at_once);
  tcase_add_test(tl, test_examples);
  tcase_add_test(tl, test_cli_refused);
  tcase_add_test(tl, test_http_engine);
  suite_add_tcase(s, tl);
  TCase *tj = tcase_create("fio-json");
  tcase_set_timeout(tj, 60);
  tcase_add_test(tj, test_fio_json_values);
  tcase_add_test(tj, test_fio_json_keys_vs_real_fio);
  tcase_add_test(tj, test_fio_json_per_direction);
  suite_add_tcase(s, tj);
  return ck_run(s);
}
