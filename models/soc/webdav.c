/* webdav.c - WebDAV (HTTP/1.1 with RFC 4918 methods) served by Apache httpd
 * 2.4 + mod_dav / mod_dav_fs, as a NAS's WebDAV package runs it (Synology
 * "WebDAV Server": ports 5005 HTTP / 5006 HTTPS; QNAP likewise): a
 * server-wide pool of worker threads (MPM worker/event), each serving one
 * request at a time and sleeping in the file system until it is done.
 *
 * One HTTP request carries one whole object: fio's http engine PUTs each
 * write of bs bytes as an object of its own (a file on the share that the
 * PUT creates or replaces: mod_dav_fs writes a temporary file and renames
 * it), GETs a read back and DELETEs a trim; a request is never split.  Its
 * per-request cost (catalog/protocols.yaml webdav) therefore holds the
 * file's open/create, write or read and close, besides the HTTP parse.
 * With http_api s3 the same daemon stands for an S3 gateway: each request
 * also verifies an AWS Signature V4 (sign_cycles_per_request) and the
 * payload's SHA-256 (sign_cycles_per_byte, x-amz-content-sha256). */
#include "models/soc/proto.h"

/* Synology DSM's WebDAV Server package listens on 5005 (HTTP) / 5006
 * (HTTPS) (Synology knowledge base, "WebDAV Server"); the bond hash uses
 * the HTTP port. */
#define WEBDAV_PORT_HTTP 5005u

static void webdav_frame(const struct proto_params *p, int write, double bytes, struct proto_frame *f)
{
  (void)p;
  (void)write;
  (void)bytes;
  *f = (struct proto_frame){.header_bytes = PROTO_HTTP_HEADER_BYTES, .data_pdus = 1.0};
}

/* A whole object per request: 0 = not split. */
static double webdav_chunk_bytes(const struct proto_params *p, int write, double bytes)
{
  (void)p;
  (void)write;
  (void)bytes;
  return 0.0;
}

/* The pool's workers are the requests in service; the rest wait in the listen queue. */
static int webdav_max_outstanding(const struct proto_params *p, double request_bytes)
{
  (void)request_bytes;
  return (int)p->webdav_threads;
}

static int webdav_pool_threads(const struct proto_params *p)
{
  return (int)p->webdav_threads;
}

/* S3 gateway: SigV4 verification per request plus the payload's SHA-256. */
static double webdav_auth_cycles(const struct proto_params *p, double bytes)
{
  if ((int)p->http_api != PROTO_HTTP_S3)
    return 0.0;
  return p->costs.sign_cycles_per_request + p->costs.sign_cycles_per_byte * bytes;
}

const struct proto_ops proto_webdav_ops = {
    .name = "webdav",
    .label = "webdav",
    .shape = PROTO_SHAPE_POOL,
    .daemon = "httpd",
    .daemon_who = "Apache httpd worker thread",
    .header_bytes = PROTO_HTTP_HEADER_BYTES,
    .service_port = WEBDAV_PORT_HTTP,
    .opens_files = 1,
    .frame = webdav_frame,
    .chunk_bytes = webdav_chunk_bytes,
    .max_outstanding = webdav_max_outstanding,
    .window = proto_ops_unbounded,
    .session_window = proto_ops_unbounded,
    .sync_writes = proto_ops_never,
    .conns_per_nic_pair = proto_ops_never,
    .pool_threads = webdav_pool_threads,
    .auth_cycles = webdav_auth_cycles,
};
