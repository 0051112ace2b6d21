/* stack_impl.h - private to models/storage/stack*.c: the stack's state,
 * its requests and the functions the stack's files share.  The public
 * contract is stack.h.
 *
 *   stack.c          requests and their steps, events, create/destroy
 *   stack_pcache.c   page cache, read-ahead, flusher, stack_submit
 *   stack_ssd.c      SSD cache and its destager
 *   stack_crypt.c    folder encryption (AES before writes, after reads)
 *   stack_md.c       md glue: plans and the RAID-5/6 stripe cache
 *   stack_ops.c      background operations and member failures
 *   stack_discard.c  discards (UNMAP) down to the members
 *   stack_precond.c  preconditioned steady state */
#ifndef NASTWIN_STACK_IMPL_H
#define NASTWIN_STACK_IMPL_H

#include <stdint.h>

#include "models/storage/pcache.h"
#include "models/storage/raid.h"
#include "models/storage/stack.h"

#define STK_MAX_OPS 16
/* md_do_sync's throttle: above speed_limit_min with the array not idle it
 * sleeps 500 ms; is_mddev_idle calls a member busy after more than 64
 * sectors of I/O md did not issue itself (see stk_md_busy) */
#define STK_SYNC_SLEEP_S 0.5
#define STK_SYNC_IDLE_BYTES (64u * 512u)
#define STK_OP_WINDOWS 4                      /* background windows in flight */
#define STK_OP_WINDOW_IDLE_BYTES (32u << 20)  /* per member, members idle (at least) */
/* On large members an idle window grows so one pass over a member is at
 * most this many windows: a 14 TB rebuild costs the same number of events
 * as a 1 TB one (windows are simulation granularity, not md's). */
#define STK_OP_WINDOWS_PER_PASS 16384u
#define STK_OP_SPANS_PER_PASS 256u  /* reshape: a span extrapolates at most this share of the pass */
#define STK_OP_SPAN_MEASURE 8       /* reshape: real checkpoint periods measured before a span */
#define STK_OP_WINDOW_BUSY_BYTES (1u << 20)   /* per member, foreground active */
/* an idle window is at most this share of the time since the last
 * foreground I/O at the sync's pace (stk_op_idle_window): with
 * STK_OP_WINDOWS in flight, a quarter of that quiet time */
#define STK_OP_QUIET_SHARE (1.0 / 16.0)
#define STK_IDLE_S 0.5 /* members are "busy" if foreground I/O came within this (md checks
                          is_mddev_idle and sleeps 500 ms) */
#define STK_RA_STREAMS 32 /* sequential readers tracked at once */
/* A read-ahead window goes down as bios of at most BIO_MAX_PAGES (256 pages,
 * include/linux/bio.h of 4.4); a page is up to date when its bio completes. */
#define STK_RA_BIO_BYTES (256u * RAID_PAGE_BYTES)
#define STK_FLUSH_MAX_BYTES (4u << 20) /* one write-back request (MAX_WRITEBACK_PAGES 1024) */
/* Write-back in flight: the flusher submits a pass of pages without
 * waiting for them (fs-writeback.c), so scattered dirty pages are many
 * small bios queued at md at once; md's stripe cache and the member
 * queues bound them further down.  Four largest requests' worth. */
#define STK_FLUSH_INFLIGHT_BYTES (4u * STK_FLUSH_MAX_BYTES)
#define STK_DESTAGE_MAX_BYTES (1u << 20)
#define STK_MERGE_MAX_BYTES (4u << 20)
#define STK_STRIPE_GROUPS 4 /* row groups the stripe cache holds at least (see stk_stripes_grant) */
#define STK_SC_STREAMS 16          /* sequential streams the SSD cache tracks at once */
/* flashcache max_clean_ios_total default 4: dirty runs being written back at once */
#define STK_DESTAGE_INFLIGHT 4
#define STK_ELV_NQ 3 /* CFQ queues per member (stack_iosched.c) */

enum stk_step {
  ST_CPU_PRE, ST_CRYPT_W, ST_SSD, ST_PLAN, ST_READS, ST_PARITY, ST_WRITES, ST_SSD_FILL,
  ST_CRYPT_R, ST_FINISH, ST_DONE
};
enum stk_kind { RQ_CLIENT, RQ_RA, RQ_FLUSH, RQ_BG, RQ_DESTAGE, RQ_FILL, RQ_ROWS };
enum stk_tm { TM_REQ, TM_OP, TM_FLUSH, TM_DESTAGE };

struct stk_wait { /* a read waiting for a read-ahead bio (one node per bio it needs) */
  struct stk_req *r;
  struct stk_wait *next;
};

struct stk_req {
  int kind, step, pending, write, sync;
  int discard;            /* a discard: its plan's writes go to the members as discards */
  uint64_t off, len; /* logical range (cache/raid level) */
  uint64_t tag;      /* RQ_CLIENT: client cookie */
  int skip_raid, ssd_fill, planned, stripes_held;
  int sc_looked;          /* SSD cache: the layer's CPU for this request is done */
  int sc_job;             /* SSD cache: its cache-device job completes through kcached (a hit,
                             a cached write): the completion pass at ST_SSD_FILL */
  int sc_md;              /* SSD cache: a metadata update to write at ST_SSD_FILL (a block
                             turned dirty by this write, or clean by this destage) */
  double pre_cycles;
  struct raid_plan plan;
  struct stk_req *rider;  /* client requests completed with this one */
  struct stk_wait *waiters; /* reads that also need this read-ahead's pages */
  int waits;              /* read-ahead bios in flight this read still needs (see waiters) */
  int parked;             /* 1: reached FINISH while waits > 0 */
  struct stk_req *next;   /* wait queue link */
  uint64_t op_units;      /* RQ_BG: progress units of this window */
  int op_index;           /* RQ_BG: the operation (index into ops) it works for */
  int sys_area;           /* RQ_BG: its plan addresses the system partitions (member offset 0) */
  double stripe_heads;    /* md stripe_heads raid5d handles for this request */
  /* RAID-5/6 write: member page rows [row_next, row_end) not yet admitted to
   * the stripe cache (row_begin: the first); each admitted group is an
   * RQ_ROWS request whose parent is this one */
  uint64_t row_begin, row_next, row_end;
  struct stk_req *parent;
  struct stk_req *lprev, *lnext; /* every live request, freed by stack_destroy */
};

struct stk_timer {
  double t_s;
  uint64_t seq;
  int kind;
  struct stk_req *req;
};

struct stk_op {
  struct stack_op_cfg cfg;
  struct stack_op_report rep;
  uint64_t total, issued, done; /* progress units: member bytes (reshape: of the new layout) */
  int inflight, timer_armed, critical_done;
  double next_issue_s;
  int reshape;           /* md reshape (RESHAPE, MIGRATE RAID-1 -> 5): windowed, see stk_reshape_* */
  int sb_pending;        /* reshape: the superblock update in flight */
  uint64_t safe_bytes;   /* reshape: logical progress recorded in the superblocks (reshape_safe) */
  double checkpoint_s;   /* reshape: time of the last superblock update */
  int parts;             /* reshape: requests of the window in flight still running */
  uint64_t unit_windows; /* reshape: md windows in the unit in flight (> 1: a batch) */
  double unit_issue_s;   /* reshape: issue time of the unit in flight */
  int unit_plain;        /* reshape: the unit in flight is one plain window (see stk_reshape_batch) */
  double window_s;       /* reshape: duration of the last plain window (0: none; < 0: skip the next) */
  /* reshape: the checkpoint periods (superblock update done to the next
   * one done) measured since the last span, for stk_reshape_span */
  uint64_t per_done, ck_done;
  double per_s, ck_s;
  int nper;              /* periods measured; -1: no checkpoint done yet */
  int spanned;           /* a span ran since the last checkpoint */
  int span_checkpoints;  /* the unit in flight is a span standing for this many periods (0: not) */
  double span_end_s;     /* ... and ends then */
  struct raid_geom newg; /* reshape / migration target */
  int phase;             /* migrate RAID-1 -> 5: 0 then reshape */
  int mkfs;              /* RESYNC of a volume without redundancy: file-system creation writes */
  int resync_pass;       /* MIGRATE single -> RAID-1: the pair's resync after the recovery runs */
  /* DSM's procedure: the system arrays synced onto the joining members,
   * then the data array, then the fixed steps (stage) */
  enum { STK_STAGE_SYS, STK_STAGE_DATA, STK_STAGE_FIXED } stage;
  uint64_t data_total;   /* the data stage's units while the system stage runs */
  uint64_t join_mask;    /* members the system arrays are written to */
  int sys_src;           /* member they are read from */
  /* is_mddev_idle: the last look (time, verdict) and the members' counters then */
  double look_s;
  int busy;
  uint64_t last_events[RAID_MAX_MEMBERS];
};

/* The I/O scheduler of one member (stack_iosched.c). */
struct stk_elv {
  struct stk_elv_rq *head[STK_ELV_NQ], *tail[STK_ELV_NQ];
  int dispatched;     /* requests at the disk */
  int active;         /* the queue holding the disk */
  double slice_end_s; /* its slice ends then */
};

struct blocked_write {
  struct stack_io io;
};

struct stack {
  struct stack_cfg cfg;
  struct stack_hooks hooks;
  enum ssdcache_mode sc_mode; /* cfg.ssdcache.mode, typed */
  int crypt_on;               /* cfg.crypt.enabled */
  struct raid_geom g;
  struct disk *dev[RAID_MAX_MEMBERS];
  int ndev;
  int pending[RAID_MAX_MEMBERS];
  struct stk_elv elv[RAID_MAX_MEMBERS];
  uint64_t capacity;
  /* timers */
  struct stk_timer *heap;
  int nheap, heap_cap;
  uint64_t seq;
  double last_fg_s;
  uint64_t fg_bytes[RAID_MAX_MEMBERS]; /* foreground bytes sent to each member so far */
  int spares_used;                     /* cfg.spares[0..spares_used) joined the volume */
  /* stripe cache */
  int stripes_free;
  struct stk_req *swait_head, *swait_tail;
  /* page cache */
  struct pcache *pc;
  uint64_t dirty_limit, dirty_bg;
  uint64_t flush_inflight_bytes;
  int flush_timer;
  struct blocked_write *blocked;
  int nblocked, blocked_cap;
  /* read-ahead state per sequential stream (Linux keeps it per open file:
   * struct file_ra_state), stack_ra.c */
  struct stk_ra {
    uint64_t last_end;     /* end of the stream's last read (prev_pos) */
    uint64_t start;        /* current window: its first byte, */
    uint64_t size, async;  /* its length and asynchronous part in pages */
    int marked;            /* its PG_readahead page not yet reached */
    uint64_t used;         /* LRU clock */
  } ra[STK_RA_STREAMS];
  struct stk_req **ra_fly; /* reads into the page cache in flight: read-ahead bios and
                              client reads of missing pages (disjoint ranges) */
  int nra_fly, ra_fly_cap;
  uint64_t ra_clock;
  uint64_t ra_bytes;     /* effective read-ahead window */
  /* ssd cache */
  struct pcache *sc;
  uint64_t sc_end[STK_SC_STREAMS], sc_run[STK_SC_STREAMS];
  uint8_t sc_order[STK_SC_STREAMS]; /* the streams, least recently used first (never used: by index) */
  uint64_t sc_span;
  int sc_rr, destage_inflight, destage_timer;
  struct stack_ssdcache_stats sc_stats;
  /* background ops */
  struct stk_op ops[STK_MAX_OPS];
  int nops;
  uint64_t reshape_pos; /* logical bytes already in the new layout */
  int reshaping;
  /* volume failure (stack_fail_member): every client request errs from then on */
  int vol_failed;
  double failed_at_s;
  double lost_dirty_bytes; /* dirty cache bytes that could not be written back */
  struct stk_req *live;
};

/* stack.c */
void stk_tm_push(struct stack *s, double t, int kind, struct stk_req *r);
struct stk_req *stk_req_new(struct stack *s, int kind, uint64_t off, uint64_t len,
                            int write);
void stk_req_free1(struct stack *s, struct stk_req *r);
void stk_req_free(struct stack *s, struct stk_req *r);
void stk_dev_submit(struct stack *s, struct disk *d, int member, uint64_t off, uint64_t len,
                    int write, struct stk_req *r, double t);
int stk_bg_active(const struct stack *s, double t);
void stk_run(struct stack *s, struct stk_req *r, double t);
void stk_lower(struct stack *s, struct stk_req *r, double t);

void stk_compute(struct stack *s, struct stk_req *r, struct accel *engine, double bytes,
                 enum stack_thread th, double cycles, double t);

/* stack_iosched.c */
struct disk_io;
void stk_elv_submit(struct stack *s, int m, const struct disk_io *io, int write,
                    const struct stk_req *r, double t);
void stk_elv_done(struct stack *s, int m, double t);
void stk_elv_free(struct stack *s);

/* stack_crypt.c */
void stk_crypt_write(struct stack *s, struct stk_req *r, double t);
void stk_crypt_read(struct stack *s, struct stk_req *r, double t);
/* read-ahead (stack_ra.c) */
struct stk_req *stk_ra_holding(struct stack *s, uint64_t x);
int stk_ra_track(struct stack *s, struct stk_req *r);
void stk_ra_landed(struct stack *s, const struct stk_req *r);
struct stk_ra *stk_ra_stream(struct stack *s, uint64_t off, uint64_t len, int *seq);
void stk_ra_read(struct stack *s, struct stk_ra *st, int seq, uint64_t off, uint64_t end,
                 uint64_t miss_a, uint64_t miss_b, double t);
#define STK_JOURNAL_BLOCK_BYTES 4096u /* the journal commit an fsync of written data writes (jbd2's
                                         commit block; mke2fs puts the journal mid-volume) */
#define STK_TRIM_WAITS 16 /* read-ahead bios one read waits for at most */
int stk_read_trim(struct stack *s, uint64_t *a, uint64_t *b, struct stk_req **wait);

/* stack_md.c */
void stk_plan(struct stack *s, struct stk_req *r);
void stk_stripes_admit(struct stack *s, struct stk_req *r, double t);
void stk_stripes_release(struct stack *s, int n, double t);
void stk_parity(struct stack *s, struct stk_req *r, double t);

/* stack_ssd.c */
uint64_t stk_cdev_off(const struct stack *s, uint64_t off);
void stk_ssd(struct stack *s, struct stk_req *r, double t);
void stk_destage_kick(struct stack *s, double t);
void stk_ssd_fill(struct stack *s, struct stk_req *r, double t);
void stk_ssd_touch(struct stack *s, uint64_t off, uint64_t len, int write, double t);

/* stack_pcache.c */
void stk_client_done(struct stack *s, struct stk_req *r, double t);
void stk_immediate(struct stack *s, uint64_t tag, double t, uint64_t bytes);
void stk_unblock(struct stack *s, double t);
void stk_flush_kick(struct stack *s, double t);

/* stack_discard.c */
void stk_discard(struct stack *s, const struct stack_io *io, uint64_t off, uint64_t len, double t);

/* stack_ops.c */
struct stk_op *stk_op_running(struct stack *s);
/* The system partitions' bytes per member (whole 4 KiB pages). */
static inline uint64_t stk_sys_bytes(const struct stack_cfg *cfg)
{
  double b = cfg->volume.system_partition_bytes;
  return b > 0 ? (uint64_t)(b / 4096.0) * 4096u : 0;
}
void stk_op_pump(struct stack *s, double t);
void stk_op_window_done(struct stack *s, struct stk_req *r, double t);

#endif
