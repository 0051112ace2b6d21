/* The Windows cache manager's lazy writer on the client (sim/engine/
 * client_cache.c eng_lazy_main, eng_writeback, eng_client_absorb), end to
 * end through the binary on the DS2015xs copy scenario (one Windows
 * client, given clients.ram 16 GiB here, two 10GbE links, a RAID-5 of
 * eight SSDs):
 * over iSCSI the LUN is a local volume to Windows, so a copy's buffered
 * writes go into the client's cache and the lazy writer writes them
 * behind, clients.writebehind_requests in flight; over SMB the share's
 * files bypass the cache (clients.cache_scope local-volume).  Mechanism
 * tests: at the shipped calibration, comparing runs with one value
 * changed. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "cli_util.c.inc"

#define LZ_SCENARIO "validation/scenarios/ds2015xs-das-filecopy.yaml"
/* The client's RAM and memory copy rate (the validation scenario leaves
 * the client without a cache until a refit takes the lazy writer in:
 * models/soc/README.md, "The Windows lazy writer"); a test's own sets
 * come after and override them. */
#define LZ_RAM "clients.ram=16GiB"
#define LZ_COPY "clients.copy_rate=5GB/s"

struct lz_run {
  double MBps, trx_busy, rx_busy, lat_p50_ms, lat_max_ms, requests, window_start_s;
  char *json; /* the whole --json output (malloc'd) */
};

static void lz_free(struct lz_run *r)
{
  free(r->json);
  r->json = NULL;
}

static struct lz_run lz_parse(struct cli_out *o)
{
  struct lz_run r = {cli_json_number(o->out, "\"write\": {", "MBps"),
                     cli_json_number(o->out, "\"resource\": \"soc.iscsi_trx.c0.0\"", "busy"),
                     cli_json_number(o->out, "\"resource\": \"net.nas0.rx\"", "busy"),
                     cli_json_number(o->out, "\"write\": {", "p50"),
                     cli_json_number(o->out, "\"write\": {", "max"),
                     cli_json_number(o->out, "\"step\"", "protocol_requests"),
                     cli_json_number(o->out, "\"window\"", "start_s"),
                     o->out};
  o->out = NULL;
  return r;
}

/* The photos copy (its first step, the write to the NAS: 4 MiB files in
 * 1 MiB chunks, one at a time; the read back follows) over `proto` with
 * the --set overrides `sets` (NULL-terminated). */
static struct lz_run lz_copy(const char *proto, const char *const *sets)
{
  char path[1024], kind[64];
  cli_source_path(LZ_SCENARIO, path, sizeof path);
  snprintf(kind, sizeof kind, "protocol.kind=%s", proto);
  const char *args[40] = {"run",   "--json", "--no-ci", "-j", "1", path, "--set", kind, "--set", "workload.sets=photos",
                          "--set", LZ_RAM,   "--set",   LZ_COPY};
  cli_add_sets(args, 14, 40, sets);
  struct cli_out o;
  ck_assert_int_eq(cli_exec(NULL, args, &o), 0);
  ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
  struct lz_run r = lz_parse(&o);
  cli_out_free(&o);
  return r;
}

/* A buffered 1 MiB sequential write, one outstanding, for 3 s to the
 * scenario's iSCSI LUN with the --set overrides `sets`. */
static struct lz_run lz_fio(const char *const *sets)
{
  static const char job[] = "[copy]\nrw=write\nbs=1m\niodepth=1\ntime_based=1\nruntime=3\nsize=64g\n";
  char path[1024];
  cli_source_path(LZ_SCENARIO, path, sizeof path);
  const char *extra[40] = {"--json", path, "--set", "protocol.kind=iscsi", "--set", LZ_RAM, "--set", LZ_COPY};
  cli_add_sets(extra, 8, 40, sets);
  struct cli_out o;
  ck_assert_int_eq(cli_run_fio(job, "3s", extra, &o), 0);
  ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
  struct lz_run r = lz_parse(&o);
  cli_out_free(&o);
  return r;
}

/* Over iSCSI the copy (one 1 MiB chunk at a time) goes into the client's
 * cache and the lazy writer writes it behind with several writes in
 * flight, so in the steady copy the session's iscsi_trx thread is the
 * limit (busy ~100 %), not the copy loop's one chunk: with one
 * write-behind in flight the same copy is window-limited and much
 * slower, trx far from saturated. */
START_TEST(test_iscsi_copy_writes_behind)
{
  const char *one[] = {"clients.writebehind_requests=1", NULL};
  struct lz_run many = lz_copy("iscsi", NULL), single = lz_copy("iscsi", one);
  ck_assert_msg(many.trx_busy > 0.97, "iSCSI copy through the lazy writer: iscsi_trx %.1f %% busy; want saturated",
                100 * many.trx_busy);
  ck_assert_msg(many.MBps > 1.4 * single.MBps && single.trx_busy < 0.8,
                "write-behind 4 in flight: %.1f MB/s (trx %.1f %%); 1 in flight: %.1f MB/s (trx %.1f %%): want "
                "several in flight to pipeline the session",
                many.MBps, 100 * many.trx_busy, single.MBps, 100 * single.trx_busy);
  lz_free(&many);
  lz_free(&single);
}
END_TEST

/* Over SMB the files are the share's: the client's RAM, the lazy
 * writer's values and its threshold change nothing, byte for byte (the
 * copy's requests go to the server as the copy issues them).  A cache
 * scope that takes every file (the Linux client's, without a lazy writer)
 * would change it. */
START_TEST(test_smb_copy_unchanged)
{
  const char *noram[] = {"clients.ram=0B", NULL};
  const char *lazy[] = {"clients.writebehind_requests=16", "clients.lazy_write_share=1", "clients.dirty_ratio=0.5",
                        NULL};
  const char *all[] = {"clients.cache_scope=all", "clients.lazy_write_share=0", NULL}; /* today's Linux-like cache */
  struct lz_run base = lz_copy("smb", NULL), bare = lz_copy("smb", noram), tuned = lz_copy("smb", lazy),
                every = lz_copy("smb", all);
  ck_assert_msg(strcmp(base.json, bare.json) == 0, "SMB copy with clients.ram 16 GiB (%.3f MB/s) differs from "
                "without (%.3f MB/s)", base.MBps, bare.MBps);
  ck_assert_msg(strcmp(base.json, tuned.json) == 0, "SMB copy with other lazy-writer values: %.3f vs %.3f MB/s",
                tuned.MBps, base.MBps);
  ck_assert_msg(every.MBps != base.MBps, "SMB copy with cache_scope all: %.3f MB/s, the same as local-volume: "
                "want the scope to be what keeps SMB out of the cache", every.MBps);
  lz_free(&base);
  lz_free(&bare);
  lz_free(&tuned);
  lz_free(&every);
}
END_TEST

/* A writer slower than the session (clients.copy_rate 500 MB/s, its
 * 1 MiB memory copy 2.1 ms) never fills the dirty threshold (16 GiB / 8)
 * in 3 s: no write ever waits (its latency is the copy's), yet the lazy
 * writer's scans send the dirty pages to the NAS (iSCSI writes, trx and
 * the NAS port busy).  Without a lazy writer nothing is written back
 * until a writer waits at the threshold: the NAS sees no request. */
START_TEST(test_lazy_writer_starts_before_the_threshold)
{
  const double copy_ms = 1048576.0 / 500e6 * 1e3;
  const char *slow[] = {"clients.copy_rate=500MB/s", NULL};
  const char *none[] = {"clients.copy_rate=500MB/s", "clients.lazy_write_share=0", NULL};
  struct lz_run lazy = lz_fio(slow), off = lz_fio(none);
  ck_assert_msg(fabs(lazy.lat_max_ms - copy_ms) < 1e-3 * copy_ms,
                "slow writer: max write latency %.4f ms; want the memory copy's %.4f ms (no writer waited)",
                lazy.lat_max_ms, copy_ms);
  ck_assert_msg(lazy.requests > 1000 && lazy.trx_busy > 0.1 && lazy.rx_busy > 0.1,
                "lazy writer: %.0f requests at the NAS, trx %.1f %%, port %.1f %% busy; want the write-behind "
                "going before any writer waits",
                lazy.requests, 100 * lazy.trx_busy, 100 * lazy.rx_busy);
  ck_assert_msg(off.requests == 0 && off.rx_busy == 0.0,
                "no lazy writer: %.0f requests at the NAS, port %.1f %% busy; want none below the threshold",
                off.requests, 100 * off.rx_busy);
  lz_free(&lazy);
  lz_free(&off);
}
END_TEST

/* Past the dirty threshold writers wait: with clients.ram 1 GiB (128 MiB
 * may be dirty or in write-behind) a 5 GB/s writer fills it at once and
 * then goes at the session's pace: a 1 MiB write takes far longer than
 * its 0.2 ms memory copy, and the writes' rate is the NAS's, far below
 * the copy's.  With the threshold at 100 % of RAM the 3 s writer never
 * waits. */
START_TEST(test_writers_wait_at_the_threshold)
{
  const double copy_ms = 1048576.0 / 5e9 * 1e3;
  const char *small[] = {"clients.ram=1GiB", NULL};
  const char *big[] = {"clients.ram=32GiB", "clients.dirty_ratio=1", NULL};
  struct lz_run w = lz_fio(small), free_run = lz_fio(big);
  ck_assert_msg(w.lat_p50_ms > 3.0 * copy_ms && w.MBps < 0.3 * 5e3,
                "1 GiB client: median write %.3f ms, %.1f MB/s; want writers held at the threshold (copy %.3f ms, "
                "5000 MB/s)",
                w.lat_p50_ms, w.MBps, copy_ms);
  ck_assert_msg(w.trx_busy > 0.95, "writers at the threshold: trx %.1f %% busy; want the session the limit",
                100 * w.trx_busy);
  ck_assert_msg(fabs(free_run.lat_max_ms - copy_ms) < 1e-3 * copy_ms,
                "threshold 32 GiB: max write %.4f ms; want the copy's %.4f ms (no wait)", free_run.lat_max_ms,
                copy_ms);
  lz_free(&w);
  lz_free(&free_run);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("client_lazy");
  TCase *tc = tcase_create("write_behind");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_iscsi_copy_writes_behind);
  tcase_add_test(tc, test_smb_copy_unchanged);
  suite_add_tcase(s, tc);
  tc = tcase_create("lazy_writer");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_lazy_writer_starts_before_the_threshold);
  tcase_add_test(tc, test_writers_wait_at_the_threshold);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
