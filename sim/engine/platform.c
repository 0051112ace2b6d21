#include "sim/engine/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/net/lacp.h"

int plat_conns_per_client(const struct scenario *s)
{
  if ((enum proto_kind)s->proto.kind == PROTO_LOCAL)
    return 1;
  if ((enum net_mode)s->net.mode == NET_MODE_MPIO)
    return net_mpio_paths(&s->net);
  if ((enum proto_kind)s->proto.kind == PROTO_SMB && s->proto.multichannel > 0) {
    int a = (int)s->net.nas_links, b = (int)s->net.client_nics;
    return (a < b ? a : b) * (int)s->proto.smb_connections_per_nic;
  }
  return 1;
}

static uint16_t plat_service_port(const struct scenario *s)
{
  switch ((enum proto_kind)s->proto.kind) {
  case PROTO_NFS: return LACP_PORT_NFS;
  case PROTO_ISCSI: return LACP_PORT_ISCSI;
  default: return LACP_PORT_SMB;
  }
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
  enum net_mode mode = (enum net_mode)s->net.mode;
  enum lacp_kernel kern = (enum lacp_kernel)s->net.bond_hash_kernel;
  uint16_t port = plat_service_port(s);
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
    }
  return 0;
}

static void plat_link(FILE *f, const char *id, double rate, double lat, const char *policy)
{
  fprintf(f, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"%s\"/>\n",
          id, rate, lat, policy);
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
  double hop_s = s->net.link_latency_s;
  double sw_s = s->net.switch_hops > 0 ? s->net.switch_latency_s * s->net.switch_hops : 0.0;
  int cores = map->nas_cores;
  double pidle = s->soc.power_idle_W, pcore = s->soc.power_core_busy_W;
  fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n");
  fprintf(f, "    <host id=\"nas\" speed=\"%.17gf\" core=\"%d\">\n", map->nas_speed_cycles_per_s, cores);
  fprintf(f, "      <prop id=\"wattage_per_state\" value=\"%.17g:%.17g:%.17g\"/>\n", pidle,
          pidle + pcore, pidle + pcore * cores);
  fprintf(f, "      <prop id=\"wattage_off\" value=\"0\"/>\n    </host>\n");
  /* Client compute is not what is modelled: a fast many-core host. */
  for (int c = 0; c < s->nclients; c++)
    fprintf(f, "    <host id=\"c%d\" speed=\"1e12f\" core=\"64\"/>\n", c);
  for (int i = 0; i < map->nconns; i++)
    fprintf(f, "    <host id=\"%s\" speed=\"1e12f\" core=\"64\"/>\n", map->conns[i].host);
  char id[64];
  for (int m = 0; m < map->nas_ports; m++) {
    snprintf(id, sizeof id, "nas%d", m);
    plat_link(f, id, map->nas_port_payload_bytes_per_s, hop_s, "SPLITDUPLEX");
  }
  for (int c = 0; c < s->nclients; c++)
    for (int j = 0; j < map->client_nics; j++) {
      snprintf(id, sizeof id, "c%dn%d", c, j);
      plat_link(f, id, map->client_nic_payload_bytes_per_s, hop_s, "SPLITDUPLEX");
    }
  if (map->blocking_switch)
    plat_link(f, "switch", s->net.switch_backplane_bytes_per_s, sw_s, "SHARED");
  else if (sw_s > 0)
    plat_link(f, "switch", 1e15, sw_s, "FATPIPE");
  int sw = map->blocking_switch || sw_s > 0;
  for (int i = 0; i < map->nconns; i++) {
    const struct plat_conn *pc = &map->conns[i];
    fprintf(f, "    <route src=\"%s\" dst=\"nas\" symmetrical=\"NO\">"
               "<link_ctn id=\"c%dn%d\" direction=\"UP\"/>%s<link_ctn id=\"nas%d\" direction=\"DOWN\"/></route>\n",
            pc->host, pc->client, pc->client_tx, sw ? "<link_ctn id=\"switch\"/>" : "", pc->nas_rx);
    fprintf(f, "    <route src=\"nas\" dst=\"%s\" symmetrical=\"NO\">"
               "<link_ctn id=\"nas%d\" direction=\"UP\"/>%s<link_ctn id=\"c%dn%d\" direction=\"DOWN\"/></route>\n",
            pc->host, pc->nas_tx, sw ? "<link_ctn id=\"switch\"/>" : "", pc->client, pc->client_rx);
  }
  fprintf(f, "  </zone>\n</platform>\n");
  if (fclose(f) != 0) {
    unlink(path);
    return nw_fail(err, path, 0, 0, "cannot write the platform file");
  }
  return 0;
}
