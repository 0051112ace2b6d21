/* Storage stack at scale: an 8 x 14 TB RAID-6 rebuild must be cheap in
 * events (windows of MiBs), and still exact in simulated time.  Same
 * FIFO fake devices as test_stack.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/storage/pcache.h"
#include "models/storage/stack.h"

/* ---- fake FIFO device -------------------------------------------------- */
struct fake {
  double lat_s, rate_bytes_per_s, busy_until_s;
  struct disk_io *q;
  double *done_s;
  int head, n, cap;
  uint64_t reads, writes, read_bytes, write_bytes;
};

static void *fake_create(const void *params, uint64_t seed)
{
  (void)seed;
  const double *p = params;
  struct fake *f = calloc(1, sizeof *f);
  f->lat_s = p[0];
  f->rate_bytes_per_s = p[1];
  return f;
}
static void fake_destroy(void *priv)
{
  struct fake *f = priv;
  if (f == NULL)
    return;
  free(f->q);
  free(f->done_s);
  free(f);
}
static void fake_submit(void *priv, double now_s, const struct disk_io *io)
{
  struct fake *f = priv;
  if (f->head > 0 && f->head * 2 >= f->n) { /* compact the served prefix */
    memmove(f->q, f->q + f->head, (size_t)(f->n - f->head) * sizeof *f->q);
    memmove(f->done_s, f->done_s + f->head, (size_t)(f->n - f->head) * sizeof *f->done_s);
    f->n -= f->head;
    f->head = 0;
  }
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->q = realloc(f->q, (size_t)f->cap * sizeof *f->q);
    f->done_s = realloc(f->done_s, (size_t)f->cap * sizeof *f->done_s);
  }
  double start = now_s > f->busy_until_s ? now_s : f->busy_until_s;
  f->busy_until_s = start + f->lat_s + (double)io->len_bytes / f->rate_bytes_per_s;
  f->q[f->n] = *io;
  f->done_s[f->n++] = f->busy_until_s;
  if (io->write) {
    f->writes++;
    f->write_bytes += io->len_bytes;
  } else {
    f->reads++;
    f->read_bytes += io->len_bytes;
  }
}
static double fake_next(const void *priv)
{
  const struct fake *f = priv;
  return f->head < f->n ? f->done_s[f->head] : INFINITY;
}
static int fake_pop(void *priv, double now_s, struct disk_io *done)
{
  struct fake *f = priv;
  if (f->head >= f->n || f->done_s[f->head] > now_s)
    return 0;
  *done = f->q[f->head++];
  return 1;
}
static const struct disk_model fake_model = {
    .name = "fake", .create = fake_create, .destroy = fake_destroy, .submit = fake_submit,
    .next_completion_s = fake_next, .pop_completion = fake_pop};

static struct disk *fake_disk(double lat_s, double rate)
{
  double p[2] = {lat_s, rate};
  struct disk *d = calloc(1, sizeof *d);
  d->model = &fake_model;
  d->priv = fake_create(p, 0);
  return d;
}

/* ---- harness ----------------------------------------------------------- */
#define MAXTAGS 200000
#define MAXCPU 4096
struct env {
  struct stack *s;
  struct disk *dev[16], *cdev[2], *spare[2];
  int ndev;
  struct accel parity, crypto;
  double cpu_hz, cpu_busy_s[STACK_THREAD_COUNT];
  double cpu_cycles[STACK_THREAD_COUNT];
  double cpu_t[MAXCPU];
  uint64_t cpu_tok[MAXCPU];
  int ncpu;
  unsigned char *done;     /* per tag completion count */
  double *submit_s;
  uint64_t ndone, nsub;
  double now_s, last_s;
  int qd_target;           /* closed-loop foreground: keep this many random reads */
  uint64_t fg_span_bytes;
  unsigned rng;
};

static void env_io_done(void *ctx, double now_s, uint64_t tag)
{
  struct env *e = ctx;
  if (tag >= MAXTAGS || e->done[tag] != 0 || now_s < e->submit_s[tag])
    ck_abort_msg("tag %llu: done twice, unknown, or at %g before submit", (unsigned long long)tag,
                 now_s);
  e->done[tag]++;
  e->ndone++;
}

static void env_cpu(void *ctx, enum stack_thread th, double cycles, uint64_t token)
{
  struct env *e = ctx;
  if (e->ncpu >= MAXCPU)
    ck_abort_msg("too many CPU jobs in flight");
  double start = e->now_s > e->cpu_busy_s[th] ? e->now_s : e->cpu_busy_s[th];
  e->cpu_busy_s[th] = start + cycles / e->cpu_hz;
  e->cpu_cycles[th] += cycles;
  e->cpu_t[e->ncpu] = e->cpu_busy_s[th];
  e->cpu_tok[e->ncpu++] = token;
}

static void env_submit(struct env *e, uint64_t off, uint64_t len, int write, int sync)
{
  uint64_t tag = e->nsub++;
  if (tag >= MAXTAGS)
    ck_abort_msg("too many I/Os");
  e->submit_s[tag] = e->now_s;
  struct stack_io io = {.offset_bytes = off, .len_bytes = len, .write = write, .sync = sync,
                        .tag = tag};
  stack_submit(e->s, e->now_s, &io);
}

static void env_defaults(struct stack_cfg *c)
{
  memset(c, 0, sizeof *c);
  params_defaults(volume_param_table, volume_param_count, &c->volume);
  params_defaults(pcache_param_table, pcache_param_count, &c->pcache);
  params_defaults(ssdcache_param_table, ssdcache_param_count, &c->ssdcache);
  params_defaults(crypt_param_table, crypt_param_count, &c->crypt);
}

/* Create an env: n members of (lat, rate); cfg fields filled by caller. */
static struct env *env_new(struct stack_cfg *c, int n, double lat_s, double rate)
{
  struct env *e = calloc(1, sizeof *e);
  e->done = calloc(MAXTAGS, 1);
  e->submit_s = calloc(MAXTAGS, sizeof *e->submit_s);
  e->cpu_hz = 1e9;
  e->rng = 1;
  e->ndev = n;
  for (int i = 0; i < n; i++)
    e->dev[i] = fake_disk(lat_s, rate);
  for (int i = 0; i < 2; i++) {
    e->cdev[i] = fake_disk(50e-6, 500e6);
    e->spare[i] = fake_disk(lat_s, rate);
  }
  c->members = e->dev;
  c->volume.members = n;
  if (c->ncache_devs > 0)
    c->cache_devs = e->cdev;
  c->spares = e->spare;
  c->nspares = 2;
  struct stack_hooks h = {.ctx = e, .io_done = env_io_done, .cpu_work = env_cpu};
  struct nw_err err;
  e->s = stack_create(c, &h, &err);
  ck_assert_msg(e->s != NULL, "stack_create: %s", err.msg);
  return e;
}

static void env_free(struct env *e)
{
  stack_destroy(e->s);
  for (int i = 0; i < e->ndev; i++) {
    fake_destroy(e->dev[i]->priv);
    free(e->dev[i]);
  }
  for (int i = 0; i < 2; i++) {
    fake_destroy(e->cdev[i]->priv);
    free(e->cdev[i]);
    fake_destroy(e->spare[i]->priv);
    free(e->spare[i]);
  }
  free(e->done);
  free(e->submit_s);
  free(e);
}

static uint64_t env_rand(struct env *e)
{
  e->rng = e->rng * 1103515245u + 12345u;
  return e->rng >> 8;
}

/* Run until nothing is left (or t_end); keeps the closed-loop foreground. */
static void env_run(struct env *e, double t_end)
{
  for (;;) {
    double ts = stack_next_event_s(e->s);
    int ci = -1;
    double tc = INFINITY;
    for (int i = 0; i < e->ncpu; i++)
      if (e->cpu_t[i] < tc) {
        tc = e->cpu_t[i];
        ci = i;
      }
    double t = ts < tc ? ts : tc;
    if (!(t < INFINITY) || t > t_end)
      break;
    if (t < e->now_s) /* (plain if: a passing ck_assert costs a pipe write in fork mode) */
      ck_abort_msg("event at %.9f before now %.9f", t, e->now_s);
    e->now_s = t;
    if (tc <= ts) {
      uint64_t tok = e->cpu_tok[ci];
      e->cpu_t[ci] = e->cpu_t[e->ncpu - 1];
      e->cpu_tok[ci] = e->cpu_tok[--e->ncpu];
      stack_cpu_done(e->s, t, tok);
    } else {
      stack_advance(e->s, t);
    }
    /* closed-loop random 4 KiB reads while a background op runs */
    while (e->qd_target > 0 && stack_ops_running(e->s) &&
           e->nsub - e->ndone < (uint64_t)e->qd_target) {
      uint64_t off = env_rand(e) % (e->fg_span_bytes / 4096) * 4096;
      env_submit(e, off, 4096, 0, 0);
    }
  }
}

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_big_rebuild_events)
{
  /* 8 x 14 TB RAID-6 rebuild: windows of MiBs keep it to ~10^6 events */
  struct stack_cfg c;
  env_defaults(&c);
  c.volume.level = 5;
  c.member_bytes = 14000000000000ull;
  struct accel eng;
  accel_init(&eng, "raid6", 2e9, 0);
  c.parity_engine = &eng;
  struct env *e = env_new(&c, 8, 1e-3, 250e6);
  struct stack_op_cfg op = {.kind = STACK_OP_REBUILD, .failed_member = 3};
  struct nw_err err;
  clock_t t0 = clock();
  ck_assert_int_eq(stack_start_op(e->s, 0.0, &op, &err), 0);
  env_run(e, INFINITY);
  double wall = (double)(clock() - t0) / CLOCKS_PER_SEC;
  struct stack_op_report r;
  stack_op_get(e->s, 0, &r);
  double want = 14e12 / (200000.0 * 1024); /* speed_limit_max < 250 MB/s */
  ck_assert_msg(fabs((r.end_s - r.start_s) / want - 1) < 0.02, "14 TB rebuild %g s, want %g s",
                r.end_s - r.start_s, want);
  ck_assert_msg(wall < 5.0, "14 TB rebuild took %g s of wall time", wall);
  env_free(e);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("storage_rebuild");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_big_rebuild_events);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
