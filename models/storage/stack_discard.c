/* stack_discard.c - a discard (SCSI UNMAP through LIO's iblock backend,
 * blkdev_issue_discard; a local BLKDISCARD) down the NAS block path.
 *
 * The page cache drops the range's pages (truncate_bdev_range).  The
 * volume advertises discard only when every layer below passes it: each
 * member's model deallocates (flash; a rotating drive advertises none),
 * no folder encryption (dm-crypt/eCryptfs drop discards unless
 * allow_discards) and no SSD cache (flashcache has no discard path).
 * Otherwise LIO answers the UNMAP at once (the round trip only).  md
 * splits what passes by level (raid_plan_discard): the members' discard
 * commands run through their schedulers and the client waits for all. */
#include "models/disks/disk.h"
#include "models/storage/stack_impl.h"

/* 1 when md and the layers above it pass a discard down. */
static int stk_discard_passes(const struct stack *s)
{
  if (s->crypt_on || s->sc != NULL || s->ndev == 0)
    return 0;
  for (int m = 0; m < s->ndev; m++)
    if (s->dev[m] == NULL || !s->dev[m]->model->discard)
      return 0;
  return 1;
}

void stk_discard(struct stack *s, const struct stack_io *io, uint64_t off, uint64_t len, double t)
{
  if (s->pc != NULL)
    pcache_invalidate(s->pc, off, len);
  if (!stk_discard_passes(s)) {
    stk_immediate(s, io->tag, t, 0);
    return;
  }
  struct stk_req *r = stk_req_new(s, RQ_CLIENT, off, len, 1);
  if (r == NULL)
    return;
  r->tag = io->tag;
  r->discard = 1;
  raid_plan_discard(&s->g, off, len, &r->plan);
  r->planned = 1;
  if (r->plan.writes.n == 0) { /* RAID-5/6: no whole stripe in the range */
    stk_req_free1(s, r);
    stk_immediate(s, io->tag, t, 0);
    return;
  }
  r->step = ST_WRITES; /* no CPU layer, crypt, SSD cache or parity on the way */
  stk_run(s, r, t);
}
