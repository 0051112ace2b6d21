/* HTML reports: the sweep, run and validate pages hold one <svg> per chart,
 * each with a <title>, series paths / bars / cells and axis labels, and no
 * external resource.  With chromium installed the sweep page is also
 * rendered to a PNG (skipped, and said so, otherwise). */
#include <check.h>
#include "ck_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/config/config.h"
#include "sim/engine/engine.h"
#include "sim/report/htmlreport.h"
#include "sim/study/runpool.h"
#include "sim/report/svg.h"

static const char *test_src(void)
{
  const char *s = getenv("NASTWIN_SOURCE_DIR");
  return s ? s : NASTWIN_SOURCE_DIR;
}

static char *test_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  const size_t cap = 1 << 22;
  char *buf = calloc(1, cap);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int test_count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
    n++;
  return n;
}

/* Every <svg ...> opens with its <title>; no scripts or remote resources. */
static void test_svg_titles(const char *html)
{
  int nsvg = 0;
  for (const char *p = html; (p = strstr(p, "<svg")) != NULL; p++) {
    const char *gt = strchr(p, '>');
    ck_assert_msg(gt && !strncmp(gt + 1, "<title>", 7), "an <svg> without a <title>: %.120s", p);
    nsvg++;
  }
  ck_assert_int_gt(nsvg, 0);
  ck_assert_msg(!strstr(html, "<script") && !strstr(html, "src=\"http") &&
                    !strstr(html, "href=\"http"),
                "the page must be self-contained");
  ck_assert_msg(strstr(html, "</html>") != NULL, "page not finished");
}

static int test_sh(const char *cmd)
{
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_sweep_page)
{
  char dir[] = "/tmp/nastwin-html-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s sweep %s/scenarios/sweeps/tiny-sweep.yaml -j 3 --quiet --csv %s/s.csv --html %s/page",
           getenv("NASTWIN_BIN"), test_src(), dir, dir);
  ck_assert_int_eq(test_sh(cmd), 0);
  char path[1200];
  snprintf(path, sizeof path, "%s/page/index.html", dir);
  char *html = test_slurp(path);
  ck_assert_msg(html != NULL, "no %s", path);
  test_svg_titles(html);
  /* tiny-sweep: 3 clients x 2 zipped (level, disks): throughput, latency, heatmap */
  ck_assert_msg(test_count(html, "<svg") == 3, "want 3 charts, got %d", test_count(html, "<svg"));
  ck_assert_msg(test_count(html, "class=\"series\"") == 4, "want 2 series x 2 charts, got %d",
                test_count(html, "class=\"series\""));
  /* series 1 draws squares and a dashed line (coinciding series stay apart) */
  ck_assert_msg(test_count(html, "<rect class=\"marker\"") == 2 * 3 && strstr(html, "stroke-dasharray=\"7 4\""),
                "series 1: want 3 squares per chart and a dashed line");
  ck_assert_msg(test_count(html, "class=\"shift\"") == test_count(html, "<title>bottleneck shifts: "),
                "every bottleneck ring names the shift");
  ck_assert_msg(test_count(html, "class=\"cell\"") == 6, "want 3 x 2 heatmap cells, got %d",
                test_count(html, "class=\"cell\""));
  ck_assert_msg(test_count(html, ">clients.count</text>") >= 3, "x axis label missing");
  ck_assert_msg(strstr(html, ">read_MBps</text>") && strstr(html, ">lat_mean_ms</text>"),
                "y axis labels missing");
  ck_assert_msg(strstr(html, "<th>bottleneck</th>") && test_count(html, "<td class=\"b\">") == 6,
                "table with the bottleneck per point missing");
  ck_assert_msg(strstr(html, "<h2>Configuration</h2>") && strstr(html, "<th>RAID level</th>") &&
                    strstr(html, "<th>calibration</th>"),
                "sweep page: configuration table missing");
  ck_assert_msg(strstr(html, "<footer><p>nastwin " NASTWIN_VERSION) && strstr(html, "; calibration "),
                "sweep page: version + calibration footer missing");
  if (system("command -v chromium >/dev/null 2>&1") == 0) {
    snprintf(cmd, sizeof cmd,
             "cd %s && chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
             "--disable-component-update --disable-sync --no-first-run --user-data-dir=%s/profile "
             "--screenshot=%s/shot.png --window-size=1200,900 file://%s >/dev/null 2>&1",
             dir, dir, dir, path);
    test_sh(cmd);
    snprintf(path, sizeof path, "%s/shot.png", dir);
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0 && st.st_size > 10 * 1024, "render: %s is %ld bytes", path,
                  stat(path, &st) == 0 ? (long)st.st_size : -1L);
    printf("test_html: chromium rendered the sweep page (%ld bytes)\n", (long)st.st_size);
  } else
    printf("test_html: chromium not installed: render check skipped\n");
  free(html);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  test_sh(cmd);
}
END_TEST

struct test_run_ctx {
  const struct scenario *s;
};

static void test_run_task(void *vctx, int task, struct run_result *out)
{
  struct test_run_ctx *c = vctx;
  (void)task;
  engine_run(c->s, 0, 0, NULL, out);
}

START_TEST(test_run_page)
{
  char sc[1024];
  snprintf(sc, sizeof sc, "%s/scenarios/sweeps/tiny.yaml", test_src());
  struct scenario s;
  struct nw_err err = {0};
  ck_assert_msg(cfg_load(sc, NULL, NULL, 0, NULL, &s, &err) == 0, "load: %s", err.msg);
  struct run_result *r = calloc(1, sizeof *r);
  struct test_run_ctx ctx = {.s = &s};
  runpool_run(1, 1, 60.0, test_run_task, &ctx, r, NULL);
  ck_assert_msg(!r->failed, "run failed: %s", r->failure);
  /* a RAID operation as the engine reports it, to draw its bar */
  r->nops = 1;
  snprintf(r->ops[0].kind, sizeof r->ops[0].kind, "rebuild");
  r->ops[0].duration_s = 12.5;
  r->ops[0].avg_power_W = 30;
  /* a run that ends 0.5 s into its third second: the engine gives that
   * second's rate over the 0.5 s it covered; drawn as is, at 2.5 s */
  r->nseries = 3;
  r->series_MBps[0] = r->series_MBps[1] = r->series_MBps[2] = 100.0;
  r->window_start_s = 0.0;
  r->window_s = 2.5;
  char dir[] = "/tmp/nastwin-runhtml-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char sub[128];
  snprintf(sub, sizeof sub, "%s/a/run", dir); /* created by the writer, its parent too (mkdir -p) */
  ck_assert_msg(htmlreport_run(sub, &s, r, 1, &err) == 0, "html: %s", err.msg);
  char path[256];
  snprintf(path, sizeof path, "%s/index.html", sub);
  char *html = test_slurp(path);
  ck_assert_msg(html != NULL, "no %s", path);
  test_svg_titles(html);
  /* percentiles, latency CDF + histogram, utilisation, per-second series, RAID ops */
  ck_assert_msg(test_count(html, "<svg") == 6, "want 6 charts, got %d", test_count(html, "<svg"));
  ck_assert_msg(strstr(html, "Latency CDF, read and write") && strstr(html, "Latency histogram, read and write") &&
                    strstr(html, ">latency (ms)</text>"),
                "latency distribution charts missing");
  ck_assert_msg(strstr(html, "<h2>Configuration</h2>") && strstr(html, "<th>RAID level</th>") &&
                    strstr(html, "<th>protocol</th>"),
                "configuration table missing");
  ck_assert_msg(strstr(html, "<th>job</th><td>") && strstr(html, "<th>calibration</th><td>none: catalogue values"),
                "job or calibration rows missing");
  ck_assert_msg(strstr(html, "<footer><p>nastwin " NASTWIN_VERSION) && strstr(html, "; calibration none: "),
                "version + calibration footer missing");
  ck_assert_msg(strstr(html, "<title>MB/s of all I/O: 2, 100</title>") &&
                    strstr(html, "<title>MB/s of all I/O: 2.5, 100</title>") && !strstr(html, "I/O: 3, 100<") &&
                    !strstr(html, "I/O: 2.5, 200<"),
                "partial last second not at its covered time, or divided twice");
  /* the 0.2 s run stops with its 2 I/Os in flight: abandoned, said so */
  char abandoned[96];
  snprintf(abandoned, sizeof abandoned, "<br>%llu client I/Os abandoned: outstanding at the window's end",
           (unsigned long long)(r->issued - r->completed));
  ck_assert_msg(r->issued > r->completed && strstr(html, abandoned), "no \"%s\" (%llu issued, %llu completed)",
                abandoned, (unsigned long long)r->issued, (unsigned long long)r->completed);
  ck_assert_msg(strstr(html, "Latency percentiles") &&
                    strstr(html, ">mean</text>"),
                "percentile bars missing");
  ck_assert_msg(strstr(html, ">net.nas0.tx</text>") && strstr(html, "(bottleneck)"),
                "utilisation bars missing");
  ck_assert_msg(test_count(html, "class=\"series\"") >= 3 && strstr(html, ">time (s)</text>"),
                "per-second series missing");
  ck_assert_msg(strstr(html, ">rebuild</text>") && strstr(html, "12.5 s"), "RAID op bar missing");
  ck_assert_msg(test_count(html, "class=\"bar\"") >= 6 + 1 + 1, "bars: %d",
                test_count(html, "class=\"bar\""));
  /* an unwritable folder is an error, not a crash */
  ck_assert_int_eq(htmlreport_run("/proc/nastwin-no/such", &s, r, 1, &err), -1);
  ck_assert_msg(strstr(err.msg, "html:") != NULL, "message: %s", err.msg);
  free(html);
  free(r);
  cfg_free(&s);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  test_sh(cmd);
}
END_TEST

START_TEST(test_validate_page)
{
  char data[] = "/tmp/nastwin-vdata-XXXXXX";
  int fd = mkstemp(data);
  ck_assert_int_ge(fd, 0);
  static const char yaml[] =
      "version: 1\nexperiments:\n  - id: ds1511plus-ts859pro-iscsi-single-link\n"
      "    source: test\n    systems: [ds1511plus, ts859pro]\n    results:\n"
      "      - {system: ds1511plus, metric: read_MBps, tool: ATTO, value: 100, note: made-up}\n"
      "  - id: ds2015xs-iperf\n    source: test\n    system: ds2015xs\n    results:\n"
      "      - {metric: aggregate_Gbps, value: 5}\n";
  ck_assert_int_eq(write(fd, yaml, sizeof yaml - 1), (long)(sizeof yaml - 1));
  close(fd);
  char dir[] = "/tmp/nastwin-vhtml-XXXXXX";
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s validate --data %s --html %s -j 2 >/dev/null 2>&1",
           getenv("NASTWIN_BIN"), data, dir);
  int rc = test_sh(cmd);
  unlink(data);
  ck_assert_msg(rc == 0 || rc == 1, "validate exit %d", rc);
  char path[256];
  snprintf(path, sizeof path, "%s/index.html", dir);
  char *html = test_slurp(path);
  ck_assert_msg(html != NULL, "no %s", path);
  test_svg_titles(html);
  /* one throughput panel in MB/s (the Gbit/s point in it, x 125, labelled in
   * Gbit/s) + the bars */
  ck_assert_msg(test_count(html, "<svg") == 2, "scatter + bars, got %d", test_count(html, "<svg"));
  ck_assert_msg(strstr(html, "throughput (MB/s): predicted vs measured, 2 points") &&
                    strstr(html, "aggregate_Gbps ds2015xs: measured 5 Gbit/s, predicted ") &&
                    !strstr(html, "(Gbit/s)"),
                "Gbit/s point not in the MB/s throughput panel");
  ck_assert_msg(strstr(html, ">measured (MB/s)</text>") && strstr(html, ">predicted (MB/s)</text>"),
                "axes with units missing");
  ck_assert_msg(test_count(html, "<polygon") == 2 && strstr(html, "within 10 %") && strstr(html, "within 25 %"),
                "panel title or the 10/25 %% bands missing");
  ck_assert_msg(test_count(html, "class=\"bar\"") == 2, "one bar per experiment");
  free(html);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  test_sh(cmd);
}
END_TEST

START_TEST(test_svg_helpers)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  struct svg_chart c;
  svg_chart_init(&c, 600, 300, 100);
  c.x.label = "x <a&b>";
  c.y.label = "y";
  double x[3] = {1, 2, 3}, y[3] = {4, 0.0 / 0.0, 6};
  for (int i = 0; i < 3; i++) {
    svg_range_add(&c.x, x[i]);
    svg_range_add(&c.y, y[i]);
  }
  ck_assert_msg(c.y.lo == 4 && c.y.hi == 6, "NaN must be skipped: %g..%g", c.y.lo, c.y.hi);
  svg_chart_begin(m, &c, "t");
  ck_assert_msg(c.y.lo == 0, "linear value axes start at 0: %g", c.y.lo);
  svg_chart_series(m, &c, x, y, 3, 0, "s");
  svg_chart_end(m);
  fclose(m);
  ck_assert_msg(strstr(buf, "x &lt;a&amp;b&gt;") != NULL, "escaping: %s", buf);
  ck_assert_int_eq(test_count(buf, "<circle"), 2);
  ck_assert_msg(strcmp(svg_colour(0), svg_colour(10)) == 0, "palette cycles");
  free(buf);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("html");
  TCase *tu = tcase_create("svg");
  tcase_add_test(tu, test_svg_helpers);
  suite_add_tcase(s, tu);
  TCase *tp = tcase_create("pages");
  tcase_set_timeout(tp, 60);
  tcase_add_test(tp, test_sweep_page);
  tcase_add_test(tp, test_run_page);
  tcase_add_test(tp, test_validate_page);
  suite_add_tcase(s, tp);
  return ck_run(s);
}
