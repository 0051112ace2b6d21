/* DiskSim drive files (sim/config/libparam.c, disksim.c, drive_layout.c):
 * a small validation setup written here (a .parv that sources a
 * .diskspecs naming a .model and a .seek file) imports into hdd facts with
 * their file and line; a scenario loads it as `drive: {disksim: ...}`;
 * malformed or unsupported input is refused at file:line:col naming the
 * key; the catalogue's two imported drives load with their layouts. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/config.h"
#include "sim/config/disksim.h"

static char dir[64];

static void put(const char *name, const char *text)
{
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static const char *const parv =
    "# a validation setup\n"
    "disksim_bus BUS0 { type = 1, Arbitration time = 0.0 }\n"
    "source small.diskspecs\n"
    "instantiate [ disk0 ] as SMALL_validate\n"
    "topology disksim_iodriver driver0 [ disksim_bus bus0 [ disksim_disk disk0 [] ] ]\n";

static const char *const specs =
    "disksim_disk SMALL_validate {\n"
    "   Model = source small.model,\n"
    "   Per-request overhead time = 0.0,\n"
    "   Time scale for overheads = 1.0,\n"
    "   Bulk sector transfer time = 0.1,\n"
    "   Allow read hits on write data = 1,\n"
    "   Max queue length = 1,\n"
    "   Number of buffer segments = 2,\n"
    "   Maximum number of write segments = 2,\n"
    "   Segment size (in blks) = 400,\n"
    "   Enable caching in buffer = 1,\n"
    "   Maximum read-ahead (blks) = 400,\n"
    "   Read-ahead over requested = 0,\n"
    "   Fast write level = 2,\n"
    "   Allow sneaky full read hits = 0,\n"
    "   Read hit over. after read = 0.1, Read hit over. after write = 0.2,\n"
    "   Read miss over. after read = 0.3, Read miss over. after write = 0.4,\n"
    "   Write hit over. after read = 0.5, Write hit over. after write = 0.6,\n"
    "   Write miss over. after read = 0.7, Write miss over. after write = 0.8\n"
    "}\n";

static const char *const model =
    "dm_disk SMALL_model {\n"
    "   Number of data surfaces = 2,\n"
    "   Number of cylinders = 10000,\n"
    "   Block count = 2000000,\n"
    "   Layout Model = dm_layout_g1 {\n"
    "      LBN-to-PBN mapping scheme = 0,\n"
    "      Zones = [\n"
    "         dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 4999,\n"
    "            Blocks per track = 120, Offset of first block = 0, Empty space at zone front = 0,\n"
    "            Skew for track switch = 10, Skew for cylinder switch = 20,\n"
    "            Number of spares = 0, slips = [ 5, 9 ], defects = [] },\n"
    "         dm_layout_g1_zone { First cylinder number = 5000, Last cylinder number = 9999,\n"
    "            Blocks per track = 90, Offset of first block = 0, Empty space at zone front = 0,\n"
    "            Skew for track switch = 8, Skew for cylinder switch = 16,\n"
    "            Number of spares = 0, slips = [], defects = [] }\n"
    "      ]\n"
    "   },\n"
    "   Mechanical Model = dm_mech_g1 {\n"
    "      Access time type = trackSwitchPlusRotation,\n"
    "      Seek type = extracted,\n"
    "      Single cylinder seek time = 1.0,\n"
    "      Full seek curve = small.seek,\n"
    "      Full strobe seek time = 9.0,\n"
    "      Add. write settling delay = 0.25,\n"
    "      Head switch time = 0.05,\n"
    "      Rotation speed (in rpms) = 6000,\n"
    "      Percent error in rpms = 0.0\n"
    "   }\n"
    "}\n";

static const char *const seek = "Seek distances measured: 3\n1,\t1.0\n100,\t3.0\n9999,\t9.0\n";

static void setup(void)
{
  snprintf(dir, sizeof dir, "/tmp/nastwin-ds-%d", (int)getpid());
  char cmd[128];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  put("small.parv", parv);
  put("small.diskspecs", specs);
  put("small.model", model);
  put("small.seek", seek);
}

static void teardown(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static const struct ds_fact *fact(const struct ds_drive *d, const char *key)
{
  for (int i = 0; i < d->nfacts; i++)
    if (strcmp(d->facts[i].key, key) == 0)
      return &d->facts[i];
  ck_abort_msg("no fact %s", key);
  return NULL;
}

START_TEST(test_import)
{
  char path[128];
  snprintf(path, sizeof path, "%s/small.parv", dir);
  struct ds_drive *d = malloc(sizeof *d);
  struct nw_err err = {0};
  ck_assert_msg(disksim_import(path, d, &err) == 0, "%s:%d:%d: %s", err.file, err.line, err.col,
                err.msg);
  ck_assert_str_eq(d->spec, "SMALL_validate");
  ck_assert_double_eq(fact(d, "capacity")->value, 2000000.0 * 512);
  ck_assert_double_eq(fact(d, "rpm")->value, 6000);
  ck_assert_double_eq(fact(d, "heads")->value, 2);
  ck_assert_double_eq_tol(fact(d, "bus_sector_time")->value, 0.1e-3, 1e-15);
  ck_assert_double_eq_tol(fact(d, "overhead_write_miss_after_write")->value, 0.8e-3, 1e-15);
  ck_assert_double_eq(fact(d, "cache")->value, 2 * 400 * 512);
  ck_assert_double_eq(fact(d, "read_ahead_within_segment")->value, 1); /* over requested = 0 */
  ck_assert_double_eq_tol(fact(d, "write_settle")->value, 0.25e-3, 1e-15);
  /* a zero-distance seek settles as long as a one-cylinder seek */
  ck_assert_double_eq_tol(fact(d, "settle_min")->value, 1e-3, 1e-15);
  ck_assert_ptr_nonnull(strstr(fact(d, "settle_min")->source, "small.model:"));
  /* first zone: 120 sectors x 512 B x 100 turns/s */
  ck_assert_double_eq_tol(fact(d, "rate_outer")->value, 120 * 512 * 100.0, 1e-6);
  ck_assert_str_eq(fact(d, "rpm")->source, "small.model:26: Rotation speed (in rpms) = 6000");
  ck_assert_int_eq(d->layout.nzones, 2);
  ck_assert_int_eq(d->layout.zones[0].nslips, 2);
  ck_assert_int_eq(d->layout.nseek, 3);
  ck_assert_double_eq_tol(d->layout.seek_s[1], 3e-3, 1e-15);
  int sneaky = 0;
  for (int i = 0; i < d->nnotes; i++)
    sneaky |= strstr(d->notes[i], "small.diskspecs:15: Allow sneaky full read hits") != NULL;
  ck_assert_msg(sneaky, "the unmapped key is listed");
  free(d);
}
END_TEST

/* Load a scenario using the small drive; 0 or -1 with err. */
static int load_scenario(struct scenario *s, struct nw_err *err)
{
  char path[128], catalog[600];
  snprintf(path, sizeof path, "%s/s.yaml", dir);
  put("s.yaml", "name: t\nsystem: client-pc\ndisks: {count: 1, drive: {disksim: small.parv}, "
                "ncq_depth: 4}\nvolume: {level: single}\npage_cache: {ram: 0B}\n"
                "protocol: {kind: local}\nworkload: {rw: randread, bs: 4k}\ntime: 1s\n");
  const char *src = getenv("NASTWIN_SOURCE_DIR");
  snprintf(catalog, sizeof catalog, "%s/catalog", src ? src : ".");
  return cfg_load(path, catalog, NULL, 0, NULL, s, err);
}

START_TEST(test_scenario_drive)
{
  struct scenario *s = calloc(1, sizeof *s);
  struct nw_err err = {0};
  ck_assert_msg(load_scenario(s, &err) == 0, "%s:%d: %s", err.file, err.line, err.msg);
  ck_assert_str_eq(s->drive.model->name, "hdd");
  ck_assert_int_eq(s->drive.layout.nzones, 2);
  const struct param_desc *q = params_find(s->drive.model->params, s->drive.model->nparams, "ncq_depth");
  ck_assert_double_eq(*(double *)((char *)s->drive.params + q->offset), 4); /* the override wins */
  cfg_free(s);
  free(s);
}
END_TEST

/* Each bad input: the file, line and column of the key, and its name. */
START_TEST(test_errors)
{
  struct nw_err err = {0};
  struct scenario *s = calloc(1, sizeof *s);
  char bad[4096];
  snprintf(bad, sizeof bad, "%s", model);
  memcpy(strstr(bad, "extracted"), "hplxxxxxx", 9);
  put("small.model", bad);
  ck_assert_int_eq(load_scenario(s, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.file, "small.model"));
  ck_assert_int_eq(err.line, 20);
  ck_assert_ptr_nonnull(strstr(err.msg, "Seek type"));
  put("small.model", model);
  snprintf(bad, sizeof bad, "%s", specs);
  memcpy(strstr(bad, "= 0.1,"), "= x.1,", 6);
  put("small.diskspecs", bad);
  ck_assert_int_eq(load_scenario(s, &err), -1);
  ck_assert_int_eq(err.line, 5);
  ck_assert_ptr_nonnull(strstr(err.msg, "Bulk sector transfer time"));
  put("small.diskspecs", "disksim_disk SMALL_validate {\n   Model = source small.model,\n"
                         "   Bulk sector transfer time 0.1\n}\n");
  ck_assert_int_eq(load_scenario(s, &err), -1);
  ck_assert_int_eq(err.line, 4); /* the '}' where '=' was due */
  ck_assert_ptr_nonnull(strstr(err.msg, "'Bulk sector transfer time 0.1': expected '='"));
  put("small.diskspecs", specs);
  put("small.seek", "Seek distances measured: 3\n1, 1.0\n100 3.0\n");
  ck_assert_int_eq(load_scenario(s, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.file, "small.seek"));
  ck_assert_int_eq(err.line, 3);
  put("small.seek", seek);
  put("s2.parv", "source s2.parv\n");
  char path[128];
  snprintf(path, sizeof path, "%s/s2.parv", dir);
  struct ds_drive *d = malloc(sizeof *d);
  ck_assert_int_eq(disksim_import(path, d, &err), -1); /* a source loop ends */
  ck_assert_ptr_nonnull(strstr(err.msg, "nested deeper"));
  free(d);
  cfg_free(s);
  free(s);
}
END_TEST

/* The catalogue's imported drives load with their seek curves and zones. */
START_TEST(test_catalog_entries)
{
  const char *names[] = {"seagate-cheetah-9lp", "ibm-ultrastar-18es"};
  for (int i = 0; i < 2; i++) {
    char text[600];
    snprintf(text, sizeof text,
             "name: t\nsystem: client-pc\ndisks: {count: 1, drive: %s}\nvolume: {level: single}\n"
             "page_cache: {ram: 0B}\nprotocol: {kind: local}\nworkload: {rw: randread, bs: 4k}\n",
             names[i]);
    put("c.yaml", text);
    char path[128], catalog[600];
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    const char *src = getenv("NASTWIN_SOURCE_DIR");
    snprintf(catalog, sizeof catalog, "%s/catalog", src ? src : ".");
    struct scenario *s = calloc(1, sizeof *s);
    struct nw_err err = {0};
    ck_assert_msg(cfg_load(path, catalog, NULL, 0, NULL, s, &err) == 0, "%s", err.msg);
    ck_assert_int_gt(s->drive.layout.nzones, 10);
    ck_assert_int_gt(s->drive.layout.nseek, 100);
    cfg_free(s);
    free(s);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disksim");
  TCase *tc = tcase_create("import");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_import);
  tcase_add_test(tc, test_scenario_drive);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_catalog_entries);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
