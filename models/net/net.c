#include "models/net/net.h"

#include <stddef.h>

#include "models/net/frame.h"
#include "models/net/lacp.h"

const char *const net_mode_names[] = {"single", "lacp", "mpio", NULL};
const char *const mpio_policy_names[] = {"round-robin", "least-queue-depth", NULL};

#define NET_OFF(field) offsetof(struct net_params, field)

/* Ranges: link rates from 10 Mbit/s to 400 Gbit/s Ethernet; MTU from the
 * IPv4 minimum reassembly size 576 to the usual jumbo maximum 9216;
 * latencies up to 10 ms (a LAN, not a WAN); windows 4 KiB .. 1 GiB
 * (Linux tcp_rmem ceiling with window scaling). */
const struct param_desc net_param_table[] = {
    {.key = "mode", .offset = NET_OFF(mode), .min = 0, .max = 2, .optional = 1, .def = NET_MODE_SINGLE,
     .help = "single link, lacp bond or mpio paths", .choices = net_mode_names},
    {.key = "nas_links", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(nas_links), .min = 1, .max = 8,
     .optional = 1, .def = 1, .help = "NAS NICs in use (count)"},
    {.key = "nas_link_rate", .dim = UNITS_RATE, .offset = NET_OFF(nas_link_rate_bytes_per_s),
     .min = 1.25e6, .max = 5e10, .optional = 1, .def = 1.25e8,
     .help = "line rate of each NAS link (e.g. 1Gbit/s, 10Gbit/s)"},
    {.key = "client_link_rate", .dim = UNITS_RATE, .offset = NET_OFF(client_link_rate_bytes_per_s),
     .min = 1.25e6, .max = 5e10, .optional = 1, .def = 1.25e8,
     .help = "line rate of each client NIC"},
    {.key = "client_nics", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(client_nics), .min = 1, .max = 8,
     .optional = 1, .def = 1, .help = "NICs per client host (count; bonded in lacp, paths in mpio)"},
    {.key = "mtu", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(mtu_bytes), .min = 576, .max = 9216,
     .optional = 1, .def = 1500, .help = "IP MTU in bytes, end to end (1500 standard, 9000 jumbo)"},
    {.key = "tcp_timestamps", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(tcp_timestamps), .min = 0,
     .max = 1, .optional = 1, .def = 0,
     .help = "0/1: TCP timestamp option (12 B per segment; Windows default off, Linux on)"},
    {.key = "lacp_hash", .offset = NET_OFF(lacp_hash), .min = 0, .max = 2, .optional = 1,
     .def = LACP_LAYER2, .help = "bond xmit_hash_policy (Linux default layer2)",
     .choices = lacp_policy_names},
    {.key = "switch_hash", .offset = NET_OFF(switch_hash), .min = 0, .max = 2, .optional = 1,
     .def = LACP_LAYER2, .help = "switch port-channel hash towards the NAS, same family",
     .choices = lacp_policy_names},
    {.key = "bond_hash_kernel", .offset = NET_OFF(bond_hash_kernel), .min = 0, .max = 1,
     .optional = 1, .def = LACP_KERNEL_MODERN,
     .help = "bond_xmit_hash generation: modern (>= 3.18) or 3.2 (DSM 5)",
     .choices = lacp_kernel_names},
    {.key = "link_latency", .dim = UNITS_TIME, .offset = NET_OFF(link_latency_s), .min = 0,
     .max = 1e-2, .optional = 1, .def = 1e-5,
     .help = "one-way latency per cable hop incl. NIC, PHY and driver (s)"},
    {.key = "switch_hops", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(switch_hops), .min = 0, .max = 4,
     .optional = 1, .def = 1, .help = "switches between client and NAS (0 = direct cable)"},
    {.key = "switch_latency", .dim = UNITS_TIME, .offset = NET_OFF(switch_latency_s), .min = 0,
     .max = 1e-2, .optional = 1, .def = 5e-6, .help = "one-way forwarding latency per switch (s)"},
    {.key = "switch_backplane", .dim = UNITS_RATE, .offset = NET_OFF(switch_backplane_bytes_per_s),
     .min = 0, .max = 1e12, .optional = 1, .def = 0,
     .help = "switch fabric capacity (0B/s = non-blocking)"},
    {.key = "tcp_window", .dim = UNITS_BYTES, .offset = NET_OFF(tcp_window_bytes), .min = 4096,
     .max = 1073741824.0, .optional = 1, .def = 4194304.0,
     .help = "max TCP receive window per connection (bytes)"},
    {.key = "mpio_policy", .offset = NET_OFF(mpio_policy), .min = 0, .max = 1, .optional = 1,
     .def = 0, .help = "MPIO path selector", .choices = mpio_policy_names},
    {.key = "mpio_rr_repeat", .dim = UNITS_NUMBER, .whole = 1, .offset = NET_OFF(mpio_rr_repeat), .min = 1,
     .max = 10000, .optional = 1, .def = 1,
     .help = "round-robin: commands sent on a path before the next (dm rr_min_io; VMware iops=1000)"},
    /* Linux bonding polls each member's carrier every miimon ms and takes
     * a dead one out of the bond at the next poll (drivers/net/bonding,
     * Documentation/networking/bonding.rst: "a value of 100 is a good
     * starting point"; the module default 0 disables it, distributions and
     * NAS firmware configure 100).  Until then frames hashed to it are lost. */
    {.key = "miimon", .dim = UNITS_TIME, .offset = NET_OFF(miimon_s), .min = 0.001, .max = 10,
     .optional = 1, .def = 0.1,
     .help = "LACP bond link monitor interval (s): a dead member leaves the bond after it (Linux bonding 100 ms)"},
};
const size_t net_param_count = PARAM_COUNT(net_param_table);

int net_check(const struct net_params *p, struct nw_err *err)
{
  if ((int)p->mode == NET_MODE_MPIO && p->switch_hops == 0 && p->client_nics != p->nas_links)
    return nw_fail(err, NULL, 0, 0,
                   "network: mode mpio with switch_hops 0 (direct cables) needs client_nics == "
                   "nas_links, got client_nics %g and nas_links %g",
                   p->client_nics, p->nas_links);
  if ((int)p->mode == NET_MODE_SINGLE && p->client_nics > 1)
    return nw_fail(err, NULL, 0, 0,
                   "network: mode single uses one NIC per client, got client_nics %g "
                   "(use mode lacp or mpio)",
                   p->client_nics);
  return 0;
}

int net_mpio_paths(const struct net_params *p)
{
  if ((int)p->mode != NET_MODE_MPIO)
    return 1;
  return (int)(p->nas_links < p->client_nics ? p->nas_links : p->client_nics);
}

double net_one_way_latency_s(const struct net_params *p)
{
  return (p->switch_hops + 1.0) * p->link_latency_s + p->switch_hops * p->switch_latency_s;
}

double net_rtt_s(const struct net_params *p)
{
  return 2.0 * net_one_way_latency_s(p);
}

double net_nas_link_payload_rate_bytes_per_s(const struct net_params *p)
{
  return net_payload_rate_bytes_per_s(p->nas_link_rate_bytes_per_s, p->mtu_bytes,
                                      (int)p->tcp_timestamps);
}

double net_client_link_payload_rate_bytes_per_s(const struct net_params *p)
{
  return net_payload_rate_bytes_per_s(p->client_link_rate_bytes_per_s, p->mtu_bytes,
                                      (int)p->tcp_timestamps);
}
