/* platform.h - the scenario's hosts as a SimGrid platform, and the links
 * each connection's traffic takes.
 *
 * SimGrid 3.32's C API cannot create hosts, so the platform is written as
 * XML (DTD 4.1) to a temporary file and loaded.  Hosts:
 *
 *   host "nas"       the SoC: speed = clock x work_per_cycle (SimGrid
 *                    flops = reference cycles); its cores are cpu.c's
 *   host "nas.N"     N = 1 .. nas_hosts - 1: the same, more of them to
 *                    spread the NAS-side actors over (below)
 *   host "cI"        client I (compute is not modelled: fast host)
 *   host "cIkK"      client I's connection K: where its client actors run
 *   host "cIkKxM"    its client end while LACP member M is out of the
 *                    bond (a fault takes it down): the engine moves the
 *                    connection's actors there at the rehash
 *
 * The links are not SimGrid's: the transfers run on the engine's own flow
 * model (flow.h, chan.c), over NAS port M (full duplex, payload rate at
 * the scenario's MTU), client I's NIC J and the switch backplane (when it
 * is blocking).  Towards the NAS: the client NIC the client's bond hashes
 * to, the NAS port the switch's hash (or the MPIO path) picks; back: the
 * NAS bond's hash and the switch's towards the client.  plat_build pins
 * every connection to them, and to the survivors' for each failover.
 *
 * SimGrid only runs the actors and times their waits (no SimGrid
 * execution or communication): every host has SimGrid's one core, so its
 * CPU model can be the trace-integration one (cpu/optim:TI, which takes
 * single-core hosts only), whose sleeps stay out of the max-min system
 * the default lazy model puts each of them in.  That model brings every
 * action of a host up to date whenever one of them starts or ends, so the
 * NAS-side actors are spread over nas_hosts hosts (which host an actor
 * is on means nothing on the NAS side: only a client end's host picks a
 * route). */
#ifndef NASTWIN_PLATFORM_H
#define NASTWIN_PLATFORM_H

#include "sim/config/config.h"

#define PLAT_MAX_CONNS 2048
#define PLAT_MAX_BOND 8 /* 802.3ad: at most 8 active members */
/* A client's compute is not what is modelled: a local drive's host (the
 * client itself) has cores and speed to spare. */
#define PLAT_CLIENT_CORES 64
#define PLAT_CLIENT_SPEED 1e12 /* reference cycles/s per core */
/* NAS hosts: a few per connection (its socket, reply lane and daemon)
 * and the kernel threads, schedulers and pools, within a bound on the
 * platform's size. */
#define PLAT_NAS_HOSTS_FIXED 32
#define PLAT_NAS_HOSTS_PER_CONN 3
#define PLAT_NAS_HOSTS_MAX 1024

/* One client TCP connection (SMB channel, NFS mount, iSCSI session/path). */
struct plat_conn {
  int client;          /* client index */
  int index;           /* connection index within the client */
  char host[32];       /* SimGrid host of this connection's client end */
  int nas_rx;          /* NAS port carrying client->NAS traffic */
  int nas_tx;          /* NAS port carrying NAS->client traffic */
  int client_tx;       /* client NIC carrying client->NAS */
  int client_rx;       /* client NIC carrying NAS->client */
  /* LACP failover: with NAS port M out of the bond (bit M of
   * plat_map.failover), the flow rehashes over the survivors onto
   * alt_rx[M] / alt_tx[M]; its client end is then host "<host>xM" (the
   * engine moves the connection's client actors there). */
  int alt_rx[PLAT_MAX_BOND], alt_tx[PLAT_MAX_BOND];
};

struct plat_map {
  int nconns;
  int conns_per_client;
  struct plat_conn conns[PLAT_MAX_CONNS];
  int nas_ports;
  int client_nics;
  double nas_port_payload_bytes_per_s;
  double client_nic_payload_bytes_per_s;
  double nas_speed_cycles_per_s;
  int nas_cores;
  int nas_hosts;       /* "nas" and "nas.1" .. : the NAS-side actors' SimGrid hosts */
  int blocking_switch;
  unsigned failover;   /* LACP: bit M set = a fault takes NAS port M down (alternative routes exist) */
};

/* Connections per client for this scenario (SMB multichannel, MPIO paths). */
int plat_conns_per_client(const struct scenario *s);

/* Decide the topology and pin every connection to its links. */
int plat_build(const struct scenario *s, struct plat_map *map, struct nw_err *err);

/* The SimGrid name of NAS host k (0 .. nas_hosts - 1): "nas", "nas.K". */
void plat_nas_host_name(int k, char *buf, size_t len);

/* Write the platform XML (its hosts) to a new temporary file; path receives its name
 * (caller unlinks).  0 or -1. */
int plat_write(const struct scenario *s, const struct plat_map *map, char *path, size_t len,
               struct nw_err *err);

#endif
