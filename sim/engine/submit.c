/* submit.c - a client request's way into the NAS storage stack: the
 * block it becomes (a metadata operation's own filesystem block, its
 * direction; a trim's discard), the sync and direct flags of its job
 * (engine.c sends, daemon.c submits; the client's page cache, which may
 * take a buffered write or serve a small read instead, is
 * client_cache.c), and how many I/Os its job may have outstanding. */
#include <math.h>
#include <simgrid/engine.h>

#include "sim/engine/eng_impl.h"

/* A job's writes are stable before they complete (O_SYNC/FUA, or an NFS
 * export without async). */
int eng_job_sync(const struct eng *e, const struct job *spec)
{
  return spec->sync || e->ops->sync_writes(&e->s->proto);
}

/* A job's I/O bypasses the storage stack's page cache: O_DIRECT on a local
 * drive (a remote client's flag never reaches the server's cache). */
int eng_job_direct(const struct eng *e, const struct job *spec)
{
  return e->ops->direct_io && spec->direct;
}

/* The bytes of the file a close of job j's closes (its file, else its region). */
static uint64_t eng_closed_file_bytes(const struct eng_job *j)
{
  return (uint64_t)(j->spec->file_bytes > 0.0 ? j->spec->file_bytes : j->region_bytes);
}

void eng_submit(struct eng *e, struct eng_req *r)
{
  if (r->close_sync) {
    /* the file's fsync: eng_close_writeback, in the daemon's thread just
     * before, started the write-back of its dirty pages and charged its
     * cost, so the fsync finds none left to submit and only waits */
    stack_fsync(e->stack, simgrid_get_clock(), r->offset_bytes, eng_closed_file_bytes(r->job),
                (uint64_t)(uintptr_t)r);
    eng_wake_storage(e);
    return;
  }
  struct stack_io io = {.offset_bytes = r->offset_bytes, .len_bytes = r->len_bytes,
                        .write = r->write, .tag = (uint64_t)(uintptr_t)r};
  /* a trace's discard replayed on a share: the file's hole punch, as falloc's */
  int punch = r->trim && r->meta == JOB_META_NONE && e->ops->opens_files;
  if (r->meta != JOB_META_NONE || punch) { /* the NAS filesystem's own block below a file operation */
    io.len_bytes = (uint64_t)JOB_META_UPDATE_BYTES;
    io.write = punch || workgen_meta_writes(r->meta);
    if (punch || r->meta == JOB_META_FALLOC) /* the extent block of the range allocated or punched */
      io.offset_bytes = r->offset_bytes / (uint64_t)JOB_META_UPDATE_BYTES * (uint64_t)JOB_META_UPDATE_BYTES;
  } else if (r->trim) { /* a LUN's UNMAP (a block target): a discard of the range */
    io.len_bytes = r->range_bytes;
    io.write = 1;
    io.discard = 1;
  }
  io.sync = eng_job_sync(e, r->job->spec);
  io.direct = eng_job_direct(e, r->job->spec);
  stack_submit(e->stack, simgrid_get_clock(), &io);
  eng_wake_storage(e);
}

int eng_req_stores(const struct eng_req *r)
{
  return !r->fop_part || r->meta != JOB_META_NONE || r->close_sync;
}

/* A file operation's protocol requests (proto_file_requests, the
 * catalogue's message flows): a copy tool that opens its source or
 * creates its destination with a flow of its own says so
 * (clients.copy_source_requests / copy_dest_requests: CopyFileEx's CREATE
 * + SET_INFO end-of-file; copy_dest_close_requests: its SET_INFO of the
 * source's times + CLOSE); a data I/O that opens its file (IOZone's,
 * CrystalDiskMark's and ATTO's passes over their file) goes after the
 * file's open and the close of its previous pass, the same requests per
 * pass as a close after the last I/O would be; where the client OS
 * closes each pass itself after writing its data back
 * (clients.flush_on_close), the open's alone. */
int eng_fop_requests(const struct eng *e, const struct eng_req *r)
{
  const struct proto_params *p = &e->s->proto;
  const struct client_params *cl = &e->s->client;
  if (e->local || e->net_only || !e->ops->opens_files || r->fop == PROTO_FOP_NONE)
    return 0;
  if (r->meta == JOB_META_NONE)
    return proto_file_requests(p, PROTO_FOP_OPEN) +
           (cl->flush_on_close > 0.0 ? 0 /* its own close, after the pass (client_cache.c eng_close_step) */
                                     : proto_file_requests(p, r->write ? PROTO_FOP_CLOSE_WRITTEN : PROTO_FOP_CLOSE));
  double tool = !r->job->spec->file_handles       ? 0.0
                : r->fop == PROTO_FOP_OPEN   ? cl->copy_source_requests
                : r->fop == PROTO_FOP_CREATE ? cl->copy_dest_requests
                : r->fop == PROTO_FOP_CLOSE_WRITTEN ? cl->copy_dest_close_requests
                                             : 0.0;
  return tool > 0.0 ? (int)tool : proto_file_requests(p, r->fop);
}

/* The write-back the close of a written file starts on the NAS (the
 * protocol's close_written_writeback: Samba on ext4, whose auto_da_alloc
 * allocates and submits a file's delayed blocks as the file is released;
 * close_written_sync: the fsync of an NFSv3 COMMIT, which then waits for
 * them in eng_submit): the file's pages still dirty in the NAS page cache
 * go to the disks now, submitted by the thread that serves the close.
 * Returns that thread's CPU work for it (reference cycles). */
double eng_close_writeback(struct eng *e, const struct eng_req *r)
{
  if (!(r->close_writeback || r->close_sync) || e->local || e->net_only)
    return 0.0;
  double cycles = stack_start_writeback(e->stack, simgrid_get_clock(), r->offset_bytes, eng_closed_file_bytes(r->job));
  eng_wake_storage(e);
  return cycles;
}

/* The client OS reads ahead on job j now (reads beyond the
 * application's own), one mechanism for every client OS (clients.os,
 * catalog/protocols.yaml client_os): on a buffered forward-sequential
 * read of a remote file, once the OS has seen readahead_history reads of
 * the open file (Windows keeps each handle's last reads and reads ahead
 * once they show a sequential stream; each file a copy opens starts a
 * new history), so a file of few reads reads as if nothing ran ahead.
 * Nothing here on a backward, strided or random read (Windows'
 * read-ahead detects forward sequential streams only; the Linux NFS
 * client's page cache reads ahead on those from the pages it holds, a
 * page at a time: client_pages.c), on O_DIRECT, on a write, or without
 * the network. */
int eng_client_reads_ahead(const struct eng_job *j)
{
  const struct job *sp = j->spec;
  const struct client_params *cl = &j->e->s->client;
  return cl->readahead_requests > 0.0 && !sp->direct && sp->read_frac >= 1.0 && sp->access == JOB_SEQ &&
         !sp->net_only && !j->e->local && sp->bs_bytes[0] > 0.0 &&
         (double)j->file_reads >= cl->readahead_history;
}

/* The client OS's read-ahead on job j as application reads in flight
 * beyond the job's own window: readahead_requests units ahead of the
 * reader, a unit being the application's read (Windows' cache manager
 * reads ahead in multiples of the caller's read, rounded up to
 * readahead_granularity: 64 KiB by default) or the protocol's read size
 * when the application's read is at least that large (split into such
 * READs, eng_rpc_split); as requests of the application's size,
 * ceil(window / its read).  On a file protocol, an application read
 * smaller than the protocol's read is served from the page cache instead
 * (eng_client_fetch); a block protocol's client reads ahead as before. */
static int eng_client_readahead(const struct eng_job *j)
{
  const struct client_params *cl = &j->e->s->client;
  double bs = j->spec->bs_bytes[0];
  if (!eng_client_reads_ahead(j))
    return 0;
  double unit = bs;
  double g = cl->readahead_granularity_bytes;
  if (cl->readahead_unit == CLIENT_RA_PROTOCOL) {
    proto_split(&j->e->s->proto, 0, 1e15, &unit); /* the protocol's largest read */
    if (j->e->ops->opens_files && bs < unit)
      return 0; /* the page cache's units (eng_client_fetch, eng_client_page_unit) */
  } else if (g > 0.0) {
    unit = ceil(bs / g) * g;
  }
  return (int)ceil(cl->readahead_requests * unit / bs);
}

/* The I/Os job j may have outstanding now: none more while a file copy's
 * next I/O waits for the others (workgen_waits: the tool finishes a
 * file, closes it and opens the next, each answered before it goes on);
 * else its window plus the client OS's read-ahead (which runs on the
 * open file), within the protocol's window (SMB credits). */
int eng_job_window(const struct eng_job *j)
{
  if (j->close_req || j->close_next || j->opening)
    return j->outstanding; /* its file closes (client_cache.c eng_close_step) or opens: nothing more
                              until then */
  if (j->outstanding > 0 && workgen_waits(&j->gen))
    return j->outstanding; /* a file's I/O drains before it closes and the next opens */
  int w = lat_target_depth(&j->lat, j->depth);
  int ra = eng_client_readahead(j);
  if (ra == 0)
    return w;
  int cap = j->e->ops->window(&j->e->s->proto);
  return w + ra < cap ? w + ra : cap;
}

/* A file protocol's client sends an application read or write larger
 * than the protocol's transfer size as several requests of it (Linux
 * NFS: nfs_pageio splits at rsize/wsize, one READ/WRITE RPC each; the
 * SMB2 client at the negotiated max read/write), each parsed, served and
 * answered by the server on its own.  A block protocol's command carries
 * the whole I/O (iSCSI: MaxBurstLength bounds a sequence of PDUs, not the
 * command), and a metadata operation, a trim or the client cache's
 * write-back (already in the protocol's write size) goes as one. */
uint64_t eng_rpc_split(const struct eng *e, const struct eng_req *r, double *chunk_bytes)
{
  *chunk_bytes = (double)r->len_bytes;
  if (e->local || e->net_only || !e->ops->opens_files || r->meta != JOB_META_NONE || r->trim || r->flush)
    return 1;
  return proto_split(&e->s->proto, r->write, (double)r->len_bytes, chunk_bytes);
}

/* Requests one connection may have sent and unanswered, the rest held by
 * the client in order until a reply frees a slot: the client transport's
 * (clients.rpc_slots: the Linux RPC client's slot table, sunrpc
 * tcp_slot_table_entries) and the protocol session's (iSCSI: MaxCmdSN,
 * iscsi_cmdsn_depth), whichever is tighter; 0: no limit. */
double eng_conn_slots(const struct eng *e)
{
  double slots = e->s->client.rpc_slots;
  int w = e->ops->session_window(&e->s->proto);
  if (w < PROTO_UNBOUNDED && (slots <= 0.0 || (double)w < slots))
    slots = (double)w;
  return slots;
}

void eng_wire_push(struct eng *e, struct eng_conn *c, struct eng_req *r)
{
  double slots = eng_conn_slots(e);
  if (slots > 0.0) {
    if ((double)c->slots_used >= slots) {
      eng_req_append(&c->slot_head, &c->slot_tail, r);
      return;
    }
    c->slots_used++;
    r->slot = 1;
  }
  eng_queue_push(&c->wireq, r);
}

void eng_slot_free(struct eng *e, struct eng_conn *c, struct eng_req *r)
{
  if (!r->slot)
    return;
  r->slot = 0;
  c->slots_used--;
  struct eng_req *w = eng_req_take(&c->slot_head, &c->slot_tail);
  if (w)
    eng_wire_push(e, c, w);
}
