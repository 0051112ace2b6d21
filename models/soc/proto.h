/* proto.h - protocol daemons' CPU cost and request framing, as pure
 * functions (SMB2/3 smbd, NFSv3 knfsd, iSCSI target, WebDAV Apache httpd).
 *
 * One parameter table, proto_param_table, fills struct proto_params: the
 * protocol and its negotiated sizes/limits, and (in p->costs) its CPU
 * costs in reference cycles (see soc.h).  catalog/protocols.yaml has one
 * entry per kind (smb, nfs, iscsi, local, webdav) holding the cost keys (none for
 * local); the loader applies table defaults, then the entry named by `kind`, then
 * the scenario's `protocol:` section (which may override any key, costs
 * included).  proto_cost_table lists the cost keys alone (same offsets),
 * for validating catalogue entries.
 *
 * Cost of one protocol request of `bytes` payload on the NAS:
 *   cycles_per_request                      parse, dispatch, VFS/SCSI, reply
 * + cycles_per_byte * bytes                 copies socket <-> page cache
 * + cycles_per_packet * packets             network stack, per frame/ACK
 * + csum_cycles_per_byte * wire payload     only without checksum offload
 * + file_lun_cycles_per_request             iSCSI LUN backed by a file
 * + thin_cycles_per_request                 ... thin-provisioned (sparse) file
 * + sync_call_cycles                        smbd: a read/write below Samba's aio
 *                                           read/write size (a pread()/pwrite()
 *                                           in the process itself)
 * + cycles_per_pdu * data PDUs              iSCSI: a burst travels as PDUs of
 *                                           the receiver's MaxRecvDataSegmentLength
 *                                           (Data-Out: the target's, LIO 8 KiB;
 *                                           Data-In: the initiator's)
 * Of the receive packet cycles, tcp_rx_share is the TCP layer; for the
 * received message's own segments it is reported apart (rx_msg_tcp_cycles,
 * still inside rx_packet_cycles) because a reader that waits in a blocking
 * recvmsg does it in its own context (the engine decides who reads how).
 * Packets counted at the NAS: the data message's TCP segments (a transmit
 * with TSO is handed to the NIC as 64 KiB super-segments), the small
 * request or response message (one segment), and delayed ACKs, one per
 * two data segments (RFC 1122 / Linux), each costing one packet.  So
 * MTU 9000 costs fewer cycles than MTU 1500 for the same bytes.  TSO needs
 * transmit checksum offload (Linux turns TSO off without it).
 * Protocol `local` (a drive inside the client) costs the NAS nothing. */
#ifndef NASTWIN_PROTO_H
#define NASTWIN_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/params.h"

enum proto_kind { PROTO_SMB = 0, PROTO_NFS = 1, PROTO_ISCSI = 2, PROTO_LOCAL = 3, PROTO_WEBDAV = 4 };
/* The API an HTTP client speaks to the webdav daemon (fio http_mode). */
enum proto_http_api { PROTO_HTTP_WEBDAV = 0, PROTO_HTTP_S3 = 1, PROTO_HTTP_SWIFT = 2 };
enum proto_lun { PROTO_LUN_BLOCK = 0, PROTO_LUN_FILE = 1, PROTO_LUN_THIN = 2 };

extern const char *const proto_kind_names[]; /* "smb", "nfs", "iscsi", "local", "webdav", NULL */
extern const char *const proto_http_api_names[]; /* "webdav", "s3", "swift", NULL */
extern const char *const proto_lun_names[];  /* "block", "file", "thin", NULL */

/* Protocol header bytes carried per message (bytes; spec facts):
 * SMB2: NetBIOS session header 4 + SMB2 header 64 (MS-SMB2 2.2.1) +
 *       READ/WRITE request body 48 (2.2.19/2.2.21, StructureSize 49 incl. 1 buffer byte);
 * NFSv3/TCP: record mark 4 + RPC call with AUTH_UNIX (~96, RFC 5531) +
 *       READ3/WRITE3 args with a 32-byte file handle (~48, RFC 1813);
 * iSCSI: Basic Header Segment 48 per PDU (RFC 7143 11.2), no digests;
 * HTTP/1.1 (WebDAV): request line + headers of a libcurl PUT/GET (Host,
 *       User-Agent, Accept, Content-Length or Range, ~200-350 B) or Apache's
 *       response (status line, Date, Server, ETag, Content-Length/Type,
 *       ~250-450 B): 400 B per message, the middle of 300-500 B (RFC 9112
 *       framing; sizes of typical curl/Apache header blocks). */
#define PROTO_SMB_HEADER_BYTES 116.0
#define PROTO_NFS_HEADER_BYTES 148.0
#define PROTO_ISCSI_BHS_BYTES 48.0
#define PROTO_HTTP_HEADER_BYTES 400.0
/* Largest TSO super-segment handed to the NIC (bytes; Linux GSO_MAX_SIZE). */
#define PROTO_TSO_MAX_BYTES 65536.0
/* GRO_MAX_SIZE (include/linux/netdevice.h): bytes one GRO aggregate holds. */
#define PROTO_GRO_MAX_BYTES 65536.0
/* SMB2 credit charge unit (bytes; MS-SMB2 3.1.5.2: one credit per 64 KiB). */
#define PROTO_SMB_CREDIT_BYTES 65536.0

/* A file operation a client makes on a file protocol's share. */
enum proto_fop {
  PROTO_FOP_NONE = 0,
  PROTO_FOP_OPEN,         /* open an existing file to read it */
  PROTO_FOP_CREATE,       /* create (or replace) a file to write it */
  PROTO_FOP_STAT,         /* a file's attributes by its path */
  PROTO_FOP_CLOSE,        /* close a file only read */
  PROTO_FOP_CLOSE_WRITTEN, /* close a file written through the handle */
  PROTO_FOP_DELETE        /* remove a file by its path */
};
/* Entries of an array indexed by enum proto_fop. */
#define PROTO_NFOPS (PROTO_FOP_DELETE + 1)

struct proto_costs {
  double cycles_per_request;
  double cycles_per_byte;
  double cycles_per_packet;
  double cycles_per_open;              /* the file system's work of one file operation that
                                          looks a path up (open, create, stat, delete): dentry
                                          and inode look-ups, permission check, inode allocation */
  double csum_cycles_per_byte;         /* software checksum, without offload */
  double file_lun_cycles_per_request;  /* extra for a file-backed iSCSI LUN */
  double thin_cycles_per_request;      /* extra for a thin (sparse) file LUN */
  double cycles_per_pdu;               /* iSCSI: per data PDU (header receive/parse,
                                          command lookup, iovec setup, DataSN checks) */
  double tcp_rx_share;                 /* share (0..1) of cycles_per_packet of a received
                                          segment spent in TCP (tcp_v4_rcv ->
                                          tcp_rcv_established); the rest is driver + IP */
  double sign_cycles_per_request;      /* webdav http_api s3: AWS SigV4 verification per request */
  double sign_cycles_per_byte;         /* ... and the payload's SHA-256 (x-amz-content-sha256) */
  double sync_call_cycles;             /* smbd: a synchronous pread()/pwrite() (below Samba's
                                          aio read/write size): the file system's call and the
                                          process's sleep and wake-up around it, in its process */
  /* Protocol requests each file operation is (count, whole; proto_file_requests), by
   * enum proto_fop (the catalogue's open_requests, create_requests, stat_requests,
   * close_requests, close_written_requests, delete_requests; PROTO_FOP_NONE's unused): */
  double fop_requests[PROTO_NFOPS];
  double close_written_writeback;      /* 1: closing a written file starts the write-back of
                                          its dirty pages in the closing thread (the file
                                          system's, not a request; proto_close_starts_writeback) */
  double close_written_sync;           /* 1: the close's last request of a written file fsyncs
                                          it on the server before its answer (proto_close_syncs) */
};

struct proto_params {
  double kind;                         /* index into proto_kind_names */
  double smb_credits;                  /* credits granted per connection (count) */
  double smb_max_io_bytes;             /* max READ/WRITE size negotiated */
  double smb_aio_read_size_bytes;      /* Samba 'aio read size': a read of at least this
                                          size is asynchronous; smaller (or all, with 0)
                                          block smbd in pread() */
  double smb_aio_write_size_bytes;     /* Samba 'aio write size': a write of at least this
                                          size goes to the aio pool; smaller (or all, with 0)
                                          are a pwrite() in smbd's process */
  double nfs_threads;                  /* knfsd threads (count) */
  double webdav_threads;               /* Apache httpd worker threads (count) */
  double http_api;                     /* index into proto_http_api_names (webdav daemon) */
  double nfs_rsize_bytes, nfs_wsize_bytes;
  double nfs_sync;                     /* 0/1: export sync (writes stable before reply) */
  double iscsi_max_recv_data_segment_bytes; /* initiator's MaxRecvDataSegmentLength: data per Data-In PDU */
  double iscsi_target_max_recv_data_segment_bytes; /* target's MaxRecvDataSegmentLength: data per Data-Out PDU */
  double iscsi_max_burst_bytes;        /* MaxBurstLength: data per sequence */
  double iscsi_cmdsn_depth;            /* commands in flight per session (count) */
  double iscsi_lun;                    /* index into proto_lun_names */
  double multichannel;                 /* 0/1: SMB multichannel / multi-threaded daemon what-if */
  double smb_connections_per_nic;      /* multichannel TCP connections per interface (count) */
  double checksum_offload;             /* 0/1: NIC computes TCP/IP checksums */
  double tso;                          /* 0/1: TCP segmentation offload on transmit */
  double gro;                          /* 0/1: generic receive offload (NAPI aggregates) */
  double daemon_working_set_bytes;     /* cache lines one request of a daemon process touches */
  double stream_segment_bytes;         /* piece of a message's data each stage (daemon copy,
                                          wire, receive softirq) hands on; 0 = store-and-forward */
  struct proto_costs costs;            /* CPU costs (catalogue, scenario overrides) */
};


extern const struct param_desc proto_param_table[];
extern const size_t proto_param_count;
extern const struct param_desc proto_cost_table[];
extern const size_t proto_cost_count;

/* Where the cycles of one request go (all reference cycles, packets counts,
 * wire bytes per direction including Ethernet/IP/TCP/protocol overheads). */
struct proto_cycles {
  double request_cycles;   /* per-request part */
  double byte_cycles;      /* per-byte part */
  double tx_packet_cycles; /* packets the NAS sends: run on the daemon thread */
  double rx_packet_cycles; /* packets the NAS receives: softirq on the irq core */
  double rx_msg_tcp_cycles; /* the TCP-layer part (tcp_rx_share) of rx_packet_cycles for the
                               received message's own segments (not ACKs): runs on a reader
                               blocked in recvmsg (prequeue) or holding the socket (backlog) */
  double csum_cycles;      /* software checksums (0 with offload) */
  double lun_cycles;       /* file / thin LUN extras */
  double pdu_cycles;       /* iSCSI data PDUs (on the thread moving the data) */
  double total_cycles;     /* sum of the above */
  double tx_packets, rx_packets;       /* count */
  double wire_bytes_to_nas;            /* client -> NAS (bytes on the wire) */
  double wire_bytes_from_nas;          /* NAS -> client (bytes on the wire) */
};

/* ---- what differs between protocols: one ops table each ---------------
 * models/soc/smb.c, nfs.c, iscsi.c, local.c each define one table; a new
 * protocol is one more table, one proto_kind_names entry and one
 * catalog/protocols.yaml entry.  The engine builds its daemons from
 * `shape` and never asks which protocol it runs. */

/* How the server's threads serve a connection's requests. */
enum proto_shape {
  PROTO_SHAPE_NONE = 0, /* no server: a drive inside the client (local) */
  PROTO_SHAPE_PROCESS,  /* one single-threaded process per connection that
                           submits each request and replies when the storage
                           completes; it may sleep in a read (Samba smbd) */
  PROTO_SHAPE_POOL,     /* a server-wide pool of threads; a thread sleeps in
                           the file system until the storage is done, then
                           replies (knfsd) */
  PROTO_SHAPE_RXTX      /* a receive and a transmit thread per session:
                           rx submits, tx sends the response (LIO iscsi_trx /
                           iscsi_ttx) */
};

/* A message's framing: protocol header bytes per PDU, data PDUs, and
 * header bytes sent ahead of the data (iSCSI's SCSI Command PDU before
 * Data-Out). */
struct proto_frame {
  double header_bytes;
  double data_pdus;
  double lead_bytes;
  int pdu_costs; /* cycles_per_pdu applies to each data PDU */
};

struct proto_ops {
  const char *name;        /* scenario kind: "smb" */
  const char *label;       /* in explanations: "CIFS" (the others: their kind) */
  enum proto_shape shape;
  const char *daemon;      /* thread name stem: "smbd", "nfsd", "iscsi_trx" */
  const char *daemon_who;  /* what the thread is: "smbd", "nfsd kernel thread" */
  const char *tx_daemon;   /* PROTO_SHAPE_RXTX: transmit thread stem, else NULL */
  double header_bytes;     /* protocol header per message (bytes) */
  unsigned service_port;   /* server TCP port (a bond's layer3+4 hash input) */
  int blocking_reader;     /* the daemon reads its socket with a blocking
                              recvmsg (MSG_WAITALL): the TCP layer of its
                              session's received segments runs in its context */
  int opens_files;         /* a file protocol: its file operations are requests
                              (proto_file_requests) with cycles_per_open's file work */
  int streams;             /* a message's data moves in stream_segment pieces that
                              the wire, the receive softirq and the daemon's copy
                              handle as they come (smbd: both directions) */
  int streams_in;          /* only a write's data streams in (LIO's iscsi_trx takes
                              each Data-Out PDU as it arrives; iscsi_ttx's Data-In
                              still leave as one message) */
  int direct_io;           /* a client's O_DIRECT reaches the stack's page cache
                              (only a local drive; a remote flag stays on the client) */
  /* Framing of a message of `bytes` payload into *f. */
  void (*frame)(const struct proto_params *p, int write, double bytes, struct proto_frame *f);
  /* Largest protocol request a client I/O is split into (bytes). */
  double (*chunk_bytes)(const struct proto_params *p, int write, double bytes);
  /* Requests of request_bytes that may be outstanding (count). */
  int (*max_outstanding)(const struct proto_params *p, double request_bytes);
  /* The client's outstanding cap per job whatever the size (SMB credits), or PROTO_UNBOUNDED. */
  int (*window)(const struct proto_params *p);
  /* Commands one session (connection) may have at the server at once, the
   * rest held by the client until a response opens the window (iSCSI:
   * MaxCmdSN, iscsi_cmdsn_depth), or PROTO_UNBOUNDED. */
  int (*session_window)(const struct proto_params *p);
  /* 1 when the server makes every write stable before replying (NFS sync export). */
  int (*sync_writes)(const struct proto_params *p);
  /* PROTO_SHAPE_PROCESS: 1 when the process sleeps in a read of `bytes` that misses the
   * page cache; NULL: it never does. */
  int (*read_blocks)(const struct proto_params *p, double bytes);
  /* Connections per client NIC pair when the protocol spreads one client
   * over its NICs (SMB multichannel), 0 = one connection per client. */
  int (*conns_per_nic_pair)(const struct proto_params *p);
  /* PROTO_SHAPE_POOL: threads in the pool (count). */
  int (*pool_threads)(const struct proto_params *p);
  /* Extra cycles per request of the backing store (iSCSI file/thin LUN), NULL = 0. */
  double (*lun_extra_cycles)(const struct proto_params *p, int write);
  /* Extra cycles per request of `bytes` to authenticate it (S3 SigV4), NULL = 0;
   * counted in the request's request_cycles. */
  double (*auth_cycles)(const struct proto_params *p, double bytes);
  /* Extra cycles of a request of `bytes` whose file call the daemon makes
   * itself, synchronously (smbd below Samba's aio sizes), NULL = 0;
   * counted in the request's request_cycles. */
  double (*sync_call_cycles)(const struct proto_params *p, int write, double bytes);
};

/* Shared answers for the ops tables' int hooks: PROTO_UNBOUNDED (no cap
 * beyond the daemon's) and 0 (no: not synchronous, no multichannel). */
int proto_ops_unbounded(const struct proto_params *p);
int proto_ops_never(const struct proto_params *p);

extern const struct proto_ops proto_smb_ops, proto_nfs_ops, proto_iscsi_ops, proto_local_ops,
    proto_webdav_ops;

/* The ops table of p's kind. */
const struct proto_ops *proto_ops_of(const struct proto_params *p);

/* Cross-field checks (whole counts, 0/1 switches).  0, or -1 with err
 * naming the key and value. */
int proto_check(const struct proto_params *p, struct nw_err *err);

/* Reference cycles the NAS spends on one protocol request of `bytes`
 * payload (write = 1: client -> NAS data) at the given IP MTU (bytes) and
 * TCP timestamp setting, LUN extras included.  0 for kind local. */
double proto_request_cycles(const struct proto_params *p, int write, double bytes,
                            double mtu_bytes, int tcp_timestamps);

/* The same cost broken down (cycles, packets, wire bytes) into *out. */
void proto_request_cost(const struct proto_params *p, int write, double bytes, double mtu_bytes,
                        int tcp_timestamps, struct proto_cycles *out);

/* The file / thin LUN part of proto_request_cycles alone (reference
 * cycles; 0 unless kind iscsi with iscsi_lun file or thin).  Already
 * included in proto_request_cycles: do not add it again. */
double proto_lun_extra_cycles(const struct proto_params *p, int write);

/* Split a client I/O of `bytes` into protocol requests: returns their
 * count (>= 1) and sets *chunk_bytes to the size of each but the last
 * (the last carries the remainder).  SMB: smb_max_io; NFS: rsize/wsize;
 * iSCSI: MaxBurstLength; local: not split. */
uint64_t proto_split(const struct proto_params *p, int write, double bytes, double *chunk_bytes);

/* Requests of request_bytes that may be outstanding (count): SMB, per
 * connection: smb_credits / credit charge (1 per started 64 KiB); iSCSI,
 * per session: iscsi_cmdsn_depth; NFS, server-wide: nfs_threads in
 * service (the rest wait in the socket); local: PROTO_UNBOUNDED. */
int proto_max_outstanding(const struct proto_params *p, double request_bytes);
#define PROTO_UNBOUNDED 1048576

/* Pieces the data of a request of `bytes` streams in (count; write:
 * client -> NAS, read: the reply): ceil(bytes / stream_segment) when the
 * protocol streams that direction (ops streams; streams_in: writes) and
 * stream_segment > 0, else 1 (each stage finishes the whole message
 * before the next starts). */
uint64_t proto_stream_segments(const struct proto_params *p, int write, double bytes);

/* Reference cycles of the file system's work below one file operation
 * that looks a path up (open, create, stat, delete: proto_file_op_opens),
 * charged once, with its first request; 0 for iSCSI and local (the
 * client's own filesystem opens files). */
double proto_open_cycles(const struct proto_params *p);

/* The protocol requests file operation op is (count), each a message of
 * its own with no data, answered before the client sends the next (the
 * catalogue's open_requests, create_requests, ... of the protocol, e.g.
 * SMB2 stat = CREATE + QUERY_INFO + CLOSE = 3, NFSv3 close of a file only
 * read = 0); 0 for PROTO_FOP_NONE and for a protocol without files
 * (iSCSI, local). */
int proto_file_requests(const struct proto_params *p, enum proto_fop op);

/* 1 if the server, closing a file written through the handle, submits the
 * file's dirty pages for write-back itself, in the thread that serves the
 * close (the catalogue's close_written_writeback: Samba on ext4, whose
 * auto_da_alloc allocates and submits a file's delayed blocks at its
 * release); 0 when its flusher alone writes them back. */
int proto_close_starts_writeback(const struct proto_params *p);

/* 1 if the last request of a written file's close is answered only once
 * the server has fsynced the file (the catalogue's close_written_sync: an
 * NFSv3 COMMIT, nfsd_commit -> vfs_fsync_range: the file's dirty pages
 * written back and waited for, then the journal commit); 0 otherwise. */
int proto_close_syncs(const struct proto_params *p);

/* 1 when op looks a path up on the server's file system (open, create,
 * stat, delete: proto_open_cycles once, with its first request), 0 for a
 * close (the handle's state only) and PROTO_FOP_NONE. */
int proto_file_op_opens(enum proto_fop op);

/* 1 when the daemon process sleeps in a read of `bytes` that misses the
 * page cache (smbd below Samba's 'aio read size'); 0 for every other
 * protocol. */
int proto_read_blocks(const struct proto_params *p, double bytes);

/* knfsd's largest rsize/wsize for a server with lowmem_bytes of RAM
 * (bytes): 1 MiB halved while above RAM/4096, not below 8 KiB
 * (nfsd_get_default_max_blksize, fs/nfsd/nfssvc.c).  The engine uses
 * min(nfs_rsize, this). */
double nfs_server_max_blksize_bytes(double lowmem_bytes);

#endif
