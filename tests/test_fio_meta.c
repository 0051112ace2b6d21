/* fio's metadata engines (filecreate, filestat, filedelete, dircreate,
 * dirstat, dirdelete, ftruncate): the job file sets one file operation per
 * I/O, the generator sends it with no data, and a run charges the protocol
 * daemon's per-open cycles; iSCSI (no files) is refused. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workgen.h"
#include "sim/config/workload.h"
#include "sim/engine/lat_target.h"
#include "cli_util.h"
#include "cli_util.c.inc"

static struct job fm_job(const char *text, char **warn_out)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "meta.fio", &w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  struct job j = w.steps[0].jobs[0];
  workload_free(&w);
  if (warn_out)
    *warn_out = warn;
  else
    free(warn);
  return j;
}

START_TEST(test_meta_engines_parse)
{
  static const struct {
    const char *engine;
    enum job_meta op;
  } e[] = {{"filecreate", JOB_META_CREATE}, {"dircreate", JOB_META_CREATE}, {"filestat", JOB_META_STAT},
           {"dirstat", JOB_META_STAT},      {"filedelete", JOB_META_DELETE}, {"dirdelete", JOB_META_DELETE}};
  for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
    char text[256], *warn = NULL;
    /* nrfiles before the engine (as fio's filecreate example has it) */
    snprintf(text, sizeof text, "[global]\nnrfiles=200\nioengine=%s\nfilesize=4k\n[t0]\n", e[i].engine);
    struct job j = fm_job(text, &warn);
    ck_assert_int_eq(j.meta_op, e[i].op);
    ck_assert_double_eq(j.read_frac, 1.0); /* fio counts them as reads unless the job only writes */
    ck_assert_double_eq(j.size_bytes, 200 * JOB_META_UPDATE_BYTES); /* one operation per file */
    ck_assert_msg(!warn || !strstr(warn, "'nrfiles'"), "nrfiles is modelled for %s: %s", e[i].engine, warn);
    free(warn);
  }
  /* a job that only writes reports them as writes (fio's stat_ddir) */
  struct job w = fm_job("[j]\nioengine=filecreate\nrw=write\nnrfiles=3\n", NULL);
  ck_assert_double_eq(w.read_frac, 0.0);
  ck_assert_double_eq(w.size_bytes, 3 * JOB_META_UPDATE_BYTES);
  /* a mixed job: td_read first, so reads */
  struct job m = fm_job("[j]\nioengine=filestat\nrw=randrw\n", NULL);
  ck_assert_double_eq(m.read_frac, 1.0);
  /* on a data job nrfiles is still not modelled: warned */
  char *warn = NULL;
  struct job d = fm_job("[j]\nrw=randread\nnrfiles=4\n", &warn);
  ck_assert_int_eq(d.meta_op, JOB_META_NONE);
  ck_assert_msg(warn && strstr(warn, "meta.fio:3: warning: fio option 'nrfiles'"), "warning: %s", warn ? warn : "");
  free(warn);
}
END_TEST

START_TEST(test_meta_ftruncate_and_refusals)
{
  struct job t = fm_job("[j]\nioengine=ftruncate\nrw=randwrite\nbs=4k\nsize=1m\n", NULL);
  ck_assert_int_eq(t.meta_op, JOB_META_TRUNC);
  ck_assert_double_eq(t.size_bytes, 1024.0 * 1024.0); /* one ftruncate per block of the size */
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nioengine=ftruncate\nrw=read\n", "t.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "ioengine=ftruncate") && strstr(err.msg, "rw=write"), "%s", err.msg);
  free(warn);
  warn = NULL;
  /* engines doing no file operation stay refused */
  ck_assert_int_eq(fio_parse_string("[j]\nioengine=rdma\n", "n.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "ioengine=rdma does no block I/O"), "%s", err.msg);
  free(warn);
  ck_assert_int_eq(fio_engine_meta("psync"), JOB_META_NONE);
  ck_assert_ptr_null(fio_engine_refused("filestat"));
}
END_TEST

/* No data on the wire; a create walks the journal, a stat rereads one
 * inode block, a truncate is one request without an open. */
START_TEST(test_meta_workgen)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 1);
  static const enum job_meta ops[] = {JOB_META_CREATE, JOB_META_STAT, JOB_META_TRUNC};
  for (int k = 0; k < 3; k++) {
    struct job j = fm_job("[j]\nioengine=filecreate\nnrfiles=8\n", NULL);
    j.meta_op = ops[k];
    struct workgen g;
    workgen_init(&g, &j, NULL, 1.0e6, j.size_bytes);
    int n = 0;
    while (workgen_more(&g)) {
      struct workgen_io io;
      workgen_next(&g, rng, &io);
      ck_assert_int_eq(io.len_bytes, 0);
      ck_assert_int_eq(io.meta, ops[k]);
      ck_assert_int_eq(io.opens, ops[k] != JOB_META_TRUNC);
      double want = ops[k] == JOB_META_CREATE ? 1.0e6 + n * JOB_META_UPDATE_BYTES : 1.0e6;
      ck_assert_double_eq((double)io.offset_bytes, want);
      n++;
    }
    ck_assert_int_eq(n, 8); /* one operation per file */
  }
  ck_assert(workgen_meta_writes(JOB_META_CREATE) && workgen_meta_writes(JOB_META_DELETE) &&
            workgen_meta_writes(JOB_META_TRUNC) && !workgen_meta_writes(JOB_META_STAT));
  gsl_rng_free(rng);
}
END_TEST

/* At the catalogue's values (--uncalibrated): the test is about what each
 * metadata engine asks of the server, not about the fitted open cost. */
static struct cli_out fm_run(const char *text, const char *set)
{
  const char *extra[] = {"--uncalibrated", "--json", set ? "--set" : NULL, set, NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_run_fio(text, "0.05s", extra, &r), 0);
  return r;
}

/* Over SMB (the default scenario) a stat costs smbd an open's cycles
 * (CREATE + QUERY_INFO + CLOSE) and a truncate one request: the stat
 * takes longer; both move no data and are counted in fio's direction. */
START_TEST(test_meta_run)
{
  struct cli_out st = fm_run("[s]\nioengine=filestat\nnrfiles=400\n", NULL);
  ck_assert_msg(st.status == 0, "exit %d: %s", st.status, st.err);
  double st_ios = cli_json_number(st.out, "\"read\"", "ios");
  double st_lat = cli_json_number(st.out, "\"read\"", "mean");
  ck_assert_msg(st_ios >= 100, "stat ops %g", st_ios);
  ck_assert_double_eq(cli_json_number(st.out, "\"read\"", "bytes"), 0.0);
  ck_assert_double_eq(cli_json_number(st.out, "\"write\"", "ios"), 0.0);
  struct cli_out tr = fm_run("[t]\nioengine=ftruncate\nrw=write\nsize=4m\n", NULL);
  ck_assert_msg(tr.status == 0, "exit %d: %s", tr.status, tr.err);
  double tr_ios = cli_json_number(tr.out, "\"write\"", "ios");
  double tr_lat = cli_json_number(tr.out, "\"write\"", "mean");
  ck_assert_msg(tr_ios >= 100, "truncate ops %g", tr_ios);
  ck_assert_double_eq(cli_json_number(tr.out, "\"write\"", "bytes"), 0.0);
  ck_assert_msg(st_lat > 2.0 * tr_lat, "stat %g ms should cost more than a truncate %g ms (an open's cycles)",
                st_lat, tr_lat);
  cli_out_free(&st);
  cli_out_free(&tr);
  struct cli_out is = fm_run("[s]\nioengine=filecreate\n", "protocol.kind=iscsi");
  ck_assert_int_eq(is.status, 2);
  ck_assert_msg(strstr(is.err, "protocol.kind: 'iscsi' serves no files") && strstr(is.err, "job 's'"), "%s", is.err);
  cli_out_free(&is);
}
END_TEST

/* fio's latency_target search: depth 1, doubling while a window meets
 * the target, bisecting down on a miss, one final window at the depth
 * found.  A fake device whose latency is 1 ms per outstanding I/O and a
 * 4.5 ms target: the search must settle at depth 4. */
START_TEST(test_latency_target)
{
  struct job j = fm_job("[j]\nrw=randread\niodepth=32\nlatency_target=4500us\nlatency_window=10ms\n"
                        "latency_percentile=99.9\n", NULL);
  ck_assert_double_eq_tol(j.lat_target_s, 4.5e-3, 1e-12);
  ck_assert_double_eq_tol(j.lat_window_s, 10e-3, 1e-12);
  ck_assert_double_eq(j.lat_pct, 99.9);
  struct lat_target t;
  lat_target_init(&t, &j, 32, 0.0);
  ck_assert_int_eq(lat_target_depth(&t, 32), 1);
  double now = 0.0;
  int done = 0, steps = 0, seen[64] = {0};
  while (!done && steps < 100000) {
    int qd = lat_target_depth(&t, 32);
    seen[qd < 63 ? qd : 63] = 1;
    int inflight = qd > 0 ? qd : 0;
    double lat = 1e-3 * (inflight > 0 ? inflight : 1);
    now += lat / (inflight > 0 ? inflight : 1);
    done = lat_target_complete(&t, &j, now, lat, inflight > 0 ? inflight - 1 : 0);
    steps++;
  }
  ck_assert_msg(done, "the search never ended (%d completions)", steps);
  ck_assert_int_eq(t.qd, 4);
  ck_assert_msg(seen[1] && seen[2] && seen[4] && seen[8], "doubling 1, 2, 4, 8 expected");
  ck_assert_msg(!seen[16], "depth 8 failed: it must not reach 16");
  /* without a target the job keeps its iodepth and never ends early */
  struct job plain = fm_job("[j]\nrw=randread\niodepth=8\n", NULL);
  lat_target_init(&t, &plain, 8, 0.0);
  ck_assert_int_eq(lat_target_depth(&t, 8), 8);
  ck_assert_int_eq(lat_target_complete(&t, &plain, 1.0, 10.0, 0), 0);
  /* bad values are refused */
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nlatency_percentile=101\n", "l.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, "latency_percentile: bad value '101'"), "%s", err.msg);
  free(warn);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fio_meta");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_meta_engines_parse);
  tcase_add_test(tc, test_meta_ftruncate_and_refusals);
  tcase_add_test(tc, test_meta_workgen);
  tcase_add_test(tc, test_meta_run);
  tcase_add_test(tc, test_latency_target);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
