/* frame.h - exact Ethernet/IPv4/TCP framing arithmetic, and UDP datagrams over IPv4/IPv6 (below).
 *
 * Every TCP segment travels in one Ethernet frame.  On the wire a frame
 * costs its IP packet (at most the MTU) plus 38 bytes of Ethernet
 * overhead: preamble+SFD 8, destination and source MAC 12, EtherType 2,
 * FCS 4, and the 12-byte inter-frame gap (IEEE 802.3).  Inside the IP
 * packet, IPv4 (20) + TCP (20) headers take 40 bytes, 52 with the TCP
 * timestamp option (RFC 7323: 10 bytes + 2 NOP padding).  So the TCP
 * payload per frame (the MSS) is mtu - 40 (or - 52), e.g.
 *   MTU 1500: 1460 payload bytes per 1538 wire bytes (94.93 %)
 *   MTU 9000: 8960 payload bytes per 9038 wire bytes (99.14 %)
 * Frames shorter than the 64-byte Ethernet minimum are padded (this only
 * matters for tiny segments such as pure ACKs). */
#ifndef NASTWIN_NET_FRAME_H
#define NASTWIN_NET_FRAME_H

/* Ethernet per-frame overhead on the wire outside the IP packet (bytes). */
#define NET_ETH_OVERHEAD_BYTES 38.0
/* IPv4 + TCP headers without options (bytes). */
#define NET_IPV4_TCP_HEADER_BYTES 40.0
/* TCP timestamp option, padded to 4-byte alignment (bytes, RFC 7323). */
#define NET_TCP_TIMESTAMP_BYTES 12.0
/* Minimum Ethernet frame, MACs to FCS (bytes, IEEE 802.3). */
#define NET_ETH_MIN_FRAME_BYTES 64.0
/* Ethernet header + FCS, the part of the 38-byte overhead counted in the
 * 64-byte minimum frame (bytes). */
#define NET_ETH_HEADER_FCS_BYTES 18.0

/* IPv4+TCP header bytes per segment (bytes): 40, or 52 with timestamps. */
double net_header_bytes(int tcp_timestamps);

/* TCP payload per full frame, the MSS (bytes): mtu - 40 (- 12 with timestamps). */
double net_payload_per_frame(double mtu_bytes, int tcp_timestamps);

/* Wire bytes of one full frame (bytes): mtu + 38. */
double net_wire_bytes_per_frame(double mtu_bytes);

/* Frames needed to carry payload_bytes of TCP payload: ceil(payload / MSS);
 * 1 for an empty payload (a pure ACK / control segment still is a frame). */
double net_frames(double payload_bytes, double mtu_bytes, int tcp_timestamps);

/* Bytes on the wire to carry payload_bytes (bytes): payload + per-frame
 * headers + Ethernet overhead, the short last frame padded to the minimum. */
double net_wire_bytes(double payload_bytes, double mtu_bytes, int tcp_timestamps);

/* Payload fraction of the wire for a long stream of full frames (0..1). */
double net_payload_efficiency(double mtu_bytes, int tcp_timestamps);

/* TCP payload rate of a link running full frames (bytes/s):
 * line_rate_bytes_per_s * net_payload_efficiency. */
double net_payload_rate_bytes_per_s(double line_rate_bytes_per_s, double mtu_bytes,
                                    int tcp_timestamps);

/* UDP (RFC 768) datagrams, as fio's net engine sends them with
 * protocol=udp or udpv6: one sendto() of bs bytes is one datagram with an
 * 8-byte UDP header, in one IP packet (IPv4 20 bytes of header, IPv6 40)
 * when it fits the MTU; a larger one is cut into IP fragments (RFC 791,
 * RFC 8200 section 4.5): every fragment but the last carries a multiple of
 * 8 bytes of the datagram, at most mtu - 20 (IPv4) or mtu - 48 (IPv6: its
 * 8-byte Fragment header is in every fragment) rounded down to 8; losing
 * any fragment loses the datagram.  No window, no ACK, no retransmission:
 * a datagram the receiver's socket buffer cannot hold is dropped.  A
 * datagram is at most 65507 payload bytes over IPv4 (65535 - 20 - 8) and
 * 65527 over IPv6 (65535 payload length - 8); larger ones fail (EMSGSIZE). */
#define NET_UDP_HEADER_BYTES 8.0
#define NET_IPV4_HEADER_BYTES 20.0
#define NET_IPV6_HEADER_BYTES 40.0
#define NET_IPV6_FRAGMENT_HEADER_BYTES 8.0
#define NET_UDP_MAX_PAYLOAD_V4 65507.0
#define NET_UDP_MAX_PAYLOAD_V6 65527.0

/* A UDP socket's receive buffer when the application sets none (bytes):
 * Linux net.core.rmem_default, 212992 on 64-bit kernels
 * (Documentation/admin-guide/sysctl/net.rst; 256 sk_buffs of 832 B);
 * an application's SO_RCVBUF is doubled by the kernel (socket(7)). */
#define NET_UDP_RMEM_DEFAULT_BYTES 212992.0

/* The largest UDP payload one datagram carries (bytes). */
double net_udp_max_payload(int ipv6);
/* IP packets (= Ethernet frames) one datagram of payload_bytes takes:
 * 1 when IP + UDP headers + payload fit the MTU, else its fragments. */
double net_udp_frames(double payload_bytes, double mtu_bytes, int ipv6);
/* Bytes on the wire for one datagram of payload_bytes (bytes): its
 * frames' IP headers (+ Fragment headers), the UDP header once, Ethernet
 * overhead per frame, a frame under 64 bytes padded. */
double net_udp_wire_bytes(double payload_bytes, double mtu_bytes, int ipv6);
/* UDP payload rate of a link carrying only datagrams of payload_bytes
 * (bytes/s): line_rate * payload / wire bytes per datagram. */
double net_udp_payload_rate_bytes_per_s(double line_rate_bytes_per_s, double payload_bytes, double mtu_bytes,
                                        int ipv6);
/* Datagrams lost at a receiver over window_s (count): sent at
 * offered_per_s, taken off its socket buffer at drain_per_s, the buffer
 * holding buffer_datagrams; those arriving at a full buffer are dropped:
 * max(0, (offered - drain) * window - buffer), never more than sent. */
double net_udp_lost(double offered_per_s, double drain_per_s, double buffer_datagrams, double window_s);

#endif
