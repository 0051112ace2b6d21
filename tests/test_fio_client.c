/* Jobs that stay inside the client (sim/engine/client_only.c): fio's null
 * and cpp_null engines (every I/O fio's own per-I/O work: the catalogue's
 * fio_io_time, + fio_queue_time at iodepth > 1, + fio_clock_time without
 * gtod_reduce), cpuio (cpuload % of a core per copy, no I/O), exec (a
 * program for the runtime, not modelled, no I/O) and a
 * read-only job on emulated zbd zones with read_beyond_wp=0 (fio ends it
 * at once); the NAS stays idle; a step mixing them with NAS jobs is
 * refused; fio's JSON carries the same figures.  fio's net engine: one TCP
 * stream per thread to or from a peer on the NAS over the modelled links
 * (link share, TCP window bound, the NAS's network stack), no storage.
 * fio's NVMe passthrough engine (io_uring_cmd): NVMe commands to a local
 * NVMe drive, so a job file of it with no scenario runs on
 * scenarios/drive-datasheet.yaml, and a share or a SATA drive is refused. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  ck_assert_int_eq(fio_parse_string("[e]\nioengine=rdma\n[c]\nioengine=cpuio\ncpuload=5\n", "c.fio", &w2, &warn2,
                                    &e2), -1);
  ck_assert_msg(strstr(e2.msg, "ioengine=rdma does no block I/O") && !strstr(e2.msg, "stonewall"), "%s", e2.msg);
  free(warn2);
  /* exec: a program on the client for the runtime, no I/O; fio requires program= */
  struct job x = fc_job("[e]\nioengine=exec\nprogram=/bin/sleep\narguments=%r\ngrace_time=0\nstd_redirect=0\n"
                        "runtime=10\n");
  ck_assert_int_eq(x.client_only, JOB_CLIENT_EXEC);
  ck_assert_double_eq(x.runtime_s, 10.0);
  fc_refused("[e]\nioengine=exec\nruntime=10\n", "no program is defined");
  fc_refused("[e]\nioengine=exec\nprogram=/bin/true\n", "ioengine=exec needs runtime=");
  fc_refused("[e]\nioengine=exec\nprogram=/bin/true\nruntime=1\n[m]\nsize=1m\n", "put stonewall between them");
  struct workload w3;
  char *warn3 = NULL;
  ck_assert_int_eq(fio_parse_string("[e]\nioengine=exec\nprogram=/bin/true\nruntime=3\n[c]\nioengine=cpuio\n"
                                    "cpuload=5\nruntime=3\n", "c.fio", &w3, &warn3, &e2), 0);
  ck_assert_int_eq(w3.nsteps, 1);
  ck_assert_msg(warn3 && strstr(warn3, "c.fio:1: warning: job 'e' (ioengine=exec) runs its program on the client "
                                       "for 3 s; what the program does there is not modelled"), "%s", warn3);
  workload_free(&w3);
  free(warn3);
  struct workload w;
  struct nw_err err;
  char *warn = NULL;
  ck_assert_int_eq(fio_parse_string("[n]\nioengine=null\nsize=1m\n[m]\nstonewall\nsize=1m\n", "c.fio", &w, &warn,
                                    &err), 0);
  ck_assert_int_eq(w.nsteps, 2);
  workload_free(&w);
  free(warn);
  /* fio fails a job whose engine it does not have; its libaio aliases are libaio. */
  const char *canon = NULL;
  ck_assert_ptr_null(fio_engine_check("linuxaio", &canon));
  ck_assert_str_eq(canon, "libaio");
  ck_assert_ptr_null(fio_engine_check("dirstat", &canon));
  ck_assert_str_eq(canon, "dirstat");
  fc_refused("[j]\nioengine=bogus\nrw=read\nsize=1m\n", "ioengine=bogus is not one of fio's engines");
  fc_refused("[j]\nioengine=external:/opt/e.so\nrw=read\nsize=1m\n", "is an external engine");
  ck_assert_str_eq(fc_job("[j]\nioengine=aio\nrw=read\nsize=1m\n").engine, "libaio");
  ck_assert_ptr_null(fio_engine_refused("null"));
  ck_assert_ptr_nonnull(fio_engine_refused("rdma"));
  /* libcufile's data goes to and from a file on the share (POSIX, or cuFile's
   * compatibility mode); its GPU options warn, as the host-GPU copy is the
   * client's and not modelled. */
  ck_assert_ptr_null(fio_engine_refused("libcufile"));
  ck_assert_ptr_nonnull(fio_engine_refused("rados"));
  struct workload wc;
  char *warnc = NULL;
  ck_assert_int_eq(fio_parse_string("[g]\nioengine=libcufile\ncuda_io=posix\ngpu_dev_ids=0\nrw=read\nbs=1m\n"
                                    "size=1g\n", "g.fio", &wc, &warnc, &err), 0);
  ck_assert_int_eq(wc.steps[0].jobs[0].client_only, JOB_CLIENT_NAS);
  ck_assert_msg(warnc && strstr(warnc, "'cuda_io' is accepted but not modelled") &&
                strstr(warnc, "'gpu_dev_ids' is accepted but not modelled"), "%s", warnc ? warnc : "");
  workload_free(&wc);
  free(warnc);
}
END_TEST

static struct cli_out fc_run(const char *text, const char *const *extra)
{
  struct cli_out r;
  ck_assert_int_eq(cli_run_fio(text, "2s", extra, &r), 0);
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

/* cpuio: a share of a core for the runtime, no I/O; exec: the runtime,
 * no I/O; zbd reads of empty emulated zones: no I/O, the job ends at once. */
START_TEST(test_client_cpu_and_eof)
{
  const char *json[] = {"--json", NULL};
  struct cli_out c = fc_run("[c]\nioengine=cpuio\ncpuload=30\nnumjobs=2\ntime_based\nruntime=1s\n", json);
  CK_REL(cli_json_number(c.out, NULL, "window_s"), 1.0);
  CK_REL(cli_json_number(c.out, "\"resource\": \"client.fio.c\"", "busy"), 0.3);
  ck_assert_double_eq(cli_json_number(c.out, "\"all\"", "ios"), 0.0);
  cli_out_free(&c);
  /* exec beside cpuio: the step lasts the runtime; the program's thread counts as idle */
  struct cli_out e = fc_run("[e]\nioengine=exec\nprogram=/usr/sbin/turbostat\nruntime=1s\n[c]\nioengine=cpuio\n"
                            "cpuload=40\nruntime=1s\n", json);
  CK_REL(cli_json_number(e.out, NULL, "window_s"), 1.0);
  ck_assert_double_eq(cli_json_number(e.out, "\"all\"", "ios"), 0.0);
  ck_assert_double_eq(cli_json_number(e.out, "\"resource\": \"client.fio.e\"", "busy"), 0.0);
  CK_REL(cli_json_number(e.out, "\"resource\": \"client.fio.c\"", "busy"), 0.4);
  cli_out_free(&e);
  struct cli_out z = fc_run("[z]\nrw=read\nbs=256k\nsize=1g\nzonemode=zbd\nzonesize=256m\n", json);
  ck_assert_double_eq(cli_json_number(z.out, "\"all\"", "ios"), 0.0);
  ck_assert_double_eq(cli_json_number(z.out, NULL, "window_s"), 0.0);
  cli_out_free(&z);
}
END_TEST

/* ioengine=net: what fio's net engine refuses, and what nastwin does not model, refused with the reason. */
START_TEST(test_client_net_parse)
{
  struct job n = fc_job("[n]\nioengine=net\nprotocol=tcp\nport=8888\nlisten\nrw=read\nbs=4k\nsize=1g\n"
                        "window_size=256k\n");
  ck_assert_int_eq(n.client_only, JOB_CLIENT_NET);
  ck_assert_double_eq(n.net_window_bytes, 262144.0);
  ck_assert_int_eq(fc_job("[n]\nioengine=netsplice\nrw=write\nsize=1g\n").client_only, JOB_CLIENT_NET);
  ck_assert_int_eq(fc_job("[n]\nioengine=net\nprotocol=udpv6\nrw=write\nbs=32k\nsize=1g\n").client_only,
                   JOB_CLIENT_NET);
  fc_refused("[n]\nioengine=net\nprotocol=udp\nrw=write\nbs=65508\n", "does not fit one UDP datagram");
  fc_refused("[n]\nioengine=net\nprotocol=vsock\nrw=write\n", "does not cross the NAS's links");
  fc_refused("[n]\nioengine=net\nprotocol=unix\nrw=write\n", "never reaches the NAS");
  fc_refused("[n]\nioengine=net\nprotocol=sctp\nrw=write\n", "protocol: bad value 'sctp'");
  fc_refused("[n]\nioengine=net\nrw=randwrite\n", "network IO can't be random");
  fc_refused("[n]\nioengine=net\nrw=rw\n", "use a job with rw=write and one with rw=read");
  fc_refused("[n]\nioengine=net\nrw=write\nwindow_size=0\n", "window_size: bad value '0'");
  fc_refused("[n]\nioengine=net\nrw=write\n[m]\nrw=read\n", "put stonewall between them");
  ck_assert_ptr_nonnull(fio_engine_refused("nbd"));
  ck_assert_ptr_nonnull(strstr(fio_engine_refused("nbd"), "protocol.kind: iscsi"));
  ck_assert_ptr_null(fio_engine_refused("http")); /* runs on the WebDAV protocol (test_fio test_http_engine) */
}
END_TEST

/* A stream's rate: the TCP window over the round trip when that binds
 * (CM02's gamma / (2 x latency), latency 2 x 100 us over a direct cable),
 * else the link's payload rate, shared by the streams crossing it; the
 * other direction of a full-duplex link is its own.  fio's own per-I/O
 * time (1 ns here) overlaps the socket draining: a write of bs takes bs / rate. */
#define NET_REL(a, b)                                                                                         \
  ck_assert_msg(fabs((double)(a) - (double)(b)) <= 1e-4 * fabs((double)(b)), "%.9g != %.9g", (double)(a),     \
                (double)(b))

/* UDP (models/net/frame.c): the sender is not slowed by its receiver;
 * what the NAS cannot take in is lost and counted (fio JSON drop_ios);
 * a paced sender loses nothing; pingpong waits for each echo. */
START_TEST(test_client_net_udp)
{
  const char *slow[] = {"--json", "--set", "clients.fio_io_time=1ns", "--set", "soc.clock=200MHz", "--set",
                        "network.mtu=1500", NULL};
  const char *job = "[s]\nioengine=net\nprotocol=udp\nrw=write\nbs=1k\nsize=100g\ngtod_reduce=1\ntime_based\n"
                    "runtime=1s\n";
  struct cli_out u = fc_run(job, slow);
  double sent = cli_json_number(u.out, "\"write\"", "ios"), lost = cli_json_number(u.out, "\"write\"", "dropped");
  ck_assert_msg(lost > 0.1 * sent && lost < sent, "lost %g of %g: %.2000s", lost, sent, u.out);
  /* The wire carries every datagram: 1 KiB in a 1090 B frame (20 + 8 + 1024 + 38). */
  double wire = cli_json_number(u.out, "\"resource\": \"net.nas0.rx\"", "busy");
  ck_assert_msg(wire > 0.99, "the sender fills its link: %g", wire);
  /* The same sender over TCP slows to what the NAS takes in, loses nothing. */
  struct cli_out t = fc_run("[s]\nioengine=net\nrw=write\nbs=1k\nsize=100g\ngtod_reduce=1\ntime_based\n"
                            "runtime=1s\n", slow);
  ck_assert_msg(cli_json_number(t.out, "\"write\"", "ios") < sent &&
                    cli_json_number(t.out, "\"write\"", "dropped") == 0.0, "%.2000s", t.out);
  /* Paced below what the NAS takes in: nothing lost. */
  struct cli_out p = fc_run("[s]\nioengine=net\nprotocol=udp\nrw=write\nbs=1k\nsize=100g\ngtod_reduce=1\n"
                            "time_based\nruntime=1s\nrate_iops=1000\n", slow);
  CK_REL(cli_json_number(p.out, "\"write\"", "ios"), 1000.0);
  ck_assert_double_eq(cli_json_number(p.out, "\"write\"", "dropped"), 0.0);
  /* fio JSON: drop_ios is the lost datagrams. */
  const char *fj[] = {"--output-format=json", "--set", "clients.fio_io_time=1ns", "--set", "soc.clock=200MHz",
                      "--set", "network.mtu=1500", NULL};
  struct cli_out f = fc_run(job, fj);
  CK_REL(cli_json_number(f.out, "\"write\": {\"io_bytes\"", "drop_ios"), lost);
  /* pingpong: one message and its echo per I/O: 2 x (route latency + bs at the link). */
  const char *lat[] = {"--json", "--set", "network.switch_hops=0", "--set", "network.link_latency=100us", "--set",
                       "clients.fio_io_time=1ns", NULL};
  struct cli_out g = fc_run("[s]\nioengine=net\nprotocol=udp\npingpong=1\nrw=write\nbs=64\nsize=100g\n"
                            "gtod_reduce=1\ntime_based\nruntime=1s\n", lat);
  double iops = cli_json_number(g.out, "\"write\"", "iops");
  ck_assert_msg(iops > 0.99 / (2 * 200e-6 + 1e-5) && iops < 1.0 / (2 * 200e-6), "%g: %.2000s", iops, g.out);
  ck_assert_double_eq(cli_json_number(g.out, "\"write\"", "dropped"), 0.0);
  cli_out_free(&u);
  cli_out_free(&t);
  cli_out_free(&p);
  cli_out_free(&f);
  cli_out_free(&g);
}
END_TEST

START_TEST(test_client_net_run)
{
  const char *win[] = {"--json", "--set", "network.switch_hops=0", "--set", "network.link_latency=100us", "--set",
                       "clients.fio_io_time=1ns", NULL};
  struct cli_out w = fc_run("[n]\nioengine=net\nrw=write\nbs=64k\nsize=100g\nwindow_size=64k\ngtod_reduce=1\n"
                            "time_based\nruntime=1s\n", win);
  double rate = 65536.0 / (2.0 * 200e-6);
  ck_assert_msg(fabs(cli_json_number(w.out, "\"write\"", "MBps") - rate / 1e6) < 1e-4 * rate / 1e6, "%.2000s", w.out);
  NET_REL(cli_json_number(w.out, "\"write\"", "mean"), 65536.0 / rate * 1e3);
  ck_assert_double_eq(cli_json_number(w.out, "\"read\"", "ios"), 0.0);
  ck_assert_msg(!strstr(w.out, "\"resource\": \"disk"), "no storage: %.2000s", w.out);
  cli_out_free(&w);
  /* The scenario's window (4 MiB) does not bind: the link does; two senders
   * share it, a receiver has the other direction. */
  const char *json[] = {"--json", "--set", "clients.fio_io_time=1ns", NULL};
  const char *one = "[s]\nioengine=net\nrw=write\nbs=64k\nsize=100g\ngtod_reduce=1\ntime_based\nruntime=1s\n";
  struct cli_out a = fc_run(one, json);
  double link = cli_json_number(a.out, "\"write\"", "MBps");
  ck_assert_msg(link > 100.0 && strstr(a.out, "\"bottleneck\": {\"resource\": \"net."), "link-bound: %.2000s", a.out);
  CK_REL(cli_json_number(a.out, "\"resource\": \"net.nas0.rx\"", "busy"), 1.0);
  ck_assert_msg(cli_json_number(a.out, "\"resource\": \"nas.net_rx\"", "busy") > 0.0, "%.2000s", a.out);
  struct cli_out b = fc_run("[s]\nioengine=net\nrw=write\nbs=64k\nsize=100g\ngtod_reduce=1\ntime_based\n"
                            "runtime=1s\nnumjobs=2\n", json);
  ck_assert_msg(fabs(cli_json_number(b.out, "\"write\"", "MBps") - link) < 1e-4 * link, "%.2000s", b.out);
  NET_REL(cli_json_number(b.out, "\"write\"", "mean"), 2.0 * cli_json_number(a.out, "\"write\"", "mean"));
  struct cli_out d = fc_run("[s]\nioengine=net\nrw=write\nbs=64k\nsize=100g\ngtod_reduce=1\ntime_based\n"
                            "runtime=1s\n[r]\nioengine=net\nlisten\nrw=read\nbs=64k\nsize=100g\ngtod_reduce=1\n"
                            "time_based\nruntime=1s\n", json);
  ck_assert_msg(fabs(cli_json_number(d.out, "\"write\"", "MBps") - link) < 1e-4 * link, "%.2000s", d.out);
  ck_assert_msg(fabs(cli_json_number(d.out, "\"read\"", "MBps") - link) < 1e-4 * link, "%.2000s", d.out);
  cli_out_free(&a);
  cli_out_free(&b);
  cli_out_free(&d);
  /* A slow NAS core: its network receive work binds. */
  const char *slow[] = {"--json", "--set", "clients.fio_io_time=1ns", "--set", "soc.clock=200MHz", "--set",
                        "network.mtu=1500", NULL};
  struct cli_out c = fc_run(one, slow);
  ck_assert_msg(cli_json_number(c.out, "\"write\"", "MBps") < link &&
                    strstr(c.out, "\"bottleneck\": {\"resource\": \"nas.net_rx\""), "%.2000s", c.out);
  cli_out_free(&c);
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

/* io_uring_cmd: the drive's own commands (a trim is a Dataset Management
 * deallocate the drive itself serves), no page cache whatever direct=
 * says; with no scenario the run takes the local NVMe scenario; a share,
 * or a local drive that is not NVMe, is refused with the reason. */
START_TEST(test_client_passthrough)
{
  struct job j = fc_job("[p]\nioengine=io_uring_cmd\ncmd_type=nvme\ndirect=0\nrw=randread\nbs=4k\nsize=1m\n");
  ck_assert_int_eq(j.direct, 1);
  ck_assert_int_eq(j.client_only, JOB_CLIENT_NAS);
  ck_assert_int_eq(fio_engine_passthrough("io_uring_cmd"), 1);
  ck_assert_int_eq(fio_engine_passthrough("io_uring"), 0);
  ck_assert_int_eq(j.nvme_passthrough, 1);
  /* xnvme passes NVMe commands through with its io_uring_cmd back-end
   * only; with libaio it is a block engine like any other. */
  j = fc_job("[x]\nxnvme_async=io_uring_cmd\nioengine=xnvme\nrw=randread\nbs=4k\nsize=1m\n");
  ck_assert_msg(j.nvme_passthrough == 1 && j.direct == 1, "xnvme over io_uring_cmd");
  j = fc_job("[x]\nioengine=xnvme\nxnvme_async=libaio\nrw=randread\nbs=4k\nsize=1m\n");
  ck_assert_int_eq(j.nvme_passthrough, 0);
  static const char text[] = "[global]\nioengine=io_uring_cmd\ncmd_type=nvme\nfilename=/dev/ng0n1\nbs=4k\n"
                             "size=64m\niodepth=8\n[t]\nrw=randtrim\n[r]\nstonewall\nrw=randread\n";
  struct cli_out r = fc_run(text, NULL);
  ck_assert_msg(strstr(r.err, "(ioengine=io_uring_cmd) sends NVMe commands") &&
                    strstr(r.err, "takes scenarios/drive-datasheet.yaml") &&
                    !strstr(r.err, "'ioengine' is accepted but not modelled"), "%s", r.err);
  ck_assert_msg(strstr(r.out, "scenario drive-datasheet") && strstr(r.out, "trim : IOPS=") &&
                    strstr(r.out, "bottleneck: disk disk0 (generic-nvme)"), "%s", r.out);
  cli_out_free(&r);
  char smb[4096];
  cli_source_path("scenarios/default.yaml", smb, sizeof smb);
  const char *share[] = {smb, NULL};
  ck_assert_int_eq(cli_run_fio(text, "1s", share, &r), 0);
  ck_assert_msg(r.status == 2 && strstr(r.err, "error: job 't' (ioengine=io_uring_cmd) sends NVMe commands") &&
                    strstr(r.err, "a share or an iSCSI LUN has none"), "%d %s", r.status, r.err);
  cli_out_free(&r);
  const char *sata[] = {"--set", "disks.drive=ocz-vector-120", NULL};
  ck_assert_int_eq(cli_run_fio(text, "1s", sata, &r), 0);
  ck_assert_msg(r.status == 2 && strstr(r.err, "the scenario's drive is not an NVMe drive"), "%d %s", r.status,
                r.err);
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
  tcase_add_test(tc, test_client_net_parse);
  tcase_add_test(tc, test_client_net_run);
  tcase_add_test(tc, test_client_net_udp);
  tcase_add_test(tc, test_client_passthrough);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
