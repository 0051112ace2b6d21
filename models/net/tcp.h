/* tcp.h - the TCP effects that bound a single connection.
 *
 * A connection can have at most one receive window of unacknowledged
 * bytes in flight, so its rate is at most window / RTT; on a LAN the
 * window is normally far above the bandwidth-delay product and the link
 * is the limit, but small windows (old clients, no window scaling) or
 * long RTTs cap a connection below the line rate.  One TCP connection
 * never spans bond members, so per-connection caps also bound what one
 * client gets from a bond. */
#ifndef NASTWIN_TCP_H
#define NASTWIN_TCP_H

/* Window-limited rate of one connection (bytes/s): window / rtt;
 * INFINITY when rtt_s <= 0. */
double tcp_window_rate_cap(double window_bytes, double rtt_s);

/* Bandwidth-delay product (bytes): rate * rtt. */
double tcp_bdp_bytes(double rate_bytes_per_s, double rtt_s);

/* Rate one connection can reach (bytes/s): min(path payload rate,
 * window / rtt). */
double tcp_conn_rate_cap(double path_payload_rate_bytes_per_s, double window_bytes,
                         double rtt_s);

/* Bytes a connection may have outstanding (bytes): min(window, BDP) once
 * the pipe is full, never less than one segment of mss_bytes.  Keeping
 * more than this queued just waits in the sender's socket buffer. */
double tcp_outstanding_bytes_cap(double window_bytes, double rate_bytes_per_s, double rtt_s,
                                 double mss_bytes);

/* Requests of request_bytes each whose data fits in one window at once
 * (count, >= 1): floor(window / request_bytes). */
int tcp_requests_per_window(double window_bytes, double request_bytes);

#endif
