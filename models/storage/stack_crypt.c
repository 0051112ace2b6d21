/* stack_crypt.c - folder encryption in the storage stack (DSM: eCryptfs,
 * AES-CBC).  Client requests, their read-ahead and write-back pay AES:
 * before a write reaches the disks (ST_CRYPT_W) and after a read comes
 * back (ST_CRYPT_R), on the crypto engine or a core (STACK_THREAD_CRYPT).
 *
 * With an engine, as the kernel drives it: eCryptfs encrypts in
 * writepage, one page (extent) per crypto request, and waits for each --
 * write-back comes from the one flusher thread of the backing device, so
 * its pages go through one queue one after another, each paying the
 * engine's setup.  Reads decrypt in the readers' context with several
 * requests in flight, so a read's pages are spread over all the engine's
 * queues (see the README).  CBC encryption is a chain; decryption
 * pipelines (crypto_engine_decrypt_speedup). */
#include "models/storage/stack_impl.h"

/* eCryptfs extent = crypto request: ECRYPTFS_DEFAULT_EXTENT_SIZE, 4096
 * bytes (fs/ecryptfs/ecryptfs_kernel.h; PAGE_SIZE on ARMv7 and x86) */
#define STK_CRYPT_EXTENT_BYTES 4096.0
/* the engine queue write-back's synchronous page chain runs on */
#define STK_CRYPT_FLUSH_QUEUE 0

static int stk_crypt_applies(const struct stack *s, const struct stk_req *r)
{
  return s->crypt_on && (r->kind == RQ_CLIENT || r->kind == RQ_RA || r->kind == RQ_FLUSH);
}

static void stk_crypt_wait(struct stack *s, struct stk_req *r, double done_s)
{
  r->pending++;
  stk_tm_push(s, done_s, TM_REQ, r);
}

void stk_crypt_write(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  struct accel *e = c->crypto_engine;
  if (!stk_crypt_applies(s, r) || !r->write)
    return;
  if (e == NULL) {
    stk_compute(s, r, NULL, 0, STACK_THREAD_CRYPT, (double)r->len * c->crypt.cpu_cycles_per_byte, t);
    return;
  }
  /* a sync client write encrypts in the writer's context: its own chain
   * on the queue that frees first */
  int q = r->kind == RQ_FLUSH ? STK_CRYPT_FLUSH_QUEUE : accel_free_queue(e);
  stk_crypt_wait(s, r, accel_submit_chain(e, q, t, (double)r->len, STK_CRYPT_EXTENT_BYTES));
}

/* CBC decryption: the engine pipelines blocks (speedup over its
 * encryption rate), the CPU path has its own cycles per byte */
void stk_crypt_read(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  if (!stk_crypt_applies(s, r) || r->write)
    return;
  if (c->crypto_engine == NULL) {
    double cpb = c->crypt.cpu_decrypt_cycles_per_byte > 0 ? c->crypt.cpu_decrypt_cycles_per_byte
                                                          : c->crypt.cpu_cycles_per_byte;
    stk_compute(s, r, NULL, 0, STACK_THREAD_CRYPT, (double)r->len * cpb, t);
    return;
  }
  double sp = c->crypto_engine_decrypt_speedup > 1 ? c->crypto_engine_decrypt_speedup : 1;
  stk_crypt_wait(s, r, accel_submit_spread(c->crypto_engine, t, (double)r->len / sp));
}
