/* net.h - the `network:` section of a scenario: links, MTU, switch, bond,
 * MPIO and TCP settings, as a declarative parameter table.
 *
 * Topology the engine builds from these (one switch unless switch_hops=0):
 *
 *   client c NIC k --[client_link_rate]-- switch --[nas_link_rate]-- NAS NIC m
 *
 * mode single: one NAS link is used (nas_links may list more, the rest idle);
 * mode lacp:   the NAS's nas_links form one 802.3ad bond; each TCP connection
 *              is pinned per direction to a member by lacp.h (NAS transmit:
 *              lacp_hash; switch towards the NAS: switch_hash; a client with
 *              client_nics > 1 bonds them too and uses lacp_hash);
 * mode mpio:   min(nas_links, client_nics) independent paths (one subnet each,
 *              client NIC i <-> NAS NIC i), one iSCSI session/TCP connection
 *              per path, commands spread by the mpio.h selector mpio_policy.
 * Pure C, no SimGrid. */
#ifndef NASTWIN_NET_H
#define NASTWIN_NET_H

#include <stddef.h>

#include "base/err.h"
#include "base/params.h"

enum net_mode { NET_MODE_SINGLE = 0, NET_MODE_LACP = 1, NET_MODE_MPIO = 2 };

struct net_params {
  double mode;                     /* index into net_mode_names */
  double nas_links;                /* NAS NICs in use (count) */
  double nas_link_rate_bytes_per_s;
  double client_link_rate_bytes_per_s;
  double client_nics;              /* NICs per client (count) */
  double mtu_bytes;                /* IP MTU, same end to end */
  double tcp_timestamps;           /* 0/1: TCP timestamp option on */
  double lacp_hash;                /* index into lacp_policy_names (bond transmit) */
  double switch_hash;              /* index into lacp_policy_names (switch port-channel) */
  double bond_hash_kernel;         /* index into lacp_kernel_names */
  double link_latency_s;           /* one way, per cable hop incl. NIC/PHY */
  double switch_hops;              /* switches between client and NAS (0 = direct cable) */
  double switch_latency_s;         /* one way, per switch traversal */
  double switch_backplane_bytes_per_s; /* 0 = non-blocking */
  double tcp_window_bytes;         /* max receive window per connection */
  double mpio_policy;              /* index into mpio_policy_names */
  double mpio_rr_repeat;           /* round-robin: commands per path before switching */
  double miimon_s;                 /* LACP: bond link monitor interval; a dead member
                                      leaves (and a live one rejoins) after it */
};

extern const char *const net_mode_names[];   /* "single", "lacp", "mpio", NULL */
extern const char *const mpio_policy_names[]; /* "round-robin", "least-queue-depth", NULL */
extern const struct param_desc net_param_table[];
extern const size_t net_param_count;

/* Cross-field checks after the range checks (link counts vs mode).
 * 0, or -1 with err naming the keys and values. */
int net_check(const struct net_params *p, struct nw_err *err);

/* Number of MPIO paths for mode mpio (count): min(nas_links, client_nics);
 * 1 for the other modes. */
int net_mpio_paths(const struct net_params *p);

/* One-way latency client<->NAS without serialisation (s):
 * (switch_hops + 1) * link_latency + switch_hops * switch_latency. */
double net_one_way_latency_s(const struct net_params *p);

/* Round-trip time of a small segment client->NAS->client (s): 2 * one way. */
double net_rtt_s(const struct net_params *p);

/* TCP payload rate of one NAS link at the scenario's MTU (bytes/s). */
double net_nas_link_payload_rate_bytes_per_s(const struct net_params *p);

/* TCP payload rate of one client link at the scenario's MTU (bytes/s). */
double net_client_link_payload_rate_bytes_per_s(const struct net_params *p);

#endif
