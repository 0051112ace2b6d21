#include "sim/engine/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/net/lacp.h"

int plat_conns_per_client(const struct scenario *s)
{
  const struct proto_ops *ops = proto_ops_of(&s->proto);
  if (ops->shape == PROTO_SHAPE_NONE)
    return 1;
  if ((enum net_mode)s->net.mode == NET_MODE_MPIO)
    return net_mpio_paths(&s->net);
  int per_pair = ops->conns_per_nic_pair(&s->proto);
  if (per_pair > 0) {
    int a = (int)s->net.nas_links, b = (int)s->net.client_nics;
    return (a < b ? a : b) * per_pair;
  }
  return 1;
}

int plat_build(const struct scenario *s, struct plat_map *map, struct nw_err *err)
{
  memset(map, 0, sizeof *map);
  map->conns_per_client = plat_conns_per_client(s);
  map->nas_ports = (int)s->net.nas_links;
  map->client_nics = (int)s->net.client_nics;
  map->nas_port_payload_bytes_per_s = net_nas_link_payload_rate_bytes_per_s(&s->net);
  map->client_nic_payload_bytes_per_s = net_client_link_payload_rate_bytes_per_s(&s->net);
  map->nas_speed_cycles_per_s = soc_effective_speed_cycles_per_s(&s->soc);
  map->nas_cores = (int)s->soc.cores;
  map->blocking_switch = s->net.switch_backplane_bytes_per_s > 0;
  long n = (long)s->nclients * map->conns_per_client;
  if (n > PLAT_MAX_CONNS)
    return nw_fail(err, s->path, 0, 0, "%d clients x %d connections exceed %d connections",
                   s->nclients, map->conns_per_client, PLAT_MAX_CONNS);
  map->nconns = (int)n;
  long hosts = PLAT_NAS_HOSTS_FIXED + PLAT_NAS_HOSTS_PER_CONN * n;
  map->nas_hosts = hosts < PLAT_NAS_HOSTS_MAX ? (int)hosts : PLAT_NAS_HOSTS_MAX;
  enum net_mode mode = (enum net_mode)s->net.mode;
  enum lacp_kernel kern = (enum lacp_kernel)s->net.bond_hash_kernel;
  uint16_t port = (uint16_t)proto_ops_of(&s->proto)->service_port;
  if (mode == NET_MODE_LACP && map->conns_per_client == 1 && map->nas_ports > 1)
    for (int f = 0; f < s->nfaults; f++)
      if (s->faults[f].kind == CFG_FAULT_PATH_DOWN && s->faults[f].target < map->nas_ports &&
          s->faults[f].target < PLAT_MAX_BOND)
        map->failover |= 1u << s->faults[f].target;
  for (int c = 0; c < s->nclients; c++)
    for (int k = 0; k < map->conns_per_client; k++) {
      struct plat_conn *pc = &map->conns[c * map->conns_per_client + k];
      pc->client = c;
      pc->index = k;
      snprintf(pc->host, sizeof pc->host, "c%dk%d", c, k);
      if (mode == NET_MODE_MPIO || map->conns_per_client > 1) {
        /* One path per NIC pair: path k uses NIC pair k (SMB multichannel
         * spreads its connections over the pairs the same way). */
        int pairs = map->nas_ports < map->client_nics ? map->nas_ports : map->client_nics;
        pc->nas_rx = pc->nas_tx = k % pairs;
        pc->client_tx = pc->client_rx = k % pairs;
        continue;
      }
      if (mode == NET_MODE_SINGLE) {
        pc->nas_rx = pc->nas_tx = 0;
        pc->client_tx = pc->client_rx = 0;
        continue;
      }
      /* LACP: each direction hashed by its sender (client bond, the
       * switch's port-channel towards the NAS, the NAS bond, the switch
       * towards a bonded client). */
      struct lacp_flow up, down;
      lacp_flow_for(c, 0, k, 0, 0, port, &up);
      lacp_flow_reverse(&up, &down);
      pc->client_tx = lacp_member_kernel(kern, (enum lacp_policy)s->net.lacp_hash, &up, map->client_nics);
      pc->nas_rx = lacp_member_kernel(kern, (enum lacp_policy)s->net.switch_hash, &up, map->nas_ports);
      pc->nas_tx = lacp_member_kernel(kern, (enum lacp_policy)s->net.lacp_hash, &down, map->nas_ports);
      pc->client_rx = lacp_member_kernel(kern, (enum lacp_policy)s->net.switch_hash, &down, map->client_nics);
      for (int m = 0; m < map->nas_ports && m < PLAT_MAX_BOND; m++) {
        if (!(map->failover & (1u << m)))
          continue;
        /* The bond without m: the hash picks among the survivors, in order. */
        int surv[PLAT_MAX_BOND], ns = 0;
        for (int x = 0; x < map->nas_ports && x < PLAT_MAX_BOND; x++)
          if (x != m)
            surv[ns++] = x;
        pc->alt_rx[m] = surv[lacp_member_kernel(kern, (enum lacp_policy)s->net.switch_hash, &up, ns)];
        pc->alt_tx[m] = surv[lacp_member_kernel(kern, (enum lacp_policy)s->net.lacp_hash, &down, ns)];
      }
    }
  return 0;
}

/* The failover hosts of every connection: its client end while the bond
 * runs without member M. */
static void plat_write_failover(FILE *f, const struct plat_map *map)
{
  for (int i = 0; i < map->nconns; i++)
    for (int m = 0; m < map->nas_ports && m < PLAT_MAX_BOND; m++)
      if (map->failover & (1u << m))
        fprintf(f, "    <host id=\"%sx%d\" speed=\"%.17gf\"/>\n", map->conns[i].host, m, PLAT_CLIENT_SPEED);
}

void plat_nas_host_name(int k, char *buf, size_t len)
{
  if (k > 0)
    snprintf(buf, len, "nas.%d", k);
  else
    snprintf(buf, len, "nas");
}

int plat_write(const struct scenario *s, const struct plat_map *map, char *path, size_t len,
               struct nw_err *err)
{
  snprintf(path, len, "/tmp/nastwin-platform-XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0)
    return nw_fail(err, path, 0, 0, "cannot create the platform file");
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(path);
    return nw_fail(err, path, 0, 0, "cannot write the platform file");
  }
  fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n");
  for (int k = 0; k < map->nas_hosts; k++) {
    char name[32];
    plat_nas_host_name(k, name, sizeof name);
    fprintf(f, "    <host id=\"%s\" speed=\"%.17gf\"/>\n", name, map->nas_speed_cycles_per_s);
  }
  /* Client compute is not what is modelled (PLAT_CLIENT_SPEED). */
  for (int c = 0; c < s->nclients; c++)
    fprintf(f, "    <host id=\"c%d\" speed=\"%.17gf\"/>\n", c, PLAT_CLIENT_SPEED);
  for (int i = 0; i < map->nconns; i++)
    fprintf(f, "    <host id=\"%s\" speed=\"%.17gf\"/>\n", map->conns[i].host, PLAT_CLIENT_SPEED);
  if (map->failover)
    plat_write_failover(f, map);
  fprintf(f, "  </zone>\n</platform>\n");
  if (fclose(f) != 0) {
    unlink(path);
    return nw_fail(err, path, 0, 0, "cannot write the platform file");
  }
  return 0;
}
