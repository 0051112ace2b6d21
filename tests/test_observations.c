/* test_observations.c - the behaviours reviews.yaml states in words
 * (`observations`), each pinned by a run of the built binary.
 *
 * No measured figure is a target here: each test compares simulations
 * with each other (more disks vs fewer, cache on vs off, LACP vs MPIO) or
 * checks where the bottleneck is.  Each runs `nastwin run --json` on a
 * scenario written here and reads the few numbers it needs. */
#include <check.h>
#include <math.h>

#include "scenario_run.c.inc"

static double ob_read_MBps(void) { return sr_num("\"totals\": {\"read\": {", "MBps"); }
static double ob_write_MBps(void) { return sr_num("\"write\": {\"ios\"", "MBps"); }
static double ob_all_MBps(void) { return sr_num("\"all\": {\"ios\"", "MBps"); }
static double ob_read_iops(void) { return sr_num("\"totals\": {\"read\": {", "iops"); }

/* busy of one resource (first step). */
static double ob_busy(const char *res)
{
  char a[128];
  snprintf(a, sizeof a, "\"resource\": \"%s\"", res);
  return sr_num(a, "busy");
}

/* Highest busy of resources whose name starts with prefix (first step). */
static double ob_max_busy(const char *prefix, char *name, size_t len)
{
  char a[128];
  snprintf(a, sizeof a, "\"resource\": \"%s", prefix);
  const char *end = strstr(sr_out, "\"bottleneck\": ");
  double best = -1;
  for (const char *p = strstr(sr_out, a); p && (!end || p < end); p = strstr(p + 1, a)) {
    const char *b = strstr(p, "\"busy\": ");
    double x = strtod(b + 8, NULL);
    if (x > best) {
      best = x;
      const char *q = p + 13;
      const char *e = strchr(q, '"');
      snprintf(name, len, "%.*s", (int)(e - q), q);
    }
  }
  return best;
}

/* Run validation/scenarios/obs-NAME.yaml (the scenarios points.yaml's
 * `observations` constraints use too: calibrate holds the same runs). */
static void ob_run(const char *name, const char *args)
{
  const char *src = getenv("NASTWIN_SOURCE_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/validation/scenarios/obs-%s.yaml", src ? src : NASTWIN_SOURCE_DIR, name);
  sr_run_file(path, args);
}

/* DS2015xs, 8 SSD RAID-5, 2x10GbE LACP, one client, 1 MiB reads at QD4. */
#define OB_DS2015XS "ds2015xs-smb"

START_TEST(test_smbd_single_core)
{
  ob_run(OB_DS2015XS, NULL);
  char name[96], bn[96];
  double smbd = ob_max_busy("soc.smbd", name, sizeof name);
  double cpu = ob_busy("soc.cpu");
  sr_bottleneck(bn, sizeof bn);
  ck_assert_msg(smbd >= 0.95, "busiest smbd thread %s busy %.3f < 0.95", name, smbd);
  ck_assert_msg(cpu < 0.40, "aggregate SoC CPU busy %.3f >= 0.40", cpu);
  ck_assert_msg(strstr(bn, "smbd") != NULL, "bottleneck is %s, not the smbd thread", bn);
}
END_TEST

START_TEST(test_iscsi_single_core)
{
  /* One iSCSI session over the 2x10GbE bond (one flow: one 10GbE link): a
   * write stream arrives through iscsi_trx, which also does the TCP layer
   * of its segments (prequeue/backlog).  "Limited by iscsi_trx saturating
   * one core": trx is the bottleneck near 100 % busy, the other cores have
   * headroom, and the throughput follows the clock (a slower SoC is
   * slower in proportion; a faster one gains until the link binds).
   * A 1 s run: the page cache takes the writes, so the session's protocol
   * path is what is measured (as in the first gigabytes of a copy); in
   * the write-back steady state the md path (parity engine) may bind
   * first, which is the calibration's call, not this observation's. */
  const char *iscsi = "--set protocol.kind=iscsi --set workload.rw=write";
  char args[256];
  ob_run(OB_DS2015XS, iscsi);
  char name[96], bn[96];
  double thr = ob_max_busy("soc.iscsi_trx", name, sizeof name);
  sr_bottleneck(bn, sizeof bn);
  ck_assert_msg(thr >= 0.95 && strstr(bn, "iscsi_trx") != NULL,
                "busiest iscsi_trx thread %s busy %.3f; bottleneck %s (expected iscsi_trx saturating one core)", name,
                thr, bn);
  double cpu = ob_busy("soc.cpu");
  ck_assert_msg(cpu < 0.5, "aggregate SoC CPU busy %.3f >= 0.5: the other cores have no headroom", cpu);
  for (int k = 0; k < 4; k++) {
    char core[32];
    snprintf(core, sizeof core, "soc.core%d", k);
    double b = ob_busy(core);
    char owner[128];
    snprintf(owner, sizeof owner, "\"resource\": \"%s\"", core);
    const char *line = strstr(sr_out, owner);
    const char *next = line ? strstr(line + 1, "\"resource\"") : NULL;
    const char *trx = line ? strstr(line, "iscsi_trx") : NULL;
    if (trx && (!next || trx < next))
      continue; /* the trx core itself */
    ck_assert_msg(b < 0.5, "%s busy %.3f: not headroom beside the saturated trx core", core, b);
  }
  double x17 = ob_write_MBps();
  snprintf(args, sizeof args, "%s --set soc.clock=1.4GHz", iscsi);
  ob_run(OB_DS2015XS, args);
  double x14 = ob_write_MBps();
  ck_assert_msg(x14 < 0.9 * x17 && x14 > 0.75 * x17,
                "1.4 GHz %.1f MB/s vs 1.7 GHz %.1f MB/s: a core-bound session scales with the clock (ratio %.3f)",
                x14, x17, x14 / x17);
}
END_TEST

/* AnandTech's IOMeter runs: clients of the 25 (more: as many) over 1GbE,
 * one IOMeter trace (obs-ds2015xs-iometer.yaml). */
static double ob_multi_MBps(const char *trace, int clients, double *cpu, const char *args)
{
  char a[1024];
  snprintf(a, sizeof a,
           "--set clients.count=%d --set workload.traces=%s --set workload.clients_from=%d --set workload.clients=%d %s",
           clients > 25 ? clients : 25, trace, clients, clients, args ? args : "");
  ob_run("ds2015xs-iometer", a);
  if (cpu)
    *cpu = ob_busy("soc.cpu");
  return ob_all_MBps();
}

START_TEST(test_multiclient_seq_saturation)
{
  /* Saturation: the aggregate grows with clients while each 1GbE client
   * is its own limit, then stops: by 25 clients (the review's plateau)
   * the limit is inside the NAS, not the clients' or the NAS's links, and
   * 20 % more clients add almost nothing.  Where the plateau lies (the
   * review's ~700 MB/s) is the calibration's business, not this test's;
   * so is where the growth bends (each 1GbE client at one outstanding
   * 32 KiB read carries ~80 MB/s, so five already make more than half a
   * 700 MB/s plateau): below it, two clients carry twice one's. */
  double a1 = ob_multi_MBps("seq-read", 1, NULL, NULL);
  double a2 = ob_multi_MBps("seq-read", 2, NULL, NULL);
  double a5 = ob_multi_MBps("seq-read", 5, NULL, NULL);
  double a25 = ob_multi_MBps("seq-read", 25, NULL, NULL);
  char bn[96];
  sr_bottleneck(bn, sizeof bn);
  double a30 = ob_multi_MBps("seq-read", 30, NULL, NULL);
  ck_assert_msg(a2 > 1.9 * a1, "no growth below saturation: 1 client %.1f MB/s, 2 clients %.1f MB/s", a1, a2);
  ck_assert_msg(a25 > 1.2 * a5 && a25 > 4.0 * a1,
                "no growth to saturation: 1 client %.1f MB/s, 5 clients %.1f MB/s, 25 clients %.1f MB/s", a1, a5, a25);
  ck_assert_msg(strncmp(bn, "soc.", 4) == 0, "25 clients limited by %s, not by the NAS's SoC", bn);
  ck_assert_msg(a30 < 1.05 * a25, "aggregate still growing: 25 clients %.1f MB/s, 30 clients %.1f MB/s", a25, a30);
}
END_TEST

/* The observation says the smbd processes saturate all cores past five
 * clients.  How many I/Os each IOMeter worker kept outstanding is not in
 * the review (the preset assumes 1).  The test gives each client 8, a
 * workload assumption: with 1 the aggregate bends at five clients (4 x
 * 256 KiB fill the AL514's 1 MiB L2) but peaks at nine or ten and falls
 * slowly; with 8 it falls at once past five (549 -> 369 MB/s at 6, the
 * cores saturated; shipped calibration). */
static const char ob_iometer_qd8[] = "--set workload.queue_depth=8";

START_TEST(test_multiclient_random_drop)
{
  /* Past a few clients the working sets of the smbd processes that take
   * turns on the cores no longer fit in the shared L2: each request
   * refills the lines the others evicted since its process last ran, the
   * cycles per request grow with the clients, and the aggregate falls
   * (cache thrashing), where fixed costs would only plateau. */
  char off[256];
  double cpu12;
  double a4 = ob_multi_MBps("random-8k-70r", 4, NULL, ob_iometer_qd8);
  double a12 = ob_multi_MBps("random-8k-70r", 12, &cpu12, ob_iometer_qd8);
  ck_assert_msg(cpu12 >= 0.95, "with 12 clients the SoC is only %.1f %% busy: the drop is not the smbd processes saturating all cores",
                100 * cpu12);
  ck_assert_msg(a12 < 0.85 * a4, "no drop past saturation: 4 clients %.1f MB/s, 12 clients %.1f MB/s", a4, a12);
  /* the same load without the working-set refill: growth to a plateau, no drop */
  snprintf(off, sizeof off, "%s --set protocol.daemon_working_set=0B", ob_iometer_qd8);
  double b4 = ob_multi_MBps("random-8k-70r", 4, NULL, off);
  double b12 = ob_multi_MBps("random-8k-70r", 12, NULL, off);
  ck_assert_msg(b12 >= 0.97 * b4, "without the working-set refill 4 clients %.1f MB/s, 12 clients %.1f MB/s: a drop from elsewhere",
                b4, b12);
}
END_TEST

START_TEST(test_encryption_write_only)
{
  ob_run(OB_DS2015XS, NULL);
  double r0 = ob_read_MBps();
  ob_run(OB_DS2015XS, "--set encryption.enabled=1");
  double r1 = ob_read_MBps();
  /* writes measured after a 3 s ramp: the dirty pages have reached the
   * page cache's limit, so the rate is what write-back (encryption, md,
   * disks) sustains, not the rate RAM absorbs them at */
#define OB_WRITE_RAMP "--set workload.rw=write --set workload.ramp_time=3s --set workload.runtime=4s --set time=4s"
  ob_run(OB_DS2015XS, OB_WRITE_RAMP);
  double w0 = ob_write_MBps();
  ob_run(OB_DS2015XS, OB_WRITE_RAMP " --set encryption.enabled=1");
  double w1 = ob_write_MBps();
  char bn[96];
  sr_bottleneck(bn, sizeof bn);
#undef OB_WRITE_RAMP
  ck_assert_msg(w1 < 0.9 * w0, "encrypted write %.1f MB/s not slower than plain %.1f MB/s", w1, w0);
  ck_assert_msg(strstr(bn, "crypto") != NULL, "encrypted write bound by %s, not the crypto engine", bn);
  ck_assert_msg(r1 >= 0.95 * r0, "encrypted read %.1f MB/s slower than plain %.1f MB/s", r1, r0);
}
END_TEST

/* RAID operations on the DS2015xs with the review's 120 GB SSDs.  An
 * expansion is bound by md's single raid5d thread: it handles 2 stripe_heads
 * per member row (the new row's and the old rows it consumes) against 1 for
 * a rebuild, whatever the disk count (soc md_stripe_cycles). */
static const char ob_raid[] =
    "name: ob-raid\nsystem: ds2015xs\ndisks: {count: %d, drive: ocz-vector-120}\nvolume: {level: 5}\n"
    "protocol: {kind: smb}\nclients: {count: 1}\noperation: {kind: %s, from_members: %d}\n"
    "workload: {rw: read, bs: 1m, size: 1g}\ntime: 20000s\nseed: 1\n";

static double ob_raid_op(int disks, const char *kind, int from, double *power_W)
{
  char y[1024];
  snprintf(y, sizeof y, ob_raid, disks, kind, from);
  sr_run_text(y, NULL);
  *power_W = sr_num("\"operations\": [", "avg_power_W");
  return sr_num("\"operations\": [", "duration_s");
}

START_TEST(test_raid_reshape_flat)
{
  double p4, p5, p8, pr;
  double d4 = ob_raid_op(4, "reshape", 3, &p4);
  double d5 = ob_raid_op(5, "reshape", 4, &p5);
  double d8 = ob_raid_op(8, "reshape", 7, &p8);
  double dr = ob_raid_op(8, "rebuild", 8, &pr);
  double lo = fmin(d4, fmin(d5, d8)), hi = fmax(d4, fmax(d5, d8));
  ck_assert_msg(hi < 1.3 * lo, "reshape not flat in disk count: 3->4 %.0f s, 4->5 %.0f s, 7->8 %.0f s", d4, d5, d8);
  ck_assert_msg(p4 < p5 && p5 < p8, "power does not rise with disks: %.2f, %.2f, %.2f W", p4, p5, p8);
  ck_assert_msg(dr < lo, "rebuild %.0f s not faster than the fastest reshape %.0f s", dr, lo);
}
END_TEST

/* DS414slim, NFS datastore (async export), heavy 4K random writes in the
 * steady state: the writes land in the page cache, and the one core runs
 * nfsd, the network stack, the flusher (one bio per scattered page) and
 * md's raid5d; writers wait on the dirty limit.  The CPU is the limit, the
 * flusher a large share of it, and the disks are not: a core twice as fast
 * raises the IOPS.  The window (12-16 s) opens after the page cache has
 * filled to its dirty limit, and the run must say it is in steady state:
 * with a 4 s ramp a slower-absorbing calibration (nfs cycles_per_request
 * 68k) measured the slow SoC's filling (writes landing faster than the
 * flusher ran) against the fast SoC's steady state, and a SoC twice as
 * fast looked slower. */
START_TEST(test_ds414slim_cpu_bound)
{
  ob_run("ds414slim-nfs-write", NULL);
  ck_assert_msg(strstr(sr_out, "\"steady_state\": true") != NULL, "DS414slim 4K writes: no steady state in the window");
  char bn[96];
  sr_bottleneck(bn, sizeof bn);
  double cpu = ob_busy("soc.cpu"), flush = ob_busy("soc.flush");
  double iops = sr_num("\"write\": {\"ios\"", "iops");
  ck_assert_msg(!strncmp(bn, "soc.", 4) && cpu >= 0.95,
                "heavy 4K random writes: bottleneck %s, SoC CPU busy %.1f %% (expected the CPU at ~99 %%)",
                bn, 100 * cpu);
  /* >= 10 %: with the page cache holding 4 KiB pages (not 64 KiB blocks)
   * ~3x more scattered pages fit under the dirty limit, write-back runs are
   * longer and the flusher's share fell from 15.6 % to 14.7 % */
  ck_assert_msg(flush >= 0.10 * cpu, "flusher busy %.1f %% of a CPU busy %.1f %%: not a large share",
                100 * flush, 100 * cpu);
  /* The busy core spends much of its time refilling the kernel paths'
   * lines from DRAM (models/soc soc_kernel_stall_s), which a faster clock
   * does not shorten: a SoC twice as fast is twice the clock and twice
   * its memory system (half the DRAM latency, twice the bus rate); both
   * in steady state (1959 vs 3929 IOPS at the shipped calibration, 1698 vs 3298 with session 13's refit). */
  ob_run("ds414slim-nfs-write", "--set soc.clock=2.4GHz --set soc.dram_latency=55ns --set soc.dram_transfer_rate=2666MHz");
  ck_assert_msg(strstr(sr_out, "\"steady_state\": true") != NULL, "a SoC twice as fast: no steady state in the window");
  double iops2 = sr_num("\"write\": {\"ios\"", "iops");
  ck_assert_msg(iops2 >= 1.3 * iops, "a SoC twice as fast: %.0f IOPS vs %.0f: the SoC is not the limit",
                iops2, iops);
}
END_TEST

static const char ob_lacp[] =
    "name: ob-lacp\nsystem: ds1511plus\ndisks: {count: 10, drive: hitachi-7k3000-3tb}\nvolume: {level: 5}\n"
    "network: {mode: lacp, nas_links: 2, nas_link_rate: 1Gbit/s, client_nics: 2, client_link_rate: 1Gbit/s, mtu: 9000}\n"
    "protocol: {kind: iscsi}\nclients: {count: 1}\n"
    "workload: {rw: read, bs: 1m, iodepth: 8, size: 2g, time_based: 1, runtime: 1s}\ntime: 1s\nseed: 1\n";

START_TEST(test_lacp_single_stream)
{
  sr_run_text(ob_lacp, NULL);
  double lacp = ob_read_MBps();
  sr_run_text(ob_lacp, "--set network.mode=mpio");
  double mpio = ob_read_MBps();
  double link_MBps = 1e9 / 8 / 1e6; /* one 1GbE link's line rate: payload can only be less */
  ck_assert_msg(lacp <= link_MBps, "LACP single initiator %.1f MB/s exceeds one link (%.1f MB/s)", lacp, link_MBps);
  ck_assert_msg(mpio > 1.6 * lacp, "MPIO %.1f MB/s not > 1.6 x LACP %.1f MB/s", mpio, lacp);
}
END_TEST

START_TEST(test_volume_width_network_bound)
{
  const char *one = "--set network.mode=single --set network.nas_links=1 --set network.client_nics=1";
  char args[512];
  sr_run_text(ob_lacp, one);
  double w10 = ob_read_MBps();
  snprintf(args, sizeof args, "%s --set disks.count=5", one);
  sr_run_text(ob_lacp, args);
  double w5 = ob_read_MBps();
  ck_assert_msg(fabs(w10 / w5 - 1) <= 0.05, "10 disks %.1f MB/s vs 5 disks %.1f MB/s differ by more than 5 %%", w10, w5);
}
END_TEST

/* The DS1819+ under StorageReview's fio runs (obs-ds1819plus-rand.yaml:
 * 4K random reads, 16 jobs x QD16 over iSCSI; obs-ds1819plus-seq.yaml: the
 * 128K sequential read, 16 readers over a 25 GiB region measured after a
 * ramp: the interleaved streams need a few hundred ms to settle into the
 * drives' segments), cache off unless set. */
START_TEST(test_ssd_cache_random_not_sequential)
{
  char a[512];
  ob_run("ds1819plus-rand", NULL);
  double r0 = ob_read_iops();
  ob_run("ds1819plus-rand", "--set ssd_cache.mode=read-write");
  double r1 = ob_read_iops();
  ck_assert_msg(r1 >= 3 * r0, "4K random read IOPS: cache off %.0f, on %.0f (expected many times more)", r0, r1);
  /* iSCSI, a file per reader: 16 sequential streams interleave on every
   * member; the 8-disk RAID-6 streams well above 10GbE only if the drives
   * keep a read segment per stream (on ~= off alone would also hold with
   * both disk-bound).  SMB, the readers fio numjobs on one file (as
   * StorageReview's fio runs them): smbd reads blocking, one connection,
   * so the link fills only because the readers share the page cache's
   * read-ahead (with a file each it stays near a third of the link). */
  static const struct {
    const char *proto, *file;
  } cases[] = {{"iscsi", ""}, {"smb", " --set workload.filename=/volume1/sr.bin"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char bn0[96], bn1[96];
    snprintf(a, sizeof a, "--set protocol.kind=%s%s", cases[i].proto, cases[i].file);
    ob_run("ds1819plus-seq", a);
    double s0 = ob_read_MBps(), l0 = ob_busy("net.nas0.tx");
    sr_bottleneck(bn0, sizeof bn0);
    snprintf(a, sizeof a, "--set protocol.kind=%s%s --set ssd_cache.mode=read-write", cases[i].proto, cases[i].file);
    ob_run("ds1819plus-seq", a);
    double s1 = ob_read_MBps(), l1 = ob_busy("net.nas0.tx");
    sr_bottleneck(bn1, sizeof bn1);
    /* the 10GbE port carries (nearly) all it can; the drives, streaming
     * 6/8 of 8 x ~200 MB/s, have only a few percent in hand and may be
     * named the busiest resource */
    ck_assert_msg(l0 >= 0.9 && l1 >= 0.9,
                  "%s 128K sequential read: NAS port busy %.3f (cache off, %.1f MB/s, bottleneck %s), "
                  "%.3f (cache on, %.1f MB/s, bottleneck %s); expected the link near saturation",
                  cases[i].proto, l0, s0, bn0, l1, s1, bn1);
    ck_assert_msg(fabs(s1 / s0 - 1) <= 0.10,
                  "%s 128K sequential read: cache off %.1f MB/s, on %.1f MB/s (expected within 10 %%)",
                  cases[i].proto, s0, s1);
  }
}
END_TEST

/* Observations the model reproduces today are hard tests.  The others are
 * known gaps, run as their own ctest (test_observations_known_gaps, with
 * NASTWIN_OBSERVATIONS=gaps) that is expected to fail: it turns red the day
 * a gap is closed, so the case moves up here and becomes a hard test. */
struct obs_case {
  const char *name;
  const TTest *t;
  int reproduced;
};

/* Every case runs at the shipped calibration (validation/calibrated.yaml,
 * applied by default): the observations are review agreement, so they
 * must hold with the values a user gets.  Three held at the catalogue's
 * values but not at the shipped fit (measured when calibration became the
 * default): iscsi-single-core (net.nas0.rx binds, iscsi_trx 70 % busy;
 * the fit has protocols/iscsi cycles_per_packet at its lower bound),
 * multiclient-random-drop (the SoC only 81 % busy at 12 clients) and
 * encryption-write-only (a disk binds the encrypted write, not the crypto
 * engine; the fit has the OCZ steady_state_write_factor at its upper
 * bound).  multiclient-random-drop holds since the smbd working-set
 * refill counts the processes that ran since a process last ran, not
 * those with work at the same moment (with one outstanding I/O per
 * client few have work at once).  encryption-write-only holds since
 * eCryptfs's write-back encrypts page by page on one engine queue (226
 * MB/s, the engine binds) while reads decrypt over the engine's queues
 * (soc.crypto_engine_queues).  iscsi-single-core is a known gap until a
 * refit reproduces it.  ds414slim-cpu-bound became one with the R6 fit
 * (session 16): it put systems/ds414slim/page_cache.flush_cycles_per_request
 * at its lower bound (5,000 cycles), the flusher 4.7 % of the saturated
 * core where the review says the flush process drives it.  A refit from R6
 * with the flusher share as a constraint (points.yaml, session 17: 82
 * parameters, 2 LM iterations, 945 s) reached only 9.1 % and broke the
 * iSCSI 128K port constraint (0.54) and the throughput median (7.3 ->
 * 12.2 %), so it was not shipped: the DS414slim write path lacks a
 * mechanism that makes the flusher cheap per page in the fit's eyes.
 * Both hold at the full refit of session 21 (R27, every reachable
 * parameter free from R26's values): every observation is a hard test
 * again, and test_observations_known_gaps is not registered while the
 * list has no gap (it could not fail).
 * Check's test handles are not constant expressions: the table is built at run time. */
#define OBS_NCASES 10
static struct obs_case obs_cases[OBS_NCASES];

static void obs_init(void)
{
  const struct obs_case cases[OBS_NCASES] = {
    {"smbd-single-core", test_smbd_single_core, 1},
    {"lacp-single-stream", test_lacp_single_stream, 1},
    {"volume-width-network-bound", test_volume_width_network_bound, 1},
    {"ssd-cache-random-not-sequential", test_ssd_cache_random_not_sequential, 1},
    {"iscsi-single-core", test_iscsi_single_core, 1},
    {"multiclient-seq-saturation", test_multiclient_seq_saturation, 1},
    {"multiclient-random-drop", test_multiclient_random_drop, 1},
    {"encryption-write-only", test_encryption_write_only, 1},
    {"raid-reshape-flat", test_raid_reshape_flat, 1},
    {"ds414slim-cpu-bound", test_ds414slim_cpu_bound, 1},
  };
  memcpy(obs_cases, cases, sizeof cases);
}

static int obs_run(int reproduced, int one)
{
  Suite *s = suite_create(reproduced ? "observations" : "observations-known-gaps");
  for (size_t i = 0; i < OBS_NCASES; i++) {
    if (obs_cases[i].reproduced != reproduced || (one >= 0 && (int)i != one))
      continue;
    TCase *tc = tcase_create(obs_cases[i].name);
    tcase_set_timeout(tc, 180); /* ASan: a case runs up to ~8 simulations at ~5x their normal cost */
    tcase_add_test(tc, obs_cases[i].t);
    suite_add_tcase(s, tc);
  }
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}

int main(void)
{
  obs_init();
  const char *mode = getenv("NASTWIN_OBSERVATIONS");
  if (!mode || strcmp(mode, "gaps") != 0)
    return obs_run(1, -1) ? EXIT_FAILURE : EXIT_SUCCESS;
  /* Known gaps: exit 0 (which ctest's WILL_FAIL reports as a failure) as
   * soon as one of them passes. */
  int passed = 0;
  for (size_t i = 0; i < OBS_NCASES; i++)
    if (!obs_cases[i].reproduced && obs_run(0, (int)i) == 0) {
      printf("observation %s is now reproduced: make it a hard test\n", obs_cases[i].name);
      passed++;
    }
  return passed ? EXIT_SUCCESS : EXIT_FAILURE;
}
