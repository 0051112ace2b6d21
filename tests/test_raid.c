/* md RAID mapping and planning: exhaustive maps, md's layouts, RAID-6
 * double-failure recovery with real GF(2^8) P+Q, I/O amplification. */
#include <check.h>
#include "ck_run.h"
#include <stdlib.h>
#include <string.h>

#include "models/storage/raid.h"

#define BLK 4096u

static void geom(struct raid_geom *g, int level, int layout, int n, uint64_t chunk, uint64_t mb)
{
  struct nw_err err;
  int rc = raid_geom_init(g, level, layout, n, chunk, mb, &err);
  ck_assert_msg(rc == 0, "geom level %d n %d: %s", level, n, err.msg);
}

/* Every logical block maps to exactly one data location, inside the
 * member, never on its stripe's parity. */
static void check_map(int level, int layout, int n, uint64_t chunk)
{
  struct raid_geom g;
  uint64_t mb = 12 * chunk;
  geom(&g, level, layout, n, chunk, mb);
  uint64_t cap = raid_capacity_bytes(&g), per = mb / BLK;
  unsigned char *used = calloc((size_t)(n * per), 1);
  for (uint64_t L = 0; L < cap; L += BLK) {
    struct raid_loc loc;
    raid_map(&g, L, &loc);
    ck_assert_msg(loc.member >= 0 && loc.member < n && loc.member_offset < mb,
                  "L=%llu -> member %d off %llu (n %d mb %llu)", (unsigned long long)L,
                  loc.member, (unsigned long long)loc.member_offset, n, (unsigned long long)mb);
    size_t k = (size_t)loc.member * per + loc.member_offset / BLK;
    ck_assert_msg(!used[k], "level %d layout %d n %d: block %llu maps onto a used location",
                  level, layout, n, (unsigned long long)L);
    used[k] = 1;
    if (loc.mirror_member >= 0) {
      ck_assert_int_ne(loc.mirror_member, loc.member);
      size_t km = (size_t)loc.mirror_member * per + loc.mirror_offset / BLK;
      ck_assert_msg(!used[km], "mirror copy collides (L=%llu)", (unsigned long long)L);
      used[km] = 1;
    }
    if (level == RAID_5 || level == RAID_6) {
      ck_assert_msg(loc.member != loc.p_member && loc.member != loc.q_member,
                    "L=%llu data on parity member %d (p %d q %d)", (unsigned long long)L,
                    loc.member, loc.p_member, loc.q_member);
      ck_assert_uint_eq(loc.stripe, loc.member_offset / chunk);
      if (level == RAID_6)
        ck_assert_int_ne(loc.p_member, loc.q_member);
    }
  }
  /* parity fills exactly the remaining blocks of every member */
  if (level == RAID_5 || level == RAID_6) {
    for (uint64_t st = 0; st < mb / chunk; st++) {
      int p, q;
      raid_parity_members(&g, st, &p, &q);
      int roles[2] = {p, q};
      for (int r = 0; r < 2; r++) {
        if (roles[r] < 0)
          continue;
        for (uint64_t b = 0; b < chunk / BLK; b++) {
          size_t k = (size_t)roles[r] * per + st * (chunk / BLK) + b;
          ck_assert_msg(!used[k], "parity of stripe %llu overlaps data", (unsigned long long)st);
          used[k] = 1;
        }
      }
    }
    for (size_t k = 0; k < (size_t)(n * per); k++)
      ck_assert_msg(used[k], "level %d n %d: member block %zu unused", level, n, k);
  }
  free(used);
}

START_TEST(test_map_exhaustive)
{
  uint64_t chunks[] = {4096, 65536};
  for (int c = 0; c < 2; c++) {
    for (int n = 1; n <= 3; n++)
      check_map(RAID_JBOD, 0, n, chunks[c]);
    check_map(RAID_SINGLE, 0, 1, chunks[c]);
    for (int n = 2; n <= 8; n++) {
      check_map(RAID_0, 0, n, chunks[c]);
      check_map(RAID_1, 0, n, chunks[c]);
      check_map(RAID_10, 0, n, chunks[c]);
      for (int lay = 0; lay < RAID_LAYOUT_COUNT; lay++) {
        check_map(RAID_5, lay, n, chunks[c]);
        if (n >= 4)
          check_map(RAID_6, lay, n, chunks[c]);
      }
    }
  }
}
END_TEST

/* md's documented 4-disk RAID-5 layouts, stripes 0..3 (chunk index -> disk). */
START_TEST(test_md_layouts)
{
  static const int ls[4][4] = {{0, 1, 2, 3}, {3, 0, 1, 2}, {2, 3, 0, 1}, {1, 2, 3, 0}};
  static const int la[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
  static const int rs[4][4] = {{1, 2, 3, 0}, {2, 3, 0, 1}, {3, 0, 1, 2}, {0, 1, 2, 3}};
  static const int ra[4][4] = {{1, 2, 3, 0}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 1, 2, 3}};
  /* row: disks of D0, D1, D2 then the P disk */
  const int (*t[4])[4] = {ls, la, rs, ra};
  for (int lay = 0; lay < 4; lay++) {
    struct raid_geom g;
    geom(&g, RAID_5, lay, 4, 65536, 8 * 65536);
    for (int st = 0; st < 4; st++) {
      for (int d = 0; d < 3; d++) {
        struct raid_loc loc;
        raid_map(&g, ((uint64_t)st * 3 + (uint64_t)d) * 65536, &loc);
        ck_assert_msg(loc.member == t[lay][st][d], "layout %d stripe %d D%d on %d, md says %d",
                      lay, st, d, loc.member, t[lay][st][d]);
        ck_assert_int_eq(loc.p_member, t[lay][st][3]);
      }
    }
  }
  /* RAID-6 left-symmetric, 5 disks, stripe 0: Q D0 D1 D2 P */
  struct raid_geom g;
  geom(&g, RAID_6, RAID_LEFT_SYMMETRIC, 5, 65536, 8 * 65536);
  struct raid_loc loc;
  raid_map(&g, 0, &loc);
  ck_assert_int_eq(loc.member, 1);
  ck_assert_int_eq(loc.p_member, 4);
  ck_assert_int_eq(loc.q_member, 0);
}
END_TEST

/* ---- GF(2^8), polynomial 0x11d, generator 2 (lib/raid6) -------------- */
struct gf {
  unsigned char exp[512], log[256];
};
static void gf_init(struct gf *f)
{
  int x = 1;
  for (int i = 0; i < 255; i++) {
    f->exp[i] = f->exp[i + 255] = (unsigned char)x;
    f->log[x] = (unsigned char)i;
    x <<= 1;
    if (x & 0x100)
      x ^= 0x11d;
  }
}
static unsigned char gf_mul(const struct gf *f, unsigned char a, unsigned char b)
{
  return (a && b) ? f->exp[f->log[a] + f->log[b]] : 0;
}
static unsigned char gf_inv(const struct gf *f, unsigned char a)
{
  return f->exp[255 - f->log[a]];
}

START_TEST(test_raid6_two_failures)
{
  struct gf f;
  gf_init(&f);
  const uint64_t chunk = 4096, ns = 6;
  for (int n = 4; n <= 8; n++) {
    for (int lay = 0; lay < RAID_LAYOUT_COUNT; lay++) {
      struct raid_geom g;
      geom(&g, RAID_6, lay, n, chunk, ns * chunk);
      size_t mb = (size_t)(ns * chunk);
      unsigned char *disk = malloc((size_t)n * mb), *orig = malloc((size_t)n * mb);
      unsigned int seed = 12345u + (unsigned)n * 7u + (unsigned)lay;
      /* write the data through the map */
      uint64_t cap = raid_capacity_bytes(&g);
      for (uint64_t L = 0; L < cap; L += chunk) {
        struct raid_loc loc;
        raid_map(&g, L, &loc);
        for (uint64_t b = 0; b < chunk; b++) {
          seed = seed * 1103515245u + 12345u;
          disk[(size_t)loc.member * mb + loc.member_offset + b] = (unsigned char)(seed >> 16);
        }
      }
      /* P and Q per stripe, data index order (Q = sum g^d D_d) */
      int D = n - 2;
      for (uint64_t st = 0; st < ns; st++) {
        struct raid_loc loc;
        raid_map(&g, st * (uint64_t)D * chunk, &loc);
        for (uint64_t b = 0; b < chunk; b++) {
          unsigned char p = 0, q = 0;
          for (int d = 0; d < D; d++) {
            raid_map(&g, (st * (uint64_t)D + (uint64_t)d) * chunk, &loc);
            unsigned char v = disk[(size_t)loc.member * mb + loc.member_offset + b];
            p ^= v;
            q ^= gf_mul(&f, f.exp[d], v);
          }
          disk[(size_t)loc.p_member * mb + st * chunk + b] = p;
          disk[(size_t)loc.q_member * mb + st * chunk + b] = q;
        }
      }
      memcpy(orig, disk, (size_t)n * mb);
      for (int a = 0; a < n; a++)
        for (int bb = a + 1; bb < n; bb++) {
          memset(disk + (size_t)a * mb, 0xA5, mb); /* poison */
          memset(disk + (size_t)bb * mb, 0x5A, mb);
          g.failed_mask = (1ull << a) | (1ull << bb);
          /* a degraded read plan must not touch the failed members */
          struct raid_plan plan = {0};
          raid_plan_read(&g, 0, cap, NULL, &plan);
          ck_assert_int_eq(plan.lost, 0);
          for (int i = 0; i < plan.reads.n; i++)
            ck_assert_msg(plan.reads.v[i].member != a && plan.reads.v[i].member != bb,
                          "degraded plan reads failed member %d", plan.reads.v[i].member);
          raid_plan_free(&plan);
          for (uint64_t st = 0; st < ns; st++) {
            int pm, qm, dm[RAID_MAX_MEMBERS];
            raid_parity_members(&g, st, &pm, &qm);
            for (int d = 0; d < D; d++) {
              struct raid_loc loc;
              raid_map(&g, (st * (uint64_t)D + (uint64_t)d) * chunk, &loc);
              dm[d] = loc.member;
            }
            for (uint64_t b = 0; b < chunk; b++) {
              size_t o = st * chunk + b;
              unsigned char v[RAID_MAX_MEMBERS];
              int miss[2], nm = 0;
              for (int d = 0; d < D; d++) {
                v[d] = disk[(size_t)dm[d] * mb + o];
                if (dm[d] == a || dm[d] == bb)
                  miss[nm++] = d;
              }
              unsigned char P = disk[(size_t)pm * mb + o], Q = disk[(size_t)qm * mb + o];
              int pok = pm != a && pm != bb, qok = qm != a && qm != bb;
              unsigned char px = P, qx = Q;
              for (int d = 0; d < D; d++) {
                int lost = (nm > 0 && d == miss[0]) || (nm > 1 && d == miss[1]);
                if (!lost) {
                  px ^= v[d];
                  qx ^= gf_mul(&f, f.exp[d], v[d]);
                }
              }
              if (nm == 2) {
                int i = miss[0], j = miss[1];
                unsigned char den = f.exp[i] ^ f.exp[j];
                v[i] = gf_mul(&f, qx ^ gf_mul(&f, f.exp[j], px), gf_inv(&f, den));
                v[j] = px ^ v[i];
              } else if (nm == 1 && pok) {
                v[miss[0]] = px;
              } else if (nm == 1 && qok) {
                v[miss[0]] = gf_mul(&f, qx, gf_inv(&f, f.exp[miss[0]]));
              }
              for (int k = 0; k < nm; k++)
                disk[(size_t)dm[miss[k]] * mb + o] = v[miss[k]];
              if (!pok || !qok) { /* recompute the lost parity */
                unsigned char p = 0, q = 0;
                for (int d = 0; d < D; d++) {
                  p ^= v[d];
                  q ^= gf_mul(&f, f.exp[d], v[d]);
                }
                if (!pok)
                  disk[(size_t)pm * mb + o] = p;
                if (!qok)
                  disk[(size_t)qm * mb + o] = q;
              }
            }
          }
          ck_assert_msg(memcmp(disk, orig, (size_t)n * mb) == 0,
                        "RAID-6 n=%d layout %d: failing %d+%d not recovered", n, lay, a, bb);
        }
      free(disk);
      free(orig);
    }
  }
}
END_TEST

static void plan_write(int level, int n, int failed, uint64_t off, uint64_t len,
                       struct raid_plan *p)
{
  struct raid_geom g;
  geom(&g, level, RAID_LEFT_SYMMETRIC, n, 65536, 64 * 65536);
  if (failed >= 0)
    g.failed_mask = 1ull << failed;
  memset(p, 0, sizeof *p);
  raid_plan_write(&g, off, len, p);
}

START_TEST(test_amplification)
{
  struct raid_plan p;
  plan_write(RAID_5, 5, -1, 0, 4096, &p); /* rmw 2 < rcw 3 */
  ck_assert_msg(p.reads.n == 2 && p.writes.n == 2 && p.rmw_segments == 1,
                "RAID-5 small write: %d reads %d writes (rmw %d)", p.reads.n, p.writes.n,
                p.rmw_segments);
  raid_plan_free(&p);
  plan_write(RAID_6, 7, -1, 0, 4096, &p); /* rmw 3 < rcw 4 */
  ck_assert_msg(p.reads.n == 3 && p.writes.n == 3 && p.rmw_segments == 1,
                "RAID-6 small write: %d reads %d writes", p.reads.n, p.writes.n);
  ck_assert(p.q_bytes > 0);
  raid_plan_free(&p);
  plan_write(RAID_5, 3, -1, 0, 4096, &p); /* rcw 1 < rmw 2 */
  ck_assert_msg(p.reads.n == 1 && p.writes.n == 2 && p.rcw_segments == 1,
                "RAID-5 3 disks: %d reads (rcw %d)", p.reads.n, p.rcw_segments);
  raid_plan_free(&p);
  plan_write(RAID_6, 6, -1, 0, 4096, &p); /* tie 3 = 3: md picks rcw */
  ck_assert_msg(p.rcw_segments == 1 && p.reads.n == 3, "RAID-6 tie: rcw %d reads %d",
                p.rcw_segments, p.reads.n);
  raid_plan_free(&p);
  plan_write(RAID_5, 5, -1, 0, 4 * 65536, &p); /* full stripe */
  ck_assert_msg(p.reads.n == 0 && p.writes.n == 5 && p.full_stripes == 1,
                "full stripe: %d reads %d writes", p.reads.n, p.writes.n);
  raid_plan_free(&p);
  plan_write(RAID_5, 5, -1, 0, 3 * 65536, &p); /* 3 of 4 chunks: rcw reads 1 */
  ck_assert_msg(p.rcw_segments == 1 && p.reads.n == 1 && raid_ext_bytes(&p.reads, -1) == 65536,
                "3/4 stripe: rcw %d reads %d", p.rcw_segments, p.reads.n);
  raid_plan_free(&p);
  plan_write(RAID_5, 5, -1, 10 * 4 * 65536, 40 * 4 * 65536, &p); /* 40 full stripes merged */
  ck_assert_msg(p.reads.n == 0 && p.writes.n == 5 && p.full_stripes == 40,
                "40 stripes: %d reads, %d writes (extents merge per member)", p.reads.n,
                p.writes.n);
  ck_assert_uint_eq(raid_ext_bytes(&p.writes, -1), 40u * 5 * 65536);
  raid_plan_free(&p);
  /* degraded: the written block's member failed -> rcw from the others */
  struct raid_geom g;
  geom(&g, RAID_5, 0, 5, 65536, 64 * 65536);
  struct raid_loc loc;
  raid_map(&g, 0, &loc);
  plan_write(RAID_5, 5, loc.member, 0, 4096, &p);
  ck_assert_msg(p.rcw_segments == 1 && p.reads.n == 3 && p.writes.n == 1,
                "degraded write: rcw %d, %d reads, %d writes", p.rcw_segments, p.reads.n,
                p.writes.n);
  raid_plan_free(&p);
  plan_write(RAID_1, 2, -1, 0, 4096, &p);
  ck_assert_int_eq(p.writes.n, 2);
  raid_plan_free(&p);
  plan_write(RAID_10, 4, -1, 0, 4096, &p);
  ck_assert_int_eq(p.writes.n, 2);
  ck_assert_int_eq(p.reads.n, 0);
  raid_plan_free(&p);
}
END_TEST

START_TEST(test_degraded_read_and_checks)
{
  struct raid_geom g;
  geom(&g, RAID_5, 0, 4, 65536, 64 * 65536);
  struct raid_loc loc;
  raid_map(&g, 0, &loc);
  g.failed_mask = 1ull << loc.member;
  struct raid_plan p = {0};
  raid_plan_read(&g, 0, 4096, NULL, &p);
  ck_assert_msg(p.reads.n == 3 && p.degraded_reads == 1 && p.p_bytes > 0,
                "degraded read: %d reads", p.reads.n);
  raid_plan_free(&p);
  g.failed_mask |= 1ull << ((loc.member + 1) % 4);
  raid_plan_read(&g, 0, 4096, NULL, &p);
  ck_assert_int_eq(p.lost, 1);
  raid_plan_free(&p);
  /* RAID-1 reads go to the least busy copy */
  geom(&g, RAID_1, 0, 2, 65536, 64 * 65536);
  int pending[2] = {3, 1};
  raid_plan_read(&g, 0, 4096, pending, &p);
  ck_assert_int_eq(p.reads.v[0].member, 1);
  raid_plan_free(&p);
  /* rejections name the value */
  struct nw_err err;
  ck_assert_int_eq(raid_geom_init(&g, RAID_6, 0, 3, 65536, 1 << 30, &err), -1);
  ck_assert_msg(strstr(err.msg, "got 3") != NULL, "%s", err.msg);
  ck_assert_int_eq(raid_geom_init(&g, RAID_5, 0, 4, 65536 + 4096, 1 << 30, &err), -1);
  ck_assert_msg(strstr(err.msg, "power of two") != NULL, "%s", err.msg);
  ck_assert_int_eq(raid_effective_level(RAID_SHR, 1), RAID_SINGLE);
  ck_assert_int_eq(raid_effective_level(RAID_SHR, 2), RAID_1);
  ck_assert_int_eq(raid_effective_level(RAID_SHR, 5), RAID_5);
  ck_assert_int_eq(raid_effective_level(RAID_SHR2, 5), RAID_6);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("raid");
  TCase *tc = tcase_create("map");
  tcase_add_test(tc, test_map_exhaustive);
  tcase_add_test(tc, test_md_layouts);
  suite_add_tcase(s, tc);
  tc = tcase_create("raid6");
  tcase_add_test(tc, test_raid6_two_failures);
  suite_add_tcase(s, tc);
  tc = tcase_create("plan");
  tcase_add_test(tc, test_amplification);
  tcase_add_test(tc, test_degraded_read_and_checks);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
