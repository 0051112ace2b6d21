/* stack_crypt.c - folder encryption in the storage stack (DSM: eCryptfs,
 * AES-CBC).  Client requests, their read-ahead and write-back pay AES:
 * before a write reaches the disks (ST_CRYPT_W) and after a read comes
 * back (ST_CRYPT_R), on the crypto engine or a core (STACK_THREAD_CRYPT).
 * CBC encryption is a chain; decryption pipelines (see the README). */
#include "models/storage/stack_impl.h"

static int stk_crypt_applies(const struct stack *s, const struct stk_req *r)
{
  return s->crypt_on && (r->kind == RQ_CLIENT || r->kind == RQ_RA || r->kind == RQ_FLUSH);
}

void stk_crypt_write(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  if (stk_crypt_applies(s, r) && r->write)
    stk_compute(s, r, c->crypto_engine, (double)r->len, STACK_THREAD_CRYPT,
                (double)r->len * c->crypt.cpu_cycles_per_byte, t);
}

/* CBC decryption: the engine pipelines blocks (speedup over its
 * encryption rate), the CPU path has its own cycles per byte */
void stk_crypt_read(struct stack *s, struct stk_req *r, double t)
{
  const struct stack_cfg *c = &s->cfg;
  if (!stk_crypt_applies(s, r) || r->write)
    return;
  double sp = c->crypto_engine_decrypt_speedup > 1 ? c->crypto_engine_decrypt_speedup : 1;
  double cpb = c->crypt.cpu_decrypt_cycles_per_byte > 0 ? c->crypt.cpu_decrypt_cycles_per_byte
                                                        : c->crypt.cpu_cycles_per_byte;
  stk_compute(s, r, c->crypto_engine, (double)r->len / sp, STACK_THREAD_CRYPT, (double)r->len * cpb, t);
}
