#include "models/net/lacp.h"

#include <string.h>

const char *const lacp_policy_names[] = {"layer2", "layer2+3", "layer3+4", NULL};
const char *const lacp_kernel_names[] = {"modern", "3.2", NULL};

/* EtherType of IPv4 (IEEE 802.3 / RFC 894). */
#define LACP_ETHERTYPE_IPV4 0x0800u

/* A host-order IPv4 address as the kernel's u32 load of the big-endian
 * field reads it on a little-endian CPU. */
static uint32_t lacp_ip_as_loaded(uint32_t ip_host)
{
  return ((ip_host >> 24) & 0xffu) | ((ip_host >> 8) & 0xff00u) | ((ip_host << 8) & 0xff0000u) |
         ((ip_host << 24) & 0xff000000u);
}

/* bond_eth_hash(): last MAC bytes and the EtherType (host order). */
static uint32_t lacp_eth_hash(const struct lacp_flow *f)
{
  return (uint32_t)(f->dst_mac[5] ^ f->src_mac[5]) ^ LACP_ETHERTYPE_IPV4;
}

/* bond_ip_hash(): fold in the addresses, then the upper bits. */
static uint32_t lacp_ip_hash(uint32_t hash, const struct lacp_flow *f, enum lacp_policy policy)
{
  hash ^= lacp_ip_as_loaded(f->dst_ip) ^ lacp_ip_as_loaded(f->src_ip);
  hash ^= hash >> 16;
  hash ^= hash >> 8;
  /* "discard lowest hash bit to deal with the common even ports pattern" */
  return policy == LACP_LAYER34 ? hash >> 1 : hash;
}

/* The ports word: sport then dport, big-endian in memory, loaded LE. */
static uint32_t lacp_ports_as_loaded(const struct lacp_flow *f)
{
  return (uint32_t)(f->src_port >> 8) | (uint32_t)(f->src_port & 0xffu) << 8 |
         (uint32_t)(f->dst_port >> 8) << 16 | (uint32_t)(f->dst_port & 0xffu) << 24;
}

static uint32_t lacp_hash_modern(enum lacp_policy policy, const struct lacp_flow *f)
{
  switch (policy) {
  case LACP_LAYER2:
    return lacp_eth_hash(f);
  case LACP_LAYER23:
    return lacp_ip_hash(lacp_eth_hash(f), f, policy);
  case LACP_LAYER34:
  default:
    return lacp_ip_hash(lacp_ports_as_loaded(f), f, LACP_LAYER34);
  }
}

static uint32_t lacp_hash_3_2(enum lacp_policy policy, const struct lacp_flow *f)
{
  uint32_t mac = (uint32_t)(f->dst_mac[5] ^ f->src_mac[5]);
  uint32_t ip16 = (f->src_ip ^ f->dst_ip) & 0xffffu; /* ntohl(saddr ^ daddr) & 0xffff */
  switch (policy) {
  case LACP_LAYER2:
    return mac;
  case LACP_LAYER23:
    return ip16 ^ mac;
  case LACP_LAYER34:
  default:
    return (uint32_t)(f->src_port ^ f->dst_port) ^ ip16;
  }
}

uint32_t lacp_hash_kernel(enum lacp_kernel kernel, enum lacp_policy policy,
                          const struct lacp_flow *flow)
{
  return kernel == LACP_KERNEL_3_2 ? lacp_hash_3_2(policy, flow) : lacp_hash_modern(policy, flow);
}

uint32_t lacp_hash(enum lacp_policy policy, const struct lacp_flow *flow)
{
  return lacp_hash_modern(policy, flow);
}

int lacp_member_kernel(enum lacp_kernel kernel, enum lacp_policy policy,
                       const struct lacp_flow *flow, int nmembers)
{
  if (nmembers <= 1)
    return 0;
  return (int)(lacp_hash_kernel(kernel, policy, flow) % (uint32_t)nmembers);
}

int lacp_member(enum lacp_policy policy, const struct lacp_flow *flow, int nmembers)
{
  return lacp_member_kernel(LACP_KERNEL_MODERN, policy, flow, nmembers);
}

void lacp_addr_for(int nas, int host_index, int nic, struct lacp_addr *out)
{
  uint32_t id = (uint32_t)host_index + 1u;
  uint32_t net = (uint32_t)nic + 1u;
  out->mac[0] = 0x02; /* locally administered, unicast */
  out->mac[3] = (uint8_t)nic;
  if (nas) {
    out->mac[1] = 0x4e; /* 'N' */
    out->mac[2] = 0x41; /* 'A' */
    out->mac[4] = 0xff;
    out->mac[5] = (uint8_t)id;
    out->ip = 10u << 24 | (net & 0xffu) << 16 | 255u << 8 | (id & 0xffu);
  } else {
    out->mac[1] = 0x43; /* 'C' */
    out->mac[2] = 0x4c; /* 'L' */
    out->mac[4] = (uint8_t)(id >> 8);
    out->mac[5] = (uint8_t)id;
    out->ip = 10u << 24 | (net & 0xffu) << 16 | ((id >> 8) & 0xffu) << 8 | (id & 0xffu);
  }
}

void lacp_flow_for(int client_index, int nas_index, int connection_index, int client_nic,
                   int nas_nic, uint16_t service_port, struct lacp_flow *out)
{
  struct lacp_addr c, n;
  lacp_addr_for(0, client_index, client_nic, &c);
  lacp_addr_for(1, nas_index, nas_nic, &n);
  memcpy(out->src_mac, c.mac, 6);
  memcpy(out->dst_mac, n.mac, 6);
  out->src_ip = c.ip;
  out->dst_ip = n.ip;
  out->src_port = (uint16_t)(LACP_EPHEMERAL_BASE + connection_index);
  out->dst_port = service_port;
}

void lacp_flow_reverse(const struct lacp_flow *flow, struct lacp_flow *out)
{
  struct lacp_flow r;
  memcpy(r.src_mac, flow->dst_mac, 6);
  memcpy(r.dst_mac, flow->src_mac, 6);
  r.src_ip = flow->dst_ip;
  r.dst_ip = flow->src_ip;
  r.src_port = flow->dst_port;
  r.dst_port = flow->src_port;
  *out = r;
}
