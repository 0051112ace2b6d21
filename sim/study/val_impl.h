/* val_impl.h - validate.c's helpers shared with val_obs.c (the
 * observations' constraints).  Private to sim/study/val*.c. */
#ifndef NASTWIN_VAL_IMPL_H
#define NASTWIN_VAL_IMPL_H

#include "sim/study/validate.h"

/* nw_fail at a node's file:line:col (fmt takes two strings). */
int val_at(struct nw_err *err, const struct ynode *n, const char *fmt, const char *a, const char *b);
const char *val_scalar(const struct ynode *map, const char *key);
void val_copy(char *dst, size_t len, const char *src);
/* A plain decimal number; 0 or -1. */
int val_number(const char *s, double *out);
/* Directory part of a path ("." when none). */
void val_dirname(const char *path, char *dir, size_t len);
/* Kind of a points.yaml field; -1 when not allowed. */
int val_field_kind(const char *f);
/* The highest busy of r's resources whose name starts with prefix (NAN: none). */
double val_busy_max(const struct run_result *r, const char *prefix);
/* Find or load the scenario (path, sets "a=b\nc=d", fio job or ""); its index or -1 with err. */
int val_get_cfg(struct val_set *v, const char *path, const char *sets, const char *fio, const char *catalog,
                const struct cfg_set *extra, int nextra, const struct ynode *where, struct nw_err *err);
/* A `set` list (PATH=VALUE items, may be NULL) appended to sets ("a=b\nc=d"); 0 or -1 with err. */
int val_sets_append(const struct ynode *sn, char *sets, size_t len, struct nw_err *err);
/* A zeroed point appended to v (not counted in npoints yet); NULL with err. */
struct val_point *val_point_new(struct val_set *v, const struct ynode *where, struct nw_err *err);
/* The entry's `steps` of configuration p->cfg appended to p->tasks. */
int val_add_tasks(struct val_set *v, struct val_point *p, const struct ynode *pe, struct nw_err *err);

#endif
