/* Jobs that stay inside the client (sim/engine/client_only.c): fio's null
 * and cpp_null engines (every I/O fio's own per-I/O work: the catalogue's
 * fio_io_time, + fio_queue_time at iodepth > 1, + fio_clock_time without
 * gtod_reduce), cpuio (cpuload % of a core per copy, no I/O) and a
 * read-only job on emulated zbd zones with read_beyond_wp=0 (fio ends it
 * at once); the NAS stays idle; a step mixing them with NAS jobs is
 * refused; fio's JSON carries the same figures. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workload.h"
#include "cli_util.h"
#include "cli_util.c.inc"

/* catalog/protocols.yaml `client:` */
#define IO_S 74e-9
#define QUEUE_S 75e-9
#define CLOCK_S 64e-9

static struct job fc_job(const char *text)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "c.fio", &w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  struct job j = w.steps[0].jobs[0];
  workload_free(&w);
  free(warn);
  return j;
}

static void fc_refused(const char *text, const char *want)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string(text, "c.fio", &w, &warn, &err), -1);
  ck_assert_msg(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
  free(warn);
}

START_TEST(test_client_parse)
{
  struct job n = fc_job("[n]\nioengine=null\nsize=1m\ngtod_reduce=1\n");
  ck_assert_int_eq(n.client_only, JOB_CLIENT_NULL);
  ck_assert_int_eq(n.gtod_reduce, 1);
  ck_assert_int_eq(fc_job("[n]\nioengine=cpp_null\nsize=1m\n").client_only, JOB_CLIENT_NULL);
  struct job c = fc_job("[c]\nioengine=cpuio\ncpuload=150\ncpumode=qsort\ncpuchunks=1000\n");
  ck_assert_int_eq(c.client_only, JOB_CLIENT_CPU);
  ck_assert_double_eq(c.cpuload, 1.0); /* fio caps it at 100 % */
  ck_assert_int_eq(fc_job("[j]\nrw=read\nsize=1g\n").client_only, JOB_CLIENT_NAS);
  struct job z = fc_job("[z]\nrw=read\nzonemode=zbd\nzonesize=256m\nread_beyond_wp=0\n");
  ck_assert_int_eq(z.client_only, JOB_CLIENT_EOF);
  ck_assert_int_eq(fc_job("[z]\nrw=read\nzonemode=zbd\nzonesize=256m\nread_beyond_wp=1\n").client_only,
                   JOB_CLIENT_NAS);
  fc_refused("[n]\nioengine=null\nrw=read\n", "you need to specify size=");
  fc_refused("[n]\nioengine=null\nsize=10%\n", "you need to specify size=");
  fc_refused("[c]\nioengine=cpuio\n", "cpu thread needs rate (cpuload=)");
  fc_refused("[n]\nioengine=null\nsize=1m\n[m]\nsize=1m\n", "put stonewall between them");
  fc_refused("[z]\nrw=randrw\nzonemode=zbd\nzonesize=256m\n", "give read_beyond_wp=1");
  struct nw_err e2;
  struct workload w2;
  char *warn2 = NULL; /* beside a refused engine the mix is not said again (fio.c) */
  ck_assert_int_eq(fio_parse_string("[e]\nioengine=exec\n[c]\nioengine=cpuio\ncpuload=5\n", "c.fio", &w2, &warn2,
                                    &e2), -1);
  ck_assert_msg(strstr(e2.msg, "ioengine=exec does no block I/O") && !strstr(e2.msg, "stonewall"), "%s", e2.msg);
  free(warn2);
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[n]\nioengine=null\nsize=1m\n[m]\nstonewall\nsize=1m\n", "c.fio", &w, &warn,
                                    &err), 0);
  ck_assert_int_eq(w.nsteps, 2);
  workload_free(&w);
  free(warn);
  ck_assert_ptr_null(fio_engine_refused("null"));
  ck_assert_ptr_nonnull(fio_engine_refused("rdma"));
}
END_TEST

static struct cli_out fc_run(const char *text, const char *const *extra)
{
  char path[] = "/tmp/nastwin-client-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  const char *args[16] = {"run", "--no-ci", "--fio", path, "--time", "2s"};
  int n = 6;
  for (int i = 0; extra && extra[i]; i++)
    args[n++] = extra[i];
  args[n] = NULL;
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  unlink(path);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  return r;
}

#define CK_REL(a, b) ck_assert_msg(fabs((double)(a) - (double)(b)) <= 1e-6 * fabs((double)(b)), "%.9g != %.9g", (double)(a), (double)(b))

/* Each I/O takes fio's own time; one thread per copy; the NAS is idle. */
START_TEST(test_client_null_run)
{
  const char *json[] = {"--json", NULL};
  static const struct {
    const char *text;
    double io_s, copies;
  } c[] = {
      {"[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\n", IO_S + CLOCK_S, 1},
      {"[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\ngtod_reduce=1\n", IO_S, 1},
      {"[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\niodepth=16\n", IO_S + QUEUE_S + CLOCK_S, 1},
      {"[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\nnumjobs=2\n", IO_S + CLOCK_S, 2},
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    struct cli_out r = fc_run(c[k].text, json);
    CK_REL(cli_json_number(r.out, "\"read\"", "ios"), 256 * c[k].copies);
    CK_REL(cli_json_number(r.out, "\"latency_ms\"", "mean"), c[k].io_s * 1e3);
    CK_REL(cli_json_number(r.out, "\"read\"", "iops"), c[k].copies / c[k].io_s);
    CK_REL(cli_json_number(r.out, NULL, "window_s"), 256 * c[k].io_s);
    CK_REL(cli_json_number(r.out, "\"resource\": \"client.fio.n\"", "busy"), 1.0);
    ck_assert_msg(!strstr(r.out, "\"resource\": \"soc.") && !strstr(r.out, "\"resource\": \"disk"),
                  "the NAS does nothing: %s", r.out);
    ck_assert_msg(cli_json_number(r.out, "\"power\"", "avg_W") > 1.0, "the NAS idles: %s", r.out);
    cli_out_free(&r);
  }
  /* time-based: as many as fit; the catalogue value is a parameter */
  const char *set[] = {"--json", "--set", "clients.fio_io_time=100ns", "--set", "clients.fio_clock_time=0ns", NULL};
  struct cli_out t = fc_run("[n]\nioengine=null\nsize=1m\ntime_based\nruntime=1ms\nrw=write\n", set);
  CK_REL(cli_json_number(t.out, "\"write\"", "ios"), 10000);
  CK_REL(cli_json_number(t.out, "\"write\"", "mean"), 1e-4);
  cli_out_free(&t);
}
END_TEST

/* cpuio: a share of a core for the runtime, no I/O; zbd reads of empty
 * emulated zones: no I/O, the job ends at once. */
START_TEST(test_client_cpu_and_eof)
{
  const char *json[] = {"--json", NULL};
  struct cli_out c = fc_run("[c]\nioengine=cpuio\ncpuload=30\nnumjobs=2\ntime_based\nruntime=1s\n", json);
  CK_REL(cli_json_number(c.out, NULL, "window_s"), 1.0);
  CK_REL(cli_json_number(c.out, "\"resource\": \"client.fio.c\"", "busy"), 0.3);
  ck_assert_double_eq(cli_json_number(c.out, "\"all\"", "ios"), 0.0);
  cli_out_free(&c);
  struct cli_out z = fc_run("[z]\nrw=read\nbs=256k\nsize=1g\nzonemode=zbd\nzonesize=256m\n", json);
  ck_assert_double_eq(cli_json_number(z.out, "\"all\"", "ios"), 0.0);
  ck_assert_double_eq(cli_json_number(z.out, NULL, "window_s"), 0.0);
  cli_out_free(&z);
}
END_TEST

/* fio's JSON of a null job: the same I/Os, bytes, IOPS and latency. */
START_TEST(test_client_fio_json)
{
  const char *json[] = {"--output-format=json", NULL};
  struct cli_out r = fc_run("[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\n", json);
  double io_s = IO_S + CLOCK_S;
  CK_REL(cli_json_number(r.out, "\"read\"", "total_ios"), 256);
  CK_REL(cli_json_number(r.out, "\"read\"", "io_bytes"), 1048576);
  ck_assert_msg(fabs(cli_json_number(r.out, "\"read\"", "iops") - 1 / io_s) < 1e-3 / io_s, "%s", r.out);
  ck_assert_msg(fabs(cli_json_number(r.out, "\"clat_ns\"", "mean") - io_s * 1e9) < 1e-3, "%s", r.out);
  ck_assert_msg(fabs(cli_json_number(r.out, "\"clat_ns\"", "50.000000") - io_s * 1e9) <= io_s * 1e9 / 128 + 1,
                "%s", r.out);
  ck_assert_double_eq(cli_json_number(r.out, "\"write\"", "total_ios"), 0.0);
  cli_out_free(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fio_client");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_client_parse);
  tcase_add_test(tc, test_client_null_run);
  tcase_add_test(tc, test_client_cpu_and_eof);
  tcase_add_test(tc, test_client_fio_json);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
