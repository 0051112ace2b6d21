/* test_calibrate.c - the bounded transform, recovering a known parameter
 * on a synthetic problem, atomic and -j independent output, calib_load.
 *
 * The synthetic "measured" figures are simulated here at a known latency
 * (no review figure is used). */
#include <check.h>
#include "ck_run.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/study/calibrate.h"

#define TC_OUT_MAX (1 << 18)

/* Run `nastwin ARGS` (a shell-quoted argument string) and capture its
 * stdout, and its stderr too when with_err; returns the exit status. */
static int tc_exec(const char *args, char *out, size_t len, int with_err)
{
  const char *bin = getenv("NASTWIN_BIN");
  ck_assert_msg(bin != NULL, "NASTWIN_BIN is not set (run through ctest)");
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s %s", bin, args, with_err ? "2>&1" : "2>/dev/null");
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen %s", cmd);
  size_t n = fread(out, 1, len - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int tc_run(const char *args, char *out, size_t len) { return tc_exec(args, out, len, 0); }

static const char *tc_src(void)
{
  const char *s = getenv("NASTWIN_SOURCE_DIR");
  return s ? s : NASTWIN_SOURCE_DIR;
}

/* The number after `"key": ` after the first `after` in s; NAN when absent. */
static double tc_json_num(const char *s, const char *after, const char *key)
{
  const char *p = strstr(s, after);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  p = p ? strstr(p, pat) : NULL;
  return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static char *tc_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = calloc(1, TC_OUT_MAX);
  size_t n = fread(buf, 1, TC_OUT_MAX - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Drop the provenance lines of how a fit ran (they differ with -j). */
static void tc_strip_run(char *t)
{
  static const char *const keys[] = {"\n  command: ", "\n  cores: ", "\n  jobs: ", "\n  wall_s: ", "\n  cpu_s: "};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    char *p = strstr(t, keys[k]);
    if (!p)
      continue;
    char *e = strchr(p + 1, '\n');
    memmove(p, e, strlen(e) + 1);
  }
}

/* The fitted value of `key` in a calibrated.yaml text; NAN when absent. */
static double tc_param(const char *text, const char *key)
{
  char pat[96];
  snprintf(pat, sizeof pat, "key: %s, value: \"", key);
  const char *v = text ? strstr(text, pat) : NULL;
  return v ? strtod(v + strlen(pat), NULL) : NAN;
}

/* The N of calibrate's "N iterations (" line; -1 when absent. */
static int tc_iterations(const char *out)
{
  const char *it = strstr(out, " iterations (");
  while (it && it > out && it[-1] >= '0' && it[-1] <= '9')
    it--;
  int n = -1;
  return it && sscanf(it, "%d iterations (", &n) == 1 ? n : -1;
}

/* Write text to path. */
static void tc_write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* Remove a test's temporary folder and everything in it. */
static void tc_rmtree(const char *dir)
{
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* The "measured" figures: tests/calib/golden-fit.yaml simulated at disk
 * latency `latency` (text like "2.3ms"): its mean read latency (ms) and, if
 * MBps is not NULL, its read throughput (MB/s).  out is a TC_OUT_MAX buffer. */
static void tc_truth(const char *latency, char *out, double *lat_ms, double *MBps)
{
  char args[4096];
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --set disks.latency=%s --json", tc_src(),
           latency);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  *lat_ms = tc_json_num(out, "\"read\"", "mean");
  if (MBps)
    *MBps = tc_json_num(out, "\"read\"", "MBps");
}

/* One synthetic experiment of a data file (the shape of reviews.yaml). */
struct tc_experiment {
  const char *id, *source;
  double read_lat_ms;
  double read_MBps; /* <= 0: no throughput result */
};

/* Write a data file of n experiments on system client-pc to path. */
static void tc_write_data(const char *path, const struct tc_experiment *x, int n)
{
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fprintf(f, "version: 1\nexperiments:\n");
  for (int i = 0; i < n; i++) {
    fprintf(f, "  - id: %s\n    source: %s\n    system: client-pc\n    results:\n", x[i].id, x[i].source);
    fprintf(f, "      - {metric: read_lat_ms, value: %.10g}\n", x[i].read_lat_ms);
    if (x[i].read_MBps > 0)
      fprintf(f, "      - {metric: read_MBps, value: %.10g, approx: true}\n", x[i].read_MBps);
  }
  fclose(f);
}

/* A fresh temporary folder (dir: a mkdtemp template) with data.yaml (path
 * in data): the synthetic experiment "measured" by the simulator at 2.3 ms,
 * its read MB/s times mbps_factor (0: no throughput result).  out is a
 * TC_OUT_MAX buffer; returns the measured latency (ms). */
static double tc_synthetic_data(char *dir, char *data, size_t len, const char *source, double mbps_factor, char *out)
{
  double lat_ms, MBps;
  tc_truth("2.3ms", out, &lat_ms, &MBps);
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(data, len, "%s/data.yaml", dir);
  tc_write_data(data, &(struct tc_experiment){"synthetic-golden", source, lat_ms, mbps_factor * MBps}, 1);
  return lat_ms;
}

START_TEST(test_transform_roundtrip)
{
  const double lo = 2e-4, hi = 5e-3;
  for (double x = lo + 1e-5; x < hi; x += 3.7e-4) {
    double u = calib_u_of_x(x, lo, hi);
    double back = calib_x_of_u(u, lo, hi);
    ck_assert_msg(fabs(back - x) < 1e-12 * hi, "x %.9g -> u %.9g -> %.9g", x, u, back);
    double h = 1e-6;
    double num = (calib_x_of_u(u + h, lo, hi) - calib_x_of_u(u - h, lo, hi)) / (2 * h);
    ck_assert_msg(fabs(num - calib_dx_du(u, lo, hi)) < 1e-6 * (hi - lo), "dx/du at %.6g: %.9g vs numeric %.9g", u,
                  calib_dx_du(u, lo, hi), num);
  }
  /* Any u stays inside the bounds; a value at a bound maps to a finite u. */
  ck_assert(calib_x_of_u(-50, lo, hi) >= lo && calib_x_of_u(50, lo, hi) <= hi);
  ck_assert_msg(isfinite(calib_u_of_x(hi, lo, hi)), "u at the upper bound: %g", calib_u_of_x(hi, lo, hi));
  ck_assert_msg(fabs(calib_x_of_u(0, lo, hi) - 0.5 * (lo + hi)) < 1e-15, "mid-range");
}
END_TEST

START_TEST(test_entry_of_fit)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/calib/golden-fit.yaml", tc_src());
  struct scenario s;
  struct nw_err err = {0};
  memset(&s, 0, sizeof s);
  ck_assert_msg(cfg_load(path, NULL, NULL, 0, NULL, &s, &err) == 0, "load: %s", err.msg);
  int found = 0;
  for (int i = 0; i < s.nfits; i++) {
    char entry[96];
    const char *key;
    ck_assert_int_eq(calib_entry_of_fit(&s, &s.fits[i], entry, sizeof entry, &key), 0);
    if (!strcmp(s.fits[i].path, "disks.latency")) {
      found = 1;
      ck_assert_msg(!strcmp(entry, "drives/teaching-fixed") && !strcmp(key, "latency"), "entry %s key %s", entry, key);
    }
    if (!strncmp(s.fits[i].path, "soc.", 4))
      ck_assert_msg(!strcmp(entry, "socs/atom-d525"), "soc fit %s -> %s", s.fits[i].path, entry);
  }
  ck_assert_msg(found, "disks.latency is not a fit of golden-fit.yaml (%d fits)", s.nfits);
  cfg_free(&s);
}
END_TEST

/* Forward selection on a made-up Jacobian: 40 well-fitted points see
 * parameter 0 a little (the largest |column|), 3 points far off see
 * parameter 1; parameter 2 moves those 3 points exactly as 1 does (twice
 * as much), parameter 3 moves one of them its own way.  With one slot the
 * misfit's parameter wins; with no cap the collinear one is never taken. */
START_TEST(test_forward_select)
{
  enum { N = 43, P = 4 };
  gsl_matrix *J = gsl_matrix_calloc(N, P);
  gsl_vector *f = gsl_vector_calloc(N);
  for (int i = 0; i < 40; i++) {
    gsl_matrix_set(J, i, 0, 0.5);
    gsl_vector_set(f, i, i % 2 ? -0.01 : 0.02); /* a small bias for 0 to explain */
  }
  for (int i = 40; i < N; i++) {
    gsl_matrix_set(J, i, 1, 1.0);
    gsl_matrix_set(J, i, 2, 2.0);
    gsl_vector_set(f, i, 1.4);
  }
  gsl_matrix_set(J, 41, 3, 0.3);
  gsl_vector_set(f, 41, 1.7); /* what parameter 3 alone can still fix */
  int pick[P];
  double gain[P];
  int skip[P] = {0, 0, 0, 0};
  ck_assert_int_eq(calib_forward_select(J, f, skip, 1, pick, gain), 1);
  ck_assert_msg(pick[1] == 1 && !pick[0] && !pick[2] && !pick[3], "one slot: picks %d %d %d %d", pick[0], pick[1],
                pick[2], pick[3]);
  ck_assert_msg(fabs(gain[1] - pow(1.4 + 1.7 + 1.4, 2) / 3) < 1e-9, "gain %.12g", gain[1]);
  int n = calib_forward_select(J, f, skip, 0, pick, gain);
  ck_assert_msg(n == 3 && pick[1] == 1 && pick[3] == 2 && pick[0] == 3 && pick[2] == 0,
                "no cap: %d picked, order %d %d %d %d", n, pick[0], pick[1], pick[2], pick[3]);
  skip[1] = 1; /* parameter 1 had no effect: its twin takes the slot */
  ck_assert_int_eq(calib_forward_select(J, f, skip, 1, pick, gain), 1);
  ck_assert_msg(pick[2] == 1, "with 1 skipped: picks %d %d %d %d", pick[0], pick[1], pick[2], pick[3]);
  gsl_matrix_free(J);
  gsl_vector_free(f);
}
END_TEST

START_TEST(test_recovers_known_latency)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  /* "Measured" = the simulator at latency 2.3 ms. */
  double lat_ms, MBps;
  tc_truth("2.3ms", out, &lat_ms, &MBps);
  ck_assert_msg(lat_ms > 0 && MBps > 0, "truth: lat %g ms, %g MB/s", lat_ms, MBps);
  char dir[] = "/tmp/tc_calXXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char data[1100], out1[1100], out2[1100];
  snprintf(data, sizeof data, "%s/data.yaml", dir);
  snprintf(out1, sizeof out1, "%s/cal1.yaml", dir);
  snprintf(out2, sizeof out2, "%s/cal2.yaml", dir);
  tc_write_data(data, &(struct tc_experiment){"synthetic-golden", "test_calibrate (simulated at 2.3 ms)", lat_ms, MBps},
                1);
  /* One synthetic point against one parameter: the review set's default
   * prior (0.05 a row) would weigh as much as the point; a weak one (0.01)
   * checks that the fitter finds the truth. */
  const char *common = "--params drives/teaching-fixed.latency --prior 0.01 --quiet --max-iter 20";
  snprintf(args, sizeof args, "calibrate --data '%s' --points '%s/tests/calib/points.yaml' %s -j 1 --out '%s'", data, src,
           common, out1);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate -j 1 exit %d:\n%s", rc, out);
  int cold_it = tc_iterations(out);
  ck_assert_msg(cold_it > 0, "no iteration count in:\n%s", out);
  snprintf(args, sizeof args, "calibrate --data '%s' --points '%s/tests/calib/points.yaml' %s -j 2 --out '%s'", data, src,
           common, out2);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  char *a = tc_slurp(out1), *b = tc_slurp(out2);
  ck_assert_msg(a && b, "outputs missing");
  /* How it ran (command, cores, jobs, wall_s) is recorded; the rest is
   * the same bytes at any -j. */
  ck_assert_msg(strstr(a, "  command: \"nastwin calibrate --data ") && strstr(a, " -j 1 --out ") &&
                    strstr(b, " -j 2 --out ") && strstr(a, "\n  cores: ") && strstr(a, "\n  jobs: 1\n") &&
                    strstr(b, "\n  jobs: 2\n") && strstr(a, "\n  wall_s: "),
                "no command, cores, jobs, wall_s in the provenance:\n%s", a);
  tc_strip_run(a);
  tc_strip_run(b);
  ck_assert_msg(!strcmp(a, b), "-j 1 and -j 2 outputs differ:\n%s\n---\n%s", a, b);
  double fitted = tc_param(a, "latency");
  ck_assert_msg(fabs(fitted / 2.3e-3 - 1) < 0.02, "fitted latency %.6g s, truth 2.3 ms:\n%s", fitted, a);
  ck_assert_msg(strstr(a, "date: \"unspecified\"") != NULL, "provenance date");
  /* Atomic write: only the data, the two outputs and their reach records, no temporary left. */
  DIR *d = opendir(dir);
  int nfiles = 0, nrec = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') {
      nfiles++;
      nrec += strstr(e->d_name, ".reach.yaml") != NULL && !strstr(e->d_name, ".tmp");
    }
  closedir(d);
  ck_assert_msg(nfiles == 5 && nrec == 2, "%d files (%d reach records) in %s (temporary left behind?)", nfiles, nrec,
                dir);
  /* --start: from the fit's own values the refit needs fewer iterations and stays there. */
  snprintf(args, sizeof args, "calibrate --data '%s' --points '%s/tests/calib/points.yaml' %s -j 2 --start '%s' --out '%s'",
           data, src, common, out1, out2);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  int warm_it = tc_iterations(out);
  ck_assert_msg(strstr(out, "starting from the values of ") && warm_it > 0,
                "--start: no start line or iteration count in:\n%s", out);
  ck_assert_msg(warm_it < cold_it, "--start: %d iterations, from the catalogue %d", warm_it, cold_it);
  char *w = tc_slurp(out2);
  ck_assert_msg(fabs(tc_param(w, "latency") / 2.3e-3 - 1) < 0.02, "--start: refit latency in:\n%s", w ? w : "(none)");
  free(w);
  /* validate --calibrated applies the fit: the latency point's error vanishes. */
  snprintf(args, sizeof args, "validate --data '%s' --points '%s/tests/calib/points.yaml' --calibrated '%s' --json", data,
           src, out1);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  double e_cal = tc_json_num(out, "\"read_lat_ms\"", "error");
  ck_assert_msg(fabs(e_cal) < 0.01, "validate --calibrated: latency error %g", e_cal);
  /* calib_load: the set for the scenario. */
  char scen[1024];
  snprintf(scen, sizeof scen, "%s/tests/calib/golden-fit.yaml", src);
  struct scenario s;
  struct nw_err err = {0};
  memset(&s, 0, sizeof s);
  ck_assert_int_eq(cfg_load(scen, NULL, NULL, 0, NULL, &s, &err), 0);
  struct cfg_set sets[8];
  char text[4096];
  int n = calib_load(out1, &s, sets, 8, text, sizeof text, &err);
  ck_assert_msg(n == 1, "calib_load: %d sets (%s)", n, err.msg);
  ck_assert_str_eq(sets[0].path, "disks.latency");
  struct scenario s2;
  memset(&s2, 0, sizeof s2);
  ck_assert_msg(cfg_load(scen, NULL, sets, n, NULL, &s2, &err) == 0, "reload with %s=%s: %s", sets[0].path,
                sets[0].value, err.msg);
  cfg_free(&s);
  cfg_free(&s2);
  tc_rmtree(dir);
  free(a);
  free(b);
  free(out);
}
END_TEST

/* The robust loss: the latency point is "measured" at 2.3 ms, the
 * throughput point at 10x what any latency in range gives (a missing
 * mechanism).  With the Cauchy residuals (default) the latency stays
 * near 2.3 ms and the throughput point is reported as mechanism missing;
 * with plain least squares (--robust 0) the far point drags it further. */
START_TEST(test_robust_outlier)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  char dir[] = "/tmp/tc_robXXXXXX";
  char data[1100], cal[2][1100];
  tc_synthetic_data(dir, data, sizeof data, "test_calibrate (2.3 ms, MB/s x10)", 10, out);
  const char *robust[2] = {"0.4", "0"};
  double fitted[2];
  for (int m = 0; m < 2; m++) {
    snprintf(cal[m], sizeof cal[m], "%s/cal%d.yaml", dir, m);
    snprintf(args, sizeof args,
             "calibrate --data '%s' --points '%s/tests/calib/points.yaml' --params drives/teaching-fixed.latency "
             "--quiet --max-iter 20 --robust %s -j 2 --out '%s'",
             data, src, robust[m], cal[m]);
    int rc = tc_run(args, out, TC_OUT_MAX);
    ck_assert_msg(rc == 0, "calibrate --robust %s exit %d:\n%s", robust[m], rc, out);
    if (m == 0)
      ck_assert_msg(strstr(out, "mechanism missing") && strstr(out, "synthetic-golden read_MBps"),
                    "the x10 point is not reported as mechanism missing:\n%s", out);
    char *a = tc_slurp(cal[m]);
    fitted[m] = tc_param(a, "latency");
    ck_assert_msg(!isnan(fitted[m]), "no latency in:\n%s", a ? a : "(none)");
    if (m == 0)
      ck_assert_msg(strstr(a, "mechanism_missing:") && strstr(a, "metric: read_MBps"), "file:\n%s", a);
    free(a);
  }
  double e_rob = fabs(fitted[0] / 2.3e-3 - 1), e_ls = fabs(fitted[1] / 2.3e-3 - 1);
  ck_assert_msg(e_ls > 0.8 && e_rob < 0.6 * e_ls, "robust fit %g s (%.1f %% off), least squares %g s (%.1f %% off)", fitted[0],
                100 * e_rob, fitted[1], 100 * e_ls);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A partial refit of a shipped calibration: --start names the latency
 * and the read rate, --params frees only the latency.  The rate is held at
 * the start's 80 MB/s (not the catalogue's 100 MB/s) while the latency is
 * fitted, and is written back with the start's record, so the fit recovers
 * the truth (2.3 ms at 80 MB/s); with the rate at the catalogue's value
 * the 1 MiB reads' mean latency would pull the latency ~2.6 ms higher. */
START_TEST(test_start_pins_the_rest)
{
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_pinXXXXXX", args[8192], path[4][1100];
  ck_assert(mkdtemp(dir) != NULL);
  const char *names[4] = {"both.yaml", "points.yaml", "start.yaml", "cal.yaml"};
  for (int i = 0; i < 4; i++)
    snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
  tc_write_file(path[0], "name: golden-fit-both\nsystem: client-pc\n"
                         "disks: {count: 1, drive: teaching-fixed, latency: {value: 1ms, fit: [0.2ms, 5ms], source: test}, "
                         "read_rate: {value: 100MB/s, fit: [50MB/s, 200MB/s], source: test}}\n"
                         "volume: {level: single}\npage_cache: {ram: 0B}\nprotocol: {kind: local}\n"
                         "workload: {rw: read, bs: 1m, iodepth: 1, direct: 1, time_based: 1, runtime: 2s}\ntime: 2s\nseed: 1\n");
  tc_write_file(path[1], "version: 1\npoints:\n  - {experiment: synthetic-golden, match: {metric: read_lat_ms}, "
                         "scenario: both.yaml, field: read.lat_mean_ms}\n");
  tc_write_file(path[2], "version: 1\nparameters:\n"
                         "  - {entry: \"drives/teaching-fixed\", key: latency, value: \"0.001s\", stderr: \"0.0001s\"}\n"
                         "  - {entry: \"drives/teaching-fixed\", key: read_rate, value: \"80000000B/s\", readable: \"80 MB/s\", "
                         "catalogue: \"100000000B/s\", lo: \"50000000B/s\", hi: \"200000000B/s\", stderr: \"1000000B/s\", "
                         "at_bound: false, points: 1, sensitivity: 0.5}\n");
  snprintf(args, sizeof args, "run '%s' --set disks.latency=2.3ms --set disks.read_rate=80MB/s --json", path[0]);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  double lat_ms = tc_json_num(out, "\"read\"", "mean");
  char data[1100];
  snprintf(data, sizeof data, "%s/data.yaml", dir);
  tc_write_data(data, &(struct tc_experiment){"synthetic-golden", "test_calibrate (2.3 ms at 80 MB/s)", lat_ms, 0}, 1);
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s' --start '%s' --params drives/teaching-fixed.latency --prior 0.01 "
           "--quiet --max-iter 20 -j 2 --out '%s'", /* one point: a weak prior, as test_recovers_known_latency */
           data, path[1], path[2], path[3]);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, out);
  char *a = tc_slurp(path[3]);
  double lat = tc_param(a, "latency"), rate = tc_param(a, "read_rate");
  ck_assert_msg(fabs(lat / 2.3e-3 - 1) < 0.02, "fitted latency %.6g s with the rate pinned, truth 2.3 ms:\n%s", lat, a);
  ck_assert_msg(rate == 8e7 && strstr(a, "key: read_rate, value: \"80000000B/s\"") &&
                    strstr(a, "stderr: \"1000000B/s\"") && strstr(a, "free_parameters: 1\n"),
                "the read rate is not held and written back as the start has it:\n%s", a);
  free(a);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* An observation's constraint (points.yaml `observations`): the data's
 * latency point is "measured" at 2.3 ms, an observation bounds the mean
 * latency from above by what 1.8 ms gives.  Weighted 10 and one-sided,
 * it holds the fit near the bound (the point alone gives 2.3 ms:
 * test_recovers_known_latency); a second constraint on a resource's busy
 * (busy:PREFIX, through the fit's compact cache) holds and is reported. */
START_TEST(test_observation_constraint)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  double lat_fast;
  char dir[] = "/tmp/tc_obsXXXXXX";
  char data[1100], points[1100], cal[1100], text[4096];
  tc_synthetic_data(dir, data, sizeof data, "test_calibrate (simulated at 2.3 ms)", 0, out);
  tc_truth("1.8ms", out, &lat_fast, NULL);
  snprintf(points, sizeof points, "%s/points.yaml", dir);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  FILE *f = fopen(data, "a");
  ck_assert(f != NULL);
  fputs("observations:\n  - {id: synthetic-fast, source: test, text: \"reads are faster than the point says\"}\n", f);
  fclose(f);
  snprintf(text, sizeof text,
           "version: 1\npoints:\n"
           "  - {experiment: synthetic-golden, match: {metric: read_lat_ms}, scenario: %s/tests/calib/golden-fit.yaml, "
           "field: read.lat_mean_ms}\n"
           "observations:\n"
           "  - {observation: synthetic-fast, scenario: %s/tests/calib/golden-fit.yaml, field: read.lat_mean_ms, "
           "at_most: %.10g}\n"
           "  - {observation: synthetic-fast, scenario: %s/tests/calib/golden-fit.yaml, field: \"busy:disk\", "
           "at_least: 0.9, case: the drive saturated}\n",
           src, src, lat_fast, src);
  tc_write_file(points, text);
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s' --params drives/teaching-fixed.latency --max-iter 20 -j 2 --out '%s'",
           data, points, cal);
  int rc = tc_exec(args, out, TC_OUT_MAX, 0);
  ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, out);
  char *a = tc_slurp(cal);
  double fitted = tc_param(a, "latency");
  /* The constraint row pulls VAL_OBS_MARGIN inside its bound, on the
   * constrained output: the fitted value's mean latency lies between the
   * bound less two margins and the bound (the point alone would pull it
   * up to 2.3 ms). */
  char lat_s[64];
  double lat_fit;
  snprintf(lat_s, sizeof lat_s, "%.9gs", fitted);
  char *out2 = calloc(1, TC_OUT_MAX);
  tc_truth(lat_s, out2, &lat_fit, NULL);
  free(out2);
  ck_assert_msg(fitted < 2.3e-3 && lat_fit <= lat_fast * (1 + 1e-9) && lat_fit >= lat_fast * (1 - 2 * VAL_OBS_MARGIN),
                "fitted latency %.6g s gives a mean of %.6g ms: not held just inside the constraint's %.6g ms", fitted,
                lat_fit, lat_fast);
  ck_assert_msg(strstr(out, "observations' constraints") && strstr(out, "busy:disk >= 0.9") &&
                    strstr(out, "holds the drive saturated"),
                "constraints not reported:\n%s", out);
  /* bad input: an observation id the data does not have, both bounds */
  const char *bad[] = {"{observation: nope, scenario: x.yaml, field: all.MBps, at_least: 1}",
                       "{observation: synthetic-fast, scenario: x.yaml, field: all.MBps, at_least: 1, at_most: 2}",
                       "{observation: synthetic-fast, scenario: x.yaml, field: \"busy:\", at_least: 1}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, "version: 1\npoints: []\nobservations:\n  - %s\n", bad[i]);
    tc_write_file(points, text);
    snprintf(args, sizeof args, "calibrate --data '%s' --points '%s' --quiet --out '%s/x.yaml'", data, points, dir);
    rc = tc_exec(args, out, TC_OUT_MAX, 1);
    ck_assert_msg(rc == 2 && strstr(out, points) && strstr(out, "error:") && strstr(out, "observations"),
                  "bad entry %s: exit %d:\n%s", bad[i], rc, out);
  }
  free(a);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* calibrate on reach-steps.yaml with --reach how, output at path; the
 * calibrated file without its run lines (checked exit 0), out the output. */
static char *tc_reach_steps(const char *data, const char *how, const char *path, char *out)
{
  char args[8192];
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s/tests/calib/reach-steps-points.yaml' --params "
           "drives/teaching-fixed,socs/atom-d525.md_stripe_cycles,socs/atom-d525.md_stripe_dev_cycles "
           "--max-iter 4 --reach %s -j 2 --out '%s'",
           data, tc_src(), how, path);
  int rc = tc_exec(args, out, TC_OUT_MAX, 1);
  ck_assert_msg(rc == 0, "calibrate --reach %s exit %d:\n%s", how, rc, out);
  char *file = tc_slurp(path);
  ck_assert(file != NULL);
  tc_strip_run(file);
  return file;
}

/* The per-scenario reach (--reach scenario): reach-steps.yaml's three
 * ATTO read steps free the drive's latency and read rate and md's two
 * stripe costs (no md on one drive).  The lead step tests its 4 pairs by
 * plain differences (both md pairs inert); each other step tests the md
 * pair as one group (inert: one simulation for two) and the drive's two as
 * singles: 4 + 2 x 3 = 10 simulations for the 12 declared pairs.  The
 * record it writes (cal0.reach.yaml) makes the next fit test every step
 * that way (9), a record that calls moving pairs inert costs splits but
 * not the result, and a bad record is bad input.  Every fit writes the
 * same file as with every declared pair. */
START_TEST(test_reach_scenario_same)
{
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_reachsXXXXXX";
  char data[1100], cal[2][1100], rec[1100];
  tc_synthetic_data(dir, data, sizeof data, "test_calibrate (simulated at 2.3 ms)", 1, out);
  snprintf(cal[0], sizeof cal[0], "%s/cal0.yaml", dir);
  snprintf(cal[1], sizeof cal[1], "%s/cal1.yaml", dir);
  snprintf(rec, sizeof rec, "%s/cal0.reach.yaml", dir);
  char *declared = tc_reach_steps(data, "declared", cal[1], out);
  char rec1[1100];
  snprintf(rec1, sizeof rec1, "%s/cal1.reach.yaml", dir);
  ck_assert_msg(access(rec1, F_OK) != 0 && !strstr(out, "reach: "), "--reach declared ran the tests:\n%s", out);
  const char *want[2] = {"6 inert, found by 10 group simulations in 2 rounds (per scenario: 1 lead tasks by plain "
                         "differences, 0 tasks from the record)",
                         "6 inert, found by 9 group simulations in 1 rounds (per scenario: 0 lead tasks by plain "
                         "differences, 3 tasks from the record)"};
  for (int m = 0; m < 3; m++) {
    if (m == 2) { /* a stale record: the drive's latency called inert on the first step */
      char *r = tc_slurp(rec);
      ck_assert(r != NULL);
      char *at = strstr(r, "inert: [");
      ck_assert_msg(at != NULL, "no inert list in the record:\n%s", r);
      at += strlen("inert: [");
      char text[8192];
      snprintf(text, sizeof text, "%.*s\"drives/teaching-fixed.latency\", %s", (int)(at - r), r, at);
      tc_write_file(rec, text);
      free(r);
    }
    char *file = tc_reach_steps(data, "scenario", cal[0], out);
    ck_assert_msg(strstr(out, "reach: 6 of 12 (simulation, free parameter) pairs move the simulation") != NULL &&
                      (m == 2 || strstr(out, want[m]) != NULL),
                  "run %d: md's stripe costs not found inert as expected:\n%s", m, out);
    ck_assert_msg(!strcmp(file, declared), "run %d: --reach scenario and declared differ:\n%s\n---\n%s", m, file,
                  declared);
    free(file);
  }
  tc_write_file(rec, "version: 1\ntasks:\n  - {task: x, inert: 3}\n");
  char args[8192];
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s/tests/calib/reach-steps-points.yaml' --reach scenario --out '%s'",
           data, tc_src(), cal[0]);
  int rc = tc_exec(args, out, TC_OUT_MAX, 1);
  ck_assert_msg(rc == 2 && strstr(out, "cal0.reach.yaml:3:5: error:"), "a bad record: exit %d:\n%s", rc, out);
  free(declared);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The reach tests: golden-fit-inert.yaml frees the latency, the read and
 * the write rate of a drive under reads.  The group tests find the write
 * rate inert (the pair leaves the reach: the Jacobian neither simulates nor
 * sets it) and the fit writes the same file as with every declared pair. */
START_TEST(test_reach_tested_same)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  char dir[] = "/tmp/tc_reachXXXXXX";
  char data[1100], cal[2][1100];
  tc_synthetic_data(dir, data, sizeof data, "test_calibrate (simulated at 2.3 ms)", 1, out);
  const char *how[2] = {"tested", "declared"};
  char *file[2];
  for (int m = 0; m < 2; m++) {
    snprintf(cal[m], sizeof cal[m], "%s/cal%d.yaml", dir, m);
    snprintf(args, sizeof args,
             "calibrate --data '%s' --points '%s/tests/calib/inert-points.yaml' --params drives/teaching-fixed "
             "--max-iter 6 --reach %s -j 2 --out '%s'",
             data, src, how[m], cal[m]);
    int rc = tc_exec(args, out, TC_OUT_MAX, 0);
    ck_assert_msg(rc == 0, "calibrate --reach %s exit %d:\n%s", how[m], rc, out);
    if (m == 0)
      ck_assert_msg(strstr(out, "reach: 2 of 3 (simulation, free parameter) pairs move the simulation; 1 inert") != NULL,
                    "the write rate not found inert:\n%s", out);
    else
      ck_assert_msg(strstr(out, "reach: ") == NULL, "--reach declared ran the tests:\n%s", out);
    file[m] = tc_slurp(cal[m]);
    ck_assert(file[m] != NULL);
    tc_strip_run(file[m]);
  }
  ck_assert_msg(!strcmp(file[0], file[1]), "--reach tested and declared differ:\n%s\n---\n%s", file[0], file[1]);
  free(file[0]);
  free(file[1]);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A partial refit (--start, --params drives/teaching-fixed) where the
 * screen finds a selected value without effect (golden-fit-inert.yaml's
 * write rate under reads): it keeps the start's value and record in the
 * written file, as one outside --params does, instead of falling back to
 * the catalogue's 100 MB/s when the file is applied. */
START_TEST(test_start_keeps_inert)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_keepXXXXXX", args[8192], data[1100], start[1100], cal[1100];
  tc_synthetic_data(dir, data, sizeof data, "test_calibrate (simulated at 2.3 ms)", 1, out);
  snprintf(start, sizeof start, "%s/start.yaml", dir);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  tc_write_file(start, "version: 1\nparameters:\n"
                       "  - {entry: \"drives/teaching-fixed\", key: write_rate, value: \"80000000B/s\", "
                       "stderr: \"1000000B/s\", sensitivity: 0.5}\n");
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s/tests/calib/inert-points.yaml' --start '%s' --params drives/teaching-fixed "
           "--max-iter 6 --quiet -j 2 --out '%s'",
           data, src, start, cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "  drives/teaching-fixed.write_rate\n") != NULL, "write_rate not without effect:\n%s", out);
  char *a = tc_slurp(cal);
  ck_assert_msg(a && strstr(a, "key: write_rate, value: \"80000000B/s\"") && strstr(a, "stderr: \"1000000B/s\"") &&
                    strstr(a, "free_parameters: 2\n"),
                "write_rate not written back as the start has it:\n%s", a ? a : "(no file)");
  free(a);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A --params item that names no fit value of the selected points (an
 * entry without its `socs/` folder, a misspelt key) is bad input, named:
 * it left nothing free and the fit failed with "screening Jacobian failed
 * (out of memory)", exit 1.  No output file. */
START_TEST(test_params_unknown_named)
{
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_parXXXXXX", args[4096], cal[1100];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  static const char *const bad[] = {"atom-c3538.disk_request_cycles", "drives/samsung-pm810-256,read_rat",
                                    "socs/atom-c3538.disk_request_cycles"};
  static const char *const want[] = {"--params 'atom-c3538.disk_request_cycles': no fit value",
                                     "--params 'read_rat': no fit value",
                                     "--params 'socs/atom-c3538.disk_request_cycles': no fit value"};
  for (int k = 0; k < 3; k++) {
    snprintf(args, sizeof args, "calibrate --only pm810-local-baseline --params '%s' -j 2 --out '%s'", bad[k], cal);
    int rc = tc_exec(args, out, TC_OUT_MAX, 1);
    ck_assert_msg(rc == 2 && strstr(out, want[k]) && strstr(out, "error:"), "case %d: exit %d, expected '%s' in:\n%s",
                  k, rc, want[k], out);
    ck_assert_msg(access(cal, F_OK) != 0, "case %d: %s written", k, cal);
  }
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A start at a bound is no trap: the PM810's values of a converged fit
 * with read_rate put at its upper bound (280 MB/s).  There its u (the
 * map's clamp) and x disagreed, the Jacobian's step moved x down while u
 * went up, and the fit kept read_rate at 280 with the reviews at 262-266
 * MB/s.  It starts 5 % of its range inside now and the fit brings it to
 * the reviews, off the bound. */
START_TEST(test_start_at_bound_moves)
{
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_edgeXXXXXX", args[4096], cal[1100], start[1100];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  snprintf(start, sizeof start, "%s/start.yaml", dir);
  tc_write_file(start, "version: 1\nparameters:\n"
                       "  - {entry: \"drives/samsung-pm810-256\", key: channel_rate, value: \"132968879.8B/s\"}\n"
                       "  - {entry: \"drives/samsung-pm810-256\", key: cmd_time, value: \"9.626387019e-05s\"}\n"
                       "  - {entry: \"drives/samsung-pm810-256\", key: read_rate, value: \"280000000B/s\"}\n"
                       "  - {entry: \"drives/samsung-pm810-256\", key: write_latency, value: \"0.0002959397187s\"}\n"
                       "  - {entry: \"drives/samsung-pm810-256\", key: write_rate, value: \"259297026.7B/s\"}\n");
  snprintf(args, sizeof args,
           "calibrate --only pm810-local-baseline --params drives/samsung-pm810-256 --start '%s' -j 2 --out '%s'", start,
           cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "3 start values within 5 % of a bound start 5 % of their range inside it") != NULL,
                "the start at the bound not moved inside:\n%.3000s", out);
  char *a = tc_slurp(cal);
  ck_assert(a != NULL);
  double rate = tc_param(a, "read_rate");
  const char *r = strstr(a, "key: read_rate,"), *end = r ? strchr(r, '}') : NULL, *ab = r ? strstr(r, "at_bound: ") : NULL;
  ck_assert_msg(rate > 255e6 && rate < 275e6 && ab && ab < end && !strncmp(ab, "at_bound: false", 15),
                "read_rate %.6g B/s from a start at its bound: not back at the reviews' 262-266 MB/s:\n%s", rate, a);
  free(a);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A parameter inert at the start and binding after the fit: from the
 * catalogue, the Samsung PM810's local writes are bound by the die
 * program limit (write_latency 600 us), so the screen finds write_rate
 * without effect; the fit lowers write_latency until the writes sit at
 * write_rate's 220 MB/s (the reviews: 252-261 MB/s).  The re-screen after
 * the fit frees write_rate and the fit goes on: the writes reach the
 * reviews.  Same inputs, same bytes (the run lines aside). */
START_TEST(test_rescreen_frees_bound)
{
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_rescrXXXXXX", args[4096], cal[1100];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  snprintf(args, sizeof args,
           "calibrate --only pm810-local-baseline --params drives/samsung-pm810-256 --quiet -j 2 --out '%s'", cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "screening Jacobian: ") && strstr(out, "  drives/samsung-pm810-256.write_rate\n") &&
                    strstr(out, "freed (without effect at the start, a fit point moves with it now): "
                                "drives/samsung-pm810-256.write_rate\n"),
                "write_rate not inert at the start and freed by the re-screen:\n%s", out);
  char *a = tc_slurp(cal);
  ck_assert(a != NULL);
  double rate = tc_param(a, "write_rate");
  ck_assert_msg(rate > 240e6 && rate < 280e6, "write_rate %.6g B/s: not fitted to the reviews' 252-261 MB/s:\n%s",
                rate, a);
  const char *fr = strstr(a, "  freed_by_rescreen: ");
  ck_assert_msg(fr && atoi(fr + strlen("  freed_by_rescreen: ")) == 1, "no re-screen in the provenance:\n%s", a);
  snprintf(args, sizeof args, "validate --calibrated '%s' --only pm810-local-baseline --json", cal);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  int nw = 0;
  for (const char *p = strstr(out, "\"write_MBps\""); p; p = strstr(p + 1, "\"write_MBps\"")) {
    double e = tc_json_num(p, "", "error");
    ck_assert_msg(fabs(e) < 0.03, "a PM810 write point off by %+.1f %% after the fit:\n%.2000s", 100 * e, out);
    nw++;
  }
  ck_assert_msg(nw == 2, "expected the two PM810 write points, found %d:\n%.2000s", nw, out);
  free(a);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The coloured Jacobian against the per-parameter one on a small case:
 * synthetic-a reaches only the drive latency (golden-fit.yaml),
 * synthetic-b only the read rate (golden-fit-rate.yaml), so both move in
 * one perturbed vector.  The two fits must write the same bytes (values
 * to 10 digits, standard errors, sensitivities), and the coloured one
 * must need fewer vectors. */
START_TEST(test_jacobian_coloured_same)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  double lat, MBps, lat2, MBps2;
  tc_truth("2.3ms", out, &lat, &MBps);
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit-rate.yaml' --set disks.read_rate=80MB/s --json", src);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  lat2 = tc_json_num(out, "\"read\"", "mean");
  MBps2 = tc_json_num(out, "\"read\"", "MBps");
  ck_assert_msg(lat > 0 && MBps2 > 0 && lat2 > 0 && MBps > 0, "truth: %g ms, %g MB/s", lat, MBps2);
  char dir[] = "/tmp/tc_jacXXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char data[1100], cal[2][1100];
  snprintf(data, sizeof data, "%s/data.yaml", dir);
  const struct tc_experiment x[2] = {{"synthetic-a", "test_calibrate (2.3 ms)", lat, 0},
                                     {"synthetic-b", "test_calibrate (80 MB/s)", lat2, MBps2}};
  tc_write_data(data, x, 2);
  const char *how[2] = {"per-parameter", "coloured"};
  int nvec[2] = {0, 0};
  for (int m = 0; m < 2; m++) {
    snprintf(cal[m], sizeof cal[m], "%s/cal-%s.yaml", dir, how[m]);
    snprintf(args, sizeof args,
             "calibrate --data '%s' --points '%s/tests/calib/jac-points.yaml' --prior 0.01 --quiet --max-iter 6 -j 2 "
             "--jacobian %s --out '%s'",
             data, src, how[m], cal[m]);
    int rc = tc_run(args, out, TC_OUT_MAX);
    ck_assert_msg(rc == 0, "calibrate --jacobian %s exit %d:\n%s", how[m], rc, out);
    const char *l = strstr(out, "Jacobian: 2 free parameters, ");
    ck_assert_msg(l && sscanf(l, "Jacobian: 2 free parameters, %d perturbed vectors", &nvec[m]) == 1,
                  "no Jacobian line with 2 free parameters in:\n%s", out);
  }
  ck_assert_msg(nvec[0] == 2 && nvec[1] == 1, "perturbed vectors: per-parameter %d, coloured %d", nvec[0], nvec[1]);
  char *a = tc_slurp(cal[0]), *b = tc_slurp(cal[1]);
  ck_assert_msg(a && b, "outputs missing");
  tc_strip_run(a);
  tc_strip_run(b);
  ck_assert_msg(strstr(a, "key: latency, value: ") && strstr(a, "key: read_rate, value: "), "both fitted:\n%s", a);
  ck_assert_msg(!strcmp(a, b), "coloured and per-parameter fits differ:\n%s\n---\n%s", a, b);
  /* and the fit recovers both truths (the weak prior holds them within 1 %) */
  double fl = tc_param(a, "latency"), fr = tc_param(a, "read_rate");
  ck_assert_msg(fabs(fl / 2.3e-3 - 1) < 0.01 && fabs(fr / 80e6 - 1) < 0.01, "fitted %g s, %g B/s", fl, fr);
  tc_rmtree(dir);
  free(a);
  free(b);
  free(out);
}
END_TEST

/* Leave-one-experiment-out, one step: A is "measured" at 2.3 ms, B at
 * 1.5 ms.  The full fit sits between them; the fold without A fits B
 * alone, so A's cross-validated error is about the gap between the two
 * simulated latencies (11.986 ms at 1.5 ms, 12.786 ms at 2.3 ms: -6.3 %),
 * larger than its full-fit error. */
START_TEST(test_cv_one_step)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[8192];
  double lat[2];
  const char *truth[2] = {"2.3ms", "1.5ms"};
  for (int i = 0; i < 2; i++)
    tc_truth(truth[i], out, &lat[i], NULL);
  char dir[] = "/tmp/tc_cvXXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char data[1100], cal[1100];
  snprintf(data, sizeof data, "%s/data.yaml", dir);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  const struct tc_experiment x[2] = {{"synthetic-a", "test_calibrate", lat[0], 0},
                                     {"synthetic-b", "test_calibrate", lat[1], 0}};
  tc_write_data(data, x, 2);
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s/tests/calib/cv-points.yaml' --params drives/teaching-fixed.latency "
           "--quiet --max-iter 20 --cv -j 2 --out '%s'",
           data, src, cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate --cv exit %d:\n%s", rc, out);
  const char *line = strstr(out, "  synthetic-a ");
  ck_assert_msg(line != NULL, "no CV row for synthetic-a in:\n%s", out);
  int npts = 0, nfree = 0;
  double full = -1, cv = -1;
  ck_assert_msg(sscanf(line, " synthetic-a %d %d %lf%% %lf%%", &npts, &nfree, &full, &cv) == 4, "CV row: %.120s", line);
  double gap = 100 * fabs(lat[1] / lat[0] - 1);
  ck_assert_msg(cv > full, "CV |err| %.2f %% should exceed the full-fit |err| %.2f %%", cv, full);
  ck_assert_msg(fabs(cv - gap) < 0.25 * gap, "CV |err| %.2f %%, expected near the gap %.2f %%", cv, gap);
  /* The same folds from the written fit without refitting (--cv-from),
   * the table written between the markers of a README (--cv-readme). */
  char readme[1100];
  snprintf(readme, sizeof readme, "%s/README.md", dir);
  tc_write_file(readme, "# x\n\n<!-- cross-validation table, leave one experiment out: written by nastwin calibrate "
                        "--cv-readme; do not edit -->\nstale\n<!-- end of the cross-validation table, leave one "
                        "experiment out -->\nafter\n");
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s/tests/calib/cv-points.yaml' --params drives/teaching-fixed.latency "
           "--quiet --cv-from '%s' --cv-readme '%s' -j 2",
           data, src, cal, readme);
  rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate --cv-from exit %d:\n%s", rc, out);
  line = strstr(out, "  synthetic-a ");
  ck_assert_msg(line && sscanf(line, " synthetic-a %d %d %lf%% %lf%%", &npts, &nfree, &full, &cv) == 4 &&
                    fabs(cv - gap) < 0.25 * gap,
                "--cv-from: CV row for synthetic-a, |err| near %.2f %%:\n%s", gap, out);
  char *md = tc_slurp(readme);
  ck_assert_msg(md && !strstr(md, "stale") && strstr(md, "| kind | points | median CV error | p90 CV error |") &&
                    strstr(md, " % |\n") && strstr(md, "--cv-from") && strstr(md, "after\n"),
                "README table:\n%s", md ? md : "(none)");
  free(md);
  /* and beside the calibration its intervals: two held-out points, too few */
  char ivl[1100];
  snprintf(ivl, sizeof ivl, "%s/cal.intervals.yaml", dir);
  md = tc_slurp(ivl);
  ck_assert_msg(md && strstr(md, "\n  - {kind: \"mean latency\", points: 2}\n"), "intervals of two points:\n%s",
                md ? md : "(none)");
  free(md);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The shipped calibration applies by default and is named; --uncalibrated
 * gives the catalogue's values; --calibrated FILE applies FILE; a missing
 * file is bad input (exit 2). */
START_TEST(test_default_calibration)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char args[4096], shipped[1024], want[256];
  snprintf(shipped, sizeof shipped, "%s/validation/calibrated.yaml", src);
  snprintf(want, sizeof want, "\"calibration\": {\"file\": \"validation/calibrated.yaml\", \"hash\": \"%016llx\"}",
           (unsigned long long)calib_fnv_file(shipped));
  /* the default scenario: the shipped fit reaches its smb costs */
  ck_assert_int_eq(tc_run("run --json --set time=0.5s", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, want) != NULL, "default run does not name %s:\n%.400s", want, out);
  double cal = tc_json_num(out, "\"read\"", "MBps");
  ck_assert_int_eq(tc_run("run --json --set time=0.5s --uncalibrated", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "\"calibration\": \"uncalibrated\"") != NULL, "--uncalibrated not named:\n%.400s", out);
  double unc = tc_json_num(out, "\"read\"", "MBps");
  ck_assert_msg(cal > 0 && unc > 0 && fabs(cal / unc - 1) > 0.01,
                "the shipped calibration should move the default run: %g MB/s calibrated, %g uncalibrated", cal, unc);
  ck_assert_int_eq(tc_run("run --set time=0.5s", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "  calibration validation/calibrated.yaml (fnv1a64 ") != NULL, "text report:\n%.400s", out);
  /* explain and size name it too */
  ck_assert_int_eq(tc_run("explain --set time=0.2s", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "Calibration validation/calibrated.yaml (fnv1a64 ") != NULL, "explain:\n%s", out);
  ck_assert_int_eq(tc_run("explain --set time=0.2s --uncalibrated", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "Uncalibrated: catalogue values.") != NULL, "explain --uncalibrated:\n%s", out);
  ck_assert_int_eq(tc_run("size --target 'read_MBps>=100' --vary soc.cores=1..2 --set time=0.2s", out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "; calibration validation/calibrated.yaml") != NULL, "size:\n%s", out);
  /* --calibrated FILE: a fit of the teaching drive's latency */
  char dir[] = "/tmp/tc_defXXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char cal_path[1100];
  snprintf(cal_path, sizeof cal_path, "%s/cal.yaml", dir);
  tc_write_file(cal_path, "version: 1\nparameters:\n  - {entry: \"drives/teaching-fixed\", key: latency, value: \"0.004s\"}\n");
  double lat[2];
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --json %s%s", src,
             k ? "--calibrated " : "--uncalibrated", k ? cal_path : "");
    ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
    lat[k] = tc_json_num(out, "\"read\"", "mean");
  }
  ck_assert_msg(strstr(out, "cal.yaml\", \"hash\": \"") != NULL, "--calibrated FILE not named:\n%.400s", out);
  ck_assert_msg(lat[1] > lat[0] + 2.5, "latency 4 ms per command applied: %g ms vs %g ms at 1 ms", lat[1], lat[0]);
  /* a missing file is bad input */
  snprintf(args, sizeof args, "run --calibrated '%s/missing.yaml'", dir);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 2);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* A fio job file in dir: NAME.fio, 0.2 s time-based, direct, random
 * offsets drawn with replacement (norandommap).  With fio's random map
 * (each block once per pass, the default) the same 6 jobs' data come out
 * closer to what the fit can match, its standard errors shrink to 0.3 %
 * and read_latency lands 1.2 % off its truth (141.7 vs 140 us): outside
 * the ci90.  The fit leaves percentiles out and its jobs do not identify
 * the read rate (1 MiB at QD4 runs at the host interface's rate), so where
 * an unknown lands is partly the fit's path; an open problem of the
 * own-twin fit (issue notes), not of the random map. */
static void tc_job(const char *dir, const char *name, const char *rw, const char *bs, int qd)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/%s.fio", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fprintf(f, "[global]\ndirect=1\nsize=512m\ntime_based\nruntime=0.2s\nnorandommap\n[%s]\nrw=%s\nbs=%s\niodepth=%d\n",
          name, rw, bs, qd);
  fclose(f);
}

/* The IOPS of both directions of a fio-shaped JSON text's first job. */
static double tc_fio_iops(const char *json)
{
  return tc_json_num(json, "\"read\": ", "iops") + tc_json_num(json, "\"write\": ", "iops");
}

/* Issue 24's self-consistency: fio-shaped JSON written by nastwin itself
 * for drive-datasheet.yaml with its drive's unknowns moved inside their
 * bounds (the truth: latencies, rates (the read stalls at their
 * catalogue values, fitted from the clat percentiles too), and the channel and die counts the
 * random reads collide on), 6 jobs; calibrate --system --fio-results from
 * them predicts 6 other jobs within 5 %, recovers the dies the reads
 * collide on and holds each identifiable unknown's truth inside its ci90. */
START_TEST(test_own_twin_self_consistent)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_twinXXXXXX", fit[1100], hold[1100], cal[1100], scn[1100], args[8192];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(fit, sizeof fit, "%s/fit", dir);
  snprintf(hold, sizeof hold, "%s/hold", dir);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  snprintf(scn, sizeof scn, "%s/scenarios/drive-datasheet.yaml", src);
  ck_assert(mkdir(fit, 0700) == 0 && mkdir(hold, 0700) == 0);
  static const struct {
    const char *name, *rw, *bs;
    int qd, held;
  } jobs[12] = {{"rr1", "randread", "4k", 1, 0},   {"rr32", "randread", "4k", 32, 0}, {"sr1m", "read", "1m", 4, 0},
                {"rw1", "randwrite", "4k", 1, 0},  {"rw16", "randwrite", "4k", 16, 0}, {"sw1m", "write", "1m", 4, 0},
                {"rr8", "randread", "4k", 8, 1},   {"rr4", "randread", "4k", 4, 1},   {"sr128", "read", "128k", 2, 1},
                {"rw4", "randwrite", "4k", 4, 1},  {"sw128", "write", "128k", 8, 1},  {"rr64k", "randread", "64k", 16, 1}};
  /* the truth: every unknown of generic-nvme moved inside its bounds (canonical units) */
  static const struct {
    const char *key, *unit;
    double value;
  } tv[] = {{"read_latency", "s", 140e-6},     {"write_latency", "s", 2e-3}, {"read_rate", "B/s", 1.2e9},
            {"write_rate", "B/s", 9e8},        {"channels", "", 5},         {"dies_per_channel", "", 2}};
  char truth[1024] = "";
  for (size_t k = 0; k < sizeof tv / sizeof tv[0]; k++)
    snprintf(truth + strlen(truth), sizeof truth - strlen(truth), " --set disks.%s=%.10g%s", tv[k].key, tv[k].value,
             tv[k].unit);
  double meas[12];
  for (int i = 0; i < 12; i++) {
    const char *d = jobs[i].held ? hold : fit;
    tc_job(d, jobs[i].name, jobs[i].rw, jobs[i].bs, jobs[i].qd);
    snprintf(args, sizeof args, "run '%s' --uncalibrated --fio '%s/%s.fio' %s --output-format=fio-json", scn, d,
             jobs[i].name, truth);
    ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
    meas[i] = tc_fio_iops(out);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.json", d, jobs[i].name);
    tc_write_file(path, out);
  }
  snprintf(args, sizeof args, "calibrate --system '%s' --fio-results '%s' --out '%s' -j 2 --quiet", scn, fit, cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate --system --fio-results exit %d:\n%s", rc, out);
  char *c = tc_slurp(cal);
  ck_assert_msg(c && strstr(c, "source: \"nastwin calibrate --system ") != NULL, "no provenance in:\n%s", c);
  /* each identifiable unknown (a record with a standard error) holds the
   * truth inside its 90 % interval; the counts (profiled) are the truth */
  int nrec = 0;
  double dies = 1;
  for (size_t k = 0; k < sizeof tv / sizeof tv[0]; k++) {
    char pat[96];
    snprintf(pat, sizeof pat, "key: %s, value: \"", tv[k].key);
    const char *r = strstr(c, pat);
    if (!r)
      continue;
    double v = strtod(r + strlen(pat), NULL);
    const char *se = strstr(r, "stderr: \"");
    ck_assert(se != NULL);
    se += strlen("stderr: \"");
    double e = strtod(se, NULL);
    const char *end = strchr(r, '}');
    const char *ab = strstr(r, "at_bound: true");
    int at_bound = ab && end && ab < end;
    if (!strncmp(se, "none (a count", 13))
      dies *= v;
    else if (e > 0 && !at_bound) { /* identifiable: a standard error, off its bounds (none without a degree of freedom) */
      ck_assert_msg(fabs(v - tv[k].value) <= 1.6449 * e, "%s: fitted %g +- %g (se), truth %g outside its ci90",
                    tv[k].key, v, e, tv[k].value);
      nrec++;
    }
  }
  /* the reads collide on channels x dies_per_channel dies: that product is
   * what the jobs identify (5 x 2 and 10 x 1 predict alike) */
  ck_assert_msg(dies == 10, "%g dies fitted, truth 5 x 2:\n%s", dies, c);
  ck_assert_msg(nrec >= 2, "only %d unknowns identified:\n%s", nrec, c);
  free(c);
  for (int i = 0; i < 12; i++) {
    if (!jobs[i].held)
      continue;
    snprintf(args, sizeof args, "run '%s' --calibrated '%s' --fio '%s/%s.fio' --json", scn, cal, hold, jobs[i].name);
    ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
    double pred = tc_json_num(out, "\"all\": {", "iops");
    ck_assert_msg(fabs(pred / meas[i] - 1) <= 0.05, "held-out %s: truth %.1f IOPS, calibrated twin %.1f",
                  jobs[i].name, meas[i], pred);
  }
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* Bad fio results are bad input (exit 2) and leave no derived files. */
START_TEST(test_own_twin_bad_input)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_twbadXXXXXX", path[1200], args[4096], scn[1100];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(scn, sizeof scn, "%s/scenarios/drive-datasheet.yaml", src);
  static const char *const cases[][2] = {
      {NULL, "{\"fio version\": \"fio-3.33\", \"jobs\": []}\n"},                        /* no job file */
      {"[j]\nrw=randread\nbs=4k\n", "{\"fio version\": \"fio-3.33\", \"jobs\": [ {\"jobname\": \"j\",\n"}, /* cut */
      {"[j]\nrw=read\nbs=4k\nioengine=rdma\n", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"io_bytes\": 1, "
                                "\"iops\": 1, \"bw_bytes\": 1, \"lat_ns\": {\"mean\": 1}}, \"write\": {\"io_bytes\": 0, "
                                "\"iops\": 0, \"bw_bytes\": 0, \"lat_ns\": {\"mean\": 0}}}]}\n"}, /* a job it cannot run */
      {"[j]\nrw=randread\nbs=4k\n", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"iops\": 1}}]}\n"},
  };
  static const char *const want[] = {"no job file x.fio beside x.json", ":2:1: error:", "does no block I/O",
                                     "needs a number 'io_bytes'"};
  for (int k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/x.fio", dir);
    unlink(path);
    if (cases[k][0])
      tc_write_file(path, cases[k][0]);
    snprintf(path, sizeof path, "%s/x.json", dir);
    tc_write_file(path, cases[k][1]);
    snprintf(args, sizeof args, "calibrate --system '%s' --fio-results '%s' --out '%s/o.yaml'", scn, dir, dir);
    int rc = tc_exec(args, out, TC_OUT_MAX, 1);
    ck_assert_msg(rc == 2 && strstr(out, want[k]), "case %d: exit %d, expected '%s' in:\n%s", k, rc, want[k], out);
    snprintf(path, sizeof path, "%s/o.yaml.fio-data.yaml", dir);
    ck_assert_msg(access(path, F_OK) != 0, "case %d: %s left behind", k, path);
  }
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The split-conformal quantile: the k-th smallest of n held-out errors,
 * k = ceil((n + 1) 0.9), counted by hand; fewer than 9 errors give none. */
START_TEST(test_ci_quantile)
{
  /* k for n = 8 is ceil(8.1) = 9 > 8: none; n = 9: ceil(9) = 9; n = 10:
   * ceil(9.9) = 10; n = 19: ceil(18) = 18; n = 20: ceil(18.9) = 19; n = 29:
   * (n + 1) 0.9 = 27 exactly, where a floating-point ceil gives 28 */
  const int n[] = {8, 9, 10, 19, 20, 29, 99}, k[] = {9, 9, 10, 18, 19, 27, 90};
  for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
    ck_assert_msg(calib_ci_rank(n[i]) == k[i], "rank of %d errors: %d, expected %d", n[i], calib_ci_rank(n[i]), k[i]);
  /* 19 errors 0.01 .. 0.19, shuffled: the 18th smallest is 0.18 */
  double e[32];
  for (int i = 0; i < 19; i++)
    e[i] = 0.01 * (double)((i * 7) % 19 + 1);
  double q = -1;
  ck_assert_int_eq(calib_ci_quantile(e, 19, &q), 18);
  ck_assert_msg(fabs(q - 0.18) < 1e-12, "19 errors: q %g, expected 0.18 (the 18th smallest)", q);
  /* 9 errors: the largest */
  const double nine[9] = {0.5, 0.1, 0.9, 0.3, 0.2, 0.8, 0.4, 0.7, 0.6};
  memcpy(e, nine, sizeof nine);
  ck_assert_int_eq(calib_ci_quantile(e, 9, &q), 9);
  ck_assert_msg(q == 0.9, "9 errors: q %g, expected the largest, 0.9", q);
  /* 8 errors: no interval, q untouched */
  memcpy(e, nine, sizeof nine);
  q = -1;
  ck_assert_int_eq(calib_ci_quantile(e, 8, &q), 0);
  ck_assert_msg(q == -1, "8 errors: q set to %g", q);
  /* a failed fold (+inf) among 10 errors is the 10th smallest: unbounded */
  memcpy(e, nine, sizeof nine);
  e[9] = INFINITY;
  ck_assert_int_eq(calib_ci_quantile(e, 10, &q), 10);
  ck_assert_msg(isinf(q), "10 errors with a failed fold: q %g, expected +inf", q);
  char path[64];
  calib_ci_path("validation/calibrated.yaml", path, sizeof path);
  ck_assert_str_eq(path, "validation/calibrated.intervals.yaml");
  calib_ci_path("box.cal", path, sizeof path);
  ck_assert_str_eq(path, "box.cal.intervals.yaml");
}
END_TEST

/* [lo, hi] of key (a JSON "key": [lo, hi] after `after`): 1, or 0 when the
 * key is null; the key must be there. */
static int tc_json_pair(const char *s, const char *after, const char *key, double *lo, double *hi)
{
  const char *p = strstr(s, after);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  p = p ? strstr(p, pat) : NULL;
  ck_assert_msg(p != NULL, "no %s after %s in:\n%.800s", key, after, s);
  p += strlen(pat);
  if (!strncmp(p, "null", 4))
    return 0;
  ck_assert_msg(sscanf(p, "[%lf, %lf]", lo, hi) == 2, "%s: not [lo, hi]: %.80s", key, p);
  return 1;
}

/* The string after "key": after `after`, into buf; "" when absent. */
static void tc_json_str(const char *s, const char *after, const char *key, char *buf, size_t len)
{
  const char *p = strstr(s, after);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": \"", key);
  p = p ? strstr(p, pat) : NULL;
  buf[0] = '\0';
  if (p) {
    p += strlen(pat);
    snprintf(buf, len, "%.*s", (int)strcspn(p, "\""), p);
  }
}

/* A calibration of the golden teaching drive (latency 2 ms) in dir/cal.yaml
 * and beside it dir/cal.intervals.yaml: IOPS 19 points, rank 18, q 0.5;
 * throughput 9 points, rank 9, q 0.25; mean latency 8 points (no
 * interval); calibration_fnv1a64 the calibration's, or `hash` when given.
 * cal: the calibration's path (1100 bytes). */
static void tc_ci_fixture(const char *dir, const char *hash, char *cal)
{
  char path[1100], text[2048];
  snprintf(cal, 1100, "%s/cal.yaml", dir);
  tc_write_file(cal, "version: 1\nparameters:\n  - {entry: \"drives/teaching-fixed\", key: latency, value: \"0.002s\"}\n");
  char own[17];
  snprintf(own, sizeof own, "%016llx", (unsigned long long)calib_fnv_file(cal));
  snprintf(text, sizeof text,
           "version: 1\ncalibration: \"cal.yaml\"\ncalibration_fnv1a64: \"%s\"\n"
           "provenance: {command: \"by hand (test_calibrate)\", folds: \"leave one experiment out\"}\n"
           "coverage: 0.9\nkinds:\n  - {kind: IOPS, points: 19, rank: 18, q_log: 0.5}\n"
           "  - {kind: throughput, points: 9, rank: 9, q_log: 0.25}\n  - {kind: \"mean latency\", points: 8}\n",
           hash ? hash : own);
  snprintf(path, sizeof path, "%s/cal.intervals.yaml", dir);
  tc_write_file(path, text);
}

/* A run with the fixture's intervals beside its calibration: every
 * direction's figure v gets exactly [v e^-q, v e^q] of its kind; a kind
 * with 8 points has none and says so; --no-ci and --uncalibrated give no
 * interval keys. */
START_TEST(test_ci_from_intervals_file)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_ciXXXXXX", cal[1100], args[4096], why[512];
  ck_assert(mkdtemp(dir) != NULL);
  tc_ci_fixture(dir, NULL, cal);
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s' --json", src, cal);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  const char *dirs[] = {"\"read\": {", "\"all\": {"};
  for (int d = 0; d < 2; d++) {
    double lo, hi, v = tc_json_num(out, dirs[d], "iops"), mb = tc_json_num(out, dirs[d], "MBps");
    ck_assert_msg(v > 0 && mb > 0, "%s: iops %g, MBps %g", dirs[d], v, mb);
    ck_assert_msg(tc_json_pair(out, dirs[d], "iops_ci90", &lo, &hi), "%s: iops_ci90 null", dirs[d]);
    ck_assert_msg(fabs(lo / (v * exp(-0.5)) - 1) < 1e-9 && fabs(hi / (v * exp(0.5)) - 1) < 1e-9,
                  "%s: %g IOPS, interval [%.10g, %.10g], expected [%.10g, %.10g]", dirs[d], v, lo, hi, v * exp(-0.5),
                  v * exp(0.5));
    ck_assert_msg(tc_json_pair(out, dirs[d], "MBps_ci90", &lo, &hi), "%s: MBps_ci90 null", dirs[d]);
    ck_assert_msg(fabs(lo / (mb * exp(-0.25)) - 1) < 1e-9 && fabs(hi / (mb * exp(0.25)) - 1) < 1e-9,
                  "%s: %g MB/s, interval [%.10g, %.10g], expected [%.10g, %.10g]", dirs[d], mb, lo, hi,
                  mb * exp(-0.25), mb * exp(0.25));
    ck_assert_msg(!tc_json_pair(out, dirs[d], "mean_ci90", &lo, &hi), "%s: mean latency has 8 points: no interval",
                  dirs[d]);
  }
  tc_json_str(out, "\"read\": {", "iops_ci90_source", why, sizeof why);
  ck_assert_msg(strstr(why, "held-out CV, 19 IOPS points, leave-one-experiment-out") && strstr(why, "18th smallest"),
                "IOPS source: '%s'", why);
  tc_json_str(out, "\"read\": {", "mean_ci90_source", why, sizeof why);
  ck_assert_msg(!strncmp(why, "none available: 8 held-out mean latency points", 46), "mean latency source: '%s'", why);
  /* the text report: the interval line and where it comes from */
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s'", src, cal);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "    90 % interval: IOPS ") && strstr(out, "MB/s, avg lat none available\n") &&
                    strstr(out, "  90 % intervals from the calibration's cross-validation:\n    IOPS: held-out CV, 19"),
                "text report:\n%.1500s", out);
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s' --json --no-ci", src, cal);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "_ci90") == NULL, "--no-ci: no interval keys");
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --uncalibrated --json", src);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  ck_assert_msg(strstr(out, "_ci90") == NULL, "an uncalibrated run has no interval");
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* Intervals of another calibration (a wrong hash) or none beside it: the
 * keys stay, null, and say that none is available and why. */
START_TEST(test_ci_none_available)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_ciXXXXXX", cal[1100], args[4096], why[512], path[1100];
  ck_assert(mkdtemp(dir) != NULL);
  tc_ci_fixture(dir, "0123456789abcdef", cal);
  for (int missing = 0; missing < 2; missing++) {
    if (missing) {
      snprintf(path, sizeof path, "%s/cal.intervals.yaml", dir);
      ck_assert_int_eq(unlink(path), 0);
    }
    snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s' --json", src, cal);
    ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
    double lo, hi;
    ck_assert_msg(!tc_json_pair(out, "\"all\": {", "iops_ci90", &lo, &hi) &&
                      !tc_json_pair(out, "\"all\": {", "MBps_ci90", &lo, &hi) &&
                      !tc_json_pair(out, "\"all\": {", "mean_ci90", &lo, &hi),
                  "%s: an interval without this calibration's cross-validation", missing ? "missing file" : "wrong hash");
    tc_json_str(out, "\"all\": {", "iops_ci90_source", why, sizeof why);
    ck_assert_msg(strstr(why, "none available: no cross-validation for this calibration (") &&
                      strstr(why, missing ? "cal.intervals.yaml not found" : "with fnv1a64 0123456789abcdef, this one has"),
                  "%s: source '%s'", missing ? "missing file" : "wrong hash", why);
    snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s'", src, cal);
    ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
    ck_assert_msg(strstr(out, "    90 % interval: none available (no cross-validation for this calibration)\n"),
                  "text report:\n%.1200s", out);
  }
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The shipped calibration: with its intervals file the default run's
 * IOPS interval brackets the IOPS (lo < hi) and comes from its held-out
 * CV; without one (a refit awaiting `calibrate --cv-from`) the key is
 * null and says none is available.  Either way a stale file (another
 * calibration's hash) fails here. */
START_TEST(test_ci_shipped)
{
  char *out = calloc(1, TC_OUT_MAX), path[1100], why[512];
  snprintf(path, sizeof path, "%s/validation/calibrated.intervals.yaml", tc_src());
  int shipped = access(path, F_OK) == 0;
  ck_assert_int_eq(tc_run("run --json --set time=0.5s", out, TC_OUT_MAX), 0);
  double lo = 0, hi = 0, v = tc_json_num(out, "\"all\": {", "iops");
  int has = tc_json_pair(out, "\"all\": {", "iops_ci90", &lo, &hi);
  tc_json_str(out, "\"all\": {", "iops_ci90_source", why, sizeof why);
  if (shipped)
    ck_assert_msg(has && lo <= v && v <= hi && lo < hi && !strncmp(why, "held-out CV, ", 13),
                  "%s is shipped: default run %g IOPS, interval %s[%g, %g], source '%s'", path, v, has ? "" : "null ",
                  lo, hi, why);
  else
    ck_assert_msg(!has && strstr(why, "none available: no cross-validation for this calibration"),
                  "no %s: default run's IOPS interval %s, source '%s'", path, has ? "given" : "null", why);
  free(out);
}
END_TEST

/* A bad intervals file is bad input: file:line:column: error: naming the
 * key, the value and what is allowed; exit 2. */
START_TEST(test_ci_bad_file)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_ciXXXXXX", cal[1100], args[4096], path[1100], text[2048], want[1400];
  ck_assert(mkdtemp(dir) != NULL);
  tc_ci_fixture(dir, NULL, cal);
  snprintf(path, sizeof path, "%s/cal.intervals.yaml", dir);
  char hash[17];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)calib_fnv_file(cal));
  static const struct {
    const char *kinds; /* the text after "coverage: 0.9\n" (line 5 on) */
    const char *where, *msg;
  } cases[] = {
      {"kinds:\n  - {kind: IOPS, points: 19, rank: 17, q_log: 0.5}\n", "6:36",
       "intervals: kind 'IOPS': rank 17: 19 points need rank ceil((19 + 1) x 0.9) = 18"},
      {"kinds:\n  - {kind: latency, points: 19, rank: 18, q_log: 0.5}\n", "6:12",
       "intervals: kind 'latency': allowed: throughput, IOPS, mean latency, tail latency, duration, power"},
      {"kinds:\n  - {kind: IOPS, points: 19, rank: 18, q_log: -0.1}\n", "6:47",
       "intervals: kind 'IOPS': q_log '-0.1': expected a number from 0 to 50"},
      {"kinds:\n  - {kind: IOPS, points: 8, rank: 9, q_log: 0.5}\n", "6:35",
       "intervals: kind 'IOPS': 8 points give no 90 % interval (9 needed): 'rank' not allowed"},
      {"kinds:\n  - {kind: IOPS, points: many}\n", "6:26",
       "intervals: kinds.points: 'many' is not allowed: must be a whole number between 1 and 1000000 inclusive"},
      {"kinds:\n  - {kind: IOPS, points: 19, rank: 18, q: 0.5}\n", "6:40",
       "intervals: kinds: unknown key 'q'; valid keys: kind, points, rank, q_log"},
      {"kinds: []\nextra: []\n", "6:1",
       "intervals: unknown key 'extra'; valid keys: version, calibration, calibration_fnv1a64, provenance, coverage, "
       "kinds"},
      {"kinds: []\nkindz: []\n", "6:1", "intervals: unknown key 'kindz' (did you mean 'kinds'?)"},
      {"kinds: [\n", "6:1", "YAML syntax: did not find expected node content"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(text, sizeof text, "version: 1\ncalibration: \"cal.yaml\"\ncalibration_fnv1a64: \"%s\"\ncoverage: 0.9\n%s",
             hash, cases[i].kinds);
    tc_write_file(path, text);
    snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s' --json", src, cal);
    int rc = tc_exec(args, out, TC_OUT_MAX, 1);
    snprintf(want, sizeof want, "%s:%s: error: %s", path, cases[i].where, cases[i].msg);
    ck_assert_msg(rc == 2 && strstr(out, want), "case %zu: exit %d, expected '%s' in:\n%.600s", i, rc, want, out);
  }
  /* a wrong version or hash is named too */
  snprintf(text, sizeof text, "version: 2\ncalibration: \"cal.yaml\"\ncalibration_fnv1a64: \"%s\"\ncoverage: 0.9\nkinds: []\n",
           hash);
  tc_write_file(path, text);
  int rc = tc_exec(args, out, TC_OUT_MAX, 1);
  snprintf(want, sizeof want, "%s:1:10: error: intervals: version '2': allowed: 1", path);
  ck_assert_msg(rc == 2 && strstr(out, want), "version 2: exit %d, expected '%s' in:\n%.600s", rc, want, out);
  tc_write_file(path, "version: 1\ncalibration: \"cal.yaml\"\ncalibration_fnv1a64: \"xyz\"\ncoverage: 0.9\nkinds: []\n");
  rc = tc_exec(args, out, TC_OUT_MAX, 1);
  snprintf(want, sizeof want, "%s:3:22: error: intervals: calibration_fnv1a64 'xyz': expected 16 hex digits", path);
  ck_assert_msg(rc == 2 && strstr(out, want), "bad hash: exit %d, expected '%s' in:\n%.600s", rc, want, out);
  tc_rmtree(dir);
  free(out);
}
END_TEST

/* The cross-validation writes the intervals the run applies: ten
 * synthetic experiments of one mean latency each (the same simulation, so
 * the fit and its folds cost a few runs); the file's q_log is the 10th
 * smallest (the largest) of the ten held-out |ln(predicted/measured)|,
 * inside the band the printed |predicted/measured - 1| of each fold
 * allows (ln(1 + |e|) <= |ln(1 + e)| <= -ln(1 - |e|), |e| rounded to
 * 0.1 %), and the run's interval is the prediction x e^-+q_log. */
START_TEST(test_cv_writes_intervals)
{
  const char *src = tc_src();
  char *out = calloc(1, TC_OUT_MAX);
  char dir[] = "/tmp/tc_cvXXXXXX", data[1100], points[1100], cal[1100], args[8192];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(data, sizeof data, "%s/data.yaml", dir);
  snprintf(points, sizeof points, "%s/points.yaml", dir);
  snprintf(cal, sizeof cal, "%s/cal.yaml", dir);
  struct tc_experiment x[10];
  char ids[10][16];
  FILE *f = fopen(points, "w");
  ck_assert(f != NULL);
  fprintf(f, "version: 1\npoints:\n");
  for (int i = 0; i < 10; i++) {
    snprintf(ids[i], sizeof ids[i], "synthetic-%d", i);
    /* measured 12.0 .. 13.3 ms around the drive's 12.5 ms at 2 ms */
    x[i] = (struct tc_experiment){ids[i], "test_calibrate", 12.0 + 0.1 * i * (i % 2 ? 1.0 : 1.5), 0};
    fprintf(f, "  - {experiment: %s, match: {metric: read_lat_ms}, scenario: %s/tests/calib/golden-fit.yaml, "
               "field: read.lat_mean_ms}\n", ids[i], src);
  }
  fclose(f);
  tc_write_data(data, x, 10);
  snprintf(args, sizeof args,
           "calibrate --data '%s' --points '%s' --params drives/teaching-fixed.latency --quiet --max-iter 20 --cv -j 2 "
           "--out '%s'", data, points, cal);
  int rc = tc_run(args, out, TC_OUT_MAX);
  ck_assert_msg(rc == 0, "calibrate --cv exit %d:\n%s", rc, out);
  double lo_band = 0, hi_band = 0;
  for (int i = 0; i < 10; i++) {
    char row[64];
    snprintf(row, sizeof row, "  %.40s ", ids[i]);
    const char *line = strstr(out, row);
    int npts, nfree;
    double full, cv;
    ck_assert_msg(line && sscanf(line, " %*s %d %d %lf%% %lf%%", &npts, &nfree, &full, &cv) == 4, "no CV row %s:\n%s",
                  ids[i], out);
    lo_band = fmax(lo_band, log1p((cv - 0.05) / 100));
    hi_band = fmax(hi_band, -log1p(-(cv + 0.05) / 100));
  }
  char path[1100];
  snprintf(path, sizeof path, "%s/cal.intervals.yaml", dir);
  char *yaml = tc_slurp(path);
  ck_assert_msg(yaml != NULL, "no %s after calibrate --cv:\n%s", path, out);
  char want[64];
  snprintf(want, sizeof want, "calibration_fnv1a64: \"%016llx\"", (unsigned long long)calib_fnv_file(cal));
  const char *k = strstr(yaml, "  - {kind: \"mean latency\", points: 10, rank: 10, q_log: ");
  ck_assert_msg(strstr(yaml, want) && k, "intervals file (want %s, 10 points, rank 10):\n%s", want, yaml);
  double q = strtod(k + strlen("  - {kind: \"mean latency\", points: 10, rank: 10, q_log: "), NULL);
  ck_assert_msg(q >= lo_band && q <= hi_band, "q_log %g outside [%g, %g] from the folds' printed errors", q, lo_band,
                hi_band);
  free(yaml);
  snprintf(args, sizeof args, "run '%s/tests/calib/golden-fit.yaml' --calibrated '%s' --json", src, cal);
  ck_assert_int_eq(tc_run(args, out, TC_OUT_MAX), 0);
  double v = tc_json_num(out, "\"read\": {", "mean"), lo, hi;
  ck_assert_msg(tc_json_pair(out, "\"read\": {", "mean_ci90", &lo, &hi), "mean_ci90 null:\n%.800s", out);
  ck_assert_msg(fabs(lo / (v * exp(-q)) - 1) < 1e-8 && fabs(hi / (v * exp(q)) - 1) < 1e-8,
                "mean %.6g ms, interval [%.10g, %.10g], expected x e^-+%.10g", v, lo, hi, q);
  tc_rmtree(dir);
  free(out);
}
END_TEST

static Suite *calibrate_suite(void)
{
  Suite *s = suite_create("calibrate");
  TCase *t = tcase_create("transform");
  tcase_add_test(t, test_transform_roundtrip);
  suite_add_tcase(s, t);
  t = tcase_create("entries");
  tcase_add_test(t, test_entry_of_fit);
  tcase_add_test(t, test_forward_select);
  suite_add_tcase(s, t);
  t = tcase_create("synthetic_fit");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_recovers_known_latency);
  tcase_add_test(t, test_jacobian_coloured_same);
  tcase_add_test(t, test_robust_outlier);
  tcase_add_test(t, test_observation_constraint);
  tcase_add_test(t, test_start_pins_the_rest);
  tcase_add_test(t, test_start_keeps_inert);
  tcase_add_test(t, test_params_unknown_named);
  tcase_add_test(t, test_reach_tested_same);
  tcase_add_test(t, test_reach_scenario_same);
  suite_add_tcase(s, t);
  t = tcase_create("rescreen");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_rescreen_frees_bound);
  tcase_add_test(t, test_start_at_bound_moves);
  suite_add_tcase(s, t);
  t = tcase_create("default");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_default_calibration);
  suite_add_tcase(s, t);
  t = tcase_create("intervals");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_ci_quantile);
  tcase_add_test(t, test_ci_from_intervals_file);
  tcase_add_test(t, test_ci_none_available);
  tcase_add_test(t, test_ci_shipped);
  tcase_add_test(t, test_ci_bad_file);
  suite_add_tcase(s, t);
  t = tcase_create("own_twin");
  tcase_set_timeout(t, 200);
  tcase_add_test(t, test_own_twin_bad_input);
  tcase_add_test(t, test_own_twin_self_consistent);
  suite_add_tcase(s, t);
  t = tcase_create("cross_validation");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_cv_one_step);
  tcase_add_test(t, test_cv_writes_intervals);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return ck_run(calibrate_suite());
}
