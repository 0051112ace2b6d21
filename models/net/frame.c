#include "models/net/frame.h"

#include <math.h>

double net_header_bytes(int tcp_timestamps)
{
  return NET_IPV4_TCP_HEADER_BYTES + (tcp_timestamps ? NET_TCP_TIMESTAMP_BYTES : 0.0);
}

double net_payload_per_frame(double mtu_bytes, int tcp_timestamps)
{
  return mtu_bytes - net_header_bytes(tcp_timestamps);
}

double net_wire_bytes_per_frame(double mtu_bytes)
{
  return mtu_bytes + NET_ETH_OVERHEAD_BYTES;
}

double net_frames(double payload_bytes, double mtu_bytes, int tcp_timestamps)
{
  double mss_bytes = net_payload_per_frame(mtu_bytes, tcp_timestamps);
  if (payload_bytes <= 0.0 || mss_bytes <= 0.0)
    return 1.0;
  return ceil(payload_bytes / mss_bytes);
}

double net_wire_bytes(double payload_bytes, double mtu_bytes, int tcp_timestamps)
{
  double mss_bytes = net_payload_per_frame(mtu_bytes, tcp_timestamps);
  double hdr_bytes = net_header_bytes(tcp_timestamps);
  if (payload_bytes < 0.0)
    payload_bytes = 0.0;
  double frames = net_frames(payload_bytes, mtu_bytes, tcp_timestamps);
  double full = frames - 1.0;
  double last_payload = payload_bytes - full * mss_bytes;
  /* The last (possibly short) frame: pad its MAC-to-FCS part to 64 bytes. */
  double last_frame = NET_ETH_HEADER_FCS_BYTES + hdr_bytes + last_payload;
  if (last_frame < NET_ETH_MIN_FRAME_BYTES)
    last_frame = NET_ETH_MIN_FRAME_BYTES;
  double last_wire = last_frame + (NET_ETH_OVERHEAD_BYTES - NET_ETH_HEADER_FCS_BYTES);
  return full * net_wire_bytes_per_frame(mtu_bytes) + last_wire;
}

double net_payload_efficiency(double mtu_bytes, int tcp_timestamps)
{
  return net_payload_per_frame(mtu_bytes, tcp_timestamps) / net_wire_bytes_per_frame(mtu_bytes);
}

double net_payload_rate_bytes_per_s(double line_rate_bytes_per_s, double mtu_bytes,
                                    int tcp_timestamps)
{
  return line_rate_bytes_per_s * net_payload_efficiency(mtu_bytes, tcp_timestamps);
}
