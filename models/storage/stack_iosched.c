/* stack_iosched.c - the block layer's I/O scheduler in front of each
 * member disk (volume.iosched: noop or cfq).
 *
 * noop: every request goes to the disk as it comes (the disk's own queue
 * and NCQ order them).  cfq: as CFQ, the elevator of DSM 6's 3.10/4.4
 * kernels, simplified to three queues per member -- the clients' sync
 * I/O (reads, sync writes: smbd / LIO / nfsd context), md's own sync
 * reads (raid5d's read-modify-write and reconstruct-write pre-reads for
 * write-back) and the async writes (the flusher's and raid5d's write-back,
 * the SSD cache's destaging) -- served in turn, each for a time slice
 * (`cfq_slice_sync`, `cfq_slice_async`): while one queue holds the disk
 * only its requests are dispatched, at most `cfq_quantum` at once while
 * another queue waits, up to `queue_depth` (the SATA tags) when it is
 * alone; a queue that runs dry gives the disk up at once (no idling:
 * random and mixed loads are seeky, which CFQ does not idle for with NCQ).
 * md's sync thread (resync, rebuild, reshape: RQ_BG) bypasses the
 * elevator; it is throttled by md itself (stack_ops.c).
 *
 * So a client read waits behind at most one slice of write-back, and
 * write-back gets its share of every round: buffered writers are held at
 * the dirty limit (stk_write_cached) and paced to what write-back
 * achieves in its share. */
#include "models/storage/stack_impl.h"

#include <stdlib.h>

/* CFQ's "process" queues, served in this order */
enum { ELV_SYNC, ELV_MD, ELV_ASYNC };

struct stk_elv_rq {
  struct disk_io io;
  struct stk_elv_rq *next;
};

/* The queue a request's member I/O joins; -1: past the elevator. */
static int stk_elv_class(const struct stk_req *r, int write)
{
  if (r->kind == RQ_BG)
    return -1;
  const struct stk_req *o = r->kind == RQ_ROWS && r->parent != NULL ? r->parent : r;
  if (o->kind == RQ_CLIENT && (o->sync || !o->write))
    return ELV_SYNC; /* a client's read or sync write, in its own context */
  if (!write)
    return o->write ? ELV_MD : ELV_SYNC; /* md pre-reads for write-back; read-ahead */
  return ELV_ASYNC;
}

static double stk_elv_slice(const struct stack *s, int q)
{
  return q == ELV_ASYNC ? s->cfg.volume.cfq_slice_async_s : s->cfg.volume.cfq_slice_sync_s;
}

static void stk_elv_dispatch(struct stack *s, int m, double t)
{
  struct stk_elv *e = &s->elv[m];
  int depth = (int)s->cfg.volume.queue_depth, quantum = (int)s->cfg.volume.cfq_quantum;
  for (;;) {
    int a = e->active, waiting = 0;
    for (int q = 0; q < STK_ELV_NQ; q++)
      waiting += q != a && e->head[q] != NULL;
    if (a < 0 || e->head[a] == NULL || (waiting > 0 && t >= e->slice_end_s)) {
      if (waiting == 0 && (a < 0 || e->head[a] == NULL)) {
        e->active = -1; /* nothing queued */
        return;
      }
      int q = a < 0 ? 0 : (a + 1) % STK_ELV_NQ; /* round robin of the busy queues */
      while (e->head[q] == NULL)
        q = (q + 1) % STK_ELV_NQ;
      e->active = a = q;
      e->slice_end_s = t + stk_elv_slice(s, a);
      waiting = 0;
      for (int k = 0; k < STK_ELV_NQ; k++)
        waiting += k != a && e->head[k] != NULL;
    }
    if (e->dispatched >= (waiting > 0 ? quantum : depth))
      return;
    struct stk_elv_rq *x = e->head[a];
    e->head[a] = x->next;
    if (e->head[a] == NULL)
      e->tail[a] = NULL;
    e->dispatched++;
    disk_submit(s->dev[m], t, &x->io);
    free(x);
  }
}

void stk_elv_submit(struct stack *s, int m, const struct disk_io *io, int write,
                    const struct stk_req *r, double t)
{
  int q = s->cfg.volume.iosched > 0 ? stk_elv_class(r, write) : -1;
  struct stk_elv *e = &s->elv[m];
  struct stk_elv_rq *x = q >= 0 ? malloc(sizeof *x) : NULL;
  if (x == NULL) { /* noop, md's sync thread (or out of memory): straight to the disk */
    e->dispatched++;
    disk_submit(s->dev[m], t, io);
    return;
  }
  x->io = *io;
  x->next = NULL;
  if (e->tail[q] != NULL)
    e->tail[q]->next = x;
  else
    e->head[q] = x;
  e->tail[q] = x;
  stk_elv_dispatch(s, m, t);
}

void stk_elv_done(struct stack *s, int m, double t)
{
  s->elv[m].dispatched--;
  stk_elv_dispatch(s, m, t);
}

void stk_elv_free(struct stack *s)
{
  for (int m = 0; m < RAID_MAX_MEMBERS; m++)
    for (int q = 0; q < STK_ELV_NQ; q++)
      while (s->elv[m].head[q] != NULL) {
        struct stk_elv_rq *x = s->elv[m].head[q];
        s->elv[m].head[q] = x->next;
        free(x);
      }
}
