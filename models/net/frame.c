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

double net_udp_max_payload(int ipv6)
{
  return ipv6 ? NET_UDP_MAX_PAYLOAD_V6 : NET_UDP_MAX_PAYLOAD_V4;
}

/* Datagram bytes (UDP header + payload) every fragment but the last carries. */
static double net_udp_fragment_bytes(double mtu_bytes, int ipv6)
{
  double room = mtu_bytes - (ipv6 ? NET_IPV6_HEADER_BYTES + NET_IPV6_FRAGMENT_HEADER_BYTES : NET_IPV4_HEADER_BYTES);
  return floor(room / 8.0) * 8.0;
}

static int net_udp_fits(double payload_bytes, double mtu_bytes, int ipv6)
{
  double ip = ipv6 ? NET_IPV6_HEADER_BYTES : NET_IPV4_HEADER_BYTES;
  return ip + NET_UDP_HEADER_BYTES + payload_bytes <= mtu_bytes;
}

double net_udp_frames(double payload_bytes, double mtu_bytes, int ipv6)
{
  if (payload_bytes < 0.0)
    payload_bytes = 0.0;
  if (net_udp_fits(payload_bytes, mtu_bytes, ipv6))
    return 1.0;
  double per = net_udp_fragment_bytes(mtu_bytes, ipv6);
  return per > 0.0 ? ceil((NET_UDP_HEADER_BYTES + payload_bytes) / per) : 1.0;
}

/* Wire bytes of one frame whose IP packet is ip_bytes (the 64-byte minimum padded). */
static double net_frame_wire(double ip_bytes)
{
  double frame = NET_ETH_HEADER_FCS_BYTES + ip_bytes;
  if (frame < NET_ETH_MIN_FRAME_BYTES)
    frame = NET_ETH_MIN_FRAME_BYTES;
  return frame + (NET_ETH_OVERHEAD_BYTES - NET_ETH_HEADER_FCS_BYTES);
}

double net_udp_wire_bytes(double payload_bytes, double mtu_bytes, int ipv6)
{
  if (payload_bytes < 0.0)
    payload_bytes = 0.0;
  double ip = ipv6 ? NET_IPV6_HEADER_BYTES : NET_IPV4_HEADER_BYTES;
  double dgram = NET_UDP_HEADER_BYTES + payload_bytes;
  if (net_udp_fits(payload_bytes, mtu_bytes, ipv6))
    return net_frame_wire(ip + dgram);
  double frames = net_udp_frames(payload_bytes, mtu_bytes, ipv6);
  double per = net_udp_fragment_bytes(mtu_bytes, ipv6);
  double hdr = ip + (ipv6 ? NET_IPV6_FRAGMENT_HEADER_BYTES : 0.0);
  double last = dgram - (frames - 1.0) * per;
  return (frames - 1.0) * net_frame_wire(hdr + per) + net_frame_wire(hdr + last);
}

double net_udp_payload_rate_bytes_per_s(double line_rate_bytes_per_s, double payload_bytes, double mtu_bytes,
                                        int ipv6)
{
  return payload_bytes > 0.0 ? line_rate_bytes_per_s * payload_bytes / net_udp_wire_bytes(payload_bytes, mtu_bytes, ipv6)
                             : 0.0;
}

double net_udp_lost(double offered_per_s, double drain_per_s, double buffer_datagrams, double window_s)
{
  double sent = offered_per_s * window_s;
  double lost = (offered_per_s - drain_per_s) * window_s - buffer_datagrams;
  return lost <= 0.0 ? 0.0 : lost > sent ? sent : floor(lost);
}
