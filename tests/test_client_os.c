/* The client OS's and copy tool's own mechanisms (catalog/protocols.yaml
 * client_os), end to end through the binary: the read-ahead's per-handle
 * history and granularity (sim/engine/submit.c eng_client_readahead),
 * the copy tool's per-chunk work in series with its request (engine.c
 * eng_tool_main) and the client's time per protocol reply (engine.c
 * eng_lane_rx_main). */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>

#include "cli_util.h"
#include "cli_util.c.inc"

/* One DS2015xs file copy step (ds2015xs-das-filecopy.yaml) with the
 * --set overrides `sets` (NULL-terminated "key=value"): its JSON values
 * MBps, window_s, ios and bytes. */
struct copy_step {
  double MBps, window_s, ios, bytes;
};

static struct copy_step copy_run(const char *step, const char *const *sets)
{
  char path[1024];
  cli_source_path("validation/scenarios/ds2015xs-das-filecopy.yaml", path, sizeof path);
  const char *args[40] = {"run", "--json", "--no-ci", path};
  cli_add_sets(args, 4, 40, sets);
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  char from[96];
  snprintf(from, sizeof from, "\"step\": \"%s\"", step);
  struct copy_step c = {cli_json_number(r.out, from, "MBps"), cli_json_number(r.out, from, "window_s"),
                        cli_json_number(r.out, from, "ios"), cli_json_number(r.out, from, "bytes")};
  cli_out_free(&r);
  return c;
}

/* A folder of 4 MiB videos read back in 1 MiB chunks, read-ahead 2 units,
 * the handle's history `h` reads, no copy tool work. */
static double history_MBps(const char *h)
{
  char hs[64];
  snprintf(hs, sizeof hs, "clients.readahead_history=%s", h);
  const char *sets[] = {"workload.sets=videos", "workload.folder_size=64MiB", "workload.video_file_size=4MiB",
                        "clients.copy_tool_rate=0B/s", "clients.readahead_requests=2", hs, NULL};
  return copy_run("filecopy-videos-read", sets).MBps;
}

/* The read-ahead needs the handle's history: a file of 4 reads with a
 * 4-read history reads exactly as without read-ahead (every read is the
 * caller's own before the pattern is seen), with none it runs ahead from
 * the first read, a 2-read history in between. */
START_TEST(test_readahead_history)
{
  const char *sets[] = {"workload.sets=videos", "workload.folder_size=64MiB", "workload.video_file_size=4MiB",
                        "clients.copy_tool_rate=0B/s", "clients.readahead_requests=0", NULL};
  double none = copy_run("filecopy-videos-read", sets).MBps;
  double h4 = history_MBps("4"), h2 = history_MBps("2"), h0 = history_MBps("0");
  ck_assert_msg(fabs(h4 / none - 1.0) < 1e-9, "4-read history on 4-read files: %.3f MB/s vs %.3f without read-ahead",
                h4, none);
  ck_assert_msg(h0 > 1.1 * none && h2 > none && h2 < h0,
                "history 0 / 2 / 4: %.1f / %.1f / %.1f MB/s (no read-ahead %.1f)", h0, h2, h4, none);
}
END_TEST

/* 16 KiB application reads: a read-ahead unit rounded up to a 64 KiB
 * granularity is 4 reads, so 2 units ahead are 8 requests, exactly as 8
 * units of the bare read; a 16 KiB granularity changes nothing. */
static double gran_MBps(const char *units, const char *gran)
{
  char us[64], gs[64];
  snprintf(us, sizeof us, "clients.readahead_requests=%s", units);
  snprintf(gs, sizeof gs, "clients.readahead_granularity=%s", gran);
  const char *sets[] = {"workload.sets=videos", "workload.folder_size=8MiB", "workload.video_file_size=4MiB",
                        "workload.bs=16KiB", "clients.copy_tool_rate=0B/s", "clients.readahead_history=0", us, gs,
                        NULL};
  return copy_run("filecopy-videos-read", sets).MBps;
}

START_TEST(test_readahead_granularity)
{
  double g64 = gran_MBps("2", "64KiB"), eight = gran_MBps("8", "0B"), g16 = gran_MBps("2", "16KiB"),
         two = gran_MBps("2", "0B");
  ck_assert_msg(fabs(g64 / eight - 1.0) < 1e-9, "2 units of 64 KiB: %.3f MB/s vs 8 reads of 16 KiB ahead: %.3f", g64,
                eight);
  ck_assert_msg(fabs(g16 / two - 1.0) < 1e-9, "16 KiB granularity: %.3f MB/s vs none: %.3f", g16, two);
  ck_assert_msg(g64 > two, "2 units of 64 KiB ahead: %.3f MB/s vs 2 reads of 16 KiB: %.3f", g64, two);
}
END_TEST

/* The copy tool's work per chunk (clients.copy_tool_rate) is in series
 * with one outstanding write: 64 files of 1 MiB written take 64 x 1 MiB /
 * 1 GB/s longer, the same requests and bytes.  Reading 64 MiB files back
 * the read-ahead has the next chunks in flight while the tool works: the
 * same tool time costs less than half of it. */
/* Folder `set` of `folder` in files of `file` (its file-size key `fkey`)
 * copied one way (`step`), the copy tool working at `rate`. */
static struct copy_step tool_run(const char *set, const char *folder, const char *fkey, const char *file,
                                 const char *rate, const char *step)
{
  char ss[64], fs[64], ks[64], rs[64];
  snprintf(ss, sizeof ss, "workload.sets=%s", set);
  snprintf(fs, sizeof fs, "workload.folder_size=%s", folder);
  snprintf(ks, sizeof ks, "workload.%s=%s", fkey, file);
  snprintf(rs, sizeof rs, "clients.copy_tool_rate=%s", rate);
  const char *sets[] = {ss, fs, ks, rs, NULL};
  return copy_run(step, sets);
}

START_TEST(test_copy_tool_time)
{
  const char *w = "filecopy-photos-write", *r = "filecopy-videos-read";
  struct copy_step a = tool_run("photos", "64MiB", "photo_file_size", "1MiB", "0B/s", w),
                   b = tool_run("photos", "64MiB", "photo_file_size", "1MiB", "1GB/s", w);
  double serial = 64 * 1048576 / 1e9;
  ck_assert_msg(fabs((b.window_s - a.window_s) / serial - 1.0) < 1e-3,
                "write: window %.6f s with the tool's time vs %.6f s without: want %.6f s more", b.window_s,
                a.window_s, serial);
  ck_assert_msg(a.ios == b.ios && a.bytes == b.bytes, "write: %.0f / %.0f requests, %.0f / %.0f bytes", a.ios, b.ios,
                a.bytes, b.bytes);
  struct copy_step c = tool_run("videos", "256MiB", "video_file_size", "64MiB", "0B/s", r),
                   d = tool_run("videos", "256MiB", "video_file_size", "64MiB", "1GB/s", r);
  double tool = 256 * 1048576 / 1e9;
  ck_assert_msg(d.window_s > c.window_s && d.window_s - c.window_s < 0.5 * tool,
                "read with read-ahead: window %.6f s with the tool's %.6f s vs %.6f s without", d.window_s, tool,
                c.window_s);
}
END_TEST

/* The client's time per protocol reply (clients.rpc_time) is in series
 * with each request at one outstanding: an NFS 4 KiB random read's mean
 * latency grows by it, and no more. */
static double nfs_qd1_mean_ms(const char *rpc_time)
{
  char path[1024], rs[64];
  cli_source_path("bench/scenarios/ds414slim_nfs_4k_random.yaml", path, sizeof path);
  snprintf(rs, sizeof rs, "clients.rpc_time=%s", rpc_time);
  const char *args[] = {"run", "--json", "--no-ci", path, "--set", "workload.iodepth=1", "--set", "time=0.3s",
                        "--set", rs, NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  double mean = cli_json_number(r.out, "\"all\": {", "mean");
  cli_out_free(&r);
  return mean;
}

START_TEST(test_rpc_time)
{
  double base = nfs_qd1_mean_ms("0s"), slow = nfs_qd1_mean_ms("100us");
  ck_assert_msg(fabs((slow - base) / 0.1 - 1.0) < 0.01, "mean %.5f ms with 100 us per reply vs %.5f ms without", slow,
                base);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("client_os");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_readahead_history);
  tcase_add_test(tc, test_readahead_granularity);
  tcase_add_test(tc, test_copy_tool_time);
  tcase_add_test(tc, test_rpc_time);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
