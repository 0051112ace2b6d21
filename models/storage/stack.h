/* stack.h - the NAS block storage path as one pure-C event source.
 *
 *   client I/O -> page cache -> encryption -> SSD cache -> md RAID -> disks
 *
 * The engine glue (sim/engine/engine.c) owns simulated time and drives the stack:
 *
 *   stack_submit(s, now, io)    a protocol daemon hands over a request
 *   stack_next_event_s(s)       earliest internal event (device completion,
 *                               engine completion, flusher/expiry timer,
 *                               background-op window), INFINITY if none
 *   stack_advance(s, now)       process every event due at or before now
 *
 * and the stack calls back through struct stack_hooks when a client
 * request is done (so the daemon can reply) and when it needs CPU cycles
 * on a kernel thread of the SoC (md's raid5d computing parity without a
 * parity engine, the write-back flusher, kcryptd without a crypto engine).
 * CPU work is executed by SimGrid actors on the SoC cores; the engine
 * reports its end with stack_cpu_done().  This is how CPU contention
 * between protocol daemons and kernel threads arises in the simulation.
 *
 * No SimGrid inside.  All parameters come from the param tables below. */
#ifndef NASTWIN_STACK_H
#define NASTWIN_STACK_H

#include <stdint.h>

#include "models/disks/disk.h"
#include "models/soc/accel.h"
#include "base/err.h"
#include "base/params.h"

/* Kernel threads that may be asked to run CPU work. */
enum stack_thread {
  STACK_THREAD_RAID = 0,
  STACK_THREAD_FLUSH = 1,
  STACK_THREAD_CRYPT = 2,
  STACK_THREAD_BLOCK = 3, /* per disk request: submit through the block layer and SATA
                             driver, completion interrupt + block softirq */
  STACK_THREAD_SSDCACHE = 4, /* SSD-cache layer (flashcache): per I/O lookup, set and LRU
                                update, remap, completion; its metadata updates */
  STACK_THREAD_COUNT
};

struct stack_io {
  uint64_t offset_bytes; /* logical byte address on the volume */
  uint64_t len_bytes;    /* > 0 */
  int write;
  int sync;              /* 1: complete only when stable on the disks (NFS sync, FUA, SMB flush) */
  int direct;            /* 1: O_DIRECT, bypasses the page cache both ways (a local disk
                            benchmark's unbuffered I/O; a remote client's flag never
                            reaches the server's cache) */
  int discard;           /* 1: a discard of the range (an iSCSI UNMAP through LIO, a local
                            BLKDISCARD): no data; md passes it to the members that hold
                            the range when every member supports discard (stack_discard.c),
                            else it completes at once, as on a volume without discard */
  uint64_t tag;          /* caller's cookie, returned in io_done */
};

struct stack_hooks {
  void *ctx;
  /* A client request finished at now_s. */
  void (*io_done)(void *ctx, double now_s, uint64_t tag);
  /* Run `cycles` on kernel thread `thread`; call stack_cpu_done(token) when done. */
  void (*cpu_work)(void *ctx, enum stack_thread thread, double cycles, uint64_t token);
  /* A client request finished at now_s with an I/O error (the volume has
   * failed); NULL: io_done is called instead. */
  void (*io_error)(void *ctx, double now_s, uint64_t tag);
};

/* Volume (md) parameters: the `volume:` section of a scenario. */
struct volume_params {
  double level;          /* index into raid_level_names */
  double chunk_bytes;
  double layout;         /* index into raid_layout_names */
  double stripe_cache_entries;
  double speed_limit_min_bytes_per_s; /* per member device */
  double speed_limit_max_bytes_per_s; /* per member device */
  double parity_cycles_per_byte;      /* CPU cost of P (XOR) per data byte, when no engine */
  double q_cycles_per_byte;           /* extra CPU cost of Q (RAID-6) per data byte */
  double members;                     /* member disk count */
  double mkfs_inode_ratio_bytes;      /* mke2fs bytes-per-inode (inode tables written at creation) */
  double mkfs_inode_bytes;            /* mke2fs inode size */
  double mkfs_itable_init;            /* index into mkfs_itable_init_names: mke2fs zeroes the
                                         inode tables (full) or leaves them to the kernel's
                                         ext4lazyinit thread after mount (lazy) */
  double reshape_checkpoint_s;        /* md reshape: superblock checkpoint period */
  double superblock_flush_s;          /* member cache flush of one superblock update */
  double system_partition_bytes;      /* per member before the data partition: the vendor's
                                         system arrays (DSM: md0 root + md1 swap, RAID-1 over
                                         every disk); 0: none */
  double procedure_s;                 /* the vendor's fixed steps of a volume operation
                                         (partitioning, mdadm, mount, services), after md's work */
  double migrate_raid1;               /* index into migrate_raid1_names: a single -> RAID-1
                                         migration is md's recovery onto the added disk, or
                                         that and then a resync of the pair (a vendor's step) */
  double iosched;                     /* index into iosched_names: the members' elevator */
  double cfq_slice_sync_s;            /* CFQ time slice of a sync queue */
  double cfq_slice_async_s;           /* CFQ time slice of the async queue */
  double cfq_quantum;                 /* CFQ: requests dispatched at once while others wait */
  double queue_depth;                 /* requests the block layer keeps at a member disk */
};
extern const char *const raid_level_names[];  /* "single","jbod","0","1","5","6","10","shr","shr2" */
extern const char *const raid_layout_names[]; /* "left-symmetric", ... */
extern const char *const iosched_names[];     /* "noop", "cfq" (stack_iosched.c) */
extern const char *const migrate_raid1_names[]; /* "recovery", "recovery-resync" */
extern const char *const mkfs_itable_init_names[]; /* "lazy", "full" */
extern const struct param_desc volume_param_table[];
extern const size_t volume_param_count;

/* Page cache in the NAS's RAM: the `page_cache:` section. */
struct pcache_params {
  double ram_bytes;
  double readahead_bytes;
  double dirty_background_ratio; /* fraction of RAM */
  double dirty_ratio;            /* fraction of RAM: writers block above it */
  double dirty_expire_s;
  double writeback_interval_s;
  double flush_cycles_per_byte;  /* flusher CPU cost per byte written back */
  double flush_cycles_per_request; /* flusher CPU cost per write-back request (one extent) */
};
extern const struct param_desc pcache_param_table[];
extern const size_t pcache_param_count;

/* SSD cache: the `ssd_cache:` section (absent or mode none = no cache). */
struct ssdcache_params {
  double mode;            /* index into ssdcache_mode_names: none, read-only, read-write */
  double capacity_bytes;  /* usable cache capacity */
  double block_bytes;     /* cache line */
  double seq_bypass_bytes;/* a stream of sequential I/O longer than this bypasses the cache */
  double sector_bytes;    /* valid/dirty granularity inside a block (sub-block bitmaps) */
  double dirty_thresh;    /* dirty fraction above which the destager runs */
  double fallow_s;        /* below it, a block dirty this long is cleaned anyway */
  double metadata_bytes;  /* one on-SSD metadata update (per dirtying insert, per clean) */
  double precond_passes;  /* preconditioning: the job's own accesses, this many per unit of
                             min(region, capacity), run through admission */
};
/* What the SSD cache did so far (counts of the directory's decisions and of
 * the I/O it issued). */
struct stack_ssdcache_stats {
  uint64_t read_hits, read_misses, write_hits, write_allocs, bypassed; /* client requests */
  uint64_t promotions;      /* read misses whose data was written into the cache */
  uint64_t metadata_writes; /* on-SSD metadata updates (each mirrored in read-write mode) */
  uint64_t destages;        /* dirty runs written back to the array */
  uint64_t destaged_bytes;
  uint64_t used_bytes, dirty_bytes; /* now: valid and dirty bytes in the cache */
};
enum ssdcache_mode { SSDCACHE_NONE, SSDCACHE_READ_ONLY, SSDCACHE_READ_WRITE }; /* index of ssdcache_mode_names */
extern const char *const ssdcache_mode_names[];
extern const struct param_desc ssdcache_param_table[];
extern const size_t ssdcache_param_count;

/* Folder encryption: the `encryption:` section. */
struct crypt_params {
  double enabled;            /* 0/1 */
  double cpu_cycles_per_byte;/* AES-CBC encryption cost on a core when no engine (writes) */
  double cpu_decrypt_cycles_per_byte; /* AES-CBC decryption cost on a core (reads); 0 = same as encryption */
};
extern const struct param_desc crypt_param_table[];
extern const size_t crypt_param_count;

struct stack_cfg {
  struct volume_params volume;
  struct pcache_params pcache;
  struct ssdcache_params ssdcache;
  struct crypt_params crypt;
  struct accel *parity_engine; /* NULL: parity on the CPU (STACK_THREAD_RAID) */
  struct accel *crypto_engine; /* NULL: AES on the CPU (STACK_THREAD_CRYPT) */
  double crypto_engine_decrypt_speedup; /* engine CBC decrypt / encrypt throughput (soc
                                           crypto_engine_decrypt_speedup); <= 1 or 0: equal */
  double disk_request_cycles;  /* CPU per request sent to a disk (soc disk_request_cycles),
                                  on STACK_THREAD_BLOCK; 0: free */
  double ssdcache_io_cycles;   /* SSD-cache layer CPU per I/O it handles (soc ssdcache_io_cycles,
                                  reference cycles) on STACK_THREAD_SSDCACHE; 0: free */
  double stripe_cycles;        /* md raid5d CPU per stripe_head handled, RAID-5/6 (soc
                                  md_stripe_cycles, reference cycles); 0: free */
  double stripe_dev_cycles;    /* ... and per member device of the stripe_head (soc
                                  md_stripe_dev_cycles) */
  struct accel *mem_bus;       /* page-cache hits and absorbed writes copy their bytes
                                  through it (FIFO at the memory bandwidth); NULL: free */
  struct disk **members;       /* volume members, volume.members of them */
  struct disk **cache_devs;    /* SSD cache devices (mirrored in read-write mode) */
  int ncache_devs;
  uint64_t seed;
  /* Added by the storage stack (additive): the stack cannot read a device's
   * capacity from struct disk, and reshape/migration need the disks they add. */
  uint64_t member_bytes;       /* usable bytes per member: the smallest member's capacity */
  struct disk **spares;        /* disks RESHAPE/MIGRATE add to the volume, in order (may be NULL) */
  int nspares;
};

/* Background md operations. */
/* Background md operations (the scenario's `operation.kind`, and the
 * stack's); index into stack_op_names. */
enum stack_op_kind { STACK_OP_NONE = 0, STACK_OP_RESYNC, STACK_OP_REBUILD, STACK_OP_RESHAPE, STACK_OP_MIGRATE };
extern const char *const stack_op_names[]; /* "none", "resync", "rebuild", "reshape", "migrate", NULL */
struct stack_op_cfg {
  enum stack_op_kind kind;
  int target_level;   /* for MIGRATE: the new level index; RESHAPE: same level */
  int new_members;    /* RESHAPE/MIGRATE: member count after the operation */
  int failed_member;  /* REBUILD: which member is being rebuilt */
};
#define STACK_OP_MAX_PHASES 6
struct stack_op_report {
  enum stack_op_kind kind;
  double start_s, end_s; /* end_s < 0 while running */
  double progress;       /* 0..1 */
  int checkpoints;       /* reshape: superblock updates of reshape_position */
  int stopped;           /* 1: ended unfinished at end_s (the volume failed, or the
                            member being rebuilt failed) */
  /* the operation's phases in order (system arrays, md takeover, the data
   * array's sync, the fixed procedure), each [start, end]; end < 0 running */
  int nphases;
  struct stack_op_phase {
    const char *name;
    double start_s, end_s;
  } phases[STACK_OP_MAX_PHASES];
};

struct stack;

/* Check cfg completely (level vs member count, chunk a power of two, ...)
 * before anything is allocated; -1 with a message naming the bad value. */
int stack_check(const struct stack_cfg *cfg, struct nw_err *err);

struct stack *stack_create(const struct stack_cfg *cfg, const struct stack_hooks *hooks,
                           struct nw_err *err);
void stack_destroy(struct stack *s); /* accepts NULL */

/* Usable volume capacity (bytes). */
uint64_t stack_capacity_bytes(const struct stack *s);

void stack_submit(struct stack *s, double now_s, const struct stack_io *io);
/* 1 if a buffered read of [offset, offset+len) submitted now would be served
 * entirely from the page cache (a memory copy, no device I/O, no wait for a
 * read-ahead in flight); 0 otherwise (always 0 without a page cache).  Does
 * not touch the LRU or the hit statistics.  A daemon that reads with a
 * blocking pread() asks this to know whether it would sleep. */
int stack_read_cached(struct stack *s, uint64_t offset_bytes, uint64_t len_bytes);
/* Start the write-back of the dirty pages of [offset_bytes, +len_bytes)
 * now, as a file's close does when its file system allocates and submits
 * the file's delayed blocks then (ext4 auto_da_alloc: ext4_release_file ->
 * ext4_alloc_da_blocks -> filemap_flush): the flusher's write-back
 * requests, without waiting for them.  Returns the CPU work (reference
 * cycles: the page cache's flush_cycles_per_request per run + per byte)
 * that the closing thread spends submitting them; 0 without a page cache,
 * on a failed volume, or when none of the range is dirty. */
double stack_start_writeback(struct stack *s, double now_s, uint64_t offset_bytes, uint64_t len_bytes);
/* fsync(2) of the file range [offset_bytes, +len_bytes), as knfsd serves
 * an NFSv3 COMMIT (nfsd_commit -> vfs_fsync_range -> ext4_sync_file):
 * the range's dirty pages written back now and waited for, with those of
 * it already under write-back (filemap_write_and_wait_range), then the
 * journal commit of the file's changed metadata (jbd2: a synchronous
 * write of a block of the journal, which mke2fs puts mid-volume).
 * Completes through hooks io_done(tag) (io_error on a failed volume); at
 * once when none of the range is dirty or under write-back, or without a
 * page cache.  Returns the CPU work of submitting the write-back, on the
 * caller's thread (reference cycles, as stack_start_writeback). */
double stack_fsync(struct stack *s, double now_s, uint64_t offset_bytes, uint64_t len_bytes, uint64_t tag);
double stack_next_event_s(const struct stack *s);
void stack_advance(struct stack *s, double now_s);
void stack_cpu_done(struct stack *s, double now_s, uint64_t token);

/* Start a background operation at now_s; -1 with err if impossible. */
int stack_start_op(struct stack *s, double now_s, const struct stack_op_cfg *op, struct nw_err *err);
/* Mark a member failed at now_s.  Within the level's redundancy the volume
 * runs degraded; beyond it (raid_lost_bytes > 0 with every failed member,
 * a member being rebuilt counting as failed, as md counts it) the volume
 * fails: from then on every client request completes with an error
 * (hooks io_error), write-back stops and a background operation stops.
 * The member being rebuilt failing again stops the rebuild (degraded). */
void stack_fail_member(struct stack *s, double now_s, int member);

/* The volume's state: failed (and when), and an estimate of the data lost
 * then: the volume's bytes no surviving member holds (rows a rebuild had
 * already rewritten on the replacement count as held) plus the dirty
 * page-cache and SSD-cache bytes that could no longer be written back. */
struct stack_volume_state {
  int failed;
  double failed_at_s;         /* < 0 while not failed */
  double lost_bytes_estimate; /* 0 while not failed */
};
void stack_volume_get(const struct stack *s, struct stack_volume_state *out);

/* The SSD cache's counts so far (all 0 without one). */
void stack_ssdcache_get(const struct stack *s, struct stack_ssdcache_stats *out);

/* Background operations started so far (count, and the i-th). */
int stack_op_count(const struct stack *s);
void stack_op_get(const struct stack *s, int i, struct stack_op_report *out);
/* 1 while any background op is still running. */
int stack_ops_running(const struct stack *s);

/* Steady-state cache contents of one job, as after preconditioning. */
struct stack_precond {
  uint64_t offset_bytes, len_bytes; /* the job's region on the volume */
  double write_fraction;            /* 0..1: share of the job's requests that write */
  uint64_t run_bytes;               /* the job's sequential run: bs for random I/O, len_bytes for sequential */
  int buffered_writes;              /* 1: its writes go through the page cache (not sync, not O_DIRECT) */
  double write_weight;              /* its write rate relative to the other jobs' (any common unit;
                                       not > 0: 1) */
};

/* Put the caches in the state a long run of the njobs jobs together would
 * leave (before any I/O at time 0); a sequential job's next write is at its
 * region's start.  Page cache: the buffered writers hold it at the dirty
 * limit (what earlier calls left of it), each writer's part in proportion
 * to write_weight and at most its region (water-filling; writers of one
 * region claim it together); a random writer's part spread evenly over its
 * region, a sequential one's as the stretch just behind its position (the
 * region's end, as it wrapped).  Member disks: disk_precondition with the
 * rows the job last wrote (random: the region; sequential: just before its
 * dirty stretch) and a write-weight share of the disk caches.  SSD cache:
 * the job's own accesses (precond_passes per I/O-sized piece of
 * min(region, capacity); random offsets from the seed) run through the
 * cache's admission, so what is cached and dirty emerges from capacity,
 * working set and write share; jobs on one region with one pattern run
 * once; nothing for a sequential job the bypass refuses.
 * Each cache is left alone when absent.  0, or -1 out of memory (nothing
 * done). */
int stack_precondition(struct stack *s, const struct stack_precond *jobs, int njobs);

/* Dirty page-cache bytes of [off, off+len) now (0 without a page cache). */
uint64_t stack_dirty_bytes_in(const struct stack *s, uint64_t off, uint64_t len);

/* Added by the storage stack (additive): dirty page-cache bytes now (0 without a page cache). */
uint64_t stack_dirty_bytes(const struct stack *s);

#endif
