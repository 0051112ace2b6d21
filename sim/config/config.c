#include "sim/config/config.h"
#include "sim/config/replay.h"
#include "sim/config/drive_layout.h"
#include "base/datadir.h"

#include "sim/config/config_impl.h"
#include "sim/config/config_workload.h"
#include "sim/config/plausible.h"
#include "sim/config/workload_build.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct param_desc system_param_table[] = {
    {.key = "bays", .dim = UNITS_NUMBER, .offset = offsetof(struct system_params, bays), .min = 1,
     .max = 64, .help = "drive bays in the chassis (expansion units add more disks)"},
    {.key = "ram", .dim = UNITS_BYTES, .offset = offsetof(struct system_params, ram_bytes),
     .min = 64e6, .max = 1.1e12, .help = "RAM of the NAS (bytes)"},
    /* Hardware limits for the plausibility check (sim/config/plausible.c);
     * 0 = not known, not checked. */
    {.key = "expansion_bays", .dim = UNITS_NUMBER,
     .offset = offsetof(struct system_params, expansion_bays), .min = 0, .max = 256, .optional = 1,
     .def = 0, .help = "drive bays added by the largest supported set of expansion units"},
    {.key = "ram_max", .dim = UNITS_BYTES, .offset = offsetof(struct system_params, ram_max_bytes),
     .min = 0, .max = 1.1e12, .optional = 1, .def = 0,
     .help = "most RAM the chassis takes (bytes; 0 = not known)"},
    {.key = "nic_ports", .dim = UNITS_NUMBER, .offset = offsetof(struct system_params, nic_ports),
     .min = 0, .max = 64, .optional = 1, .def = 0,
     .help = "NAS network ports of any rate (0 = not known)"},
    {.key = "nic_rate", .dim = UNITS_RATE, .offset = offsetof(struct system_params, nic_rate_bytes_per_s),
     .min = 0, .max = 1e12, .optional = 1, .def = 0,
     .help = "line rate of the fastest NAS port (bytes/s; 0 = not known)"},
    {.key = "nic_fast_ports", .dim = UNITS_NUMBER,
     .offset = offsetof(struct system_params, nic_fast_ports), .min = 0, .max = 64, .optional = 1,
     .def = 0, .help = "ports at nic_rate (0 = all of nic_ports)"},
    {.key = "nic_other_rate", .dim = UNITS_RATE,
     .offset = offsetof(struct system_params, nic_other_rate_bytes_per_s), .min = 0, .max = 1e12,
     .optional = 1, .def = 1.25e8, .help = "line rate of the other ports (bytes/s)"},
    {.key = "m2_slots", .dim = UNITS_NUMBER, .offset = offsetof(struct system_params, m2_slots),
     .min = 0, .max = 16, .optional = 1, .def = 0, .help = "M.2 NVMe slots (bays take SATA drives)"},
    {.key = "power_base", .dim = UNITS_POWER, .offset = offsetof(struct system_params, power_base_W),
     .min = 0, .max = 200, .help = "power of board, fans and PSU losses, excluding SoC, drives, ports (W)"},
    {.key = "power_nic_port", .dim = UNITS_POWER,
     .offset = offsetof(struct system_params, power_nic_port_W), .min = 0, .max = 20,
     .optional = 1, .def = 0, .help = "power per NAS network port in use (W)"},
    /* wall power = DC load / efficiency: the PSU's conversion loss grows
     * with the load (drives, SoC), it is not a constant.  1 = not modelled
     * (power_base then holds the loss at the measured load) */
    {.key = "power_psu_efficiency", .dim = UNITS_NUMBER,
     .offset = offsetof(struct system_params, power_psu_efficiency), .min = 0.5, .max = 1,
     .optional = 1, .def = 1, .help = "power supply efficiency, DC load / wall power (fraction)"},
};
const size_t system_param_count = PARAM_COUNT(system_param_table);

const char *const client_ra_unit_names[] = {"application-read", "protocol-read", NULL};
const char *const client_cache_scope_names[] = {"all", "local-volume", NULL};
static const char *const client_bool_names[] = {"false", "true", NULL};

const struct param_desc client_param_table[] = {
    {.key = "ram", .dim = UNITS_BYTES, .offset = offsetof(struct client_params, ram_bytes), .min = 0,
     .max = 1.1e12, .optional = 1, .def = 0,
     .help = "client page cache for buffered writes (bytes; 0 = none)"},
    {.key = "dirty_ratio", .dim = UNITS_NUMBER, .offset = offsetof(struct client_params, dirty_ratio),
     .min = 0.01, .max = 1, .optional = 1, .def = 0.2,
     .help = "share of client RAM that may be dirty or under write-back before a writer waits for the "
             "write-back (Linux vm.dirty_ratio, fraction; the default without clients.os: 0.2)"},
    {.key = "dirty_background_ratio", .dim = UNITS_NUMBER,
     .offset = offsetof(struct client_params, dirty_background_ratio), .min = 0, .max = 1, .optional = 1,
     .def = 0,
     .help = "share of client RAM dirty past which the client writes back while the writer goes on "
             "(Linux vm.dirty_background_ratio, fraction; 0 = no background write-back, the default "
             "without clients.os)"},
    {.key = "flush_on_close", .offset = offsetof(struct client_params, flush_on_close), .min = 0, .max = 1,
     .optional = 1, .def = 0, .choices = client_bool_names,
     .help = "a file's close writes the client's dirty pages back and waits for them, then sends its "
             "close requests (true: the Linux NFS client's close-to-open; false: the data waits for the "
             "background write-back or the job's end)"},
    {.key = "cache_scope", .offset = offsetof(struct client_params, cache_scope), .min = 0, .max = 1,
     .optional = 1, .def = CLIENT_CACHE_ALL, .choices = client_cache_scope_names,
     .help = "which buffered writes the client cache takes: all (every file, the Linux NFS client's page "
             "cache) or local-volume (a block LUN only, a local volume to the client OS; a share's files go "
             "to the server as the application writes them: Windows)"},
    {.key = "lazy_write_interval", .dim = UNITS_TIME, .offset = offsetof(struct client_params, lazy_write_interval_s),
     .min = 0.01, .max = 60, .optional = 1, .def = 1,
     .help = "time between the lazy writer's scans of the dirty pages (s; with lazy_write_share)"},
    {.key = "lazy_write_share", .dim = UNITS_NUMBER, .offset = offsetof(struct client_params, lazy_write_share),
     .min = 0, .max = 1, .optional = 1, .def = 0,
     .help = "share of the dirty pages each lazy-writer scan queues for write-behind, at least the bytes "
             "dirtied since the last scan (fraction; 0 = no lazy writer, the default without clients.os)"},
    {.key = "writebehind_requests", .dim = UNITS_NUMBER, .whole = 1,
     .offset = offsetof(struct client_params, writebehind_requests), .min = 1, .max = 256, .optional = 1, .def = 1,
     .help = "write-behind requests the lazy writer keeps in flight (count; with lazy_write_share)"},
    {.key = "writebehind_size", .dim = UNITS_BYTES, .offset = offsetof(struct client_params, writebehind_bytes),
     .min = 4096, .max = 64.0 * 1048576, .optional = 1, .def = 1048576,
     .help = "largest write-behind request (bytes; at most the protocol's largest write; with "
             "lazy_write_share)"},
    {.key = "copy_rate", .dim = UNITS_RATE, .offset = offsetof(struct client_params, copy_bytes_per_s),
     .min = 1e8, .max = 1e12, .optional = 1, .def = 0,
     .help = "client memory copy rate (bytes/s), required with a client cache"},
    {.key = "fio_io_time", .dim = UNITS_TIME, .offset = offsetof(struct client_params, fio_io_s), .min = 1e-9,
     .max = 1e-4, .optional = 1, .def = 0,
     .help = "fio's own CPU time per I/O with gtod_reduce, an engine that completes at once (s)"},
    {.key = "fio_queue_time", .dim = UNITS_TIME, .offset = offsetof(struct client_params, fio_queue_s), .min = 0,
     .max = 1e-4, .optional = 1, .def = 0,
     .help = "fio's added CPU time per I/O at iodepth > 1 (queue, commit, reap) (s)"},
    {.key = "fio_clock_time", .dim = UNITS_TIME, .offset = offsetof(struct client_params, fio_clock_s), .min = 0,
     .max = 1e-4, .optional = 1, .def = 0,
     .help = "fio's added CPU time per I/O for its clock reads (without gtod_reduce) (s)"},
    {.key = "readahead_requests", .dim = UNITS_NUMBER, .offset = offsetof(struct client_params, readahead_requests),
     .min = 0, .max = 64, .optional = 1, .def = 0,
     .help = "the client OS's read-ahead on a buffered sequential read: units kept in flight "
             "beyond the application's read (count; 0 = none, the default without clients.os)"},
    {.key = "readahead_history", .dim = UNITS_NUMBER, .offset = offsetof(struct client_params, readahead_history),
     .min = 0, .max = 64, .optional = 1, .def = 0,
     .help = "reads of an open file the client OS sees before it reads ahead (count; 0 = from the "
             "first read)"},
    {.key = "readahead_granularity", .dim = UNITS_BYTES,
     .offset = offsetof(struct client_params, readahead_granularity_bytes), .min = 0, .max = 64.0 * 1048576,
     .optional = 1, .def = 0,
     .help = "an application-read read-ahead unit rounded up to a multiple of it (bytes; 0 = none)"},
    {.key = "readahead_unit", .offset = offsetof(struct client_params, readahead_unit), .min = 0,
     .max = 1, .optional = 1, .def = CLIENT_RA_APPLICATION, .choices = client_ra_unit_names,
     .help = "what one read-ahead unit is: application-read (the caller's read, Windows) or "
             "protocol-read (the protocol's read size, e.g. NFS rsize, Linux)"},
    {.key = "rpc_slots", .dim = UNITS_NUMBER, .offset = offsetof(struct client_params, rpc_slots),
     .min = 0, .max = 65536, .optional = 1, .def = 0,
     .help = "protocol requests the client keeps sent and unanswered per connection, the Linux "
             "RPC slot table (count; 0 = no limit, the default without clients.os)"},
    {.key = "file_gap", .dim = UNITS_TIME, .offset = offsetof(struct client_params, file_gap_s), .min = 0,
     .max = 1, .optional = 1, .def = 0,
     .help = "a file copy's client time per file before it opens the next, the NAS idle meanwhile "
             "(s; 0 = none, the default without clients.os)"},
    {.key = "copy_tool_rate", .dim = UNITS_RATE, .offset = offsetof(struct client_params, copy_tool_bytes_per_s),
     .min = 0, .max = 1e12, .optional = 1, .def = 0,
     .help = "a file copy's client work per byte of each chunk, in series with its request: the tool's "
             "copies between the source, its buffer and the destination (bytes/s; 0 = none)"},
    {.key = "rpc_time", .dim = UNITS_TIME, .offset = offsetof(struct client_params, rpc_time_s), .min = 0,
     .max = 1e-2, .optional = 1, .def = 0,
     .help = "the client's own time per protocol request's reply, serial per connection (s; 0 = none)"},
    {.key = "copy_source_requests", .dim = UNITS_NUMBER, .whole = 1,
     .offset = offsetof(struct client_params, copy_source_requests), .min = 0, .max = 16, .optional = 1,
     .def = 0,
     .help = "protocol requests of a file copy's open of each source file on the share (count; 0 = "
             "the protocol's open_requests)"},
    {.key = "copy_dest_requests", .dim = UNITS_NUMBER, .whole = 1,
     .offset = offsetof(struct client_params, copy_dest_requests), .min = 0, .max = 16, .optional = 1,
     .def = 0,
     .help = "protocol requests of a file copy's create of each destination file on the share (count; "
             "0 = the protocol's create_requests)"},
    {.key = "copy_dest_close_requests", .dim = UNITS_NUMBER, .whole = 1,
     .offset = offsetof(struct client_params, copy_dest_close_requests), .min = 0, .max = 16,
     .optional = 1, .def = 0,
     .help = "protocol requests of a file copy's close of each destination file it wrote on the share "
             "(count; 0 = the protocol's close_written_requests)"},
};
const size_t client_param_count = PARAM_COUNT(client_param_table);

/* The default scenario, compiled in from scenarios/default.yaml. */
#include "default_scenario.h"

const char *cfg_default_scenario(void)
{
  return cfg_default_text;
}

const char *cfg_catalog_dir(void)
{
  const char *env = getenv("NASTWIN_CATALOG");
  static char dir[1024];
  if (env && env[0])
    return env;
  if (!dir[0])
    nw_data_path(dir, sizeof dir, "catalog");
  return dir;
}

/* --- catalogue ---------------------------------------------------------- */

struct cfg_catalog {
  struct ynode *systems, *socs, *drives, *protocols;
};

static void cfg_catalog_free(struct cfg_catalog *c)
{
  ytree_free(c->systems);
  ytree_free(c->socs);
  ytree_free(c->drives);
  ytree_free(c->protocols);
}

static struct ynode *cfg_catalog_load(const char *dir, const char *file, const char *section,
                                      struct nw_err *err)
{
  char path[1100];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return NULL;
  struct ynode *sec = ytree_get(root, section);
  if (!sec || sec->kind != YNODE_MAP) {
    nw_fail(err, path, root->line, root->col, "catalogue needs a top-level map '%s:'", section);
    ytree_free(root);
    return NULL;
  }
  return root;
}

/* Find entry `name` in catalogue section; on failure the error points at
 * `ref` (the node that named it) and lists the valid names. */
static const struct ynode *cfg_entry(const struct ynode *root, const char *section,
                                     const char *what, const struct ynode *ref, const char *name,
                                     struct nw_err *err)
{
  const struct ynode *sec = ytree_get(root, section);
  const struct ynode *e = ytree_get(sec, name);
  if (e && e->kind == YNODE_MAP)
    return e;
  char list[600] = "";
  size_t used = 0;
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (int i = 0; i < sec->n; i++) {
    used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%s",
                             i ? ", " : "", sec->keys[i]);
    size_t d = params_edit_distance(name, sec->keys[i]);
    if (d < best_d) {
      best_d = d;
      best = sec->keys[i];
    }
  }
  char hint[200] = "";
  if (best && best_d <= strlen(name) / 3 + 1)
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
  nw_fail(err, ref ? ref->file : "", ref ? ref->line : 0, ref ? ref->col : 0,
          "unknown %s '%s'%s; valid: %s", what, name, hint, list);
  return NULL;
}

static const char *cfg_scalar(const struct ynode *n)
{
  return n && n->kind == YNODE_SCALAR ? n->scalar : NULL;
}

/* A drive: catalogue entry `name` (model + params), then overrides from
 * `over` (keys not in skip). */
static int cfg_drive(const struct cfg_catalog *cat, const struct ynode *ref, const char *name,
                     const struct ynode *over, const char *where, const char *const *skip,
                     struct cfg_drive *d, struct scenario *s, struct nw_err *err)
{
  const struct ynode *e = cfg_entry(cat->drives, "drives", "drive", ref, name, err);
  if (!e)
    return -1;
  snprintf(d->name, sizeof d->name, "%s", name);
  const char *model = cfg_scalar(ytree_get(e, "model"));
  if (!model)
    return cfg_at(err, e, "drive '%s': catalogue entry needs 'model:' (%s)", name,
                  disk_model_names());
  d->model = disk_model_find(model);
  if (!d->model) {
    const struct ynode *mn = ytree_get(e, "model");
    return nw_fail(err, mn->file, mn->line, mn->col, "drive '%s': unknown model '%s'; valid: %s",
                   name, model, disk_model_names());
  }
  if (d->model->params_size > sizeof d->params)
    return cfg_at(err, e, "drive model '%s' has too many parameters", model);
  params_defaults(d->model->params, d->model->nparams, d->params);
  const struct ynode *p = ytree_get(e, "params");
  static const char *const entry_keys[] = {"model",  "description", "params", "source",
                                           "seek_curve", "zones",     NULL};
  if (cfg_only_keys(e, name, entry_keys, err) < 0)
    return -1;
  char sect[96];
  snprintf(sect, sizeof sect, "drive %s", name);
  if (cfg_fill(p, sect, d->model->params, d->model->nparams, d->params, NULL, s, where, err) < 0)
    return -1;
  if (cfg_fill(over, where, d->model->params, d->model->nparams, d->params, skip, s, where, err) < 0)
    return -1;
  const struct ynode *maps[2] = {p, over};
  if (cfg_require(maps, 2, e, sect, d->model->params, d->model->nparams, err) < 0)
    return -1;
  char msg[512];
  if (d->model->check && d->model->check(d->params, msg, sizeof msg) < 0)
    return nw_fail(err, (over ? over : e)->file, (over ? over : e)->line, (over ? over : e)->col,
                   "drive '%s': %s", name, msg);
  if (drive_layout_read(e, name, &d->layout, err) < 0)
    return -1;
  return drive_layout_check(d, e, err);
}

/* A section of `count:` drives (1 to max_count) of one catalogue `drive:`.
 * The drive's parameters are overridden by the section's other keys, or,
 * given over_key, by the map under that key (the section's other keys then
 * belong to the caller). */
static int cfg_drive_section(const struct cfg_catalog *cat, const struct ynode *sec,
                             const char *where, long max_count, const char *over_key, int *count,
                             struct cfg_drive *d, struct scenario *s, struct nw_err *err)
{
  long n;
  if (cfg_int(sec, where, "count", 1, max_count, 1, 0, &n, err) < 0)
    return -1;
  *count = (int)n;
  const char *name = NULL;
  const struct ynode *ref = ytree_get(sec, "drive");
  memset(&d->layout, 0, sizeof d->layout);
  if (drive_link_read(sec, where, d, s, err) < 0)
    return -1;
  if (ref && ref->kind == YNODE_MAP) {
    static const char *const section_keys[] = {"count", "drive", "link", NULL};
    char over_where[96];
    snprintf(over_where, sizeof over_where, "%s.%s", where, over_key ? over_key : "");
    return drive_disksim_load(ref, over_key ? ytree_get(sec, over_key) : sec,
                             over_key ? over_where : where, over_key ? NULL : section_keys, d, s,
                             err);
  }
  if (cfg_word(sec, where, "drive", 1, &name, &ref, err) < 0)
    return -1;
  if (!over_key) {
    static const char *const section_keys[] = {"count", "drive", "link", NULL};
    return cfg_drive(cat, ref, name, sec, where, section_keys, d, s, err);
  }
  char over_where[96];
  snprintf(over_where, sizeof over_where, "%s.%s", where, over_key);
  return cfg_drive(cat, ref, name, ytree_get(sec, over_key), over_where, NULL, d, s, err);
}

static const char *const cfg_top_keys[] = {
    "name", "description", "system", "soc", "disks", "volume", "page_cache", "ssd_cache",
    "encryption", "network", "protocol", "clients", "workload", "time", "seed", "operation", "faults",
    "chassis", "custom_hardware", NULL};

void cfg_free(struct scenario *s)
{
  if (s)
    workload_free(&s->workload);
}

/* The chassis: the catalogue system's params, overridden by `chassis:`. */
static int cfg_resolve_chassis(const struct ynode *R, const struct ynode *sys, const char *sysname,
                               struct scenario *s, struct nw_err *err)
{
  snprintf(s->system_name, sizeof s->system_name, "%s", sysname);
  params_defaults(system_param_table, system_param_count, &s->system);
  const struct ynode *sysp = ytree_get(sys, "params");
  /* `chassis:` overrides the system's numbers (the `system` key holds its name) */
  if (cfg_fill(sysp, sysname, system_param_table, system_param_count, &s->system, NULL, s, "chassis",
               err) < 0 ||
      cfg_fill(ytree_get(R, "chassis"), "chassis", system_param_table, system_param_count, &s->system, NULL, s,
               "chassis", err) < 0)
    return -1;
  const struct ynode *sysmaps[1] = {sysp};
  if (cfg_require(sysmaps, 1, sys, sysname, system_param_table, system_param_count, err) < 0)
    return -1;
  return 0;
}

/* The SoC: `soc: {name}` or the system's, then `soc:` overrides. */
static int cfg_resolve_soc(const struct ynode *R, const struct cfg_catalog *cat, const struct ynode *sys,
                           const char *sysname, struct scenario *s, struct nw_err *err)
{
  const struct ynode *socn = ytree_get(R, "soc");
  const char *socname = NULL;
  const struct ynode *socref = NULL;
  if (cfg_word(socn, "soc", "name", 0, &socname, &socref, err) < 0)
    return -1;
  if (!socname) {
    socref = ytree_get(sys, "soc");
    socname = cfg_scalar(socref);
    if (!socname)
      return cfg_at(err, sys, "system '%s' needs 'soc:' naming a catalog/socs.yaml entry",
                    sysname);
  }
  const struct ynode *soce = cfg_entry(cat->socs, "socs", "soc", socref, socname, err);
  if (!soce)
    return -1;
  snprintf(s->soc_name, sizeof s->soc_name, "%s", socname);
  params_defaults(soc_param_table, soc_param_count, &s->soc);
  static const char *const name_key[] = {"name", NULL};
  const struct ynode *socp = ytree_get(soce, "params");
  if (cfg_fill(socp, socname, soc_param_table, soc_param_count, &s->soc, NULL, s, "soc", err) < 0 ||
      cfg_fill(socn, "soc", soc_param_table, soc_param_count, &s->soc, name_key, s, "soc", err) < 0)
    return -1;
  const struct ynode *socmaps[2] = {socp, socn};
  if (cfg_require(socmaps, 2, soce, socname, soc_param_table, soc_param_count, err) < 0)
    return -1;
  return 0;
}

/* Disks, volume, page cache, SSD cache and encryption. */
static int cfg_resolve_storage(const struct ynode *R, const struct cfg_catalog *cat, struct scenario *s,
                               struct nw_err *err)
{
  /* Disks */
  const struct ynode *dn = ytree_get(R, "disks");
  if (!dn)
    return nw_fail(err, R->file, R->line, R->col, "missing required section 'disks'");
  if (dn->kind != YNODE_MAP)
    return cfg_at(err, dn, "disks: expected a map, got %s", ytree_kind_name(dn));
  if (cfg_drive_section(cat, dn, "disks", 64, NULL, &s->ndisks, &s->drive, s, err) < 0)
    return -1;

  /* Volume */
  const struct ynode *vn = ytree_get(R, "volume");
  params_defaults(volume_param_table, volume_param_count, &s->volume);
  static const char *const no_members[] = {"members", NULL};
  if (cfg_fill(vn, "volume", volume_param_table, volume_param_count, &s->volume, no_members, s,
               "volume", err) < 0)
    return -1;
  if (vn && ytree_get(vn, "members"))
    return cfg_at(err, ytree_get(vn, "members"),
                  "volume.members is set by disks.count (or operation.from_members)");
  const struct ynode *vmaps[1] = {vn};
  if (cfg_require_skip(vmaps, 1, vn ? vn : R, "volume", volume_param_table, volume_param_count,
                       no_members, err) < 0)
    return -1;
  s->volume.members = s->ndisks;

  /* Page cache (RAM defaults to the chassis's) */
  const struct ynode *pn = ytree_get(R, "page_cache");
  params_defaults(pcache_param_table, pcache_param_count, &s->pcache);
  s->pcache.ram_bytes = s->system.ram_bytes;
  if (cfg_fill(pn, "page_cache", pcache_param_table, pcache_param_count, &s->pcache, NULL, s,
               "page_cache", err) < 0)
    return -1;

  /* SSD cache */
  const struct ynode *cn = ytree_get(R, "ssd_cache");
  params_defaults(ssdcache_param_table, ssdcache_param_count, &s->ssdcache);
  static const char *const cache_keys[] = {"count", "drive", "drive_params", "link", NULL};
  if (cfg_fill(cn, "ssd_cache", ssdcache_param_table, ssdcache_param_count, &s->ssdcache,
               cache_keys, s, "ssd_cache", err) < 0)
    return -1;
  /* the cache drive's own parameters are overridden under drive_params */
  if (cn && s->ssdcache.mode > 0 &&
      cfg_drive_section(cat, cn, "ssd_cache", 8, "drive_params", &s->ncache_devs, &s->cache_drive, s,
                        err) < 0)
    return -1;

  /* Encryption */
  params_defaults(crypt_param_table, crypt_param_count, &s->crypt);
  if (cfg_fill(ytree_get(R, "encryption"), "encryption", crypt_param_table, crypt_param_count,
               &s->crypt, NULL, s, "encryption", err) < 0)
    return -1;
  return 0;
}

/* Network and protocol. */
static int cfg_resolve_network(const struct ynode *R, const struct cfg_catalog *cat, struct scenario *s,
                               struct nw_err *err)
{
  /* Network */
  params_defaults(net_param_table, net_param_count, &s->net);
  if (cfg_fill(ytree_get(R, "network"), "network", net_param_table, net_param_count, &s->net, NULL,
               s, "network", err) < 0)
    return -1;

  /* Protocol: costs from catalog/protocols.yaml by kind, then overrides.
   * One map holds both the protocol's settings and its CPU costs. */
  const struct ynode *prn = ytree_get(R, "protocol");
  params_defaults(proto_param_table, proto_param_count, &s->proto);
  if (!prn)
    return nw_fail(err, R->file, R->line, R->col, "missing required section 'protocol'");
  const char *kind = NULL;
  const struct ynode *kref = NULL;
  if (cfg_word(prn, "protocol", "kind", 1, &kind, &kref, err) < 0)
    return -1;
  const struct param_desc *kd = params_find(proto_param_table, proto_param_count, "kind");
  double kind_index;
  if (kd && cfg_value(kref, "protocol", kd, &kind_index, NULL, "", err) < 0)
    return -1;
  const struct ynode *pe = cfg_entry(cat->protocols, "protocols", "protocol kind", kref, kind, err);
  if (!pe)
    return -1;
  const struct ynode *pp = ytree_get(pe, "params");
  const struct ynode *layers[2] = {pp, prn};
  if (cfg_fill(pp, kind, proto_param_table, proto_param_count, &s->proto, NULL, s, "protocol", err) < 0 ||
      cfg_fill(prn, "protocol", proto_param_table, proto_param_count, &s->proto, NULL, s, "protocol",
               err) < 0)
    return -1;
  if (cfg_require(layers, 2, prn, "protocol", proto_param_table, proto_param_count, err) < 0)
    return -1;
  /* the models' checks across keys name no line: their message goes to the
   * section that holds the keys (the system's entry when the scenario has
   * no such section) */
  const struct ynode *netn = ytree_get(R, "network"), *socn = ytree_get(R, "soc");
  const struct ynode *sysn = ytree_get(R, "system");
  struct nw_err m = {0};
  if (proto_check(&s->proto, &m) < 0)
    return cfg_at(err, prn, "%s", m.msg);
  if (net_check(&s->net, &m) < 0)
    return cfg_at(err, netn ? netn : sysn ? sysn : R, "%s", m.msg);
  if (soc_check(&s->soc, &m) < 0)
    return cfg_at(err, socn ? socn : sysn ? sysn : R, "%s", m.msg);
  return 0;
}

/* Clients, time and seed. */
static int cfg_resolve_clients(const struct ynode *R, const struct cfg_catalog *cat, struct scenario *s,
                               struct nw_err *err)
{
  /* Clients */
  const struct ynode *cl = ytree_get(R, "clients");
  long nclients = 1;
  if (cl) {
    if (cl->kind != YNODE_MAP)
      return cfg_at(err, cl, "clients: expected a map like {count: 4}, got %s", ytree_kind_name(cl));
    if (cfg_int(cl, "clients", "count", 1, 1024, 0, 1, &nclients, err) < 0)
      return -1;
  }
  params_defaults(client_param_table, client_param_count, &s->client);
  const struct ynode *own = ytree_get(ytree_get(cat->protocols, "client"), "params"); /* fio's own costs */
  if (cfg_fill(own, "client", client_param_table, client_param_count, &s->client, NULL, s, "clients", err) < 0)
    return -1;
  /* The client's OS (catalog/protocols.yaml client_os): its read-ahead. */
  const char *os = NULL;
  const struct ynode *osref = NULL;
  if (cl && cfg_word(cl, "clients", "os", 0, &os, &osref, err) < 0)
    return -1;
  if (os) {
    snprintf(s->client_os, sizeof s->client_os, "%.31s", os);
    const struct ynode *oe = cfg_entry(cat->protocols, "client_os", "client OS", osref, os, err);
    if (!oe || cfg_fill(ytree_get(oe, "params"), os, client_param_table, client_param_count, &s->client, NULL, s,
                        "clients", err) < 0)
      return -1;
  }
  if (cfg_fill(cl, "clients", client_param_table, client_param_count, &s->client,
               (const char *const[]){"count", "os", NULL}, s, "clients", err) < 0)
    return -1;
  if (s->client.dirty_background_ratio > s->client.dirty_ratio) {
    const struct ynode *at = ytree_get(cl, "dirty_background_ratio");
    return cfg_at(err, at ? at : osref ? osref : cl,
                  "clients.dirty_background_ratio: %g must be <= clients.dirty_ratio %g (the background "
                  "write-back starts below the writers' limit)",
                  s->client.dirty_background_ratio, s->client.dirty_ratio);
  }
  if (s->client.ram_bytes > 0 && !(s->client.copy_bytes_per_s > 0))
    return cfg_at(err, cl, "clients: a client cache (ram %g B) needs copy_rate, the client's memory copy rate",
                  s->client.ram_bytes);
  s->nclients = (int)nclients;

  /* Time and seed */
  s->time_s = 10.0;
  const struct ynode *tn = ytree_get(R, "time");
  if (tn) {
    char msg[512];
    if (tn->kind != YNODE_SCALAR || units_parse(tn->scalar, UNITS_TIME, &s->time_s, msg, sizeof msg) < 0)
      return nw_fail(err, tn->file, tn->line, tn->col, "time: %s",
                     tn->kind == YNODE_SCALAR ? msg : "expected a duration like 10s");
    if (!(s->time_s > 0 && s->time_s <= 30 * 86400.0))
      return nw_fail(err, tn->file, tn->line, tn->col,
                     "time: '%s' is out of range: must be between 1 ns and 30 days", tn->scalar);
  }
  long seed = 1;
  if (cfg_int(R, "scenario", "seed", 0, LONG_MAX, 0, 1, &seed, err) < 0)
    return -1;
  s->seed = (uint64_t)seed;
  return 0;
}

static int cfg_resolve(const struct ynode *R, const struct cfg_catalog *cat, const struct ynode *sysref,
                       const char *sysname, struct scenario *s, struct nw_err *err)
{
  const struct ynode *sys = cfg_entry(cat->systems, "systems", "system", sysref, sysname, err);
  if (!sys)
    return -1;
  if (cfg_resolve_chassis(R, sys, sysname, s, err) < 0 || cfg_resolve_soc(R, cat, sys, sysname, s, err) < 0 ||
      cfg_resolve_storage(R, cat, s, err) < 0 || cfg_resolve_network(R, cat, s, err) < 0 ||
      cfg_resolve_clients(R, cat, s, err) < 0 || cfg_resolve_faults(R, s, err) < 0 ||
      cfg_resolve_operation(R, s, err) < 0)
    return -1;
  return 0;
}

/* fio's http engine talks HTTP to the NAS: a workload of ioengine=http jobs
 * runs on the NAS's WebDAV daemon (protocol kind webdav, http_api the jobs'
 * http_mode) whatever file protocol the scenario names; the protocol is
 * resolved again with the catalogue's webdav entry and a note says so.  One
 * protocol per run: http jobs beside other jobs to the NAS, or http jobs
 * with different http_mode, are refused; so is kind local (no network). */
static int cfg_http_protocol(struct ynode *R, const struct cfg_catalog *cat, struct scenario *s,
                             struct nw_err *err)
{
  const struct job *http = NULL, *other = NULL;
  for (int i = 0; i < s->workload.nsteps; i++)
    for (int k = 0; k < s->workload.steps[i].njobs; k++) {
      const struct job *j = &s->workload.steps[i].jobs[k];
      if (!strcmp(j->engine, "http")) {
        if (http && http->http_mode != j->http_mode)
          return nw_fail(err, s->path, 0, 0, "jobs '%s' and '%s' use http_mode %s and %s: the NAS's HTTP "
                         "daemon serves one API per run", http->name, j->name,
                         proto_http_api_names[http->http_mode], proto_http_api_names[j->http_mode]);
        http = j;
      } else if (j->client_only == JOB_CLIENT_NAS) {
        other = j;
      }
    }
  if (!http)
    return 0;
  const struct ynode *kn = ytree_path(R, "protocol.kind");
  const char *was = proto_kind_names[(int)s->proto.kind];
  if (other || (int)s->proto.kind == PROTO_LOCAL)
    return nw_fail(err, kn ? kn->file : s->path, kn ? kn->line : 0, kn ? kn->col : 0,
                   "protocol.kind: job '%s' (ioengine=http) needs the NAS's WebDAV daemon (kind webdav), %s",
                   http->name, other ? "and a run has one protocol: put the http jobs in a job file of their "
                   "own" : "but kind 'local' has no NAS on the network");
  if ((int)s->proto.kind == PROTO_WEBDAV && (int)s->proto.http_api == http->http_mode)
    return 0;
  char note[sizeof s->path + sizeof http->name + 400];
  snprintf(note, sizeof note, "%s: note: job '%s' (ioengine=http, http_mode=%s) runs on the NAS's WebDAV daemon: "
           "protocol.kind webdav (Apache httpd + mod_dav) instead of the scenario's %s\n", s->path, http->name,
           proto_http_api_names[http->http_mode], was);
  if ((int)s->proto.kind != PROTO_WEBDAV)
    fio_print_warnings(stderr, note);
  if (ytree_set_path(R, "protocol.kind", "webdav", s->path, err) < 0 ||
      ytree_set_path(R, "protocol.http_api", proto_http_api_names[http->http_mode], s->path, err) < 0)
    return -1;
  return cfg_resolve_network(R, cat, s, err);
}

/* fio's NVMe passthrough engines (io_uring_cmd, xnvme through it) send
 * their commands to an NVMe namespace of the machine fio runs on
 * (/dev/ngXnY), not to a NAS: a job file with such a job and no scenario
 * named runs on the shipped scenarios/drive-datasheet.yaml (one NVMe drive
 * inside the client, protocol kind local) instead of the built-in default,
 * with a note.  1 when w has such a job (the note said), else 0. */
static int cfg_fio_passthrough(const char *fio_path, const struct workload *w)
{
  for (int i = 0; i < w->nsteps; i++)
    for (int k = 0; k < w->steps[i].njobs; k++) {
      const struct job *j = &w->steps[i].jobs[k];
      if (!j->nvme_passthrough)
        continue;
      char note[4096 + sizeof j->name + sizeof j->engine + 400];
      snprintf(note, sizeof note, "%s: note: job '%s' (ioengine=%s) sends NVMe commands to an NVMe namespace "
               "of the machine fio runs on, not to a NAS: the run takes scenarios/drive-datasheet.yaml (one "
               "NVMe drive inside the client, protocol kind local) instead of the built-in default scenario\n",
               fio_path, j->name, j->engine);
      fio_print_warnings(stderr, note);
      return 1;
    }
  return 0;
}

int cfg_load(const char *path, const char *catalog_dir, const struct cfg_set *sets, int nsets,
             const char *fio_path, struct scenario *out, struct nw_err *err)
{
  memset(out, 0, sizeof *out);
  int local_nvme = 0; /* load again on the local NVMe scenario (cfg_fio_passthrough) */
  const char *name = path ? path : "<default scenario>";
  snprintf(out->path, sizeof out->path, "%s", name);
  struct ynode *S = path ? ytree_load_file(path, err)
                         : ytree_load_string(cfg_default_text, strlen(cfg_default_text), name, err);
  if (!S)
    return -1;
  struct cfg_catalog cat = {0};
  struct ynode *R = NULL;
  int rc = -1;
  if (S->kind != YNODE_MAP) {
    nw_fail(err, S->file, S->line, S->col, "a scenario must be a YAML map of sections, got %s",
            ytree_kind_name(S));
    goto done;
  }
  for (int i = 0; i < nsets; i++) {
    char where[300];
    snprintf(where, sizeof where, "--set %s=%s", sets[i].path, sets[i].value);
    if (ytree_set_path(S, sets[i].path, sets[i].value, where, err) < 0)
      goto done;
  }
  for (int i = 0; i < S->n; i++)
    if (!cfg_in_list(cfg_top_keys, S->keys[i])) {
      cfg_unknown_key(S, i, "scenario", NULL, 0, cfg_top_keys, err);
      goto done;
    }
  const char *dir = catalog_dir ? catalog_dir : cfg_catalog_dir();
  if (!(cat.systems = cfg_catalog_load(dir, "systems.yaml", "systems", err)) ||
      !(cat.socs = cfg_catalog_load(dir, "socs.yaml", "socs", err)) ||
      !(cat.drives = cfg_catalog_load(dir, "drives.yaml", "drives", err)) ||
      !(cat.protocols = cfg_catalog_load(dir, "protocols.yaml", "protocols", err)))
    goto done;
  const char *sysname = NULL;
  const struct ynode *sysref = NULL;
  if (cfg_word(S, "scenario", "system", 1, &sysname, &sysref, err) < 0)
    goto done;
  const struct ynode *sys = cfg_entry(cat.systems, "systems", "system", sysref, sysname, err);
  if (!sys)
    goto done;
  /* R = the system's defaults, overlaid by the scenario (with --set applied). */
  const struct ynode *defs = ytree_get(sys, "defaults");
  R = defs ? ytree_clone(defs) : ytree_new_map(S->file, S->line, S->col);
  if (!R || R->kind != YNODE_MAP) {
    nw_fail(err, sys->file, sys->line, sys->col, "system '%s': defaults must be a map", sysname);
    goto done;
  }
  /* R stands for the scenario file in messages about missing sections. */
  free(R->file);
  R->file = strdup(S->file);
  R->line = S->line;
  R->col = S->col;
  if (!R->file) {
    nw_fail(err, S->file, 0, 0, "out of memory");
    goto done;
  }
  ytree_overlay(R, S);
  static const char *const text_keys[] = {"name", "description"};
  for (int i = 0; i < 2; i++) {
    const struct ynode *t = ytree_get(R, text_keys[i]);
    if (t && t->kind != YNODE_SCALAR) {
      nw_fail(err, t->file, t->line, t->col, "%s: expected a text, got %s", text_keys[i], ytree_kind_name(t));
      goto done;
    }
  }
  const char *nm = cfg_scalar(ytree_get(R, "name"));
  snprintf(out->name, sizeof out->name, "%s", nm ? nm : "scenario");
  if (cfg_resolve(R, &cat, sysref, sysname, out, err) < 0 || cfg_plausible(R, out, stderr, err) < 0)
    goto done;
  if (fio_path) {
    char *warnings = NULL;
    int frc = fio_parse_file(fio_path, &out->workload, &warnings, err);
    fio_print_warnings(stderr, warnings); /* once, however often the scenario is loaded */
    free(warnings);
    if (frc < 0)
      goto done;
    if (!path && cfg_fio_passthrough(fio_path, &out->workload)) {
      local_nvme = 1; /* the time note comes with that scenario's time */
      goto done;
    }
    fio_note_time_cap(stderr, fio_path, &out->workload, out->time_s);
  } else if (cfg_workload(ytree_get(R, "workload"), out->path, &out->workload, err) < 0)
    goto done;
  if (cfg_http_protocol(R, &cat, out, err) < 0 || cfg_workload_check(R, out, err) < 0)
    goto done;
  if (out->workload.replay && !ytree_get(R, "time")) { /* the whole trace */
    const struct replay_trace *rt = out->workload.replay;
    double serial_s = rt->one_at_a_time ? rt->n * 1.0 : 0.0; /* services: up to 1 s each */
    out->time_s = fmin(rt->span_s * 1.01 + 1.0 + serial_s, 30 * 86400.0);
  }
  /* Cross-checks on the storage configuration, before any object exists. */
  struct stack_cfg sc = {.volume = out->volume, .pcache = out->pcache, .ssdcache = out->ssdcache,
                         .crypt = out->crypt, .ncache_devs = out->ncache_devs};
  sc.volume.members = out->op != STACK_OP_NONE ? out->op_from_members : out->ndisks;
  /* The check needs member and cache device slots, not devices. */
  struct disk *slots[64] = {0};
  sc.members = slots;
  sc.cache_devs = out->ncache_devs > 0 ? slots : NULL;
  sc.member_bytes = (uint64_t)out->drive.model->capacity_bytes(out->drive.params);
  if (out->op == STACK_OP_MIGRATE)
    sc.volume.level = out->op_from_level;
  if (stack_check(&sc, err) < 0) {
    const struct ynode *vn = ytree_path(R, "volume.level");
    if (!vn)
      vn = ytree_get(R, "volume");
    if (!vn)
      vn = ytree_get(R, "disks");
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    nw_fail(err, vn ? vn->file : out->path, vn ? vn->line : 0, vn ? vn->col : 0, "%s", msg);
    goto done;
  }
  rc = 0;
done:
  if (rc < 0)
    workload_free(&out->workload);
  ytree_free(R);
  ytree_free(S);
  cfg_catalog_free(&cat);
  if (local_nvme) {
    char local[4096];
    return cfg_load(nw_data_path(local, sizeof local, "scenarios/drive-datasheet.yaml"), catalog_dir, sets,
                    nsets, fio_path, out, err);
  }
  return rc;
}
