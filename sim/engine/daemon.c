/* daemon.c - the server side of every connection: the socket that
 * receives whatever the daemon is doing, receive softirq processing, and
 * the protocol daemons as one family of threads keyed by the protocol's
 * thread shape (models/soc/proto.h). */
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>
#include <xbt/log.h>

#include "models/storage/pcache.h"
#include "sim/engine/eng_impl.h"

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(nastwin);

/* ---- CPU cost of one request ------------------------------------------- */

/* Where the CPU work of one request goes, in reference cycles: the
 * receive softirq (packets the NAS receives, on the irq core or spread
 * over cores), the daemon's request direction (the command and, for
 * writes, its data; file/thin LUN extras) and its response direction. */
static void eng_cycles(const struct eng *e, struct eng_req *r)
{
  const struct scenario *s = e->s;
  struct proto_cycles pc;
  proto_request_cost(&s->proto, r->write, (double)r->len_bytes, s->net.mtu_bytes,
                     (int)s->net.tcp_timestamps, &pc);
  double fixed = pc.request_cycles + r->opens * proto_open_cycles(&s->proto);
  double data = pc.byte_cycles + pc.tx_packet_cycles + pc.csum_cycles + pc.pdu_cycles;
  /* LIO's iscsi_trx reads its socket with blocking kernel_recvmsg(...,
   * MSG_WAITALL) (rx_data, iscsi_target_util.c).  While it waits, the
   * softirq stops at tcp_v4_rcv and hands the segment to the prequeue
   * (tcp_prequeue, Linux 3.x with tcp_low_latency 0); while it copies it
   * owns the socket and segments go to the backlog.  Either way the TCP
   * layer of its session's incoming segments (tcp_v4_do_rcv ->
   * tcp_rcv_established) runs in trx's context, and only driver + IP stay
   * in the softirq.  smbd and knfsd read non-blocking (EAGAIN before the
   * prequeue), so theirs stays in the softirq. */
  double reader_tcp = e->ops->blocking_reader ? pc.rx_msg_tcp_cycles : 0.0;
  r->softirq_cycles = pc.rx_packet_cycles - reader_tcp;
  r->rx_cycles = fixed / 2 + pc.lun_cycles + reader_tcp + (r->write ? data : 0.0);
  r->tx_cycles = fixed / 2 + (r->write ? 0.0 : data);
  /* A streamed reply: the process copies the read data into the socket
   * after the storage, piece by piece, while the wire carries the pieces
   * already copied (eng_stream_reply). */
  r->nsegs = eng_stream_pieces(e, r);
  r->stream_cycles = 0.0;
  if (r->nsegs > 1) {
    r->stream_cycles = data;
    if (r->write) { /* a blocking reader's TCP work goes with each piece it takes */
      r->stream_cycles += reader_tcp;
      r->rx_cycles = fixed / 2 + pc.lun_cycles;
    } else {
      r->tx_cycles = fixed / 2;
    }
  }
}

/* Only a thread per connection streams (a process, or a session's
 * receive thread: it takes the pieces in order); a pool moves whole
 * messages. */
uint64_t eng_stream_pieces(const struct eng *e, const struct eng_req *r)
{
  enum proto_shape sh = e->ops->shape;
  if ((sh != PROTO_SHAPE_PROCESS && sh != PROTO_SHAPE_RXTX) || e->net_only || e->local)
    return 1;
  return proto_stream_segments(&e->s->proto, r->write, (double)r->len_bytes);
}

/* ---- the wire: client senders and streamed pieces ------------------------ */

/* Piece k of streamed message r (a read's reply, a write's data): its
 * bytes on the wire (the header with the first). */
static double eng_piece_bytes(const struct eng *e, const struct eng_req *r, uint64_t k)
{
  uint64_t n = r->nsegs;
  double len = (double)r->len_bytes, seg = e->s->proto.stream_segment_bytes;
  double piece = k + 1 < n ? seg : len - seg * (double)(n - 1);
  return (double)(long)((k == 0 ? e->header_bytes : 0.0) + piece);
}

/* The oldest of r's pieces on the wire leaves the ring, once through. */
static void eng_ring_retire(struct eng *e, struct eng_req *r)
{
  struct eng_xfer *x = r->flight[r->flight0];
  r->inflight_bytes -= r->flight_bytes[r->flight0];
  r->flight0 = (r->flight0 + 1) % ENG_REPLY_FLIGHT;
  r->nflight--;
  eng_xfer_wait(e, x);
}

/* The pieces already through leave the ring; then a piece of `bytes`
 * may go at once if the ring has room and the bytes on the wire with it
 * fit what the stream keeps in flight (eng_stream_flight_bytes: the
 * route's bandwidth-delay product and two pieces, within the TCP window;
 * one piece always may, as a TCP sender always has its window's first
 * segment). */
static int eng_ring_room(struct eng *e, struct eng_req *r, double bytes)
{
  while (r->nflight > 0 && eng_xfer_through(r->flight[r->flight0]))
    eng_ring_retire(e, r);
  double piece = e->s->proto.stream_segment_bytes + e->header_bytes; /* the largest, the first */
  return r->nflight < ENG_REPLY_FLIGHT &&
         (r->nflight == 0 || r->inflight_bytes + bytes <= eng_stream_flight_bytes(e, piece > bytes ? piece : bytes));
}

/* A piece of r's stream onto channel ch (up: client->NAS), in its ring. */
static void eng_ring_send(struct eng *e, struct eng_req *r, struct eng_chan *ch, struct eng_conn *c, int up,
                          double bytes)
{
  int i = (r->flight0 + r->nflight++) % ENG_REPLY_FLIGHT;
  r->flight_bytes[i] = bytes;
  r->inflight_bytes += bytes;
  r->flight[i] = eng_chan_send_async(e, ch, c, up, r, bytes);
}

/* A streamed write's data: its pieces pipelined on the connection as
 * one TCP stream's segments, as many on the wire as the TCP window holds
 * (the ring a streamed read reply uses, eng_ring_send), so a piece's
 * route latency overlaps the transfer of those before; the sender goes
 * on to its next request once the last is through. */
static void eng_wire_stream(struct eng *e, struct eng_conn *c, struct eng_req *r)
{
  for (uint64_t k = 0; k < r->nsegs; k++) {
    double size = eng_piece_bytes(e, r, k);
    while (!eng_ring_room(e, r, size))
      eng_ring_retire(e, r);
    eng_bond_wait(e, c, 1);
    eng_follow_route(c);
    eng_ring_send(e, r, &c->srv, c, 1, size);
  }
  while (r->nflight > 0)
    eng_ring_retire(e, r);
  r->flight0 = 0;
}

/* The client end of a connection's socket: ENG_SOCKET_POSTED senders take
 * the requests in order, each sending one at a time, matching the NAS
 * socket's posted receives. */
static void eng_wire_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_conn *c = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&c->wireq);
    struct eng *e = r->job->e;
    r->nsegs = r->write ? eng_stream_pieces(e, r) : 1;
    if (r->nsegs > 1) {
      eng_wire_stream(e, c, r);
      continue;
    }
    eng_bond_wait(e, c, 1);
    eng_follow_route(c);
    double size = e->header_bytes + (r->write ? (double)r->len_bytes : 0.0);
    eng_chan_send(e, &c->srv, c, 1, r, (double)(long)size);
  }
}

void eng_wire_start(struct eng *e, struct eng_conn *c)
{
  eng_queue_init(e, &c->wireq);
  for (int i = 0; i < ENG_SOCKET_POSTED; i++)
    eng_spawn("wire", c->host, eng_wire_main, c, 1);
}

/* Piece k of streamed reply r goes on the wire once the pieces before
 * it leave room in the TCP window: one TCP stream pipelines its segments,
 * so a piece's route latency overlaps the transfer of those before (two
 * pieces in flight held a stream to two pieces per route latency). */
static void eng_reply_piece(struct eng_job *j, int conn, struct eng_req *r)
{
  struct eng *e = j->e;
  uint64_t k = r->segs_sent++;
  double size = eng_piece_bytes(e, r, k);
  while (!eng_ring_room(e, r, size))
    eng_ring_retire(e, r);
  eng_ring_send(e, r, &j->reply[conn], &e->conns[j->conn0 + conn], 0, size);
}

/* A streamed reply: each piece goes on the wire once its process has
 * copied it (eng_reply_copied).  r belongs to the client after the last
 * piece. */
void eng_reply_stream(struct eng_job *j, int conn, struct eng_req *r)
{
  struct eng *e = j->e;
  uint64_t n = r->nsegs;
  sg_sem_t ready = r->seg_ready;
  struct eng_conn *c = &e->conns[j->conn0 + conn];
  while (r->segs_sent < n) {
    r->sender_waits = 1;
    sg_sem_acquire(ready);
    r->sender_waits = 0;
    if (r->segs_sent >= n)
      break; /* its process put the last pieces on the wire itself */
    eng_bond_wait(e, c, 0);
    eng_reply_piece(j, conn, r);
  }
  /* The last pieces are in the socket: the lane's next reply follows them
   * on the wire at once, as a TCP sender appends the next message's bytes
   * to its stream; waiting for them to be through left the link idle one
   * route latency per reply (a wire-bound stream capped below the link). */
  for (int k = 0; k < r->nflight; k++)
    eng_xfer_forget(e, r->flight[(r->flight0 + k) % ENG_REPLY_FLIGHT]);
  r->nflight = r->flight0 = 0;
  r->inflight_bytes = 0.0;
}

/* Its process has copied piece k of streamed reply r: the lane's reply
 * sender puts it on the wire; when the sender waits for just this piece
 * and it can go at once (room in the TCP window, the bond up), the process
 * puts it there itself rather than waking the sender (which it wakes
 * after the last, for the last waits). */
static void eng_reply_copied(struct eng *e, struct eng_req *r, uint64_t k)
{
  struct eng_job *j = r->job;
  int conn = r->conn;
  if (r->sender_waits && r->segs_sent == k && eng_ring_room(e, r, eng_piece_bytes(e, r, k)) &&
      eng_bond_open(e, &e->conns[j->conn0 + conn], 0)) {
    eng_reply_piece(j, conn, r);
    if (r->segs_sent < r->nsegs)
      return;
  }
  sg_sem_release(r->seg_ready);
}

/* ---- protocol daemons on the SoC ---------------------------------------- */

/* Hand a received request to its daemon. */
static void eng_deliver(struct eng *e, struct eng_conn *c, struct eng_req *r)
{
  if (r->parent) { /* a piece of a streamed write: its process may copy it */
    struct eng_req *w = r->parent;
    int first = r->first_piece;
    eng_req_free(e, r);
    if (first)
      eng_deliver(e, c, w);
    sg_sem_release(w->seg_ready);
    return;
  }
  eng_queue_push(c->deliver, r);
}

void eng_reply_ready(struct eng *e, struct eng_req *r)
{
  r->phase = 1;
  eng_deliver(e, &e->conns[r->job->conn0 + r->conn], r);
}

/* A piece of streamed write w has arrived: a record of its own carries
 * its share of the receive softirq to the daemon (eng_deliver). */
static struct eng_req *eng_piece(struct eng *e, struct eng_req *w)
{
  if (w->segs_got == 0) {
    eng_cycles(e, w);
    if (!w->seg_ready)
      w->seg_ready = eng_sem(e);
  }
  struct eng_req *p = eng_req_new(e);
  p->job = w->job;
  p->conn = w->conn;
  p->write = 1;
  p->parent = w;
  p->first_piece = w->segs_got++ == 0;
  p->softirq_cycles = w->softirq_cycles / (double)w->nsegs;
  return p;
}

/* The kernel side of a connection's socket: it receives the byte stream
 * whatever the daemon is doing, so a request's transfer overlaps the
 * daemon's work on the previous one (a SimGrid mailbox alone is a
 * rendezvous: the transfer would start only when the daemon asks).  Two
 * receives stay posted so back-to-back messages of one TCP stream do not
 * pay the route latency between them. */
static void eng_socket_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_conn *c = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_chan_recv(&c->srv);
    struct eng *e = r->job->e;
    double now = simgrid_get_clock();
    if (!e->net_only && r->segs_got == 0 && eng_counts_at(r->job, now))
      e->proto_requests++; /* a request (a streamed write: its first piece) in the window */
    if (r->write && r->nsegs > 1)
      r = eng_piece(e, r);
    else
      eng_cycles(e, r);
    if (e->softirq_single) {
      eng_queue_push(&e->softirqq, r); /* NIC interrupts all on one core */
    } else {
      eng_hold(c->softirq);
      eng_exec(e, c->softirq, r->softirq_cycles); /* spread: on this flow's core */
      eng_deliver(e, c, r);
      eng_release(e, c->softirq);
    }
  }
}

/* ksoftirqd on the irq core: receive processing of every NAS-bound packet
 * when the NIC interrupts are not spread (irq_core >= 0). */
static void eng_softirq_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng *e = sg_actor_self_get_data();
  for (;;) {
    struct eng_req *r = eng_queue_pop(&e->softirqq);
    eng_hold(e->softirq);
    eng_exec(e, e->softirq, r->softirq_cycles);
    eng_deliver(e, &e->conns[r->job->conn0 + r->conn], r);
    eng_release(e, e->softirq);
  }
}

/* The protocol daemons: one family of threads.  Each takes a request off
 * its queue, does its CPU work and hands the request on; what work and
 * which hand-off follow from the protocol's thread shape (proto.h):
 *
 * - a process per connection (smbd): the whole request's CPU work, serial
 *   on one core; writes land in the page cache without sleeping.  Reads:
 *   with aio (a read of at least Samba's 'aio read size') a helper pool
 *   does the pread(), so the process does not wait for the disks;
 *   without (proto_read_blocks), it sleeps in pread() whenever the
 *   data is not all in the page cache (a disk read, or a read-ahead still
 *   in flight), so the connection has at most one such read outstanding
 *   while its other requests wait in the socket.  A page-cache hit is a
 *   copy, already in the CPU cost.  The completion sends the reply.
 * - a pool thread (nfsd): it blocks on the file system until the storage
 *   is done, then replies, so the pool size bounds requests in service.
 * - a receive thread per session (iscsi_trx: commands and write data) that
 *   submits, and a transmit thread (iscsi_ttx: responses and read data).
 * - an iperf server thread per TCP connection: it receives (or sends) the
 *   stream and touches no storage, so only the network stack's per-byte
 *   and per-packet work runs on its core. */
enum eng_work { ENG_WORK_PROCESS, ENG_WORK_POOL, ENG_WORK_RX, ENG_WORK_TX, ENG_WORK_STREAM };

struct eng_daemon {
  struct eng *e;
  struct eng_thread *t;
  struct eng_queue *q;  /* where its requests wait */
  struct eng_conn *c;   /* its connection (NULL for a pool thread) */
  enum eng_work work;
  sg_sem_t wait;        /* where it sleeps on the storage, NULL until needed */
  struct eng_daemon *recent_prev, *recent_next; /* ENG_WORK_PROCESS: in e->proc_recent */
  int ran;              /* it has run a request (it is in e->proc_recent) */
};

/* Daemon processes that ran a request since d's last one (count): d's
 * depth in the engine's list of processes by their last run (the LRU
 * stack distance of its working set), after which d heads the list.  A
 * process that has not run yet finds every one that has ahead of it.
 * Each of them touched its own private lines in between, whether it
 * still has work or sleeps until its client's next request. */
static int eng_proc_ran_since(struct eng *e, struct eng_daemon *d)
{
  int depth = 0;
  if (d->ran) {
    for (const struct eng_daemon *p = e->proc_recent; p != d; p = p->recent_next)
      depth++;
    if (depth == 0)
      return 0;
    d->recent_prev->recent_next = d->recent_next; /* not the head: it has a predecessor */
    if (d->recent_next)
      d->recent_next->recent_prev = d->recent_prev;
  } else {
    depth = e->nproc_recent++;
    d->ran = 1;
  }
  d->recent_prev = NULL;
  d->recent_next = e->proc_recent;
  if (e->proc_recent)
    e->proc_recent->recent_prev = d;
  e->proc_recent = d;
  return depth;
}

/* Reference cycles the daemon executes for r. */
static double eng_daemon_cycles(struct eng_daemon *d, const struct eng_req *r)
{
  struct eng *e = d->e;
  switch (d->work) {
  case ENG_WORK_PROCESS: {
    /* Its private lines evicted by the processes that ran since it last
     * ran: the core stalls refilling them (cache thrashing). */
    int sharing = eng_proc_ran_since(e, d) + 1;
    double refill_s = soc_cache_refill_s(&e->s->soc, e->s->proto.daemon_working_set_bytes, sharing);
    return r->rx_cycles + r->tx_cycles + refill_s * d->t->speed;
  }
  case ENG_WORK_POOL:
    return r->rx_cycles + r->tx_cycles;
  case ENG_WORK_RX:
    return r->rx_cycles;
  case ENG_WORK_TX:
    return r->tx_cycles;
  case ENG_WORK_STREAM: {
    struct proto_cycles pc;
    proto_request_cost(&e->s->proto, r->write, (double)r->len_bytes, e->s->net.mtu_bytes,
                       (int)e->s->net.tcp_timestamps, &pc);
    return pc.byte_cycles + pc.tx_packet_cycles + pc.csum_cycles;
  }
  }
  return 0.0;
}

/* smbd writes a read's data into its socket: tcp_sendmsg copies it into
 * stream_segment pieces and pushes each to the NIC as it fills, so the
 * wire carries piece k while the process copies piece k + 1.  Each piece
 * goes on the wire once copied (eng_reply_copied); after the last r
 * belongs to the reply. */
static void eng_stream_reply(struct eng_daemon *d, struct eng_req *r)
{
  struct eng *e = d->e;
  uint64_t n = r->nsegs;
  double len = (double)r->len_bytes, seg = e->s->proto.stream_segment_bytes;
  double per_byte = len > 0.0 ? r->stream_cycles / len : 0.0;
  if (!r->seg_ready)
    r->seg_ready = eng_sem(e);
  eng_send_reply(e, r);
  for (uint64_t k = 0; k < n; k++) {
    double piece = k + 1 < n ? seg : len - seg * (double)(n - 1);
    eng_exec(e, d->t, per_byte * piece);
    eng_reply_copied(e, r, k);
  }
}

/* smbd reads a streamed write's data as it arrives: each piece its
 * receive softirq has handed up is copied before the next (the request's
 * parsing and submission follow the last piece). */
static void eng_stream_request(struct eng_daemon *d, struct eng_req *r)
{
  struct eng *e = d->e;
  uint64_t n = r->nsegs;
  double len = (double)r->len_bytes, seg = e->s->proto.stream_segment_bytes;
  double per_byte = len > 0.0 ? r->stream_cycles / len : 0.0;
  for (uint64_t k = 0; k < n; k++) {
    double piece = k + 1 < n ? seg : len - seg * (double)(n - 1);
    sg_sem_acquire(r->seg_ready);
    eng_exec(e, d->t, per_byte * piece);
  }
}

/* Hand r on once its CPU work is done. */
static void eng_daemon_handoff(struct eng_daemon *d, struct eng_req *r)
{
  struct eng *e = d->e;
  if (!eng_req_stores(r) && d->work != ENG_WORK_TX && d->work != ENG_WORK_STREAM) {
    /* no file system block below it (QUERY_INFO, CLOSE, ACCESS): answered at once */
    if (d->work == ENG_WORK_RX)
      eng_queue_push(&d->c->txq, r);
    else
      eng_send_reply(e, r);
    return;
  }
  switch (d->work) {
  case ENG_WORK_PROCESS: {
    /* A file operation (create, stat, delete) is a system call the
     * process waits in; a read blocks unless cached or asynchronous. */
    int blocks = r->meta != JOB_META_NONE || r->trim ||
                 (!r->write && proto_read_blocks(&e->s->proto, (double)r->len_bytes) &&
                  !stack_read_cached(e->stack, r->offset_bytes, r->len_bytes));
    if (blocks) {
      if (!d->wait)
        d->wait = eng_sem(e);
      r->waiter = d->wait;
    }
    eng_submit(e, r);
    if (blocks) {
      sg_sem_acquire(d->wait); /* a streamed reply is still this process's */
      if (r->nsegs > 1)
        eng_stream_reply(d, r);
    }
    break;
  }
  case ENG_WORK_POOL:
    r->waiter = d->wait;
    eng_submit(e, r);
    sg_sem_acquire(d->wait);
    eng_send_reply(e, r);
    break;
  case ENG_WORK_RX:
    eng_submit(e, r);
    break;
  case ENG_WORK_TX:
  case ENG_WORK_STREAM:
    eng_send_reply(e, r);
    break;
  }
}

/* The next entry of a process's queue once it has put a reply into its
 * socket: the oldest request received meanwhile, ahead of the reads
 * completed before it.  Samba's smbd_smb2_request_next_incoming(): with
 * its send queue empty, smbd reads the next PDU from the socket directly
 * (smbd_smb2_io_handler(xconn, TEVENT_FD_READ)) before it goes back to
 * the event loop, where the completed preads wait; so a READ is
 * dispatched, and its pread started, while the data of the others is
 * still to be copied.  NULL when none has arrived. */
static struct eng_req *eng_next_incoming(struct eng_queue *q)
{
  struct eng_req *prev = NULL, *r = q->head;
  while (r && r->phase)
    prev = r, r = r->next;
  if (!r)
    return NULL;
  sg_sem_acquire(q->sem); /* one per entry queued: never blocks */
  if (prev)
    prev->next = r->next;
  else
    q->head = r->next;
  if (q->tail == r)
    q->tail = prev;
  return r;
}

static void eng_daemon_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  struct eng_daemon *d = sg_actor_self_get_data();
  int replied = 0;
  for (;;) {
    struct eng_req *r = replied ? eng_next_incoming(d->q) : NULL;
    if (!r)
      r = eng_queue_pop(d->q);
    replied = r->phase;
    if (r->phase) { /* a streamed reply whose data the storage has ready */
      eng_hold(d->t);
      eng_stream_reply(d, r);
      eng_release(d->e, d->t);
      continue;
    }
    eng_hold(d->t);
    if (r->write && r->nsegs > 1 && d->work != ENG_WORK_TX) /* the receiving thread's */
      eng_stream_request(d, r);
    double close_wb = d->work == ENG_WORK_TX || d->work == ENG_WORK_STREAM ? 0.0 : eng_close_writeback(d->e, r);
    eng_exec(d->e, d->t, eng_daemon_cycles(d, r) + close_wb);
    eng_daemon_handoff(d, r);
    eng_release(d->e, d->t);
  }
}

/* Start a daemon thread accounted as `name` (`who`) serving queue q. */
static int eng_daemon_start(struct eng *e, const char *actor, const char *name, const char *who,
                            enum eng_work work, struct eng_queue *q, struct eng_conn *c, double speed)
{
  struct eng_daemon *d = eng_own(e, sizeof *d);
  if (!d)
    return -1;
  d->e = e;
  d->work = work;
  d->q = q;
  d->c = c;
  d->t = eng_thread_new(e, name, who, speed);
  if (!d->t)
    return -1;
  if (work == ENG_WORK_POOL)
    d->wait = eng_sem(e);
  eng_spawn(actor, eng_nas_host(e), eng_daemon_main, d, 1);
  return 0;
}

/* The daemon threads serving connection c: an iperf server, a process,
 * or a receive and a transmit thread (a pool serves every connection).
 * 0, or -1 out of memory. */
static int eng_conn_daemons(struct eng *e, struct eng_conn *c, double speed)
{
  const struct proto_ops *ops = e->ops;
  int cl = c->pc->client, k = c->pc->index;
  char name[96], who[96];
  if (e->net_only) {
    snprintf(name, sizeof name, "soc.iperf.c%d.%d", cl, k);
    snprintf(who, sizeof who, "iperf server thread for client %d", cl);
    return eng_daemon_start(e, "iperf", name, who, ENG_WORK_STREAM, &c->rxq, c, speed);
  }
  if (ops->shape == PROTO_SHAPE_PROCESS) {
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d%s", ops->daemon_who, cl,
             e->map.conns_per_client > 1 ? " (one channel)" : "");
    return eng_daemon_start(e, ops->daemon, name, who, ENG_WORK_PROCESS, &c->rxq, c, speed);
  }
  if (ops->shape == PROTO_SHAPE_RXTX) {
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d session %d", ops->daemon_who, cl, k);
    if (eng_daemon_start(e, ops->daemon, name, who, ENG_WORK_RX, &c->rxq, c, speed) < 0)
      return -1;
    snprintf(name, sizeof name, "soc.%s.c%d.%d", ops->tx_daemon, cl, k);
    snprintf(who, sizeof who, "%s for client %d session %d", ops->tx_daemon, cl, k);
    return eng_daemon_start(e, ops->tx_daemon, name, who, ENG_WORK_TX, &c->txq, c, speed);
  }
  return 0;
}

/* The client page caches, the connections and every daemon thread. */
int eng_setup_daemons(struct eng *e, struct nw_err *err)
{
  const struct scenario *s = e->s;
  int local = e->local;
  double speed = local ? PLAT_CLIENT_SPEED : e->map.nas_speed_cycles_per_s;
  int nconns = local ? 0 : e->map.nconns;
  e->conns = calloc((size_t)(nconns > 0 ? nconns : 1), sizeof *e->conns);
  if (!e->conns)
    return nw_fail(err, e->s->path, 0, 0, "out of memory");
  char name[96], who[96];
  e->clients = calloc((size_t)s->nclients, sizeof *e->clients);
  if (!e->clients)
    return nw_fail(err, e->s->path, 0, 0, "out of memory");
  if (!local && eng_client_cached(s, e->ops)) {
    double chunk = 0.0;
    proto_split(&s->proto, 1, 1e15, &chunk);
    chunk = chunk > 4096 ? chunk : 1048576.0;
    int lazy = s->client.lazy_write_share > 0.0;
    if (lazy && s->client.writebehind_bytes < chunk) /* the lazy writer's own write size */
      chunk = s->client.writebehind_bytes;
    for (int c = 0; c < s->nclients; c++) {
      struct eng_client *cl = &e->clients[c];
      cl->cache = pcache_create((uint64_t)s->client.ram_bytes, 4096);
      if (!cl->cache)
        return nw_fail(err, e->s->path, 0, 0, "out of memory");
      accel_init(&cl->bus, "client.memory", s->client.copy_bytes_per_s, 0.0);
      cl->dirty_limit_bytes = (uint64_t)(s->client.ram_bytes * s->client.dirty_ratio);
      cl->dirty_bg_bytes = (uint64_t)(s->client.ram_bytes * s->client.dirty_background_ratio);
      cl->flush_chunk_bytes = (uint64_t)chunk;
      cl->wb_window = lazy ? (int)s->client.writebehind_requests : 0;
    }
  }
  if (!local && eng_net_setup(e) < 0)
    return nw_fail(err, e->s->path, 0, 0, "out of memory");
  eng_queue_init(e, &e->poolq);
  eng_queue_init(e, &e->softirqq);
  e->softirq_single = !local && s->soc.irq_core >= 0;
  if (e->softirq_single) {
    snprintf(name, sizeof name, "soc.ksoftirqd%d", (int)s->soc.irq_core);
    e->softirq = eng_thread_new(e, name, "NIC receive processing (all interrupts on one core)", speed);
    if (!e->softirq)
      return nw_fail(err, e->s->path, 0, 0, "out of memory");
    e->softirq->softirq = 1;
    eng_spawn("ksoftirqd", eng_nas_host(e), eng_softirq_main, e, 1);
  }
  if (e->ops->shape == PROTO_SHAPE_POOL && !e->net_only) {
    int nt = e->ops->pool_threads(&s->proto);
    for (int i = 0; i < nt; i++) {
      char actor[32];
      snprintf(name, sizeof name, "soc.%s%d", e->ops->daemon, i);
      snprintf(actor, sizeof actor, "%s%d", e->ops->daemon, i);
      if (eng_daemon_start(e, actor, name, e->ops->daemon_who, ENG_WORK_POOL, &e->poolq, NULL, speed) < 0)
        return nw_fail(err, e->s->path, 0, 0, "out of memory");
    }
  }
  for (int i = 0; i < nconns; i++) {
    struct eng_conn *c = &e->conns[i];
    c->pc = &e->map.conns[i];
    c->host = sg_host_by_name(c->pc->host);
    c->route = -1;
    for (int m = 0; m < e->map.nas_ports && m < PLAT_MAX_BOND; m++)
      if (e->map.failover & (1u << m)) {
        snprintf(name, sizeof name, "%sx%d", c->pc->host, m);
        c->alt_host[m] = sg_host_by_name(name);
      }
    eng_chan_init(e, &c->srv);
    eng_queue_init(e, &c->txq);
    eng_queue_init(e, &c->rxq);
    eng_queue_init(e, &c->cacheq);
    if (!e->softirq_single) {
      snprintf(name, sizeof name, "soc.softirq.c%d.%d", c->pc->client, c->pc->index);
      snprintf(who, sizeof who, "receive processing of client %d's flow", c->pc->client);
      c->softirq = eng_thread_new(e, name, who, speed);
      if (!c->softirq)
        return nw_fail(err, e->s->path, 0, 0, "out of memory");
      c->softirq->softirq = 1;
    }
    if (e->clients[c->pc->client].cache)
      eng_spawn("client-cache", c->host, eng_client_copy_main, c, 1);
    c->deliver = e->ops->shape == PROTO_SHAPE_POOL && !e->net_only ? &e->poolq : &c->rxq;
    eng_spawn("socket", eng_nas_host(e), eng_socket_main, c, 1);
    eng_wire_start(e, c);
    if (eng_conn_daemons(e, c, speed) < 0)
      return nw_fail(err, e->s->path, 0, 0, "out of memory");
  }

  return 0;
}
