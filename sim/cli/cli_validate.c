/* nastwin validate: predicted vs measured for every review result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "sim/study/calibrate.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/study/validate.h"

static void cli_validate_usage(FILE *out)
{
  fputs("usage: nastwin validate [options]\n"
        "\n"
        "Simulates every result of the review data (validation/reviews.yaml) as\n"
        "validation/points.yaml maps it, and prints predicted vs measured with the\n"
        "error predicted/measured - 1, then median and 90th-percentile |error| per\n"
        "metric kind (skewed points excluded).\n"
        "\n"
        "options:\n"
        "  --data FILE        review data in the reviews.yaml schema\n"
        "  --points FILE      the mapping (default: validation/points.yaml)\n"
        "  --only ID[,ID...]  only these experiments\n"
        "  --json             print {\"points\": [...], \"summary\": {...}}\n"
        "  --html DIR         also write DIR/index.html (scatter + per-experiment bars)\n"
        "  -j N               simulations at once (default: CPUs)\n"
        "  --catalog DIR      catalogue directory\n"
        "  --calibrated FILE  apply this calibration (from `nastwin calibrate`) instead of the\n"
        "                     shipped validation/calibrated.yaml, which applies by default\n"
        "  --uncalibrated     catalogue values, no calibration (to compare)\n"
        "  --golden-check     compare every prediction with the golden predictions; a point\n"
        "                     that moved more than 2 % (or appeared, or stopped running) is\n"
        "                     listed and the exit is 1\n"
        "  --golden-update    rewrite the golden predictions from this run\n"
        "  --golden FILE      the golden file (default: validation/golden.json of the data folder)\n"
        "  --custom-hardware  accept scenarios beyond their chassis's hardware with a warning\n"
        "\n"
        "exit: 0 every point ran, 1 a simulation failed (or --golden-check found a move), 2 bad input\n",
        out);
}

int cli_validate(int argc, char **argv)
{
  const char *data = NULL, *points = NULL, *only = NULL, *html = NULL, *catalog = NULL;
  struct calib_use calib = {0};
  const char *golden = NULL;
  int json = 0, jobs = 0, golden_check = 0, golden_update = 0, custom = 0;
  static const char *const valued[] = {"--data", "--points", "--only",       "--html",
                                       "-j",     "--catalog", "--calibrated", "--golden", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_validate_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--custom-hardware")) {
      custom = 1;
    } else if (!strcmp(a, "--golden-check")) {
      golden_check = 1;
    } else if (!strcmp(a, "--golden-update")) {
      golden_update = 1;
    } else if (!strcmp(a, "--golden")) {
      golden = val;
    } else if (!strcmp(a, "--data")) {
      data = val;
    } else if (!strcmp(a, "--points")) {
      points = val;
    } else if (!strcmp(a, "--only")) {
      only = val;
    } else if (!strcmp(a, "--html")) {
      html = val;
    } else if (!strcmp(a, "--catalog")) {
      catalog = val;
    } else if (calib_use_opt(&calib, a, val)) {
      continue;
    } else if (!strcmp(a, "-j")) {
      long j;
      if (cli_opt_int(a, val, 1, 64, &j) < 0)
        return 2;
      jobs = (int)j;
    } else {
      fprintf(stderr, "nastwin: error: unknown argument '%s' (see nastwin validate --help)\n", a);
      return 2;
    }
  }
  struct val_set v;
  struct nw_err err = {0};
  static const struct cfg_set custom_set = {.path = "custom_hardware", .value = "true"};
  struct calib_which w;
  memset(&v, 0, sizeof v);
  if (calib_use_resolve(&calib, &w, &err) < 0 ||
      val_load(data, points, only, catalog, custom ? &custom_set : NULL, custom, &v, &err) < 0 ||
      calib_apply(&v, &w, catalog, &err) < 0) {
    nw_err_print(&err, stderr);
    val_free(&v);
    return 2;
  }
  int failed = val_run(&v, jobs, json || golden_check || golden_update);
  char gpath[1024];
  if (!golden)
    golden = nw_data_path(gpath, sizeof gpath, "validation/golden.json");
  int rc = failed ? 1 : 0;
  if (golden_check || golden_update) {
    int moved = golden_check ? val_golden_check(&v, golden, 0.02, stdout, &err) : 0;
    if (moved < 0) {
      nw_err_print(&err, stderr);
      val_free(&v);
      return 2;
    }
    if (golden_check)
      printf("golden: %d of %d point(s) moved more than 2 %% from %s\n", moved, v.npoints, golden);
    if (golden_update && failed == 0 && val_golden_write(&v, golden, &err) < 0) {
      nw_err_print(&err, stderr);
      rc = 1;
    } else if (golden_update)
      printf("golden: %s %s (%d points)\n", failed ? "not written, a simulation failed:" : "wrote", golden,
             v.npoints);
    rc = rc || moved ? 1 : rc;
  } else if (json)
    val_print_json(&v, stdout);
  else
    val_print_table(&v, stdout);
  if (html && val_write_html(&v, html, &err) < 0) {
    nw_err_print(&err, stderr);
    rc = 1;
  }
  for (int i = 0; i < v.npoints; i++)
    if (v.pts[i].status == VAL_FAILED)
      fprintf(stderr, "nastwin: error: %s %s: %s\n", v.pts[i].experiment, v.pts[i].metric, v.pts[i].note);
  val_free(&v);
  return rc;
}
