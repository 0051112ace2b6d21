/* client_net.h - fio's net engine's streams, for a step whose jobs do no
 * I/O to the NAS's storage (client_net.c; used by client_only.c). */
#ifndef NASTWIN_CLIENT_NET_H
#define NASTWIN_CLIENT_NET_H

#include "sim/engine/eng_impl.h"

#define ENG_MAX_STREAMS 65536
#define ENG_NET_PORTS 64

/* The steady state of a step's net streams. */
struct eng_net_load {
  double *Bps;                     /* each stream's rate, in job, client, copy order (bytes/s): what
                                    * its receiver takes in (TCP: = sent) */
  double *sent;                    /* what its sender puts on the wire (bytes/s): a UDP sender is not
                                    * slowed by its receiver, the excess is lost */
  double latency_s;                /* one way, a route's */
  double nas[ENG_NET_PORTS][2];    /* bytes/s through NAS port M towards the NAS [1] and from it [0] */
  double *nic;                     /* client C's NIC K: [2 (C nc + K) + up] (bytes/s) */
  double irq_util;                 /* the interrupt core's busy share */
  double peer_util[STEP_MAX_JOBS]; /* per job: its peers' threads, in cores */
};

/* The nstreams streams of st's net jobs into *ld (zeroed first): 0, or
 * -1 with out->failed and its failure (a local scenario, too many
 * streams, out of memory).  eng_net_load_free(ld) either way. */
int eng_net_load(const struct scenario *s, const struct workload_step *st, int nstreams, struct eng_net_load *ld,
                 struct run_result *out);
void eng_net_load_free(struct eng_net_load *ld);
/* The NAS's threads (the fio peers, the network receive) and the links
 * the streams keep busy over the window T (s), as out's resources; the
 * NAS's cores they keep busy. */
/* 1 when j's stream is UDP (fio protocol=udp or udpv6), *ipv6 its family. */
int eng_net_udp(const struct job *j, int *ipv6);
/* UDP datagrams a receiver's socket buffer holds for job j (count): fio's
 * window_size as SO_RCVBUF (which Linux doubles), else Linux's default. */
double eng_net_udp_buffer(const struct job *j, double bs_bytes);
double eng_net_account(const struct scenario *s, const struct workload_step *st, const struct eng_net_load *ld,
                       double T, struct run_result *out);

#endif
