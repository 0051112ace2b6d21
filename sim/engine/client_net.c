/* client_net.c - fio's net and netsplice engines' streams (client_net.h).
 *
 * fio's net and netsplice engines (engines/net.c) stream bytes over one
 * TCP connection per fio thread, here to or from a peer on the NAS (a fio
 * receiver or sender run there), with no protocol daemon and no storage:
 * a network-only workload.  Each stream is one long flow of the fluid
 * network model (flow.h) over the links its connection is pinned to
 * (platform.c plat_build; copy k of a client on the client's connection k
 * mod its connections, as the engine places a protocol job's copies),
 * with CM02's latency, max-min sharing and TCP-gamma bound, gamma the
 * job's window_size or the scenario's TCP window (chan.c's links, as the
 * protocols' messages cross them).  The NAS's kernel
 * network stack costs the protocol entry's cycles_per_packet per segment
 * (data segments of MTU payload, a delayed ACK per two, a TSO super-segment
 * of 64 KiB per transmit with offload, as proto.h counts them) and
 * csum_cycles_per_byte without checksum offload: what it receives on the
 * one interrupt core, what it sends and its ACKs on the peer's thread,
 * which also copies each byte between socket and user buffer
 * (soc_mem_copy_s).  A stream runs at its flow rate capped by its peer's
 * thread; when the interrupt core or all cores together cannot keep up,
 * every stream slows by the same factor (a simplification: the links'
 * shares are not re-solved).  UDP (protocol=udp, udpv6): no TCP-gamma
 * bound, each datagram's frames (frame.c: UDP/IP headers, IP fragments)
 * instead of segments, no ACK, no TSO; a UDP sender to the NAS keeps its
 * link share (sent) while the NAS takes in only what its CPU allows
 * (Bps), the rest lost.  pingpong: one message in flight, the stream's
 * rate bs over two transfers and two route latencies.  client_only.c
 * times each job's I/Os at its stream's rate and counts the loss. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/frame.h"
#include "sim/analysis/analysis.h"
#include "sim/engine/client_net.h"
#include "sim/engine/flow.h"

/* The NAS's network work per payload byte of a stream (s of one core per
 * byte): on the interrupt core (the segments it receives) and on the
 * peer's thread (the ACKs or segments it sends, its copy). */
int eng_net_udp(const struct job *j, int *ipv6)
{
  *ipv6 = strstr(j->net_proto, "v6") != NULL;
  return !strncmp(j->net_proto, "udp", 3);
}

double eng_net_udp_buffer(const struct job *j, double bs_bytes)
{
  double buf = j->net_window_bytes > 0 ? 2.0 * j->net_window_bytes : NET_UDP_RMEM_DEFAULT_BYTES;
  return bs_bytes > 0 ? floor(buf / bs_bytes) : 0.0;
}

/* The bytes one I/O of net job j moves (its direction's mean block). */
static double eng_net_bs(const struct job *j)
{
  const double *b = j->read_frac >= 0.5 || j->nbs_w == 0 ? j->bs_bytes : j->bs_bytes_w;
  const double *w = j->read_frac >= 0.5 || j->nbs_w == 0 ? j->bs_weight : j->bs_weight_w;
  int n = j->read_frac >= 0.5 || j->nbs_w == 0 ? j->nbs : j->nbs_w;
  double m = 0.0;
  for (int i = 0; i < n; i++)
    m += b[i] * w[i];
  return m > 0 ? m : 4096.0;
}

/* TCP: data segments of MSS payload, a delayed ACK per two, TSO on send.
 * UDP: a datagram's IP fragments (frame.c), no ACK, no TSO (fio sets no
 * UDP_SEGMENT). */
static void eng_stream_cost(const struct scenario *s, const struct job *j, int to_nas, double *irq_s,
                            double *peer_s)
{
  const struct proto_costs *c = &s->proto.costs;
  double speed = soc_effective_speed_cycles_per_s(&s->soc);
  int v6, udp = eng_net_udp(j, &v6);
  double bs = eng_net_bs(j);
  double segs = udp ? net_udp_frames(bs, s->net.mtu_bytes, v6) / bs /* per byte */
                    : 1.0 / net_payload_per_frame(s->net.mtu_bytes, s->net.tcp_timestamps != 0);
  double acks = udp ? 0.0 : 0.5;
  double csum = s->proto.checksum_offload != 0 ? 0.0 : c->csum_cycles_per_byte;
  int tso = !udp && s->proto.tso != 0 && s->proto.checksum_offload != 0;
  double copy = soc_mem_copy_s(&s->soc, 1.0);
  if (to_nas) {
    *irq_s = (c->cycles_per_packet * segs + csum) / speed;
    *peer_s = c->cycles_per_packet * acks * segs / speed + copy;
  } else {
    *irq_s = c->cycles_per_packet * acks * segs / speed;
    *peer_s = (c->cycles_per_packet * (tso ? 1.0 / PROTO_TSO_MAX_BYTES : segs) + csum) / speed + copy;
  }
}

/* The links carry TCP payload at net_payload_efficiency; a UDP stream's
 * share of the wire carries its datagrams' payload instead: its payload
 * per TCP payload byte of wire (1 for TCP). */
static double eng_net_payload_share(const struct scenario *s, const struct job *j)
{
  int v6;
  if (!eng_net_udp(j, &v6))
    return 1.0;
  double bs = eng_net_bs(j);
  return bs / net_udp_wire_bytes(bs, s->net.mtu_bytes, v6) /
         net_payload_efficiency(s->net.mtu_bytes, s->net.tcp_timestamps != 0);
}

static void eng_flow_ended(void *ctx, void *tag)
{
  (void)ctx;
  (void)tag;
}

static int eng_net_fail(struct run_result *out, const char *msg)
{
  out->failed = 1;
  snprintf(out->failure, sizeof out->failure, "%.500s", msg);
  return -1;
}

/* Every stream's flow rate on map's links into ld->Bps (before the NAS's CPU). */
static int eng_net_flows(const struct scenario *s, const struct workload_step *st, const struct plat_map *map,
                         struct eng_net_load *ld)
{
  struct eng_links l;
  struct flow_net *fn = eng_links_create(s, map, &l);
  if (!fn)
    return -1;
  int n = 0, cpc = map->conns_per_client;
  for (int i = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    if (j->client_only != JOB_CLIENT_NET)
      continue;
    int up = j->read_frac < 0.5; /* a sender: towards the NAS */
    int v6, udp = eng_net_udp(j, &v6);
    double gamma = udp ? 1e30 /* no window: only the links bound it */
                   : j->net_window_bytes > 0 ? j->net_window_bytes
                   : s->net.tcp_window_bytes > 0 ? s->net.tcp_window_bytes : ENG_TCP_WINDOW_BYTES;
    for (int c = 0; c < s->nclients; c++)
      for (int k = 0; k < j->numjobs; k++, n++) {
        const struct plat_conn *pc = &map->conns[c * cpc + k % cpc];
        if (eng_links_start(fn, &l, 0.0, 1e30, c, up ? pc->client_tx : pc->client_rx, up ? pc->nas_rx : pc->nas_tx,
                            up, gamma, (void *)(intptr_t)(n + 1)) < 0) {
          flow_net_destroy(fn);
          return -1;
        }
      }
  }
  /* Every latency paid (all started at 0, one route latency): the rates.
   * Not flow_next_s: a stream alone on its links has its end as its only
   * event (flow.c's lone-flow fold), 1e30 bytes away. */
  ld->latency_s = eng_links_latency_s(&l);
  int rc = flow_advance(fn, ld->latency_s, eng_flow_ended, NULL);
  for (int k = 0; k < n && rc == 0; k++)
    ld->Bps[k] = flow_rate_of(fn, (void *)(intptr_t)(k + 1));
  flow_net_destroy(fn);
  for (int i = 0, x = 0; i < st->njobs && rc == 0; i++) {
    const struct job *j = &st->jobs[i];
    if (j->client_only != JOB_CLIENT_NET)
      continue;
    double bs = eng_net_bs(j), f = eng_net_payload_share(s, j);
    for (int k = 0; k < s->nclients * j->numjobs; k++, x++) {
      ld->Bps[x] *= f;
      if (j->net_pingpong) /* one message in flight: there, and its echo back, then the next */
        ld->Bps[x] = bs / (2.0 * (bs / ld->Bps[x] + ld->latency_s));
    }
  }
  return rc;
}

/* The NAS's CPU: a peer's thread is at most one core; the interrupt core,
 * and all the cores together, slow every stream alike. */
static void eng_net_cpu(const struct scenario *s, const struct workload_step *st, const struct plat_map *map,
                        struct eng_net_load *ld)
{
  double irq = 0.0, peer = 0.0, *Bps = ld->Bps;
  int nc = map->client_nics, cpc = map->conns_per_client;
  for (int i = 0, x = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    if (j->client_only != JOB_CLIENT_NET)
      continue;
    double irq_s, peer_s;
    int v6, udp_in = eng_net_udp(j, &v6) && j->read_frac < 0.5; /* a UDP sender to the NAS: not slowed */
    eng_stream_cost(s, j, j->read_frac < 0.5, &irq_s, &peer_s);
    for (int k = 0; k < s->nclients * j->numjobs; k++, x++) {
      ld->sent[x] = udp_in ? Bps[x] : -1.0;
      Bps[x] = peer_s > 0 && Bps[x] * peer_s > 1.0 ? 1.0 / peer_s : Bps[x];
      irq += Bps[x] * irq_s;
      peer += Bps[x] * peer_s;
    }
  }
  double f = 1.0;
  if (irq > 1.0)
    f = 1.0 / irq;
  if ((irq + peer) * f > map->nas_cores)
    f = map->nas_cores / (irq + peer);
  ld->irq_util = irq * f;
  for (int i = 0, x = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    if (j->client_only != JOB_CLIENT_NET)
      continue;
    int up = j->read_frac < 0.5;
    double irq_s, peer_s;
    eng_stream_cost(s, j, up, &irq_s, &peer_s);
    for (int c = 0; c < s->nclients; c++)
      for (int k = 0; k < j->numjobs; k++, x++) {
        const struct plat_conn *pc = &map->conns[c * cpc + k % cpc];
        Bps[x] *= f;
        ld->sent[x] = ld->sent[x] < 0 ? Bps[x] : ld->sent[x]; /* TCP, or UDP from the NAS: as taken in */
        ld->peer_util[i] += Bps[x] * peer_s;
        double wire = ld->sent[x] / eng_net_payload_share(s, j); /* in the links' TCP payload bytes */
        ld->nas[(up ? pc->nas_rx : pc->nas_tx) % ENG_NET_PORTS][up] += wire;
        ld->nic[2 * (c * nc + (up ? pc->client_tx : pc->client_rx)) + up] += wire;
      }
  }
}

int eng_net_load(const struct scenario *s, const struct workload_step *st, int nstreams, struct eng_net_load *ld,
                 struct run_result *out)
{
  memset(ld, 0, sizeof *ld);
  if (proto_ops_of(&s->proto)->shape == PROTO_SHAPE_NONE) {
    char msg[200];
    snprintf(msg, sizeof msg, "step '%.100s' streams over the network (ioengine=net), and protocol.kind local has "
             "no NAS link: not simulated", st->name);
    return eng_net_fail(out, msg);
  }
  if (nstreams > ENG_MAX_STREAMS) {
    char msg[200];
    snprintf(msg, sizeof msg, "step '%.100s' opens more than 65536 net streams at once: not simulated", st->name);
    return eng_net_fail(out, msg);
  }
  ld->Bps = calloc((size_t)nstreams, sizeof *ld->Bps);
  ld->sent = calloc((size_t)nstreams, sizeof *ld->sent);
  ld->nic = calloc((size_t)(2 * s->nclients * (int)s->net.client_nics), sizeof *ld->nic);
  struct plat_map *map = malloc(sizeof *map);
  struct nw_err err = {0};
  if (!ld->Bps || !ld->sent || !ld->nic || !map) {
    free(map);
    return eng_net_fail(out, "out of memory");
  }
  if (plat_build(s, map, &err) != 0) {
    free(map);
    return eng_net_fail(out, err.msg);
  }
  if (eng_net_flows(s, st, map, ld) != 0) {
    free(map);
    return eng_net_fail(out, "out of memory");
  }
  eng_net_cpu(s, st, map, ld);
  free(map);
  return 0;
}

void eng_net_load_free(struct eng_net_load *ld)
{
  free(ld->Bps);
  free(ld->sent);
  free(ld->nic);
  ld->Bps = ld->sent = ld->nic = NULL;
}

double eng_net_account(const struct scenario *s, const struct workload_step *st, const struct eng_net_load *ld,
                       double T, struct run_result *out)
{
  double busy_cores = 0.0; /* the NAS's threads first: analysis_cores places every thread so far */
  char name[64], who[96];
  for (int i = 0; i < st->njobs; i++) {
    const struct job *j = &st->jobs[i];
    if (j->client_only != JOB_CLIENT_NET)
      continue;
    snprintf(name, sizeof name, "nas.fio_peer.%.40s", j->name);
    int v6, udp = eng_net_udp(j, &v6);
    snprintf(who, sizeof who, "the %d fio peer(s) on the NAS: socket copy, %s", s->nclients * j->numjobs,
             j->net_pingpong ? "echoes" : udp ? (j->read_frac < 0.5 ? "UDP receive" : "UDP datagrams")
             : j->read_frac < 0.5 ? "ACKs" : "transmit segments");
    analysis_add(out, RES_THREAD, name, who, ld->peer_util[i] * T);
    busy_cores += ld->peer_util[i];
  }
  analysis_add(out, RES_THREAD, "nas.net_rx", "kernel network receive (softirq) on the interrupt core",
               ld->irq_util * T);
  busy_cores += ld->irq_util;
  analysis_cores(out, (int)s->soc.cores);
  double nas_cap = net_nas_link_payload_rate_bytes_per_s(&s->net);
  double nic_cap = net_client_link_payload_rate_bytes_per_s(&s->net);
  for (int m = 0; m < (int)s->net.nas_links && m < ENG_NET_PORTS; m++) {
    snprintf(name, sizeof name, "net.nas%d.rx", m);
    analysis_add(out, RES_LINK, name, "NAS port, client->NAS payload", ld->nas[m][1] / nas_cap * T);
    snprintf(name, sizeof name, "net.nas%d.tx", m);
    analysis_add(out, RES_LINK, name, "NAS port, NAS->client payload", ld->nas[m][0] / nas_cap * T);
  }
  for (int c = 0; c < s->nclients; c++)
    for (int k = 0; k < (int)s->net.client_nics; k++) {
      int at = 2 * (c * (int)s->net.client_nics + k);
      snprintf(name, sizeof name, "net.client%d.nic%d.tx", c, k);
      analysis_add(out, RES_LINK, name, "client NIC, towards the NAS", ld->nic[at + 1] / nic_cap * T);
      snprintf(name, sizeof name, "net.client%d.nic%d.rx", c, k);
      analysis_add(out, RES_LINK, name, "client NIC, from the NAS", ld->nic[at] / nic_cap * T);
    }
  return busy_cores;
}
