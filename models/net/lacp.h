/* lacp.h - Linux bonding transmit hash policies (802.3ad / balance-xor).
 *
 * lacp_hash() reproduces bond_xmit_hash() of drivers/net/bonding/
 * bond_main.c (Linux >= 3.18; flow-dissector version) for IPv4/TCP:
 *
 *   layer2:   h = dst_mac[5] ^ src_mac[5] ^ ethertype(0x0800)
 *   layer2+3: h = layer2 hash; h ^= dst_ip ^ src_ip; h ^= h >> 16; h ^= h >> 8
 *   layer3+4: h = ports;       h ^= dst_ip ^ src_ip; h ^= h >> 16; h ^= h >> 8;
 *             h >>= 1  (the kernel drops the low bit: even-port pattern)
 *
 * where ip and ports are the 32-bit words as the kernel reads them from
 * the packet on a little-endian CPU (x86, ARM): address a.b.c.d is
 * a | b<<8 | c<<16 | d<<24 and "ports" is the 4 bytes sport(be16),
 * dport(be16), i.e. sport>>8 | (sport&255)<<8 | (dport>>8)<<16 |
 * (dport&255)<<24.  The member is h % nmembers (bond_3ad_xor_xmit:
 * slaves->arr[hash % count]).  One flow therefore always maps to one
 * member: a TCP connection never spans members.
 *
 * lacp_hash_kernel(LACP_KERNEL_3_2, ...) gives the older hashes of Linux
 * 3.2 (DSM 5 era, bond_xmit_hash_policy_l2/l23/l34):
 *   layer2:   dst_mac[5] ^ src_mac[5]
 *   layer2+3: (ntohl(saddr ^ daddr) & 0xffff) ^ dst_mac[5] ^ src_mac[5]
 *   layer3+4: (sport ^ dport) ^ (ntohl(saddr ^ daddr) & 0xffff)
 * also taken modulo nmembers.
 *
 * Address convention (lacp_addr_for / lacp_flow_for), locally administered
 * MACs, ids from 1 (so index 0 -> id 1):
 *   client c, NIC k:  id = c + 1 (c < 65024)
 *       MAC 02:43:4c:k:(id>>8):(id&255)   IPv4 10.(k+1).(id>>8).(id&255)
 *   NAS n, NIC k:     id = n + 1 (n < 254)
 *       MAC 02:4e:41:k:ff:(id)            IPv4 10.(k+1).255.(id)
 *   A bond uses NIC 0's MAC/IP on every member (Linux: the bond takes its
 *   first slave's MAC); with MPIO each path k uses NIC k on both ends.
 *   TCP: client source port 32768 + connection index (the start of
 *   Linux's ip_local_port_range), destination port = the service port
 *   (445 SMB, 2049 NFS, 3260 iSCSI). */
#ifndef NASTWIN_LACP_H
#define NASTWIN_LACP_H

#include <stdint.h>

enum lacp_policy { LACP_LAYER2 = 0, LACP_LAYER23 = 1, LACP_LAYER34 = 2 };

extern const char *const lacp_policy_names[]; /* "layer2", "layer2+3", "layer3+4", NULL */

/* Which kernel's bond_xmit_hash: current (>= 3.18, default) or 3.2. */
enum lacp_kernel { LACP_KERNEL_MODERN = 0, LACP_KERNEL_3_2 = 1 };
extern const char *const lacp_kernel_names[]; /* "modern", "3.2", NULL */

/* Service ports (IANA). */
#define LACP_PORT_SMB 445
#define LACP_PORT_NFS 2049
#define LACP_PORT_ISCSI 3260
/* First ephemeral port of Linux's default ip_local_port_range. */
#define LACP_EPHEMERAL_BASE 32768

/* One direction of a TCP connection as the sender's bond sees it. */
struct lacp_flow {
  uint8_t src_mac[6], dst_mac[6];
  uint32_t src_ip, dst_ip;     /* host order: 10.0.0.1 = 0x0a000001 */
  uint16_t src_port, dst_port; /* host order */
};

/* One endpoint's addresses. */
struct lacp_addr {
  uint8_t mac[6];
  uint32_t ip; /* host order */
};

/* The kernel's 32-bit transmit hash for a flow under a policy. */
uint32_t lacp_hash(enum lacp_policy policy, const struct lacp_flow *flow);

/* The 32-bit transmit hash of a given kernel generation. */
uint32_t lacp_hash_kernel(enum lacp_kernel kernel, enum lacp_policy policy,
                          const struct lacp_flow *flow);

/* Member link (0..nmembers-1) carrying the flow (current kernel);
 * 0 when nmembers <= 1. */
int lacp_member(enum lacp_policy policy, const struct lacp_flow *flow, int nmembers);

/* Member link of a given kernel generation; 0 when nmembers <= 1. */
int lacp_member_kernel(enum lacp_kernel kernel, enum lacp_policy policy,
                       const struct lacp_flow *flow, int nmembers);

/* Addresses of client `client_index` NIC `nic` (nas = 0), or NAS
 * `host_index` NIC `nic` (nas = 1), per the convention above. */
void lacp_addr_for(int nas, int host_index, int nic, struct lacp_addr *out);

/* Client->NAS direction of connection `connection_index` of client
 * `client_index` to NAS `nas_index`, using client NIC client_nic and NAS
 * NIC nas_nic (0 for bonds), to service_port. */
void lacp_flow_for(int client_index, int nas_index, int connection_index, int client_nic,
                   int nas_nic, uint16_t service_port, struct lacp_flow *out);

/* The opposite direction of a flow (NAS->client): swaps MACs, IPs, ports. */
void lacp_flow_reverse(const struct lacp_flow *flow, struct lacp_flow *out);

#endif
