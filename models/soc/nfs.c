/* nfs.c - NFSv3 served by knfsd: a pool of kernel threads shared by all
 * clients, each sleeping in the file system until its request is done. */
#include "models/net/lacp.h"
#include "models/soc/proto.h"

static void nfs_frame(const struct proto_params *p, int write, double bytes, struct proto_frame *f)
{
  (void)p;
  (void)write;
  (void)bytes;
  *f = (struct proto_frame){.header_bytes = PROTO_NFS_HEADER_BYTES, .data_pdus = 1.0};
}

static double nfs_chunk_bytes(const struct proto_params *p, int write, double bytes)
{
  (void)bytes;
  return write ? p->nfs_wsize_bytes : p->nfs_rsize_bytes;
}

/* The pool's threads are the requests in service; the rest wait in the socket. */
static int nfs_max_outstanding(const struct proto_params *p, double request_bytes)
{
  (void)request_bytes;
  return (int)p->nfs_threads;
}

static int nfs_sync_writes(const struct proto_params *p)
{
  return p->nfs_sync > 0;
}

static int nfs_pool_threads(const struct proto_params *p)
{
  return (int)p->nfs_threads;
}

const struct proto_ops proto_nfs_ops = {
    .name = "nfs",
    .label = "nfs",
    .shape = PROTO_SHAPE_POOL,
    .daemon = "nfsd",
    .daemon_who = "nfsd kernel thread",
    .header_bytes = PROTO_NFS_HEADER_BYTES,
    .service_port = LACP_PORT_NFS,
    .opens_files = 1,
    .frame = nfs_frame,
    .chunk_bytes = nfs_chunk_bytes,
    .max_outstanding = nfs_max_outstanding,
    .window = proto_ops_unbounded,
    .session_window = proto_ops_unbounded,
    .sync_writes = nfs_sync_writes,
    .conns_per_nic_pair = proto_ops_never,
    .pool_threads = nfs_pool_threads,
};
