#define _XOPEN_SOURCE 700 /* realpath, strndup */
/* calib_fio.c - a twin of your own NAS: turn a folder of fio results
 * (NAME.fio + NAME.json pairs) into review data and points for the fit
 * (calibrate.h). */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/calibrate.h"

/* The numeric scalar at key of map; -1 with err naming what is missing. */
static int calib_fio_num(const struct ynode *map, const char *key, const char *what, double *out,
                         struct nw_err *err)
{
  const struct ynode *n = ytree_get(map, key);
  char *end = NULL;
  if (!n || n->kind != YNODE_SCALAR || (*out = strtod(n->scalar, &end), *end || end == n->scalar))
    return nw_fail(err, map->file, map->line, map->col,
                   "fio JSON: %s needs a number '%s' (a fio 3.x --output-format=json field)", what, key);
  return 0;
}

/* fio's clat percentiles fitted per direction (of its default 17): the
 * middle and the tail, so the shape of the latency distribution (how
 * often and how long a command waits behind another) is identified from
 * the jobs themselves, not only their means. */
static const char *const calib_fio_pcts[] = {"50.000000", "90.000000", "99.000000"};
static const char *const calib_fio_pct_names[] = {"p50", "p90", "p99"};
#define CALIB_FIO_NPCTS 3

/* One result row of the data file (and its point when field is set). */
static void calib_fio_row(FILE *data, FILE *points, const char *name, int k, const char *job, const char *dir,
                          const char *metric, double value, int approx, const char *field, const char *scenario,
                          const char *fio, int *nres)
{
  fprintf(data, "      - {metric: %s_%s, case: \"%s job %d (%s)\", value: %.10g%s}\n", dir, metric, name, k, job, value,
          approx ? ", approx: true" : "");
  if (!field)
    return;
  fprintf(points,
          "  - {experiment: \"fio-%s\", match: {metric: %s_%s, case: \"%s job %d (%s)\"}, scenario: \"%s\", "
          "fio: \"%s\", steps: [\"%s\"], field: %s.%s}\n",
          name, dir, metric, name, k, job, scenario, fio, job, dir, field);
  ++*nres;
}

/* The clat percentiles of one direction (x) as points: fio's clat
 * percentile plus its mean slat, the total latency the model predicts
 * (slat varies little; marked approx, so each weighs 1/sqrt(2) of an
 * IOPS point).  A JSON without percentiles (clat_percentiles=0) gives
 * none: the fit then has the IOPS alone. */
static int calib_fio_pct(const struct ynode *x, const char *name, int k, const char *job, const char *dir,
                         const char *scenario, const char *fio, FILE *data, FILE *points, int *nres,
                         struct nw_err *err)
{
  const struct ynode *clat = ytree_get(x, "clat_ns"), *slat = ytree_get(x, "slat_ns");
  const struct ynode *pct = clat ? ytree_get(clat, "percentile") : NULL;
  if (!pct || pct->kind != YNODE_MAP)
    return 0;
  double slat_ns = 0.0;
  if (slat && calib_fio_num(slat, "mean", "slat_ns", &slat_ns, err) < 0)
    return -1;
  for (int i = 0; i < CALIB_FIO_NPCTS; i++) {
    double v = 0.0;
    if (calib_fio_num(pct, calib_fio_pcts[i], "clat_ns.percentile", &v, err) < 0)
      return -1;
    char metric[16];
    snprintf(metric, sizeof metric, "%s_ms", calib_fio_pct_names[i]);
    calib_fio_row(data, points, name, k, job, dir, metric, (v + slat_ns) / 1e6, 1, metric, scenario, fio, nres);
  }
  return 0;
}

/* One job of a fio JSON: its results (per direction with I/O: iops, MB/s,
 * mean latency slat+clat, clat percentiles) into the data file, the IOPS
 * and the percentiles as its points. */
static int calib_fio_job(const struct ynode *job, const char *name, int k, const char *scenario, const char *fio,
                         FILE *data, FILE *points, int *nres, struct nw_err *err)
{
  const struct ynode *jn = ytree_get(job, "jobname");
  if (!jn || jn->kind != YNODE_SCALAR)
    return nw_fail(err, job->file, job->line, job->col, "fio JSON: a job needs 'jobname'");
  static const char *const dirs[] = {"read", "write"};
  for (int d = 0; d < 2; d++) {
    const struct ynode *x = ytree_get(job, dirs[d]);
    if (!x || x->kind != YNODE_MAP)
      return nw_fail(err, job->file, job->line, job->col, "fio JSON: job '%s' needs a '%s' map", jn->scalar,
                     dirs[d]);
    double io_bytes = 0.0, iops = 0.0, bw = 0.0, lat_ns = 0.0;
    const struct ynode *lat = ytree_get(x, "lat_ns");
    if (calib_fio_num(x, "io_bytes", dirs[d], &io_bytes, err) < 0 || calib_fio_num(x, "iops", dirs[d], &iops, err) < 0 ||
        calib_fio_num(x, "bw_bytes", dirs[d], &bw, err) < 0)
      return -1;
    if (!lat || lat->kind != YNODE_MAP)
      return nw_fail(err, x->file, x->line, x->col, "fio JSON: %s needs a 'lat_ns' map (fio >= 3.0)", dirs[d]);
    if (calib_fio_num(lat, "mean", "lat_ns", &lat_ns, err) < 0)
      return -1;
    if (io_bytes <= 0)
      continue;
    /* One throughput point per direction: fio's jobs are closed loops at
     * a fixed block size, so MB/s = IOPS x bs and mean latency = iodepth /
     * IOPS restate the same measurement; fitting all three would count it
     * three times and shrink the standard errors by sqrt(3). */
    calib_fio_row(data, points, name, k, jn->scalar, dirs[d], "iops", iops, 0, "iops", scenario, fio, nres);
    calib_fio_row(data, points, name, k, jn->scalar, dirs[d], "MBps", bw / 1e6, 0, NULL, scenario, fio, nres);
    calib_fio_row(data, points, name, k, jn->scalar, dirs[d], "lat_ms", lat_ns / 1e6, 0, NULL, scenario, fio, nres);
    if (calib_fio_pct(x, name, k, jn->scalar, dirs[d], scenario, fio, data, points, nres, err) < 0)
      return -1;
  }
  return 0;
}

/* One NAME.json of dir (its NAME.fio beside it). */
static int calib_fio_one(const char *dir, const char *name, const char *scenario, FILE *data, FILE *points, int *nres,
                         struct nw_err *err)
{
  char json[PATH_MAX + 300], fio[PATH_MAX + 300], absfio[PATH_MAX];
  snprintf(json, sizeof json, "%s/%s.json", dir, name);
  snprintf(fio, sizeof fio, "%s/%s.fio", dir, name);
  if (!realpath(fio, absfio))
    return nw_fail(err, json, 0, 0, "fio results: no job file %s.fio beside %s.json (the job that produced it)", name,
                   name);
  struct ynode *root = ytree_load_file(json, err);
  if (!root)
    return -1;
  int rc = 0;
  const struct ynode *ver = ytree_get(root, "fio version"), *jobs = ytree_get(root, "jobs");
  if (root->kind != YNODE_MAP || !ver || !jobs || jobs->kind != YNODE_SEQ || jobs->n == 0)
    rc = nw_fail(err, json, root->line, root->col,
                 "fio results: expected fio's --output-format=json object with 'fio version' and a non-empty 'jobs' "
                 "list");
  if (rc == 0)
    fprintf(data, "  - id: \"fio-%s\"\n    source: \"%s (%s)\"\n    system: own\n    results:\n", name, json,
            ver->kind == YNODE_SCALAR ? ver->scalar : "fio");
  for (int k = 0; rc == 0 && k < jobs->n; k++)
    rc = calib_fio_job(jobs->kids[k], name, k, scenario, absfio, data, points, nres, err);
  ytree_free(root);
  return rc;
}

static int calib_fio_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int calib_fio_prepare(const char *scenario, const char *dir, const char *data_path, const char *points_path,
                      int *njobs, struct nw_err *err)
{
  char absscn[PATH_MAX];
  if (!realpath(scenario, absscn))
    return nw_fail(err, scenario, 0, 0, "--system: cannot read the scenario");
  DIR *d = opendir(dir);
  if (!d)
    return nw_fail(err, dir, 0, 0, "--fio-results: cannot read the folder");
  char *names[512];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < 512;) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && e->d_name[0] != '.')
      names[n++] = strndup(e->d_name, l - 5);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, calib_fio_cmp);
  FILE *data = fopen(data_path, "w"), *points = fopen(points_path, "w");
  int rc = 0, nres = 0;
  if (!data || !points)
    rc = nw_fail(err, data ? points_path : data_path, 0, 0, "cannot write");
  if (rc == 0 && n == 0)
    rc = nw_fail(err, dir, 0, 0, "--fio-results: no NAME.json (fio --output-format=json) in the folder");
  if (rc == 0) {
    fprintf(data, "# written by nastwin calibrate --fio-results from %s\nversion: 1\nexperiments:\n", dir);
    fprintf(points, "# written by nastwin calibrate --fio-results for %s\nversion: 1\npoints:\n", absscn);
  }
  for (int i = 0; i < n; i++) {
    if (rc == 0)
      rc = calib_fio_one(dir, names[i], absscn, data, points, &nres, err);
    free(names[i]);
  }
  if (data)
    fclose(data);
  if (points)
    fclose(points);
  if (rc == 0 && nres == 0)
    rc = nw_fail(err, dir, 0, 0, "--fio-results: no job with I/O in the results");
  *njobs = n;
  return rc;
}
