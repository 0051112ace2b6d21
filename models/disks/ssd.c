/* ssd.c - the flash engine (see flash.h) and model "sata_ssd". */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/disks/flash.h"
#include "models/disks/iface.h"

/* A match of the write dies' tournament: its winner and the winner's die_free. */
struct flash_node {
  double free_s;
  size_t die;
};

struct flash {
  struct flash_params p;
  size_t outstanding;  /* command slots */
  struct disk_heap slots; /* completion times of commands holding a slot */
  double *die_free;        /* per die: when its last operation ends (s) */
  size_t ndies;            /* channels x dies_per_channel */
  struct flash_node *die_tree; /* write die choice: tournament over die_free (flash_tree_*) */
  size_t tree_leaves;      /* ndies rounded up to a power of two; die_free past ndies: +inf */
  unsigned char *die_chan; /* per die: its channel, die mod channels (<= 32) */
  struct iface_sched *bus; /* per channel: its transfers */
  size_t nbus;
  double ctrl_free_s;
  struct iface_sched pipe[2];
  struct iface_port port;
  struct iface_link *link;
  struct disk_heap done;
  struct disk_busy busy;
  struct disk_power power;
  uint64_t seed;        /* the device's random stream (read stalls) */
  uint64_t read_cmds;   /* read commands drawn from it so far */
  uint64_t write_cmds;  /* write commands drawn from it so far (their own draws) */
  /* Mixed traffic (flash_mixed_*): when the reads submitted so far end,
   * and the write buffer's flush under way: the flush it follows ends at
   * flush_after_s, its own pages end by flush_end_s, it holds flush_bytes. */
  double reads_end_s;
  double flush_after_s, flush_end_s, flush_bytes;
  uint64_t last_write_end_bytes;
  int have_last_write;
  uint64_t span_lo, span_hi; /* the LBA span written: the workload's active range */
  int have_span;
  /* Discarded LBAs not written since (flash_discard): bytes per granule of
   * FLASH_TRIM_GRANULE_BYTES (allocated at the first discard), and their
   * sums inside and outside the span written when they were discarded. */
  float *trim_bytes;
  size_t ngran;
  double trim_in_bytes, trim_out_bytes;
  struct disk_stats counts; /* reads, writes and their bytes */
};

/* An integer-valued count parameter: 0, or -1 with a message. */
static int flash_check_int(const char *key, double v, char *msg, size_t msg_len)
{
  if (v != floor(v)) {
    snprintf(msg, msg_len, "%s: %g must be a whole number", key, v);
    return -1;
  }
  return 0;
}

static int flash_check_common(const struct flash_params *p, const char *model, char *msg,
                              size_t msg_len)
{
  if (flash_check_int("channels", p->channels, msg, msg_len) ||
      flash_check_int("dies_per_channel", p->dies_per_channel, msg, msg_len) ||
      flash_check_int("preconditioned", p->preconditioned, msg, msg_len))
    return -1;
  if (p->power_active_W < p->power_idle_W) {
    snprintf(msg, msg_len, "%s: power_active %g W must be >= power_idle %g W", model,
             p->power_active_W, p->power_idle_W);
    return -1;
  }
  if (p->power_standby_W > p->power_idle_W) {
    snprintf(msg, msg_len, "%s: power_standby %g W must be <= power_idle %g W", model,
             p->power_standby_W, p->power_idle_W);
    return -1;
  }
  return 0;
}

int flash_check_sata(const void *params, char *msg, size_t msg_len)
{
  const struct flash_params *p = params;
  if (flash_check_common(p, "sata_ssd", msg, msg_len) ||
      flash_check_int("ncq_depth", p->ncq_depth, msg, msg_len))
    return -1;
  return 0;
}

int flash_check_nvme(const void *params, char *msg, size_t msg_len)
{
  const struct flash_params *p = params;
  if (flash_check_common(p, "nvme", msg, msg_len) ||
      flash_check_int("pcie_gen", p->pcie_gen, msg, msg_len) ||
      flash_check_int("pcie_lanes", p->pcie_lanes, msg, msg_len) ||
      flash_check_int("queue_count", p->queue_count, msg, msg_len) ||
      flash_check_int("queue_depth", p->queue_depth, msg, msg_len))
    return -1;
  return 0;
}

double flash_capacity_bytes(const void *params)
{
  return ((const struct flash_params *)params)->capacity_bytes;
}

static void *flash_create(const void *params, uint64_t seed, double port_rate_bytes_per_s, int full_duplex,
                          size_t outstanding)
{
  struct flash *f = calloc(1, sizeof *f);
  if (f == NULL)
    return NULL;
  f->p = *(const struct flash_params *)params;
  f->seed = seed;
  f->outstanding = outstanding > 0 ? outstanding : 1;
  disk_heap_init(&f->slots);
  disk_heap_init(&f->done);
  iface_sched_init(&f->pipe[0]);
  iface_sched_init(&f->pipe[1]);
  iface_port_init(&f->port, port_rate_bytes_per_s, full_duplex);
  f->nbus = f->p.channels >= 1 ? (size_t)f->p.channels : 1;
  f->ndies = f->nbus * (f->p.dies_per_channel >= 1 ? (size_t)f->p.dies_per_channel : 1);
  for (f->tree_leaves = 1; f->tree_leaves < f->ndies; f->tree_leaves *= 2)
    ;
  f->die_free = calloc(f->tree_leaves, sizeof *f->die_free);
  f->die_tree = calloc(2 * f->tree_leaves, sizeof *f->die_tree);
  f->die_chan = calloc(f->ndies, sizeof *f->die_chan);
  f->bus = calloc(f->nbus, sizeof *f->bus);
  if (f->die_free == NULL || f->die_tree == NULL || f->die_chan == NULL || f->bus == NULL) {
    flash_destroy(f);
    return NULL;
  }
  for (size_t d = 0; d < f->tree_leaves; d++) {
    if (d >= f->ndies)
      f->die_free[d] = INFINITY; /* tree padding: never free first */
    else
      f->die_chan[d] = (unsigned char)(d % f->nbus);
  }
  for (size_t i = 0; i < f->nbus; i++)
    iface_sched_init(&f->bus[i]);
  f->power = (struct disk_power){.active_W = f->p.power_active_W,
                                 .idle_W = f->p.power_idle_W,
                                 .standby_W = f->p.power_standby_W,
                                 .standby_after_s = f->p.standby_after_s,
                                 .wake_s = f->p.wake_time_s,
                                 .wake_W = f->p.power_active_W};
  return f;
}

void *flash_create_sata(const void *params, uint64_t seed)
{
  const struct flash_params *p = params;
  return flash_create(params, seed, p->link_rate_bytes_per_s * IFACE_8B10B_PAYLOAD_FRACTION, 0,
                      (size_t)p->ncq_depth);
}

void *flash_create_nvme(const void *params, uint64_t seed)
{
  const struct flash_params *p = params;
  double rate = iface_pcie_lane_rate((int)p->pcie_gen) * p->pcie_lanes;
  return flash_create(params, seed, rate, 1, (size_t)(p->queue_count * p->queue_depth));
}

void flash_destroy(void *priv)
{
  struct flash *f = priv;
  if (f == NULL)
    return;
  disk_heap_free(&f->slots);
  for (size_t i = 0; f->bus != NULL && i < f->nbus; i++)
    iface_sched_free(&f->bus[i]);
  free(f->bus);
  free(f->die_free);
  free(f->die_tree);
  free(f->die_chan);
  free(f->trim_bytes);
  disk_heap_free(&f->done);
  iface_sched_free(&f->pipe[0]);
  iface_sched_free(&f->pipe[1]);
  iface_port_free(&f->port);
  free(f);
}

/* The die a write's page goes to: the FTL appends writes to whichever die
 * is free first (dynamic allocation; lowest index on ties).  A tournament
 * over die_free: node k holds the winner of nodes 2k and 2k+1 and its
 * die_free, the left one (lower dies) on ties, so the root is the first
 * die of least die_free, as a scan in index order finds it; the leaves
 * past ndies are free at +inf and never win.  Built at a write's start
 * (a scan's comparisons), kept by flash_tree_fix as its pages take dies
 * (log2 dies comparisons a page). */
static struct flash_node flash_tree_win(struct flash_node a, struct flash_node b)
{
  return b.free_s < a.free_s ? b : a;
}

static void flash_tree_build(struct flash *f)
{
  struct flash_node *t = f->die_tree;
  size_t L = f->tree_leaves;
  for (size_t i = 0; i < L; i++)
    t[L + i] = (struct flash_node){.free_s = f->die_free[i], .die = i};
  for (size_t k = L - 1; k >= 1; k--)
    t[k] = flash_tree_win(t[2 * k], t[2 * k + 1]);
}

/* die_free[d] changed: replay its matches up to the root, the winner
 * carried along (each match reads only the sibling). */
static void flash_tree_fix(struct flash *f, size_t d)
{
  struct flash_node *t = f->die_tree, w = {.free_s = f->die_free[d], .die = d};
  size_t k = f->tree_leaves + d;
  t[k] = w;
  for (; k > 1; k /= 2) {
    w = k & 1 ? flash_tree_win(t[k - 1], w) : flash_tree_win(w, t[k + 1]);
    t[k / 2] = w;
  }
}

/* The die of the next write page (the tree built for this write; with
 * one die the root is its leaf). */
static size_t flash_write_die(const struct flash *f)
{
  return f->die_tree[1].die;
}

/* One command's stall (s): with probability `fraction` it waits an
 * exponential time of mean `mean_s`, else 0.  Two draws per command from
 * the stream `stream` (the device's seed, salted per kind of command),
 * the command's index *count, so a seed gives the same stalls. */
static double flash_stall(uint64_t stream, uint64_t *count, double fraction, double mean_s)
{
  if (fraction <= 0.0 || mean_s <= 0.0)
    return 0.0;
  uint64_t k = 2 * (*count)++;
  if (disk_seed_unit(stream ^ (0x9e3779b97f4a7c15ULL * (k + 1))) >= fraction)
    return 0.0;
  return -mean_s * log1p(-disk_seed_unit(stream ^ (0x9e3779b97f4a7c15ULL * (k + 2))));
}

/* The wait of the next read command before its first die can sense:
 * with probability read_stall_fraction the die is busy with a background
 * operation (a program or erase the read waits behind, a read retry) for
 * an exponential time of mean read_stall_time. */
static double flash_read_stall(struct flash *f)
{
  return flash_stall(f->seed, &f->read_cmds, f->p.read_stall_fraction, f->p.read_stall_s);
}

/* The wait of the next write command before its die can program: with
 * probability write_stall_fraction the FTL has no free block ready and
 * the die first reclaims one (foreground garbage collection: the victim's
 * valid pages moved, its erase), for an exponential time of mean
 * write_stall_time.  Its own sequence (the seed salted), so adding write
 * stalls never changes the reads' draws. */
static double flash_write_stall(struct flash *f)
{
  return flash_stall(f->seed ^ 0x5851f42d4c957f2dULL, &f->write_cmds, f->p.write_stall_fraction, f->p.write_stall_s);
}

/* The flush under way is closed: the next one follows its program. */
static void flash_flush_close(struct flash *f)
{
  f->flush_after_s = f->flush_end_s;
  f->flush_bytes = 0.0;
}

/* Mixed traffic: a write command that finds a read in the device
 * (reads_end_s past now).  Its data goes to the dies as the write
 * buffer's flushes of mixed_flush bytes: a flush opens after the
 * previous one has programmed (flush_end_s) and after the reads in the
 * device then (the controller serves reads first and cannot suspend a
 * program for them, so it flushes what the buffer holds between reads);
 * within a flush the pages take the dies free first, as a lone writer's.
 * A lone writer's buffer fills whole superpages across every die; a
 * buffer drained between interleaved reads programs part of one per
 * program time.  A flush ends on its byte budget: the page that starts
 * at or past it opens the next flush, which counts from the budget's end
 * (the bytes of a straddling page carry over), so flushes hold whole
 * pages that average mixed_flush / page, and the timing moves smoothly
 * with mixed_flush (the fit differences it) rather than in page steps.
 * Returns the time the page may start no earlier than and counts its
 * `op` bytes into the flush. */
static double flash_mixed_page(struct flash *f, uint64_t op)
{
  int opens = f->flush_bytes == 0.0;
  if (!opens && f->flush_bytes >= f->p.mixed_flush_bytes) { /* full */
    double carry = fmod(f->flush_bytes, f->p.mixed_flush_bytes);
    flash_flush_close(f);
    f->flush_bytes = carry;
    opens = 1;
  }
  if (opens && f->reads_end_s > f->flush_after_s)
    f->flush_after_s = f->reads_end_s; /* a flush opens once the reads before it are served */
  f->flush_bytes += (double)op;
  return f->flush_after_s;
}

/* Run the page operations of one command on the dies, none before
 * ready_s (now_s: the submit time, for the channel schedules); returns
 * when the last one ends (s).  A read's page lives where the FTL striped
 * it: page index p of the LBA on die p mod dies, channel (die mod
 * channels), so random reads collide on dies; the die senses it
 * (read_latency) and holds it until the channel has moved the bytes the
 * host asked for (channel_rate); its first die waits out any stall
 * (flash_read_stall) first, a write's any garbage collection
 * (flash_write_stall).  A write's data crosses the channel of the
 * die that is free first and is programmed there (write_latency x share
 * of a page x WA). */
static double flash_pages(struct flash *f, double now_s, double ready_s, const struct disk_io *io, double wa,
                          int mixed)
{
  double end = ready_s, stall = io->write ? flash_write_stall(f) : flash_read_stall(f);
  double page = f->p.page_bytes, rate = f->p.channel_rate_bytes_per_s;
  uint64_t pb = (uint64_t)page, left = io->len_bytes;
  uint64_t pidx = io->offset_bytes / pb;
  uint64_t op = pb - (io->offset_bytes - pidx * pb); /* the first page's share */
  /* a whole page's transfer and program, as every page computes them */
  double page_xfer = (double)pb / rate, page_prog = f->p.write_latency_s * wa * ((double)pb / page);
  size_t d = (size_t)(pidx % f->ndies), c = d % f->nbus; /* a read's die and channel */
  if (io->write && left > 0)
    flash_tree_build(f);
  for (; left > 0; op = pb) { /* pages after the first start at their page's start */
    if (op > left)
      op = left;
    left -= op;
    double xfer = op == pb ? page_xfer : (double)op / rate;
    if (io->write) {
      d = flash_write_die(f);
      c = f->die_chan[d];
    }
    double s = f->die_free[d] > ready_s ? f->die_free[d] : ready_s, e;
    if (mixed) {
      double after = flash_mixed_page(f, op);
      if (after > s)
        s = after;
    }
    s += stall;
    stall = 0.0;
    if (io->write) { /* data in over the channel, then the program */
      double xs = iface_sched_reserve(&f->bus[c], now_s, s, xfer);
      e = xs + xfer + (op == pb ? page_prog : f->p.write_latency_s * wa * ((double)op / page));
      f->die_free[d] = e;
      flash_tree_fix(f, d);
      if (mixed && e > f->flush_end_s)
        f->flush_end_s = e;
    } else { /* the sense, then data out over the channel */
      double xs = iface_sched_reserve(&f->bus[c], now_s, s + f->p.read_latency_s, xfer);
      e = xs + xfer;
      f->die_free[d] = e;
      d = d + 1 == f->ndies ? 0 : d + 1; /* the next page's: pidx + 1 */
      c = c + 1 == f->nbus ? 0 : c + 1;
    }
    if (e > end)
      end = e;
  }
  return end;
}

/* Write amplification of random writes confined to a share f of a
 * preconditioned drive (SNIA SSS PTS: steady state of the workload itself
 * over its active range; the rest of the drive holds still data).  w =
 * steady_state_write_factor is the WA of uniform random writes over the
 * whole drive.  Under LRW/greedy cleaning of uniform random writes
 * (Desnoyers, SYSTOR 2012; Hu et al., SYSTOR 2009) the victim block keeps
 * a valid share x = exp(-a (1 - x)), WA = 1 / (1 - x), a = physical /
 * logical space; w gives a.  The still data fills whole blocks that are
 * never cleaned, so the active range has the spare area to itself:
 * a_f = 1 + (a - 1) / f.  Small active ranges run at WA -> 1. */
static double flash_range_wa(double w, double f, double t_in, double t_out)
{
  if (w <= 1.0 || (f >= 1.0 && t_in <= 0.0 && t_out <= 0.0))
    return w > 1.0 ? w : 1.0;
  double x = 1.0 - 1.0 / w;
  double a = -log(x) / (1.0 - x);
  /* Discarded LBAs hold no valid page (t_in inside the active range, t_out
   * outside, shares of the capacity): the active range's valid data is
   * f - t_in and it has every physical page but the still data's,
   * a - (1 - f - t_out); without discards a_f = 1 + (a - 1) / f. */
  double valid = f - t_in > 1e-9 ? f - t_in : 1e-9;
  double af = t_in > 0.0 || t_out > 0.0 ? (a - 1.0 + f + t_out) / valid : 1.0 + (a - 1.0) / (f > 1e-9 ? f : 1e-9);
  if (af <= 1.0 + 1e-9)
    return 1.0;
  /* g(x) = x - exp(-af (1 - x)): g(0) < 0 < g(xm), xm = 1 - ln(af) / af */
  double lo = 0.0, hi = 1.0 - log(af) / af;
  for (int i = 0; i < 60; i++) {
    double mid = 0.5 * (lo + hi);
    if (mid - exp(-af * (1.0 - mid)) < 0.0)
      lo = mid;
    else
      hi = mid;
  }
  return 1.0 / (1.0 - 0.5 * (lo + hi));
}

/* Add `sign` x the bytes of [off, off + len) to the discarded granules:
 * a discard (+1) counts the range as holding no valid page, up to the
 * granule's size; a write (-1) over a granule re-validates its expected
 * discarded share (len x discarded / granule, the write's LBAs uniform in
 * the granule).  Sums kept inside / outside the span written. */
static void flash_trim_add(struct flash *f, uint64_t off, uint64_t len, int sign)
{
  const double gb = FLASH_TRIM_GRANULE_BYTES;
  for (uint64_t a = off, end = off + len; a < end && f->trim_bytes != NULL;) {
    size_t gi = (size_t)(a / FLASH_TRIM_GRANULE_BYTES);
    if (gi >= f->ngran)
      break;
    uint64_t gend = ((uint64_t)gi + 1) * FLASH_TRIM_GRANULE_BYTES;
    double piece = (double)((end < gend ? end : gend) - a);
    double old = f->trim_bytes[gi];
    double now = sign > 0 ? fmin(gb, old + piece) : fmax(0.0, old - piece * old / gb);
    f->trim_bytes[gi] = (float)now;
    int inside = f->have_span && a >= f->span_lo && a < f->span_hi;
    *(inside ? &f->trim_in_bytes : &f->trim_out_bytes) += now - old;
    a += (uint64_t)piece;
  }
  f->trim_in_bytes = fmax(0.0, f->trim_in_bytes), f->trim_out_bytes = fmax(0.0, f->trim_out_bytes);
}

/* A write over discarded LBAs makes their pages valid again. */
static void flash_revalidate(struct flash *f, uint64_t off, uint64_t len)
{
  if (f->trim_in_bytes + f->trim_out_bytes > 0.0)
    flash_trim_add(f, off, len, -1);
}

/* A discard (ATA DATA SET MANAGEMENT TRIM, NVMe Dataset Management
 * deallocate): the controller unmaps the range in its FTL table, no flash
 * operation; the pages become invalid, so garbage collection moves fewer
 * (the write amplification of later random writes falls).  Out of memory
 * for the granule table, the discard costs its command only. */
static void flash_discard(struct flash *f, const struct disk_io *io)
{
  if (f->trim_bytes == NULL) {
    f->ngran = (size_t)(f->p.capacity_bytes / FLASH_TRIM_GRANULE_BYTES) + 1;
    f->trim_bytes = calloc(f->ngran, sizeof *f->trim_bytes);
  }
  flash_trim_add(f, io->offset_bytes, io->len_bytes, +1);
}

/* The steady-state WA of one write, as the span written so far grows. */
static double flash_write_wa(struct flash *f, const struct disk_io *io)
{
  uint64_t end = io->offset_bytes + io->len_bytes;
  if (!f->have_span || io->offset_bytes < f->span_lo)
    f->span_lo = io->offset_bytes;
  if (!f->have_span || end > f->span_hi)
    f->span_hi = end;
  f->have_span = 1;
  int sequential = f->have_last_write && io->offset_bytes == f->last_write_end_bytes;
  f->have_last_write = 1;
  f->last_write_end_bytes = end;
  flash_revalidate(f, io->offset_bytes, io->len_bytes);
  if (f->p.preconditioned < 1.0 || sequential)
    return 1.0;
  double c = f->p.capacity_bytes;
  return flash_range_wa(f->p.steady_state_write_factor, (double)(f->span_hi - f->span_lo) / c,
                        f->trim_in_bytes / c, f->trim_out_bytes / c);
}

/* The regions the jobs write (disk_precondition): the active range from the start. */
void flash_precondition(void *priv, const struct disk_precond *p)
{
  struct flash *f = priv;
  if (p->len_bytes == 0)
    return;
  uint64_t end = p->offset_bytes + p->len_bytes; /* the union of the jobs' regions */
  if (!f->have_span || p->offset_bytes < f->span_lo)
    f->span_lo = p->offset_bytes;
  if (!f->have_span || end > f->span_hi)
    f->span_hi = end;
  f->have_span = 1;
}

void flash_submit(void *priv, double now_s, const struct disk_io *io)
{
  struct flash *f = priv;
  double n = (double)io->len_bytes;
  double start = now_s;
  if (f->slots.n >= f->outstanding) {
    struct disk_heap_ent slot;
    disk_heap_pop(&f->slots, &slot);
    if (slot.key_s > start)
      start = slot.key_s;
  }
  if (start > f->busy.cover_end_s)
    start += disk_power_gap(&f->power, start - f->busy.cover_end_s);
  double ctrl_start = start > f->ctrl_free_s ? start : f->ctrl_free_s;
  double ctrl_end = ctrl_start + f->p.cmd_time_s;
  f->ctrl_free_s = ctrl_end;
  double end;
  if (io->discard) { /* the command only: FTL unmapping, no die, no data */
    flash_discard(f, io);
    end = ctrl_end;
  } else if (!io->write) {
    double nand_end = flash_pages(f, now_s, ctrl_end, io, 1.0, 0);
    double pipe_dur = n / f->p.read_rate_bytes_per_s;
    double ready = nand_end - pipe_dur > ctrl_end ? nand_end - pipe_dur : ctrl_end;
    double pipe_end = iface_sched_reserve(&f->pipe[0], now_s, ready, pipe_dur) + pipe_dur;
    double port_dur = n / f->port.rate_bytes_per_s;
    ready = pipe_end - port_dur > ctrl_end ? pipe_end - port_dur : ctrl_end;
    double link_end = iface_port_transfer(&f->port, f->link, IFACE_TO_HOST, now_s, ready, n);
    end = fmax(nand_end, fmax(pipe_end, link_end));
    if (end > f->reads_end_s)
      f->reads_end_s = end;
  } else {
    double wa = flash_write_wa(f, io);
    int mixed = f->p.mixed_flush_bytes > 0.0 && f->reads_end_s > now_s;
    if (!mixed && f->flush_bytes > 0.0) /* no read meanwhile: the buffer drains as a lone writer's */
      flash_flush_close(f);
    double link_end = iface_port_transfer(&f->port, f->link, IFACE_TO_DEVICE, now_s, ctrl_end, n);
    double pipe_dur = n / f->p.write_rate_bytes_per_s;
    double ready = link_end - pipe_dur > ctrl_end ? link_end - pipe_dur : ctrl_end;
    double pipe_end = iface_sched_reserve(&f->pipe[1], now_s, ready, pipe_dur) + pipe_dur;
    double nand_end = flash_pages(f, now_s, ctrl_end, io, wa, mixed);
    end = fmax(nand_end, fmax(pipe_end, link_end));
  }
  disk_heap_push(&f->slots, end, NULL);
  disk_busy_add(&f->busy, start, end);
  disk_heap_push(&f->done, end, io);
}

double flash_next_completion_s(const void *priv)
{
  return disk_heap_min_s(&((const struct flash *)priv)->done);
}

int flash_pop_completion(void *priv, double now_s, struct disk_io *done)
{
  struct flash *f = priv;
  return disk_heap_pop_due(&f->done, now_s, done, &f->counts);
}

void flash_stats(const void *priv, double now_s, struct disk_stats *out)
{
  const struct flash *f = priv;
  out->reads = f->counts.reads;
  out->writes = f->counts.writes;
  out->read_bytes = f->counts.read_bytes;
  out->write_bytes = f->counts.write_bytes;
  out->discards = f->counts.discards;
  out->discard_bytes = f->counts.discard_bytes;
  out->busy_s = disk_busy_at(&f->busy, now_s);
  double idle_since = f->busy.cover_end_s < now_s ? f->busy.cover_end_s : now_s;
  out->energy_J = disk_power_energy_J(&f->power, now_s, out->busy_s, idle_since);
}

void flash_attach_link(void *priv, struct iface_link *link)
{
  ((struct flash *)priv)->link = link;
}

static const struct param_desc sata_ssd_params_table[] = {
    FLASH_MEDIA_PARAMS
    {.key = "link_rate", .dim = UNITS_RATE, .offset = FLASH_OFF(link_rate_bytes_per_s),
     .min = 1.5e9 / 8, .max = 6e9 / 8, .optional = 1, .def = 6e9 / 8,
     .help = "SATA line rate, 1.5/3/6 Gbit/s (payload = 80 % after 8b/10b)"},
    {.key = "ncq_depth", .dim = UNITS_NUMBER, .offset = FLASH_OFF(ncq_depth), .min = 1, .max = 32,
     .optional = 1, .def = 32, .help = "NCQ depth: commands held by the drive"},
    FLASH_STATE_PARAMS
};

const struct disk_model sata_ssd_model = {
    .name = "sata_ssd",
    .params = sata_ssd_params_table,
    .nparams = PARAM_COUNT(sata_ssd_params_table),
    .params_size = sizeof(struct flash_params),
    .check = flash_check_sata,
    .capacity_bytes = flash_capacity_bytes,
    .create = flash_create_sata,
    .destroy = flash_destroy,
    .submit = flash_submit,
    .discard = 1,
    .next_completion_s = flash_next_completion_s,
    .pop_completion = flash_pop_completion,
    .stats = flash_stats,
    .attach_link = flash_attach_link,
    .precondition = flash_precondition,
};
