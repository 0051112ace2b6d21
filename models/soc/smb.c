/* smb.c - SMB2/3 served by Samba's smbd: one single-threaded process per
 * client connection. */
#include <math.h>

#include "models/net/lacp.h"
#include "models/soc/proto.h"

static void smb_frame(const struct proto_params *p, int write, double bytes, struct proto_frame *f)
{
  (void)p;
  (void)write;
  (void)bytes;
  *f = (struct proto_frame){.header_bytes = PROTO_SMB_HEADER_BYTES, .data_pdus = 1.0};
}

static double smb_chunk_bytes(const struct proto_params *p, int write, double bytes)
{
  (void)write;
  (void)bytes;
  return p->smb_max_io_bytes;
}

/* Credits / credit charge (1 per started 64 KiB, MS-SMB2 3.1.5.2). */
static int smb_max_outstanding(const struct proto_params *p, double request_bytes)
{
  double charge = request_bytes > 0.0 ? ceil(request_bytes / PROTO_SMB_CREDIT_BYTES) : 1.0;
  double n = floor(p->smb_credits / charge);
  return n < 1.0 ? 1 : (int)n;
}

static int smb_window(const struct proto_params *p)
{
  return p->smb_credits > 0 ? (int)p->smb_credits : PROTO_UNBOUNDED;
}

/* A request below Samba's aio size of its direction ('aio read size',
 * 'aio write size'; any, with 0) is a pread()/pwrite() smbd makes itself;
 * at or above it the aio pool's thread makes the call and smbd goes on. */
static int smb_call_sync(const struct proto_params *p, int write, double bytes)
{
  double aio = write ? p->smb_aio_write_size_bytes : p->smb_aio_read_size_bytes;
  return aio <= 0.0 || bytes < aio;
}

/* A synchronous read sleeps in pread() on a page-cache miss. */
static int smb_read_blocks(const struct proto_params *p, double bytes)
{
  return smb_call_sync(p, 0, bytes);
}

/* A synchronous call's file-system work (on a btrfs volume the extent and
 * checksum-tree look-ups of a read, the delalloc reservation and extent
 * locking of a buffered write) and the process's sleep and wake-up around
 * it are on smbd's one thread; the aio pool's thread's are not charged.
 * A request without data (a file operation's CREATE, QUERY_INFO, CLOSE)
 * is no read or write: the file system's work below an operation is
 * cycles_per_open's, once, with its first request. */
static double smb_sync_call_cycles(const struct proto_params *p, int write, double bytes)
{
  return bytes > 0.0 && smb_call_sync(p, write, bytes) ? p->costs.sync_call_cycles : 0.0;
}

static int smb_conns_per_nic_pair(const struct proto_params *p)
{
  return p->multichannel > 0 ? (int)p->smb_connections_per_nic : 0;
}

const struct proto_ops proto_smb_ops = {
    .name = "smb",
    .label = "CIFS",
    .shape = PROTO_SHAPE_PROCESS,
    .daemon = "smbd",
    .daemon_who = "smbd",
    .header_bytes = PROTO_SMB_HEADER_BYTES,
    .service_port = LACP_PORT_SMB,
    .opens_files = 1,
    .streams = 1,
    .frame = smb_frame,
    .chunk_bytes = smb_chunk_bytes,
    .max_outstanding = smb_max_outstanding,
    .window = smb_window,
    .session_window = proto_ops_unbounded,
    .sync_writes = proto_ops_never,
    .read_blocks = smb_read_blocks,
    .conns_per_nic_pair = smb_conns_per_nic_pair,
    .sync_call_cycles = smb_sync_call_cycles,
};
