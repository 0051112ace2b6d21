/* nastwin run / check: load a scenario, simulate each workload step in its
 * own child process, print the report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/calibrate.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_opt.h"
#include "sim/config/config.h"
#include "sim/engine/engine.h"
#include "sim/report/htmlreport.h"
#include "sim/report/report.h"
#include "sim/study/runpool.h"

#define CLI_MAX_LOG 16

struct cli_opts {
  const char *scenario;
  const char *fio;
  const char *catalog;
  const char *html;
  struct calib_use calib;
  struct calib_which which; /* resolved by cli_load */
  int no_ci;                /* --no-ci: no prediction intervals in the output */
  struct cfg_set sets[CFG_MAX_SETS];
  int nsets;
  char *log[CLI_MAX_LOG];
  int nlog;
  int json, fio_json, jobs, help; /* fio_json: 1 json, 2 json+ */
};

static void cli_run_usage(FILE *out, const char *cmd)
{
  fprintf(out,
          "usage: nastwin %s [SCENARIO.yaml] [options]\n"
          "\n"
          "options:\n"
          "  --set PATH=VALUE     override any scenario or catalogue value, e.g.\n"
          "                       --set soc.cores=8 --set soc.clock=2GHz --set disks.count=6\n"
          "  --seed N             random seed (default: the scenario's, else 1)\n"
          "  --time DURATION      simulated time limit, e.g. 10s\n"
          "  --fio JOBFILE        take the workload from a fio job file\n"
          "  --json               print the result as JSON\n"
          "  --html DIR           also write DIR/index.html: charts of latency, utilisation, throughput\n"
          "  --calibrated FILE    apply this calibration (from nastwin calibrate) instead of the\n"
          "                       shipped validation/calibrated.yaml, which applies by default\n"
          "  --uncalibrated       catalogue values, no calibration (to compare)\n"
          "  --no-ci              no 90 %% prediction intervals (a calibrated run gives each figure\n"
          "                       value x e^-+q, q from the calibration's cross-validation, the\n"
          "                       file CAL.intervals.yaml beside it; none when that is missing)\n"
          "  --output-format FMT  json or fio-json: the JSON fio 3.33 writes; json+: with the\n"
          "                       clat_ns histogram bins; normal: the text summary (default)\n"
          "  -j N                 simulate up to N workload steps at once (default: CPUs)\n"
          "  --catalog DIR        read catalogues from DIR (default: the source tree's catalog/)\n"
          "  --custom-hardware    accept ports, bays, drives or RAM beyond the chassis's\n"
          "                       (catalog/systems.yaml) with a warning\n"
          "  --log=CATEGORY.thres:LEVEL   SimGrid/XBT logging (e.g. nastwin.thres:debug)\n"
          "\n"
          "Without SCENARIO.yaml the built-in default scenario runs: a Synology\n"
          "DS2015xs serving one CIFS client a 1 MiB sequential read.\n"
          "\n"
          "Limits: clients.count 1..1024 finish a 4 s window of iSCSI 64k QD16 on a\n"
          "DS2015xs within 60 s on 2 cores: 128 take ~4 CPU s, 512 ~13, 1024 ~33 (the\n"
          "first round of 16,384 I/Os and the drain make that 15 s simulated; 34-45 s\n"
          "wall on a busy machine).  Past 256 the cost grows faster than the client\n"
          "count: SimGrid shares the NAS cores among every daemon's execution.\n",
          cmd);
}

/* Parse options; returns 0, or 2 after printing a usage error. */
static int cli_parse(int argc, char **argv, struct cli_opts *o)
{
  memset(o, 0, sizeof *o);
  static const char *const valued[] = {"--set",  "--seed",    "--time", "--fio", "--calibrated",
                                       "--html", "--catalog", "-j",     "--output-format", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (cli_opt_value(argc, argv, &i, valued, &val) < 0)
      return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      o->help = 1;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--no-ci")) {
      o->no_ci = 1;
    } else if (!strcmp(a, "--output-format") || !strncmp(a, "--output-format=", 16)) {
      /* fio's spellings, with '=' or as the next argument. */
      const char *f = a[15] == '=' ? a + 16 : val;
      if (!strcmp(f, "json") || !strcmp(f, "fio-json"))
        o->fio_json = 1;
      else if (!strcmp(f, "json+"))
        o->fio_json = 2;
      else if (!strcmp(f, "normal"))
        o->fio_json = 0;
      else {
        fprintf(stderr, "nastwin: error: --output-format: '%s' is not allowed; one of: normal, json, json+, "
                        "fio-json (fio's terse and comma lists are not written)\n", f);
        return 2;
      }
    } else if (!strcmp(a, "--set") || !strncmp(a, "--set=", 6)) {
      if (a[5] == '=')
        val = a + 6;
      const char *eq = strchr(val, '=');
      if (!eq || eq == val) {
        fprintf(stderr, "nastwin: error: --set '%s': expected PATH=VALUE, e.g. soc.cores=8\n", val);
        return 2;
      }
      if (o->nsets == CFG_MAX_SETS) {
        fprintf(stderr, "nastwin: error: more than %d --set options\n", CFG_MAX_SETS);
        return 2;
      }
      char *path = strndup(val, (size_t)(eq - val));
      if (!path)
        return 2;
      o->sets[o->nsets].path = path;
      o->sets[o->nsets++].value = eq + 1;
    } else if (!strcmp(a, "--seed")) {
      if (o->nsets < CFG_MAX_SETS)
        o->sets[o->nsets++] = (struct cfg_set){.path = strdup("seed"), .value = val};
    } else if (!strcmp(a, "--time")) {
      if (o->nsets < CFG_MAX_SETS)
        o->sets[o->nsets++] = (struct cfg_set){.path = strdup("time"), .value = val};
    } else if (!strcmp(a, "--custom-hardware")) {
      if (o->nsets < CFG_MAX_SETS)
        o->sets[o->nsets++] = (struct cfg_set){.path = strdup("custom_hardware"), .value = "true"};
    } else if (!strcmp(a, "--fio")) {
      o->fio = val;
    } else if (calib_use_opt(&o->calib, a, val)) {
      continue;
    } else if (!strcmp(a, "--html")) {
      o->html = val;
    } else if (!strcmp(a, "--catalog")) {
      o->catalog = val;
    } else if (!strcmp(a, "-j")) {
      long j;
      if (cli_opt_int(a, val, 1, 64, &j) < 0)
        return 2;
      o->jobs = (int)j;
    } else if (!strncmp(a, "--log=", 6)) {
      if (o->nlog < CLI_MAX_LOG)
        o->log[o->nlog++] = argv[i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nastwin: error: unknown option '%s' (see nastwin %s --help)\n", a, argv[0]);
      return 2;
    } else if (!o->scenario) {
      o->scenario = a;
    } else {
      fprintf(stderr, "nastwin: error: more than one scenario given ('%s' and '%s')\n", o->scenario, a);
      return 2;
    }
  }
  return 0;
}

static void cli_free(struct cli_opts *o)
{
  for (int i = 0; i < o->nsets; i++)
    free((char *)o->sets[i].path);
}

/* Load the scenario with the calibration the options chose (the fitted
 * values go before the user's --set overrides, which win). */
static int cli_load(struct cli_opts *o, struct scenario *s, struct nw_err *err)
{
  if (calib_use_resolve(&o->calib, &o->which, err) < 0)
    return -1;
  return calib_cfg_load(&o->which, o->scenario, o->catalog, o->sets, o->nsets, o->fio, s, err);
}

struct cli_ctx {
  const struct scenario *s;
  struct cli_opts *o;
};

static void cli_task(void *ctx, int task, struct run_result *out)
{
  struct cli_ctx *c = ctx;
  engine_run(c->s, task, c->o->nlog, c->o->log, out);
}

int cli_run(int argc, char **argv)
{
  struct cli_opts o;
  int rc = cli_parse(argc, argv, &o);
  if (rc || o.help) {
    if (o.help)
      cli_run_usage(stdout, "run");
    cli_free(&o);
    return rc;
  }
  struct scenario s;
  struct nw_err err = {0};
  if (cli_load(&o, &s, &err) < 0) {
    nw_err_print(&err, stderr);
    cli_free(&o);
    return 2;
  }
  int nsteps = s.op != STACK_OP_NONE && !s.op_with_workload ? 1 : s.workload.nsteps;
  struct run_result *res = calloc((size_t)nsteps, sizeof *res);
  if (!res) {
    fprintf(stderr, "nastwin: error: out of memory\n");
    cfg_free(&s);
    cli_free(&o);
    return 1;
  }
  struct cli_ctx ctx = {.s = &s, .o = &o};
  /* the calibration's intervals, read (a bad file is bad input) before any simulation */
  struct calib_ci ci;
  int want_ci = o.which.path[0] && !o.no_ci && !o.fio_json;
  if (want_ci && calib_ci_load(&o.which, &ci, &err) < 0) {
    nw_err_print(&err, stderr);
    free(res);
    cfg_free(&s);
    cli_free(&o);
    return 2;
  }
  int failed = runpool_run(nsteps, o.jobs, 0.0, cli_task, &ctx, res, NULL);
  if (want_ci)
    calib_ci_apply(&ci, res, nsteps);
  if (o.fio_json)
    report_fio_json(stdout, &s, res, nsteps, o.fio_json == 2);
  else if (o.json)
    report_json(stdout, &s, res, nsteps);
  else
    report_text(stdout, &s, res, nsteps);
  for (int i = 0; i < nsteps; i++)
    if (res[i].failed)
      fprintf(stderr, "nastwin: error: step %d (%s): %s\n", i, res[i].step, res[i].failure);
  if (o.html && htmlreport_run(o.html, &s, res, nsteps, &err) < 0) {
    nw_err_print(&err, stderr);
    failed++;
  }
  free(res);
  cfg_free(&s);
  cli_free(&o);
  return failed ? 1 : 0;
}

int cli_check(int argc, char **argv)
{
  struct cli_opts o;
  int rc = cli_parse(argc, argv, &o);
  if (rc || o.help) {
    if (o.help)
      cli_run_usage(stdout, "check");
    cli_free(&o);
    return rc;
  }
  if (!o.scenario) {
    fprintf(stderr, "nastwin: error: check needs a scenario file\n");
    cli_free(&o);
    return 2;
  }
  struct scenario s;
  struct nw_err err = {0};
  if (cfg_load(o.scenario, o.catalog, o.sets, o.nsets, o.fio, &s, &err) < 0) {
    nw_err_print(&err, stderr);
    cli_free(&o);
    return 2;
  }
  printf("%s: ok: system %s, %d x %s, %s, %d workload step(s), %d calibration parameter(s)\n",
         o.scenario, s.system_name, s.ndisks, s.drive.name, proto_kind_names[(int)s.proto.kind],
         s.workload.nsteps, s.nfits);
  cfg_free(&s);
  cli_free(&o);
  return 0;
}
