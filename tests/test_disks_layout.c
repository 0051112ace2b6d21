/* The hdd model's measured geometry (models/disks/hdd_layout.c): zones,
 * skews, slips and spares, media time over track switches, the extracted
 * seek table; and the DiskSim-grade hdd keys: host bus time per sector,
 * controller overheads per case, read hits on written data, the least
 * repositioning time (settle_min); devices behind
 * one shared link (`link:` of a drive section).  Every
 * expected figure is worked out by hand in the comment beside it. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/disks/disk.h"
#include "models/disks/hdd_layout.h"

/* One zone, cylinders 0..9999, 100 sectors per track, 2 surfaces: 2e6
 * sectors; track skew 10, cylinder skew 20 sectors. */
static void one_zone(struct disk_layout *l)
{
  memset(l, 0, sizeof *l);
  l->nzones = 1;
  l->zones[0] = (struct disk_zone){.first_cyl = 0, .last_cyl = 9999, .spt = 100, .track_skew = 10,
                                   .cyl_skew = 20};
  l->nseek = 3;
  l->seek_cyl[0] = 1, l->seek_s[0] = 1e-3;
  l->seek_cyl[1] = 100, l->seek_s[1] = 3e-3;
  l->seek_cyl[2] = 1000, l->seek_s[2] = 8e-3;
}

static double seek_cb(const void *ctx, double dcyl)
{
  return hdd_geom_seek_s(ctx, dcyl);
}

START_TEST(test_geom_locate_and_media)
{
  struct disk_layout l;
  one_zone(&l);
  struct hdd_geom g;
  char msg[256];
  /* 6000 rpm: 10 ms a turn; head switch 0.5 ms (within the 1 ms skew) */
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 0.5e-3, 2000000, msg, sizeof msg), 0);
  struct hdd_loc a;
  hdd_geom_locate(&g, 150, &a); /* track 1 (cylinder 0, surface 1), sector 50 */
  ck_assert_double_eq(a.cyl, 0);
  ck_assert_double_eq(a.track, 1);
  ck_assert_double_eq(a.sector, 50);
  /* track 1 starts 10 sectors (one track skew) past the index: 60 / 100 */
  ck_assert_double_eq_tol(a.angle_rev, 0.60, 1e-12);
  hdd_geom_locate(&g, 200, &a); /* track 2 = cylinder 1, surface 0: 1 track + 1 cylinder skew */
  ck_assert_double_eq(a.cyl, 1);
  ck_assert_double_eq_tol(a.angle_rev, 0.30, 1e-12);
  /* 150 sectors from 0: a full track (10 ms), the 10-sector skew (1 ms), 50 sectors (5 ms) */
  ck_assert_double_eq_tol(hdd_geom_media_s(&g, 0, 150, seek_cb, &g), 16e-3, 1e-12);
  /* over the cylinder switch: 100 sectors of track 1 from sector 50 = 5 ms, then the
   * 1-cylinder seek (1 ms) fits the gap from 0.1 to 0.3 (2 ms), then 10 sectors (1 ms) */
  ck_assert_double_eq_tol(hdd_geom_media_s(&g, 150, 60, seek_cb, &g), 8e-3, 1e-12);
  /* a head switch slower than the skew (1.5 ms > 1 ms) misses it: one more turn */
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 1.5e-3, 2000000, msg, sizeof msg), 0);
  ck_assert_double_eq_tol(hdd_geom_media_s(&g, 0, 150, seek_cb, &g), 26e-3, 1e-12);
  ck_assert_double_eq_tol(hdd_geom_rate(&g, 0), 100 * 512 / 0.010, 1e-6);
}
END_TEST

START_TEST(test_geom_seek_table)
{
  struct disk_layout l;
  one_zone(&l);
  struct hdd_geom g;
  char msg[256];
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 0.5e-3, 2000000, msg, sizeof msg), 0);
  ck_assert_double_eq_tol(hdd_geom_seek_s(&g, 1), 1e-3, 1e-15);
  ck_assert_double_eq_tol(hdd_geom_seek_s(&g, 50), 1e-3 + 2e-3 * 49.0 / 99.0, 1e-15);
  ck_assert_double_eq_tol(hdd_geom_seek_s(&g, 550), 3e-3 + 5e-3 * 450.0 / 900.0, 1e-15);
  /* beyond the table: along its last segment */
  ck_assert_double_eq_tol(hdd_geom_seek_s(&g, 1900), 8e-3 + 5e-3 * 900.0 / 900.0, 1e-15);
  l.seek_cyl[1] = 0.5; /* not ascending */
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 0.5e-3, 2000000, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "ascend"));
}
END_TEST

START_TEST(test_geom_spares_slips)
{
  struct disk_layout l;
  one_zone(&l);
  l.nzones = 2;
  l.zones[0].last_cyl = 9;     /* 2000 sectors: 3 empty at the front, 7 spares, 1 slip */
  l.zones[0].front_empty = 3;
  l.zones[0].spares = 7;
  l.zones[0].nslips = 1;
  l.nslips = 1;
  l.slips[0] = 8;              /* physical sector 8 of the zone is skipped */
  l.zones[1] = (struct disk_zone){.first_cyl = 11, .last_cyl = 9999, .spt = 100};
  struct hdd_geom g;
  char msg[256];
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 0.5e-3, 1000000, msg, sizeof msg), 0);
  struct hdd_loc a;
  hdd_geom_locate(&g, 0, &a);
  ck_assert_double_eq(a.sector, 3);
  hdd_geom_locate(&g, 4, &a);  /* physical 7 */
  ck_assert_double_eq(a.sector, 7);
  hdd_geom_locate(&g, 5, &a);  /* physical 8 slipped: 9 */
  ck_assert_double_eq(a.sector, 9);
  /* zone 0 holds 2000 - 3 - 7 - 1 = 1989 blocks; block 1989 opens zone 1 at cylinder 11
   * (cylinder 10 is in no zone) */
  hdd_geom_locate(&g, 1989, &a);
  ck_assert_int_eq(a.zone, 1);
  ck_assert_double_eq(a.cyl, 11);
  ck_assert_double_eq(a.sector, 0);
  /* too few sectors for the capacity */
  ck_assert_int_eq(hdd_geom_init(&g, &l, 2, 0.010, 0.5e-3, 3000000, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "fewer than the capacity"));
}
END_TEST

static void set(const struct disk_model *m, double *p, const char *key, double v)
{
  const struct param_desc *d = params_find(m->params, m->nparams, key);
  ck_assert_msg(d != NULL, "no hdd key %s", key);
  *(double *)((char *)p + d->offset) = v;
}

/* The small drive both HDD timing tests use: 1.024 GB, 6000 rpm (10 ms a
 * turn), 2 heads, one 5.12 MB/s zone (100 sectors a track). */
static void small_hdd(const struct disk_model *m, double *p)
{
  params_defaults(m->params, m->nparams, p);
  set(m, p, "capacity", 1.024e9);
  set(m, p, "rpm", 6000);
  set(m, p, "heads", 2);
  set(m, p, "seek_track", 1e-3);
  set(m, p, "seek_avg", 5e-3);
  set(m, p, "seek_full", 9e-3);
  set(m, p, "rate_outer", 5.12e6);
  set(m, p, "rate_inner", 5.12e6);
  set(m, p, "power_active", 10);
  set(m, p, "power_idle", 8);
}

static double complete(struct disk *d)
{
  struct disk_io done;
  for (int i = 0; i < 100; i++) {
    double t = disk_next_completion_s(d);
    ck_assert(isfinite(t));
    if (disk_pop_completion(d, t, &done))
      return t;
  }
  ck_abort_msg("no completion");
  return 0;
}

START_TEST(test_hdd_bus_overheads)
{
  const struct disk_model *m = disk_model_find("hdd");
  double p[64] = {0};
  small_hdd(m, p);
  set(m, p, "bus_sector_time", 0.1e-3);            /* a 5.12 MB/s bus */
  set(m, p, "overhead_write_hit_after_read", 0.7e-3);
  set(m, p, "overhead_read_hit_after_write", 0.3e-3);
  set(m, p, "read_hits_on_write", 1);
  set(m, p, "ncq_depth", 1);
  char msg[256];
  ck_assert_int_eq(m->check(p, msg, sizeof msg), 0);
  struct disk *d = disk_create(m, p, "d", 1);
  struct disk_layout l;
  one_zone(&l);
  ck_assert_int_eq(disk_set_layout(d, &l, msg, sizeof msg), 0);
  /* a 4-sector write into the write cache: 0.7 ms overhead + 4 x 0.1 ms on the bus */
  struct disk_io w = {.offset_bytes = 512 * 1000, .len_bytes = 2048, .write = 1};
  disk_submit(d, 0.0, &w);
  ck_assert_double_eq_tol(complete(d), 1.1e-3, 1e-12);
  /* reading it back 100 ms later hits the buffer: 0.3 ms (after a write) + 0.4 ms */
  struct disk_io r = {.offset_bytes = 512 * 1000, .len_bytes = 2048, .write = 0};
  disk_submit(d, 0.1, &r);
  ck_assert_double_eq_tol(complete(d), 0.1 + 0.7e-3, 1e-12);
  disk_destroy(d);
  /* the same drive without read hits on written data goes to the media */
  set(m, p, "read_hits_on_write", 0);
  d = disk_create(m, p, "d", 1);
  ck_assert_int_eq(disk_set_layout(d, &l, msg, sizeof msg), 0);
  disk_submit(d, 0.0, &w);
  complete(d);
  disk_submit(d, 0.1, &r);
  ck_assert_double_gt(complete(d), 0.1 + 0.7e-3 + 1e-6);
  disk_destroy(d);
}
END_TEST

/* settle_min: a read on the track under the heads re-seeks, so rotation
 * counts only from the end of the settle.  6000 rpm (T = 10 ms), 100
 * sectors a track: a 4-sector read takes 0.4 ms of media.  The head reads
 * blocks 1000..1003 (no read-ahead); a read of blocks 1050..1053 (same
 * track) arriving at a then completes at c0 = a + w0 + 0.4 ms with w0 the
 * rotational wait.  With settle_min s = 1.5 ms it completes at the same
 * time when w0 >= s (the settle hides in the wait) and one turn later when
 * w0 < s.  Ten arrivals 1 ms apart cover the revolution: both cases occur. */
static double settle_read(const struct disk_model *m, double *p, double arrive)
{
  char msg[256];
  struct disk *d = disk_create(m, p, "d", 7);
  struct disk_layout l;
  one_zone(&l);
  ck_assert_int_eq(disk_set_layout(d, &l, msg, sizeof msg), 0);
  struct disk_io a = {.offset_bytes = 512 * 1000, .len_bytes = 2048, .write = 0};
  struct disk_io b = {.offset_bytes = 512 * 1050, .len_bytes = 2048, .write = 0};
  disk_submit(d, 0.0, &a);
  complete(d);
  disk_submit(d, arrive, &b);
  double c = complete(d);
  disk_destroy(d);
  return c;
}

START_TEST(test_hdd_settle_min)
{
  const struct disk_model *m = disk_model_find("hdd");
  double p[64] = {0};
  small_hdd(m, p);
  set(m, p, "read_ahead", 0);
  set(m, p, "ncq_depth", 1);
  char msg[256];
  ck_assert_int_eq(m->check(p, msg, sizeof msg), 0);
  int hidden = 0, late = 0;
  for (int k = 0; k < 10; k++) {
    double arrive = 0.1 + k * 1e-3;
    set(m, p, "settle_min", 0);
    double c0 = settle_read(m, p, arrive);
    double w0 = c0 - arrive - 0.4e-3;
    ck_assert(w0 > -1e-9 && w0 < 10e-3 + 1e-9);
    set(m, p, "settle_min", 1.5e-3);
    double c1 = settle_read(m, p, arrive);
    if (fabs(w0 - 1.5e-3) < 1e-6)
      continue; /* on the boundary: either is right */
    if (w0 >= 1.5e-3) {
      ck_assert_double_eq_tol(c1, c0, 1e-9);
      hidden++;
    } else {
      ck_assert_double_eq_tol(c1, c0 + 10e-3, 1e-9);
      late++;
    }
  }
  ck_assert_int_ge(hidden, 1);
  ck_assert_int_ge(late, 1);
}
END_TEST

/* `link: {rate, reserved}` puts a section's devices behind one upstream
 * link: two NVMe SSDs in RAID-0 read 1 MiB sequentially at 2 x 3 GB/s
 * alone (the catalogue's SNV3400: a mechanism test, so --uncalibrated; the
 * DS1819+ cache points fit its values), at the link's 1 - 0.25 GB/s
 * behind it. */
static double link_run(const char *link)
{
  const char *bin = getenv("NASTWIN_BIN");
  char path[64], cmd[512];
  snprintf(path, sizeof path, "/tmp/nastwin-link-%d.yaml", (int)getpid());
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "name: l\nsystem: client-pc\ndisks: {count: 2, drive: synology-snv3400-400g%s}\n"
             "volume: {level: 0}\npage_cache: {ram: 0B}\nprotocol: {kind: local}\n"
             "workload: {rw: read, bs: 1m, iodepth: 8, direct: 1, size: 8g, time_based: 1, "
             "runtime: 0.5s}\ntime: 0.5s\n"
             "custom_hardware: true\n", /* two M.2 drives: the client-pc has one slot */
          link);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s run %s --uncalibrated --json | python3 -c \"import json,sys; "
           "print(json.load(sys.stdin)['totals']['read']['MBps'])\"", bin, path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  double mbps = -1;
  ck_assert_int_eq(fscanf(p, "%lf", &mbps), 1);
  pclose(p);
  unlink(path);
  return mbps;
}

START_TEST(test_shared_link)
{
  if (!getenv("NASTWIN_BIN"))
    return;
  double alone = link_run("");
  double shared = link_run(", link: {rate: 1GB/s, reserved: 0.25GB/s}");
  ck_assert_msg(alone > 5000, "two NVMe SSDs alone: %g MB/s", alone);
  ck_assert_msg(shared <= 750.0 + 1e-6 && shared > 700, "behind the link: %g MB/s", shared);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disks_layout");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, test_geom_locate_and_media);
  tcase_add_test(tc, test_geom_seek_table);
  tcase_add_test(tc, test_geom_spares_slips);
  tcase_add_test(tc, test_hdd_bus_overheads);
  tcase_add_test(tc, test_hdd_settle_min);
  tcase_add_test(tc, test_shared_link);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
