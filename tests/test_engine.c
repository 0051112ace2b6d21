/* End to end through the real engine (forked simulations via the binary):
 * a golden run checkable by hand, determinism, Little's law on closed
 * loops, the failure path for unfinished work, and (in process, through
 * engine_run) what the JSON does not print: thread occupancy. */
#define _DEFAULT_SOURCE /* wait4 */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "cli_util.c.inc"
#include "sim/config/config.h"
#include "sim/engine/engine.h"
#include "sim/engine/flow.h"
#include "sim/study/runpool.h"

/* In-process results (what the JSON does not print): the scenario run by
 * engine_run in a forked child (SimGrid initialises once per process). */
struct direct_ctx {
  const struct scenario *s;
};

static void direct_task(void *ctx, int task, struct run_result *out)
{
  struct direct_ctx *c = ctx;
  engine_run(c->s, task, 0, NULL, out);
}

/* Run step 0 of scenario `rel` with `nsets` overrides ("path", "value"
 * pairs) into *out (caller frees). */
static struct run_result *run_direct(const char *rel, const char *const *sets, int nsets)
{
  char path[1024];
  cli_source_path(rel, path, sizeof path);
  struct cfg_set cs[16];
  for (int i = 0; i < nsets && i < 16; i++)
    cs[i] = (struct cfg_set){.path = sets[2 * i], .value = sets[2 * i + 1]};
  struct scenario s;
  struct nw_err err = {0};
  memset(&s, 0, sizeof s);
  ck_assert_msg(cfg_load(path, NULL, cs, nsets, NULL, &s, &err) == 0, "load %s: %s", rel, err.msg);
  struct run_result *out = calloc(1, sizeof *out);
  ck_assert_ptr_nonnull(out);
  struct direct_ctx ctx = {.s = &s};
  ck_assert_int_eq(runpool_run(1, 1, 0.0, direct_task, &ctx, out, NULL), 0);
  cfg_free(&s);
  return out;
}

static const struct res_resource *find_res(const struct run_result *r, const char *name)
{
  for (int i = 0; i < r->nres; i++)
    if (!strcmp(r->res[i].name, name))
      return &r->res[i];
  ck_abort_msg("no resource %s in the result", name);
  return NULL;
}

static struct cli_out run_json(const char *rel, const char *const *extra)
{
  char path[1024];
  cli_source_path(rel, path, sizeof path);
  const char *args[32] = {"run", "--json", "--no-ci"};
  int n = 3;
  if (rel[0])
    args[n++] = path;
  for (int i = 0; extra && extra[i] && n < 31; i++)
    args[n++] = extra[i];
  args[n] = NULL;
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  return r;
}

START_TEST(test_golden_fixed_local)
{
  struct cli_out r = run_json("tests/scenarios/golden-fixed-local.yaml", NULL);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  /* 1 ms + 1 MiB / 100 MB/s = 11.48576 ms per read at QD1 */
  double mean = cli_json_number(r.out, "\"read\": {", "mean");
  ck_assert_msg(fabs(mean - 11.48576) < 1e-6, "mean latency %.9g ms, want 11.48576", mean);
  double iops = cli_json_number(r.out, "\"read\": {", "iops");
  /* 174 whole reads fit in the 2 s window: 2 / 0.01148576 = 174.1 */
  ck_assert_msg(fabs(iops - 87.0) < 1e-9, "iops %.9g, want 87 (174 reads in 2 s)", iops);
  double busy = cli_json_number(r.out, "\"resource\": \"disk0\"", "busy");
  ck_assert_msg(busy > 0.99, "the only disk should be busy all the time, got %g", busy);
  cli_out_free(&r);
}
END_TEST

/* O_DIRECT on a local drive bypasses the page cache both ways: with 1 GiB
 * of cache each 1 MiB read or write still costs the golden 11.48576 ms at
 * the drive, where buffered I/O does not (read-ahead, write-back). */
START_TEST(test_local_direct_bypasses_cache)
{
  const char *rws[] = {"read", "write"};
  for (int i = 0; i < 2; i++) {
    char rw[64];
    snprintf(rw, sizeof rw, "workload.rw=%s", rws[i]);
    for (int direct = 0; direct <= 1; direct++) {
      char d[64];
      snprintf(d, sizeof d, "workload.direct=%d", direct);
      const char *set[] = {"--set", "page_cache.ram=1GiB", "--set", rw, "--set", d, NULL};
      struct cli_out r = run_json("tests/scenarios/golden-fixed-local.yaml", set);
      ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
      double mean = cli_json_number(r.out, "\"all\": {", "mean");
      if (direct)
        ck_assert_msg(fabs(mean - 11.48576) < 1e-6, "%s direct: mean %.9g ms, want 11.48576", rws[i], mean);
      else
        /* buffered reads: 1 MiB requests over a 128 KiB read-ahead wait for
         * the window in flight and read the rest (an extra device latency
         * per I/O, ~0.5 ms here); writes are absorbed by the cache */
        ck_assert_msg(fabs(mean - 11.48576) > 0.1, "%s buffered: mean %.9g ms, the cache should change it", rws[i], mean);
      cli_out_free(&r);
    }
  }
}
END_TEST

START_TEST(test_deterministic)
{
  struct cli_out a = run_json("", NULL), b = run_json("", NULL);
  ck_assert_msg(a.status == 0 && b.status == 0, "exit %d/%d: %s", a.status, b.status, a.err);
  ck_assert_msg(strcmp(a.out, b.out) == 0, "two runs of the default scenario differ");
  const char *seed[] = {"--seed", "2", "--set", "workload.rw=randread", "--set", "workload.bs=4k", NULL};
  struct cli_out c = run_json("", seed), d = run_json("", seed);
  ck_assert_msg(strcmp(c.out, d.out) == 0, "two random runs with seed 2 differ");
  cli_out_free(&a);
  cli_out_free(&b);
  cli_out_free(&c);
  cli_out_free(&d);
}
END_TEST

/* Little's law on a closed loop: X * R = N (N = clients x jobs x depth). */
static void check_little(const char *rel, const char *const *extra, double n_expected)
{
  struct cli_out r = run_json(rel, extra);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  double iops = cli_json_number(r.out, "\"all\": {", "iops");
  double mean_ms = cli_json_number(r.out, "\"all\": {", "mean");
  double n = iops * mean_ms / 1e3;
  ck_assert_msg(fabs(n / n_expected - 1.0) < 0.02, "%s: X*R = %.4g x %.4g ms = %.4g, want %g", rel, iops,
                mean_ms, n, n_expected);
  cli_out_free(&r);
}

START_TEST(test_littles_law)
{
  check_little("", NULL, 4.0); /* default: 1 CIFS client, QD4 */
  const char *nfs[] = {"--set", "protocol.kind=nfs", "--set", "clients.count=3", "--set", "workload.rw=randrw",
                       "--set", "workload.bs=8k", "--set", "workload.iodepth=5", "--set", "workload.numjobs=2",
                       "--time", "1s", NULL};
  check_little("", nfs, 30.0);
  const char *iscsi[] = {"--set", "protocol.kind=iscsi", "--set", "workload.rw=randwrite", "--set",
                         "workload.bs=64k", "--set", "workload.iodepth=16", "--time", "1s", NULL};
  check_little("", iscsi, 16.0);
}
END_TEST

START_TEST(test_json_contract)
{
  struct cli_out r = run_json("", NULL);
  static const char *const keys[] = {"\"scenario\"", "\"seed\"", "\"simulated_s\"", "\"totals\"",
                                     "\"latency_ms\"", "\"p999\"", "\"utilization\"", "\"bottleneck\"",
                                     "\"power\"", "\"avg_W\"", "\"energy_J\"", "\"operations\"", NULL};
  for (int i = 0; keys[i]; i++)
    ck_assert_msg(strstr(r.out, keys[i]) != NULL, "JSON lacks %s", keys[i]);
  double busy = cli_json_number(r.out, "\"bottleneck\"", "busy");
  ck_assert_msg(busy > 0 && busy <= 1.0, "bottleneck busy %g not in (0, 1]", busy);
  ck_assert_msg(strstr(r.out, "\"bottleneck\": {\"resource\": \"soc.smbd.c0.0\"") != NULL,
                "the default scenario's bottleneck should be the client's smbd: %.400s",
                strstr(r.out, "\"bottleneck\""));
  cli_out_free(&r);
}
END_TEST

/* Peak resident memory (KiB) of a process that runs step 0 of `rel` (its
 * forked simulation included: wait4 reports the child's own peak and its
 * children's); the operation's duration comes back through a pipe. */
static long op_run_maxrss(const char *rel, const char *const *sets, int nsets, double *duration_s)
{
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fd[0]);
    struct run_result *r = run_direct(rel, sets, nsets);
    double d = (r->failed == 0 && r->nops == 1) ? r->ops[0].duration_s : -1.0;
    _exit(write(fd[1], &d, sizeof d) == (ssize_t)sizeof d ? 0 : 1);
  }
  close(fd[1]);
  int status = 0;
  struct rusage ru;
  ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the run failed (status %d)", rel, status);
  ck_assert_int_eq(read(fd[0], duration_s, sizeof *duration_s), (ssize_t)sizeof *duration_s);
  close(fd[0]);
  ck_assert_msg(*duration_s > 0, "%s: no operation result", rel);
  return ru.ru_maxrss;
}

/* A background operation of a day and more with no client I/O: the
 * window's in-window bins stay at most ENG_WIN_BINS (a 28-hour rebuild at
 * 0.1 ms bins would be 10^9 of them, gigabytes to scan), and 16384 md
 * windows per pass (STK_OP_WINDOWS_PER_PASS) keep it cheap in events. The
 * same rebuild of 9 GB drives (minutes) is the reference: what the host
 * charges for the process itself (libraries, actor stacks, huge pages)
 * cancels, and what grows with the operation's length shows. */
START_TEST(test_long_operation_stays_small)
{
  const char *rel = "bench/scenarios/rebuild_8x14tb_raid6.yaml";
  const char *small[] = {"disks.drive", "seagate-cheetah-9lp"};
  double long_s = 0, short_s = 0;
  long long_kib = op_run_maxrss(rel, NULL, 0, &long_s);
  long short_kib = op_run_maxrss(rel, small, 1, &short_s);
  ck_assert_msg(long_s > 86400.0, "rebuild %g s: not the long case", long_s);
  ck_assert_msg(short_s < 3600.0, "reference rebuild %g s: not short", short_s);
#ifndef __SANITIZE_ADDRESS__
  /* (not under AddressSanitizer: its quarantine holds up to 256 MiB of
   * freed blocks, so a run with more frees peaks higher whatever it keeps) */
  ck_assert_msg(long_kib < short_kib + 64 * 1024, "a %.0f s rebuild peaks at %ld KiB, a %.0f s one at %ld KiB",
                long_s, long_kib, short_s, short_kib);
#else
  (void)long_kib;
  (void)short_kib;
#endif
}
END_TEST

START_TEST(test_unfinished_work_fails)
{
  struct cli_out r = run_json("tests/scenarios/hung-disk.yaml", NULL);
  ck_assert_msg(r.status == 1, "a hung disk must fail the run with exit 1, got %d", r.status);
  ck_assert_msg(strstr(r.err, "simulation did not finish") != NULL, "stderr: %s", r.err);
  cli_out_free(&r);
}
END_TEST

/* A time-based run stops at its window's end: the I/Os then outstanding
 * (a closed loop of 32: up to 32) are abandoned, not drained, and the run
 * does not fail for them; Little's L still counts them in flight (32 over
 * the window); the disks' busy share and the power are the window's (its
 * energy over its length), a share of one at most. */
START_TEST(test_time_based_stops_at_window_end)
{
  const char *sets[] = {"time", "0.5s", "workload.runtime", "0.5s"};
  struct run_result *r = run_direct("bench/scenarios/ds414slim_nfs_4k_random.yaml", sets, 2);
  ck_assert_msg(!r->failed, "failed: %s", r->failure);
  double end = r->window_start_s + r->window_s;
  ck_assert_msg(r->simulated_s >= end && r->simulated_s < end + 1e-6, "stopped at %.9f s, the window ends at %.9f s",
                r->simulated_s, end);
  uint64_t abandoned = r->issued - r->completed;
  ck_assert_msg(abandoned > 0 && abandoned <= 32, "%llu of %llu I/Os abandoned", (unsigned long long)abandoned,
                (unsigned long long)r->issued);
  ck_assert_msg(fabs(r->outstanding_avg / 32.0 - 1.0) < 1e-6, "L = %.6f, want 32", r->outstanding_avg);
  for (int i = 0; i < r->nres; i++)
    if (r->res[i].kind == RES_DISK)
      ck_assert_msg(r->res[i].busy > 0 && r->res[i].busy <= 1.0 + 1e-9, "%s busy %.6f", r->res[i].name, r->res[i].busy);
  ck_assert_msg(fabs(r->energy_J / (r->avg_power_W * r->window_s) - 1.0) < 1e-6, "%.6f J at %.6f W over %.6f s",
                r->energy_J, r->avg_power_W, r->window_s);
  free(r);
}
END_TEST

/* The same 0.5 s run of 32 I/Os in flight, as the reports give it: the
 * JSON's totals.all.abandoned is what the run left outstanding (issued =
 * completed + abandoned), in "all" alone; the text report names them. */
START_TEST(test_abandoned_in_reports)
{
  const char *sets[] = {"time", "0.5s", "workload.runtime", "0.5s"};
  struct run_result *d = run_direct("bench/scenarios/ds414slim_nfs_4k_random.yaml", sets, 2);
  ck_assert_msg(!d->failed && d->issued > d->completed, "failed %d, %llu of %llu completed", d->failed,
                (unsigned long long)d->completed, (unsigned long long)d->issued);
  const char *extra[] = {"--set", "time=0.5s", "--set", "workload.runtime=0.5s", NULL};
  struct cli_out r = run_json("bench/scenarios/ds414slim_nfs_4k_random.yaml", extra);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  double abandoned = cli_json_number(r.out, "\"all\": {", "abandoned");
  ck_assert_msg(abandoned > 0 && abandoned <= 32 && d->completed + (uint64_t)abandoned == d->issued,
                "abandoned %g, issued %llu, completed %llu", abandoned, (unsigned long long)d->issued,
                (unsigned long long)d->completed);
  const char *all = strstr(r.out, "\"all\": {");
  const char *first = strstr(r.out, "\"abandoned\"");
  ck_assert_msg(first > all, "abandoned before totals.all: in a direction");
  cli_out_free(&r);
  char path[1024], line[160];
  cli_source_path("bench/scenarios/ds414slim_nfs_4k_random.yaml", path, sizeof path);
  const char *args[] = {"run", path, "--no-ci", "--set", "time=0.5s", "--set", "workload.runtime=0.5s", NULL};
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  snprintf(line, sizeof line, "  %llu client I/Os abandoned: outstanding at the window's end",
           (unsigned long long)(d->issued - d->completed));
  ck_assert_msg(r.status == 0 && strstr(r.out, line), "exit %d, no \"%s\" in\n%s", r.status, line, r.out);
  cli_out_free(&r);
  free(d);
}
END_TEST

/* Payload rate of one 1GbE link at MTU 9000: 125e6 * 8960 / 9038 B/s. */
#define ONE_GBE_MTU9000_MBPS (125.0 * 8960.0 / 9038.0)

START_TEST(test_mpio_failover)
{
  struct cli_out r = run_json("tests/scenarios/mpio-failover.yaml", NULL);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "\"failed\": false") != NULL, "run failed");
  const char *series = strstr(r.out, "\"series_MBps\": [");
  ck_assert_ptr_nonnull(series);
  double first = 0, second = 0;
  ck_assert_int_eq(sscanf(series, "\"series_MBps\": [%lf, %lf", &first, &second), 2);
  ck_assert_msg(first > 1.6 * ONE_GBE_MTU9000_MBPS, "both paths: %g MB/s, want > 1.6 links", first);
  /* The I/Os already on path 1 when it fails (at most 4 of 1 MiB) still
   * complete in the second bin: allow their 4.2 MB above one link. */
  ck_assert_msg(second <= ONE_GBE_MTU9000_MBPS + 4 * 1.048576 && second > 0.8 * ONE_GBE_MTU9000_MBPS,
                "after path 1 fails: %g MB/s, want about one link (%g)", second, ONE_GBE_MTU9000_MBPS);
  cli_out_free(&r);
}
END_TEST

/* The JSON's per-second series is a rate in every bin: the window's last,
 * partial second (a 1.5 s run: [1, 1.5) s) holds half a second of bytes
 * and is divided by that half, as the first (the window opens after the
 * first round) by what it covers; the bins weighted by the time they
 * cover give the window's MB/s. */
START_TEST(test_series_partial_second)
{
  const char *args[] = {"--set", "time=1.5s", "--set", "workload.runtime=1.5s", NULL};
  struct cli_out r = run_json("bench/scenarios/ds414slim_nfs_4k_random.yaml", args);
  double mbps = cli_json_number(r.out, "\"totals\"", "MBps"), start = cli_json_number(r.out, "\"window\"", "start_s");
  double window = cli_json_number(r.out, "\"scenario\"", "window_s");
  const char *series = strstr(r.out, "\"series_MBps\": [");
  ck_assert_ptr_nonnull(series);
  double first = 0, last = 0;
  ck_assert_int_eq(sscanf(series, "\"series_MBps\": [%lf, %lf]", &first, &last), 2);
  ck_assert_msg(fabs(last / mbps - 1.0) < 0.05 && fabs(first / mbps - 1.0) < 0.05,
                "series %.3f, %.3f MB/s vs the window's %.3f", first, last, mbps);
  double weighted = (first * (1.0 - start) + last * (start + window - 1.0)) / window;
  ck_assert_msg(fabs(weighted / mbps - 1.0) < 1e-6, "series weighted %.6f MB/s vs %.6f", weighted, mbps);
  cli_out_free(&r);
}
END_TEST

START_TEST(test_degraded_continues)
{
  struct cli_out r = run_json("tests/scenarios/degraded-raid5.yaml", NULL);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "\"failed\": false") != NULL, "run failed: %s", r.err);
  double ios = cli_json_number(r.out, "\"read\": {", "ios");
  ck_assert_msg(ios > 100, "foreground I/O should continue degraded, got %g I/Os", ios);
  cli_out_free(&r);
}
END_TEST

/* Wall power is the DC load over the supply's efficiency: halving the
 * efficiency doubles the energy, the simulation being otherwise identical. */
START_TEST(test_psu_efficiency_scales_power)
{
  double j[2];
  const char *eff[2] = {"chassis.power_psu_efficiency=1", "chassis.power_psu_efficiency=0.5"};
  for (int k = 0; k < 2; k++) {
    const char *set[] = {"--set", eff[k], NULL};
    struct cli_out r = run_json("tests/scenarios/degraded-raid5.yaml", set);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    j[k] = cli_json_number(r.out, "\"power\": {", "energy_J");
    cli_out_free(&r);
  }
  ck_assert_msg(j[0] > 0 && fabs(j[1] / j[0] - 2) < 1e-9, "energy %g J at efficiency 1, %g J at 0.5", j[0], j[1]);
}
END_TEST

/* Open loop: rate_iops fixes the arrival rate whatever the latency. */
START_TEST(test_open_loop_rate)
{
  const char *extra[] = {"--set", "workload.rate_iops=200", "--set", "workload.bs=64k", "--set",
                         "workload.iodepth=8", "--time", "2s", NULL};
  struct cli_out r = run_json("", extra);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  double iops = cli_json_number(r.out, "\"all\": {", "iops");
  ck_assert_msg(fabs(iops / 200.0 - 1.0) < 0.01, "open loop at 200 IOPS gave %g IOPS", iops);
  /* far below saturation, nothing queues: X * R < the depth limit */
  double mean_ms = cli_json_number(r.out, "\"all\": {", "mean");
  ck_assert_msg(iops * mean_ms / 1e3 < 1.0, "population %g should stay below 1", iops * mean_ms / 1e3);
  cli_out_free(&r);
}
END_TEST

START_TEST(test_iperf_link_rate)
{
  struct cli_out r = run_json("tests/scenarios/iperf-1g.yaml", NULL);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  double mbps = cli_json_number(r.out, "\"write\": {", "MBps");
  double link = 125.0 * 1460.0 / 1538.0;
  ck_assert_msg(fabs(mbps / link - 1.0) < 0.02, "iperf over 1GbE: %g MB/s, link payload %g MB/s", mbps, link);
  ck_assert_msg(strstr(r.out, "\"bottleneck\": {\"resource\": \"net.nas0.rx\"") != NULL ||
                    strstr(r.out, "\"bottleneck\": {\"resource\": \"net.client0.nic0.tx\"") != NULL,
                "the link should be the bottleneck: %.300s", strstr(r.out, "\"bottleneck\""));
  cli_out_free(&r);
}
END_TEST

/* Client page cache: buffered record re-writes run at the client's memory
 * copy rate (4 GB/s here), never faster; without the cache, at the
 * network's. */
START_TEST(test_client_cache_rewrite)
{
  struct cli_out a = run_json("tests/scenarios/client-cache-rewrite.yaml", NULL);
  const char *nocache[] = {"--set", "clients.ram=0B", NULL};
  struct cli_out b = run_json("tests/scenarios/client-cache-rewrite.yaml", nocache);
  ck_assert_msg(a.status == 0 && b.status == 0, "exit %d/%d: %s %s", a.status, b.status, a.err, b.err);
  double cached = cli_json_number(a.out, "\"write\": {", "MBps");
  double uncached = cli_json_number(b.out, "\"write\": {", "MBps");
  ck_assert_msg(cached <= 4000.0 && cached > 10.0 * uncached,
                "record re-write: %g MB/s with the client cache, %g without", cached, uncached);
  ck_assert_msg(uncached < 125.0, "without a client cache the 1GbE link bounds it: %g MB/s", uncached);
  cli_out_free(&a);
  cli_out_free(&b);
}
END_TEST

/* NIC receive processing: with all interrupts on one core (irq_core 0)
 * one ksoftirqd does the work that spreads over per-flow threads with
 * irq_core -1; work is conserved (same cycles per I/O). */
START_TEST(test_softirq_placement)
{
  const char *base[] = {"--set", "clients.count=4", "--set", "network.client_link_rate=1Gbit/s", "--set",
                        "network.mtu=1500", "--set", "workload.rw=write", "--set", "workload.bs=64k",
                        "--time", "1s", "--set", "soc.irq_core=0", NULL};
  struct cli_out one = run_json("", base);
  const char *spread[] = {"--set", "clients.count=4", "--set", "network.client_link_rate=1Gbit/s", "--set",
                          "network.mtu=1500", "--set", "workload.rw=write", "--set", "workload.bs=64k",
                          "--time", "1s", "--set", "soc.irq_core=-1", NULL};
  struct cli_out many = run_json("", spread);
  ck_assert_msg(one.status == 0 && many.status == 0, "exit %d/%d", one.status, many.status);
  double d_one = cli_json_number(one.out, "\"resource\": \"soc.ksoftirqd0\"", "demand_ms_per_io");
  double d_flow = 0.0;
  for (int c = 0; c < 4; c++) {
    char key[64];
    snprintf(key, sizeof key, "\"resource\": \"soc.softirq.c%d.0\"", c);
    d_flow += cli_json_number(many.out, key, "demand_ms_per_io");
  }
  ck_assert_msg(d_one > 0 && fabs(d_flow / d_one - 1.0) < 0.02,
                "softirq demand per I/O: %g ms on one core, %g ms summed over flows", d_one, d_flow);
  ck_assert_msg(strstr(many.out, "soc.ksoftirqd") == NULL, "no ksoftirqd when interrupts are spread");
  cli_out_free(&one);
  cli_out_free(&many);
}
END_TEST

/* smbd CPU demand per I/O (ms) of n clients, each with one 32 KiB read
 * outstanding over its own 1GbE link, summed over their processes. */
static double smbd_demand_ms(int n, const char *ws)
{
  char count[32], wset[64];
  snprintf(count, sizeof count, "clients.count=%d", n);
  snprintf(wset, sizeof wset, "protocol.daemon_working_set=%s", ws);
  const char *args[] = {"--set", count, "--set", "network.client_nics=1", "--set",
                        "network.client_link_rate=1Gbit/s", "--set", "network.mtu=1500", "--set",
                        "workload.bs=32k", "--set", "workload.iodepth=1", "--set", "soc.l2_cache=1MiB",
                        "--set", "soc.misses_in_flight=1", "--set", "soc.dram_latency=59ns", "--set", "soc.dram_bus_width=64",
                        "--set", "soc.dram_transfer_rate=1600MHz", "--set", wset, "--time", "0.5s", NULL};
  struct cli_out r = run_json("", args);
  ck_assert_msg(r.status == 0, "exit %d", r.status);
  double sum = 0.0;
  for (int c = 0; c < n; c++) {
    char key[64];
    snprintf(key, sizeof key, "\"resource\": \"soc.smbd.c%d.0\"", c);
    sum += cli_json_number(r.out, key, "demand_ms_per_io");
  }
  cli_out_free(&r);
  return sum;
}

/* The smbd working-set refill counts the processes that ran between two
 * requests of one process, not those with work at the same moment: 8
 * clients with one read outstanding each take turns (each smbd sleeps
 * until its client's next request, so at most a few have work at once),
 * and between two of its requests the 7 others have touched 256 KiB each:
 * 8 x 256 KiB over a 1 MiB L2, half its lines gone, 128 KiB refilled at
 * 1 GB/s (one 64 B line per 59 + 5 ns) = 131 us more per request.  Two clients (512 KiB) fit: nothing. */
START_TEST(test_smbd_working_set_turns)
{
  double d1 = smbd_demand_ms(1, "256KiB"), d2 = smbd_demand_ms(2, "256KiB");
  double d8 = smbd_demand_ms(8, "256KiB"), d8off = smbd_demand_ms(8, "0B");
  double want_ms = 0.5 * 262144 / 1e9 * 1e3;
  ck_assert_msg(fabs(d2 / d1 - 1.0) < 0.02, "2 clients fit in the L2: %g ms vs %g ms per I/O", d2, d1);
  ck_assert_msg(fabs(d8off / d1 - 1.0) < 0.02, "no working set: 8 clients %g ms vs 1 client %g ms", d8off, d1);
  ck_assert_msg(fabs((d8 - d8off) / want_ms - 1.0) < 0.1, "8 clients take turns: %g ms more per I/O, expected %g",
                d8 - d8off, want_ms);
}
END_TEST

/* Sum of the busy fractions of resources disk0..disk{n-1}. */
static double disks_busy(const char *out, int n)
{
  double sum = 0.0;
  for (int d = 0; d < n; d++) {
    char key[64];
    snprintf(key, sizeof key, "\"resource\": \"disk%d\"", d);
    sum += cli_json_number(out, key, "busy");
  }
  return sum;
}

/* The "all" IOPS of two runs of rel with extra arguments x and y. */
static void run_pair_iops(const char *rel, const char *const *x, const char *const *y, double *xi, double *yi)
{
  struct cli_out a = run_json(rel, x), b = run_json(rel, y);
  *xi = cli_json_number(a.out, "\"all\": {", "iops");
  *yi = cli_json_number(b.out, "\"all\": {", "iops");
  cli_out_free(&a);
  cli_out_free(&b);
}

/* smbd without aio (smb_aio_read_size 0B) sleeps in pread() on each page-cache
 * miss: 4 KiB random reads at QD16 keep one disk read in flight, so the
 * four FIFO teaching drives of a RAID-0 are busy 100 % together (IOPS =
 * 1 / 1.04096 ms, within the CPU and network time between reads), the
 * other 15 requests wait in the socket (Little: X R = 16); with aio the
 * four drives work in parallel.  Writes never sleep (page cache), and a
 * sequential reader whose read-ahead (1 MiB) runs well ahead of its 64 KiB
 * requests mostly hits the cache, so it keeps its speed. */
START_TEST(test_smbd_blocking_read)
{
  const char *rel = "tests/scenarios/smbd-blocking-read.yaml";
  const char *sync_rd[] = {"--set", "protocol.smb_aio_read_size=0B", NULL};
  const char *aio_rd[] = {"--set", "protocol.smb_aio_read_size=1B", NULL};
  struct cli_out s = run_json(rel, sync_rd), a = run_json(rel, aio_rd);
  double s_iops = cli_json_number(s.out, "\"all\": {", "iops");
  double a_iops = cli_json_number(a.out, "\"all\": {", "iops");
  double s_busy = disks_busy(s.out, 4), a_busy = disks_busy(a.out, 4);
  ck_assert_msg(s_busy <= 1.0 && s_busy > 0.9, "blocking smbd: disks busy %.3f together, want one at a time", s_busy);
  ck_assert_msg(s_iops * 1.04096e-3 <= 1.0, "blocking smbd: %.1f IOPS beats one FIFO drive at a time", s_iops);
  ck_assert_msg(a_busy > 3.0 && a_iops > 3.0 * s_iops, "aio smbd: disks busy %.3f, %.1f IOPS vs %.1f blocking",
                a_busy, a_iops, s_iops);
  cli_out_free(&s);
  cli_out_free(&a);
  check_little(rel, sync_rd, 16.0);

  /* Samba's 'aio read size' is a threshold: at 16 KiB the 4 KiB reads
   * still block smbd (the same run as without aio), 32 KiB reads are
   * handed to the pool and the four drives overlap. */
  const char *t4[] = {"--set", "protocol.smb_aio_read_size=16KiB", NULL};
  const char *t32[] = {"--set", "protocol.smb_aio_read_size=16KiB", "--set", "workload.bs=32k", NULL};
  s = run_json(rel, t4);
  a = run_json(rel, t32);
  double t4_iops = cli_json_number(s.out, "\"all\": {", "iops");
  double t32_busy = disks_busy(a.out, 4);
  ck_assert_msg(t4_iops == s_iops, "4 KiB reads below a 16 KiB aio read size: %.3f IOPS, %.3f blocking",
                t4_iops, s_iops);
  ck_assert_msg(t32_busy > 3.0, "32 KiB reads above a 16 KiB aio read size: disks busy %.3f together",
                t32_busy);
  cli_out_free(&s);
  cli_out_free(&a);

  const char *w0[] = {"--set", "protocol.smb_aio_read_size=0B", "--set", "workload.rw=randwrite", NULL};
  const char *w1[] = {"--set", "protocol.smb_aio_read_size=1B", "--set", "workload.rw=randwrite", NULL};
  double s_w, a_w;
  run_pair_iops(rel, w0, w1, &s_w, &a_w);
  ck_assert_msg(s_w == a_w, "writes: %.3f IOPS without aio, %.3f with", s_w, a_w);

  const char *q0[] = {"--set", "protocol.smb_aio_read_size=0B", "--set", "workload.rw=read", "--set", "workload.bs=64k",
                      "--set", "workload.iodepth=4", "--set", "page_cache.readahead=1MiB", NULL};
  const char *q1[] = {"--set", "protocol.smb_aio_read_size=1B", "--set", "workload.rw=read", "--set", "workload.bs=64k",
                      "--set", "workload.iodepth=4", "--set", "page_cache.readahead=1MiB", NULL};
  s = run_json(rel, q0);
  a = run_json(rel, q1);
  double s_q = cli_json_number(s.out, "\"all\": {", "MBps"), a_q = cli_json_number(a.out, "\"all\": {", "MBps");
  ck_assert_msg(s_q >= 0.9 * a_q, "sequential read: %.1f MB/s blocking vs %.1f with aio", s_q, a_q);
  cli_out_free(&s);
  cli_out_free(&a);
}
END_TEST

/* A write below Samba's 'aio write size' is a pwrite() smbd makes itself:
 * its file-system call (sync_call_cycles) is on the process's one thread,
 * so on a SoC of 1e9 reference cycles per second a call of 2e6 cycles caps
 * the connection at 500 writes per second, whatever the disks do; with
 * every write asynchronous (1B) the pool makes the call and the writes go
 * at the page cache's and disks' pace.  A 32 KiB write above a 16 KiB
 * threshold costs smbd nothing more (the same run as with 1B). */
START_TEST(test_smbd_sync_write)
{
  const char *rel = "tests/scenarios/smbd-blocking-read.yaml";
#define SYNC_WRITE_ARGS "--set", "workload.rw=randwrite", "--set", "soc.clock=1GHz", "--set", \
                        "soc.work_per_cycle=1", "--set", "protocol.sync_call_cycles=2e6"
  const char *w0[] = {SYNC_WRITE_ARGS, "--set", "protocol.smb_aio_write_size=0B", NULL};
  const char *w1[] = {SYNC_WRITE_ARGS, "--set", "protocol.smb_aio_write_size=1B", NULL};
  const char *w32[] = {SYNC_WRITE_ARGS, "--set", "protocol.smb_aio_write_size=16KiB", "--set", "workload.bs=32k",
                       NULL};
  const char *w32a[] = {SYNC_WRITE_ARGS, "--set", "protocol.smb_aio_write_size=1B", "--set", "workload.bs=32k",
                        NULL};
#undef SYNC_WRITE_ARGS
  double s_w, a_w, t32, t32a;
  run_pair_iops(rel, w0, w1, &s_w, &a_w);
  ck_assert_msg(s_w > 0.0 && s_w * 2e-3 <= 1.0, "synchronous pwrite: %.1f IOPS beats 2 ms of smbd per write", s_w);
  ck_assert_msg(a_w > 2.0 * s_w, "aio writes %.1f IOPS vs %.1f synchronous", a_w, s_w);
  run_pair_iops(rel, w32, w32a, &t32, &t32a);
  ck_assert_msg(t32 == t32a, "32 KiB writes above a 16 KiB aio write size: %.3f IOPS, %.3f all async", t32, t32a);
}
END_TEST

/* Pipelined SMB: a 1 MiB request's data streams in 64 KiB pieces, so the
 * wire, the receive softirq and smbd's copy overlap instead of following
 * each other (store-and-forward, stream_segment 0B).  At QD1 on the
 * default DS2015xs (10GbE, MTU 9000, catalogue costs) the latency falls by
 * at least half a 1 MiB wire time, and no request beats the wire alone. */
START_TEST(test_smb_streaming_overlaps)
{
  const double wire_s = 1048576.0 * 8.0 / 10e9; /* 1 MiB at 10 Gbit/s, framing aside */
  const char *dirs[] = {"read", "write"};
  for (int d = 0; d < 2; d++) {
    char rw[32];
    snprintf(rw, sizeof rw, "workload.rw=%s", dirs[d]);
    const char *saf[] = {"--uncalibrated", "--set", "protocol.stream_segment=0B", "--set", rw,
                         "--set", "workload.iodepth=1", "--time", "0.5s", NULL};
    const char *str[] = {"--uncalibrated", "--set", "protocol.stream_segment=64KiB", "--set", rw,
                         "--set", "workload.iodepth=1", "--time", "0.5s", NULL};
    struct cli_out a = run_json("", saf), b = run_json("", str);
    double la = cli_json_number(a.out, "\"all\": {", "mean") / 1e3;
    double lb = cli_json_number(b.out, "\"all\": {", "mean") / 1e3;
    ck_assert_msg(lb < la - 0.5 * wire_s, "%s: streamed %.3f ms vs store-and-forward %.3f ms", dirs[d],
                  lb * 1e3, la * 1e3);
    ck_assert_msg(lb > wire_s, "%s: streamed %.3f ms beats the wire's %.3f ms", dirs[d], lb * 1e3, wire_s * 1e3);
    cli_out_free(&a);
    cli_out_free(&b);
  }
}
END_TEST

/* LIO's iscsi_trx takes a write's Data-Out as it arrives (iscsit_get_rx_pdu
 * one PDU at a time), so at QD1 a 1 MiB write (default DS2015xs, iSCSI,
 * catalogue costs) costs the wire plus one piece of trx's work, not the
 * wire and then all of it: at least half a wire time below
 * store-and-forward (stream_segment 0B), never below the wire. */
START_TEST(test_iscsi_data_out_streams)
{
  const double wire_s = 1048576.0 * 8.0 / 10e9;
  double lat[2];
  const char *segs[] = {"protocol.stream_segment=0B", "protocol.stream_segment=64KiB"};
  for (int i = 0; i < 2; i++) {
    const char *args[] = {"--uncalibrated", "--set", "protocol.kind=iscsi", "--set", "workload.rw=write",
                          "--set", "workload.iodepth=1", "--set", segs[i], "--time", "0.5s", NULL};
    struct cli_out r = run_json("", args);
    lat[i] = cli_json_number(r.out, "\"all\": {", "mean") / 1e3;
    cli_out_free(&r);
  }
  ck_assert_msg(lat[1] < lat[0] - 0.5 * wire_s, "streamed %.3f ms vs store-and-forward %.3f ms", lat[1] * 1e3,
                lat[0] * 1e3);
  ck_assert_msg(lat[1] > wire_s, "streamed %.3f ms beats the wire's %.3f ms", lat[1] * 1e3, wire_s * 1e3);
}
END_TEST

/* smbd reads the next request from its socket after each reply it puts
 * there, before the other completed reads (smbd_smb2_request_next_incoming):
 * at QD4 1 MiB reads (DS2015xs, 10GbE, one client) a READ's pread starts
 * while the data of the others is copied, so a read latency added in the
 * storage (an encrypted folder's decryption on an engine with 30-300 us of
 * setup) hides behind smbd's copies and the read stays smbd-bound at the
 * plain read's rate.  Served strictly in arrival order instead, the four
 * requests move in a convoy (four copies, then four reads together with
 * smbd idle): 300 us cost about 6 %. */
static double smb_qd4_read_MBps(const char *setup, double *smbd_busy)
{
  char st[64];
  snprintf(st, sizeof st, "soc.crypto_engine_setup=%s", setup ? setup : "10us");
  const char *enc = setup ? "encryption.enabled=1" : "encryption.enabled=0";
  const char *args[] = {"--set", "workload.iodepth=4", "--set", enc, "--set", "soc.crypto_engine_rate=100GB/s",
                        "--set", st, "--time", "1s", NULL};
  struct cli_out r = run_json("", args);
  double mbps = cli_json_number(r.out, "\"all\": {", "MBps");
  *smbd_busy = cli_json_number(r.out, "\"resource\": \"soc.smbd.c0.0\"", "busy");
  cli_out_free(&r);
  return mbps;
}

START_TEST(test_smb_read_latency_hides)
{
  double b0, b;
  double plain = smb_qd4_read_MBps(NULL, &b0);
  ck_assert_msg(b0 > 0.98, "plain QD4 read: smbd busy %.3f, want the bound", b0);
  const char *setups[] = {"30us", "100us", "300us"};
  for (int i = 0; i < 3; i++) {
    double enc = smb_qd4_read_MBps(setups[i], &b);
    ck_assert_msg(enc >= 0.99 * plain && b > 0.98, "decrypt setup %s: %.1f MB/s (smbd busy %.3f) vs plain %.1f",
                  setups[i], enc, b, plain);
  }
}
END_TEST

/* A streamed message pipelines its pieces as one TCP stream does, as
 * many on the wire as the connection's TCP window holds (one ring for a
 * read's reply and a write's data): 1 MiB reads or writes at QD4 (DS2015xs
 * SMB, one client) at a route latency of 200 us keep their rate at no
 * latency (two pieces at a time held reads to 271 IOPS, 24 %, and writes
 * to 778, 69 %), and a 64 KiB window binds them (about 50 IOPS). */
static double smb_qd4_iops(const char *rw, const char *latency, const char *window)
{
  char rs[64], lt[64], wn[64];
  snprintf(rs, sizeof rs, "workload.rw=%s", rw);
  snprintf(lt, sizeof lt, "network.link_latency=%s", latency);
  snprintf(wn, sizeof wn, "network.tcp_window=%s", window);
  const char *args[] = {"--set", rs, "--set", "workload.iodepth=4", "--set", lt, "--set", wn, "--time", "1s", NULL};
  struct cli_out r = run_json("", args);
  double iops = cli_json_number(r.out, "\"all\": {", "iops");
  cli_out_free(&r);
  return iops;
}

START_TEST(test_smb_stream_window)
{
  const char *rw[] = {"read", "write"};
  for (int i = 0; i < 2; i++) {
    double near = smb_qd4_iops(rw[i], "0us", "4MiB");
    double far = smb_qd4_iops(rw[i], "200us", "4MiB");
    double small = smb_qd4_iops(rw[i], "200us", "64KiB");
    ck_assert_msg(far >= 0.97 * near, "%s at 200 us: %.0f IOPS vs %.0f at no latency", rw[i], far, near);
    ck_assert_msg(small < 0.5 * far, "%s, 64 KiB window: %.0f IOPS vs %.0f with 4 MiB", rw[i], small, far);
  }
}
END_TEST

/* Windows read-ahead on a buffered copy (clients.os windows,
 * readahead_requests): the cache
 * manager keeps reads in flight beyond the copy's own 1 MiB read, so a
 * folder of 64 MiB videos reads back at least 1.3x faster with 2 reads
 * ahead than with none (DS2015xs over 10GbE: one read at a time leaves
 * the wire idle while smbd and the storage work).  The read-ahead runs on
 * the open file: with 1 MiB files (one read each) there is nothing to
 * read ahead, the tool opens the next file when the last one is in, and
 * the copy is the same as without it. */
static double copy_read_MBps(const char *file_size, const char *ra)
{
  char fs[64], rs[64];
  snprintf(fs, sizeof fs, "workload.video_file_size=%s", file_size);
  snprintf(rs, sizeof rs, "clients.readahead_requests=%s", ra);
  const char *args[] = {"--set", "workload.sets=videos", "--set", "workload.folder_size=256MiB",
                        "--set", fs, "--set", rs, NULL};
  struct cli_out r = run_json("validation/scenarios/ds2015xs-das-filecopy.yaml", args);
  double mbps = cli_json_number(r.out, "\"step\": \"filecopy-videos-read\"", "MBps");
  cli_out_free(&r);
  return mbps;
}

/* The client OS's read-ahead is one mechanism for every client: the
 * Linux 2.6.32 NFS client (clients.os linux-2.6.32: 15 READs of rsize
 * ahead) lifts a QD1 buffered sequential read of 128 KiB records over
 * 1GbE towards the wire (the next READs are in flight while one is on the
 * wire), and a backward read gets none (ondemand_readahead finds no
 * stream and no history before it): no faster with it. */
/* One iozone pass over a 32 MiB file in 128 KiB records on the DS2015xs
 * NFS scenario with one key set (read-ahead, rsize): its MB/s. */
static double iozone_MBps(const char *test, const char *key, const char *value)
{
  char ts[64], kv[96], step[96];
  snprintf(ts, sizeof ts, "workload.tests=%s", test);
  snprintf(kv, sizeof kv, "%s=%s", key, value);
  const char *args[] = {"--set", ts, "--set", kv, "--set", "workload.min_file=32MiB", "--set",
                        "workload.max_file=32MiB", "--set", "workload.min_record=128KiB", "--set",
                        "workload.max_record=128KiB", "--set", "workload.sample=1", NULL};
  struct cli_out r = run_json("validation/scenarios/ds2015xs-iozone-nfs.yaml", args);
  snprintf(step, sizeof step, "\"step\": \"iozone-%s-f32MiB-r128KiB\"", test);
  double mbps = cli_json_number(r.out, step, "MBps");
  cli_out_free(&r);
  return mbps;
}

START_TEST(test_nfs_client_readahead)
{
  const char *ra = "clients.readahead_requests";
  double qd1 = iozone_MBps("read", ra, "0"), ahead = iozone_MBps("read", ra, "15");
  /* 1GbE's TCP payload at MTU 1500 (1448 of 1538 bytes) is 117.7 MB/s; the
   * 32 MiB file is 256 records, and a window from the first completion to
   * the last holds all 256 while the first one's transfer began before it:
   * up to two records' worth (2/256) above the link on a run this short. */
  double link = 125.0 * 1448.0 / 1538.0;
  ck_assert_msg(ahead > 1.15 * qd1 && ahead < link * (1.0 + 2.0 / 256.0),
                "sequential: %.1f MB/s with read-ahead vs %.1f at QD1 (1GbE carries %.1f)", ahead, qd1, link);
  /* A backward read gets no read-ahead: with it each read is a standalone
   * one that fetches its own pages only (client_pages.c), the same READs
   * as without, plus the copy out of the page cache (128 KiB at the
   * scenario's 5 GB/s: 26 us a record of about 2 ms): no faster, at most
   * 2 % slower. */
  double back0 = iozone_MBps("backward-read", ra, "0"), back = iozone_MBps("backward-read", ra, "15");
  ck_assert_msg(back <= back0 && back >= 0.98 * back0, "backward: %.3f MB/s with read-ahead vs %.3f without", back,
                back0);
}
END_TEST

/* An application read larger than the mount's rsize goes as
 * ceil(read / rsize) READ RPCs (Linux nfs_pageio), each parsed, served
 * and answered by an nfsd of its own: one 1 MiB read at rsize 32 KiB is
 * 32 RPCs, paying 32 per-request costs where rsize 1 MiB pays one, and it
 * completes with its last reply, no sooner than the single RPC. */
static void nfs_1m_read(const char *rsize, double *nfsd_s_per_io, double *lat_s)
{
  const char *sets[] = {"workload.bs", "1MiB", "workload.iodepth", "1", "time", "1s", "workload.runtime", "1s",
                        "protocol.nfs_rsize", rsize};
  struct run_result *r = run_direct("bench/scenarios/ds414slim_nfs_4k_random.yaml", sets, 5);
  double busy = 0;
  for (int i = 0; i < r->nres; i++)
    if (!strncmp(r->res[i].name, "soc.nfsd", 8))
      busy += r->res[i].busy_s;
  ck_assert_msg(r->all.ios > 10, "rsize %s: %llu reads", rsize, (unsigned long long)r->all.ios);
  *nfsd_s_per_io = busy / (double)r->all.ios;
  *lat_s = r->all.lat_mean_s;
  free(r);
}

START_TEST(test_nfs_rsize_rpcs)
{
  double small_cpu, small_lat, big_cpu, big_lat;
  nfs_1m_read("32KiB", &small_cpu, &small_lat);
  nfs_1m_read("1MiB", &big_cpu, &big_lat);
  ck_assert_msg(small_cpu > 1.3 * big_cpu, "nfsd per 1 MiB read: %.4f ms at rsize 32 KiB vs %.4f ms at 1 MiB",
                small_cpu * 1e3, big_cpu * 1e3);
  ck_assert_msg(small_lat >= big_lat, "1 MiB read: %.4f ms at rsize 32 KiB vs %.4f ms at 1 MiB", small_lat * 1e3,
                big_lat * 1e3);
  /* iozone's backward read (no read-ahead): 128 KiB records as 16, 4 or 1 READs */
  const char *rs = "protocol.nfs_rsize";
  double b8 = iozone_MBps("backward-read", rs, "8KiB"), b32 = iozone_MBps("backward-read", rs, "32KiB"),
         b1m = iozone_MBps("backward-read", rs, "1MiB");
  ck_assert_msg(b8 != b32 && b32 != b1m, "backward read: %.3f, %.3f, %.3f MB/s at rsize 8K, 32K, 1M", b8, b32, b1m);
}
END_TEST

START_TEST(test_copy_readahead)
{
  double none = copy_read_MBps("64MiB", "0"), ahead = copy_read_MBps("64MiB", "2");
  ck_assert_msg(ahead > 1.3 * none, "64 MiB files: %.1f MB/s with 2 reads ahead vs %.1f without", ahead, none);
  double one_none = copy_read_MBps("1MiB", "0"), one_ahead = copy_read_MBps("1MiB", "2");
  ck_assert_msg(fabs(one_ahead / one_none - 1.0) < 1e-9,
                "1 MiB files (one read each): %.3f MB/s with read-ahead vs %.3f without", one_ahead, one_none);
}
END_TEST

/* A copy tool's CreateFile and CloseHandle (filecopy file_handles): each
 * file's open (SMB2 CREATE, cycles_per_open) and close are requests of
 * their own, answered before the copy goes on.  64 files of 1 MiB read
 * back are 192 requests: per file an open, its read, a close; no request
 * overlaps another (one in flight on average, without the tool's own time
 * between files, clients.file_gap: test_copy_file_gap); the bytes are the
 * data's. */
START_TEST(test_copy_file_handles)
{
  const char *args[] = {"--set", "workload.sets=videos", "--set", "workload.folder_size=64MiB",
                        "--set", "workload.video_file_size=1MiB", "--set", "clients.file_gap=0s", NULL};
  struct cli_out r = run_json("validation/scenarios/ds2015xs-das-filecopy.yaml", args);
  const char *step = "\"step\": \"filecopy-videos-read\"";
  double ios = cli_json_number(r.out, step, "ios"), bytes = cli_json_number(r.out, step, "bytes");
  ck_assert_msg(ios == 192 && bytes == 64.0 * 1048576, "%.0f requests, %.0f bytes: want 192 (open, read, close "
                "per file) and 64 MiB", ios, bytes);
  double mean_ms = cli_json_number(r.out, step, "mean"), window_s = cli_json_number(r.out, step, "window_s");
  ck_assert_msg(fabs(ios * mean_ms / 1e3 / window_s - 1.0) < 0.02,
                "%.0f requests x %.4f ms in a %.4f s window: they overlap", ios, mean_ms, window_s);
  cli_out_free(&r);
}
END_TEST

/* A copy tool's own time per file (clients.file_gap): before it opens
 * each file it works on the client with nothing outstanding, so the NAS
 * waits: 64 files of 1 MiB read back take 64 gaps longer, with the same
 * requests, bytes and per-request latency (the gap is not an I/O's time);
 * on a LUN (iSCSI, the client's own file system opens the files) too. */
static void copy_gap_run(const char *kind, const char *gap, double *window_s, double *ios, double *mean_ms)
{
  char ks[64], gs[64];
  snprintf(ks, sizeof ks, "protocol.kind=%s", kind);
  snprintf(gs, sizeof gs, "clients.file_gap=%s", gap);
  const char *args[] = {"--set", "workload.sets=photos", "--set", "workload.folder_size=64MiB", "--set",
                        "workload.photo_file_size=1MiB", "--set", ks, "--set", gs, NULL};
  struct cli_out r = run_json("validation/scenarios/ds2015xs-das-filecopy.yaml", args);
  const char *step = "\"step\": \"filecopy-photos-read\"";
  *window_s = cli_json_number(r.out, step, "window_s");
  *ios = cli_json_number(r.out, step, "ios");
  *mean_ms = cli_json_number(r.out, step, "mean");
  cli_out_free(&r);
}

START_TEST(test_copy_file_gap)
{
  const char *kinds[] = {"smb", "iscsi"};
  for (int k = 0; k < 2; k++) {
    double w0, n0, m0, w2, n2, m2;
    copy_gap_run(kinds[k], "0s", &w0, &n0, &m0);
    copy_gap_run(kinds[k], "2ms", &w2, &n2, &m2);
    ck_assert_msg(fabs((w2 - w0) - 64 * 2e-3) < 1e-3 * 64 * 2e-3,
                  "%s: window %.6f s with a 2 ms gap per file vs %.6f s without: want 64 gaps more", kinds[k], w2, w0);
    ck_assert_msg(n2 == n0 && fabs(m2 / m0 - 1.0) < 1e-6, "%s: %.0f requests of %.6f ms vs %.0f of %.6f ms", kinds[k],
                  n2, m2, n0, m0);
  }
}
END_TEST

/* The SoC team's what-if: an AL514 with 8 cores at 2 GHz and SMB
 * multichannel spreads one client over 8 connections (4 per NIC pair),
 * each with its own smbd thread, so the bottleneck moves from smbd's core
 * to the NAS's 10GbE ports, and the report says so.  A mechanism at the
 * catalogue's values (--uncalibrated): the shipped calibration's cheaper
 * smbd request makes the base faster, and the doubling is about the
 * mechanism, not the fitted cost. */
START_TEST(test_whatif_moves_bottleneck)
{
  const char *whatif[] = {"--uncalibrated", "--set", "soc.cores=8", "--set", "soc.clock=2GHz",
                          "--set", "protocol.multichannel=1", "--set", "workload.iodepth=16", NULL};
  const char *base[] = {"--uncalibrated", "--set", "workload.iodepth=16", NULL};
  struct cli_out a = run_json("", base), b = run_json("", whatif);
  ck_assert_msg(a.status == 0 && b.status == 0, "exit %d/%d", a.status, b.status);
  ck_assert_msg(strstr(a.out, "\"bottleneck\": {\"resource\": \"soc.smbd.c0.0\"") != NULL,
                "AL514 as shipped: smbd's core binds: %.200s", strstr(a.out, "\"bottleneck\""));
  ck_assert_msg(strstr(b.out, "\"bottleneck\": {\"resource\": \"net.nas") != NULL,
                "8 cores, 2 GHz, multichannel: the NAS ports bind: %.200s", strstr(b.out, "\"bottleneck\""));
  double x0 = cli_json_number(a.out, "\"read\": {", "MBps"), x1 = cli_json_number(b.out, "\"read\": {", "MBps");
  ck_assert_msg(x1 > 2.0 * x0, "the what-if should more than double throughput: %g -> %g MB/s", x0, x1);
  cli_out_free(&a);
  cli_out_free(&b);
}
END_TEST

/* A user's fio job file runs against a scenario and comes back shaped like
 * fio's own JSON: one entry per stonewall group, bw in KiB/s, clat_ns. */
START_TEST(test_fio_file_fio_json)
{
  char job[1024];
  cli_source_path("tests/fio/basic.fio", job, sizeof job);
  const char *args[] = {"run", "--fio", job, "--time", "1s", "--output-format=fio-json", NULL};
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.err, "fio option 'ioengine' is accepted but not modelled") != NULL, "%s", r.err);
  ck_assert_msg(strstr(r.out, "\"jobname\": \"rand-read-4k\"") && strstr(r.out, "\"jobname\": \"seq-write-1m\""),
                "both stonewall groups: %.300s", r.out);
  double iops = cli_json_number(r.out, "\"jobname\": \"rand-read-4k\"", "iops");
  double bw_kib = cli_json_number(r.out, "\"jobname\": \"rand-read-4k\"", "bw");
  double bw_bytes = cli_json_number(r.out, "\"jobname\": \"rand-read-4k\"", "bw_bytes");
  ck_assert_msg(iops > 0 && fabs(bw_kib * 1024.0 / bw_bytes - 1.0) < 1e-3, "bw %g KiB/s vs %g B/s", bw_kib, bw_bytes);
  ck_assert_msg(fabs(bw_bytes / (iops * 4096.0) - 1.0) < 1e-6, "4 KiB reads: bw %g B/s = iops %g x 4096", bw_bytes, iops);
  ck_assert_msg(strstr(r.out, "\"clat_ns\"") && strstr(r.out, "\"99.000000\""), "clat_ns percentiles missing");
  cli_out_free(&r);
}
END_TEST

/* LACP failover: 8 initiators saturate both 10GbE ports of a DS2015xs
 * bond (NAS->client).  Port 0 dies at 0.5 s of 2 s: its flows stall until
 * the link monitor (100 ms) takes it out, then all rehash onto port 1, so
 * the run carries 0.5 s at two ports and 1.5 s at one: 0.625 of the
 * faultless MB/s.  Back up at 1 s (rejoining 100 ms later): about
 * (1 + 0.6 + 1.8) / 4 = 0.85.  Every I/O completes (exit 0). */
/* Run tests/scenarios/lacp-failover.yaml with its faults line replaced
 * (rw: the workload's rw and bs instead, when not NULL). */
static struct cli_out run_lacp_rw(const char *faults, const char *rw)
{
  char src[1024], text[4096];
  cli_source_path("tests/scenarios/lacp-failover.yaml", src, sizeof src);
  FILE *f = fopen(src, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char *line = strstr(text, "faults: [");
  ck_assert_ptr_nonnull(line);
  char *eol = strchr(line, '\n');
  char path[] = "/tmp/lacp_scnXXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *o = fdopen(fd, "w");
  fprintf(o, "%.*sfaults: %s%s", (int)(line - text), text, faults, eol);
  fclose(o);
  const char *plain[] = {"run", "--json", path, NULL};
  const char *mixed[] = {"run", "--json", path, "--set", rw, "--set", "workload.bs=64k", "--no-ci", NULL};
  const char **args = rw ? mixed : plain;
  struct cli_out r;
  ck_assert_int_eq(cli_exec(NULL, args, &r), 0);
  unlink(path);
  return r;
}

static struct cli_out run_lacp(const char *faults)
{
  return run_lacp_rw(faults, NULL);
}

START_TEST(test_lacp_failover)
{
  struct cli_out a = run_lacp("[]"), d = run_lacp("[{kind: path_down, target: 0, at: 0.5s}]"),
                 u = run_lacp("[{kind: path_down, target: 0, at: 0.5s}, {kind: path_up, target: 0, at: 1s}]");
  ck_assert_msg(a.status == 0 && d.status == 0 && u.status == 0, "exit %d/%d/%d: %s%s", a.status, d.status,
                u.status, d.err, u.err);
  double ma = cli_json_number(a.out, "\"all\": {", "MBps"), md = cli_json_number(d.out, "\"all\": {", "MBps"),
         mu = cli_json_number(u.out, "\"all\": {", "MBps");
  double busy0 = cli_json_number(a.out, "\"resource\": \"net.nas0.tx\"", "busy");
  double busy1 = cli_json_number(a.out, "\"resource\": \"net.nas1.tx\"", "busy");
  /* Link-bound: both ports nearly always busy (the first round and the
   * read-ahead's 1 MiB bios leave a few % idle) and a port the bottleneck. */
  ck_assert_msg(busy0 > 0.95 && busy1 > 0.95, "faultless run not link-bound: ports busy %.3f, %.3f", busy0, busy1);
  /* The ports' payload rate (2 x 1239 MB/s at MTU 9000) and the
   * DS2015xs's page-cache copies over its memory bus (2324 1 MiB reads/s)
   * are within 2 %: measured over the window alone (no first round, no
   * drain), the memory bus is the tighter one by a hair. */
  ck_assert_msg(strstr(a.out, "\"bottleneck\": {\"resource\": \"net.nas") != NULL ||
                    strstr(a.out, "\"bottleneck\": {\"resource\": \"soc.memory") != NULL,
                "faultless run's bottleneck is neither a NAS port nor the memory bus");
  ck_assert_msg(fabs(md / ma - 0.625) < 0.03, "port 0 down at 0.5 s: %.1f of %.1f MB/s (%.3f), want 0.625", md, ma,
                md / ma);
  ck_assert_msg(fabs(mu / ma - 0.85) < 0.04, "down 0.5..1 s: %.1f of %.1f MB/s (%.3f), want about 0.85", mu, ma,
                mu / ma);
  double d1 = cli_json_number(d.out, "\"resource\": \"net.nas1.tx\"", "busy");
  ck_assert_msg(d1 > 0.97, "the survivor carries the rehashed flows: port 1 busy %.3f", d1);
  cli_out_free(&a);
  cli_out_free(&d);
  cli_out_free(&u);
}
END_TEST

/* Small PDUs (iSCSI responses to writes) that would start on the dead
 * member while the bond has not yet noticed wait for the rehash and then
 * go at the survivor's rate: the run ends with its window, as the
 * faultless one does (it once ran on to 48 s: a 48 B PDU started on a
 * link throttled to 1 B/s kept that rate). */
START_TEST(test_lacp_failover_small_pdus)
{
  struct cli_out a = run_lacp_rw("[]", "workload.rw=randrw"),
                 d = run_lacp_rw("[{kind: path_down, target: 0, at: 0.5s}]", "workload.rw=randrw");
  ck_assert_msg(a.status == 0 && d.status == 0, "exit %d/%d: %s", a.status, d.status, d.err);
  double sa = cli_json_number(a.out, "{", "simulated_s"), sd = cli_json_number(d.out, "{", "simulated_s");
  ck_assert_msg(sd < sa + 0.2, "path_down run simulated %.3f s, faultless %.3f s", sd, sa);
  cli_out_free(&a);
  cli_out_free(&d);
}
END_TEST

/* Occupancy: the DS1819+ 16 jobs x QD16 4 KiB CIFS random read bench.
 * Without aio, smbd sleeps in pread() on each page-cache miss with 255
 * requests waiting behind it: it holds a request all of the window while
 * its CPU is nearly idle (one 4 KiB read per ~6 ms of 8 disks' seeks at
 * most one at a time).  With aio it holds a request only while it runs
 * or waits for a core.  Every thread's occupancy covers its busy time and
 * never exceeds the window. */
START_TEST(test_thread_occupancy)
{
  const char *rel = "bench/scenarios/ds1819plus_cifs_4k_16t16q.yaml";
  const char *blk[] = {"time", "1s", "protocol.smb_aio_read_size", "0B"};
  const char *aio[] = {"time", "1s", "protocol.smb_aio_read_size", "1B"};
  struct run_result *b = run_direct(rel, blk, 2), *a = run_direct(rel, aio, 2);
  ck_assert_msg(!b->failed && !a->failed, "runs failed: %s / %s", b->failure, a->failure);
  const struct res_resource *sb = find_res(b, "soc.smbd.c0.0"), *sa = find_res(a, "soc.smbd.c0.0");
  ck_assert_msg(sb->occupied_s > 0.97 * b->window_s && sb->occupied_s <= b->window_s * (1 + 1e-9),
                "blocking smbd occupied %.4f s of a %.4f s window", sb->occupied_s, b->window_s);
  ck_assert_msg(sb->busy_s < 0.05 * b->window_s, "blocking smbd CPU busy %.4f s of %.4f s", sb->busy_s,
                b->window_s);
  ck_assert_msg(sa->occupied_s < 0.5 * a->window_s, "aio smbd occupied %.4f s of %.4f s", sa->occupied_s,
                a->window_s);
  for (int k = 0; k < 2; k++) {
    const struct run_result *r = k ? a : b;
    int threads = 0;
    for (int i = 0; i < r->nres; i++) {
      const struct res_resource *x = &r->res[i];
      if (x->kind != RES_THREAD)
        continue;
      threads++;
      ck_assert_msg(x->occupied_s >= x->busy_s * (1 - 1e-9) && x->occupied_s <= r->window_s * (1 + 1e-9),
                    "%s: occupied %.6f s, busy %.6f s, window %.4f s", x->name, x->occupied_s, x->busy_s,
                    r->window_s);
    }
    ck_assert_msg(threads >= 6, "%d threads accounted", threads);
  }
  free(a);
  free(b);

  /* nfsd blocks on the file system too: a thread of the pool holds a
   * request from pickup to reply. */
  const char *nfs[] = {"time", "0.5s"};
  struct run_result *n = run_direct("bench/scenarios/ds414slim_nfs_4k_random.yaml", nfs, 1);
  double held = 0, busy = 0;
  for (int i = 0; i < n->nres; i++)
    if (!strncmp(n->res[i].name, "soc.nfsd", 8)) {
      held += n->res[i].occupied_s;
      busy += n->res[i].busy_s;
    }
  ck_assert_msg(held > 2.0 * busy && held > 0, "nfsd pool: occupied %.4f s, busy %.4f s", held, busy);
  free(n);
}
END_TEST

/* ---- the flow model of the client<->NAS transfers (sim/engine/flow.h) ---- */

struct flow_probe {
  double now, end[8];
};

static void flow_probe_done(void *ctx, void *tag)
{
  struct flow_probe *p = ctx;
  p->end[*(int *)tag] = p->now;
}

/* Start flow i of sizes/starts over constraints cons at its time, process
 * every event: the end times into p->end. */
static void flow_probe_run(struct flow_net *fn, struct flow_probe *p, int n, const double *size, const double *start,
                           const int *cons, int ncons, double lat, double bound)
{
  static int ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int next = 0;
  for (;;) {
    double t = flow_next_s(fn), ts = next < n ? start[next] : INFINITY;
    if (isinf(t) && isinf(ts))
      break;
    p->now = ts <= t ? ts : t;
    if (ts <= t) {
      ck_assert_int_eq(flow_start(fn, ts, size[next], cons, ncons, lat, lat, bound, &ids[next]), 0);
      next++;
    } else
      flow_advance(fn, t, flow_probe_done, p);
  }
}

/* CM02 as SimGrid 3.32 computes it (network/model CM02, crosstraffic off):
 * hosts a -> b over two 1e9 B/s SPLITDUPLEX links of 10 us each, six
 * transfers started at the times below; the end times SimGrid printed
 * (a probe with sg_mailbox_put per transfer).  Latency first, then max-min
 * sharing; a 0-byte transfer takes the latency. */
/* A connection's messages pipeline on the wire (chan.c: as many as the TCP
 * window and the posted receives allow, replies sent without waiting for
 * them to be through): with 64 outstanding 4 KiB reads the 1GbE link binds,
 * whatever the route latency.  One message at a time per direction gave
 * 16.7k IOPS at 10 us links and 4.2k at 100 us (one per wire time + latency). */
START_TEST(test_stream_pipelines)
{
  /* At the catalogue's values (--uncalibrated): the test is about the
   * wire's pipelining, so the daemons must not bind first (the shipped
   * calibration's LIO per-command cost makes iscsi_ttx the limit at 4 KiB). */
  const char *fast[] = {"--uncalibrated", "--set", "network.link_latency=10us", NULL};
  const char *slow[] = {"--uncalibrated", "--set", "network.link_latency=100us", NULL};
  struct cli_out a = run_json("tests/scenarios/iscsi-pipelined.yaml", fast);
  struct cli_out b = run_json("tests/scenarios/iscsi-pipelined.yaml", slow);
  double ia = cli_json_number(a.out, "\"all\": {", "iops"), ib = cli_json_number(b.out, "\"all\": {", "iops");
  ck_assert_msg(strstr(a.out, "\"bottleneck\": {\"resource\": \"net.client0.nic0.rx\"") != NULL ||
                    strstr(a.out, "\"bottleneck\": {\"resource\": \"net.nas0.tx\"") != NULL,
                "the link should bind: %.200s", strstr(a.out, "\"bottleneck\""));
  ck_assert_msg(fabs(ib / ia - 1.0) < 0.02, "10 us links %g IOPS, 100 us links %g IOPS: the route latency bounds the stream", ia, ib);
  cli_out_free(&a);
  cli_out_free(&b);
}
END_TEST

/* LIO's command window (MaxCmdSN): a session has iscsi_cmdsn_depth
 * commands at the target and the initiator holds the rest, so 64
 * outstanding through a window of 8 reach the drives as 8 outstanding do
 * (the same rate), the client waits the difference (Little's law on all
 * 64), and a window of 64 lets the drives' NCQ reorder 8 times as many. */
START_TEST(test_iscsi_session_window)
{
  const char *w8[] = {"--set", "protocol.iscsi_cmdsn_depth=8", NULL};
  const char *w64[] = {"--set", "protocol.iscsi_cmdsn_depth=64", NULL};
  const char *qd8[] = {"--set", "workload.iodepth=8", NULL};
  const char *scen = "tests/scenarios/iscsi-session-window.yaml";
  struct cli_out a = run_json(scen, w8), b = run_json(scen, w64), c = run_json(scen, qd8);
  ck_assert_msg(a.status == 0 && b.status == 0 && c.status == 0, "exit %d/%d/%d: %s", a.status, b.status,
                c.status, a.err);
  double ia = cli_json_number(a.out, "\"all\": {", "iops"), ib = cli_json_number(b.out, "\"all\": {", "iops");
  double ic = cli_json_number(c.out, "\"all\": {", "iops");
  double ma = cli_json_number(a.out, "\"all\": {", "mean");
  ck_assert_msg(fabs(ia / ic - 1.0) < 0.1, "QD64 in a window of 8: %g IOPS, QD8: %g IOPS", ia, ic);
  ck_assert_msg(fabs(ia * ma / 1e3 / 64.0 - 1.0) < 0.05, "window 8: X*R = %g x %g ms, want 64", ia, ma);
  ck_assert_msg(ib > 1.5 * ia, "window 64: %g IOPS, window 8: %g IOPS: the drives should reorder more", ib, ia);
  cli_out_free(&a);
  cli_out_free(&b);
  cli_out_free(&c);
}
END_TEST

START_TEST(test_flow_matches_cm02)
{
  struct flow_net *fn = flow_net_create(2);
  ck_assert_ptr_nonnull(fn);
  flow_cons_set(fn, 0, 1e9);
  flow_cons_set(fn, 1, 1e9);
  const double size[6] = {1e6, 5e5, 2e5, 0, 8000, 3e6}, start[6] = {0, 1e-4, 3e-4, 4e-4, 4.1e-4, 5e-4};
  const double simgrid[6] = {0.002464, 0.001664, 0.001064, 0.00042, 0.000462, 0.004728};
  const int cons[2] = {0, 1};
  struct flow_probe p = {0};
  flow_probe_run(fn, &p, 6, size, start, cons, 2, 2e-5, 4194304.0 / (2 * 2e-5) < 1e9 ? 4194304.0 / (2 * 2e-5) : 1e9);
  for (int i = 0; i < 6; i++)
    ck_assert_msg(fabs(p.end[i] - simgrid[i]) < 1e-12, "flow %d ends at %.12g s, SimGrid %.12g s", i, p.end[i], simgrid[i]);
  flow_net_destroy(fn);
}
END_TEST

/* Max-min over a star: A crosses the port (0) and a slow NIC (1, 0.3e9),
 * B the port and a NIC (2) it shares with C; D on the port has its own cap
 * (TCP-gamma): D 0.1e9, A 0.3e9 by its NIC, B and C half of NIC 2 each,
 * the port then has 0.1e9 spare.  A lone flow under a bound takes latency
 * + size / bound. */
/* Transfers due at one instant end the last started first, as SimGrid's
 * (three 8000 B puts started 0, 1, 2 at one instant woke their senders
 * 2, 1, 0): the actors downstream then run in SimGrid's order. */
struct flow_order {
  int got[3], n;
};

static void flow_order_done(void *ctx, void *tag)
{
  struct flow_order *o = ctx;
  o->got[o->n++] = *(int *)tag;
}

START_TEST(test_flow_ties_last_started_first)
{
  struct flow_net *fn = flow_net_create(1);
  flow_cons_set(fn, 0, 1e9);
  int ids[3] = {0, 1, 2};
  const int c0[1] = {0};
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(flow_start(fn, 0.0, 8000, c0, 1, 2e-5, 2e-5, 1e9, &ids[i]), 0);
  struct flow_order o = {0};
  while (!isinf(flow_next_s(fn)))
    flow_advance(fn, flow_next_s(fn), flow_order_done, &o);
  ck_assert_int_eq(o.n, 3);
  ck_assert_msg(o.got[0] == 2 && o.got[1] == 1 && o.got[2] == 0, "ended %d %d %d", o.got[0], o.got[1], o.got[2]);
  flow_net_destroy(fn);
}
END_TEST

START_TEST(test_flow_maxmin_star)
{
  struct flow_net *fn = flow_net_create(3);
  flow_cons_set(fn, 0, 1e9);
  flow_cons_set(fn, 1, 0.3e9);
  flow_cons_set(fn, 2, 1e9);
  int ids[4];
  const int ca[2] = {0, 1}, cb[2] = {0, 2}, cc[1] = {2}, cd[1] = {0};
  ck_assert_int_eq(flow_start(fn, 0.0, 1e9, ca, 2, 0.0, 1.0, -1.0, &ids[0]), 0);
  ck_assert_int_eq(flow_start(fn, 0.0, 1e9, cb, 2, 0.0, 1.0, -1.0, &ids[1]), 0);
  ck_assert_int_eq(flow_start(fn, 0.0, 1e9, cc, 1, 0.0, 1.0, -1.0, &ids[2]), 0);
  ck_assert_int_eq(flow_start(fn, 0.0, 1e9, cd, 1, 0.0, 1.0, 0.1e9, &ids[3]), 0);
  struct flow_probe p = {0};
  flow_advance(fn, 0.0, flow_probe_done, &p);
  const double want[4] = {0.3e9, 0.5e9, 0.5e9, 0.1e9};
  for (int i = 0; i < 4; i++)
    ck_assert_msg(fabs(flow_rate_of(fn, &ids[i]) - want[i]) < 1e-3, "flow %d at %.6g B/s, want %.6g", i,
                  flow_rate_of(fn, &ids[i]), want[i]);
  flow_net_destroy(fn);
  fn = flow_net_create(1);
  flow_cons_set(fn, 0, 1e9);
  const double size[1] = {1e6}, start[1] = {0.0};
  const int c0[1] = {0};
  struct flow_probe q = {0};
  flow_probe_run(fn, &q, 1, size, start, c0, 1, 1e-3, 2e8);
  ck_assert_msg(fabs(q.end[0] - (1e-3 + 1e6 / 2e8)) < 1e-12, "bounded flow ends at %.12g s", q.end[0]);
  flow_net_destroy(fn);
}
END_TEST

/* A flow alone on its constraints has one event, its end (its latency
 * is folded into its start); a second flow starting while the first
 * still pays its latency puts it back to paying, one starting after
 * puts it to sharing since its latency was paid.  1e6 B flows over a
 * 1e9 B/s constraint, 20 us latency: alone, 20 us + 1 ms; B starting at
 * 10 us: A alone from 20 us, both at 5e8 from B's 30 us, A ends at
 * 30 us + (1e6 - 1e4) / 5e8 = 2.01 ms and B 10 us later. */
START_TEST(test_flow_alone_one_event)
{
  static int ids[2] = {0, 1};
  const int c0[1] = {0};
  struct flow_net *fn = flow_net_create(1);
  flow_cons_set(fn, 0, 1e9);
  ck_assert_int_eq(flow_start(fn, 0.0, 1e6, c0, 1, 2e-5, 2e-5, 1e9, &ids[0]), 0);
  struct flow_probe p = {0};
  p.now = 2e-5; /* its latency paid: in flight at its rate (client_net.c reads it so), not ended */
  flow_advance(fn, p.now, flow_probe_done, &p);
  double rate = flow_rate_of(fn, &ids[0]);
  ck_assert_msg(p.end[0] == 0.0 && fabs(rate - 1e9) < 1e-3, "at 20 us: ended at %g s, rate %.6g B/s", p.end[0],
                rate);
  int events = 0;
  while (!isinf(flow_next_s(fn))) {
    p.now = flow_next_s(fn);
    flow_advance(fn, p.now, flow_probe_done, &p);
    events++;
  }
  ck_assert_msg(events == 1 && fabs(p.end[0] - 1.02e-3) < 1e-15, "%d events, ends at %.15g s", events, p.end[0]);
  flow_net_destroy(fn);

  for (int late = 0; late < 2; late++) { /* B at 10 us (A still paying), at 25 us (A sharing since 20 us) */
    fn = flow_net_create(1);
    flow_cons_set(fn, 0, 1e9);
    const double size[2] = {1e6, 1e6}, start[2] = {0.0, late ? 2.5e-5 : 1e-5};
    struct flow_probe q = {0};
    flow_probe_run(fn, &q, 2, size, start, c0, 1, 2e-5, 1e9);
    double b_paid = start[1] + 2e-5, a_left = 1e6 - 1e9 * (b_paid - 2e-5);
    double a_end = b_paid + a_left / 5e8, b_end = a_end + (1e6 - a_left) / 1e9;
    ck_assert_msg(fabs(q.end[0] - a_end) < 1e-12 && fabs(q.end[1] - b_end) < 1e-12,
                  "B at %g s: A ends at %.12g s (want %.12g), B at %.12g s (want %.12g)", start[1], q.end[0],
                  a_end, q.end[1], b_end);
    flow_net_destroy(fn);
  }
}
END_TEST

/* A flow's latency paid while nothing else is due is taken ahead: the
 * scheduler's next event is the next end.  A (1e6 B) at 0, B (1e6 B) at
 * 100 us, 20 us latency, 1e9 B/s: B joins at 120 us (A has 9e5 B left),
 * both at 5e8: A ends at 1.92 ms, B at 2.02 ms: two events, the ends.  C
 * (1e6 B) started at 110 us, while B pays its latency, undoes it: A
 * 8.95e5 B left at 130 us, three at 1e9/3: A ends at 2.815 ms, B at
 * 3.015 ms, C at 3.02 ms. */
START_TEST(test_flow_join_ahead)
{
  static int ids[2] = {0, 1};
  const int c0[1] = {0};
  struct flow_net *fn = flow_net_create(1);
  flow_cons_set(fn, 0, 1e9);
  ck_assert_int_eq(flow_start(fn, 0.0, 1e6, c0, 1, 2e-5, 2e-5, -1.0, &ids[0]), 0);
  ck_assert_int_eq(flow_start(fn, 1e-4, 1e6, c0, 1, 2e-5, 2e-5, -1.0, &ids[1]), 0);
  struct flow_probe p = {.now = 1e-4};
  flow_advance(fn, p.now, flow_probe_done, &p); /* the scheduler, poked by B's start */
  int events = 0;
  for (; !isinf(flow_next_s(fn)); events++) {
    p.now = flow_next_s(fn);
    flow_advance(fn, p.now, flow_probe_done, &p);
  }
  ck_assert_msg(events == 2 && fabs(p.end[0] - 1.92e-3) < 1e-12 && fabs(p.end[1] - 2.02e-3) < 1e-12,
                "%d events, ends %.12g %.12g s", events, p.end[0], p.end[1]);
  flow_net_destroy(fn);
  fn = flow_net_create(1);
  flow_cons_set(fn, 0, 1e9);
  const double size[3] = {1e6, 1e6, 1e6}, start[3] = {0.0, 1e-4, 1.1e-4}, want[3] = {2.815e-3, 3.015e-3, 3.02e-3};
  struct flow_probe q = {0};
  flow_probe_run(fn, &q, 3, size, start, c0, 1, 2e-5, -1.0);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(fabs(q.end[i] - want[i]) < 1e-12, "flow %d ends at %.12g s, want %.12g", i, q.end[i], want[i]);
  flow_net_destroy(fn);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("engine");
  TCase *tc = tcase_create("end_to_end");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_golden_fixed_local);
  tcase_add_test(tc, test_local_direct_bypasses_cache);
  tcase_add_test(tc, test_deterministic);
  tcase_add_test(tc, test_littles_law);
  tcase_add_test(tc, test_json_contract);
  tcase_add_test(tc, test_unfinished_work_fails);
  tcase_add_test(tc, test_long_operation_stays_small);
  tcase_add_test(tc, test_mpio_failover);
  tcase_add_test(tc, test_lacp_failover_small_pdus);
  tcase_add_test(tc, test_degraded_continues);
  tcase_add_test(tc, test_psu_efficiency_scales_power);
  tcase_add_test(tc, test_open_loop_rate);
  tcase_add_test(tc, test_iperf_link_rate);
  tcase_add_test(tc, test_client_cache_rewrite);
  tcase_add_test(tc, test_softirq_placement);
  tcase_add_test(tc, test_smbd_working_set_turns);
  tcase_add_test(tc, test_smbd_blocking_read);
  tcase_add_test(tc, test_smbd_sync_write);
  tcase_add_test(tc, test_smb_streaming_overlaps);
  tcase_add_test(tc, test_smb_read_latency_hides);
  tcase_add_test(tc, test_smb_stream_window);
  tcase_add_test(tc, test_iscsi_data_out_streams);
  tcase_add_test(tc, test_copy_readahead);
  tcase_add_test(tc, test_nfs_client_readahead);
  tcase_add_test(tc, test_nfs_rsize_rpcs);
  tcase_add_test(tc, test_series_partial_second);
  tcase_add_test(tc, test_copy_file_gap);
  tcase_add_test(tc, test_time_based_stops_at_window_end);
  tcase_add_test(tc, test_abandoned_in_reports);
  tcase_add_test(tc, test_copy_file_handles);
  tcase_add_test(tc, test_whatif_moves_bottleneck);
  tcase_add_test(tc, test_fio_file_fio_json);
  tcase_add_test(tc, test_thread_occupancy);
  tcase_add_test(tc, test_lacp_failover);
  tcase_add_test(tc, test_stream_pipelines);
  tcase_add_test(tc, test_iscsi_session_window);
  tcase_add_test(tc, test_flow_matches_cm02);
  tcase_add_test(tc, test_flow_maxmin_star);
  tcase_add_test(tc, test_flow_ties_last_started_first);
  tcase_add_test(tc, test_flow_alone_one_event);
  tcase_add_test(tc, test_flow_join_ahead);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
