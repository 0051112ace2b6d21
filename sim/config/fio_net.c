/* fio_net.c - fio's net and netsplice engines (engines/net.c) as nastwin
 * models them: one TCP stream per fio thread between the client and a
 * peer on the NAS (the scenario names the NAS: hostname=, port= and
 * listen= only say where and who connects, a multicast group too), over
 * the modelled links, with no protocol daemon and no storage behind it.
 * rw=write sends, rw=read receives; pingpong=1 waits for each message's
 * echo; protocol=udp/udpv6 sends datagrams (models/net/frame.c), with no
 * window and no ACK, lost when the receiver's socket buffer is full
 * (counted, fio's drop_ios); sim/engine/client_only.c times the stream.  What fio
 * itself refuses is refused with fio's words (fio_netio_init: "network IO
 * can't be random", datagram jobs "must be read OR write"); what nastwin
 * cannot model honestly is refused with the reason. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/net/frame.h"
#include "sim/config/fio_lang.h"

#define FIO_NET_MAX_WINDOW (1024.0 * 1048576.0) /* 1 GiB: above any socket buffer Linux grants */

int fio_net_option(struct job *j, const char *key, const char *value, char *msg, size_t msg_len)
{
  const char *v = value ? value : "";
  if (!strcmp(key, "pingpong")) {
    int b = 0;
    if (fio_parse_bool(value, &b) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: 0 or 1, or the bare flag)", key, v);
    j->net_pingpong = b;
    return 0;
  }
  if (strcmp(key, "protocol") != 0 && strcmp(key, "window_size") != 0)
    return 1;
  if (!*v)
    return fio_msg(msg, msg_len, "%s: needs a value (%s=...)", key, key);
  if (!strcmp(key, "protocol")) {
    static const char *const names[] = {"tcp", "tcpv6", "udp", "udpv6", "unix", "vsock"}; /* fio's posval */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (!strcasecmp(v, names[i])) {
        snprintf(j->net_proto, sizeof j->net_proto, "%s", names[i]);
        return 0;
      }
    return fio_msg(msg, msg_len, "protocol: bad value '%s' (allowed: tcp, tcpv6, udp, udpv6, unix, vsock)", v);
  }
  double d = 0.0;
  if (fio_parse_size(v, &d) != 0 || d < 1.0 || d > FIO_NET_MAX_WINDOW)
    return fio_msg(msg, msg_len, "window_size: bad value '%s' (allowed: bytes, 1 B .. 1 GiB, with k/m/g "
                   "suffixes)", v);
  /* fio sets SO_SNDBUF and SO_RCVBUF to it; Linux doubles the number for its
   * bookkeeping and advertises about half of that (tcp_adv_win_scale 1):
   * the window is about the value given. */
  j->net_window_bytes = d;
  return 0;
}

int fio_net_finish(struct job *j, char *msg, size_t msg_len)
{
  if (j->client_only != JOB_CLIENT_NET)
    return 0;
  const char *p = j->net_proto[0] ? j->net_proto : "tcp";
  int v6 = strstr(p, "v6") != NULL;
  for (int i = 0; !strncmp(p, "udp", 3) && i < j->nbs + j->nbs_w; i++)
    if ((i < j->nbs ? j->bs_bytes[i] : j->bs_bytes_w[i - j->nbs]) > net_udp_max_payload(v6))
      return fio_msg(msg, msg_len, "ioengine=%s protocol=%s: bs above %.0f B does not fit one UDP datagram "
                     "(sendto fails with EMSGSIZE, which fio retries for ever)", j->engine, p,
                     net_udp_max_payload(v6));
  if (!strcmp(p, "unix"))
    return fio_msg(msg, msg_len, "ioengine=%s protocol=unix: a local socket inside the client never reaches "
                   "the NAS: not simulated (protocol=tcp is)", j->engine);
  if (!strcmp(p, "vsock"))
    return fio_msg(msg, msg_len, "ioengine=%s protocol=vsock: a socket between a virtual machine and its host "
                   "does not cross the NAS's links: not simulated (protocol=tcp is)", j->engine);
  if (j->access != JOB_SEQ)
    return fio_msg(msg, msg_len, "ioengine=%s: rw must be read or write (fio: \"network IO can't be random\")",
                   j->engine);
  if (j->trim)
    return fio_msg(msg, msg_len, "ioengine=%s: rw must be read or write (a socket has nothing to trim)",
                   j->engine);
  if (j->read_frac > 0.0 && j->read_frac < 1.0)
    return fio_msg(msg, msg_len, "ioengine=%s: a job that both sends and receives on one socket (rw=rw) is "
                   "not modelled: use a job with rw=write and one with rw=read", j->engine);
  return 0;
}
