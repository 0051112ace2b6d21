/* fio's trim direction: rw=trim, randtrim, trimwrite, randtrimwrite parse
 * as fio does; trimwrite trims a block then writes it; over a share a
 * block engine's trim (BLKDISCARD on a file) is refused as fio fails,
 * falloc's trim is a hole punch; on an iSCSI LUN of SSDs in RAID-5 a trim
 * is an UNMAP md passes to the members only for whole stripes; results
 * and fio's JSON count trims in their own direction. */
#include <check.h>
#include "ck_run.h"
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workgen.h"
#include "sim/config/workload.h"
#include "cli_util.h"
#include "cli_util.c.inc"

static struct job ft_job(const char *text)
{
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  int rc = fio_parse_string(text, "trim.fio", &w, &warn, &err);
  ck_assert_msg(rc == 0, "should parse: %s:%d:%d: %s\n%s", err.file, err.line, err.col, err.msg, text);
  struct job j = w.steps[0].jobs[0];
  workload_free(&w);
  free(warn);
  return j;
}

START_TEST(test_trim_parse)
{
  static const struct {
    const char *rw;
    int trim;
    enum job_access access;
  } m[] = {{"trim", 1, JOB_SEQ}, {"randtrim", 1, JOB_RANDOM}, {"trimwrite", 2, JOB_SEQ},
           {"randtrimwrite", 2, JOB_RANDOM}, {"randwrite", 0, JOB_RANDOM}};
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[j]\nrw=%s\nbs=4k\nsize=1m\n", m[i].rw);
    struct job j = ft_job(text);
    ck_assert_msg(j.trim == m[i].trim && j.access == m[i].access, "rw=%s: trim %d access %d", m[i].rw, j.trim,
                  j.access);
    ck_assert_double_eq(j.read_frac, 0.0);
  }
  struct job f = ft_job("[j]\nrw=randtrim\nioengine=falloc\nbs=4k\nsize=1m\n");
  ck_assert_int_eq(f.meta_op, JOB_META_FALLOC);
  ck_assert_double_eq(f.bs_bytes[0], 4096.0); /* falloc keeps the job's blocks, unlike filecreate */
  /* zonemode=zbd: fio turns a trim into a reset of the emulated zone, no I/O */
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nzonemode=zbd\nzonesize=256m\nrw=randtrim\nbs=256m\n", "z.fio", &w, &warn,
                                    &err), -1);
  ck_assert_msg(strstr(err.msg, "zonemode=zbd: a trim resets its zone's write pointer") &&
                strstr(err.msg, "no I/O reaches the NAS"), "%s", err.msg);
  free(warn);
  /* verify: a trimwrite job reads its writes back (a read step, no trims);
   * a trim-only job writes nothing to verify */
  warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nrw=trimwrite\nverify=md5\nsize=1m\n", "v.fio", &w, &warn, &err), 0);
  ck_assert_int_eq(w.nsteps, 2);
  ck_assert(w.steps[1].jobs[0].trim == 0 && w.steps[1].jobs[0].read_frac == 1.0);
  workload_free(&w);
  free(warn);
  warn = NULL;
  ck_assert_int_eq(fio_parse_string("[j]\nrw=trim\nverify=md5\nsize=1m\n", "v.fio", &w, &warn, &err), 0);
  ck_assert_int_eq(w.nsteps, 1);
  workload_free(&w);
  free(warn);
}
END_TEST

/* trimwrite: trim block k, write block k, trim block k+1, ...; a trim or
 * fallocate carries no data (len 0) but its range. */
START_TEST(test_trim_workgen)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 1);
  struct job j = ft_job("[j]\nrw=trimwrite\nbs=4k\nsize=64k\n");
  struct workgen g;
  workgen_init(&g, &j, NULL, 1.0e6, j.size_bytes);
  for (int k = 0; k < 6; k++) {
    struct workgen_io io;
    workgen_next(&g, rng, &io);
    double off = 1.0e6 + (k / 2) * 4096.0;
    ck_assert_double_eq((double)io.offset_bytes, off);
    if (k % 2 == 0)
      ck_assert_msg(io.trim && !io.write && io.len_bytes == 0 && io.range_bytes == 4096, "io %d: trim %d write %d "
                    "len %llu range %llu", k, io.trim, io.write, (unsigned long long)io.len_bytes,
                    (unsigned long long)io.range_bytes);
    else
      ck_assert_msg(!io.trim && io.write && io.len_bytes == 4096 && io.range_bytes == 0, "io %d: not the write", k);
  }
  int left = 0; /* the size counts the writes (fio io_bytes_exceeded): 16 blocks, each trimmed and written */
  while (workgen_more(&g)) {
    struct workgen_io x;
    workgen_next(&g, rng, &x);
    left++;
  }
  ck_assert_int_eq(left + 6, 32);
  struct job f = ft_job("[j]\nrw=randwrite\nioengine=falloc\nbs=8k\nsize=64k\n");
  workgen_init(&g, &f, NULL, 0.0, f.size_bytes);
  struct workgen_io io;
  workgen_next(&g, rng, &io);
  ck_assert(io.meta == JOB_META_FALLOC && io.write && !io.trim && io.len_bytes == 0 && io.range_bytes == 8192);
  gsl_rng_free(rng);
}
END_TEST

/* The callers run at the catalogue's values (--uncalibrated): these tests
 * are about the job language and where a trim goes, not about the fitted
 * costs, so a refit does not starve their 0.05 s runs of operations. */
static struct cli_out ft_run(const char *text, const char *const *extra)
{
  struct cli_out r;
  ck_assert_int_eq(cli_run_fio(text, "0.05s", extra, &r), 0);
  return r;
}

/* Over SMB (the default scenario): libaio's trim is BLKDISCARD on a file,
 * which fails in fio, so nastwin refuses it with that reason; falloc's
 * trim is a hole punch, counted in fio's trim section. */
START_TEST(test_trim_share)
{
  const char *json[] = {"--uncalibrated", "--output-format=json", NULL};
  struct cli_out bad = ft_run("[t]\nrw=randtrim\nioengine=libaio\nbs=4k\nsize=16m\n", json);
  ck_assert_int_eq(bad.status, 2);
  ck_assert_msg(strstr(bad.err, "error: protocol.kind: 'smb' serves files, and job 't' trims with ioengine=libaio") &&
                strstr(bad.err, "(ENOTTY)") && strstr(bad.err, "ioengine=falloc"), "%s", bad.err);
  ck_assert_msg(bad.out[0] == '\0', "stdout: %s", bad.out);
  cli_out_free(&bad);
  struct cli_out ok = ft_run("[t]\nrw=randtrim\nioengine=falloc\nbs=4k\nsize=16m\niodepth=4\n", json);
  ck_assert_msg(ok.status == 0, "exit %d: %s", ok.status, ok.err);
  double trims = cli_json_number(ok.out, "\"trim\"", "total_ios");
  ck_assert_msg(trims >= 50, "trims %g", trims);
  ck_assert_double_eq(cli_json_number(ok.out, "\"trim\"", "io_bytes"), trims * 4096);
  ck_assert_double_eq(cli_json_number(ok.out, "\"read\"", "total_ios"), 0.0);
  ck_assert_double_eq(cli_json_number(ok.out, "\"write\"", "total_ios"), 0.0);
  cli_out_free(&ok);
}
END_TEST

/* An iSCSI LUN on the default's 8 SSDs in RAID-5 (64 KiB chunks: 448 KiB
 * stripes): 1 MiB UNMAPs hold whole stripes, so the members get discards
 * (their controllers work); 4 KiB ones hold none, md drops them and the
 * members stay idle; both are counted as trims. */
START_TEST(test_trim_lun)
{
  const char *set[] = {"--uncalibrated", "--json", "--set", "protocol.kind=iscsi", NULL};
  struct cli_out big = ft_run("[t]\nrw=randtrim\nbs=1m\nsize=1g\niodepth=4\n", set);
  ck_assert_msg(big.status == 0, "exit %d: %s", big.status, big.err);
  double big_ios = cli_json_number(big.out, "\"trim\"", "ios");
  double big_busy = cli_json_number(big.out, "\"resource\": \"disk0\"", "busy");
  struct cli_out small = ft_run("[t]\nrw=randtrim\nbs=4k\nsize=1g\niodepth=4\n", set);
  ck_assert_msg(small.status == 0, "exit %d: %s", small.status, small.err);
  double small_ios = cli_json_number(small.out, "\"trim\"", "ios");
  double small_busy = cli_json_number(small.out, "\"resource\": \"disk0\"", "busy");
  ck_assert_msg(big_ios >= 20 && small_ios >= 20, "trims %g, %g", big_ios, small_ios);
  ck_assert_msg(big_busy > 0.01, "1 MiB UNMAPs: disk0 busy %g, the full stripes should reach it", big_busy);
  ck_assert_msg(small_busy == 0.0, "4 KiB UNMAPs: disk0 busy %g, md passes no partial stripe", small_busy);
  ck_assert_double_eq(cli_json_number(big.out, "\"write\"", "ios"), 0.0);
  cli_out_free(&big);
  cli_out_free(&small);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fio_trim");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_trim_parse);
  tcase_add_test(tc, test_trim_workgen);
  tcase_add_test(tc, test_trim_share);
  tcase_add_test(tc, test_trim_lun);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
