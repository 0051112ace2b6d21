/* stack_ops.c - background md operations (resync / volume creation,
 * rebuild, reshape, migration) as windows of member I/O paced by md's
 * throttle, and member failures (degraded service, volume failure). */
#include "models/storage/stack_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* mke2fs default journal size for a file system of cap bytes in 4 KiB
 * blocks (e2fsprogs ext2fs_default_journal_size). */
static uint64_t stk_journal_bytes(uint64_t cap)
{
  uint64_t blocks = cap / 4096, j;
  if (blocks < 2048)
    j = 0;
  else if (blocks < 32768)
    j = 1024;
  else if (blocks < 256 * 1024)
    j = 4096;
  else if (blocks < 512 * 1024)
    j = 8192;
  else if (blocks < 4096 * 1024)
    j = 16384;
  else if (blocks < 8192 * 1024)
    j = 32768;
  else if (blocks < 16384 * 1024)
    j = 65536;
  else if (blocks < 32768 * 1024)
    j = 131072;
  else
    j = 262144;
  return j * 4096;
}

struct stk_op *stk_op_running(struct stack *s)
{
  if (s->nops > 0 && s->ops[s->nops - 1].rep.end_s < 0)
    return &s->ops[s->nops - 1];
  return NULL;
}

static void stk_op_end(struct stack *s, struct stk_op *op, double t)
{
  switch (op->cfg.kind) {
  case STACK_OP_REBUILD:
    s->g.failed_mask &= ~(1ull << op->cfg.failed_member);
    break;
  case STACK_OP_RESHAPE:
    s->g = op->newg;
    s->reshaping = 0;
    break;
  case STACK_OP_MIGRATE:
    s->g = op->newg;
    s->reshaping = 0;
    break;
  default:
    break;
  }
  op->rep.end_s = t;
  op->rep.progress = 1.0;
  s->capacity = raid_capacity_bytes(&s->g);
}

/* The report's phases: close the running one at t, open `name` at t. */
static void stk_phase(struct stk_op *op, const char *name, double t)
{
  struct stack_op_report *rep = &op->rep;
  if (rep->nphases > 0 && rep->phases[rep->nphases - 1].end_s < 0)
    rep->phases[rep->nphases - 1].end_s = t;
  if (name != NULL && rep->nphases < STACK_OP_MAX_PHASES)
    rep->phases[rep->nphases++] = (struct stack_op_phase){.name = name, .start_s = t, .end_s = -1.0};
}

/* A window of the system arrays (md0, md1: RAID-1 over every disk, one
 * after the other as md syncs arrays sharing a disk): md raid1 recovery
 * reads a member that holds them and writes the joining ones; a new
 * array's resync reads its first member (raid1 sync_request reads
 * read_disk only) and writes the others. */
static void stk_sys_window(struct stack *s, struct stk_op *op, struct stk_req *r, uint64_t units)
{
  uint64_t pos = op->issued;
  raid_ext_add(&r->plan.reads, op->sys_src, pos, units);
  for (int m = 0; m < s->ndev; m++)
    if (((op->join_mask >> m) & 1) && m != op->sys_src)
      raid_ext_add(&r->plan.writes, m, pos, units);
  r->sys_area = 1;
}

/* Build the plan of the next window: `units` of progress. */
static void stk_op_window(struct stack *s, struct stk_op *op, struct stk_req *r, uint64_t units)
{
  uint64_t pos = op->issued;
  if (op->stage == STK_STAGE_SYS) {
    stk_sys_window(s, op, r, units);
    return;
  }
  if (op->resync_pass) { /* md raid1 resync: read the first member, write the other */
    raid_plan_resync(&s->g, pos, units, &r->plan);
    return;
  }
  switch (op->cfg.kind) {
  case STACK_OP_RESYNC:
    if (op->mkfs) { /* volume creation: mke2fs zeroes inode tables and journal */
      raid_plan_write(&s->g, pos, units, &r->plan);
      break;
    }
    raid_plan_resync(&s->g, pos, units, &r->plan);
    if (s->g.parity_members > 0)
      r->stripe_heads = (double)units / RAID_PAGE_BYTES;
    break;
  case STACK_OP_REBUILD:
    raid_plan_rebuild(&s->g, op->cfg.failed_member, pos, units, &r->plan);
    if (s->g.parity_members > 0)
      r->stripe_heads = (double)units / RAID_PAGE_BYTES;
    break;
  case STACK_OP_NONE: /* never started (stack_start_op refuses it) */
    break;
  case STACK_OP_MIGRATE:
  case STACK_OP_RESHAPE:
    if (!op->reshape) { /* single -> RAID-1: md raid1 recovery copies member 0 */
      raid_ext_add(&r->plan.reads, 0, pos, units);
      raid_ext_add(&r->plan.writes, 1, pos, units);
      break;
    }
    {
      /* md reshape: read the old layout, write the new one; the first
       * window also backs up the critical section (mdadm --grow copies the
       * stripes rewritten in place before the kernel starts) */
      const struct raid_geom *o = &s->g, *n = &op->newg;
      uint64_t rd = raid_plan_reshape(o, n, pos, units, &r->plan);
      /* raid5d handles one destination stripe_head per 4 KiB row of the
       * new layout and one source stripe_head per old row it consumes */
      r->stripe_heads = (double)(units + rd) / RAID_PAGE_BYTES;
      if (!op->critical_done) {
        uint64_t crit = o->chunk_bytes * (uint64_t)o->data_members * (uint64_t)n->data_members;
        for (int m = 0; m < o->members; m++)
          raid_ext_add(&r->plan.reads, m, 0, crit / (uint64_t)o->data_members);
        raid_ext_add(&r->plan.writes, n->members - 1, n->member_bytes - crit, crit);
        op->critical_done = 1;
      }
    }
    break;
  }
}

/* md reshape window (new-layout bytes per member).  reshape_request takes
 * the destination stripe_heads of a chunk (one per 4 KiB row of the new
 * layout) and the source stripe_heads of the old rows they consume
 * (D_new/D_old per new row); raid5_get_active_stripe blocks once the stripe
 * cache is used up, so the cache bounds the reshape's work in flight.  We
 * move it as one window whose reads, raid5d work and writes run together
 * (stk_op_issue), then the next.  At least one chunk: md never splits
 * one. */
static uint64_t stk_reshape_window_bytes(const struct stack *s, const struct stk_op *op)
{
  double per_row = 1.0 + (double)op->newg.data_members / (double)s->g.data_members;
  uint64_t rows = (uint64_t)(s->cfg.volume.stripe_cache_entries / per_row);
  uint64_t chunk_rows = s->g.chunk_bytes / RAID_PAGE_BYTES;
  rows -= rows % chunk_rows;
  if (rows < chunk_rows)
    rows = chunk_rows;
  return rows * RAID_PAGE_BYTES;
}

/* md raid5.c reshape_request (growing forwards, data offsets unchanged):
 * before the next window the superblocks must record reshape_position when
 * the window would write over old-layout data beyond what they record as
 * reshaped (safepos < writepos) once the reads run ahead of the writes
 * (readpos > writepos: before that, mdadm's backup covers the critical
 * section).  Positions per member; md uses one chunk as the margin, we use
 * the window.  `issued` is the new-layout position of the next window. */
static int stk_reshape_unsafe_at(const struct stack *s, const struct stk_op *op, uint64_t issued,
                                 uint64_t safe_bytes, uint64_t w)
{
  uint64_t od = (uint64_t)s->g.data_members, nd = (uint64_t)op->newg.data_members;
  uint64_t writepos = issued + w;
  uint64_t readpos = issued * nd / od, safepos = safe_bytes / od;
  readpos = readpos > w ? readpos - w : 0;
  safepos = safepos > w ? safepos - w : 0;
  return safepos < writepos && readpos > writepos;
}

static int stk_reshape_unsafe(const struct stack *s, const struct stk_op *op, uint64_t issued,
                              uint64_t w)
{
  return stk_reshape_unsafe_at(s, op, issued, op->safe_bytes, w);
}

/* ... and in any case every reshape_checkpoint seconds. */
static int stk_reshape_need_checkpoint(const struct stack *s, const struct stk_op *op, uint64_t w,
                                       double t)
{
  return t >= op->checkpoint_s + s->cfg.volume.reshape_checkpoint_s ||
         stk_reshape_unsafe(s, op, op->issued, w);
}

/* md windows to move as one simulated unit (1: a lone window).  A 14 TB
 * member is ~10^7 md windows; identical consecutive windows are batched:
 * the unit reads the old rows of all of them and writes their new rows,
 * and stk_op_window_done holds the next unit back until each window has
 * taken the duration window_s that the last lone plain window took.  Windows are
 * identical when the members are idle, the window is full, all of them
 * read old data or none does, and no superblock checkpoint falls between
 * them (the period and the safety rule are checked per window here; the
 * checkpoints themselves stay real).  window_s is re-measured after each
 * checkpoint.  A unit moves at most the idle window of the other
 * operations (as long as a foreground request may wait behind it); the
 * last window of the reshape is always a lone one. */
static uint64_t stk_reshape_batch(const struct stack *s, const struct stk_op *op, uint64_t w,
                                  double rate, double t)
{
  if (op->window_s <= 0 || !op->critical_done || w == 0)
    return 1;
  uint64_t nd = (uint64_t)op->newg.data_members, cap = raid_capacity_bytes(&s->g);
  uint64_t k = (op->total - op->issued) / w;
  k = k > 0 ? k - 1 : 0;
  uint64_t idle_window = s->cfg.member_bytes / STK_OP_WINDOWS_PER_PASS;
  if (idle_window < STK_OP_WINDOW_IDLE_BYTES)
    idle_window = STK_OP_WINDOW_IDLE_BYTES;
  if (k > idle_window / w)
    k = idle_window / w;
  uint64_t l0 = op->issued * nd;
  if (l0 < cap) { /* windows reading old data: all of theirs below cap */
    uint64_t kc = (cap - l0) / (w * nd);
    if (k > kc)
      k = kc;
  }
  /* the period: window k starts at t + k * max(window_s, w / rate) */
  double period = op->window_s > (double)w / rate ? op->window_s : (double)w / rate;
  double left = op->checkpoint_s + s->cfg.volume.reshape_checkpoint_s - t;
  double kt = ceil(left / period);
  if (kt < (double)k)
    k = kt > 0 ? (uint64_t)kt : 0;
  /* the safety rule turns on at one window and stays on: first such window */
  if (k >= 2 && stk_reshape_unsafe(s, op, op->issued + (k - 1) * w, w)) {
    uint64_t lo = 0, hi = k - 1; /* window lo is safe, window hi is not */
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (stk_reshape_unsafe(s, op, op->issued + mid * w, w))
        hi = mid;
      else
        lo = mid;
    }
    k = hi;
  }
  return k >= 2 ? k : 1;
}

/* Superblock update, once the window in flight is done (the caller's
 * check): one 4 KiB write per member (the v1.2 superblock lies before the
 * data area; offset 0 of the member stands for it), then the members'
 * cache flush (stk_op_window_done delays the next window by it). */
static void stk_reshape_checkpoint(struct stack *s, struct stk_op *op, double t)
{
  struct stk_req *r = stk_req_new(s, RQ_BG, 0, 0, 1);
  if (r == NULL)
    return;
  for (int m = 0; m < op->newg.members; m++)
    raid_ext_add(&r->plan.writes, m, 0, RAID_PAGE_BYTES);
  r->op_units = 0;
  r->op_index = (int)(op - s->ops);
  r->planned = 1;
  r->step = ST_READS;
  op->inflight++;
  op->sb_pending = 1;
  stk_run(s, r, t);
}

/* md_do_sync (Linux 3.x-4.x): above speed_limit_min the sync looks at
 * is_mddev_idle and, when the array is busy (some member did more than 64
 * sectors of I/O md did not issue for the sync since it last called that
 * member busy), sleeps 500 ms before looking again; so its speed hovers
 * at speed_limit_min under any foreground load and goes up to
 * speed_limit_max only while the array is idle.  Here: a busy verdict
 * holds 500 ms (md's sleep), an idle one is looked at again before the
 * next window (md looks every 128 KiB of sync I/O); the pacing at
 * speed_limit_min while busy is the fluid limit of md's sleeps (a heavier
 * load cannot make it faster, only its own I/O slower). */
static int stk_md_busy(struct stack *s, struct stk_op *op, double t)
{
  if (op->busy && t < op->look_s + STK_SYNC_SLEEP_S)
    return 1; /* md sleeps 500 ms, then looks again */
  op->look_s = t;
  op->busy = 0;
  for (int m = 0; m < s->ndev && m < RAID_MAX_MEMBERS; m++)
    if (s->fg_bytes[m] - op->last_events[m] > STK_SYNC_IDLE_BYTES) {
      /* is_mddev_idle moves a member's mark only when it calls it busy:
       * foreground I/O below the threshold adds up over the looks */
      op->last_events[m] = s->fg_bytes[m];
      op->busy = 1;
    }
  return op->busy;
}

/* The window of an idle array (per member).  md keeps at most its stripe
 * cache of sync I/O at the members (256 x 4 KiB a member for RAID-5/6,
 * RESYNC_DEPTH 32 x 64 KiB for RAID-1/10), STK_OP_WINDOW_BUSY_BYTES here;
 * larger windows are simulation granularity, cheap on an idle array, but a
 * foreground request that arrives behind STK_OP_WINDOWS of them waits for
 * all of them, and a foreground held back that way does too little I/O for
 * is_mddev_idle to see it.  So an idle window grows with the time since the
 * members last saw foreground I/O, at most STK_OP_QUIET_SHARE of that time
 * at `rate` (a request arriving then waits behind about a quarter of the
 * quiet time's worth of sync I/O at most), up to the pass's idle window.
 * `rate`: speed_limit_max (bytes/s). */
static uint64_t stk_op_idle_window(const struct stack *s, double rate, double t)
{
  uint64_t w = s->cfg.member_bytes / STK_OP_WINDOWS_PER_PASS;
  if (w < STK_OP_WINDOW_IDLE_BYTES)
    w = STK_OP_WINDOW_IDLE_BYTES;
  double quiet_bytes = (t - s->last_fg_s) * STK_OP_QUIET_SHARE * rate;
  if (quiet_bytes < (double)w)
    w = quiet_bytes > STK_OP_WINDOW_BUSY_BYTES ? (uint64_t)quiet_bytes : STK_OP_WINDOW_BUSY_BYTES;
  return w & ~(uint64_t)0xfffff; /* whole MiBs */
}

/* Issue a unit of `units` progress; the next may go at next_s.  0, or -1
 * without memory.  A reshape unit runs as three requests at once: its
 * reads, raid5d's walk of its stripe_heads (and the parity), its writes.
 * md keeps its stripe cache full (md_do_sync calls reshape_request chunk
 * after chunk until raid5_get_active_stripe blocks) and raid5d handles
 * each stripe as its reads land, so reads, handling and writes of
 * different stripes overlap and a window moves at its slowest resource's
 * pace (the fluid limit of that pipeline: a stripe's own read -> handle ->
 * write latency is ~1 % of a window's). */
static int stk_op_issue(struct stack *s, struct stk_op *op, uint64_t units, int reshape,
                        double next_s, double t)
{
  struct stk_req *r = stk_req_new(s, RQ_BG, 0, 0, 1), *rd = NULL, *c = NULL;
  if (r == NULL)
    return -1;
  stk_op_window(s, op, r, units);
  r->op_units = units;
  r->op_index = (int)(op - s->ops);
  r->planned = 1;
  r->step = ST_READS;
  if (reshape) {
    rd = stk_req_new(s, RQ_BG, 0, 0, 0);
    c = stk_req_new(s, RQ_BG, 0, 0, 0);
    if (rd == NULL || c == NULL) {
      stk_req_free(s, r);
      if (rd != NULL)
        stk_req_free(s, rd);
      if (c != NULL)
        stk_req_free(s, c);
      return -1;
    }
    struct raid_ext_list tmp = rd->plan.reads;
    rd->plan.reads = r->plan.reads;
    r->plan.reads = tmp;
    rd->planned = c->planned = 1;
    rd->step = ST_READS;
    rd->op_index = c->op_index = r->op_index;
    c->plan.p_bytes = r->plan.p_bytes;
    c->plan.q_bytes = r->plan.q_bytes;
    c->stripe_heads = r->stripe_heads;
    r->plan.p_bytes = r->plan.q_bytes = 0;
    r->stripe_heads = 0;
    c->step = ST_PARITY;
    r->step = ST_WRITES;
    op->parts = 3;
  }
  op->issued += units;
  op->inflight++;
  op->next_issue_s = next_s;
  if (reshape) {
    stk_run(s, rd, t);
    stk_run(s, c, t);
  }
  stk_run(s, r, t);
  return 0;
}

/* Progress a steady reshape may move as one span (0: none), extrapolated
 * at the rate of the STK_OP_SPAN_MEASURE checkpoint periods just measured:
 * the array idle since the operation began, the checkpoint now due by time
 * (not by md's safety rule); at most 1/STK_OP_SPANS_PER_PASS of the pass
 * (the rate drifts along the members: an HDD's zones), whole windows, one
 * kind of window (all reading old rows or none), the last two periods left
 * real, and md's safety rule not turning on in its last period
 * (superblocks as its checkpoints would leave them). */
static uint64_t stk_reshape_span_bytes(const struct stack *s, const struct stk_op *op, uint64_t w,
                                       int busy)
{
  if (busy || op->spanned || op->nper < STK_OP_SPAN_MEASURE || op->inflight > 0 ||
      s->last_fg_s >= op->rep.start_s || op->per_done == 0 || !(op->per_s > 0) ||
      stk_reshape_unsafe(s, op, op->issued, w))
    return 0;
  uint64_t d = op->per_done / (uint64_t)op->nper; /* a period's progress, on average */
  uint64_t nd = (uint64_t)op->newg.data_members, cap = raid_capacity_bytes(&s->g);
  uint64_t left = op->total - op->issued;
  uint64_t b = left > 2 * d ? left - 2 * d : 0;
  if (b > op->total / STK_OP_SPANS_PER_PASS)
    b = op->total / STK_OP_SPANS_PER_PASS;
  uint64_t l0 = op->issued * nd;
  if (l0 < cap && b > (cap - l0) / nd - (cap - l0) / nd % w)
    b = (cap - l0) / nd - (cap - l0) / nd % w;
  b -= b % w;
  while (b >= 2 * d && stk_reshape_unsafe_at(s, op, op->issued + b - w, (op->issued + b - d) * nd, w))
    b = (b / 2) - (b / 2) % w;
  return b >= 2 * d ? b : 0;
}

/* Steady checkpoint periods as one span: one unit moving their progress
 * (read the old rows, then write the new), held for the time the measured
 * periods' rate gives it, their superblock updates counted (the next real
 * one follows); then STK_OP_SPAN_MEASURE real periods again. */
static int stk_reshape_span(struct stack *s, struct stk_op *op, uint64_t w, int busy, double t)
{
  uint64_t b = stk_reshape_span_bytes(s, op, w, busy);
  if (b == 0)
    return 0;
  double periods = (double)op->nper * (double)b / (double)op->per_done;
  op->spanned = 1;
  op->unit_windows = 1;
  op->unit_plain = 0;
  op->unit_issue_s = t;
  op->span_checkpoints = (int)floor(periods + 0.5);
  op->span_end_s = t + (double)b * op->per_s / (double)op->per_done;
  return stk_op_issue(s, op, b, 1, op->span_end_s, t) == 0;
}

void stk_op_pump(struct stack *s, double t)
{
  struct stk_op *op = stk_op_running(s);
  if (op == NULL)
    return;
  if (op->stage == STK_STAGE_FIXED) { /* the fixed steps end at next_issue_s */
    if (t >= op->next_issue_s) {
      stk_phase(op, NULL, t);
      stk_op_end(s, op, t);
    }
    return;
  }
  const struct volume_params *v = &s->cfg.volume;
  int reshape = op->reshape && op->stage == STK_STAGE_DATA;
  while (op->inflight < (reshape ? 1 : STK_OP_WINDOWS) && op->issued < op->total) {
    if (t < op->next_issue_s) {
      if (!op->timer_armed) {
        op->timer_armed = 1;
        stk_tm_push(s, op->next_issue_s, TM_OP, NULL);
      }
      return;
    }
    int busy = stk_md_busy(s, op, t);
    uint64_t w = reshape ? stk_reshape_window_bytes(s, op) : 0;
    if (reshape && stk_reshape_need_checkpoint(s, op, w, t)) {
      if (!stk_reshape_span(s, op, w, busy, t))
        stk_reshape_checkpoint(s, op, t);
      return;
    }
    /* md: speed_limit_min while the array is busy, up to speed_limit_max
     * while idle (stk_md_busy). Rates are per member (a reshape counts the
     * new layout's sectors per member: reshape_request returns
     * reshape_sectors, which md_do_sync adds to io_sectors). */
    double rate = busy ? v->speed_limit_min_bytes_per_s : v->speed_limit_max_bytes_per_s;
    if (op->mkfs && op->stage == STK_STAGE_DATA)
      rate = INFINITY; /* mke2fs writes through the page cache, not md's sync throttle */
    uint64_t units = busy ? STK_OP_WINDOW_BUSY_BYTES : stk_op_idle_window(s, v->speed_limit_max_bytes_per_s, t);
    if (reshape) {
      op->unit_windows = busy ? 1 : stk_reshape_batch(s, op, w, rate, t);
      units = op->unit_windows * w;
      op->unit_issue_s = t;
    }
    if (units > op->total - op->issued)
      units = op->total - op->issued;
    if (reshape) { /* plain: full, not the critical section, all old rows or none */
      uint64_t nd = (uint64_t)op->newg.data_members, cap = raid_capacity_bytes(&s->g);
      uint64_t l0 = op->issued * nd, l1 = (op->issued + units) * nd;
      op->unit_plain = !busy && op->unit_windows == 1 && units == w && op->critical_done &&
                       (l1 <= cap || l0 >= cap);
      if (op->unit_windows == 1 && !op->unit_plain && op->window_s > 0)
        op->window_s = 0;
    }
    double next = (op->next_issue_s > t ? op->next_issue_s : t) + (double)units / rate;
    if (stk_op_issue(s, op, units, reshape, next, t) != 0)
      return;
  }
}

/* The data stage's phase name. */
static const char *stk_data_phase(const struct stk_op *op)
{
  if (op->resync_pass)
    return "resync";
  switch (op->cfg.kind) {
  case STACK_OP_RESYNC:
    return op->mkfs ? "mkfs" : "resync";
  case STACK_OP_REBUILD:
    return "recovery";
  case STACK_OP_MIGRATE:
    return op->reshape ? "reshape" : "recovery";
  default:
    return "reshape";
  }
}

/* A stage finished at t: the system arrays -> the data array (its units
 * from 0) -> the fixed procedure -> the end. */
static void stk_op_stage_done(struct stack *s, struct stk_op *op, double t)
{
  if (op->stage == STK_STAGE_SYS) {
    op->stage = STK_STAGE_DATA;
    op->total = op->data_total;
    op->issued = op->done = 0;
    stk_phase(op, stk_data_phase(op), t);
    if (op->total > 0) {
      stk_op_pump(s, t);
      return;
    }
  }
  if (op->stage == STK_STAGE_DATA && op->cfg.kind == STACK_OP_MIGRATE && !op->reshape &&
      !op->resync_pass && s->cfg.volume.migrate_raid1 == 1) {
    /* the recovery made the pair; the vendor's conversion then resyncs it
     * as md resyncs a RAID-1 (read one member, write the other), paced
     * and throttled as every md sync */
    s->g = op->newg;
    s->capacity = raid_capacity_bytes(&s->g);
    op->resync_pass = 1;
    op->total = op->data_total;
    op->issued = op->done = 0;
    stk_phase(op, stk_data_phase(op), t);
    stk_op_pump(s, t);
    return;
  }
  if (op->stage == STK_STAGE_DATA && s->cfg.volume.procedure_s > 0) {
    op->stage = STK_STAGE_FIXED;
    op->rep.progress = 1.0;
    op->next_issue_s = t + s->cfg.volume.procedure_s;
    stk_phase(op, "procedure", t);
    op->timer_armed = 1;
    stk_tm_push(s, op->next_issue_s, TM_OP, NULL);
    return;
  }
  stk_phase(op, NULL, t);
  stk_op_end(s, op, t);
}

void stk_op_window_done(struct stack *s, struct stk_req *r, double t)
{
  struct stk_op *op = stk_op_running(s);
  if (op == NULL)
    return;
  op->done += r->op_units;
  if (op->parts > 0 && --op->parts > 0)
    return;
  op->inflight--;
  if (op->sb_pending) { /* superblocks written: flush, then the next window */
    op->sb_pending = 0;
    op->safe_bytes = op->done * (uint64_t)op->newg.data_members;
    op->checkpoint_s = t;
    op->rep.checkpoints++;
    if (op->spanned) { /* the span's period: measure afresh */
      op->nper = op->per_done = 0;
      op->per_s = 0;
    } else if (op->nper >= 0) { /* the period that ends here */
      op->per_done += op->done - op->ck_done;
      op->per_s += t - op->ck_s;
      op->nper++;
    } else {
      op->nper = 0;
    }
    op->ck_done = op->done;
    op->ck_s = t;
    op->spanned = 0;
    /* measure a lone window again, but not the first: it pays what the
     * superblock write left on the members (a broken sequential stream) */
    op->window_s = -1;
    double flushed = t + s->cfg.volume.superblock_flush_s;
    if (op->next_issue_s < flushed)
      op->next_issue_s = flushed;
  } else if (op->reshape && op->stage == STK_STAGE_DATA) { /* one window at a time: in order */
    if (op->span_end_s > 0) { /* a span: its periods' checkpoints, then the real one */
      op->rep.checkpoints += op->span_checkpoints;
      op->span_checkpoints = 0;
      if (op->next_issue_s < op->span_end_s)
        op->next_issue_s = op->span_end_s;
      op->span_end_s = 0;
    } else if (op->unit_windows > 1) { /* a batch: each of its windows takes window_s */
      double end = op->unit_issue_s + (double)op->unit_windows * op->window_s;
      if (op->next_issue_s < end)
        op->next_issue_s = end;
    } else if (op->unit_plain) { /* the first after a checkpoint is not typical */
      op->window_s = op->window_s < 0 ? 0 : t - op->unit_issue_s;
    }
    uint64_t cap = raid_capacity_bytes(&s->g);
    uint64_t pos = op->done * (uint64_t)op->newg.data_members;
    s->reshape_pos = pos < cap ? pos : cap;
  }
  if (op->stage == STK_STAGE_DATA)
    op->rep.progress = op->total ? (double)op->done / (double)op->total : 1.0;
  if (op->done >= op->total && op->inflight == 0)
    stk_op_stage_done(s, op, t);
  else
    stk_op_pump(s, t);
}

/* A background operation ends unfinished (its windows in flight complete
 * without effect: stk_finish only hands the running one's to it). */
static void stk_op_stop(struct stk_op *op, double t)
{
  op->rep.end_s = t;
  op->rep.stopped = 1;
}

/* The member being rebuilt, -1 when no rebuild runs. */
static int stk_rebuild_target(struct stack *s)
{
  struct stk_op *op = stk_op_running(s);
  return op != NULL && op->cfg.kind == STACK_OP_REBUILD ? op->cfg.failed_member : -1;
}

/* More members failed than the level survives (md: the array fails).  The
 * requests waiting for page-cache room err, write-back and destaging
 * stop (their data is lost), a background operation stops. */
static void stk_volume_fail(struct stack *s, double t)
{
  s->vol_failed = 1;
  s->failed_at_s = t;
  s->lost_dirty_bytes = (double)stack_dirty_bytes(s) + (s->sc != NULL ? (double)pcache_dirty_bytes(s->sc) : 0.0);
  struct stk_op *op = stk_op_running(s);
  if (op != NULL)
    stk_op_stop(op, t);
  for (int i = 0; i < s->nblocked; i++)
    stk_immediate(s, s->blocked[i].io.tag, t, 0);
  s->nblocked = 0;
}

/* The stages of a new operation.  The system arrays (md0/md1, RAID-1 over
 * every disk) come first onto the members that join: all of them when the
 * volume is created (a new array's resync; nothing with one member), the
 * replacement of a rebuild, the added disks of a migration or reshape (md
 * recovery from a member holding them); md syncs arrays sharing a disk one
 * at a time.  A migration starts with md's takeover (instant). */
static void stk_op_stages(struct stack *s, struct stk_op *op, double now_s)
{
  uint64_t sys = stk_sys_bytes(&s->cfg), join = 0;
  int src = 0;
  switch (op->cfg.kind) {
  case STACK_OP_RESYNC:
    join = s->ndev > 1 ? (1ull << s->ndev) - 1 : 0;
    break;
  case STACK_OP_REBUILD:
    join = 1ull << op->cfg.failed_member;
    src = op->cfg.failed_member == 0 ? 1 : 0;
    break;
  default:
    for (int m = s->g.members; m < s->ndev; m++)
      join |= 1ull << m;
    break;
  }
  if (op->cfg.kind == STACK_OP_MIGRATE)
    stk_phase(op, "takeover", now_s), stk_phase(op, NULL, now_s);
  op->data_total = op->total;
  op->join_mask = join;
  op->sys_src = src;
  if (sys > 0 && join != 0) {
    op->stage = STK_STAGE_SYS;
    op->total = sys;
    stk_phase(op, "system arrays", now_s);
  } else {
    op->stage = STK_STAGE_DATA;
    stk_phase(op, stk_data_phase(op), now_s);
  }
}

int stack_start_op(struct stack *s, double now_s, const struct stack_op_cfg *op_cfg,
                   struct nw_err *err)
{
  if (stk_op_running(s) != NULL)
    return nw_fail(err, NULL, 0, 0, "stack: a background operation is already running");
  if (s->vol_failed)
    return nw_fail(err, NULL, 0, 0, "stack: the volume has failed (more members failed than level %s survives)",
                   raid_ops_of(s->g.level)->name);
  if (s->nops == STK_MAX_OPS)
    return nw_fail(err, NULL, 0, 0, "stack: at most %d background operations", STK_MAX_OPS);
  struct stk_op op;
  memset(&op, 0, sizeof op);
  op.cfg = *op_cfg;
  op.rep.kind = op_cfg->kind;
  op.rep.start_s = now_s;
  op.rep.end_s = -1.0;
  op.next_issue_s = now_s;
  /* md's first look (is_mddev_idle(mddev, 1)) only takes the counters; the
   * array counts as busy if foreground I/O came in the last 500 ms */
  op.look_s = now_s;
  op.busy = stk_bg_active(s, now_s);
  memcpy(op.last_events, s->fg_bytes, sizeof op.last_events);
  const struct raid_geom *g = &s->g;
  switch (op_cfg->kind) {
  case STACK_OP_RESYNC:
    op.total = raid_redundant(g) ? g->member_bytes : 0;
    if (op.total == 0) {
      /* nothing to resync: initialising the volume is mke2fs zeroing its
       * journal (lazy_journal_init is off by default) and, unless it leaves
       * them to ext4lazyinit, its inode tables (capacity / inode_ratio x
       * inode_size) */
      const struct volume_params *v = &s->cfg.volume;
      double cap = (double)raid_capacity_bytes(g);
      double itab = v->mkfs_itable_init == 1 && v->mkfs_inode_ratio_bytes > 0
                        ? cap / v->mkfs_inode_ratio_bytes * v->mkfs_inode_bytes
                        : 0;
      op.total = (uint64_t)(itab + (double)stk_journal_bytes((uint64_t)cap));
      op.total -= op.total % RAID_PAGE_BYTES;
      if (op.total > raid_capacity_bytes(g))
        op.total = raid_capacity_bytes(g);
      op.mkfs = 1;
    }
    break;
  case STACK_OP_REBUILD:
    if (op_cfg->failed_member < 0 || op_cfg->failed_member >= g->members)
      return nw_fail(err, NULL, 0, 0, "rebuild: member %d out of range 0..%d",
                     op_cfg->failed_member, g->members - 1);
    if (!raid_redundant(g))
      return nw_fail(err, NULL, 0, 0, "rebuild: level %s has no redundancy",
                     raid_ops_of(g->level)->name);
    s->g.failed_mask |= 1ull << op_cfg->failed_member; /* replaced disk holds nothing yet */
    op.total = g->member_bytes;
    break;
  case STACK_OP_RESHAPE:
  case STACK_OP_MIGRATE: {
    int nm = op_cfg->new_members;
    int add = nm - g->members;
    if (add < 1 || add > s->cfg.nspares - s->spares_used)
      return nw_fail(err, NULL, 0, 0,
                     "%s: new_members %d must exceed the current %d by 1..%d (spares given)",
                     op_cfg->kind == STACK_OP_RESHAPE ? "reshape" : "migrate", nm, g->members,
                     s->cfg.nspares - s->spares_used);
    struct raid_geom from;
    if (raid_grow_plan(g, op_cfg->kind == STACK_OP_RESHAPE, op_cfg->target_level, nm, &from, &op.newg, err) != 0)
      return -1;
    op.phase = from.level != g->level; /* md took a 2-disk RAID-1 over as a RAID-5 */
    s->g = from;
    for (int i = s->ndev; i < nm; i++)
      s->dev[i] = s->cfg.spares[s->spares_used++]; /* each spare joins once */
    s->ndev = nm;
    op.total = s->g.member_bytes; /* reshape: md_do_sync runs to dev_sectors (new layout) */
    if (op.newg.level != RAID_1) {
      op.reshape = 1;
      op.checkpoint_s = now_s; /* raid5_start_reshape sets reshape_checkpoint */
      op.window_s = -1;        /* the window after the critical section's backup is not typical */
      op.nper = -1;            /* no checkpoint period measured yet */
      s->reshaping = 1;
      s->reshape_pos = 0;
    }
    break;
  }
  default:
    return nw_fail(err, NULL, 0, 0, "stack: unknown operation kind %d", (int)op_cfg->kind);
  }
  stk_op_stages(s, &op, now_s);
  s->ops[s->nops++] = op;
  /* a rebuild of one member while others are missing: beyond redundancy */
  if (raid_lost_bytes(&s->g) > 0)
    stk_volume_fail(s, now_s);
  else if (op.total == 0)
    stk_op_stage_done(s, &s->ops[s->nops - 1], now_s);
  else
    stk_op_pump(s, now_s);
  return 0;
}

void stack_fail_member(struct stack *s, double now_s, int member)
{
  if (member < 0 || member >= s->g.members)
    return;
  uint64_t bit = 1ull << member;
  struct stk_op *op = stk_op_running(s);
  if (s->g.failed_mask & bit) {
    /* the replacement being rebuilt fails: md stops the recovery and the
     * array stays degraded */
    if (stk_rebuild_target(s) == member)
      stk_op_stop(op, now_s);
    return;
  }
  s->g.failed_mask |= bit;
  if (s->reshaping && op != NULL)
    op->newg.failed_mask |= bit;
  if (!s->vol_failed && raid_lost_bytes(&s->g) > 0)
    stk_volume_fail(s, now_s);
}

void stack_volume_get(const struct stack *s, struct stack_volume_state *out)
{
  memset(out, 0, sizeof *out);
  out->failed = s->vol_failed;
  out->failed_at_s = s->failed_at_s;
  if (!s->vol_failed)
    return;
  struct raid_geom g = s->g;
  double lost = (double)raid_lost_bytes(&g);
  /* a rebuild stopped by the failure: the rows it had rewritten on the
   * replacement are readable there */
  for (int i = s->nops - 1; i >= 0; i--) {
    const struct stk_op *op = &s->ops[i];
    if (op->cfg.kind != STACK_OP_REBUILD || !op->rep.stopped || op->rep.end_s != s->failed_at_s)
      continue;
    g.failed_mask &= ~(1ull << op->cfg.failed_member);
    double f = op->rep.progress;
    lost = f * (double)raid_lost_bytes(&g) + (1.0 - f) * lost;
    break;
  }
  out->lost_bytes_estimate = lost + s->lost_dirty_bytes;
}

int stack_op_count(const struct stack *s)
{
  return s->nops;
}

void stack_op_get(const struct stack *s, int i, struct stack_op_report *out)
{
  if (i < 0 || i >= s->nops) {
    memset(out, 0, sizeof *out);
    return;
  }
  *out = s->ops[i].rep;
}

int stack_ops_running(const struct stack *s)
{
  return s->nops > 0 && s->ops[s->nops - 1].rep.end_s < 0;
}
