#include "models/net/tcp.h"

#include <math.h>

double tcp_window_rate_cap(double window_bytes, double rtt_s)
{
  if (rtt_s <= 0.0)
    return INFINITY;
  return window_bytes / rtt_s;
}

double tcp_bdp_bytes(double rate_bytes_per_s, double rtt_s)
{
  return rate_bytes_per_s * rtt_s;
}

double tcp_conn_rate_cap(double path_payload_rate_bytes_per_s, double window_bytes, double rtt_s)
{
  double cap = tcp_window_rate_cap(window_bytes, rtt_s);
  return path_payload_rate_bytes_per_s < cap ? path_payload_rate_bytes_per_s : cap;
}

double tcp_outstanding_bytes_cap(double window_bytes, double rate_bytes_per_s, double rtt_s,
                                 double mss_bytes)
{
  double bdp = tcp_bdp_bytes(rate_bytes_per_s, rtt_s);
  double cap = window_bytes < bdp ? window_bytes : bdp;
  return cap < mss_bytes ? mss_bytes : cap;
}

int tcp_requests_per_window(double window_bytes, double request_bytes)
{
  if (request_bytes <= 0.0 || window_bytes <= request_bytes)
    return 1;
  double n = floor(window_bytes / request_bytes);
  return n > 1e9 ? 1000000000 : (int)n;
}
