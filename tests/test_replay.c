/* Trace replay (sim/config/replay.c) and the workload generator
 * (sim/config/workgen.c), without the engine: every trace format parsed
 * from small traces written here (and an iolog recorded by the real fio
 * when it is installed), bad lines refused with file:line, the
 * Ruemmler-Wilkes demerit worked by hand, synthetic offsets and sizes,
 * open-loop arrivals, and replays through the whole simulator (a DiskSim
 * validate trace one request at a time). */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/replay.h"
#include "sim/config/workgen.h"

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static struct replay_trace *load(const char *text, enum replay_format fmt, struct nw_err *err)
{
  char path[64];
  snprintf(path, sizeof path, "/tmp/nastwin-replay-%d.trace", (int)getpid());
  write_file(path, text);
  struct replay_trace *t = replay_load(path, fmt, err);
  unlink(path);
  return t;
}

START_TEST(test_validate_format)
{
  struct nw_err err = {0};
  struct replay_trace *t = load("R Hit 100 4 5000.0 20000.0\nW Miss 8 8 1200.0 500.0\n"
                                "R Hit 0 1 300.0 0.0\n", REPLAY_DISKSIM_VALIDATE, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 3);
  ck_assert_int_eq(t->traced, 1);
  ck_assert_int_eq(t->v[0].write, 0);
  ck_assert_uint_eq(t->v[0].offset_bytes, 51200);
  ck_assert_uint_eq(t->v[0].len_bytes, 2048);
  ck_assert_double_eq_tol(t->v[0].traced_s, 5e-3, 1e-15);
  ck_assert_double_eq_tol(t->v[1].at_s, 20e-3, 1e-15); /* the gap to the next arrival */
  ck_assert_double_eq_tol(t->v[2].at_s, 20.5e-3, 1e-15);
  ck_assert_int_eq(t->v[1].write, 1);
  ck_assert_int_eq(t->one_at_a_time, 1); /* measured one request at a time */
  replay_free(t);
  ck_assert_ptr_null(load("R Hit 100 4 5000.0\n", REPLAY_DISKSIM_VALIDATE, &err));
  ck_assert_int_eq(err.line, 1);
  ck_assert_ptr_nonnull(strstr(err.msg, "R|W"));
}
END_TEST

START_TEST(test_ascii_format)
{
  struct nw_err err = {0};
  struct replay_trace *t = load("0.0 0 1000 8 1\n2.5 0 2000 16 0\n", REPLAY_DISKSIM_ASCII, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 2);
  ck_assert_int_eq(t->traced, 0);
  ck_assert_int_eq(t->v[0].write, 0); /* flags bit 0: read */
  ck_assert_int_eq(t->v[1].write, 1);
  ck_assert_double_eq_tol(t->v[1].at_s, 2.5e-3, 1e-15);
  ck_assert_uint_eq(t->v[1].len_bytes, 8192);
  replay_free(t);
  ck_assert_ptr_null(load("0.0 0 1000 0 1\n", REPLAY_DISKSIM_ASCII, &err));
}
END_TEST

START_TEST(test_fio_iolog_formats)
{
  struct nw_err err = {0};
  struct replay_trace *t = load("fio version 2 iolog\n/f add\n/f open\n/f read 4096 4096\n"
                                "/f wait 1500 0\n/f write 0 8192\n/f close\n",
                                REPLAY_FIO_IOLOG, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 2);
  ck_assert_double_eq_tol(t->v[1].at_s, 1.5e-3, 1e-15);
  ck_assert_int_eq(t->v[1].write, 1);
  ck_assert_uint_eq(t->v[1].len_bytes, 8192);
  replay_free(t);
  t = load("fio version 3 iolog\n29 /f add\n514 /f open\n520 /f read 249856 4096\n"
           "549 /f write 1970176 4096\n700 /f close\n", REPLAY_FIO_IOLOG, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 2);
  ck_assert_double_eq_tol(t->v[1].at_s - t->v[0].at_s, 29e-6, 1e-12); /* microseconds */
  ck_assert_uint_eq(t->v[0].offset_bytes, 249856);
  replay_free(t);
  ck_assert_ptr_null(load("fio version 3 iolog\n10 /f frobnicate 0 4096\n", REPLAY_FIO_IOLOG, &err));
  ck_assert_int_eq(err.line, 2);
  ck_assert_ptr_null(load("fio version 7 iolog\n", REPLAY_FIO_IOLOG, &err));
}
END_TEST

/* A real iolog, recorded by fio's write_iolog when fio is installed. */
START_TEST(test_fio_recorded)
{
  if (system("fio --version >/dev/null 2>&1") != 0)
    return; /* no fio: the written logs above cover the format */
  char dir[64], cmd[512], log[96];
  snprintf(dir, sizeof dir, "/tmp/nastwin-fio-%d", (int)getpid());
  snprintf(log, sizeof log, "%s/io.log", dir);
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s && fio --name=t --filename=%s/f --rw=randrw --bs=4k --size=1M "
           "--io_size=64k --ioengine=psync --write_iolog=%s >/dev/null 2>&1", dir, dir, log);
  ck_assert_int_eq(system(cmd), 0);
  struct nw_err err = {0};
  struct replay_trace *t = replay_load(log, REPLAY_FIO_IOLOG, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 16); /* 64 KiB in 4 KiB I/Os */
  for (int i = 0; i < t->n; i++) {
    ck_assert_uint_eq(t->v[i].len_bytes, 4096);
    ck_assert_uint_lt(t->v[i].offset_bytes, 1 << 20);
    ck_assert(i == 0 || t->v[i].at_s >= t->v[i - 1].at_s);
  }
  replay_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_blkparse_format)
{
  struct nw_err err = {0};
  struct replay_trace *t =
      load("  8,0    0        1     0.000000000  697  Q  WS 2048 + 8 [kworker]\n"
           "  8,0    0        2     0.000001000  697  G  WS 2048 + 8 [kworker]\n"
           "  8,0    0        3     0.000100000  697  D  WS 2048 + 8 [kworker]\n"
           "  8,0    1        4     0.001000000  700  Q   R 4096 + 16 [fio]\n"
           "  8,0    0        5     0.004000000    0  C  WS 2048 + 8 [0]\n"
           "  8,0    1        6     0.009000000    0  C   R 4096 + 16 [0]\n"
           "  8,0    1        7     0.010000000    0  Q  FN [kworker]\n"
           "CPU0 (8,0):\n Reads Queued:           1,        8KiB\n",
           REPLAY_BLKPARSE, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 2);
  ck_assert_int_eq(t->traced, 1);
  ck_assert_int_eq(t->v[0].write, 1);
  ck_assert_uint_eq(t->v[0].offset_bytes, 2048 * 512);
  ck_assert_double_eq_tol(t->v[0].traced_s, 4e-3, 1e-12); /* Q to C */
  ck_assert_double_eq_tol(t->v[1].traced_s, 8e-3, 1e-12);
  ck_assert_double_eq_tol(t->v[1].at_s, 1e-3, 1e-12);
  replay_free(t);
  ck_assert_ptr_null(load("CPU0 (8,0):\n", REPLAY_BLKPARSE, &err));
  ck_assert_ptr_nonnull(strstr(err.msg, "no read or write"));
}
END_TEST

/* Discards replay as trims: fio's iolog 'trim OFFSET LENGTH', blkparse
 * queue events whose RWBS holds D (and no R or W). */
START_TEST(test_trim_records)
{
  struct nw_err err = {0};
  struct replay_trace *t = load("fio version 2 iolog\n/f add\n/f open\n/f trim 8192 65536\n/f write 0 4096\n",
                                REPLAY_FIO_IOLOG, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert_int_eq(t->n, 2);
  ck_assert(t->v[0].trim && !t->v[0].write && t->v[0].offset_bytes == 8192 && t->v[0].len_bytes == 65536);
  ck_assert(!t->v[1].trim && t->v[1].write);
  replay_free(t);
  ck_assert_ptr_null(load("fio version 2 iolog\n/f trim 8192\n", REPLAY_FIO_IOLOG, &err));
  ck_assert_ptr_nonnull(strstr(err.msg, "read/write/trim with offset and length"));
  t = load("  8,0    0        1     0.000000000  697  Q   D 2048 + 256 [fstrim]\n"
           "  8,0    0        2     0.000500000    0  C   D 2048 + 256 [0]\n",
           REPLAY_BLKPARSE, &err);
  ck_assert_msg(t != NULL, "%s", err.msg);
  ck_assert(t->n == 1 && t->v[0].trim && !t->v[0].write && t->v[0].len_bytes == 256 * 512);
  ck_assert_double_eq_tol(t->v[0].traced_s, 5e-4, 1e-12);
  replay_free(t);
}
END_TEST

START_TEST(test_demerit)
{
  double sim[4] = {4, 1, 3, 2}, traced[4] = {1, 2, 3, 5};
  /* sorted pairs differ by 0, 0, 0, 1: RMS = sqrt(1/4) */
  ck_assert_double_eq_tol(replay_demerit_s(sim, 4, traced, 4), 0.5, 1e-15);
  double a[2] = {1, 1}, b[4] = {1, 1, 3, 3};
  /* 4 quantiles: a gives 1 1 1 1, b 1 1 3 3: sqrt((4 + 4) / 4) */
  ck_assert_double_eq_tol(replay_demerit_s(a, 2, b, 4), sqrt(2.0), 1e-15);
  ck_assert_double_eq(replay_demerit_s(a, 0, b, 4), 0.0);
}
END_TEST

START_TEST(test_workgen_synthetic)
{
  struct job j;
  job_defaults(&j);
  j.bs_bytes[0] = 4096;
  struct workgen g;
  workgen_init(&g, &j, NULL, 1 << 20, 3 * 4096);
  struct workgen_io io;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  uint64_t want[3] = {(1 << 20), (1 << 20) + 4096, (1 << 20) + 8192};
  for (int i = 0; i < 3; i++) {
    ck_assert(workgen_more(&g));
    workgen_next(&g, rng, &io);
    ck_assert_uint_eq(io.offset_bytes, want[i]);
    ck_assert_uint_eq(io.len_bytes, 4096);
    ck_assert_int_eq(io.write, 0);
    ck_assert_int_eq(io.rec, -1);
  }
  ck_assert(!workgen_more(&g)); /* the region is done */
  j.access = JOB_RANDOM;
  j.read_frac = 0.0;
  j.time_based = 1;
  workgen_init(&g, &j, NULL, 0, 1 << 20);
  for (int i = 0; i < 1000; i++) {
    workgen_next(&g, rng, &io);
    ck_assert_uint_eq(io.offset_bytes % 4096, 0);
    ck_assert_uint_lt(io.offset_bytes, 1 << 20);
    ck_assert_int_eq(io.write, 1);
  }
  ck_assert(workgen_more(&g));
  j.rate_iops = 200;
  ck_assert(workgen_timed(&j));
  ck_assert_double_eq_tol(workgen_arrival_s(&g, 1.0, 1.5), 1.505, 1e-12);
  gsl_rng_free(rng);
}
END_TEST

START_TEST(test_workgen_replay)
{
  struct nw_err err = {0};
  struct replay_trace *t = load("R Hit 100 4 5000.0 20000.0\nW Miss 2048 8 1200.0 500.0\n",
                                REPLAY_DISKSIM_VALIDATE, &err);
  ck_assert_ptr_nonnull(t);
  struct job j;
  job_defaults(&j);
  j.replay = 1;
  ck_assert(workgen_timed(&j)); /* open loop by the timestamps */
  struct workgen g;
  workgen_init(&g, &j, t, 0, 1 << 20); /* a 1 MiB region: 2048 x 512 wraps */
  struct workgen_io io;
  ck_assert_double_eq_tol(workgen_arrival_s(&g, 2.0, 2.0), 2.0, 1e-15);
  workgen_next(&g, NULL, &io);
  ck_assert_uint_eq(io.offset_bytes, 51200);
  ck_assert_int_eq(io.rec, 0);
  ck_assert_double_eq_tol(workgen_arrival_s(&g, 2.0, 2.0), 2.02, 1e-15);
  workgen_next(&g, NULL, &io);
  ck_assert_int_eq(io.write, 1);
  ck_assert_uint_eq(io.offset_bytes, fmod(2048.0 * 512, (1 << 20) - 4096 + 1.0));
  ck_assert(!workgen_more(&g));
  j.replay_depth = 4;
  ck_assert(!workgen_timed(&j)); /* closed loop */
  replay_free(t);
}
END_TEST

/* DIR/s.yaml: one fixed-latency drive behind the local protocol, no page
 * cache, replaying WORKLOAD (a flow mapping's body); its path in PATH. */
static void replay_scenario(char *path, size_t n, const char *dir, const char *name,
                            const char *workload)
{
  snprintf(path, n, "%s/s.yaml", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "name: %s\nsystem: client-pc\ndisks: {count: 1, drive: teaching-fixed}\n"
             "volume: {level: single}\npage_cache: {ram: 0B}\nprotocol: {kind: local}\n"
             "workload: {%s}\nseed: 1\n", name, workload);
  fclose(f);
}

/* A blkparse trace replayed through the simulator on a fixed-latency drive:
 * every request completes, the demerit is reported. */
START_TEST(test_replay_run)
{
  const char *bin = getenv("NASTWIN_BIN");
  if (!bin)
    return;
  char dir[64], path[128], cmd[512];
  snprintf(dir, sizeof dir, "/tmp/nastwin-rr-%d", (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/t.blk", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 50; i++) {
    fprintf(f, "  8,0    0 %8d %15.9f  700  Q   %s %d + 8 [fio]\n", 2 * i, i * 0.01,
            i % 3 ? "R" : "W", 8192 * i);
    fprintf(f, "  8,0    0 %8d %15.9f    0  C   %s %d + 8 [0]\n", 2 * i + 1, i * 0.01 + 0.002,
            i % 3 ? "R" : "W", 8192 * i);
  }
  fclose(f);
  replay_scenario(path, sizeof path, dir, "replay-blk", "replay: t.blk, replay_format: blkparse");
  snprintf(cmd, sizeof cmd, "%s run %s --json > %s/out.json", bin, path, dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "python3 -c \"import json,sys; d=json.load(open('%s/out.json')); r=d['replay']; "
           "sys.exit(0 if r['requests']==50 and abs(r['traced_mean_ms']-2.0)<1e-9 and "
           "r['demerit_ms']>=0 and d['totals']['write']['ios']==17 else 1)\"", dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A DiskSim validate trace is replayed one request at a time: five 4-block
 * reads 0.1 ms apart on the fixed drive (1 ms + 2048 B / 100 MB/s =
 * 1.02 ms each) each take 1.02 ms; replayed by arrival they would queue
 * (1.02, 1.94, 2.86, 3.78, 4.70 ms: mean 2.86 ms).  The run is the same
 * with replay_depth: 1 (closed loop). */
static double validate_run_mean_ms(const char *extra)
{
  const char *bin = getenv("NASTWIN_BIN");
  char dir[64], path[128], cmd[640];
  snprintf(dir, sizeof dir, "/tmp/nastwin-rv-%d", (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/t.trace", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 5; i++)
    fprintf(f, "R Hit %d 4 1020.0 100.0\n", 1000 * i);
  fclose(f);
  char workload[128];
  snprintf(workload, sizeof workload, "replay: t.trace, replay_format: disksim-validate%s", extra);
  replay_scenario(path, sizeof path, dir, "replay-val", workload);
  snprintf(cmd, sizeof cmd,
           "%s run %s --json | python3 -c \"import json,sys; r=json.load(sys.stdin)['replay']; "
           "print(r['simulated_mean_ms'] if r['requests']==5 else -1)\"", bin, path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  double mean = -1;
  ck_assert_int_eq(fscanf(p, "%lf", &mean), 1);
  pclose(p);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  return mean;
}

START_TEST(test_validate_one_at_a_time)
{
  if (!getenv("NASTWIN_BIN"))
    return;
  double open = validate_run_mean_ms("");
  ck_assert_double_ge(open, 1.02);
  ck_assert_double_lt(open, 1.2);
  ck_assert_double_eq_tol(validate_run_mean_ms(", replay_depth: 1"), open, 0.05);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("replay");
  TCase *tc = tcase_create("formats");
  tcase_add_test(tc, test_validate_format);
  tcase_add_test(tc, test_ascii_format);
  tcase_add_test(tc, test_fio_iolog_formats);
  tcase_add_test(tc, test_fio_recorded);
  tcase_add_test(tc, test_blkparse_format);
  tcase_add_test(tc, test_trim_records);
  tcase_add_test(tc, test_demerit);
  tcase_add_test(tc, test_workgen_synthetic);
  tcase_add_test(tc, test_workgen_replay);
  tcase_add_test(tc, test_replay_run);
  tcase_add_test(tc, test_validate_one_at_a_time);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
