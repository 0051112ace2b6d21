/* File operations as protocol requests: each open, create, stat, close or
 * delete a client makes on a share is the protocol's own message flow
 * (catalog/protocols.yaml open_requests .. delete_requests, models/soc
 * proto_file_requests), every request a round trip through the daemon
 * before the client sends the next, the file system's work
 * (cycles_per_open) once with the first.  Mechanism tests: at the
 * catalogue's values (--uncalibrated), not the shipped fit. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/params.h"
#include "models/soc/proto.h"
#include "sim/config/config.h"
#include "cli_util.h"
#include "cli_util.c.inc"

#define FO_SCENARIO "validation/scenarios/ds2015xs-das-filecopy.yaml"

/* The scenario's protocol with `nsets` overrides ("path", "value" pairs):
 * 0 with *s loaded (caller frees), or -1 with err. */
static int fo_load(const char *const *sets, int nsets, struct scenario *s, struct nw_err *err)
{
  char path[1024];
  cli_source_path(FO_SCENARIO, path, sizeof path);
  struct cfg_set cs[8];
  for (int i = 0; i < nsets && i < 8; i++)
    cs[i] = (struct cfg_set){.path = sets[2 * i], .value = sets[2 * i + 1]};
  memset(s, 0, sizeof *s);
  return cfg_load(path, NULL, cs, nsets, NULL, s, err);
}

/* The message flows of catalog/protocols.yaml, by kind: open, create,
 * stat, close, close after writes, delete.  iSCSI serves no files. */
START_TEST(test_requests_from_catalogue)
{
  static const struct {
    const char *kind;
    int n[6];
  } want[] = {{"smb", {1, 1, 3, 1, 1, 2}},    /* CREATE; CREATE; CREATE+QUERY_INFO+CLOSE; CLOSE; CLOSE;
                                                 CREATE(delete-on-close)+CLOSE */
              {"nfs", {2, 1, 1, 0, 1, 1}},    /* LOOKUP+ACCESS; CREATE; GETATTR; -; COMMIT; REMOVE */
              {"webdav", {1, 1, 1, 0, 0, 1}}, /* PROPFIND; PUT; PROPFIND; -; -; DELETE */
              {"iscsi", {0, 0, 0, 0, 0, 0}}};
  static const enum proto_fop ops[] = {PROTO_FOP_OPEN,  PROTO_FOP_CREATE,        PROTO_FOP_STAT,
                                       PROTO_FOP_CLOSE, PROTO_FOP_CLOSE_WRITTEN, PROTO_FOP_DELETE};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    const char *sets[] = {"protocol.kind", want[k].kind};
    struct scenario s;
    struct nw_err err = {0};
    ck_assert_msg(fo_load(sets, 1, &s, &err) == 0, "%s: %s", want[k].kind, err.msg);
    for (int i = 0; i < 6; i++)
      ck_assert_msg(proto_file_requests(&s.proto, ops[i]) == want[k].n[i], "%s op %d: %d requests, want %d",
                    want[k].kind, (int)ops[i], proto_file_requests(&s.proto, ops[i]), want[k].n[i]);
    ck_assert_int_eq(proto_file_requests(&s.proto, PROTO_FOP_NONE), 0);
    cfg_free(&s);
  }
  /* local: no server holds the files, whatever the table's defaults */
  struct proto_params p;
  params_defaults(proto_param_table, proto_param_count, &p);
  p.kind = PROTO_LOCAL;
  ck_assert_int_eq(proto_file_requests(&p, PROTO_FOP_STAT), 0);
  /* the file system's work: an operation that looks a path up, not a close */
  ck_assert(proto_file_op_opens(PROTO_FOP_OPEN) && proto_file_op_opens(PROTO_FOP_CREATE) &&
            proto_file_op_opens(PROTO_FOP_STAT) && proto_file_op_opens(PROTO_FOP_DELETE));
  ck_assert(!proto_file_op_opens(PROTO_FOP_CLOSE) && !proto_file_op_opens(PROTO_FOP_CLOSE_WRITTEN) &&
            !proto_file_op_opens(PROTO_FOP_NONE));
}
END_TEST

/* A scenario's protocol section overrides a count (a what-if: SMB 3's
 * compound CREATE+QUERY_INFO+CLOSE as one round trip); a count must be a
 * whole number, and so must a client OS's copy flow. */
START_TEST(test_requests_override_and_refusals)
{
  const char *one[] = {"protocol.stat_requests", "1"};
  struct scenario s;
  struct nw_err err = {0};
  ck_assert_msg(fo_load(one, 1, &s, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(proto_file_requests(&s.proto, PROTO_FOP_STAT), 1);
  ck_assert_double_eq(s.client.copy_source_requests, 1.0); /* windows: CopyFileEx's CREATE */
  ck_assert_double_eq(s.client.copy_dest_requests, 2.0);   /* ... CREATE + SET_INFO end of file */
  cfg_free(&s);
  const char *half[] = {"protocol.stat_requests", "1.5"};
  ck_assert_int_eq(fo_load(half, 1, &s, &err), -1);
  ck_assert_msg(strstr(err.msg, "stat_requests") && strstr(err.msg, "whole number"), "%s", err.msg);
  const char *many[] = {"protocol.delete_requests", "17"};
  ck_assert_int_eq(fo_load(many, 1, &s, &err), -1);
  ck_assert_msg(strstr(err.msg, "delete_requests"), "%s", err.msg);
  const char *tool[] = {"clients.copy_dest_requests", "2.5"};
  ck_assert_int_eq(fo_load(tool, 1, &s, &err), -1);
  ck_assert_msg(strstr(err.msg, "copy_dest_requests") && strstr(err.msg, "whole number"), "%s", err.msg);
}
END_TEST

/* One step of the filecopy preset: its window (s), client I/Os and the
 * protocol requests the NAS received. */
struct fo_step {
  double window_s, ios, requests;
};

/* extra: NULL-ended --set overrides after the copy's own, or NULL */
static void fo_copy(const char *kind, const char *latency, const char *file_size, const char *const *extra,
                    struct fo_step *wr, struct fo_step *rd)
{
  char ks[64], ls[64], fs[64];
  snprintf(ks, sizeof ks, "protocol.kind=%s", kind);
  snprintf(ls, sizeof ls, "network.link_latency=%s", latency);
  snprintf(fs, sizeof fs, "workload.photo_file_size=%s", file_size);
  char path[1024];
  cli_source_path(FO_SCENARIO, path, sizeof path);
  const char *args[40] = {"run", "--json", "--no-ci", "--uncalibrated", path};
  const char *const own[] = {"workload.sets=photos", "workload.folder_size=4MiB", fs, "clients.file_gap=0s", ks, ls,
                             NULL};
  cli_add_sets(args, cli_add_sets(args, 5, 40, own), 40, extra);
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  const char *steps[2] = {"\"step\": \"filecopy-photos-write\"", "\"step\": \"filecopy-photos-read\""};
  struct fo_step *out[2] = {wr, rd};
  for (int i = 0; i < 2; i++) {
    const char *at = strstr(r.out, steps[i]);
    ck_assert_msg(at != NULL, "no %s in %.300s", steps[i], r.out);
    out[i]->window_s = cli_json_number(at, steps[i], "window_s");
    out[i]->ios = cli_json_number(at, "\"all\": {", "ios");
    out[i]->requests = cli_json_number(at, steps[i], "protocol_requests");
  }
  cli_out_free(&r);
}

/* A many-small-file copy over SMB from a Windows client: 64 files of 64
 * KiB (one chunk each).  Written, each file is CREATE + SET_INFO end of
 * file (the copy tool's destination flow) + WRITE + SET_INFO basic
 * information (the source's times) + CLOSE (its close flow) = 5
 * requests through smbd; read back, CREATE + READ + CLOSE = 3.  The client counts three
 * I/Os per file either way (its open, its chunk, its close).  Over NFS
 * with the protocol's own flows (no copy tool's): LOOKUP + ACCESS + READ
 * (a close after reads sends nothing) = 3 requests and still three I/Os. */
START_TEST(test_small_file_copy_requests)
{
  const double files = 64;
  struct fo_step wr, rd;
  fo_copy("smb", "10us", "64KiB", NULL, &wr, &rd);
  ck_assert_msg(wr.requests == 5 * files && wr.ios == 3 * files,
                "SMB write: %.0f requests through smbd, %.0f I/Os; want %.0f and %.0f", wr.requests, wr.ios,
                5 * files, 3 * files);
  ck_assert_msg(rd.requests == 3 * files && rd.ios == 3 * files,
                "SMB read: %.0f requests through smbd, %.0f I/Os; want %.0f and %.0f", rd.requests, rd.ios,
                3 * files, 3 * files);
  fo_copy("nfs", "10us", "64KiB", (const char *const[]){"clients.copy_source_requests=0", NULL}, &wr, &rd);
  ck_assert_msg(rd.requests == 3 * files && rd.ios == 3 * files,
                "NFS read: %.0f requests through knfsd, %.0f I/Os; want %.0f and %.0f", rd.requests, rd.ios,
                3 * files, 3 * files);
}
END_TEST

/* Each request is a round trip: with 100 us more on every link, a file
 * costs its requests x the added round trip more.  The route crosses the
 * client's and the NAS's link each way, so a round trip grows by 400 us;
 * the iSCSI copy of the same files (the client's own file system opens
 * them: one READ or WRITE per file) measures it.  SMB: 5 requests per
 * written file, 3 per read one. */
START_TEST(test_per_file_time_follows_rtt)
{
  const double files = 64, added_rtt_s = 4 * 100e-6;
  struct fo_step w0, r0, w1, r1, iw0, ir0, iw1, ir1;
  fo_copy("smb", "10us", "64KiB", NULL, &w0, &r0);
  fo_copy("smb", "110us", "64KiB", NULL, &w1, &r1);
  /* without the client's cache: with it the LUN's writes go into it and
   * are written behind (test_client_lazy.c), no round trip per file */
  const char *const nocache[] = {"clients.ram=0B", NULL};
  fo_copy("iscsi", "10us", "64KiB", nocache, &iw0, &ir0);
  fo_copy("iscsi", "110us", "64KiB", nocache, &iw1, &ir1);
  double iscsi_w = (iw1.window_s - iw0.window_s) / files, iscsi_r = (ir1.window_s - ir0.window_s) / files;
  ck_assert_msg(fabs(iscsi_w / added_rtt_s - 1.0) < 0.05 && fabs(iscsi_r / added_rtt_s - 1.0) < 0.05,
                "iSCSI, one request per file: +%.1f us written, +%.1f us read per file; want +%.0f us",
                iscsi_w * 1e6, iscsi_r * 1e6, added_rtt_s * 1e6);
  double smb_w = (w1.window_s - w0.window_s) / files, smb_r = (r1.window_s - r0.window_s) / files;
  ck_assert_msg(fabs(smb_w / (5 * added_rtt_s) - 1.0) < 0.05,
                "SMB write: +%.1f us per file; want 5 requests x %.0f us = %.0f us", smb_w * 1e6,
                added_rtt_s * 1e6, 5 * added_rtt_s * 1e6);
  ck_assert_msg(fabs(smb_r / (3 * added_rtt_s) - 1.0) < 0.05,
                "SMB read: +%.1f us per file; want 3 requests x %.0f us = %.0f us", smb_r * 1e6,
                added_rtt_s * 1e6, 3 * added_rtt_s * 1e6);
}
END_TEST

/* With close_written_writeback (protocols.yaml smb: ext4's auto_da_alloc
 * under Samba, for copies over existing files), a written file's close
 * starts the file's write-back on the NAS, in smbd: per written file smbd spends the page cache's write-back
 * cost of the file's dirty pages, one run of 64 KiB here, before the CLOSE
 * is answered, so each file takes (flush_cycles_per_request + 64 KiB x
 * flush_cycles_per_byte) / the core's speed more, and its pages reach the
 * disks at once (without it they stay dirty: 4 MiB is far below the
 * DS2015xs's background threshold).  Closing a file only read starts
 * nothing: the read-back's window is the same. */
START_TEST(test_written_close_starts_writeback)
{
  const double files = 64, file_bytes = 65536, per_byte = 2.0, per_request = 2e4; /* per_request: catalogue */
  const double speed = 1.7e9 * 1.6; /* alpine-al514 clock x work_per_cycle (catalogue): reference cycles/s */
  char pb[64];
  snprintf(pb, sizeof pb, "page_cache.flush_cycles_per_byte=%g", per_byte);
  struct fo_step w0, r0, w1, r1;
  fo_copy("smb", "10us", "64KiB", (const char *const[]){"protocol.close_written_writeback=0", pb, NULL}, &w0, &r0);
  fo_copy("smb", "10us", "64KiB", (const char *const[]){"protocol.close_written_writeback=1", pb, NULL}, &w1,
          &r1);
  double want = (per_request + file_bytes * per_byte) / speed, got = (w1.window_s - w0.window_s) / files;
  ck_assert_msg(fabs(got / want - 1.0) < 0.05, "written close: +%.2f us per file, want +%.2f us", got * 1e6,
                want * 1e6);
  ck_assert_msg(w1.requests == w0.requests && r1.requests == r0.requests,
                "requests moved: write %.0f -> %.0f, read %.0f -> %.0f", w0.requests, w1.requests, r0.requests,
                r1.requests);
  ck_assert_msg(fabs(r1.window_s / r0.window_s - 1.0) < 1e-3, "read-back window %.6f -> %.6f s", r0.window_s,
                r1.window_s);
}
END_TEST

/* IOZone opens its file before it starts its timer (-c adds only the
 * close): a pass's figure leaves the open out, and the application issues
 * nothing while it is in open().  One 1 MiB read of a 1 MiB file over NFS
 * with the file system's work per open 1e4 and then 1e7 cycles: the
 * window, the latency and the MB/s stay as they were, the run itself
 * grows by the open's extra ~2.5 ms on the DS2015xs's cores. */
static void fo_iozone_read(const char *open_cycles, double *window, double *lat, double *sim)
{
  char path[1024], oc[64];
  cli_source_path("validation/scenarios/ds2015xs-iozone-nfs.yaml", path, sizeof path);
  snprintf(oc, sizeof oc, "protocol.cycles_per_open=%s", open_cycles);
  const char *args[] = {"run", "--json", "--no-ci", "--uncalibrated", path, "--set", "workload.tests=read",
                        "--set", "workload.min_file=1MiB", "--set", "workload.max_file=1MiB", "--set",
                        "workload.min_record=1MiB", "--set", "workload.max_record=1MiB", "--set",
                        "workload.sample=1", "--set", oc, NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  *window = cli_json_number(r.out, "{", "window_s");
  *sim = cli_json_number(r.out, "{", "simulated_s");
  *lat = cli_json_number(r.out, "\"read\": {", "mean") * 1e-3;
  ck_assert_msg(cli_json_number(r.out, "\"read\": {", "ios") == 1, "one 1 MiB read expected");
  cli_out_free(&r);
}

START_TEST(test_iozone_open_outside_timer)
{
  double w0, l0, s0, w1, l1, s1;
  fo_iozone_read("1e4", &w0, &l0, &s0);
  fo_iozone_read("1e7", &w1, &l1, &s1);
  ck_assert_msg(fabs(w1 / w0 - 1) < 1e-6 && fabs(l1 / l0 - 1) < 1e-6,
                "window %.6f -> %.6f ms, latency %.6f -> %.6f ms: the open is in the timing", w0 * 1e3, w1 * 1e3,
                l0 * 1e3, l1 * 1e3);
  ck_assert_msg(s1 - s0 > 1e-3, "the open's extra work did not run: simulated %.6f -> %.6f s", s0, s1);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("proto_fileops");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, test_requests_from_catalogue);
  tcase_add_test(tc, test_requests_override_and_refusals);
  suite_add_tcase(s, tc);
  tc = tcase_create("end_to_end");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_small_file_copy_requests);
  tcase_add_test(tc, test_per_file_time_follows_rtt);
  tcase_add_test(tc, test_written_close_starts_writeback);
  tcase_add_test(tc, test_iozone_open_outside_timer);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
