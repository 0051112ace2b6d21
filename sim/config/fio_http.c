/* fio_http.c - fio's http engine (engines/http.c) as nastwin models it:
 * HTTP requests to the scenario's NAS, served by its WebDAV daemon
 * (protocol kind webdav, models/soc/webdav.c; sim/config/config.c switches
 * the scenario's protocol to it for a workload of http jobs).  As fio's
 * engine does: a write PUTs its bs bytes as an object (a file) of its own,
 * a read GETs one back, a trim DELETEs one (an unlink on the share: a
 * metadata operation, one per block of the job's io_size).
 *
 * http_mode: webdav (the NAS's WebDAV server), s3 or swift.  A NAS serves
 * no S3 or Swift of its own (Synology DSM: neither; QNAP: the QuObjects
 * app; anything: MinIO in a container), so s3 and swift run on the same
 * HTTP daemon standing for an object gateway, with a warning; s3 adds its
 * AWS Signature V4 and payload SHA-256 per request (protocol http_api s3).
 * https=on/insecure: TLS record encryption is not modelled (no protocol
 * has a per-byte encryption cost): a warning, the job runs as plain HTTP.
 * Credentials, host, region, storage class, verbosity: no timing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/soc/proto.h"
#include "sim/config/fio_lang.h"

static const char *const fio_http_plain[] = {
    "http_host",        "http_user",      "http_pass",
    "http_s3_key",      "http_s3_keyid",  "http_s3_region",
    "http_s3_sse_customer_key", "http_s3_sse_customer_algorithm", "http_s3_storage_class",
    "http_swift_auth_token"};

/* 1 when key is an http engine option with no timing (host, names, credentials). */
static int fio_http_plain_key(const char *key)
{
  for (size_t i = 0; i < sizeof fio_http_plain / sizeof fio_http_plain[0]; i++)
    if (!strcmp(key, fio_http_plain[i]))
      return 1;
  return 0;
}

int fio_http_option(struct job *j, const char *key, const char *value, char *msg, size_t msg_len)
{
  const char *v = value ? value : "";
  if (fio_http_plain_key(key))
    return 0; /* names and credentials: no timing */
  if (!strcmp(key, "http_mode")) {
    for (int i = 0; proto_http_api_names[i]; i++)
      if (!strcmp(v, proto_http_api_names[i])) {
        j->http_mode = i;
        return 0;
      }
    return fio_msg(msg, msg_len, "http_mode: bad value '%s' (allowed: webdav, s3, swift)", v);
  }
  if (!strcmp(key, "https")) {
    static const char *const names[] = {"off", "on", "insecure"}; /* fio's posval */
    for (int i = 0; i < 3; i++)
      if (!strcmp(v, names[i])) {
        j->http_https = i;
        return 0;
      }
    return fio_msg(msg, msg_len, "https: bad value '%s' (allowed: off, on, insecure)", v);
  }
  if (!strcmp(key, "http_verbose")) {
    long n = 0;
    if (fio_parse_int(v, 0, 2, &n) != 0)
      return fio_msg(msg, msg_len, "http_verbose: bad value '%s' (allowed: 0, 1 or 2)", v);
    return 0; /* libcurl's debug output on the client */
  }
  return 1;
}

int fio_http_finish(struct job *j, char *msg, size_t msg_len)
{
  if (strcmp(j->engine, "http") != 0 || !j->trim)
    return 0;
  if (j->trim == 2 || j->read_frac > 0.0 || j->rw_mixed)
    return fio_msg(msg, msg_len, "ioengine=http: a job that trims must only trim (rw=trim or randtrim, each a "
                   "DELETE of an object); trimwrite and mixes with reads or writes are not modelled for it");
  /* One DELETE per block of the job's I/O (io_size, else size). */
  double bs = j->nbs > 0 && j->bs_bytes[0] > 0 ? j->bs_bytes[0] : 4096.0;
  double io = j->io_bytes > 0 ? j->io_bytes : j->size_bytes;
  j->meta_op = JOB_META_DELETE;
  j->trim = 0;
  j->nrfiles = io > 0 ? ceil(io / bs) : 1.0;
  return 0;
}

int fio_http_notes(const struct job *j, const char *file, int line, char *out, size_t out_len)
{
  out[0] = '\0';
  if (strcmp(j->engine, "http") != 0)
    return 0;
  size_t n = 0;
  if (j->http_mode == PROTO_HTTP_S3 || j->http_mode == PROTO_HTTP_SWIFT)
    n += (size_t)snprintf(out + n, out_len - n, "%s:%d: warning: job '%s' (http_mode=%s): a NAS serves no %s "
                          "of its own (DSM: none; QNAP: the QuObjects app; MinIO in a container); simulated as "
                          "an object gateway on the NAS's HTTP daemon (protocol webdav, http_api %s)%s\n",
                          file, line, j->name, proto_http_api_names[j->http_mode],
                          j->http_mode == PROTO_HTTP_S3 ? "S3" : "Swift", proto_http_api_names[j->http_mode],
                          j->http_mode == PROTO_HTTP_S3 ? " with its AWS Signature V4 and payload SHA-256 "
                          "per request" : ", the token check inside the per-request cost");
  if (j->http_https && n < out_len)
    snprintf(out + n, out_len - n, "%s:%d: warning: job '%s' (https=%s): TLS record encryption on the NAS "
             "(port 5006) is not modelled: simulated as plain HTTP, an under-estimate of the NAS's CPU per "
             "byte\n", file, line, j->name, j->http_https == 1 ? "on" : "insecure");
  return 0;
}
