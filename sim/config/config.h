/* config.h - scenarios: YAML + catalogues + --set overrides -> one checked struct.
 *
 * Resolution order (later wins): catalogue entry (catalog/systems.yaml,
 * socs.yaml, drives.yaml, protocols.yaml) < the system's `defaults:` <
 * the scenario file < --set overrides.  Every numeric value is checked
 * against its model's param table (unit, range); unknown keys are refused
 * with the closest valid key; catalogue names are checked and the valid
 * ones listed; cross-checks (RAID level vs disk count, ...) and the check
 * against the chassis's hardware limits (sim/config/plausible.h: ports,
 * bays, M.2 slots, RAM) run before any simulation object exists.  Values marked `fit: [lo, hi]` in a catalogue
 * are recorded as calibration parameters. */
#ifndef NASTWIN_CONFIG_H
#define NASTWIN_CONFIG_H

#include <stdint.h>

#include "models/disks/disk.h"
#include "models/net/net.h"
#include "models/soc/proto.h"
#include "models/soc/soc.h"
#include "models/storage/stack.h"
#include "base/err.h"
#include "sim/config/workload.h"
#include "sim/config/ytree.h"

#define CFG_MAX_FITS 128
#define CFG_MAX_SETS 64
#define CFG_PARAM_DOUBLES 64

/* Chassis facts: catalog/systems.yaml `params`. */
struct system_params {
  double bays;                 /* SATA drive bays in the chassis */
  double ram_bytes;
  double expansion_bays;       /* SATA bays the largest set of expansion units adds */
  double ram_max_bytes;        /* most RAM the chassis takes; 0 = not known */
  double nic_ports;            /* NAS ports of any rate; 0 = not known */
  double nic_rate_bytes_per_s; /* the fastest port's line rate; 0 = not known */
  double nic_fast_ports;       /* ports at nic_rate; 0 = all */
  double nic_other_rate_bytes_per_s; /* the other ports' line rate */
  double m2_slots;             /* M.2 NVMe slots */
  double power_base_W;     /* board, fans, PSU loss: everything but SoC, drives, NIC ports */
  double power_nic_port_W; /* per NAS network port in use */
  double power_psu_efficiency; /* DC load / wall power */
};
extern const struct param_desc system_param_table[];
extern const size_t system_param_count;

/* The clients' own page cache (`clients:` section): a write-back buffer
 * for buffered (direct=0) writes over NFS/SMB, written back in the background
 * past its limits, at the job's end, and at each close where the client
 * OS flushes on close (sim/engine/client_cache.c eng_writeback). */
struct client_params {
  double ram_bytes;         /* client RAM for the page cache; 0 = no client cache */
  double dirty_ratio;       /* fraction of RAM dirty or under write-back past which a writer
                               waits for the write-back (Linux balance_dirty_pages) */
  double dirty_background_ratio; /* fraction of RAM dirty past which the client writes back in
                               the background (Linux's flusher); 0 = none */
  double flush_on_close;    /* 1: a file's close writes its dirty pages back and waits (NFS
                               close-to-open, nfs_file_flush); 0: they stay dirty */
  double cache_scope;       /* CLIENT_CACHE_ALL: every buffered write (Linux NFS client);
                               CLIENT_CACHE_LOCAL_VOLUME: a block LUN's only, a local volume to
                               the client OS (Windows cache manager); a share's files bypass it */
  /* The Windows cache manager's lazy writer (client_cache.c eng_lazy_main):
   * every lazy_write_interval it queues lazy_write_share of the dirty
   * pages, at least those dirtied since its last scan, for write-behind,
   * writebehind_requests of at most writebehind_bytes in flight. */
  double lazy_write_interval_s;
  double lazy_write_share;  /* 0: no lazy writer */
  double writebehind_requests;
  double writebehind_bytes;
  double copy_bytes_per_s;  /* memory copy rate of the client (needed when ram > 0) */
  /* fio's own CPU time per I/O on the client (catalog/protocols.yaml
   * `client:`): the whole time of an I/O that never leaves fio's thread
   * (ioengine=null, cpp_null; sim/engine/client_only.c). */
  double fio_io_s;          /* one I/O with gtod_reduce, the engine completing it at once */
  double fio_queue_s;       /* added at iodepth > 1: queue, commit and reap the completion */
  double fio_clock_s;       /* added without gtod_reduce: the clock reads for slat, clat, lat */
  /* The client OS's read-ahead (catalog/protocols.yaml `client_os:`, by
   * `clients.os`; none without): on a buffered forward-sequential read it
   * keeps readahead_requests x the unit in flight beyond the
   * application's own read (sim/engine/submit.c eng_job_window; a
   * protocol-read unit larger than the application's read: READs of
   * whole units into the client's page cache, eng_client_fetch). */
  double readahead_requests; /* count of units; 0 = no read-ahead */
  double readahead_history;  /* reads of an open file (handle) seen before it reads ahead: the
                                Windows cache manager's per-handle history (count) */
  double readahead_granularity_bytes; /* an application-read unit rounded up to it (Windows:
                                the cache manager's read-ahead granularity); 0 = none */
  double readahead_unit;     /* CLIENT_RA_APPLICATION: the application's read (Windows cache
                                manager); CLIENT_RA_PROTOCOL: the protocol's read size (Linux
                                NFS: rsize pages x NFS_MAX_READAHEAD) */
  double rpc_slots;          /* protocol requests a connection keeps sent and unanswered
                                (the Linux RPC client's slot table); 0 = no limit */
  double file_gap_s;         /* a file copy's client time per file before it opens the next
                                (the copy tool's and client file system's own work while the
                                NAS waits: sim/engine/engine.c eng_issue) */
  double copy_tool_bytes_per_s; /* a file copy's client work per chunk byte (the tool's copies
                                between source, buffer and destination), in series with the
                                chunk's request (sim/engine/engine.c eng_tool_main); 0 = none */
  double rpc_time_s;         /* the client's own time per protocol reply (its RPC layer, the
                                wake-up of the caller), serial per connection (engine.c
                                eng_lane_rx_main); 0 = none */
  double copy_source_requests; /* a file copy's open of a source file on the share: its protocol
                                requests (count; 0 = the protocol's open_requests) */
  double copy_dest_requests;   /* ... of a destination file it creates (count; 0 = the
                                protocol's create_requests) */
  double copy_dest_close_requests; /* ... of its close of a destination file it wrote (count;
                                0 = the protocol's close_written_requests) */
};
enum client_ra_unit { CLIENT_RA_APPLICATION = 0, CLIENT_RA_PROTOCOL = 1 };
enum client_cache_scope { CLIENT_CACHE_ALL = 0, CLIENT_CACHE_LOCAL_VOLUME = 1 };
extern const char *const client_cache_scope_names[]; /* "all", "local-volume", NULL */
extern const char *const client_ra_unit_names[]; /* "application-read", "protocol-read", NULL */
extern const struct param_desc client_param_table[];
extern const size_t client_param_count;

/* A parameter the catalogue marks `fit:` (free for calibrate). */
struct cfg_fit {
  char path[128]; /* --set path, e.g. "soc.work_per_cycle" */
  double value, lo, hi;
  enum units_dim dim;
  char file[256];
  int line, col;
};

struct cfg_drive {
  char name[64];                  /* catalogue entry */
  const struct disk_model *model;
  double params[CFG_PARAM_DOUBLES]; /* the model's params struct (all doubles) */
  struct disk_layout layout;      /* measured geometry (nzones = nseek = 0: none) */
  double link_rate_bytes_per_s;   /* > 0: the section's devices share one upstream link
                                     (`link: {rate, reserved}`, a PCIe slot or SATA port) */
  double link_reserved_bytes_per_s; /* of it, kept for another function (a NIC on the card) */
};


/* Injected faults (`faults:` list): a member disk fails (the array runs
 * degraded), a disk hangs (requests never complete: the run must report
 * unfinished work), a network path goes down (MPIO fails over). */
/* path_down / path_up: target = MPIO path (connection index of the job),
 * or LACP bond member (NAS port). */
enum cfg_fault_kind { CFG_FAULT_DISK_FAIL = 0, CFG_FAULT_DISK_HANG, CFG_FAULT_PATH_DOWN, CFG_FAULT_PATH_UP };
#define CFG_MAX_FAULTS 8
struct cfg_fault {
  enum cfg_fault_kind kind;
  int target;   /* disk index or path index */
  double at_s;  /* simulated time of the fault */
};

struct scenario {
  char path[512];
  char name[128];
  char system_name[64];
  struct system_params system;
  char soc_name[64];
  char client_os[32];   /* clients.os (catalog/protocols.yaml client_os), "" none */
  struct soc_params soc;
  struct cfg_drive drive;
  int ndisks;
  struct volume_params volume;
  struct pcache_params pcache;
  struct ssdcache_params ssdcache;
  struct cfg_drive cache_drive;
  int ncache_devs;
  struct crypt_params crypt;
  struct net_params net;
  struct proto_params proto;
  int nclients;
  struct client_params client;
  struct workload workload;
  double time_s;        /* simulated time limit */
  uint64_t seed;
  /* Background md operation run instead of (or beside) the workload. */
  enum stack_op_kind op;
  int op_level;         /* migrate: target level index */
  int op_members;       /* reshape/migrate: members after */
  int op_from_members;  /* members before (the array's starting width) */
  int op_from_level;    /* level before (migrate) */
  int op_with_workload; /* 1: run the client workload during the operation */
  int nfaults;
  struct cfg_fault faults[CFG_MAX_FAULTS];
  int nfits;
  struct cfg_fit fits[CFG_MAX_FITS];
  /* The calibration applied (filled by sim/study's calib_cfg_load): its
   * file (relative to the data folder when inside it) and the FNV-1a 64 of
   * its bytes; calib_file "" = uncalibrated. */
  char calib_file[256];
  char calib_hash[17];
};

/* One --set override. */
struct cfg_set {
  const char *path;
  const char *value;
};

/* Load and check a scenario.  path NULL = the embedded default scenario.
 * catalog_dir NULL = the built-in search (NASTWIN_CATALOG env, then the
 * source tree's catalog/).  fio_path, when not NULL, replaces the
 * scenario's workload by that fio job file.  0, or -1 with err. */
int cfg_load(const char *path, const char *catalog_dir, const struct cfg_set *sets, int nsets,
             const char *fio_path, struct scenario *out, struct nw_err *err);
void cfg_free(struct scenario *s); /* frees the workload; accepts zeroed */

/* The embedded default scenario's YAML text. */
const char *cfg_default_scenario(void);

/* Where the catalogue is read from. */
const char *cfg_catalog_dir(void);

/* Fill a params struct from a map using a param table; keys listed in
 * `extra` are skipped (the caller reads them).  where = section name for
 * messages ("soc", "disks").  Values may be scalars with units or
 * catalogue maps {value, source | fit}.  Fits are appended to s (may be
 * NULL) under "prefix.key".  0 or -1. */
int cfg_fill(const struct ynode *map, const char *where, const struct param_desc *table, size_t n,
             void *out, const char *const *extra, struct scenario *s, const char *prefix,
             struct nw_err *err);

#endif
