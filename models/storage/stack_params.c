/* stack_params.c - parameter tables of the storage stack (stack.h).
 *
 * Defaults are kernel defaults where one exists (source in the comment);
 * CPU costs per byte are unknowns with physically plausible ranges, to be
 * fitted per SoC in the catalogue. */
#include <stddef.h>

#include "models/storage/stack.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define TiB (1024.0 * GiB)

const char *const raid_level_names[] = {"single", "jbod", "0", "1", "5", "6", "10", "shr", "shr2",
                                        NULL};
const char *const raid_layout_names[] = {"left-symmetric", "left-asymmetric", "right-symmetric",
                                         "right-asymmetric", NULL};
const char *const iosched_names[] = {"noop", "cfq", NULL};
const char *const migrate_raid1_names[] = {"recovery", "recovery-resync", NULL};
const char *const mkfs_itable_init_names[] = {"lazy", "full", NULL};
const char *const stack_op_names[] = {"none", "resync", "rebuild", "reshape", "migrate", NULL};
const char *const ssdcache_mode_names[] = {"none", "read-only", "read-write", NULL};

const struct param_desc volume_param_table[] = {
    {.key = "level", .offset = offsetof(struct volume_params, level), .min = 0, .max = 8,
     .optional = 0, .help = "RAID level", .choices = raid_level_names},
    {.key = "members", .dim = UNITS_NUMBER, .offset = offsetof(struct volume_params, members),
     .min = 1, .max = 64, .optional = 0, .help = "member disk count"},
    /* DSM has used 64 KiB (hardware.md); md accepts powers of two >= 4 KiB */
    {.key = "chunk", .dim = UNITS_BYTES, .offset = offsetof(struct volume_params, chunk_bytes),
     .min = 4 * KiB, .max = 16 * MiB, .optional = 1, .def = 64 * KiB,
     .help = "chunk size (bytes, power of two)"},
    /* md default layout: ALGORITHM_LEFT_SYMMETRIC */
    {.key = "layout", .offset = offsetof(struct volume_params, layout), .min = 0, .max = 3,
     .optional = 1, .def = 0, .help = "RAID-5/6 parity layout", .choices = raid_layout_names},
    /* md stripe_cache_size: default 256, allowed 17..32768 (raid5.c) */
    {.key = "stripe_cache_size", .dim = UNITS_NUMBER,
     .offset = offsetof(struct volume_params, stripe_cache_entries), .min = 17, .max = 32768,
     .optional = 1, .def = 256, .help = "stripe cache entries (one page per member each)"},
    /* /proc/sys/dev/raid/speed_limit_min = 1000 (KiB/s, md.c sysctl_speed_limit_min) */
    {.key = "speed_limit_min", .dim = UNITS_RATE,
     .offset = offsetof(struct volume_params, speed_limit_min_bytes_per_s), .min = 1 * KiB,
     .max = 10 * GiB, .optional = 1, .def = 1000 * KiB,
     .help = "resync/rebuild rate floor per member under foreground load (bytes/s)"},
    /* /proc/sys/dev/raid/speed_limit_max = 200000 (KiB/s, md.c sysctl_speed_limit_max) */
    {.key = "speed_limit_max", .dim = UNITS_RATE,
     .offset = offsetof(struct volume_params, speed_limit_max_bytes_per_s), .min = 1 * KiB,
     .max = 10 * GiB, .optional = 1, .def = 200000 * KiB,
     .help = "resync/rebuild rate cap per member when idle (bytes/s)"},
    /* unknown: XOR with NEON/SSE is a fraction of a cycle to a few cycles per byte */
    {.key = "parity_cycles_per_byte", .dim = UNITS_NUMBER,
     .offset = offsetof(struct volume_params, parity_cycles_per_byte), .min = 0.01, .max = 20,
     .optional = 1, .def = 0.5, .help = "CPU cycles per byte fed to P (XOR) without an engine"},
    /* unknown: GF(2^8) syndrome costs a few times XOR */
    {.key = "q_cycles_per_byte", .dim = UNITS_NUMBER,
     .offset = offsetof(struct volume_params, q_cycles_per_byte), .min = 0.01, .max = 50,
     .optional = 1, .def = 1.5, .help = "extra CPU cycles per byte fed to Q (RAID-6)"},
    /* mke2fs.conf defaults: inode_ratio 16384, inode_size 256 (e2fsprogs) */
    {.key = "mkfs_inode_ratio", .dim = UNITS_BYTES,
     .offset = offsetof(struct volume_params, mkfs_inode_ratio_bytes), .min = 1024,
     .max = 64 * MiB, .optional = 1, .def = 16 * KiB, .help = "bytes per inode of the new file system"},
    {.key = "mkfs_inode_size", .dim = UNITS_BYTES,
     .offset = offsetof(struct volume_params, mkfs_inode_bytes), .min = 128, .max = 4 * KiB,
     .optional = 1, .def = 256, .help = "inode size of the new file system (bytes)"},
    /* mke2fs (e2fsprogs >= 1.41.12) sets lazy_itable_init when the kernel
     * has ext4lazyinit (/sys/fs/ext4/features/lazy_itable_init, >= 2.6.37):
     * the inode tables are zeroed after mount, outside the creation; full is
     * -E lazy_itable_init=0 (or an older mke2fs) */
    {.key = "mkfs_itable_init", .offset = offsetof(struct volume_params, mkfs_itable_init), .min = 0,
     .max = 1, .optional = 1, .def = 0,
     .help = "mke2fs inode tables: lazy (zeroed after mount by ext4lazyinit) or full (at creation)",
     .choices = mkfs_itable_init_names},
    /* md raid5.c reshape_request: reshape_position is written to the
     * superblocks at least every 10*HZ, and earlier when the next window
     * would overwrite old-layout data not yet recorded as reshaped */
    {.key = "reshape_checkpoint", .dim = UNITS_TIME,
     .offset = offsetof(struct volume_params, reshape_checkpoint_s), .min = 0.1, .max = 3600,
     .optional = 1, .def = 10, .help = "md reshape superblock checkpoint period (s)"},
    /* unknown: md_super_write is REQ_PREFLUSH|REQ_FUA; the flush empties each
     * member's write cache (SSD with DRAM: ~1 ms; HDD: a rotation or more) */
    {.key = "superblock_flush", .dim = UNITS_TIME,
     .offset = offsetof(struct volume_params, superblock_flush_s), .min = 0, .max = 1,
     .optional = 1, .def = 1e-3, .help = "member cache flush of a superblock update (s)"},
    /* a vendor layout: DSM 6 puts md0 (2.4 GB root) and md1 (2 GB swap),
     * RAID-1 over every disk, before the data partition; 0 by default */
    {.key = "system_partitions", .dim = UNITS_BYTES,
     .offset = offsetof(struct volume_params, system_partition_bytes), .min = 0, .max = 1 * TiB,
     .optional = 1, .def = 0,
     .help = "per member before the data partition: the system arrays (RAID-1 over every disk)"},
    {.key = "procedure_time", .dim = UNITS_TIME,
     .offset = offsetof(struct volume_params, procedure_s), .min = 0, .max = 3600, .optional = 1,
     .def = 0, .help = "fixed steps of a volume operation around md's work (s)"},
    /* md itself does no resync after a raid1 recovery (md_check_recovery:
     * recovery_cp is MaxSector); a vendor's conversion may ask for one
     * (catalog/systems.yaml) */
    {.key = "migrate_raid1", .offset = offsetof(struct volume_params, migrate_raid1), .min = 0,
     .max = 1, .optional = 1, .def = 0,
     .help = "single -> RAID-1 migration: md's recovery, or recovery then a resync of the pair",
     .choices = migrate_raid1_names},
    /* the members' elevator (stack_iosched.c): noop (requests go to the
     * disk in arrival order) unless a system's kernel is known to ship
     * another (catalog/systems.yaml) */
    {.key = "iosched", .offset = offsetof(struct volume_params, iosched), .min = 0, .max = 1,
     .optional = 1, .def = 0, .help = "member disks' I/O scheduler", .choices = iosched_names},
    /* cfq-iosched.c: cfq_slice_sync = HZ / 10 */
    {.key = "cfq_slice_sync", .dim = UNITS_TIME,
     .offset = offsetof(struct volume_params, cfq_slice_sync_s), .min = 1e-3, .max = 1,
     .optional = 1, .def = 0.1, .help = "CFQ time slice of a sync queue (s)"},
    /* cfq-iosched.c: cfq_slice_async = HZ / 25 */
    {.key = "cfq_slice_async", .dim = UNITS_TIME,
     .offset = offsetof(struct volume_params, cfq_slice_async_s), .min = 1e-3, .max = 1,
     .optional = 1, .def = 0.04, .help = "CFQ time slice of the async (write-back) queue (s)"},
    /* cfq-iosched.c: cfq_quantum = 8 (3.x) */
    {.key = "cfq_quantum", .dim = UNITS_NUMBER,
     .offset = offsetof(struct volume_params, cfq_quantum), .min = 1, .max = 64, .optional = 1,
     .def = 8, .help = "CFQ: requests of the active queue at the disk while other queues wait"},
    /* libata: 32 NCQ tags per SATA device (ATA_MAX_QUEUE) */
    {.key = "queue_depth", .dim = UNITS_NUMBER,
     .offset = offsetof(struct volume_params, queue_depth), .min = 1, .max = 256, .optional = 1,
     .def = 32, .help = "requests the block layer keeps at a member disk under cfq"},
};
const size_t volume_param_count = PARAM_COUNT(volume_param_table);

const struct param_desc pcache_param_table[] = {
    {.key = "ram", .dim = UNITS_BYTES, .offset = offsetof(struct pcache_params, ram_bytes),
     .min = 0, .max = 1 * TiB, .optional = 1, .def = 0,
     .help = "RAM available to the page cache (bytes; 0 = no page cache)"},
    /* Linux read_ahead_kb default 128 */
    {.key = "readahead", .dim = UNITS_BYTES,
     .offset = offsetof(struct pcache_params, readahead_bytes), .min = 0, .max = 64 * MiB,
     .optional = 1, .def = 128 * KiB, .help = "read-ahead window (bytes)"},
    /* vm.dirty_background_ratio default 10 */
    {.key = "dirty_background_ratio", .dim = UNITS_NUMBER,
     .offset = offsetof(struct pcache_params, dirty_background_ratio), .min = 0.001, .max = 1,
     .optional = 1, .def = 0.10, .help = "dirty fraction of RAM where the flusher starts"},
    /* vm.dirty_ratio default 20 */
    {.key = "dirty_ratio", .dim = UNITS_NUMBER,
     .offset = offsetof(struct pcache_params, dirty_ratio), .min = 0.001, .max = 1,
     .optional = 1, .def = 0.20, .help = "dirty fraction of RAM where writers block"},
    /* vm.dirty_expire_centisecs default 3000 */
    {.key = "dirty_expire", .dim = UNITS_TIME,
     .offset = offsetof(struct pcache_params, dirty_expire_s), .min = 0.01, .max = 3600,
     .optional = 1, .def = 30, .help = "age after which dirty data is written back (s)"},
    /* vm.dirty_writeback_centisecs default 500 */
    {.key = "writeback_interval", .dim = UNITS_TIME,
     .offset = offsetof(struct pcache_params, writeback_interval_s), .min = 0.01, .max = 600,
     .optional = 1, .def = 5, .help = "flusher wake-up period (s)"},
    /* unknown: page-cache write-back path cost */
    {.key = "flush_cycles_per_byte", .dim = UNITS_NUMBER,
     .offset = offsetof(struct pcache_params, flush_cycles_per_byte), .min = 0, .max = 20,
     .optional = 1, .def = 0.2, .help = "flusher CPU cycles per byte written back"},
    /* unknown: one contiguous dirty extent written back is one bio: ext4
     * block mapping under a journal handle, bio build, submit through the
     * block layer, completion and end_page_writeback; a few microseconds
     * on a desktop core, so ~1e4..1e5 reference (in-order) cycles.
     * Scattered 4 KiB pages (random writes) pay it per page. */
    {.key = "flush_cycles_per_request", .dim = UNITS_NUMBER,
     .offset = offsetof(struct pcache_params, flush_cycles_per_request), .min = 0, .max = 1e6,
     .optional = 1, .def = 2e4,
     .help = "flusher CPU cycles per write-back request (one contiguous dirty extent)"},
};
const size_t pcache_param_count = PARAM_COUNT(pcache_param_table);

const struct param_desc ssdcache_param_table[] = {
    {.key = "mode", .offset = offsetof(struct ssdcache_params, mode), .min = 0, .max = 2,
     .optional = 1, .def = 0, .help = "none, read-only or read-write",
     .choices = ssdcache_mode_names},
    {.key = "capacity", .dim = UNITS_BYTES,
     .offset = offsetof(struct ssdcache_params, capacity_bytes), .min = 0, .max = 64 * TiB,
     .optional = 1, .def = 0, .help = "usable cache capacity (bytes)"},
    {.key = "block", .dim = UNITS_BYTES, .offset = offsetof(struct ssdcache_params, block_bytes),
     .min = 4 * KiB, .max = 4 * MiB, .optional = 1, .def = 64 * KiB,
     .help = "cache line (bytes)"},
    /* unknown: DSM's threshold is not published; 0 disables the bypass */
    {.key = "seq_bypass", .dim = UNITS_BYTES,
     .offset = offsetof(struct ssdcache_params, seq_bypass_bytes), .min = 0, .max = 1 * GiB,
     .optional = 1, .def = 1 * MiB,
     .help = "sequential run length after which I/O bypasses the cache (bytes)"},
    /* low: DSM's cache is flashcache-derived with 64 KiB blocks (its RAM
     * need, ~416 KB per GB of cache, is ~26 B per 64 KiB block) serving
     * 4 KiB I/O, so each block keeps valid/dirty bits per 4 KiB sector; a
     * block takes its whole slot on the SSD however few sectors are valid */
    {.key = "sector", .dim = UNITS_BYTES, .offset = offsetof(struct ssdcache_params, sector_bytes),
     .min = 512, .max = 4 * MiB, .optional = 1, .def = 4 * KiB,
     .help = "valid/dirty granularity inside a cache block (bytes; divides the block, <= 64 per block)"},
    /* flashcache dirty_thresh_pct default 20 (flashcache-sa-guide): cleaning
     * starts once a set is this dirty; DSM's value is not published */
    {.key = "dirty_thresh", .dim = UNITS_NUMBER,
     .offset = offsetof(struct ssdcache_params, dirty_thresh), .min = 0.01, .max = 0.99,
     .optional = 1, .def = 0.20,
     .help = "dirty fraction of the cache above which the destager runs under foreground load"},
    /* flashcache fallow_delay default 900 s: dirty blocks idle this long are
     * cleaned even below the threshold */
    {.key = "fallow_delay", .dim = UNITS_TIME, .offset = offsetof(struct ssdcache_params, fallow_s),
     .min = 0.01, .max = 86400, .optional = 1, .def = 900,
     .help = "age after which a dirty block is cleaned below the threshold (s)"},
    /* flashcache v2 on-SSD metadata: 16 B per block packed in 4 KiB
     * metadata blocks (md_block_size 8 sectors); a block turning dirty or
     * clean rewrites its metadata block before the write is acknowledged */
    {.key = "metadata", .dim = UNITS_BYTES,
     .offset = offsetof(struct ssdcache_params, metadata_bytes), .min = 512, .max = 64 * KiB,
     .optional = 1, .def = 4 * KiB, .help = "size of one on-SSD metadata update (bytes)"},
    /* fio (the reviewers' tool) keeps a random map: a random job touches
     * every block of its file once per pass; a preconditioning pass over
     * the test region (SNIA PTS writes twice the capacity: >= 1) */
    {.key = "precond_passes", .dim = UNITS_NUMBER,
     .offset = offsetof(struct ssdcache_params, precond_passes), .min = 0.1, .max = 16,
     .optional = 1, .def = 1,
     .help = "preconditioning: passes of the job's own pattern over min(region, capacity)"},
};
const size_t ssdcache_param_count = PARAM_COUNT(ssdcache_param_table);

const struct param_desc crypt_param_table[] = {
    {.key = "enabled", .dim = UNITS_NUMBER, .offset = offsetof(struct crypt_params, enabled),
     .min = 0, .max = 1, .optional = 1, .def = 0, .help = "1: folder encryption on"},
    /* unknown: table AES on ARMv7 without crypto extensions is tens of cycles per byte */
    {.key = "cpu_cycles_per_byte", .dim = UNITS_NUMBER,
     .offset = offsetof(struct crypt_params, cpu_cycles_per_byte), .min = 0.5, .max = 200,
     .optional = 1, .def = 25, .help = "AES-CBC encryption CPU cycles per byte without an engine"},
    /* CBC decryption has no chain dependency (every block's AES runs on the
     * ciphertext, known in advance), so it pipelines where encryption is
     * latency bound: with AES-NI ~1 vs ~4.5 cycles/byte; table AES on an
     * in-order core is throughput bound either way (ratio ~1).  0 = same as
     * cpu_cycles_per_byte. */
    {.key = "cpu_decrypt_cycles_per_byte", .dim = UNITS_NUMBER,
     .offset = offsetof(struct crypt_params, cpu_decrypt_cycles_per_byte), .min = 0, .max = 200,
     .optional = 1, .def = 0, .help = "AES-CBC decryption CPU cycles per byte (0 = as encryption)"},
};
const size_t crypt_param_count = PARAM_COUNT(crypt_param_table);
