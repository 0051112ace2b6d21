/* Discards down the block path: md's split by level (raid_plan_discard),
 * the stack passing them to members that deallocate and dropping them
 * over drives that advertise none, and a flash drive whose write
 * amplification falls once part of its data is discarded. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/params.h"
#include "models/disks/disk.h"
#include "storage_harness.c.inc"

#define KIB 1024u

static void dc_geom(struct raid_geom *g, int level, int n)
{
  struct nw_err err;
  ck_assert_msg(raid_geom_init(g, level, 0, n, 64 * KIB, 1024 * 64 * KIB, &err) == 0, "%s", err.msg);
}

/* RAID-0 and RAID-10 split a discard by chunk, RAID-1 sends it to both
 * copies; RAID-5/6 pass only the whole stripes inside the range, on
 * every member (parity too), as raid5.c make_discard_request. */
START_TEST(test_discard_plan)
{
  struct raid_geom g;
  struct raid_plan p;
  memset(&p, 0, sizeof p);
  dc_geom(&g, RAID_0, 4);
  raid_plan_discard(&g, 0, 512 * KIB, &p);
  for (int m = 0; m < 4; m++)
    ck_assert_uint_eq(raid_ext_bytes(&p.writes, m), 128 * KIB);
  ck_assert_int_eq(p.reads.n, 0);
  raid_plan_reset(&p);
  dc_geom(&g, RAID_1, 2);
  raid_plan_discard(&g, 4 * KIB, 100 * KIB, &p);
  ck_assert(raid_ext_bytes(&p.writes, 0) == 100 * KIB && raid_ext_bytes(&p.writes, 1) == 100 * KIB);
  raid_plan_reset(&p);
  dc_geom(&g, RAID_10, 4);
  raid_plan_discard(&g, 0, 256 * KIB, &p); /* 4 chunks, 2 copies each */
  ck_assert_uint_eq(raid_ext_bytes(&p.writes, -1), 512 * KIB);
  raid_plan_reset(&p);
  dc_geom(&g, RAID_5, 4); /* stripe: 3 x 64 KiB */
  raid_plan_discard(&g, 64 * KIB, 448 * KIB, &p); /* [64K, 512K): stripe 1 only */
  for (int m = 0; m < 4; m++)
    ck_assert_msg(raid_ext_bytes(&p.writes, m) == 64 * KIB, "member %d: %llu", m,
                  (unsigned long long)raid_ext_bytes(&p.writes, m));
  ck_assert_int_eq(p.writes.v[0].offset_bytes, 64 * KIB);
  raid_plan_reset(&p);
  raid_plan_discard(&g, 4 * KIB, 180 * KIB, &p); /* inside one stripe: nothing passes */
  ck_assert_int_eq(p.writes.n, 0);
  raid_plan_reset(&p);
  dc_geom(&g, RAID_6, 6); /* stripe: 4 x 64 KiB */
  raid_plan_discard(&g, 0, 1024 * KIB, &p);
  ck_assert_uint_eq(raid_ext_bytes(&p.writes, -1), 6 * 4 * 64 * KIB);
  raid_plan_free(&p);
}
END_TEST

/* The fake members with a discard-capable table (flash-like). */
static struct disk_model dc_fake_discard;

/* A RAID-5 volume of 4 members: three whole stripes discarded reach every
 * member as 3 x 64 KiB; with members that advertise no discard (as HDDs)
 * nothing reaches them and the request still completes. */
START_TEST(test_discard_stack)
{
  for (int cap = 0; cap < 2; cap++) {
    struct stack_cfg c;
    env_volume(&c, RAID_5, 1024 * 64 * KIB);
    struct env *e = env_new(&c, 4, 100e-6, 200e6);
    dc_fake_discard = fake_model;
    dc_fake_discard.discard = 1;
    for (int m = 0; m < 4 && cap; m++)
      e->dev[m]->model = &dc_fake_discard;
    uint64_t tag = e->nsub++;
    e->submit_s[tag] = e->now_s;
    struct stack_io io = {.offset_bytes = 0, .len_bytes = 9 * 64 * KIB, .write = 1, .discard = 1, .tag = tag};
    stack_submit(e->s, e->now_s, &io);
    env_run(e, 1.0);
    ck_assert_int_eq(e->ndone, 1);
    for (int m = 0; m < 4; m++) {
      uint64_t got = F(e->dev[m])->write_bytes;
      ck_assert_msg(got == (cap ? 3 * 64 * KIB : 0), "cap %d member %d: %llu bytes discarded", cap, m,
                    (unsigned long long)got);
    }
    env_free(e);
  }
}
END_TEST

static struct disk *dc_flash(double factor)
{
  const struct disk_model *m = disk_model_find("sata_ssd");
  static double v[64];
  memset(v, 0, sizeof v);
  params_defaults(m->params, m->nparams, v);
  const struct {
    const char *key;
    double val;
  } set[] = {{"capacity", 256e9},       {"read_latency", 80e-6},    {"write_latency", 400e-6},
             {"channels", 4},           {"dies_per_channel", 2},    {"read_rate", 550e6},
             {"channel_rate", 4e9},     {"write_rate", 400e6},      {"power_active", 3.0},
             {"power_idle", 0.5},       {"steady_state_write_factor", factor}};
  for (size_t k = 0; k < sizeof set / sizeof set[0]; k++)
    for (size_t i = 0; i < m->nparams; i++)
      if (!strcmp(m->params[i].key, set[k].key))
        *(double *)((char *)v + m->params[i].offset) = set[k].val;
  struct disk *d = disk_create(m, v, "ssd", 7);
  ck_assert_ptr_nonnull(d);
  return d;
}

/* n random 4 KiB writes at depth 32 over [0, span): IOPS. */
static double dc_rand_writes(struct disk *d, double *now, int n, uint64_t span)
{
  uint64_t rs = 3;
  int sub = 0, done = 0, out = 0;
  double t0 = *now;
  while (done < n) {
    while (out < 32 && sub < n) {
      rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
      struct disk_io io = {.offset_bytes = ((rs >> 20) % (span / 4096)) * 4096, .len_bytes = 4096, .write = 1};
      disk_submit(d, *now, &io);
      sub++, out++;
    }
    *now = disk_next_completion_s(d);
    struct disk_io x;
    while (disk_pop_completion(d, *now, &x))
      done++, out--;
  }
  return n / (*now - t0);
}

/* A drive written all over (factor 8: a = 1.068) runs random writes in
 * its lower half at WA 8.  With the upper half discarded first, that half
 * is spare: a_f = (a - 1 + 1) / (1 - 0.5) = 2a, WA = 1 / (1 - x), x =
 * exp(-2a (1 - x)).  Fails without the discard's deallocation. */
START_TEST(test_discard_flash_wa)
{
  double a = -log(1.0 - 1.0 / 8) / (1.0 / 8), x = 0;
  for (int i = 0; i < 20000; i++)
    x = exp(-2.0 * a * (1.0 - x));
  double want_wa = 1.0 / (1.0 - x);
  double r[2];
  for (int k = 0; k < 2; k++) {
    struct disk *d = dc_flash(8);
    struct disk_precond pc = {.len_bytes = (uint64_t)256e9, .run_bytes = 4096, .write_fraction = 1};
    disk_precondition(d, &pc);
    double now = 0;
    if (k == 1) {
      struct disk_io io = {.offset_bytes = (uint64_t)128e9, .len_bytes = (uint64_t)128e9, .write = 1, .discard = 1};
      disk_submit(d, now, &io);
      now = disk_next_completion_s(d);
      ck_assert_msg(now < 1e-3, "a discard is a command, not a transfer: done at %g s", now);
      struct disk_io x2;
      ck_assert(disk_pop_completion(d, now, &x2) && x2.discard);
      struct disk_stats st;
      disk_stats(d, now, &st);
      ck_assert(st.discards == 1 && st.discard_bytes == (uint64_t)128e9 && st.writes == 0);
    }
    r[k] = dc_rand_writes(d, &now, 6000, (uint64_t)128e9);
    disk_destroy(d);
  }
  ck_assert_msg(fabs(r[0] * 8 / 80e3 - 1) < 0.05, "no discard: %.0f IOPS, want 80k / 8", r[0]);
  ck_assert_msg(fabs(r[1] * want_wa / 80e3 - 1) < 0.05, "half discarded: %.0f IOPS, want 80k / %.2f", r[1], want_wa);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("discard");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_discard_plan);
  tcase_add_test(tc, test_discard_stack);
  tcase_add_test(tc, test_discard_flash_wa);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
