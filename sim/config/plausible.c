/* plausible.c - the scenario against the chassis's hardware limits (see plausible.h). */
#include "sim/config/plausible.h"

#include <stdarg.h>
#include <string.h>

struct plaus {
  const struct ynode *R;
  const struct scenario *s;
  int custom;
  FILE *out;
  struct nw_err *err;
};

/* The node at a dotted path of R, else the first of the fallbacks that exists, else R. */
static const struct ynode *plaus_node(const struct ynode *R, const char *path, const char *fallback)
{
  const struct ynode *n = ytree_path(R, path);
  if (!n && fallback)
    n = ytree_path(R, fallback);
  return n ? n : R;
}

/* A violation at n: refused (-1 with err), or with custom hardware a warning (0). */
__attribute__((format(printf, 3, 4))) static int plaus_report(struct plaus *p, const struct ynode *n,
                                                              const char *fmt, ...)
{
  char msg[sizeof p->err->msg - 80];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->custom) {
    fputs(n->file, p->out);
    if (n->line > 0)
      fprintf(p->out, ":%d:%d", n->line, n->col);
    fprintf(p->out, ": warning: %s (accepted: custom hardware)\n", msg);
    return 0;
  }
  return nw_fail(p->err, n->file, n->line, n->col, "%s; --custom-hardware (or custom_hardware: true) accepts it",
                 msg);
}

/* A line rate in bits, the way NICs are sold: "10 Gbit/s". */
static const char *plaus_bits(double bytes_per_s, char *buf, size_t len)
{
  double bits = bytes_per_s * 8;
  if (bits >= 1e9)
    snprintf(buf, len, "%g Gbit/s", bits / 1e9);
  else
    snprintf(buf, len, "%g Mbit/s", bits / 1e6);
  return buf;
}

/* "2 x 10 Gbit/s + 2 x 1 Gbit/s" */
static void plaus_ports(const struct system_params *sp, char *buf, size_t len)
{
  char fast[32], other[32];
  int ports = (int)sp->nic_ports;
  int nfast = sp->nic_fast_ports > 0 && sp->nic_fast_ports < ports ? (int)sp->nic_fast_ports : ports;
  plaus_bits(sp->nic_rate_bytes_per_s, fast, sizeof fast);
  if (nfast < ports)
    snprintf(buf, len, "%d x %s + %d x %s", nfast, fast, ports - nfast,
             plaus_bits(sp->nic_other_rate_bytes_per_s, other, sizeof other));
  else
    snprintf(buf, len, "%d x %s", ports, fast);
}

/* A byte rate written where a bit rate was meant: "10GB/s" -> "10Gbit/s"
 * into hint when that reading fits the limit.  0 when there is no such slip. */
static int plaus_slip(const char *text, double bytes_per_s, double limit, char *hint, size_t len)
{
  static const char *const byte_units[][2] = {{"GB/s", "Gbit/s"}, {"MB/s", "Mbit/s"}, {"KB/s", "kbit/s"}};
  size_t tl = strlen(text);
  for (size_t i = 0; i < sizeof byte_units / sizeof byte_units[0]; i++) {
    size_t ul = strlen(byte_units[i][0]);
    if (tl > ul && strcmp(text + tl - ul, byte_units[i][0]) == 0 && bytes_per_s / 8 <= limit * (1 + 1e-9)) {
      snprintf(hint, len, " (did you mean %.*s%s?)", (int)(tl - ul), text, byte_units[i][1]);
      return 1;
    }
  }
  return 0;
}

static int plaus_network(struct plaus *p)
{
  const struct system_params *sp = &p->s->system;
  const struct net_params *n = &p->s->net;
  const char *sys = p->s->system_name;
  char ports[96], have[32], want[32];
  if (sp->nic_ports <= 0 || sp->nic_rate_bytes_per_s <= 0)
    return 0;
  plaus_ports(sp, ports, sizeof ports);
  double rate = n->nas_link_rate_bytes_per_s;
  if (rate > sp->nic_rate_bytes_per_s * (1 + 1e-9)) {
    const struct ynode *v = plaus_node(p->R, "network.nas_link_rate", "network");
    char hint[64] = "";
    const char *text = v->kind == YNODE_SCALAR ? v->scalar : "";
    plaus_slip(text, rate, sp->nic_rate_bytes_per_s, hint, sizeof hint);
    if (plaus_report(p, v, "network.nas_link_rate: %s is %s; the %s ports are %s at most (%s)%s", text,
                     plaus_bits(rate, want, sizeof want), sys,
                     plaus_bits(sp->nic_rate_bytes_per_s, have, sizeof have), ports, hint) < 0)
      return -1;
  }
  const struct ynode *ln = plaus_node(p->R, "network.nas_links", "network");
  if (n->nas_links > sp->nic_ports)
    return plaus_report(p, ln, "network.nas_links: %g ports; the %s has %g (%s)", n->nas_links, sys,
                        sp->nic_ports, ports);
  if (sp->nic_fast_ports > 0 && n->nas_links > sp->nic_fast_ports &&
      rate > sp->nic_other_rate_bytes_per_s * (1 + 1e-9))
    return plaus_report(p, ln, "network.nas_links: %g ports at %s; the %s has %g at that rate (%s)",
                        n->nas_links, plaus_bits(rate, want, sizeof want), sys, sp->nic_fast_ports,
                        ports);
  return 0;
}

/* Where a drive model plugs in: "sata" (a drive bay), "nvme" (an M.2
 * slot), NULL (a teaching model: anywhere). */
static const char *plaus_interface(const struct disk_model *m)
{
  static const char *const iface[][2] = {{"hdd", "sata"}, {"sata_ssd", "sata"}, {"nvme", "nvme"}};
  for (size_t i = 0; m && i < sizeof iface / sizeof iface[0]; i++)
    if (strcmp(m->name, iface[i][0]) == 0)
      return iface[i][1];
  return NULL;
}

static int plaus_drives(struct plaus *p)
{
  const struct scenario *s = p->s;
  const struct system_params *sp = &s->system;
  int ncache = s->ssdcache.mode > 0 ? s->ncache_devs : 0;
  const char *di = plaus_interface(s->drive.model);
  const char *ci = ncache ? plaus_interface(s->cache_drive.model) : NULL;
  int sata = (di && !strcmp(di, "sata") ? s->ndisks : 0) + (ci && !strcmp(ci, "sata") ? ncache : 0);
  int nvme = (di && !strcmp(di, "nvme") ? s->ndisks : 0) + (ci && !strcmp(ci, "nvme") ? ncache : 0);
  double bays = sp->bays + sp->expansion_bays;
  if (sata > bays) {
    char cache[64] = "", exp[64] = "";
    if (ci && !strcmp(ci, "sata"))
      snprintf(cache, sizeof cache, " + %d SSD cache drives", ncache);
    if (sp->expansion_bays > 0)
      snprintf(exp, sizeof exp, " + %g in expansion units", sp->expansion_bays);
    if (plaus_report(p, plaus_node(p->R, "disks.count", "disks"),
                     "disks.count: %d disks%s need %d bays; the %s has %g%s", s->ndisks, cache, sata,
                     s->system_name, sp->bays, exp) < 0)
      return -1;
  }
  if (nvme > sp->m2_slots) {
    int in_disks = di && !strcmp(di, "nvme");
    const struct ynode *at = plaus_node(p->R, in_disks ? "disks.drive" : "ssd_cache.drive",
                                        in_disks ? "disks" : "ssd_cache");
    const char *name = in_disks ? s->drive.name : s->cache_drive.name;
    if (sp->m2_slots <= 0)
      return plaus_report(p, at, "%s.drive: %s is an NVMe (M.2) drive; the %s has no M.2 slot (its bays take SATA drives)",
                          in_disks ? "disks" : "ssd_cache", name, s->system_name);
    return plaus_report(p, at, "%s.drive: %d NVMe (M.2) drives; the %s has %g M.2 slots",
                        in_disks ? "disks" : "ssd_cache", nvme, s->system_name, sp->m2_slots);
  }
  return 0;
}

static int plaus_ram(struct plaus *p)
{
  const struct system_params *sp = &p->s->system;
  char got[32], max[32];
  if (sp->ram_max_bytes <= 0)
    return 0;
  units_format(sp->ram_max_bytes, UNITS_BYTES, max, sizeof max);
  if (sp->ram_bytes > sp->ram_max_bytes &&
      plaus_report(p, plaus_node(p->R, "chassis.ram", "chassis"), "chassis.ram: %s; the %s takes %s at most",
                   units_format(sp->ram_bytes, UNITS_BYTES, got, sizeof got), p->s->system_name, max) < 0)
    return -1;
  if (p->s->pcache.ram_bytes > sp->ram_max_bytes && p->s->pcache.ram_bytes != sp->ram_bytes)
    return plaus_report(p, plaus_node(p->R, "page_cache.ram", "page_cache"),
                        "page_cache.ram: %s; the %s takes %s of RAM at most",
                        units_format(p->s->pcache.ram_bytes, UNITS_BYTES, got, sizeof got),
                        p->s->system_name, max);
  return 0;
}

int cfg_plausible(const struct ynode *R, const struct scenario *s, FILE *warn_out, struct nw_err *err)
{
  struct plaus p = {.R = R, .s = s, .out = warn_out, .err = err};
  const struct ynode *c = ytree_get(R, "custom_hardware");
  if (c) {
    if (c->kind != YNODE_SCALAR)
      return nw_fail(err, c->file, c->line, c->col, "custom_hardware: expected true or false, got %s",
                     ytree_kind_name(c));
    if (strcmp(c->scalar, "true") != 0 && strcmp(c->scalar, "false") != 0)
      return nw_fail(err, c->file, c->line, c->col, "custom_hardware: '%s' is not allowed; one of: true, false",
                     c->scalar);
    p.custom = c->scalar[0] == 't';
  }
  if (plaus_network(&p) < 0 || plaus_drives(&p) < 0 || plaus_ram(&p) < 0)
    return -1;
  return 0;
}
