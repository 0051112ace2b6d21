/* val_golden.c - golden predictions: write every point's prediction, and
 * compare a run with them (validate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "sim/report/report.h"
#include "sim/study/validate.h"

/* The key of point i: "experiment | metric | label", " #N" for the N-th
 * (N >= 2) point with the same text before it. */
static void golden_key(const struct val_set *v, int i, char *buf, size_t len)
{
  char label[512];
  const struct val_point *p = &v->pts[i];
  val_label(p, label, sizeof label);
  snprintf(buf, len, "%s | %s | %s", p->experiment, p->metric, label);
  int rep = 1;
  for (int k = 0; k < i; k++) {
    const struct val_point *q = &v->pts[k];
    char other[512];
    val_label(q, other, sizeof other);
    rep += !strcmp(q->experiment, p->experiment) && !strcmp(q->metric, p->metric) && !strcmp(other, label);
  }
  if (rep > 1) {
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, " #%d", rep);
  }
}

int val_golden_write(const struct val_set *v, const char *path, struct nw_err *err)
{
  struct file_atomic a;
  if (file_atomic_open(&a, path, err) != 0)
    return -1;
  FILE *f = a.f;
  fputs("{\"calibration\": ", f);
  report_calib_json(f, v->calib_name, v->calib_hash);
  fputs(",\n\"regenerate\": \"nastwin validate --golden-update\",\n\"points\": [", f);
  for (int i = 0; i < v->npoints; i++) {
    char key[1024];
    golden_key(v, i, key, sizeof key);
    fputs(i ? ",\n  {\"key\": " : "\n  {\"key\": ", f);
    report_json_string(f, key);
    if (v->pts[i].status == VAL_OK && isfinite(v->pts[i].predicted))
      fprintf(f, ", \"predicted\": %.10g}", v->pts[i].predicted);
    else
      fputs(", \"predicted\": null}", f);
  }
  fputs("\n]}\n", f);
  return file_atomic_commit(&a, 0, err);
}

/* The golden entry of key in the points list; NULL when absent. */
static const struct ynode *golden_find(const struct ynode *list, const char *key)
{
  for (int k = 0; k < list->n; k++) {
    const struct ynode *e = list->kids[k], *kn = ytree_get(e, "key");
    if (kn && kn->kind == YNODE_SCALAR && !strcmp(kn->scalar, key))
      return e;
  }
  return NULL;
}

int val_golden_check(const struct val_set *v, const char *path, double tol, FILE *out, struct nw_err *err)
{
  struct ynode *root = ytree_load_file(path, err);
  if (!root)
    return -1;
  const struct ynode *list = ytree_get(root, "points");
  if (!list || list->kind != YNODE_SEQ) {
    nw_fail(err, path, root->line, root->col, "golden predictions: expected a 'points' list");
    ytree_free(root);
    return -1;
  }
  /* the whole file first: every entry a key and a number or null */
  for (int k = 0; k < list->n; k++) {
    const struct ynode *e = list->kids[k], *kn = ytree_get(e, "key"), *pn = ytree_get(e, "predicted");
    char *end = NULL;
    if (!kn || kn->kind != YNODE_SCALAR || !pn || pn->kind != YNODE_SCALAR ||
        (strcmp(pn->scalar, "null") && (strtod(pn->scalar, &end), *end || end == pn->scalar))) {
      const struct ynode *at = pn ? pn : e;
      nw_fail(err, at->file, at->line, at->col,
              "golden predictions: each point needs key: TEXT and predicted: a number or null, got '%s'",
              pn && pn->kind == YNODE_SCALAR ? pn->scalar : "(missing)");
      ytree_free(root);
      return -1;
    }
  }
  int moved = 0;
  for (int i = 0; i < v->npoints; i++) {
    char key[1024];
    golden_key(v, i, key, sizeof key);
    const struct ynode *e = golden_find(list, key), *pn = e ? ytree_get(e, "predicted") : NULL;
    const struct val_point *p = &v->pts[i];
    int now_ok = p->status == VAL_OK && isfinite(p->predicted);
    if (!pn || pn->kind != YNODE_SCALAR) {
      fprintf(out, "golden: %s: not in %s\n", key, path);
      moved++;
      continue;
    }
    double g = strtod(pn->scalar, NULL);
    int was_ok = !strcmp(pn->scalar, "null") ? 0 : 1;
    if (was_ok != now_ok) {
      fprintf(out, "golden: %s: was %s, now %s\n", key, was_ok ? pn->scalar : "not run",
              now_ok ? "a prediction" : "not run");
      moved++;
    } else if (now_ok) {
      double rel = g != 0 ? p->predicted / g - 1 : (p->predicted != 0 ? INFINITY : 0);
      if (fabs(rel) > tol) {
        fprintf(out, "golden: %s: %.6g -> %.6g (%+.2f %%)\n", key, g, p->predicted, 100 * rel);
        moved++;
      }
    }
  }
  ytree_free(root);
  return moved;
}
