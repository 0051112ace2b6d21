/* client_pages.c - the Linux NFS client's page cache of the open file, a
 * page at a time, for the reads that are not a forward-sequential stream
 * (strided, random, backward): which pages a read finds, which the
 * kernel's read-ahead (mm/readahead.c ondemand_readahead, Linux 2.6.32)
 * adds, and the READs that fetch the missing ones, grouped as
 * nfs_readpages groups them (contiguous pages, up to rsize per READ).
 * Sequential reads keep their rsize units (client_cache.c
 * eng_client_fetch).  No event per page: a read's pages are walked when
 * it is issued and the READs they need sent then. */
#include <math.h>
#include <simgrid/engine.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/asserts.h>

#include "models/net/mpio.h"
#include "models/storage/readahead.h"
#include "sim/engine/eng_impl.h"

/* The client's page (bytes): PAGE_CACHE_SIZE on x86 and x86-64 Linux. */
#define ENG_PGC_PAGE_BYTES 4096u

static int eng_pgc_bit(const uint64_t *map, uint64_t pg)
{
  return (int)((map[pg / 64] >> (pg % 64)) & 1u);
}

static void eng_pgc_set(uint64_t *map, uint64_t pg)
{
  map[pg / 64] |= (uint64_t)1 << (pg % 64);
}

static void eng_pgc_clear(uint64_t *map, uint64_t pg)
{
  map[pg / 64] &= ~((uint64_t)1 << (pg % 64));
}

/* Every page of [lo, hi) is set in map. */
static int eng_pgc_all(const uint64_t *map, uint64_t lo, uint64_t hi)
{
  while (lo < hi) {
    if (lo % 64 == 0 && hi - lo >= 64) {
      if (map[lo / 64] != UINT64_MAX)
        return 0;
      lo += 64;
    } else if (!eng_pgc_bit(map, lo++)) {
      return 0;
    }
  }
  return 1;
}

/* Job j reads through the page model: a buffered read-only job that is
 * not forward-sequential, on a file protocol whose client OS reads ahead
 * in the protocol's read size (Linux NFS: clients.os linux-*). */
int eng_pgc_applies(const struct eng_job *j)
{
  const struct job *sp = j->spec;
  const struct client_params *cl = &j->e->s->client;
  return cl->readahead_unit == CLIENT_RA_PROTOCOL && j->e->ops->opens_files && cl->readahead_requests > 0.0 &&
         !sp->direct && sp->read_frac >= 1.0 && sp->access != JOB_SEQ && !sp->net_only && !j->e->local &&
         sp->bs_bytes[0] > 0.0;
}

/* The READ of the run of missing pages collected so far, queued to send. */
static void eng_pgc_flush_run(struct eng_job *j)
{
  struct eng_pgc *c = &j->pgc;
  if (c->run_pages == 0)
    return;
  struct eng_req *f = eng_req_new(j->e);
  f->job = j;
  f->fetch = ENG_FETCH_PAGES;
  f->offset_bytes = c->file_start + c->run_lo * ENG_PGC_PAGE_BYTES;
  uint64_t len = c->run_pages * ENG_PGC_PAGE_BYTES;
  f->len_bytes = c->file_end - f->offset_bytes < len ? c->file_end - f->offset_bytes : len;
  f->rec = -1;
  eng_req_append(&c->send_head, &c->send_tail, f);
  c->inflight++;
  c->run_pages = 0;
}

/* Page pg is missing: it joins the READ being collected if contiguous and
 * within rsize (nfs_pageio_add_request), else starts the next. */
static void eng_pgc_add(struct eng_job *j, uint64_t pg)
{
  struct eng_pgc *c = &j->pgc;
  eng_pgc_set(c->present, pg);
  if (c->run_pages > 0 && pg == c->run_lo + c->run_pages && c->run_pages < c->rsize_pages) {
    c->run_pages++;
    return;
  }
  eng_pgc_flush_run(j);
  c->run_lo = pg;
  c->run_pages = 1;
}

/* __do_page_cache_readahead: the pages of [start, start + n) not in the
 * cache (none past the file's end) are read, the one `lookahead` pages
 * before the window's end marked PG_readahead. */
static void eng_pgc_do_ra(struct eng_job *j, uint64_t start, uint64_t n, uint64_t lookahead)
{
  struct eng_pgc *c = &j->pgc;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t pg = start + i;
    if (pg >= c->npages)
      break;
    if (eng_pgc_bit(c->present, pg))
      continue;
    if (i == n - lookahead)
      eng_pgc_set(c->marker, pg);
    eng_pgc_add(j, pg);
  }
  eng_pgc_flush_run(j);
}

/* ondemand_readahead for a read reaching page `pg` with `req` pages of it
 * left, on a page missing from the cache (hit 0: page_cache_sync_readahead)
 * or on a PG_readahead page (hit 1: page_cache_async_readahead). */
static void eng_pgc_ondemand(struct eng_job *j, uint64_t pg, int hit, uint64_t req)
{
  struct eng_pgc *c = &j->pgc;
  uint64_t max = c->max_pages;
  if (pg == 0)
    goto initial;
  if (pg == c->ra_start + c->ra_size - c->ra_async || pg == c->ra_start + c->ra_size) { /* the stream's next window */
    c->ra_start += c->ra_size;
    c->ra_size = linux_ra_next_pages(c->ra_size, max);
    c->ra_async = c->ra_size;
    goto readit;
  }
  if (hit) { /* a marked page without its window's state (interleaved reads) */
    uint64_t start = pg + 1;
    for (uint64_t i = 0; i < max && start < c->npages && eng_pgc_bit(c->present, start); i++)
      start++;
    if (start - pg > max)
      return;
    c->ra_start = start;
    c->ra_size = linux_ra_next_pages(start - pg + req, max);
    c->ra_async = c->ra_size;
    goto readit;
  }
  if (req > max)
    goto initial; /* an oversize read */
  if (pg - c->prev_page <= 1)
    goto initial; /* a sequential cache miss (prev_page starts at -1: only page 0) */
  /* try_context_readahead: the pages cached just before pg, the history
   * a stream leaves (count_history_pages, at most max) */
  uint64_t head = pg - 1;
  for (uint64_t i = 0; i < max && eng_pgc_bit(c->present, head); i++)
    if (head-- == 0)
      break;
  uint64_t history = pg - 1 - head;
  if (history > 0) {
    if (history >= pg)
      history *= 2; /* from the file's start: a long stream */
    c->ra_start = pg;
    c->ra_size = linux_ra_init_pages(history + req, max);
    c->ra_async = c->ra_size;
    goto readit;
  }
  eng_pgc_do_ra(j, pg, req, 0); /* a standalone small random read: its own pages only */
  return;
initial:
  c->ra_start = pg;
  c->ra_size = linux_ra_init_pages(req, max);
  c->ra_async = c->ra_size > req ? c->ra_size - req : c->ra_size;
readit:
  if (pg == c->ra_start && c->ra_size == c->ra_async) { /* its own marker at once: the next window too */
    c->ra_async = linux_ra_next_pages(c->ra_size, max);
    c->ra_size += c->ra_async;
  }
  eng_pgc_do_ra(j, c->ra_start, c->ra_size, c->ra_async);
}

/* The open file's pages go (a new file, or the file opened again), its
 * bitmaps sized to [start, end) of the volume. */
static void eng_pgc_reset(struct eng_job *j, uint64_t start, uint64_t end)
{
  struct eng_pgc *c = &j->pgc;
  uint64_t npages = (end - start + ENG_PGC_PAGE_BYTES - 1) / ENG_PGC_PAGE_BYTES;
  uint64_t words = npages / 64 + 1;
  if (words > c->words) {
    free(c->present);
    c->present = calloc((size_t)(3 * words), sizeof *c->present);
    if (!c->present)
      xbt_die("out of memory");
    c->words = words;
  } else {
    memset(c->present, 0, (size_t)(3 * c->words) * sizeof *c->present);
  }
  c->uptodate = c->present + c->words;
  c->marker = c->uptodate + c->words;
  c->file_start = start;
  c->file_end = end;
  c->npages = npages;
  c->ra_start = c->ra_size = c->ra_async = 0;
  c->prev_page = UINT64_MAX; /* file_ra_state_init: prev_pos -1 */
  c->fresh = 0;
}

/* Read r of job j through the page model (eng_pgc_applies): the file's
 * pages it covers are looked up one by one as do_generic_file_read does,
 * a missing one starting the synchronous read-ahead, a marked one the
 * asynchronous; the READs that adds go out with eng_readahead.  r is
 * served from the cache (TAKEN) when all its pages are up to date, else
 * held (WAITS) until they are; NONE when the file opened again while
 * READs of its last pages are in flight (r goes as its own READs). */
enum eng_absorb eng_pgc_read(struct eng_job *j, struct eng_req *r)
{
  struct eng_pgc *c = &j->pgc;
  double unit = 0.0;
  proto_split(&j->e->s->proto, 0, 1e15, &unit); /* the protocol's largest read: rsize */
  double start = j->region_start, end = j->region_start + j->region_bytes;
  double file = j->spec->file_bytes;
  if (file > 0.0) {
    start += floor(((double)r->offset_bytes - j->region_start) / file) * file;
    end = fmin(start + file, end);
  }
  if (c->fresh || !c->present || c->file_start != (uint64_t)start || c->file_end != (uint64_t)end) {
    if (c->inflight > 0 || c->wait_head)
      return ENG_ABSORB_NONE;
    eng_pgc_reset(j, (uint64_t)start, (uint64_t)end);
  }
  c->rsize_pages = (uint64_t)(unit / ENG_PGC_PAGE_BYTES);
  if (c->rsize_pages < 1)
    c->rsize_pages = 1;
  c->max_pages = (uint64_t)(c->rsize_pages * j->e->s->client.readahead_requests); /* ra_pages */
  uint64_t p0 = (r->offset_bytes - c->file_start) / ENG_PGC_PAGE_BYTES;
  uint64_t last = (r->offset_bytes + r->len_bytes - c->file_start + ENG_PGC_PAGE_BYTES - 1) / ENG_PGC_PAGE_BYTES;
  if (last > c->npages)
    last = c->npages;
  for (uint64_t pg = p0; pg < last; pg++) {
    if (!eng_pgc_bit(c->present, pg)) {
      eng_pgc_ondemand(j, pg, 0, last - pg);
      if (!eng_pgc_bit(c->present, pg)) { /* the window moved past it: readpage */
        eng_pgc_add(j, pg);
        eng_pgc_flush_run(j);
      }
    }
    if (eng_pgc_bit(c->marker, pg)) {
      eng_pgc_clear(c->marker, pg);
      eng_pgc_ondemand(j, pg, 1, last - pg);
    }
  }
  c->prev_page = last > p0 ? last - 1 : p0;
  r->absorbed = 1;
  if (eng_pgc_all(c->uptodate, p0, last))
    return ENG_ABSORB_TAKEN;
  eng_req_append(&c->wait_head, &c->wait_tail, r);
  return ENG_ABSORB_WAITS;
}

/* The READs of job j's pages due, from the actor of lane `self`: each
 * sent without waiting for the others, not a client I/O. */
void eng_pgc_send(struct eng_job *j, int self)
{
  struct eng_req *p;
  while ((p = eng_req_take(&j->pgc.send_head, &j->pgc.send_tail)) != NULL) {
    p->conn = eng_pick_conn(j, (double)p->len_bytes);
    p->t_issue_s = simgrid_get_clock();
    if (j->mpio)
      mpio_start_io(j->mpio, p->conn, (double)p->len_bytes);
    eng_send_rpc(j, p, self);
  }
}

/* READ f of j's pages is answered: its pages are up to date; the reads
 * that now have all theirs, a list in order through ->next. */
struct eng_req *eng_pgc_fetched(struct eng_job *j, const struct eng_req *f)
{
  struct eng_pgc *c = &j->pgc;
  uint64_t p0 = (f->offset_bytes - c->file_start) / ENG_PGC_PAGE_BYTES;
  uint64_t p1 = (f->offset_bytes + f->len_bytes - c->file_start + ENG_PGC_PAGE_BYTES - 1) / ENG_PGC_PAGE_BYTES;
  for (uint64_t pg = p0; pg < p1; pg++)
    eng_pgc_set(c->uptodate, pg);
  c->inflight--;
  struct eng_req *head = NULL, *tail = NULL, *keep_head = NULL, *keep_tail = NULL, *r;
  while ((r = eng_req_take(&c->wait_head, &c->wait_tail)) != NULL) {
    uint64_t r0 = (r->offset_bytes - c->file_start) / ENG_PGC_PAGE_BYTES;
    uint64_t r1 = (r->offset_bytes + r->len_bytes - c->file_start + ENG_PGC_PAGE_BYTES - 1) / ENG_PGC_PAGE_BYTES;
    int in = eng_pgc_all(c->uptodate, r0, r1 < c->npages ? r1 : c->npages);
    eng_req_append(in ? &head : &keep_head, in ? &tail : &keep_tail, r);
  }
  c->wait_head = keep_head;
  c->wait_tail = keep_tail;
  return head;
}
