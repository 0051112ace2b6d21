/* iscsi.c - iSCSI served by LIO: per session a receive thread (iscsi_trx)
 * and a transmit thread (iscsi_ttx).  iscsi_target_rx_thread takes one PDU
 * at a time (iscsit_get_rx_pdu: the 48-byte BHS, then the data segment,
 * drivers/target/iscsi/iscsi_target.c), so a write's Data-Out PDUs are
 * received, TCP layer and copy into the command's pages, as they arrive,
 * while the rest of the burst is still on the wire (streams_in). */
#include <math.h>

#include "models/net/lacp.h"
#include "models/soc/proto.h"

/* A burst travels as PDUs of the receiver's MaxRecvDataSegmentLength
 * (Data-Out: the target's; Data-In: the initiator's), each with a BHS; a
 * write's SCSI Command PDU goes ahead of its Data-Out.  A read's status
 * rides in the last Data-In PDU (S bit). */
static void iscsi_frame(const struct proto_params *p, int write, double bytes, struct proto_frame *f)
{
  *f = (struct proto_frame){.header_bytes = PROTO_ISCSI_BHS_BYTES, .data_pdus = 1.0,
                            .lead_bytes = write ? PROTO_ISCSI_BHS_BYTES : 0.0, .pdu_costs = bytes > 0.0};
  if (bytes > 0.0)
    f->data_pdus = ceil(bytes / (write ? p->iscsi_target_max_recv_data_segment_bytes
                                       : p->iscsi_max_recv_data_segment_bytes));
}

static double iscsi_chunk_bytes(const struct proto_params *p, int write, double bytes)
{
  (void)write;
  (void)bytes;
  return p->iscsi_max_burst_bytes;
}

/* LIO advances MaxCmdSN as it answers commands, so a session has at most
 * its default_cmdsn_depth (TA_DEFAULT_CMDSN_DEPTH, 64) at the target; the
 * initiator holds the rest until a response opens the window (RFC 7143
 * 3.2.2.1).  0: no window. */
static int iscsi_session_window(const struct proto_params *p)
{
  return p->iscsi_cmdsn_depth > 0 ? (int)p->iscsi_cmdsn_depth : PROTO_UNBOUNDED;
}

static int iscsi_max_outstanding(const struct proto_params *p, double request_bytes)
{
  (void)request_bytes;
  return iscsi_session_window(p);
}

/* Reads and writes both look up the file's extents. */
static double iscsi_lun_extra_cycles(const struct proto_params *p, int write)
{
  (void)write;
  if ((enum proto_lun)p->iscsi_lun == PROTO_LUN_FILE)
    return p->costs.file_lun_cycles_per_request;
  if ((enum proto_lun)p->iscsi_lun == PROTO_LUN_THIN)
    return p->costs.file_lun_cycles_per_request + p->costs.thin_cycles_per_request;
  return 0.0;
}

const struct proto_ops proto_iscsi_ops = {
    .name = "iscsi",
    .label = "iscsi",
    .shape = PROTO_SHAPE_RXTX,
    .daemon = "iscsi_trx",
    .daemon_who = "iscsi_trx",
    .tx_daemon = "iscsi_ttx",
    .header_bytes = PROTO_ISCSI_BHS_BYTES,
    .service_port = LACP_PORT_ISCSI,
    .blocking_reader = 1,
    .streams_in = 1,
    .frame = iscsi_frame,
    .chunk_bytes = iscsi_chunk_bytes,
    .max_outstanding = iscsi_max_outstanding,
    .window = proto_ops_unbounded,
    .session_window = iscsi_session_window,
    .sync_writes = proto_ops_never,
    .conns_per_nic_pair = proto_ops_never,
    .lun_extra_cycles = iscsi_lun_extra_cycles,
};
