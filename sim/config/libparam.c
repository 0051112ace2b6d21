/* libparam.c - reader of DiskSim's libparam files (see libparam.h). */
#include "sim/config/libparam.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/file.h"

enum lp_tok_kind { LP_T_WORD, LP_T_PUNCT, LP_T_EOF };

struct lp_tok {
  enum lp_tok_kind kind;
  char text[256];
  int line, col;
};

struct lp_lex {
  const char *path;
  char *buf;
  size_t pos, len;
  int line, col;
  int depth;   /* source nesting */
  struct lp_tok peek;
  int have_peek;
};

static int lp_is_punct(int c)
{
  return c == '{' || c == '}' || c == '[' || c == ']' || c == '=' || c == ',';
}

static void lp_advance(struct lp_lex *x)
{
  if (x->buf[x->pos] == '\n') {
    x->line++;
    x->col = 1;
  } else {
    x->col++;
  }
  x->pos++;
}

static int lp_next(struct lp_lex *x, struct lp_tok *t, struct nw_err *err)
{
  if (x->have_peek) {
    *t = x->peek;
    x->have_peek = 0;
    return 0;
  }
  for (;;) {
    while (x->pos < x->len && isspace((unsigned char)x->buf[x->pos]))
      lp_advance(x);
    if (x->pos < x->len && x->buf[x->pos] == '#') {
      while (x->pos < x->len && x->buf[x->pos] != '\n')
        lp_advance(x);
      continue;
    }
    break;
  }
  t->line = x->line;
  t->col = x->col;
  t->text[0] = '\0';
  if (x->pos >= x->len) {
    t->kind = LP_T_EOF;
    return 0;
  }
  int c = (unsigned char)x->buf[x->pos];
  if (lp_is_punct(c)) {
    t->kind = LP_T_PUNCT;
    t->text[0] = (char)c;
    t->text[1] = '\0';
    lp_advance(x);
    return 0;
  }
  if (c == '\0' || !isprint(c))
    return nw_fail(err, x->path, x->line, x->col, "unexpected byte 0x%02x", (unsigned)c);
  size_t n = 0;
  while (x->pos < x->len) {
    c = (unsigned char)x->buf[x->pos];
    if (isspace(c) || lp_is_punct(c) || c == '#' || c == '\0')
      break;
    if (n + 1 >= sizeof t->text)
      return nw_fail(err, x->path, t->line, t->col, "word longer than %zu characters",
                     sizeof t->text - 1);
    t->text[n++] = (char)c;
    lp_advance(x);
  }
  t->text[n] = '\0';
  t->kind = LP_T_WORD;
  return 0;
}

static int lp_peek(struct lp_lex *x, struct lp_tok *t, struct nw_err *err)
{
  if (!x->have_peek) {
    if (lp_next(x, &x->peek, err) < 0)
      return -1;
    x->have_peek = 1;
  }
  *t = x->peek;
  return 0;
}

static int lp_is(const struct lp_tok *t, char c)
{
  return t->kind == LP_T_PUNCT && t->text[0] == c;
}

static const char *lp_tok_desc(const struct lp_tok *t)
{
  return t->kind == LP_T_EOF ? "end of file" : t->text;
}

static struct lp_val *lp_new(enum lp_kind kind, const char *file, int line, int col)
{
  struct lp_val *v = calloc(1, sizeof *v);
  if (v == NULL)
    return NULL;
  v->kind = kind;
  v->file = strdup(file);
  v->line = line;
  v->col = col;
  if (v->file == NULL) {
    free(v);
    return NULL;
  }
  return v;
}

void lp_free(struct lp_val *v)
{
  if (v == NULL)
    return;
  for (int i = 0; i < v->n; i++) {
    lp_free(v->kids[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->kids);
  free(v->keys);
  free(v->key_line);
  free(v->key_col);
  free(v->used);
  free(v->word);
  free(v->name);
  free(v->file);
  free(v);
}

/* Append kid (and, for blocks, its key) to v.  0 or -1 (out of memory). */
static int lp_push(struct lp_val *v, struct lp_val *kid, const char *key, int kline, int kcol)
{
  if (kid == NULL)
    return -1;
  struct lp_val **k = realloc(v->kids, (size_t)(v->n + 1) * sizeof *k);
  if (k == NULL)
    return -1;
  v->kids = k;
  if (key != NULL) {
    char **ks = realloc(v->keys, (size_t)(v->n + 1) * sizeof *ks);
    if (ks)
      v->keys = ks;
    int *kl = realloc(v->key_line, (size_t)(v->n + 1) * sizeof *kl);
    if (kl)
      v->key_line = kl;
    int *kc = realloc(v->key_col, (size_t)(v->n + 1) * sizeof *kc);
    if (kc)
      v->key_col = kc;
    int *u = realloc(v->used, (size_t)(v->n + 1) * sizeof *u);
    if (u)
      v->used = u;
    if (!ks || !kl || !kc || !u || !(v->keys[v->n] = strdup(key)))
      return -1;
    v->key_line[v->n] = kline;
    v->key_col[v->n] = kcol;
    v->used[v->n] = 0;
  }
  v->kids[v->n++] = kid;
  return 0;
}

static struct lp_val *lp_parse_file(const char *path, int depth, const char *from_file,
                                    int from_line, int from_col, struct nw_err *err);
static struct lp_val *lp_parse_value(struct lp_lex *x, int nest, struct nw_err *err);

/* A file named in `source NAME` by x's file: relative to that file. */
static void lp_resolve(const char *base, const char *name, char *out, size_t out_len)
{
  const char *slash = strrchr(base, '/');
  if (name[0] == '/' || slash == NULL)
    snprintf(out, out_len, "%s", name);
  else
    snprintf(out, out_len, "%.*s/%s", (int)(slash - base), base, name);
}

/* Body of a block up to its closing brace (the opening one is read). */
static int lp_parse_body(struct lp_lex *x, struct lp_val *b, int nest, struct nw_err *err)
{
  for (;;) {
    struct lp_tok t;
    if (lp_next(x, &t, err) < 0)
      return -1;
    if (lp_is(&t, '}'))
      return 0;
    if (t.kind != LP_T_WORD)
      return nw_fail(err, x->path, t.line, t.col, "expected a key or '}', got '%s'",
                     lp_tok_desc(&t));
    char key[512] = "";
    int kl = t.line, kc = t.col;
    size_t used = 0;
    while (t.kind == LP_T_WORD) {
      used += (size_t)snprintf(key + used, used < sizeof key ? sizeof key - used : 0, "%s%s",
                               used ? " " : "", t.text);
      if (lp_next(x, &t, err) < 0)
        return -1;
    }
    if (!lp_is(&t, '='))
      return nw_fail(err, x->path, t.line, t.col, "key '%s': expected '=', got '%s'", key,
                     lp_tok_desc(&t));
    struct lp_val *v = lp_parse_value(x, nest + 1, err);
    if (v == NULL)
      return -1;
    if (lp_push(b, v, key, kl, kc) < 0) {
      lp_free(v);
      return nw_fail(err, x->path, kl, kc, "out of memory");
    }
    if (lp_next(x, &t, err) < 0)
      return -1;
    if (lp_is(&t, '}'))
      return 0;
    if (!lp_is(&t, ','))
      return nw_fail(err, x->path, t.line, t.col, "key '%s': expected ',' or '}' after its value, got '%s'",
                     key, lp_tok_desc(&t));
  }
}

static struct lp_val *lp_parse_list(struct lp_lex *x, int line, int col, int nest,
                                    struct nw_err *err)
{
  struct lp_val *l = lp_new(LP_LIST, x->path, line, col);
  if (l == NULL) {
    nw_fail(err, x->path, line, col, "out of memory");
    return NULL;
  }
  struct lp_tok t;
  if (lp_peek(x, &t, err) < 0)
    goto fail;
  if (lp_is(&t, ']')) {
    lp_next(x, &t, err);
    return l;
  }
  for (;;) {
    struct lp_val *v = lp_parse_value(x, nest + 1, err);
    if (v == NULL)
      goto fail;
    if (lp_push(l, v, NULL, 0, 0) < 0) {
      lp_free(v);
      nw_fail(err, x->path, line, col, "out of memory");
      goto fail;
    }
    if (lp_next(x, &t, err) < 0)
      goto fail;
    if (lp_is(&t, ']'))
      return l;
    if (!lp_is(&t, ',')) {
      nw_fail(err, x->path, t.line, t.col, "list: expected ',' or ']', got '%s'", lp_tok_desc(&t));
      goto fail;
    }
  }
fail:
  lp_free(l);
  return NULL;
}

static struct lp_val *lp_parse_value(struct lp_lex *x, int nest, struct nw_err *err)
{
  struct lp_tok t, n;
  if (lp_next(x, &t, err) < 0)
    return NULL;
  if (nest > LP_MAX_DEPTH) {
    nw_fail(err, x->path, t.line, t.col, "nesting deeper than %d", LP_MAX_DEPTH);
    return NULL;
  }
  if (lp_is(&t, '['))
    return lp_parse_list(x, t.line, t.col, nest, err);
  if (t.kind != LP_T_WORD) {
    nw_fail(err, x->path, t.line, t.col, "expected a value, got '%s'", lp_tok_desc(&t));
    return NULL;
  }
  if (lp_peek(x, &n, err) < 0)
    return NULL;
  if (strcmp(t.text, "source") == 0 && n.kind == LP_T_WORD) {
    lp_next(x, &n, err);
    char path[1024];
    lp_resolve(x->path, n.text, path, sizeof path);
    struct lp_val *top = lp_parse_file(path, x->depth + 1, x->path, n.line, n.col, err);
    if (top == NULL)
      return NULL;
    for (int i = 0; i < top->n; i++)
      if (top->kids[i]->kind == LP_BLOCK) {
        struct lp_val *b = top->kids[i];
        top->kids[i] = top->kids[--top->n];
        lp_free(top);
        return b;
      }
    lp_free(top);
    nw_fail(err, x->path, n.line, n.col, "source %s: the file holds no block", n.text);
    return NULL;
  }
  if (lp_is(&n, '{')) {
    lp_next(x, &n, err);
    struct lp_val *b = lp_new(LP_BLOCK, x->path, t.line, t.col);
    if (b == NULL || !(b->word = strdup(t.text))) {
      lp_free(b);
      nw_fail(err, x->path, t.line, t.col, "out of memory");
      return NULL;
    }
    if (lp_parse_body(x, b, nest, err) < 0) {
      lp_free(b);
      return NULL;
    }
    return b;
  }
  char *end = NULL;
  errno = 0;
  double d = strtod(t.text, &end);
  int num = end != t.text && *end == '\0' && errno != ERANGE && isfinite(d);
  struct lp_val *v = lp_new(num ? LP_NUM : LP_WORD, x->path, t.line, t.col);
  if (v == NULL || (!num && !(v->word = strdup(t.text)))) {
    lp_free(v);
    nw_fail(err, x->path, t.line, t.col, "out of memory");
    return NULL;
  }
  v->num = d;
  return v;
}

/* topology TYPE NAME [ TYPE NAME [ ... ], ... ] (the word topology read). */
static struct lp_val *lp_parse_topo(struct lp_lex *x, int nest, struct nw_err *err)
{
  struct lp_tok ty, nm, br;
  if (lp_next(x, &ty, err) < 0 || lp_next(x, &nm, err) < 0 || lp_next(x, &br, err) < 0)
    return NULL;
  if (ty.kind != LP_T_WORD || nm.kind != LP_T_WORD || !lp_is(&br, '[')) {
    nw_fail(err, x->path, ty.line, ty.col, "topology: expected 'TYPE NAME [', got '%s %s %s'",
            lp_tok_desc(&ty), lp_tok_desc(&nm), lp_tok_desc(&br));
    return NULL;
  }
  if (nest > LP_MAX_DEPTH) {
    nw_fail(err, x->path, ty.line, ty.col, "topology nesting deeper than %d", LP_MAX_DEPTH);
    return NULL;
  }
  struct lp_val *v = lp_new(LP_TOPO, x->path, ty.line, ty.col);
  if (v == NULL || !(v->word = strdup(ty.text)) || !(v->name = strdup(nm.text))) {
    lp_free(v);
    nw_fail(err, x->path, ty.line, ty.col, "out of memory");
    return NULL;
  }
  for (;;) {
    struct lp_tok t;
    if (lp_peek(x, &t, err) < 0)
      break;
    if (lp_is(&t, ']')) {
      lp_next(x, &t, err);
      return v;
    }
    if (lp_is(&t, ',')) {
      lp_next(x, &t, err);
      continue;
    }
    struct lp_val *kid = lp_parse_topo(x, nest + 1, err);
    if (kid == NULL || lp_push(v, kid, NULL, 0, 0) < 0) {
      lp_free(kid);
      break;
    }
  }
  if (err->msg[0] == '\0')
    nw_fail(err, x->path, ty.line, ty.col, "out of memory");
  lp_free(v);
  return NULL;
}

/* instantiate [ NAMES ] as SPEC (the word instantiate read). */
static struct lp_val *lp_parse_inst(struct lp_lex *x, const struct lp_tok *at, struct nw_err *err)
{
  struct lp_tok t, as, spec;
  if (lp_next(x, &t, err) < 0)
    return NULL;
  if (!lp_is(&t, '[')) {
    nw_fail(err, x->path, t.line, t.col, "instantiate: expected '[', got '%s'", lp_tok_desc(&t));
    return NULL;
  }
  struct lp_val *l = lp_parse_list(x, t.line, t.col, 1, err);
  if (l == NULL)
    return NULL;
  if (lp_next(x, &as, err) < 0 || lp_next(x, &spec, err) < 0) {
    lp_free(l);
    return NULL;
  }
  if (as.kind != LP_T_WORD || strcmp(as.text, "as") != 0 || spec.kind != LP_T_WORD) {
    nw_fail(err, x->path, as.line, as.col, "instantiate: expected 'as NAME', got '%s'",
            lp_tok_desc(&as));
    lp_free(l);
    return NULL;
  }
  l->kind = LP_INST;
  l->line = at->line;
  l->col = at->col;
  if (!(l->word = strdup(spec.text))) {
    lp_free(l);
    nw_fail(err, x->path, at->line, at->col, "out of memory");
    return NULL;
  }
  return l;
}

/* One top-level statement into top.  1 at end of file, 0, -1. */
static int lp_statement(struct lp_lex *x, struct lp_val *top, struct nw_err *err)
{
  struct lp_tok t, n;
  if (lp_next(x, &t, err) < 0)
    return -1;
  if (t.kind == LP_T_EOF)
    return 1;
  if (t.kind != LP_T_WORD)
    return nw_fail(err, x->path, t.line, t.col, "expected a statement (TYPE NAME { ... }, source, "
                   "instantiate, topology), got '%s'", lp_tok_desc(&t));
  struct lp_val *v = NULL;
  if (strcmp(t.text, "source") == 0) {
    if (lp_next(x, &n, err) < 0)
      return -1;
    if (n.kind != LP_T_WORD)
      return nw_fail(err, x->path, n.line, n.col, "source: expected a file name, got '%s'",
                     lp_tok_desc(&n));
    char path[1024];
    lp_resolve(x->path, n.text, path, sizeof path);
    struct lp_val *sub = lp_parse_file(path, x->depth + 1, x->path, n.line, n.col, err);
    if (sub == NULL)
      return -1;
    for (int i = 0; i < sub->n; i++) {
      if (lp_push(top, sub->kids[i], NULL, 0, 0) < 0) {
        sub->n = i;
        lp_free(sub);
        return nw_fail(err, x->path, n.line, n.col, "out of memory");
      }
      sub->kids[i] = NULL;
    }
    sub->n = 0;
    lp_free(sub);
    return 0;
  }
  if (strcmp(t.text, "instantiate") == 0)
    v = lp_parse_inst(x, &t, err);
  else if (strcmp(t.text, "topology") == 0)
    v = lp_parse_topo(x, 1, err);
  else {
    struct lp_tok br;
    if (lp_next(x, &n, err) < 0 || lp_next(x, &br, err) < 0)
      return -1;
    if (n.kind != LP_T_WORD || !lp_is(&br, '{'))
      return nw_fail(err, x->path, t.line, t.col,
                     "expected 'TYPE NAME {' (a block), got '%s %s %s'", t.text, lp_tok_desc(&n),
                     lp_tok_desc(&br));
    v = lp_new(LP_BLOCK, x->path, t.line, t.col);
    if (v == NULL || !(v->word = strdup(t.text)) || !(v->name = strdup(n.text))) {
      lp_free(v);
      return nw_fail(err, x->path, t.line, t.col, "out of memory");
    }
    if (lp_parse_body(x, v, 1, err) < 0) {
      lp_free(v);
      return -1;
    }
  }
  if (v == NULL)
    return -1;
  if (lp_push(top, v, NULL, 0, 0) < 0) {
    lp_free(v);
    return nw_fail(err, x->path, t.line, t.col, "out of memory");
  }
  return 0;
}

static struct lp_val *lp_parse_file(const char *path, int depth, const char *from_file,
                                    int from_line, int from_col, struct nw_err *err)
{
  if (depth > LP_MAX_SOURCES) {
    nw_fail(err, from_file, from_line, from_col, "source: files nested deeper than %d (a loop?)",
            LP_MAX_SOURCES);
    return NULL;
  }
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    nw_fail(err, from_file ? from_file : path, from_line, from_col, "cannot read DiskSim file '%s'",
            path);
    return NULL;
  }
  if (st.st_size > LP_MAX_FILE_BYTES) {
    nw_fail(err, path, 0, 0, "DiskSim file larger than %d bytes", LP_MAX_FILE_BYTES);
    return NULL;
  }
  size_t len = 0;
  char *buf = NULL;
  if (file_read_all(path, LP_MAX_FILE_BYTES, &buf, &len) != FILE_READ_OK) {
    nw_fail(err, from_file ? from_file : path, from_line, from_col, "cannot read DiskSim file '%s'",
            path);
    return NULL;
  }
  struct lp_lex x = {.path = path, .buf = buf, .len = len, .line = 1, .col = 1, .depth = depth};
  struct lp_val *top = lp_new(LP_LIST, path, 1, 1);
  int rc = top ? 0 : nw_fail(err, path, 0, 0, "out of memory");
  while (rc == 0)
    rc = lp_statement(&x, top, err);
  free(buf);
  if (rc < 0) {
    lp_free(top);
    return NULL;
  }
  return top;
}

struct lp_val *lp_load(const char *path, struct nw_err *err)
{
  return lp_parse_file(path, 0, NULL, 0, 0, err);
}

/* Keys compare case-insensitively with blanks collapsed. */
static int lp_key_eq(const char *a, const char *b)
{
  for (;;) {
    while (*a == ' ' && a[1] == ' ')
      a++;
    while (*b == ' ' && b[1] == ' ')
      b++;
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return 0;
    if (*a == '\0')
      return 1;
    a++;
    b++;
  }
}

struct lp_val *lp_get(struct lp_val *block, const char *key)
{
  if (block == NULL || block->kind != LP_BLOCK)
    return NULL;
  for (int i = 0; i < block->n; i++)
    if (lp_key_eq(block->keys[i], key)) {
      block->used[i] = 1;
      return block->kids[i];
    }
  return NULL;
}

struct lp_val *lp_find_block(const struct lp_val *top, const char *name)
{
  for (int i = 0; top && i < top->n; i++)
    if (top->kids[i]->kind == LP_BLOCK && top->kids[i]->name &&
        strcmp(top->kids[i]->name, name) == 0)
      return top->kids[i];
  return NULL;
}
