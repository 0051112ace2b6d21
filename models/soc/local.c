/* local.c - a drive inside the client: no server, no network, no NAS
 * cycles; O_DIRECT reaches the page cache it bypasses. */
#include "models/soc/proto.h"

static void local_frame(const struct proto_params *p, int write, double bytes, struct proto_frame *f)
{
  (void)p;
  (void)write;
  (void)bytes;
  *f = (struct proto_frame){.data_pdus = 1.0};
}

/* Not split. */
static double local_chunk_bytes(const struct proto_params *p, int write, double bytes)
{
  (void)p;
  (void)write;
  return bytes;
}

static int local_max_outstanding(const struct proto_params *p, double request_bytes)
{
  (void)p;
  (void)request_bytes;
  return PROTO_UNBOUNDED;
}

const struct proto_ops proto_local_ops = {
    .name = "local",
    .label = "local",
    .shape = PROTO_SHAPE_NONE,
    .direct_io = 1,
    .frame = local_frame,
    .chunk_bytes = local_chunk_bytes,
    .max_outstanding = local_max_outstanding,
    .window = proto_ops_unbounded,
    .session_window = proto_ops_unbounded,
    .sync_writes = proto_ops_never,
    .conns_per_nic_pair = proto_ops_never,
};
