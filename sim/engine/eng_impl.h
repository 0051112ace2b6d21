/* eng_impl.h - the engine's private records and the helpers its files
 * share (engine.c: accounting, queues, storage hooks, client jobs, faults;
 * client_cache.c: the client's page cache; daemon.c: the network receive
 * path and the protocol daemons; chan.c: the sockets' byte streams on the
 * flow model (flow.h); run.c: setting up a run and collecting its
 * results).  Only sim/engine/ uses it: it includes SimGrid. */
#ifndef NASTWIN_ENG_IMPL_H
#define NASTWIN_ENG_IMPL_H

#include <gsl/gsl_rng.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "models/net/mpio.h"
#include "sim/analysis/stats.h"
#include "sim/config/workgen.h"
#include "sim/engine/engine.h"
#include "sim/engine/lat_target.h"
#include "sim/engine/platform.h"

struct eng;
struct eng_job;
struct flow_net;
struct eng_daemon;

/* Distinct NAS code paths tracked by the kernel-path stall (daemon, softirq,
 * flusher, block layer, md, ...: a handful in practice). */
#define ENG_MAX_PATHS 64

/* A CPU thread of the SoC (or of a client in local mode): accounting only. */
struct eng_thread {
  char name[96];
  char who[96];
  double cycles; /* reference cycles executed inside the window */
  double speed;  /* host speed (cycles/s) */
  int softirq;   /* interrupt context: runs ahead of processes on its core */
  int holding;   /* 1 while it holds a request (or a kernel work item) */
  double hold_since_s;
  double occupied_s; /* time inside the window holding one (s) */
  uint64_t last_item; /* e->items after its path's last execution (0: never ran) */
  struct eng_thread *path; /* the first thread of its path (same name stem), NULL: itself */
  int in_paths;       /* a path listed in eng.paths */
  int path_known;     /* path has been looked up */
};

/* A streamed reply's pieces on the wire at once: as many as the
 * connection's socket has posted receives (ENG_SOCKET_POSTED, below). */
#define ENG_REPLY_FLIGHT 32
struct eng_req {
  struct eng_job *job;
  int conn;          /* index into the job's connections */
  int write;
  uint64_t offset_bytes, len_bytes;
  double t_issue_s;
  int opens;        /* files opened (and closed) before this I/O: file copies; the file
                       system's work (cycles_per_open) of the request carrying it */
  enum proto_fop fop; /* the file operation it is, or that its data follow (workgen_io.fop) */
  int fop_reqs;       /* ... the protocol requests it goes as, one after another (engine.c
                         eng_fop_next), before its data if it has any */
  int fop_sent;       /* ... those sent so far */
  int fop_part;       /* one of those requests (app: its I/O): no data; the file system's
                         work only with the first, else answered by the daemon at once */
  int close_writeback; /* the first request of a written file's close where the server's
                          file system then starts the file's write-back (submit.c
                          eng_close_writeback) */
  int close_sync;     /* the last request of a written file's close that the server answers
                         once the file is fsynced (an NFSv3 COMMIT; submit.c eng_submit) */
  int no_wire;        /* a file operation of no request (an NFS close after reads): the
                         client answers it itself */
  enum job_meta meta; /* a metadata operation (no data on the wire): submit.c */
  int trim;           /* a trim: no data on the wire (submit.c: a discard, or a hole punch) */
  uint64_t range_bytes; /* a trim or fallocate: the bytes it covers (len_bytes 0) */
  double rx_cycles, tx_cycles; /* daemon CPU per direction, set by eng_cycles */
  double softirq_cycles;       /* receive packet processing, set by eng_cycles */
  uint64_t nsegs;              /* pieces its reply streams in (1: one message), set by eng_cycles */
  uint64_t segs_got;           /* pieces the receiving end has taken */
  struct eng_req *parent;      /* a piece of a streamed write: its request, else NULL */
  int first_piece;             /* that piece is the request's first */
  double stream_cycles;        /* the daemon's copy of the streamed reply data (in tx_cycles
                                  otherwise) */
  int phase;                   /* 0: a received request; 1: its data ready to stream back */
  struct eng_xfer *flight[ENG_REPLY_FLIGHT]; /* a streamed reply or write: its pieces on the wire, a
                                                 ring from flight0, oldest first (daemon.c) */
  double flight_bytes[ENG_REPLY_FLIGHT];       /* ... each piece's bytes */
  double inflight_bytes;                       /* ... their sum, bounded by the TCP window */
  int flight0, nflight;
  uint64_t segs_sent;          /* its pieces put on the wire */
  int sender_waits;            /* its lane's reply sender waits on seg_ready for the next */
  sg_sem_t seg_ready;          /* one release per piece the daemon has copied (kept when the
                                  record is reused) */
  struct eng_req *app; /* the application I/O this protocol request carries a part of
                          (the client split it: NFS rsize/wsize, SMB max I/O; or one of
                          its file operation's requests, fop_part), else NULL */
  int rpcs_left;       /* an application I/O split into requests: those not yet answered */
  int nrpcs;           /* ... the requests it went as (0: not split) */
  int slot;            /* it holds one of its connection's request slots (clients.rpc_slots) */
  int absorbed;      /* a buffered write taken by the client's page cache, or a read it
                        serves (client_cache.c eng_client_fetch) */
  int fetch;         /* the client OS's READ into its page cache, not a client I/O: of a
                        read-ahead unit (ENG_FETCH_UNITS, client_cache.c eng_readahead) or
                        of a run of pages (ENG_FETCH_PAGES, client_pages.c); 0: neither */
  int flush;         /* the client's own request, not a client I/O (timed with the work):
                        a write-back of its dirty data, or the close of a pass that
                        follows it (eng_job.close_req) */
  int rec;           /* replay: the trace record, else -1 */
  int error;         /* the storage ended it with an I/O error (failed volume) */
  int first_round;   /* one of its job's first `depth` I/Os, issued while the window waits */
  sg_sem_t waiter;   /* the daemon blocked until the storage is done (nfsd; smbd in
                        pread() without aio), NULL if none */
  struct eng_req *next;
};

/* One direction of a connection's socket on the flow model (chan.c): the
 * receiver's ENG_SOCKET_POSTED posted receives (each free, carrying a
 * message, or holding one arrived), the messages waiting for one, and
 * the receiver's wake-up.  Up to ENG_SOCKET_POSTED messages of one TCP
 * stream are on the wire at once while their bytes (in flight plus
 * arrived and not yet read) fit the TCP window, as a TCP sender pipelines
 * its segments: a stream's message rate is not bounded by its route
 * latency (two posted receives capped a connection's 48 B iSCSI commands
 * at 2 per one-way latency, 80k/s at 25 us); as many client senders. */
#define ENG_SOCKET_POSTED ENG_REPLY_FLIGHT
struct eng_xfer;
struct eng_chan {
  struct eng_net *net;
  int slot[ENG_SOCKET_POSTED];            /* 0 posted and free, 1 a message on the wire, 2 arrived */
  void *arrived[ENG_SOCKET_POSTED];       /* the arrived messages' payloads */
  double held[ENG_SOCKET_POSTED];         /* bytes of the message holding each receive */
  uint64_t seq[ENG_SOCKET_POSTED], next_seq; /* start order of the messages holding them */
  double held_bytes;                      /* sent and not yet taken: TCP's bytes in flight + unread */
  int posted[ENG_SOCKET_POSTED], posted0, nposted; /* the free receives, a ring from posted0, oldest first */
  struct eng_xfer *wait_head, *wait_tail; /* messages waiting for a receive */
  int blocked;                            /* the receiver waits for an arrival */
  int woke;                               /* the receive whose arrival woke it */
  sg_sem_t sem;
  sg_actor_t receiver;                    /* its receiving actor (set at its first receive) */
  /* NULL, or 1 when a message arriving while the receiver waits is one it
   * would only take and wait again for (a streamed reply's pieces before
   * the last): taken for it then, without waking it. */
  int (*pass)(void *payload);
};

/* A FIFO of requests plus a semaphore: hand-offs between actors. */
struct eng_queue {
  struct eng_req *head, *tail;
  sg_sem_t sem;
};

struct eng_conn {
  const struct plat_conn *pc;
  sg_host_t host;
  struct eng_chan srv;          /* client->NAS: where the NAS socket receives */
  struct eng_queue txq;         /* PROTO_SHAPE_RXTX: completions waiting for the tx thread */
  struct eng_queue rxq;         /* requests received on this connection's socket */
  struct eng_queue *deliver;    /* where the socket hands requests: rxq, or the pool's */
  struct eng_queue cacheq;      /* writes absorbed by the client cache, being copied */
  struct eng_queue wireq;       /* requests waiting for a sender of the client socket */
  struct eng_req *slot_head, *slot_tail; /* requests waiting for a slot (clients.rpc_slots) */
  int slots_used;               /* requests sent and not yet answered, holding a slot */
  struct eng_thread *softirq;   /* receive processing of this flow (irq spread) */
  double bytes_up, bytes_down;  /* payload carried in the window */
  int route;                    /* LACP: -1 as hashed, M: rehashed without member M */
  sg_host_t alt_host[PLAT_MAX_BOND]; /* client end while rehashed without member M */
  double alt_up[PLAT_MAX_BOND], alt_down[PLAT_MAX_BOND]; /* payload carried while rehashed */
};

/* The open file's pages the client OS reads ahead in units of the
 * protocol's read (Linux NFS: nfs_readpages in rsize READs), counted
 * from the file's start (client_cache.c eng_client_fetch): units below lo are
 * in the page cache, those in [lo, next) are requested (each's flag in
 * done: in), [next, ahead) still to be requested.  The reads waiting for
 * a unit, in order. */
struct eng_ra {
  uint64_t unit_bytes;
  uint64_t file_start, file_end; /* the file's bytes on the volume */
  uint64_t lo, next, ahead;      /* unit indices */
  uint64_t pos;                  /* the first unit of the reader's last read */
  unsigned char *done;           /* ring of cap flags, by unit index mod cap */
  uint64_t cap;
  int fresh;                     /* the file was opened again: its pages go at the next read
                                    that finds none requested */
  struct eng_req *wait_head, *wait_tail;
};

/* The open file's pages in the client's page cache, one bit each
 * (client_pages.c: the Linux client's reads that are not a sequential
 * stream), and its read-ahead state (struct file_ra_state, in pages). */
struct eng_pgc {
  uint64_t file_start, file_end; /* the file's bytes on the volume */
  uint64_t npages;
  uint64_t *present;  /* in the cache, up to date or its READ in flight (owns the 3 maps) */
  uint64_t *uptodate; /* its READ answered */
  uint64_t *marker;   /* PG_readahead: reaching it starts the next window */
  uint64_t words;     /* 64-bit words per map */
  uint64_t ra_start, ra_size, ra_async; /* the last read-ahead window and its async part */
  uint64_t prev_page;                   /* the last page of the reader's last read (-1: none) */
  uint64_t rsize_pages, max_pages;      /* pages per READ; the window's limit (ra_pages) */
  uint64_t run_lo, run_pages;           /* the missing pages being grouped into one READ */
  uint64_t inflight;                    /* its READs not yet answered */
  int fresh;                            /* the file was opened again: its pages go at the next
                                           read that finds no READ in flight */
  struct eng_req *send_head, *send_tail; /* READs to send (eng_pgc_send) */
  struct eng_req *wait_head, *wait_tail; /* reads waiting for their pages */
};

struct eng_job {
  struct eng *e;
  const struct job *spec;
  int client, copy, id;
  gsl_rng *rng;
  double region_start, region_bytes;
  struct workgen gen;       /* the job's I/O stream */
  int depth;                /* effective outstanding limit */
  struct lat_target lat;    /* fio latency_target: the depth it searches, below depth */
  int outstanding;
  uint64_t issued, completed;
  int nconns;
  int conn0;                /* first connection (global index) of the client */
  struct eng_chan reply[PLAT_MAX_CONNS > 16 ? 16 : PLAT_MAX_CONNS]; /* NAS->client, per lane */
  struct eng_queue sendq[16]; /* requests another lane must send */
  struct eng_queue replyq[16]; /* replies waiting for the lane's reply sender */
  int reply_busy[16];         /* the lane's reply sender has a reply (engine.c) */
  struct mpio *mpio;
  int rr;
  struct eng_queue localq;  /* local mode: completions */
  sg_sem_t done;
  int finished;
  double t_end;
  uint64_t file_reads;      /* data reads issued on the open file (its handle's history) */
  struct eng_queue toolq;   /* a file copy's chunks answered, the copy tool working on them */
  int pending_timer;        /* thinktime / open loop: issues owed */
  sg_sem_t timer_sem;
  sg_sem_t gate;            /* measured jobs wait here while prep jobs run */
  /* A close of its file where the client OS flushes on close
   * (clients.flush_on_close, client_cache.c eng_close_step): it waits until the
   * file's I/Os are answered and the write-back is done, then goes. */
  struct eng_req *close_req;  /* the close waiting or sent, else NULL */
  int close_sent;             /* ... its requests are on their way */
  struct eng_req *close_next; /* the next pass's first I/O, sent once the close is answered */
  int file_open;              /* a pass over its file is open (its first I/O sent) */
  int opening;                /* a data I/O's file open is on the wire: the application is in
                                 open() and issues nothing else until it returns */
  int wb_outstanding;         /* its write-back requests in flight (eng_writeback) */
  struct eng_ra ra;           /* the open file's pages read ahead in protocol-read units */
  struct eng_pgc pgc;         /* ... a page at a time, for reads that are no stream */
};

/* A client's page cache for buffered writes (client_cache.c: write-back
 * eng_writeback; the writers' limit eng_client_absorb). */
struct eng_client {
  struct pcache *cache; /* NULL: no client cache */
  struct accel bus;     /* the client's memory copies */
  uint64_t dirty_limit_bytes; /* dirty + under write-back past which a writer waits */
  uint64_t dirty_bg_bytes;    /* dirty past which it writes back in the background; 0: never */
  uint64_t writeback_bytes;   /* taken from the dirty pages, their WRITE not yet answered */
  uint64_t flush_chunk_bytes; /* largest write request of the protocol */
  struct eng_req *wait_head, *wait_tail; /* buffered writes waiting for the limit, in order */
  /* the lazy writer (clients.lazy_write_share > 0; eng_lazy_main) */
  int wb_window;               /* write-back requests in flight from one job */
  uint64_t dirtied_bytes;      /* taken into the cache since the lazy writer's last scan */
  uint64_t lazy_quota_bytes;   /* queued for write-behind by its last scan, not yet sent */
  int lazy_scans;              /* its scans so far */
};

struct eng_kthread {
  struct eng *e;
  enum stack_thread kind;
  struct eng_thread acct;
  struct eng_kwork { double cycles; uint64_t token; struct eng_kwork *next; } *head, *tail;
  struct eng_kwork *free_work; /* done items, reused (one per disk request's CPU cost) */
  int blocked; /* it waits on sem, nothing queued (released only then: a SimGrid
                  acquire yields even when it need not wait) */
  sg_sem_t sem;
};

/* The cumulative counters the window's utilisation and power are taken
 * from, read at one instant (window.c). */
struct eng_meter {
  double at_s;
  double soc_J, dev_J;                /* SoC and every drive's energy so far (J) */
  double parity_s, crypto_s, mem_s;   /* the SoC engines' busy time so far (s) */
  double *dev_busy_s;                 /* each disk's, then each cache device's busy time (s) */
};

struct eng {
  const struct scenario *s;
  const struct workload_step *step;
  struct plat_map map;
  struct eng_net *net;      /* the client<->NAS transfers (chan.c), NULL in local mode */
  struct eng_cpu *cpu;      /* the NAS cores (engine.c on cpu.h) */
  const struct proto_ops *ops; /* the protocol: framing, costs, daemon shape */
  int local;                /* no server: a drive inside the client (PROTO_SHAPE_NONE) */
  sg_host_t *nas_hosts;     /* where daemons and the storage run: map.nas_hosts of them */
  int nas_next;             /* the one the next NAS-side actor runs on (eng_nas_host) */
  struct stack *stack;
  struct disk **disks, **cache;
  struct accel parity, crypto, mem_bus;
  sg_sem_t storage_wake;
  double storage_deadline;
  struct eng_kthread kthreads[STACK_THREAD_COUNT];
  struct eng_conn *conns;
  struct eng_client *clients;
  struct eng_job *jobs;
  int njobs;
  struct eng_thread *threads[4096];
  int nthreads;
  struct eng_queue poolq;   /* requests waiting for a thread of the pool (PROTO_SHAPE_POOL) */
  int softirq_single;       /* NIC interrupts on one core (soc.irq_core >= 0) */
  struct eng_queue softirqq;
  struct eng_thread *softirq; /* ksoftirqd on the irq core */
  struct eng_daemon *proc_recent; /* daemon processes (PROTO_SHAPE_PROCESS) that have run a
                                     request, the most recent first (daemon.c: the working-set refill) */
  int nproc_recent;
  uint64_t items;           /* NAS work items executed so far (the kernel-path stall) */
  struct eng_thread *paths[ENG_MAX_PATHS]; /* the paths that have run (kernel-path stall) */
  int npaths;
  /* soc_kernel_stall_s of k other paths (k <= ENG_MAX_PATHS: a path left out of a full
   * list sees them all), once known: a pure function of k (engine.c eng_path_stall_s). */
  double stall_s[ENG_MAX_PATHS + 1];
  unsigned char stall_known[ENG_MAX_PATHS + 1];
  struct stats_hist *h_read, *h_write, *h_trim, *h_all;
  struct iface_link *links[2]; /* shared upstream links of the disks and the cache devices */
  double *replay_lat;       /* replay jobs: each request's response time (s) */
  int nreplay_lat, replay_cap;
  double bytes_read, bytes_write, bytes_trim;
  uint64_t ios_read, ios_write, ios_trim;
  uint64_t proto_requests;  /* protocol requests the NAS received in the window (daemon.c) */
  uint64_t err_read, err_write, err_trim; /* I/Os ended with an error in the window */
  double ramp_s, t_end_s, last_done_s;
  /* Warm-up (run.c): a time-based closed loop measures from the moment
   * every I/O of the jobs' first round has completed (not before the
   * step's ramp) for the step's length; until then ramp_s and t_end_s
   * are unreachable and the jobs issue without a time limit. */
  int warm_pending;
  int size_based;           /* a measured job runs to a size: the window ends at the last completion */
  int timer_started;        /* a measured job whose tool opens its file untimed (job open_untimed)
                               has sent its first data: the window opened then */
  int throttle_pending;     /* a sized buffered write through a lazy writer's cache: the window
                               (warm_pending) opens when a writer first waits at the dirty
                               threshold (client_cache.c eng_client_absorb, run.c
                               eng_window_throttled): the steady copy, not the cache's fill */
  int throttle_window;      /* ... it opened: it closes at the measured jobs' last client I/O
                               (window.c eng_window_last), the lazy writer's drain after it
                               outside */
  int warm_left;            /* first-round I/Os still in flight */
  double warm_ramp_s;       /* the step's own ramp */
  double resid_s;           /* client I/O time inside the window: Little's L x window */
  int little_n;             /* client I/Os outstanding (run.c eng_little_step) */
  double little_t, little_area; /* its last change, its integral over the window (I/O x s) */
  int win_seen;             /* an I/O completed in the window: dirty_first is set */
  double dirty_first, dirty_last; /* dirty page-cache bytes at the window's first and last completion */
  struct stats_series win_ios[3], win_lat[3]; /* in-window completions and their latency sum per bin */
  struct stats_series series;
  struct stats_series fio_samples[6]; /* bytes and I/Os of reads, writes, trims per RES_SAMPLE_S */
  struct eng_req *free_reqs;
  int op_running;
  double header_bytes;
  double bond_moves_at[PLAT_MAX_BOND]; /* LACP: member M dead, its frames lost until the bond
                                          rehashes at this time (0: member alive or moved) */
  struct eng_meter win[2];  /* the meters at the window's start and end (window.c) */
  int nwin;                 /* meters taken: 0, 1 (the start), 2 (the end too) */
  int stop_at_end;          /* a time-based step: the run stops at the window's end */
  int stopped;              /* it did: the I/Os outstanding then are abandoned */
  sg_sem_t window_sem;      /* released when the window may have been placed */
  int net_only; /* iperf step: raw TCP streams, the NAS discards the data */
  int nprep;    /* prep job copies still running (IOZone lays out its file first) */
  sg_sem_t *sems; /* every semaphore, destroyed with the engine */
  int nsems, capsems;
  void **owned; /* small per-actor records, freed with the engine */
  int nowned, capowned;
};

/* One connection of one job copy: its client actors. */
struct eng_lane {
  struct eng_job *job;
  int conn;
};

/* calloc a record that lives as long as the engine (NULL out of memory). */
void *eng_own(struct eng *e, size_t size);
/* A CPU thread accounted in the results (NULL out of memory). */
struct eng_thread *eng_thread_new(struct eng *e, const char *name, const char *who, double speed);
/* The NAS cores (engine.c): the processor-sharing model and its
 * scheduler actor (0, or -1 out of memory), its release, the SoC's energy
 * so far (J); cycles at priority on them from now_s (the clock), the
 * calling actor blocked until they are done: the clock then (s). */
int eng_cpu_setup(struct eng *e);
void eng_cpu_destroy(struct eng *e);
double eng_cpu_energy_J(const struct eng *e, double now_s);
double eng_cpu_run(struct eng *e, double now_s, double cycles, double priority);
/* Execute cycles on the NAS cores (the calling actor is on e->nas),
 * accounting them to t. */
void eng_exec(struct eng *e, struct eng_thread *t, double cycles);
/* Occupancy: t takes a request (eng_hold) and hands it on (eng_release). */
void eng_hold(struct eng_thread *t);
void eng_release(const struct eng *e, struct eng_thread *t);
/* t's occupancy at the end of the run (s). */
double eng_occupied_s(const struct eng *e, const struct eng_thread *t, double now_s);
/* The instant t is inside the measured window (0 while prep jobs run). */
int eng_window_at(const struct eng *e, double t);
/* Time of [from, to] inside the measured window (s); 0 while prep jobs run. */
double eng_in_window_s(const struct eng *e, double from_s, double to_s);
/* A semaphore destroyed with the engine. */
sg_sem_t eng_sem(struct eng *e);
/* A singly linked FIFO of requests by its head and tail pointers. */
void eng_req_append(struct eng_req **head, struct eng_req **tail, struct eng_req *r);
struct eng_req *eng_req_take(struct eng_req **head, struct eng_req **tail);
void eng_queue_init(struct eng *e, struct eng_queue *q);
void eng_queue_push(struct eng_queue *q, struct eng_req *r);
struct eng_req *eng_queue_pop(struct eng_queue *q);
/* Start an actor on host with data; daemon 1: it does not keep the run alive. */
sg_actor_t eng_spawn(const char *name, sg_host_t host, void (*code)(int, char **), void *data, int daemon);
/* The host of the next NAS-side actor: round the NAS hosts (platform.h). */
sg_host_t eng_nas_host(struct eng *e);

/* A fluid model's scheduler actor (cpu.c's cores, flow.c's links): it
 * lets the model end what is due at each instant (advance) and sleeps
 * until the model's next end (next_s), or until eng_sched_poke says a new
 * activity ends sooner. */
struct eng_sched {
  void *model;
  int (*advance)(void *model, double now_s, void *ctx); /* < 0: out of memory */
  double (*next_s)(const void *model);
  /* NULL, or 1 when the model's next end has a timer of its own (its
   * actor sleeps until then and ends what is due itself, cores.c): the
   * scheduler need not wake for it. */
  int (*covered)(const void *model);
  void *ctx;
  sg_sem_t wake;
  double deadline; /* the scheduler sleeps until then (-1: it is running) */
};
/* Start s's actor named name on host (a daemon actor). */
void eng_sched_start(struct eng *e, struct eng_sched *s, const char *name, sg_host_t host);
/* After the model gained an activity or ended some: wake the scheduler if
 * the next end is sooner than it sleeps for and has no timer of its own. */
void eng_sched_poke(struct eng_sched *s);

/* Storage: submit a request (submit.c), reply to its client, the stack's hooks. */
void eng_submit(struct eng *e, struct eng_req *r);
/* Wake the storage event source if the stack now has an earlier event. */
void eng_wake_storage(struct eng *e);
/* A job's writes are stable before they complete; its I/O bypasses the
 * NAS page cache (submit.c). */
int eng_job_sync(const struct eng *e, const struct job *spec);
int eng_job_direct(const struct eng *e, const struct job *spec);
/* The I/Os job j may have outstanding now: its window and the client's
 * read-ahead (submit.c). */
int eng_job_window(const struct eng_job *j);
/* The protocol requests application I/O r goes as (submit.c): its count
 * (1: not split) and, in *chunk_bytes, the size of each but the last. */
uint64_t eng_rpc_split(const struct eng *e, const struct eng_req *r, double *chunk_bytes);
/* The protocol requests file operation r->fop goes as (submit.c): the
 * protocol's count for it, or the copy tool's (clients.copy_*_requests);
 * a data I/O that opens its file adds the close of its last pass unless
 * the client OS closes each pass itself (clients.flush_on_close). */
int eng_fop_requests(const struct eng *e, const struct eng_req *r);
double eng_close_writeback(struct eng *e, const struct eng_req *r);
/* 1 when request r goes into the storage stack once its daemon has done
 * its CPU work; 0 when it has no file system block (a file operation's
 * request other than a metadata operation's first: QUERY_INFO, CLOSE,
 * ACCESS, or the open of a file whose data follow): the daemon answers it
 * at once (submit.c). */
int eng_req_stores(const struct eng_req *r);
/* Put protocol request r in its connection's socket once the client's
 * transport has a slot for it; free r's slot when its reply is in
 * (submit.c). */
void eng_wire_push(struct eng *e, struct eng_conn *c, struct eng_req *r);
void eng_slot_free(struct eng *e, struct eng_conn *c, struct eng_req *r);
/* The client's page cache (client_cache.c).  What it does with write r:
 * leaves it to the wire (NONE), takes it (TAKEN: its memory copy
 * follows), or holds it while the dirty limit is reached (WAITS: it goes
 * into the cache once the write-back made room). */
enum eng_absorb { ENG_ABSORB_NONE, ENG_ABSORB_TAKEN, ENG_ABSORB_WAITS };
enum eng_absorb eng_client_absorb(struct eng_job *j, struct eng_req *r);
/* What it does with read r of job j: leaves it to the wire (NONE: no
 * read-ahead in protocol-read units, or r is as large as a unit), serves
 * it (TAKEN: the units covering it are in, its memory copy follows) or
 * holds it until they are (WAITS: eng_fetched gives it its copy). */
enum eng_absorb eng_client_fetch(struct eng_job *j, struct eng_req *r);
/* A file of job j opens again: its read-ahead pages go. */
void eng_client_reopen(struct eng_job *j);
/* The client OS's READs of the read-ahead units due on j's open file, and
 * one of them, f, answered (from the actor of lane `self`). */
void eng_readahead(struct eng_job *j, int self);
void eng_fetched(struct eng_job *j, struct eng_req *f);
/* The page cache a page at a time (client_pages.c): whether job j reads
 * through it, read r of j through it (as eng_client_fetch), the READs due
 * sent (from the actor of lane `self`), and READ f answered (the reads now
 * served, a list through ->next). */
enum { ENG_FETCH_UNITS = 1, ENG_FETCH_PAGES = 2 };
int eng_pgc_applies(const struct eng_job *j);
enum eng_absorb eng_pgc_read(struct eng_job *j, struct eng_req *r);
void eng_pgc_send(struct eng_job *j, int self);
struct eng_req *eng_pgc_fetched(struct eng_job *j, const struct eng_req *f);
/* The client's write-back of j's dirty pages while it has reason to, one
 * of them, r, answered, and the close that waits for it (from the actor
 * of lane `self`). */
void eng_writeback(struct eng_job *j, int self);
void eng_writeback_done(struct eng_job *j, const struct eng_req *r);
/* A client's lazy writer: the actor's data. */
struct eng_lazy {
  struct eng *e;
  int client;
};
void eng_lazy_main(int argc, char **argv);
int eng_client_lazy(const struct eng *e, int c);
int eng_client_cached(const struct scenario *s, const struct proto_ops *ops);
void eng_window_throttled(struct eng *e);
void eng_close_step(struct eng_job *j, int self);
/* The client's memory copy of r into or out of its page cache, then r to
 * its job as a reply; the actor that makes the copies of connection c. */
void eng_client_copy(struct eng *e, struct eng_req *r);
void eng_client_copy_main(int argc, char **argv);
/* The client OS reads ahead on job j now (submit.c). */
int eng_client_reads_ahead(const struct eng_job *j);
/* The client jobs (engine.c), for the page cache: j may issue another
 * I/O now; a completion of j at now counts in the step's figures; the
 * bytes request r put on its route; the connection of j's next request of
 * `bytes`; a protocol request onto its connection's socket, and a request
 * sent as its protocol requests, from the actor of lane `self`; the
 * client OS closes j's file itself (clients.flush_on_close), and that
 * close's request. */
int eng_may_issue(const struct eng_job *j);
int eng_counts_at(const struct eng_job *j, double now);
void eng_count_link(struct eng *e, const struct eng_req *r);
int eng_pick_conn(struct eng_job *j, double bytes);
void eng_send_rpc(struct eng_job *j, struct eng_req *r, int self);
void eng_send(struct eng_job *j, struct eng_req *r, int self);
int eng_closes_itself(const struct eng_job *j);
struct eng_req *eng_close_new(struct eng_job *j);
/* The connections' request slots (clients.rpc_slots, a session window),
 * 0: no limit (submit.c). */
double eng_conn_slots(const struct eng *e);
void eng_send_reply(struct eng *e, struct eng_req *r);
void eng_hook_done(void *ctx, double now_s, uint64_t tag);
void eng_hook_error(void *ctx, double now_s, uint64_t tag);
void eng_hook_cpu(void *ctx, enum stack_thread thread, double cycles, uint64_t token);
void eng_storage_main(int argc, char **argv);
void eng_kthread_main(int argc, char **argv);
/* Steady-state caches before measuring; 0, or -1 out of memory. */
int eng_precondition(struct eng *e);
/* Warm-up and Little accounting of a client request (run.c): at issue
 * (first: one of its job's first depth I/Os) and at completion. */
/* How long a measured job issues once started (its runtime, at most the scenario's time). */
double eng_job_run_s(const struct eng *e, const struct job *spec);
void eng_warm_issue(struct eng *e, struct eng_req *r, int first);
void eng_warm_done(struct eng *e, struct eng_req *r, double now_s);
/* The outstanding client I/Os' integral over the window up to now (Little's
 * L x window of a run stopped with I/Os outstanding); d: their change now. */
void eng_little_step(struct eng *e, int d);

/* One direction's totals from its latency histogram over window_s (run.c). */
void eng_totals(struct res_totals *t, const struct stats_hist *h, double bytes, uint64_t ios, double window_s);
/* A step whose jobs all stay inside the client (ioengine=null, cpuio, ...):
 * out filled in closed form, 1 (out->failed when it mixes them with NAS
 * jobs); 0 when no job of st stays inside the client (client_only.c). */
int eng_client_only(const struct scenario *s, const struct workload_step *st, struct run_result *out);

/* Background actors (engine.c). */
void eng_op_main(int argc, char **argv);
void eng_faults_main(int argc, char **argv);
/* Before a connection sends (up: client->NAS): while its member is dead
 * and the bond has not yet moved, wait (the frames would be lost). */
void eng_bond_wait(struct eng *e, const struct eng_conn *c, int up);
/* 1 when eng_bond_wait would not wait. */
int eng_bond_open(const struct eng *e, const struct eng_conn *c, int up);
/* 1 when x's last byte is through (chan.c). */
/* The connection's TCP window (bytes): net.tcp_window_bytes, else the default. */
double eng_tcp_window(const struct eng *e);
/* The bytes a streamed message of pieces of piece_bytes keeps on the wire
 * (chan.c): its route's bandwidth-delay product and two pieces, within
 * the TCP window. */
double eng_stream_flight_bytes(const struct eng *e, double piece_bytes);
int eng_xfer_through(const struct eng_xfer *x);
/* The client jobs of the step and their actors (jobs.c). 0, or -1 with err. */
int eng_setup_jobs(struct eng *e, struct nw_err *err);
/* What the jobs' actors (jobs.c) call into (engine.c): issue up to the
 * window, issue the next I/O of a closed loop, a completion, the end of a
 * job, whether a replay waits for each I/O, a file operation's next
 * request, the timer of a tool that opens untimed, an I/O's data onto its
 * connection; and the lane's reply actor and its channel pass. */
void eng_issue(struct eng_job *j, int self);
void eng_refill(struct eng_job *j, int self);
void eng_done(struct eng_job *j, struct eng_req *r, int self);
void eng_maybe_finish(struct eng_job *j);
int eng_replay_synchronous(const struct eng_job *j);
void eng_fop_next(struct eng_job *j, struct eng_req *r, int self);
void eng_open_timer(struct eng_job *j, struct eng_req *a);
void eng_send_data(struct eng_job *j, struct eng_req *r, int self);
void eng_reply_main(int argc, char **argv);
int eng_reply_pass(void *payload);
/* The client senders of connection c's socket (daemon.c). */
void eng_wire_start(struct eng *e, struct eng_conn *c);
/* A lane's reply sender streams read r's pieces as its process copies them (daemon.c). */
void eng_reply_stream(struct eng_job *j, int conn, struct eng_req *r);
/* A client actor follows its connection's current route (LACP rehash; engine.c). */
void eng_follow_route(const struct eng_conn *c);

/* A streamed read's data is in memory: its process copies it into the
 * socket, piece by piece (daemon.c). */
void eng_reply_ready(struct eng *e, struct eng_req *r);
/* Pieces r's data streams in (1: one message) (daemon.c). */
uint64_t eng_stream_pieces(const struct eng *e, const struct eng_req *r);
/* A request record (zeroed, its seg_ready kept) and its return (engine.c). */
struct eng_req *eng_req_new(struct eng *e);
void eng_req_free(struct eng *e, struct eng_req *r);

/* The client<->NAS links as the flow model's constraints (chan.c): NAS
 * port M's two directions, client C's NIC K's two, a blocking switch's
 * backplane last; every route crosses a client NIC, the switch and a NAS
 * port, and pays two links' latency and the switch's. */
struct eng_links {
  int np, nc;   /* NAS ports, NICs per client */
  int sw;       /* constraint index of a blocking switch, -1 if none */
  int sw_link;  /* the routes cross a switch link (blocking, or latency only) */
  double hop_s; /* one link's latency (s) */
  double sw_s;  /* the switch hops' latency (s) */
  double bw;    /* a route's slowest payload rate (bytes/s) */
};
/* The TCP window when the scenario gives none (bytes): SimGrid's default. */
#define ENG_TCP_WINDOW_BYTES 4194304.0
/* l for scenario s on map, and a flow model with every constraint's
 * capacity set (flow.h; NULL out of memory). */
struct flow_net *eng_links_create(const struct scenario *s, const struct plat_map *map, struct eng_links *l);
/* A route's latency (s): its two links' and the switch's, summed in route
 * order (every route pays the same). */
double eng_links_latency_s(const struct eng_links *l);
/* Start a flow of `bytes` at now_s between client's NIC nic and NAS port
 * nas_port (up: client->NAS) on fn: its route's constraints, latency
 * (summed in route order, as SimGrid does), CM02 weight and bound (the
 * slowest link, TCP window gamma_bytes over the round trip); tag back
 * from flow_advance.  0, or -1 out of memory. */
int eng_links_start(struct flow_net *fn, const struct eng_links *l, double now_s, double bytes, int client,
                    int nic, int nas_port, int up, double gamma_bytes, void *tag);

/* The network (chan.c): the flow model and its scheduler actor (0, or -1
 * out of memory), its release; a channel; a message of `bytes` from the
 * calling actor on c's socket (up: client->NAS), started in order as the
 * receiver's posted receives allow, its wait (once per message), both in
 * one; a zero-cost hand-over into ch's inbox (the client cache's
 * completions); the receiver's next message. */
int eng_net_setup(struct eng *e);
void eng_net_destroy(struct eng *e);
void eng_chan_init(struct eng *e, struct eng_chan *ch);
struct eng_xfer *eng_chan_send_async(struct eng *e, struct eng_chan *ch, struct eng_conn *c, int up,
                                     void *payload, double bytes);
void eng_xfer_wait(struct eng *e, struct eng_xfer *x);
/* Its sender no longer waits for x (sent async): freed once through, at
 * once if it is. */
void eng_xfer_forget(struct eng *e, struct eng_xfer *x);
void eng_chan_send(struct eng *e, struct eng_chan *ch, struct eng_conn *c, int up, void *payload, double bytes);
/* A NAS->client message sent with no actor waiting for it (a TCP send
 * returns once the socket buffer holds the data): it goes on the wire in
 * the channel's order and is freed once through. */
void eng_chan_send_forget(struct eng *e, struct eng_chan *ch, struct eng_conn *c, void *payload, double bytes);
void eng_chan_deliver(struct eng *e, struct eng_chan *ch, void *payload);
void *eng_chan_recv(struct eng_chan *ch);

/* The measured window (window.c): its meter's actor, and the end of a
 * time-based run (0, or -1 out of memory); a wake-up when the window is
 * placed (the first round's end, the prep jobs' end); the devices'
 * utilisation and the power over it into out (after the links and
 * threads: it finishes the analysis). */
int eng_window_setup(struct eng *e);
void eng_window_wake(struct eng *e);
void eng_window_last(struct eng *e);
void eng_window_collect(struct eng *e, struct run_result *out);

/* Connections, the receive path and the protocol daemons (daemon.c);
 * 0, or -1 with err. */
int eng_setup_daemons(struct eng *e, struct nw_err *err);

#endif
