#include "sim/config/ytree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

static struct ynode *ytree_node(enum ynode_kind kind, const char *file, int line, int col)
{
  struct ynode *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->kind = kind;
  n->file = strdup(file ? file : "");
  n->line = line;
  n->col = col;
  if (!n->file) {
    free(n);
    return NULL;
  }
  return n;
}

/* Free what a node owns, not the node itself. */
static void ytree_free_content(struct ynode *n)
{
  for (int i = 0; i < n->n; i++) {
    ytree_free(n->kids[i]);
    if (n->keys)
      free(n->keys[i]);
  }
  free(n->kids);
  free(n->keys);
  free(n->key_line);
  free(n->key_col);
  free(n->scalar);
  free(n->file);
}

void ytree_free(struct ynode *n)
{
  if (!n)
    return;
  ytree_free_content(n);
  free(n);
}

static int ytree_grow(struct ynode *n)
{
  if (n->n < n->cap)
    return 0;
  int cap = n->cap ? n->cap * 2 : 4;
  struct ynode **kids = realloc(n->kids, (size_t)cap * sizeof *kids);
  if (!kids)
    return -1;
  n->kids = kids;
  if (n->kind == YNODE_MAP) {
    char **keys = realloc(n->keys, (size_t)cap * sizeof *keys);
    if (!keys)
      return -1;
    n->keys = keys;
    int *kl = realloc(n->key_line, (size_t)cap * sizeof *kl);
    if (!kl)
      return -1;
    n->key_line = kl;
    int *kc = realloc(n->key_col, (size_t)cap * sizeof *kc);
    if (!kc)
      return -1;
    n->key_col = kc;
  }
  n->cap = cap;
  return 0;
}

/* Append (key, kid) to a map or kid to a list; takes ownership of kid. */
static int ytree_append(struct ynode *parent, const char *key, int kline, int kcol, struct ynode *kid)
{
  if (ytree_grow(parent) < 0)
    return -1;
  if (parent->kind == YNODE_MAP) {
    parent->keys[parent->n] = strdup(key);
    if (!parent->keys[parent->n])
      return -1;
    parent->key_line[parent->n] = kline;
    parent->key_col[parent->n] = kcol;
  }
  parent->kids[parent->n++] = kid;
  return 0;
}

struct ytree_parser {
  yaml_parser_t p;
  const char *name;
  struct nw_err *err;
  long nodes;
};

static int ytree_event(struct ytree_parser *tp, yaml_event_t *ev)
{
  if (!yaml_parser_parse(&tp->p, ev)) {
    int line = (int)tp->p.problem_mark.line + 1, col = (int)tp->p.problem_mark.column + 1;
    return nw_fail(tp->err, tp->name, line, col, "YAML syntax: %s%s%s",
                   tp->p.problem ? tp->p.problem : "parse error",
                   tp->p.context ? " " : "", tp->p.context ? tp->p.context : "");
  }
  return 0;
}

/* Parse one node whose first event is ev (consumed).  depth counts from 1. */
static struct ynode *ytree_parse_node(struct ytree_parser *tp, yaml_event_t *ev, int depth)
{
  int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
  if (++tp->nodes > YTREE_MAX_NODES) {
    nw_fail(tp->err, tp->name, line, col, "document too large: more than %d nodes", YTREE_MAX_NODES);
    return NULL;
  }
  if (depth > YTREE_MAX_DEPTH) {
    nw_fail(tp->err, tp->name, line, col, "nesting deeper than %d levels", YTREE_MAX_DEPTH);
    return NULL;
  }
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    nw_fail(tp->err, tp->name, line, col, "YAML aliases (*%s) are not allowed in nastwin files",
            (const char *)ev->data.alias.anchor);
    return NULL;
  case YAML_SCALAR_EVENT: {
    if (ev->data.scalar.anchor) {
      nw_fail(tp->err, tp->name, line, col, "YAML anchors (&%s) are not allowed in nastwin files",
              (const char *)ev->data.scalar.anchor);
      return NULL;
    }
    struct ynode *n = ytree_node(YNODE_SCALAR, tp->name, line, col);
    if (!n || !(n->scalar = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length))) {
      ytree_free(n);
      nw_fail(tp->err, tp->name, line, col, "out of memory");
      return NULL;
    }
    if (strlen(n->scalar) != ev->data.scalar.length) {
      ytree_free(n);
      nw_fail(tp->err, tp->name, line, col, "a NUL character inside a value is not allowed");
      return NULL;
    }
    n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    return n;
  }
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    if (anchor) {
      nw_fail(tp->err, tp->name, line, col, "YAML anchors (&%s) are not allowed in nastwin files",
              (const char *)anchor);
      return NULL;
    }
    struct ynode *n = ytree_node(is_map ? YNODE_MAP : YNODE_SEQ, tp->name, line, col);
    if (!n) {
      nw_fail(tp->err, tp->name, line, col, "out of memory");
      return NULL;
    }
    for (;;) {
      yaml_event_t kev;
      if (ytree_event(tp, &kev) < 0) {
        ytree_free(n);
        return NULL;
      }
      if (kev.type == YAML_MAPPING_END_EVENT || kev.type == YAML_SEQUENCE_END_EVENT) {
        yaml_event_delete(&kev);
        return n;
      }
      char *key = NULL;
      int kline = (int)kev.start_mark.line + 1, kcol = (int)kev.start_mark.column + 1;
      yaml_event_t vev;
      if (is_map) {
        if (kev.type != YAML_SCALAR_EVENT) {
          nw_fail(tp->err, tp->name, kline, kcol, "map keys must be plain words, not %s",
                  kev.type == YAML_ALIAS_EVENT ? "aliases" : "maps or lists");
          yaml_event_delete(&kev);
          ytree_free(n);
          return NULL;
        }
        key = strndup((const char *)kev.data.scalar.value, kev.data.scalar.length);
        yaml_event_delete(&kev);
        if (!key) {
          ytree_free(n);
          nw_fail(tp->err, tp->name, kline, kcol, "out of memory");
          return NULL;
        }
        if (n->n >= YTREE_MAX_KEYS) {
          nw_fail(tp->err, tp->name, kline, kcol, "a map may hold at most %d keys", YTREE_MAX_KEYS);
          free(key);
          ytree_free(n);
          return NULL;
        }
        if (ytree_index(n, key) >= 0) {
          nw_fail(tp->err, tp->name, kline, kcol, "duplicate key '%s'", key);
          free(key);
          ytree_free(n);
          return NULL;
        }
        if (ytree_event(tp, &vev) < 0) {
          free(key);
          ytree_free(n);
          return NULL;
        }
      } else {
        vev = kev;
      }
      struct ynode *kid = ytree_parse_node(tp, &vev, depth + 1);
      yaml_event_delete(&vev);
      if (!kid || ytree_append(n, key, kline, kcol, kid) < 0) {
        if (kid) {
          ytree_free(kid);
          nw_fail(tp->err, tp->name, kline, kcol, "out of memory");
        }
        free(key);
        ytree_free(n);
        return NULL;
      }
      free(key);
    }
  }
  default:
    nw_fail(tp->err, tp->name, line, col, "unexpected YAML structure");
    return NULL;
  }
}

struct ynode *ytree_load_string(const char *text, size_t len, const char *name, struct nw_err *err)
{
  struct ytree_parser tp = {.name = name, .err = err};
  if (!yaml_parser_initialize(&tp.p)) {
    nw_fail(err, name, 0, 0, "out of memory");
    return NULL;
  }
  /* A UTF-8 byte-order mark (editors on Windows write one) is no content;
   * libyaml, told the encoding, would read it as a character. */
  if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
    text += 3;
    len -= 3;
  }
  yaml_parser_set_input_string(&tp.p, (const unsigned char *)text, len);
  yaml_parser_set_encoding(&tp.p, YAML_UTF8_ENCODING);
  struct ynode *root = NULL;
  yaml_event_t ev;
  int state = 0; /* 0 before doc, 1 in doc, 2 after */
  for (;;) {
    if (ytree_event(&tp, &ev) < 0)
      goto fail;
    if (ev.type == YAML_STREAM_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_END_EVENT) {
      yaml_event_delete(&ev);
      continue;
    }
    if (ev.type == YAML_DOCUMENT_START_EVENT) {
      if (state != 0) {
        nw_fail(err, name, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                "only one YAML document per file is allowed");
        yaml_event_delete(&ev);
        goto fail;
      }
      state = 1;
      yaml_event_delete(&ev);
      continue;
    }
    root = ytree_parse_node(&tp, &ev, 1);
    yaml_event_delete(&ev);
    if (!root)
      goto fail;
    state = 2;
  }
  yaml_parser_delete(&tp.p);
  if (root && root->kind == YNODE_SCALAR && !root->quoted && !root->scalar[0]) {
    ytree_free(root); /* "---" alone: an empty document */
    root = NULL;
  }
  if (!root) {
    nw_fail(err, name, 1, 1, "the file is empty: expected a YAML map");
    return NULL;
  }
  return root;
fail:
  ytree_free(root);
  yaml_parser_delete(&tp.p);
  return NULL;
}

struct ynode *ytree_load_file(const char *path, struct nw_err *err)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    nw_fail(err, path, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    nw_fail(err, path, 0, 0, "not a regular file (%s)",
            S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
    return NULL;
  }
  if (st.st_size > YTREE_MAX_FILE_BYTES) {
    nw_fail(err, path, 0, 0, "file too large: %lld bytes, at most %d allowed",
            (long long)st.st_size, YTREE_MAX_FILE_BYTES);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    nw_fail(err, path, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  size_t size = (size_t)st.st_size;
  char *buf = malloc(size + 1);
  if (!buf) {
    fclose(f);
    nw_fail(err, path, 0, 0, "out of memory");
    return NULL;
  }
  size_t got = fread(buf, 1, size, f);
  int rerr = ferror(f);
  fclose(f);
  if (rerr || got != size) {
    free(buf);
    nw_fail(err, path, 0, 0, "read error");
    return NULL;
  }
  buf[got] = '\0';
  if (memchr(buf, '\0', got)) {
    free(buf);
    nw_fail(err, path, 0, 0, "binary file (contains NUL bytes): expected YAML text");
    return NULL;
  }
  struct ynode *root = ytree_load_string(buf, got, path, err);
  free(buf);
  return root;
}

int ytree_index(const struct ynode *map, const char *key)
{
  if (!map || map->kind != YNODE_MAP)
    return -1;
  for (int i = 0; i < map->n; i++)
    if (strcmp(map->keys[i], key) == 0)
      return i;
  return -1;
}

struct ynode *ytree_get(const struct ynode *map, const char *key)
{
  int i = ytree_index(map, key);
  return i < 0 ? NULL : map->kids[i];
}

struct ynode *ytree_path(const struct ynode *root, const char *path)
{
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  const struct ynode *n = root;
  char *save = NULL;
  for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
    n = ytree_get(n, part);
    if (!n)
      return NULL;
  }
  return (struct ynode *)n;
}

struct ynode *ytree_clone(const struct ynode *src)
{
  struct ynode *n = ytree_node(src->kind, src->file, src->line, src->col);
  if (!n)
    return NULL;
  n->quoted = src->quoted;
  if (src->scalar && !(n->scalar = strdup(src->scalar)))
    goto fail;
  for (int i = 0; i < src->n; i++) {
    struct ynode *kid = ytree_clone(src->kids[i]);
    if (!kid)
      goto fail;
    if (ytree_append(n, src->keys ? src->keys[i] : NULL, src->key_line ? src->key_line[i] : 0,
                     src->key_col ? src->key_col[i] : 0, kid) < 0) {
      ytree_free(kid);
      goto fail;
    }
  }
  return n;
fail:
  ytree_free(n);
  return NULL;
}

/* Replace dst's content by a copy of src's, keeping dst's address. */
static void ytree_replace(struct ynode *dst, const struct ynode *src)
{
  struct ynode *copy = ytree_clone(src);
  if (!copy)
    return;
  ytree_free_content(dst);
  *dst = *copy;
  free(copy);
}

void ytree_overlay(struct ynode *dst, const struct ynode *src)
{
  if (dst->kind != YNODE_MAP || src->kind != YNODE_MAP) {
    ytree_replace(dst, src);
    return;
  }
  for (int i = 0; i < src->n; i++) {
    int j = ytree_index(dst, src->keys[i]);
    if (j >= 0) {
      ytree_overlay(dst->kids[j], src->kids[i]);
      dst->key_line[j] = src->key_line[i];
      dst->key_col[j] = src->key_col[i];
    } else {
      struct ynode *kid = ytree_clone(src->kids[i]);
      if (kid && ytree_append(dst, src->keys[i], src->key_line[i], src->key_col[i], kid) < 0)
        ytree_free(kid);
    }
  }
}

struct ynode *ytree_new_map(const char *file, int line, int col)
{
  return ytree_node(YNODE_MAP, file, line, col);
}

void ytree_remove(struct ynode *map, const char *key)
{
  int i = ytree_index(map, key);
  if (i < 0)
    return;
  ytree_free(map->kids[i]);
  free(map->keys[i]);
  for (int j = i; j + 1 < map->n; j++) {
    map->kids[j] = map->kids[j + 1];
    map->keys[j] = map->keys[j + 1];
    map->key_line[j] = map->key_line[j + 1];
    map->key_col[j] = map->key_col[j + 1];
  }
  map->n--;
}

int ytree_set_path(struct ynode *root, const char *path, const char *value, const char *file,
                   struct nw_err *err)
{
  char buf[256];
  size_t plen = strlen(path);
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf || !path[0] || path[0] == '.' ||
      path[plen - 1] == '.' || strstr(path, ".."))
    return nw_fail(err, file, 0, 0, "bad key path '%.200s': expected words joined by dots, e.g. soc.cores",
                   path);
  struct ynode *n = root;
  char *save = NULL;
  char *part = strtok_r(buf, ".", &save);
  while (part) {
    char *next = strtok_r(NULL, ".", &save);
    if (n->kind != YNODE_MAP)
      return nw_fail(err, file, 0, 0, "'%s': '%s' is inside %s, not a map", path, part,
                     ytree_kind_name(n));
    struct ynode *kid = ytree_get(n, part);
    if (!next) {
      struct ynode *s = ytree_node(YNODE_SCALAR, file, 0, 0);
      if (!s || !(s->scalar = strdup(value))) {
        ytree_free(s);
        return nw_fail(err, file, 0, 0, "out of memory");
      }
      if (kid) {
        ytree_replace(kid, s);
        ytree_free(s);
      } else if (ytree_append(n, part, 0, 0, s) < 0) {
        ytree_free(s);
        return nw_fail(err, file, 0, 0, "out of memory");
      }
      return 0;
    }
    if (!kid) {
      kid = ytree_node(YNODE_MAP, file, 0, 0);
      if (!kid || ytree_append(n, part, 0, 0, kid) < 0) {
        ytree_free(kid);
        return nw_fail(err, file, 0, 0, "out of memory");
      }
    }
    n = kid;
    part = next;
  }
  return 0;
}

const char *ytree_kind_name(const struct ynode *n)
{
  if (!n)
    return "nothing";
  return n->kind == YNODE_MAP ? "a map" : n->kind == YNODE_SEQ ? "a list" : "a scalar";
}
