/* The Linux NFS client's read-ahead into its page cache (sim/engine/
 * client_cache.c eng_client_fetch, eng_readahead; client_pages.c for the
 * reads that are no stream), end to end through
 * the binary on the DS2015xs IOZone NFS scenario (a Linux 2.6.32 client,
 * rsize 32 KiB, readahead_requests 15, a 5 GB/s memory copy): IOZone's
 * small sequential reads are served from rsize units the client READs
 * once each, not sent one READ each.  Mechanism tests: at the
 * catalogue's values (--uncalibrated). */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "cli_util.c.inc"

#define RA_SCENARIO "validation/scenarios/ds2015xs-iozone-nfs.yaml"
#define RA_RSIZE 32768.0
#define RA_OPEN_REQUESTS 2.0         /* NFSv3 open: LOOKUP + ACCESS (the close after reads sends none) */
#define RA_COPY_BYTES_PER_S 5e9      /* the scenario's clients.copy_rate */

/* One IOZone read pass (open, sequential `record` reads, close) over a
 * `file` file with the --set override `set` (NULL: none): the run's JSON
 * (free it), the requests the NAS received, the application reads, the
 * reads' median latency (s). */
struct ra_pass {
  char *json;
  double requests, ios, p50_s;
};

static struct ra_pass ra_run_test(const char *file, const char *record, const char *test, const char *set)
{
  char path[1024], fmin[64], fmax[64], rmin[64], rmax[64], tests[64];
  cli_source_path(RA_SCENARIO, path, sizeof path);
  snprintf(fmin, sizeof fmin, "workload.min_file=%s", file);
  snprintf(fmax, sizeof fmax, "workload.max_file=%s", file);
  snprintf(rmin, sizeof rmin, "workload.min_record=%s", record);
  snprintf(rmax, sizeof rmax, "workload.max_record=%s", record);
  snprintf(tests, sizeof tests, "workload.tests=%s", test);
  const char *args[32] = {"run",   "--json", "--no-ci", "--uncalibrated", "--time", "60s", path,   "--set", fmin,
                          "--set", fmax,     "--set",   rmin,             "--set",  rmax,  "--set", tests,
                          "--set", "workload.sample=1"};
  const char *sets[] = {set, NULL};
  cli_add_sets(args, 19, 32, sets);
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  struct ra_pass p = {strdup(r.out), cli_json_number(r.out, "\"step\"", "protocol_requests"),
                      cli_json_number(r.out, "\"read\": {", "ios"),
                      cli_json_number(r.out, "\"read\": {", "p50") * 1e-3};
  cli_out_free(&r);
  ck_assert_ptr_nonnull(p.json);
  return p;
}

/* One IOZone read pass as above (the test "read": sequential). */
static struct ra_pass ra_run(const char *file, const char *record, const char *set)
{
  return ra_run_test(file, record, "read", set);
}

/* 64 KiB in 4 KiB records: two READs of 32 KiB (no unit past the file's
 * end) and the open's two requests reach the NAS; the application's 16
 * reads are counted, 14 of them hits that cost only their copy out of
 * the page cache (4 KiB / 5 GB/s = 0.82 us). */
START_TEST(test_small_file_two_reads)
{
  struct ra_pass p = ra_run("64KiB", "4KiB", NULL);
  double want = 65536.0 / RA_RSIZE + RA_OPEN_REQUESTS;
  ck_assert_msg(p.requests == want, "%.0f requests at the NAS; want 2 READs + LOOKUP + ACCESS = %.0f", p.requests,
                want);
  ck_assert_msg(p.ios == 16, "%.0f application reads; want 16", p.ios);
  double copy_s = 4096.0 / RA_COPY_BYTES_PER_S;
  ck_assert_msg(fabs(p.p50_s / copy_s - 1.0) < 0.01, "median read %.3f us; want a hit's copy, %.3f us", p.p50_s * 1e6,
                copy_s * 1e6);
  free(p.json);
}
END_TEST

/* 1 MiB in 4 KiB records: 32 READs (each unit once, read-ahead or not). */
START_TEST(test_one_mib_thirty_two_reads)
{
  struct ra_pass p = ra_run("1MiB", "4KiB", NULL);
  double want = 1048576.0 / RA_RSIZE + RA_OPEN_REQUESTS;
  ck_assert_msg(p.requests == want, "%.0f requests at the NAS; want 32 READs + 2 = %.0f", p.requests, want);
  ck_assert_msg(p.ios == 256, "%.0f application reads; want 256", p.ios);
  free(p.json);
}
END_TEST

/* Without read-ahead every 4 KiB read is its own READ, as before the
 * page cache served them: 16 READs + 2, and slower than with it. */
START_TEST(test_no_readahead_one_read_each)
{
  struct ra_pass off = ra_run("64KiB", "4KiB", "clients.readahead_requests=0");
  struct ra_pass on = ra_run("64KiB", "4KiB", NULL);
  ck_assert_msg(off.requests == 16 + RA_OPEN_REQUESTS, "%.0f requests without read-ahead; want 16 READs + 2 = 18",
                off.requests);
  ck_assert_msg(off.ios == 16, "%.0f application reads; want 16", off.ios);
  double off_s = cli_json_number(off.json, "\"step\"", "window_s"), on_s = cli_json_number(on.json, "\"step\"", "window_s");
  ck_assert_msg(off_s > 2.0 * on_s, "64 KiB: %.3f ms one READ each, %.3f ms from the page cache; want the READs in "
                "series slower", off_s * 1e3, on_s * 1e3);
  free(off.json);
  free(on.json);
}
END_TEST

/* Records of rsize keep the split path: one READ per record, the same
 * requests with or without read-ahead. */
START_TEST(test_rsize_records_unchanged)
{
  struct ra_pass on = ra_run("1MiB", "32KiB", NULL), off = ra_run("1MiB", "32KiB", "clients.readahead_requests=0");
  ck_assert_msg(on.requests == 32 + RA_OPEN_REQUESTS && off.requests == on.requests,
                "32 KiB records: %.0f requests with read-ahead, %.0f without; want 34 both", on.requests, off.requests);
  free(on.json);
  free(off.json);
}
END_TEST

/* IOZone's stride read (a record, 17 records on, at the end back to the
 * first record not read) of 8 MiB in 4 KiB records: after the first pass
 * each read finds the page before it cached, context read-ahead grows
 * windows from there, and most of the 2048 reads hit the page cache:
 * fewer than a quarter as many READs as records (one READ each without
 * the page model).  Not as few as a sequential pass's 256: the first
 * pass's reads each go alone and the windows grow from one page. */
START_TEST(test_stride_few_reads)
{
  struct ra_pass p = ra_run_test("8MiB", "4KiB", "stride-read", NULL);
  double records = 8.0 * 1048576.0 / 4096.0, seq_reads = 8.0 * 1048576.0 / RA_RSIZE;
  ck_assert_msg(p.ios == records, "%.0f application reads; want %.0f", p.ios, records);
  double reads = p.requests - RA_OPEN_REQUESTS;
  ck_assert_msg(reads < records / 4.0 && reads > seq_reads, "%.0f READs for %.0f stride reads; want fewer than %.0f "
                "and more than a sequential pass's %.0f", reads, records, records / 4.0, seq_reads);
  free(p.json);
}
END_TEST

/* 32 MiB in 64 KiB records: the stride read READs each page once, as the
 * sequential pass does (1024 READs), and takes at most 10 % longer
 * (it took 58 % longer when each record went as its own two READs). */
START_TEST(test_stride_near_sequential)
{
  struct ra_pass st = ra_run_test("32MiB", "64KiB", "stride-read", NULL), sq = ra_run("32MiB", "64KiB", NULL);
  double want = 32.0 * 1048576.0 / RA_RSIZE + RA_OPEN_REQUESTS;
  ck_assert_msg(st.requests == want && sq.requests == want, "%.0f requests striding, %.0f sequential; want %.0f both",
                st.requests, sq.requests, want);
  double st_s = cli_json_number(st.json, "\"step\"", "window_s"), sq_s = cli_json_number(sq.json, "\"step\"", "window_s");
  ck_assert_msg(st_s <= 1.10 * sq_s, "stride read %.1f ms, sequential %.1f ms; want within 10 %%", st_s * 1e3, sq_s * 1e3);
  free(st.json);
  free(sq.json);
}
END_TEST

/* A backward read never finds the pages before it cached (its reads came
 * from after): each is a standalone small read that fetches its own page
 * only, one READ per 4 KiB record (256 + 2 for 1 MiB), no read-ahead. */
START_TEST(test_backward_standalone)
{
  struct ra_pass p = ra_run_test("1MiB", "4KiB", "backward-read", NULL);
  double want = 256.0 + RA_OPEN_REQUESTS;
  ck_assert_msg(p.requests == want, "%.0f requests reading backward; want one READ a record + 2 = %.0f", p.requests,
                want);
  ck_assert_msg(p.ios == 256, "%.0f application reads; want 256", p.ios);
  free(p.json);
}
END_TEST

/* IOZone's random read (each record once, in random order): a read whose
 * page before is cached reads ahead from the history, one without goes
 * alone, so its READs fall between a sequential pass's and one a record. */
START_TEST(test_random_partial)
{
  struct ra_pass p = ra_run_test("1MiB", "4KiB", "random-read", NULL);
  double reads = p.requests - RA_OPEN_REQUESTS;
  ck_assert_msg(reads > 1048576.0 / RA_RSIZE && reads < 256.0, "%.0f READs for 256 random 4 KiB reads; want between "
                "32 and 256", reads);
  free(p.json);
}
END_TEST

/* The same seed twice: byte-identical JSON. */
START_TEST(test_same_seed_identical)
{
  struct ra_pass a = ra_run("1MiB", "4KiB", NULL), b = ra_run("1MiB", "4KiB", NULL);
  ck_assert_msg(strcmp(a.json, b.json) == 0, "two runs of seed 1 differ");
  free(a.json);
  free(b.json);
  a = ra_run_test("1MiB", "4KiB", "random-read", NULL);
  b = ra_run_test("1MiB", "4KiB", "random-read", NULL);
  ck_assert_msg(strcmp(a.json, b.json) == 0, "two random-read runs of seed 1 differ");
  free(a.json);
  free(b.json);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("client_readahead");
  TCase *tc = tcase_create("units");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_small_file_two_reads);
  tcase_add_test(tc, test_one_mib_thirty_two_reads);
  tcase_add_test(tc, test_rsize_records_unchanged);
  suite_add_tcase(s, tc);
  tc = tcase_create("pages");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_stride_few_reads);
  tcase_add_test(tc, test_stride_near_sequential);
  tcase_add_test(tc, test_backward_standalone);
  tcase_add_test(tc, test_random_partial);
  suite_add_tcase(s, tc);
  tc = tcase_create("off");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_no_readahead_one_read_each);
  suite_add_tcase(s, tc);
  tc = tcase_create("determinism");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_same_seed_identical);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
