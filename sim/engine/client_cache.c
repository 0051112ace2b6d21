/* client_cache.c - the NFS/SMB client's page cache, on the client side of
 * each job: buffered writes taken into it (absorb) and written back
 * (write-back, dirty throttling at the dirty limit, the write-back a close
 * waits for under clients.flush_on_close), its memory copies over the
 * client's bus, and the client OS's read-ahead in units of the protocol's
 * read (the units it fetches, the small reads it serves from them).
 * engine.c issues and completes the jobs' I/Os, submit.c sizes their
 * window. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <stdlib.h>
#include <xbt/asserts.h>

#include "models/net/mpio.h"
#include "models/storage/pcache.h"
#include "sim/engine/eng_impl.h"

/* Write r fits under cl's dirty limit: the dirty bytes and those under
 * write-back with it stay within dirty_ratio x RAM (Linux 2.6.32
 * balance_dirty_pages: nr_reclaimable + nr_writeback <= dirty_thresh), or
 * nothing else is held (a write alone above the limit still goes). */
static int eng_client_fits(const struct eng_client *cl, const struct eng_req *r)
{
  uint64_t held = pcache_dirty_bytes(cl->cache) + cl->writeback_bytes;
  return held == 0 || held + r->len_bytes <= cl->dirty_limit_bytes;
}

/* Whether the clients of scenario s keep a page cache for buffered
 * writes over protocol ops: RAM for it (clients.ram), and a target the
 * client OS caches (clients.cache_scope): every file (the Linux NFS
 * client), or a block LUN only (Windows: a LUN is a local NTFS volume,
 * its files go through the cache manager; a share's files are the
 * server's, and the application's requests go to it as they are). */
int eng_client_cached(const struct scenario *s, const struct proto_ops *ops)
{
  if (!(s->client.ram_bytes > 0))
    return 0;
  return (enum client_cache_scope)s->client.cache_scope == CLIENT_CACHE_ALL || !ops->opens_files;
}

/* A buffered write into the client's page cache: it completes after a
 * memory copy, on the client.  Below the dirty limit the page cache
 * takes it at once; past it the writer waits, in order behind any other
 * waiting one, until the write-back has made room (eng_client_unblock:
 * balance_dirty_pages sleeps while the limit is passed, the write-back
 * going on).  A write larger than the limit, or one the cache cannot
 * hold, goes to the NAS itself. */
enum eng_absorb eng_client_absorb(struct eng_job *j, struct eng_req *r)
{
  struct eng_client *cl = &j->e->clients[j->client];
  if (!cl->cache || j->spec->direct || !r->write || r->flush || r->meta != JOB_META_NONE ||
      r->len_bytes > cl->dirty_limit_bytes)
    return ENG_ABSORB_NONE;
  if (cl->wait_head || !eng_client_fits(cl, r)) {
    eng_req_append(&cl->wait_head, &cl->wait_tail, r);
    if (cl->lazy_scans > 0) /* the copy at the write-behind's pace from now on */
      eng_window_throttled(j->e);
    return ENG_ABSORB_WAITS;
  }
  if (pcache_insert(cl->cache, r->offset_bytes, r->len_bytes, 1, simgrid_get_clock()) != 0)
    return ENG_ABSORB_NONE;
  r->absorbed = 1;
  cl->dirtied_bytes += r->len_bytes;
  return ENG_ABSORB_TAKEN;
}

/* The first write held at cl's dirty limit that now fits, taken into the
 * cache, or NULL. */
static struct eng_req *eng_client_unblock(struct eng_client *cl)
{
  if (!cl->wait_head || !eng_client_fits(cl, cl->wait_head))
    return NULL;
  struct eng_req *r = eng_req_take(&cl->wait_head, &cl->wait_tail);
  /* dirty + under write-back <= the limit <= the RAM: the insert evicts
   * clean pages only, so it always finds room */
  pcache_insert(cl->cache, r->offset_bytes, r->len_bytes, 1, simgrid_get_clock());
  r->absorbed = 1;
  cl->dirtied_bytes += r->len_bytes;
  return r;
}

/* Write the client's dirty pages back, from job j (the actor of lane
 * `self`), while it has reason to: a close of j's waits for them once
 * j's I/Os are answered (clients.flush_on_close: nfs_file_flush ->
 * nfs_wb_all), or j issues nothing more and they are done (the job's
 * end: its file is closed), or a writer waits at the dirty limit, or the
 * dirty bytes pass the background limit (Linux's flusher; it stops once
 * below), or the lazy writer's last scan queued bytes not yet sent
 * (eng_lazy_main).  Each a WRITE of the protocol's largest size (a contiguous
 * dirty run, oldest first: pcache_take_dirty), sent without waiting for
 * the others, as the kernel's write-back hands all its pages to the RPC
 * layer: as many in flight as the transport's request slots
 * (clients.rpc_slots: the RPC slot table, the rest waiting in its
 * backlog), the job's depth without one.  With a lazy writer
 * (Windows' cache manager) each is a write-behind of at most
 * clients.writebehind_size, clients.writebehind_requests in flight,
 * whatever the reason.  Write-backs are not client I/Os; the time until
 * the last is answered is in the job's, a lazy writer's excepted (a close
 * does not wait for it: eng_account). */
void eng_writeback(struct eng_job *j, int self)
{
  struct eng *e = j->e;
  struct eng_client *cl = &e->clients[j->client];
  if (!cl->cache)
    return;
  double slots = eng_conn_slots(e);
  int window = cl->wb_window > 0 ? cl->wb_window : slots > 0.0 ? (int)slots : j->depth;
  int closing = j->outstanding == 0 && (j->close_req || !eng_may_issue(j)); /* its I/Os answered */
  uint64_t off, len;
  while (j->wb_outstanding < window &&
         (closing || cl->wait_head || cl->lazy_quota_bytes > 0 ||
          (cl->dirty_bg_bytes > 0 && pcache_dirty_bytes(cl->cache) > cl->dirty_bg_bytes)) &&
         pcache_take_dirty(cl->cache, cl->flush_chunk_bytes, &off, &len)) {
    cl->lazy_quota_bytes -= len < cl->lazy_quota_bytes ? len : cl->lazy_quota_bytes;
    struct eng_req *r = eng_req_new(e);
    r->job = j;
    r->write = 1;
    r->flush = 1;
    r->offset_bytes = off;
    r->len_bytes = len;
    r->t_issue_s = simgrid_get_clock();
    cl->writeback_bytes += len;
    j->wb_outstanding++;
    eng_send(j, r, self);
  }
}

/* Write-back r of job j is answered: its bytes leave the ones under
 * write-back, and the writers waiting at the dirty limit that now fit go
 * into the cache (their memory copy next). */
void eng_writeback_done(struct eng_job *j, const struct eng_req *r)
{
  struct eng *e = j->e;
  struct eng_client *cl = &e->clients[j->client];
  cl->writeback_bytes -= r->len_bytes;
  j->wb_outstanding--;
  struct eng_req *w;
  while ((w = eng_client_unblock(cl)) != NULL)
    eng_queue_push(&e->conns[w->job->conn0 + w->conn].cacheq, w);
}

/* Client c has a cache and a lazy writer writing it behind. */
int eng_client_lazy(const struct eng *e, int c)
{
  return e->clients[c].cache && e->s->client.lazy_write_share > 0.0;
}

/* A client's lazy writer (clients.lazy_write_share > 0: the Windows
 * cache manager's, Windows Internals 7th ed. part 2 ch. 11 "Lazy
 * writing"): every clients.lazy_write_interval it scans the dirty pages
 * and queues lazy_write_share of them for write-behind, or, when pages
 * were dirtied faster since its last scan, as many as were dirtied then
 * (it matches the rate at which they are produced), written as they
 * are dirty.  The queue replaces what the last scan left unsent (those
 * pages are still dirty and counted again).  The write-behinds go from one of the client's jobs still
 * running, writebehind_requests in flight (eng_writeback): writers no
 * longer wait at the dirty threshold for the write-back to start, and the
 * copy's pace is the write-behind's once they do. */
void eng_lazy_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_lazy *lw = sg_actor_self_get_data();
  struct eng *e = lw->e;
  struct eng_client *cl = &e->clients[lw->client];
  const struct client_params *p = &e->s->client;
  for (;;) {
    sg_actor_sleep_for(p->lazy_write_interval_s);
    uint64_t dirty = pcache_dirty_bytes(cl->cache);
    uint64_t share = (uint64_t)((double)dirty * p->lazy_write_share);
    cl->lazy_quota_bytes = cl->dirtied_bytes > share ? cl->dirtied_bytes : share;
    cl->dirtied_bytes = 0;
    cl->lazy_scans++;
    if (cl->wait_head)
      eng_window_throttled(e);
    if (cl->lazy_quota_bytes == 0)
      continue;
    for (int i = 0; i < e->njobs; i++) {
      struct eng_job *j = &e->jobs[i];
      if (j->client == lw->client && !j->finished) {
        eng_writeback(j, -1);
        break;
      }
    }
  }
}

/* The close of job j's file goes on (from the actor of lane `self`): at
 * the job's end a pass still open gets its close; a close waiting goes
 * once j's I/Os are answered and the client holds no dirty page
 * (eng_writeback wrote them back), as close() returns only after
 * nfs_wb_all: its protocol requests then (NFSv3 after writes: the
 * COMMIT), answered before the next pass opens (eng_done). */
void eng_close_step(struct eng_job *j, int self)
{
  const struct eng_client *cl = &j->e->clients[j->client];
  if (!j->close_req && j->file_open && !eng_may_issue(j) && j->outstanding == 0 && eng_closes_itself(j))
    j->close_req = eng_close_new(j);
  if (!j->close_req || j->close_sent || j->outstanding > 0 || j->wb_outstanding > 0 ||
      (cl->cache && pcache_dirty_bytes(cl->cache) > 0))
    return;
  j->close_sent = 1;
  eng_send(j, j->close_req, self);
}

/* The client's memory copy of r, a write into its page cache or a read
 * out of it, then r goes to its job as a reply would: over the client's
 * memory bus where the client has a cache (clients.ram, copy_rate), at
 * once otherwise. */
void eng_client_copy(struct eng *e, struct eng_req *r)
{
  struct eng_job *j = r->job;
  if (e->clients[j->client].cache)
    eng_queue_push(&e->conns[j->conn0 + r->conn].cacheq, r);
  else
    eng_chan_deliver(e, &j->reply[r->conn], r);
}

/* The client cache's copy of an absorbed write: done after the copy over
 * the client's memory bus, then handed to the job like a reply. */
void eng_client_copy_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_conn *c = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&c->cacheq);
    eng_follow_route(c);
    struct eng_client *cl = &r->job->e->clients[r->job->client];
    sg_actor_sleep_until(accel_submit(&cl->bus, simgrid_get_clock(), (double)r->len_bytes));
    eng_chan_deliver(r->job->e, &r->job->reply[r->conn], r);
  }
}

/* The unit of the client's page cache while job j reads ahead in the
 * protocol's read size on a file protocol (Linux: an NFS mount's ra_pages
 * = rsize pages x NFS_MAX_READAHEAD, filled by nfs_readpages in rsize
 * READs) (bytes), else 0. */
static double eng_client_page_unit(const struct eng_job *j)
{
  double unit = 0.0;
  if (j->e->s->client.readahead_unit != CLIENT_RA_PROTOCOL || !j->e->ops->opens_files || !eng_client_reads_ahead(j))
    return 0.0;
  proto_split(&j->e->s->proto, 0, 1e15, &unit); /* the protocol's largest read */
  return unit;
}

/* Unit u of the open file is in the page cache. */
static int eng_ra_in(const struct eng_ra *ra, uint64_t u)
{
  return u < ra->lo || (u < ra->next && ra->done[u % ra->cap]);
}

/* Read r's first and last unit of the open file. */
static void eng_ra_span(const struct eng_ra *ra, const struct eng_req *r, uint64_t *u0, uint64_t *u1)
{
  *u0 = (r->offset_bytes - ra->file_start) / ra->unit_bytes;
  *u1 = (r->offset_bytes + r->len_bytes - 1 - ra->file_start) / ra->unit_bytes;
}

static int eng_ra_has(const struct eng_ra *ra, const struct eng_req *r)
{
  uint64_t u0, u1;
  eng_ra_span(ra, r, &u0, &u1);
  for (uint64_t u = u0; u <= u1; u++)
    if (!eng_ra_in(ra, u))
      return 0;
  return 1;
}

void eng_client_reopen(struct eng_job *j)
{
  j->ra.fresh = 1;
  j->pgc.fresh = 1;
}

/* A buffered sequential read smaller than the protocol's read on a
 * client that reads ahead in its units (Linux NFS: the page cache is
 * filled by nfs_readpages in rsize READs, read() copies from it): the
 * client fetches the rsize-aligned units of the file covering r and the
 * readahead_requests units after them (none past the file's end), each
 * once, and r completes once its units are in.  The units count from the
 * file's start (a file of a copy: its file_bytes slice of the region,
 * else the job's region).  A read that starts a new stream (the file
 * opened again: the passes of the reviews' IOZone re-read as slowly as
 * they read; a reader that went back, as a time-based job at its
 * region's end, or jumped past the units) drops the pages and starts
 * over from it, or, while the last stream's units are in flight, goes
 * as its own READ. */
enum eng_absorb eng_client_fetch(struct eng_job *j, struct eng_req *r)
{
  struct eng_ra *ra = &j->ra;
  if (r->write || r->flush || r->trim || r->meta != JOB_META_NONE || r->len_bytes == 0)
    return ENG_ABSORB_NONE;
  if (eng_pgc_applies(j))
    return eng_pgc_read(j, r); /* no stream: the pages one by one (client_pages.c) */
  double unit = eng_client_page_unit(j);
  if (!((double)r->len_bytes < unit))
    return ENG_ABSORB_NONE;
  double start = j->region_start, end = j->region_start + j->region_bytes;
  double file = j->spec->file_bytes;
  if (file > 0.0) {
    start += floor(((double)r->offset_bytes - j->region_start) / file) * file;
    end = fmin(start + file, end);
  }
  uint64_t u0 = (uint64_t)(((double)r->offset_bytes - start) / unit);
  if (ra->fresh || ra->unit_bytes != (uint64_t)unit || ra->file_start != (uint64_t)start ||
      ra->file_end != (uint64_t)end || u0 < ra->pos || u0 > ra->next) { /* a new stream */
    if (ra->lo != ra->next || ra->wait_head)
      return ENG_ABSORB_NONE; /* the last one's units still in flight: this read goes as its own */
    ra->fresh = 0;
    ra->unit_bytes = (uint64_t)unit;
    ra->file_start = (uint64_t)start;
    ra->file_end = (uint64_t)end;
    ra->lo = ra->next = ra->ahead = u0;
  }
  ra->pos = u0;
  uint64_t u1, units = (ra->file_end - ra->file_start + ra->unit_bytes - 1) / ra->unit_bytes;
  eng_ra_span(ra, r, &u0, &u1);
  uint64_t ahead = u1 + 1 + (uint64_t)j->e->s->client.readahead_requests;
  if (ahead > units)
    ahead = units;
  if (ahead > ra->ahead)
    ra->ahead = ahead;
  r->absorbed = 1;
  if (eng_ra_has(ra, r))
    return ENG_ABSORB_TAKEN;
  eng_req_append(&ra->wait_head, &ra->wait_tail, r);
  return ENG_ABSORB_WAITS;
}

/* The next read-ahead unit of j's open file to request: 1 and its bytes
 * on the volume, or 0 when none is due. */
static int eng_client_next_unit(struct eng_job *j, uint64_t *offset_bytes, uint64_t *len_bytes)
{
  struct eng_ra *ra = &j->ra;
  if (ra->next >= ra->ahead)
    return 0;
  if (ra->next - ra->lo >= ra->cap) { /* the ring grows: its flags by their new index */
    uint64_t cap = ra->cap ? 2 * ra->cap : 32;
    unsigned char *done = calloc((size_t)cap, 1);
    if (!done)
      xbt_die("out of memory");
    for (uint64_t u = ra->lo; u < ra->next; u++)
      done[u % cap] = ra->done[u % ra->cap];
    free(ra->done);
    ra->done = done;
    ra->cap = cap;
  }
  ra->done[ra->next % ra->cap] = 0;
  *offset_bytes = ra->file_start + ra->next * ra->unit_bytes;
  *len_bytes = ra->file_end - *offset_bytes < ra->unit_bytes ? ra->file_end - *offset_bytes : ra->unit_bytes;
  ra->next++;
  return 1;
}

/* Read-ahead unit f of job j is in the page cache: the reads held for it
 * that now have every unit they need, a list in order through ->next. */
static struct eng_req *eng_client_fetched(struct eng_job *j, const struct eng_req *f)
{
  struct eng_ra *ra = &j->ra;
  ra->done[(f->offset_bytes - ra->file_start) / ra->unit_bytes % ra->cap] = 1;
  while (ra->lo < ra->next && ra->done[ra->lo % ra->cap])
    ra->lo++;
  struct eng_req *head = NULL, *tail = NULL, *keep_head = NULL, *keep_tail = NULL, *r;
  while ((r = eng_req_take(&ra->wait_head, &ra->wait_tail)) != NULL) {
    int in = eng_ra_has(ra, r);
    eng_req_append(in ? &head : &keep_head, in ? &tail : &keep_tail, r);
  }
  ra->wait_head = keep_head;
  ra->wait_tail = keep_tail;
  return head;
}

/* The client OS's READs of the read-ahead units due on job j's open file
 * (eng_client_fetch), from the actor of lane `self`: each a
 * protocol read of its unit, sent without waiting for the others (the
 * transport's request slots hold the rest), not a client I/O. */
void eng_readahead(struct eng_job *j, int self)
{
  struct eng *e = j->e;
  uint64_t off, len;
  eng_pgc_send(j, self);
  while (eng_client_next_unit(j, &off, &len)) {
    struct eng_req *p = eng_req_new(e);
    p->job = j;
    p->conn = eng_pick_conn(j, (double)len);
    p->fetch = ENG_FETCH_UNITS;
    p->offset_bytes = off;
    p->len_bytes = len;
    p->rec = -1;
    p->t_issue_s = simgrid_get_clock();
    if (j->mpio)
      mpio_start_io(j->mpio, p->conn, (double)len);
    eng_send_rpc(j, p, self);
  }
}

/* Read-ahead unit f of job j is answered: its bytes on the route counted,
 * and the reads that waited for it get their copy. */
void eng_fetched(struct eng_job *j, struct eng_req *f)
{
  struct eng *e = j->e;
  double now = simgrid_get_clock();
  if (j->mpio)
    mpio_end_io(j->mpio, f->conn, (double)f->len_bytes);
  if (eng_counts_at(j, now))
    eng_count_link(e, f);
  struct eng_req *r = f->fetch == ENG_FETCH_PAGES ? eng_pgc_fetched(j, f) : eng_client_fetched(j, f);
  eng_req_free(e, f);
  while (r) {
    struct eng_req *next = r->next;
    eng_client_copy(e, r);
    r = next;
  }
}
