#include "models/soc/proto.h"

#include <math.h>

#include "models/net/frame.h"

const char *const proto_kind_names[] = {"smb", "nfs", "iscsi", "local", "webdav", NULL};
const char *const proto_http_api_names[] = {"webdav", "s3", "swift", NULL};
const char *const proto_lun_names[] = {"block", "file", "thin", NULL};

#define PROTO_OFF(field) offsetof(struct proto_params, field)
#define PROTO_COST_OFF(field) offsetof(struct proto_costs, field)
#define PROTO_PCOST_OFF(field) (offsetof(struct proto_params, costs) + offsetof(struct proto_costs, field))

/* Cost ranges (reference cycles, see soc.h), wide physical envelopes; the
 * catalogue's fit bounds are narrower.  Per byte: one memcpy is ~0.3..2
 * cycles/byte on these cores and a daemon copies 1..3 times; per request:
 * a syscall is ~1e3, a full SMB/NFS/SCSI request path 1e3..1e6; per packet:
 * driver + IP + TCP ~500..1e5; the file system's work below one file
 * operation (path look-up, permission check, inode allocation), its
 * protocol requests apart: 1e3..1e7.  Requests per file operation: a few
 * per protocol message flow, 0..16. */
/* File operation op's protocol requests (a whole count): the
 * catalogue's key `name`, read into costs.fop_requests[op]; the default,
 * one, stands for a protocol whose catalogue entry names none. */
#define PROTO_FOP_ENTRY(OFF, op, name, what) \
    {.key = name, .dim = UNITS_NUMBER, .whole = 1, .offset = OFF(fop_requests[op]), .min = 0, .max = 16, .optional = 1, \
     .def = 1, .help = "protocol requests (count) of " what ", each answered before the next"},
/* The cost entries, with OFF choosing the struct they are relative to; the
 * defaults are mid-range placeholders (the catalogue supplies fits). */
#define PROTO_COST_ENTRIES(OFF) \
    {.key = "cycles_per_request", .dim = UNITS_NUMBER, \
     .offset = OFF(cycles_per_request), .optional = 1, .def = 2e4, .min = 1e3, .max = 1e6, \
     .help = "reference cycles per protocol request"}, \
    {.key = "cycles_per_byte", .dim = UNITS_NUMBER, .offset = OFF(cycles_per_byte), \
     .optional = 1, .def = 2, .min = 0.1, .max = 50, .help = "reference cycles per payload byte"}, \
    {.key = "cycles_per_packet", .dim = UNITS_NUMBER, .offset = OFF(cycles_per_packet), \
     .optional = 1, .def = 4e3, .min = 500, .max = 1e5, .help = "reference cycles per TCP segment sent or received"}, \
    {.key = "cycles_per_open", .dim = UNITS_NUMBER, .offset = OFF(cycles_per_open), \
     .min = 1e3, .max = 1e7, .optional = 1, .def = 1e5, \
     .help = "reference cycles of the file system's work below a file open, create, stat or " \
             "delete (path look-up, permission check, inode allocation), its requests apart"}, \
    {.key = "csum_cycles_per_byte", .dim = UNITS_NUMBER, \
     .offset = OFF(csum_cycles_per_byte), .min = 0, .max = 10, .optional = 1, \
     .def = 1, .help = "reference cycles per byte of software TCP checksum (no offload)"}, \
    {.key = "file_lun_cycles_per_request", .dim = UNITS_NUMBER, \
     .offset = OFF(file_lun_cycles_per_request), .min = 0, .max = 1e6, .optional = 1, \
     .def = 0, .help = "extra reference cycles per request of a file-backed iSCSI LUN"}, \
    {.key = "thin_cycles_per_request", .dim = UNITS_NUMBER, \
     .offset = OFF(thin_cycles_per_request), .min = 0, .max = 1e6, .optional = 1, \
     .def = 0, .help = "extra reference cycles per request of a thin (sparse) file LUN"}, \
    {.key = "cycles_per_pdu", .dim = UNITS_NUMBER, .offset = OFF(cycles_per_pdu), .min = 0, \
     .max = 1e5, .optional = 1, .def = 0, \
     .help = "reference cycles per iSCSI data PDU (header parse, command lookup, iovec setup)"}, \
    {.key = "tcp_rx_share", .dim = UNITS_NUMBER, .offset = OFF(tcp_rx_share), .min = 0, \
     .max = 1, .optional = 1, .def = 0.5, \
     .help = "share of a received segment's cycles_per_packet spent in the TCP layer " \
             "(tcp_v4_rcv on: sequence/ACK processing, queueing); the rest is driver + IP"}, \
    {.key = "sign_cycles_per_request", .dim = UNITS_NUMBER, .offset = OFF(sign_cycles_per_request), \
     .min = 0, .max = 1e6, .optional = 1, .def = 0, \
     .help = "reference cycles per S3 request to verify its AWS Signature V4 (webdav http_api s3)"}, \
    {.key = "sign_cycles_per_byte", .dim = UNITS_NUMBER, .offset = OFF(sign_cycles_per_byte), \
     .min = 0, .max = 50, .optional = 1, .def = 0, \
     .help = "reference cycles per payload byte of an S3 request's SHA-256 (webdav http_api s3)"}, \
    {.key = "sync_call_cycles", .dim = UNITS_NUMBER, .offset = OFF(sync_call_cycles), \
     .min = 0, .max = 2e6, .optional = 1, .def = 0, \
     .help = "reference cycles of a synchronous pread()/pwrite() in smbd's process (a read or " \
             "write below Samba's aio read/write size): the file system's call, sleep and wake-up"}, \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_OPEN, "open_requests", "opening an existing file to read it") \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_CREATE, "create_requests", "creating a file to write it") \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_STAT, "stat_requests", "reading a file's attributes by its path") \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_CLOSE, "close_requests", "closing a file only read") \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_CLOSE_WRITTEN, "close_written_requests", \
                    "closing a file written through the handle") \
    PROTO_FOP_ENTRY(OFF, PROTO_FOP_DELETE, "delete_requests", "removing a file by its path") \
    {.key = "close_written_writeback", .dim = UNITS_NUMBER, .whole = 1, .offset = OFF(close_written_writeback), \
     .min = 0, .max = 1, .optional = 1, .def = 0, \
     .help = "1: the server's file system starts the write-back of a written file's dirty pages " \
             "when the file is closed, in the closing thread (ext4 auto_da_alloc), 0: its flusher " \
             "alone writes them back"}, \
    {.key = "close_written_sync", .dim = UNITS_NUMBER, .whole = 1, .offset = OFF(close_written_sync), \
     .min = 0, .max = 1, .optional = 1, .def = 0, \
     .help = "1: the last request of a written file's close makes the server fsync the file " \
             "(its dirty pages written back and waited for, then its journal commit) before it " \
             "is answered (an NFSv3 COMMIT), 0: it is answered without"}

/* Sizes: SMB2 READ/WRITE 64 KiB (SMB 2.0) to 8 MiB (Samba smb2 max read);
 * NFS 4 KiB..1 MiB (RPCSVC_MAXPAYLOAD); iSCSI segment/burst 512 B ..
 * 2^24 - 1 (RFC 7143 12.12, 12.13). */
const struct param_desc proto_param_table[] = {
    {.key = "kind", .offset = PROTO_OFF(kind), .min = 0, .max = 4, .optional = 1, .def = PROTO_SMB,
     .help = "protocol: smb, nfs, iscsi, local (a drive in the client), or webdav (Apache httpd + mod_dav)",
     .choices = proto_kind_names},
    {.key = "smb_credits", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(smb_credits), .min = 1,
     .max = 65535, .optional = 1, .def = 8192,
     .help = "SMB2 credits per connection (count; Samba 'smb2 max credits' default 8192)"},
    {.key = "smb_max_io", .dim = UNITS_BYTES, .offset = PROTO_OFF(smb_max_io_bytes), .min = 65536,
     .max = 8388608, .optional = 1, .def = 1048576,
     .help = "negotiated SMB2 max read/write size (bytes; Windows 7+ clients use 1 MiB)"},
    /* Samba's 'aio read size' (smb.conf(5); source3/smbd/aio.c
     * schedule_smb2_aio_read: a READ of at least this many bytes goes to
     * the pthreadpool, a smaller one, or any with 0, is a plain pread()).
     * smbd is one single-threaded process per connection: a synchronous
     * read sleeps on every page-cache miss, so the connection has at most
     * one disk read in flight while its other requests wait in the socket;
     * an asynchronous one lets smbd take the next request (SMB2 credits
     * keep many outstanding) while the helper thread waits.  Writes land
     * in the page cache without sleeping either way.  Default 1B: every
     * read asynchronous (Samba's default since the pthreadpool aio). */
    {.key = "smb_aio_read_size", .dim = UNITS_BYTES, .offset = PROTO_OFF(smb_aio_read_size_bytes),
     .min = 0, .max = 8388608, .optional = 1, .def = 1,
     .help = "Samba 'aio read size': reads of at least this size are asynchronous (smbd "
             "goes on with the next request), smaller ones a blocking pread() (bytes; 1B = "
             "every read asynchronous, default; 0B = none)"},
    /* Samba's 'aio write size' (smb.conf(5); source3/smbd/aio.c
     * schedule_aio_smb2_write: a WRITE of at least this many bytes goes to
     * the pthreadpool, a smaller one, or any with 0, is a plain pwrite()
     * in smbd's process).  Either way the data lands in the page cache;
     * what differs is who makes the call (sync_call_cycles).  Default 1B:
     * every write asynchronous, as reads. */
    {.key = "smb_aio_write_size", .dim = UNITS_BYTES, .offset = PROTO_OFF(smb_aio_write_size_bytes),
     .min = 0, .max = 8388608, .optional = 1, .def = 1,
     .help = "Samba 'aio write size': writes of at least this size go to the aio pool, smaller "
             "ones are a pwrite() in smbd's process (bytes; 1B = every write asynchronous, "
             "default; 0B = none)"},
    {.key = "nfs_threads", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(nfs_threads), .min = 1,
     .max = 1024, .optional = 1, .def = 8, .help = "knfsd threads (count; Linux default 8)"},
    /* Apache 2.4's MPM worker/event: MaxRequestWorkers 400 = ServerLimit 16
     * x ThreadsPerChild 25 (docs/conf/extra/httpd-mpm.conf, mpm_common
     * MaxRequestWorkers); DSM's own WebDAV httpd conf value is not known. */
    {.key = "webdav_threads", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(webdav_threads), .min = 1,
     .max = 4096, .optional = 1, .def = 400,
     .help = "Apache httpd worker threads serving WebDAV (count; MaxRequestWorkers, Apache 2.4 default 400)"},
    {.key = "http_api", .offset = PROTO_OFF(http_api), .min = 0, .max = 2, .optional = 1,
     .def = PROTO_HTTP_WEBDAV, .choices = proto_http_api_names,
     .help = "API the webdav daemon serves: webdav, s3 (an object gateway: SigV4 per request), or swift"},
    {.key = "nfs_rsize", .dim = UNITS_BYTES, .offset = PROTO_OFF(nfs_rsize_bytes), .min = 4096,
     .max = 1048576, .optional = 1, .def = 1048576, .help = "NFS read size (bytes; mount rsize)"},
    {.key = "nfs_wsize", .dim = UNITS_BYTES, .offset = PROTO_OFF(nfs_wsize_bytes), .min = 4096,
     .max = 1048576, .optional = 1, .def = 1048576, .help = "NFS write size (bytes; mount wsize)"},
    {.key = "nfs_sync", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(nfs_sync), .min = 0, .max = 1,
     .optional = 1, .def = 0, .help = "0/1: export is sync (every write stable before the reply)"},
    {.key = "iscsi_max_recv_data_segment", .dim = UNITS_BYTES,
     .offset = PROTO_OFF(iscsi_max_recv_data_segment_bytes), .min = 512, .max = 16777215,
     .optional = 1, .def = 65536,
     .help = "initiator's MaxRecvDataSegmentLength: data bytes per Data-In PDU (RFC default 8 KiB; MS initiator 64 KiB)"},
    /* LIO declares MaxRecvDataSegmentLength=8192 unless configured
     * (INITIAL_MAXRECVDATASEGMENTLENGTH, drivers/target/iscsi/
     * iscsi_target_parameters.h); it bounds the initiator's Data-Out PDUs. */
    {.key = "iscsi_target_max_recv_data_segment", .dim = UNITS_BYTES,
     .offset = PROTO_OFF(iscsi_target_max_recv_data_segment_bytes), .min = 512, .max = 16777215,
     .optional = 1, .def = 8192,
     .help = "target's MaxRecvDataSegmentLength: data bytes per Data-Out PDU (LIO default 8 KiB)"},
    {.key = "iscsi_max_burst", .dim = UNITS_BYTES, .offset = PROTO_OFF(iscsi_max_burst_bytes),
     .min = 512, .max = 16777215, .optional = 1, .def = 262144,
     .help = "MaxBurstLength: data bytes per sequence (RFC 7143 default 256 KiB)"},
    /* LIO's default_cmdsn_depth, 64 (the tpg attribute's default); DSM's
     * own value is not known, LIO's is taken.  With the drives' look-ahead
     * kept ahead of each interleaved stream (models/disks hdd_cache.c), 16
     * readers x 4 commands stream the DS1819+'s RAID-6 at the line rate
     * (models/storage/README.md). */
    {.key = "iscsi_cmdsn_depth", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(iscsi_cmdsn_depth),
     .min = 0, .max = 4096, .optional = 1, .def = 64,
     .help = "commands in flight per session at the target (count; LIO default_cmdsn_depth 64; "
             "0 = no window)"},
    {.key = "iscsi_lun", .offset = PROTO_OFF(iscsi_lun), .min = 0, .max = 2, .optional = 1,
     .def = PROTO_LUN_BLOCK, .help = "LUN backing: block, file, or thin (sparse file)",
     .choices = proto_lun_names},
    {.key = "multichannel", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(multichannel), .min = 0,
     .max = 1, .optional = 1, .def = 0,
     .help = "0/1: SMB multichannel (connections over every NIC pair, one daemon thread each)"},
    /* Windows opens 4 connections per RSS-capable interface
     * (ConnectionCountPerRssNetworkInterface, default 4: Microsoft SMB
     * client documentation); 1 per interface without RSS. */
    {.key = "smb_connections_per_nic", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(smb_connections_per_nic),
     .min = 1, .max = 16, .optional = 1, .def = 4,
     .help = "SMB multichannel TCP connections per interface (Windows default 4 with RSS)"},
    {.key = "checksum_offload", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(checksum_offload),
     .min = 0, .max = 1, .optional = 1, .def = 1, .help = "0/1: NIC computes TCP/IP checksums"},
    {.key = "tso", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(tso), .min = 0, .max = 1,
     .optional = 1, .def = 1, .help = "0/1: TCP segmentation offload on transmit"},
    /* The NAS drivers (al_eth on the Alpine, igb and e1000e on the Atom
     * and Celeron boxes) hand received frames to
     * napi_gro_receive, which merges a flow's in-order segments into one
     * skb of up to GRO_MAX_SIZE 64 KiB: the driver still handles each
     * frame, IP and TCP (tcp_rx_share of cycles_per_packet) run once per
     * aggregate, and TCP ACKs each aggregate (more than two MSS). */
    {.key = "gro", .dim = UNITS_NUMBER, .whole = 1, .offset = PROTO_OFF(gro), .min = 0, .max = 1,
     .optional = 1, .def = 1,
     .help = "0/1: generic receive offload (received segments merged up to 64 KiB)"},
    /* What one request of a user-space daemon process touches: its hot
     * code path, heap (talloc pools), stack and request buffers; 64 KiB ..
     * a few MiB for a server process like smbd.  Only smbd (one process
     * per connection) uses it: a kernel thread pool shares its code.  0 =
     * not modelled. */
    {.key = "daemon_working_set", .dim = UNITS_BYTES, .offset = PROTO_OFF(daemon_working_set_bytes),
     .min = 0, .max = 16.0 * 1048576, .optional = 1, .def = 0,
     .help = "cache footprint of one request of a daemon process (bytes); 0B = not modelled"},
    /* tcp_sendmsg copies the user buffer into skbs of the GSO size goal
     * (64 KiB with TSO) and pushes each to the NIC as it fills
     * (tcp_push on size_goal, net/ipv4/tcp.c), so a 1 MiB SMB2 READ
     * response leaves in 64 KiB pieces while smbd still copies the rest.
     * Receiving, GRO hands the stack up to 64 KiB at a time and smbd's
     * non-blocking reads drain the socket as it fills, so a WRITE's data
     * is processed as it arrives.  0 = each stage handles the whole
     * message before the next starts (store-and-forward, a what-if). */
    {.key = "stream_segment", .dim = UNITS_BYTES, .offset = PROTO_OFF(stream_segment_bytes),
     .min = 0, .max = 8388608, .optional = 1, .def = 65536,
     .help = "piece of a message's data the daemon copy, the wire and the receive softirq "
             "pass on as they go (bytes; Linux GSO/GRO size 64 KiB, default); 0B = store-and-forward"},
    PROTO_COST_ENTRIES(PROTO_PCOST_OFF)};
const size_t proto_param_count = PARAM_COUNT(proto_param_table);

const struct param_desc proto_cost_table[] = {PROTO_COST_ENTRIES(PROTO_COST_OFF)};
const size_t proto_cost_count = PARAM_COUNT(proto_cost_table);

int proto_check(const struct proto_params *p, struct nw_err *err)
{
  if (p->tso != 0 && p->checksum_offload == 0)
    return nw_fail(err, NULL, 0, 0,
                   "protocol: tso 1 needs checksum_offload 1 (Linux disables TSO without "
                   "transmit checksum offload)");
  return 0;
}

int proto_ops_unbounded(const struct proto_params *p)
{
  (void)p;
  return PROTO_UNBOUNDED;
}

int proto_ops_never(const struct proto_params *p)
{
  (void)p;
  return 0;
}

static const struct proto_ops *const proto_ops_table[] = {
    [PROTO_SMB] = &proto_smb_ops, [PROTO_NFS] = &proto_nfs_ops, [PROTO_ISCSI] = &proto_iscsi_ops,
    [PROTO_LOCAL] = &proto_local_ops, [PROTO_WEBDAV] = &proto_webdav_ops};

const struct proto_ops *proto_ops_of(const struct proto_params *p)
{
  int k = (int)p->kind;
  return k >= 0 && k < (int)(sizeof proto_ops_table / sizeof proto_ops_table[0]) ? proto_ops_table[k]
                                                                                  : &proto_local_ops;
}

void proto_request_cost(const struct proto_params *p, int write, double bytes, double mtu_bytes,
                        int tcp_timestamps, struct proto_cycles *parts)
{
  const struct proto_costs *c = &p->costs;
  struct proto_cycles r = {0};
  const struct proto_ops *ops = proto_ops_of(p);
  if (ops->shape == PROTO_SHAPE_NONE) {
    *parts = r;
    return;
  }
  if (bytes < 0.0)
    bytes = 0.0;
  struct proto_frame fr;
  ops->frame(p, write, bytes, &fr);
  double pdus = fr.data_pdus;
  double hdr_bytes = fr.header_bytes;
  double ctrl_bytes = hdr_bytes; /* the request (read) or the response (write) */
  double data_msg_bytes = bytes + hdr_bytes * pdus + fr.lead_bytes;

  double data_frames = net_frames(data_msg_bytes, mtu_bytes, tcp_timestamps);
  double ctrl_frames = net_frames(ctrl_bytes, mtu_bytes, tcp_timestamps);
  /* Received write data: GRO aggregates of up to 64 KiB, each ACKed. */
  double rx_aggs = p->gro != 0 ? ceil(data_msg_bytes / PROTO_GRO_MAX_BYTES) : data_frames;
  double acks = write && p->gro != 0 ? rx_aggs : ceil(data_frames / 2.0);
  int tso = p->tso != 0 && p->checksum_offload != 0;
  double ack_wire = net_wire_bytes(0.0, mtu_bytes, tcp_timestamps);

  if (write) {
    r.rx_packets = data_frames;
    r.tx_packets = ctrl_frames + acks;
    r.wire_bytes_to_nas = net_wire_bytes(data_msg_bytes, mtu_bytes, tcp_timestamps);
    r.wire_bytes_from_nas = net_wire_bytes(ctrl_bytes, mtu_bytes, tcp_timestamps) + acks * ack_wire;
  } else {
    r.tx_packets = tso ? ceil(data_msg_bytes / PROTO_TSO_MAX_BYTES) : data_frames;
    r.rx_packets = ctrl_frames + acks;
    r.wire_bytes_to_nas = net_wire_bytes(ctrl_bytes, mtu_bytes, tcp_timestamps) + acks * ack_wire;
    r.wire_bytes_from_nas = net_wire_bytes(data_msg_bytes, mtu_bytes, tcp_timestamps);
  }
  r.request_cycles = c->cycles_per_request + (ops->auth_cycles ? ops->auth_cycles(p, bytes) : 0.0) +
                     (ops->sync_call_cycles ? ops->sync_call_cycles(p, write, bytes) : 0.0);
  r.byte_cycles = c->cycles_per_byte * bytes;
  r.tx_packet_cycles = c->cycles_per_packet * r.tx_packets;
  /* The received message's own segments (write data, or the read
   * command), not the ACKs of what the NAS sends; with GRO the TCP part
   * runs once per aggregate, the driver part once per frame. */
  double msg_stack = write ? rx_aggs : ctrl_frames;
  double msg_frames = write ? data_frames : ctrl_frames;
  r.rx_msg_tcp_cycles = c->tcp_rx_share * c->cycles_per_packet * msg_stack;
  r.rx_packet_cycles = c->cycles_per_packet * (r.rx_packets - msg_frames) +
                       (1.0 - c->tcp_rx_share) * c->cycles_per_packet * msg_frames + r.rx_msg_tcp_cycles;
  r.csum_cycles = p->checksum_offload != 0 ? 0.0 : c->csum_cycles_per_byte * (data_msg_bytes + ctrl_bytes);
  r.lun_cycles = proto_lun_extra_cycles(p, write);
  r.pdu_cycles = fr.pdu_costs ? c->cycles_per_pdu * pdus : 0.0;
  r.total_cycles = r.request_cycles + r.byte_cycles + r.tx_packet_cycles + r.rx_packet_cycles +
                   r.csum_cycles + r.lun_cycles + r.pdu_cycles;
  *parts = r;
}

double proto_request_cycles(const struct proto_params *p, int write, double bytes,
                            double mtu_bytes, int tcp_timestamps)
{
  struct proto_cycles r;
  proto_request_cost(p, write, bytes, mtu_bytes, tcp_timestamps, &r);
  return r.total_cycles;
}

double proto_lun_extra_cycles(const struct proto_params *p, int write)
{
  const struct proto_ops *ops = proto_ops_of(p);
  return ops->lun_extra_cycles ? ops->lun_extra_cycles(p, write) : 0.0;
}

uint64_t proto_split(const struct proto_params *p, int write, double bytes, double *chunk_bytes)
{
  double chunk = proto_ops_of(p)->chunk_bytes(p, write, bytes);
  if (bytes <= 0.0 || chunk <= 0.0 || bytes <= chunk) {
    *chunk_bytes = bytes > 0.0 ? bytes : 0.0;
    return 1;
  }
  *chunk_bytes = chunk;
  return (uint64_t)ceil(bytes / chunk);
}

int proto_max_outstanding(const struct proto_params *p, double request_bytes)
{
  return proto_ops_of(p)->max_outstanding(p, request_bytes);
}

uint64_t proto_stream_segments(const struct proto_params *p, int write, double bytes)
{
  double seg = p->stream_segment_bytes;
  const struct proto_ops *ops = proto_ops_of(p);
  if (!(ops->streams || (write && ops->streams_in)) || seg <= 0.0 || bytes <= seg)
    return 1;
  return (uint64_t)ceil(bytes / seg);
}

int proto_read_blocks(const struct proto_params *p, double bytes)
{
  const struct proto_ops *ops = proto_ops_of(p);
  return ops->read_blocks ? ops->read_blocks(p, bytes) : 0;
}

double proto_open_cycles(const struct proto_params *p)
{
  return proto_ops_of(p)->opens_files ? p->costs.cycles_per_open : 0.0;
}

int proto_close_starts_writeback(const struct proto_params *p)
{
  return proto_ops_of(p)->opens_files && p->costs.close_written_writeback > 0.0;
}

int proto_close_syncs(const struct proto_params *p)
{
  return proto_ops_of(p)->opens_files && p->costs.close_written_sync > 0.0;
}

int proto_file_requests(const struct proto_params *p, enum proto_fop op)
{
  return op != PROTO_FOP_NONE && proto_ops_of(p)->opens_files ? (int)p->costs.fop_requests[op] : 0;
}

int proto_file_op_opens(enum proto_fop op)
{
  return op == PROTO_FOP_OPEN || op == PROTO_FOP_CREATE || op == PROTO_FOP_STAT || op == PROTO_FOP_DELETE;
}

double nfs_server_max_blksize_bytes(double lowmem_bytes)
{
  /* NFSSVC_MAXBLKSIZE = RPCSVC_MAXPAYLOAD = 1 MiB; aim for 1/4096 of RAM. */
  double target_bytes = lowmem_bytes / 4096.0;
  double ret_bytes = 1048576.0;
  while (ret_bytes > target_bytes && ret_bytes >= 8.0 * 1024.0 * 2.0)
    ret_bytes /= 2.0;
  return ret_bytes;
}
