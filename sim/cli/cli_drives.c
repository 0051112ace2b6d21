/* nastwin drives: every catalogue drive simulated alone, datasheet style:
 * sequential read/write MB/s (1 MiB, QD4) and 4 KiB random IOPS at QD1
 * and QD32, through the same engine as any scenario. */
#include <ctype.h>
#include <stdio.h>
#include "base/datadir.h"
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/config/config.h"
#include "sim/config/disksim.h"
#include "sim/engine/engine.h"
#include "sim/study/runpool.h"
#include "sim/config/ytree.h"

struct drives_test {
  const char *title;
  const char *rw, *bs, *depth;
  int iops; /* 1: report IOPS, 0: MB/s */
};

static const struct drives_test drives_tests[] = {
    {"seq read MB/s", "read", "1m", "4", 0},
    {"seq write MB/s", "write", "1m", "4", 0},
    {"4K read IOPS QD1", "randread", "4k", "1", 1},
    {"4K read IOPS QD32", "randread", "4k", "32", 1},
    {"4K write IOPS QD32", "randwrite", "4k", "32", 1},
};
#define DRIVES_NTESTS (sizeof drives_tests / sizeof drives_tests[0])

struct drives_ctx {
  struct scenario *sc; /* one per task */
};

static void drives_task(void *ctx, int task, struct run_result *out)
{
  struct drives_ctx *c = ctx;
  engine_run(&c->sc[task], 0, 0, NULL, out);
}

/* nastwin drives import --disksim FILE.parv [--name NAME]: the catalogue
 * entry of a DiskSim drive, each fact with its source, then the facts the
 * hdd model has no key for. */
static int cli_drives_import(int argc, char **argv)
{
  const char *parv = NULL, *name = NULL;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--disksim") && i + 1 < argc)
      parv = argv[++i];
    else if (!strcmp(argv[i], "--name") && i + 1 < argc)
      name = argv[++i];
    else {
      fprintf(stderr, "nastwin: error: drives import: unknown argument '%s' "
                      "(usage: nastwin drives import --disksim FILE.parv [--name NAME])\n", argv[i]);
      return 2;
    }
  }
  if (!parv) {
    fprintf(stderr, "nastwin: error: drives import: --disksim FILE.parv is required\n");
    return 2;
  }
  struct ds_drive *d = malloc(sizeof *d);
  struct nw_err err = {0};
  if (!d || disksim_import(parv, d, &err) < 0) {
    if (!d)
      nw_fail(&err, parv, 0, 0, "out of memory");
    nw_err_print(&err, stderr);
    free(d);
    return 2;
  }
  char def[96];
  snprintf(def, sizeof def, "%s", d->spec);
  for (char *c = def; *c; c++)
    *c = *c == '_' ? '-' : (char)tolower((unsigned char)*c);
  printf("# nastwin drives import --disksim %s: paste under drives: in catalog/drives.yaml\n",
         d->parv);
  disksim_print_entry(d, name ? name : def, stdout);
  printf("# DiskSim facts not mapped (%d):\n", d->nnotes);
  for (int i = 0; i < d->nnotes; i++)
    printf("#   %s\n", d->notes[i]);
  free(d);
  return 0;
}

int cli_drives(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "import"))
    return cli_drives_import(argc, argv);
  const char *catalog = NULL;
  const char *duration = "2s";
  int jobs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      puts("usage: nastwin drives [--catalog DIR] [--time DURATION] [-j N]\n"
           "       nastwin drives import --disksim FILE.parv [--name NAME]\n\n"
           "Simulates every drive of catalog/drives.yaml alone (scenarios/drive-datasheet.yaml:\n"
           "inside a client, no page cache) and prints sequential MB/s (1 MiB, QD4) and\n"
           "4 KiB random IOPS at QD1 and QD32, to set beside the drives' datasheets.\n"
           "Each figure is a run of DURATION (default 2s): short runs include what a\n"
           "drive's write cache absorbs; --time 60s shows sustained write rates.");
      return 0;
    } else if (!strcmp(argv[i], "--catalog") && i + 1 < argc) {
      catalog = argv[++i];
    } else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
      duration = argv[++i];
    } else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
      jobs = atoi(argv[++i]);
    } else {
      fprintf(stderr, "nastwin: error: drives: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/drives.yaml", catalog ? catalog : cfg_catalog_dir());
  struct nw_err err = {0};
  struct ynode *root = ytree_load_file(path, &err);
  const struct ynode *drives = root ? ytree_get(root, "drives") : NULL;
  if (!drives || drives->kind != YNODE_MAP) {
    if (root)
      nw_fail(&err, path, 1, 1, "expected a map 'drives:'");
    nw_err_print(&err, stderr);
    ytree_free(root);
    return 2;
  }
  int nd = drives->n, ntasks = nd * (int)DRIVES_NTESTS;
  struct drives_ctx ctx = {.sc = calloc((size_t)ntasks, sizeof *ctx.sc)};
  struct run_result *res = calloc((size_t)ntasks, sizeof *res);
  char tmpl[1024];
  nw_data_path(tmpl, sizeof tmpl, "scenarios/drive-datasheet.yaml");
  int rc = 0, loaded = 0;
  if (!ctx.sc || !res) {
    fprintf(stderr, "nastwin: error: out of memory\n");
    rc = 1;
    goto done;
  }
  for (int d = 0; d < nd && rc == 0; d++)
    for (size_t t = 0; t < DRIVES_NTESTS; t++) {
      const struct drives_test *dt = &drives_tests[t];
      struct cfg_set sets[] = {{"disks.drive", drives->keys[d]},
                               {"workload.rw", dt->rw},
                               {"workload.bs", dt->bs},
                               {"workload.iodepth", dt->depth},
                               {"time", duration},
                               {"workload.runtime", duration}};
      if (cfg_load(tmpl, catalog, sets, 6, NULL, &ctx.sc[d * (int)DRIVES_NTESTS + (int)t], &err) < 0) {
        nw_err_print(&err, stderr);
        rc = 2;
        break;
      }
      loaded++;
    }
  if (rc)
    goto done;
  int failed = runpool_run(ntasks, jobs, 0.0, drives_task, &ctx, res, NULL);
  printf("%-24s", "drive");
  for (size_t t = 0; t < DRIVES_NTESTS; t++)
    printf(" %19s", drives_tests[t].title);
  printf("  model\n");
  for (int d = 0; d < nd; d++) {
    printf("%-24s", drives->keys[d]);
    for (size_t t = 0; t < DRIVES_NTESTS; t++) {
      const struct run_result *r = &res[d * (int)DRIVES_NTESTS + (int)t];
      if (r->failed)
        printf(" %19s", "FAILED");
      else
        printf(" %19.6g", drives_tests[t].iops ? r->all.iops : r->all.MBps);
    }
    printf("  %s\n", ctx.sc[d * (int)DRIVES_NTESTS].drive.model->name);
  }
  if (failed) {
    for (int i = 0; i < ntasks; i++)
      if (res[i].failed)
        fprintf(stderr, "nastwin: error: %s: %s\n", drives->keys[i / (int)DRIVES_NTESTS], res[i].failure);
    rc = 1;
  }
done:
  for (int i = 0; i < loaded; i++)
    cfg_free(&ctx.sc[i]);
  free(ctx.sc);
  free(res);
  ytree_free(root);
  return rc;
}
