/* The client page cache's write-back (sim/engine/client_cache.c eng_writeback,
 * eng_client_absorb), end to end through the binary on the
 * DS2015xs IOZone NFS scenario (a Linux 2.6.32 client, one 1GbE link,
 * MTU 1500, wsize 32 KiB): a buffered write lands in the client's RAM,
 * and the file's close writes it back as wsize WRITEs, rpc_slots in
 * flight, then COMMITs and returns (clients.flush_on_close); a writer
 * past the dirty limit waits for the write-back; the COMMIT is answered
 * once the NAS has written the file to its disks (protocol
 * close_written_sync: knfsd's fsync).  The client-side tests turn that
 * fsync off to see the client alone.  Mechanism tests: at the
 * catalogue's values (--uncalibrated). */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>

#include "cli_util.h"
#include "cli_util.c.inc"

#define WB_SCENARIO "validation/scenarios/ds2015xs-iozone-nfs.yaml"
#define WB_WSIZE 32768.0
/* 1GbE payload at MTU 1500: 1460 B of TCP payload per 1538 B on the wire */
#define WB_LINK_BYTES_PER_S (125e6 * 1460.0 / 1538.0)
#define WB_COPY_BYTES_PER_S 5e9 /* the scenario's clients.copy_rate */

/* One IOZone init-write pass (open, sequential 1 MiB records, close) of
 * a `file` file with the --set overrides `sets` (NULL-terminated): its
 * window (s), the requests the NAS received, the writes' median latency
 * (s). */
struct wb_pass {
  double window_s, requests, p50_s, disk_busy;
};

static struct wb_pass wb_run(const char *file, const char *const *sets)
{
  char path[1024], fmin[64], fmax[64];
  cli_source_path(WB_SCENARIO, path, sizeof path);
  snprintf(fmin, sizeof fmin, "workload.min_file=%s", file);
  snprintf(fmax, sizeof fmax, "workload.max_file=%s", file);
  const char *args[40] = {"run",        "--json",   "--no-ci",   "--uncalibrated",  "--time", "60s", path,
                          "--set",      fmin,       "--set",     fmax,              "--set",
                          "workload.tests=init-write", "--set",  "workload.min_record=1MiB", "--set",
                          "workload.max_record=1MiB", "--set",   "workload.sample=1"};
  cli_add_sets(args, 19, 40, sets);
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  struct wb_pass p = {cli_json_number(r.out, "\"step\"", "window_s"),
                      cli_json_number(r.out, "\"step\"", "protocol_requests"),
                      cli_json_number(r.out, "\"write\": {", "p50") * 1e-3,
                      cli_json_number(r.out, "\"resource\": \"disk0\"", "busy")};
  cli_out_free(&r);
  return p;
}

/* A 32 MiB file, well below the dirty limit (0.2 x 2 GiB): its writes
 * land in the client's RAM (32 MiB at 5 GB/s: 6.7 ms), and its close
 * writes them back at the link's payload rate, 16 WRITEs in flight, then
 * COMMITs: the pass takes bytes / link rate (283 ms) plus the copy and a
 * few round trips (the open's LOOKUP + ACCESS, the COMMIT), not the copy
 * time alone.  The NAS receives bytes / wsize WRITEs, the open's two
 * requests and one COMMIT. */
START_TEST(test_close_writes_back_at_link_rate)
{
  const double bytes = 32.0 * 1048576;
  const char *none[] = {"protocol.close_written_sync=0", NULL};
  struct wb_pass p = wb_run("32MiB", none);
  double wire_s = bytes / WB_LINK_BYTES_PER_S, copy_s = bytes / WB_COPY_BYTES_PER_S;
  ck_assert_msg(p.window_s > wire_s && p.window_s < 1.05 * wire_s + copy_s,
                "buffered 32 MiB + close: %.1f ms; want the link's %.1f ms + the copy's %.1f ms + a few round trips",
                p.window_s * 1e3, wire_s * 1e3, copy_s * 1e3);
  double want = bytes / WB_WSIZE + 2 + 1;
  ck_assert_msg(p.requests == want, "%.0f requests at the NAS; want %.0f WRITEs + LOOKUP + ACCESS + COMMIT = %.0f",
                p.requests, bytes / WB_WSIZE, want);
}
END_TEST

/* With one RPC slot the write-back goes one WRITE at a time: the close
 * takes bytes / wsize round trips of a 32 KiB WRITE.  The same pass
 * without a client cache sends each record as 32 WRITEs through the one
 * slot, the same round trips without the copy: the two differ by the
 * copy time alone, and both are far slower than 16 slots. */
START_TEST(test_one_slot_writes_back_one_round_trip_each)
{
  const double bytes = 32.0 * 1048576, copy_s = bytes / WB_COPY_BYTES_PER_S;
  const char *one[] = {"clients.rpc_slots=1", "protocol.close_written_sync=0", NULL};
  const char *one_nocache[] = {"clients.rpc_slots=1", "clients.ram=0B", "protocol.close_written_sync=0", NULL};
  const char *none[] = {"protocol.close_written_sync=0", NULL};
  struct wb_pass cached = wb_run("32MiB", one), direct = wb_run("32MiB", one_nocache), piped = wb_run("32MiB", none);
  double rtt_s = (direct.window_s) / (bytes / WB_WSIZE);
  ck_assert_msg(fabs((cached.window_s - copy_s) / direct.window_s - 1.0) < 0.02,
                "one slot: buffered + close %.1f ms (minus the %.1f ms copy) vs %.1f ms uncached: want equal "
                "(%.0f WRITE round trips of %.1f us)",
                cached.window_s * 1e3, copy_s * 1e3, direct.window_s * 1e3, bytes / WB_WSIZE, rtt_s * 1e6);
  ck_assert_msg(cached.window_s > 1.3 * piped.window_s, "one slot %.1f ms, 16 slots %.1f ms: want the slots to pipeline",
                cached.window_s * 1e3, piped.window_s * 1e3);
  ck_assert_msg(cached.requests == direct.requests && cached.requests == bytes / WB_WSIZE + 3,
                "requests: %.0f buffered, %.0f uncached; want %.0f", cached.requests, direct.requests,
                bytes / WB_WSIZE + 3);
}
END_TEST

/* A file four times the dirty limit (clients.ram 256 MiB: 51 MiB may be
 * dirty or under write-back): the writer waits at the limit for the
 * write-back, so the pass runs at the link's rate and a 1 MiB write
 * takes about 1 MiB / link rate once the limit is reached, not the
 * copy's 0.2 ms. */
START_TEST(test_writer_throttled_at_dirty_limit)
{
  const double bytes = 256.0 * 1048576, record = 1048576.0;
  const char *small[] = {"clients.ram=256MiB", "protocol.close_written_sync=0", NULL};
  struct wb_pass p = wb_run("256MiB", small);
  double wire_s = bytes / WB_LINK_BYTES_PER_S;
  ck_assert_msg(p.window_s > wire_s && p.window_s < 1.05 * wire_s,
                "256 MiB through a 51 MiB dirty limit: %.1f ms; want about the link's %.1f ms", p.window_s * 1e3,
                wire_s * 1e3);
  double rec_s = record / WB_LINK_BYTES_PER_S;
  ck_assert_msg(p.p50_s > 0.9 * rec_s && p.p50_s < 1.1 * rec_s,
                "a throttled 1 MiB write: median %.3f ms; want about 1 MiB / link rate = %.3f ms", p.p50_s * 1e3,
                rec_s * 1e3);
}
END_TEST

/* The COMMIT's fsync: the 32 MiB the client wrote back sit dirty in the
 * NAS's page cache (well below its limits), so the COMMIT waits while
 * the NAS writes them to its disks: the pass is longer by at least the
 * time the eight SSDs take to write the file and its parity at their
 * sequential rate (write_rate 400 MB/s each, the catalogue's), and the
 * disks are busy only then (without the fsync the file stays in RAM
 * within the run).  The requests are the same: the COMMIT either way. */
START_TEST(test_commit_waits_for_the_server_disks)
{
  const double bytes = 32.0 * 1048576, members = 8.0, ssd_write_rate = 400e6;
  const char *off[] = {"protocol.close_written_sync=0", NULL};
  const char *on[] = {NULL};
  struct wb_pass a = wb_run("32MiB", off), b = wb_run("32MiB", on);
  double disks_s = bytes * members / (members - 1.0) / (members * ssd_write_rate);
  ck_assert_msg(b.window_s - a.window_s > disks_s,
                "fsync at COMMIT: %.1f ms vs %.1f ms without; want at least the disks' %.1f ms more",
                b.window_s * 1e3, a.window_s * 1e3, disks_s * 1e3);
  ck_assert_msg(a.disk_busy == 0.0 && b.disk_busy > 0.0, "disk0 busy %.3f without the fsync, %.3f with it",
                a.disk_busy, b.disk_busy);
  ck_assert_msg(a.requests == b.requests, "requests %.0f vs %.0f", a.requests, b.requests);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("client_writeback");
  TCase *tc = tcase_create("close");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_close_writes_back_at_link_rate);
  tcase_add_test(tc, test_one_slot_writes_back_one_round_trip_each);
  tcase_add_test(tc, test_commit_waits_for_the_server_disks);
  suite_add_tcase(s, tc);
  tc = tcase_create("dirty_limit");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_writer_throttled_at_dirty_limit);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
