/* ytree.h - a YAML document as a small tree of nodes with positions.
 *
 * libyaml's event parser builds the tree; every node remembers the file,
 * line and column it came from (counted from 1), so errors found much
 * later (a range check, a merge of catalogue and scenario, a --set
 * override) still point at the right place.  Hostile input is refused
 * with a message: aliases/anchors (no alias bombs), nesting deeper than
 * YTREE_MAX_DEPTH, more than YTREE_MAX_NODES nodes, files larger than
 * YTREE_MAX_FILE_BYTES, maps of more than YTREE_MAX_KEYS keys, empty documents, non-regular files, duplicate keys. */
#ifndef NASTWIN_YTREE_H
#define NASTWIN_YTREE_H

#include "base/err.h"

#define YTREE_MAX_DEPTH 32
#define YTREE_MAX_NODES 200000
#define YTREE_MAX_KEYS 4096 /* keys in one map: far above any scenario, and keeps the duplicate check cheap */
#define YTREE_MAX_FILE_BYTES (8 * 1024 * 1024)

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
  enum ynode_kind kind;
  char *scalar;      /* YNODE_SCALAR: the text */
  int quoted;        /* scalar was quoted in the source */
  char *file;        /* owned copy of the source name */
  int line, col;
  int n;             /* children (MAP: pairs, SEQ: items) */
  int cap;
  char **keys;       /* MAP: keys */
  int *key_line, *key_col;
  struct ynode **kids;
};

/* Parse a file.  NULL with err on any problem. */
struct ynode *ytree_load_file(const char *path, struct nw_err *err);
/* Parse text (name is used in messages). */
struct ynode *ytree_load_string(const char *text, size_t len, const char *name, struct nw_err *err);
void ytree_free(struct ynode *n); /* accepts NULL */

/* Child of a map by key; NULL if absent or n is not a map. */
struct ynode *ytree_get(const struct ynode *map, const char *key);
/* Index of key in map, -1 if absent. */
int ytree_index(const struct ynode *map, const char *key);
/* Follow a dotted path ("soc.cores"); NULL when any part is missing. */
struct ynode *ytree_path(const struct ynode *root, const char *path);

/* Deep copy. */
struct ynode *ytree_clone(const struct ynode *n);
/* Overlay src onto dst: maps merge key by key (src wins), anything else
 * is replaced by a copy of src.  dst must be a map when src is. */
void ytree_overlay(struct ynode *dst, const struct ynode *src);
/* Set a dotted path to a scalar (creating maps on the way), with the
 * position given (for --set: file "--set", line 0).  -1 with err when a
 * part of the path is a scalar or a list. */
int ytree_set_path(struct ynode *root, const char *path, const char *value, const char *file,
                   struct nw_err *err);
/* Remove a key from a map (no-op when absent). */
void ytree_remove(struct ynode *map, const char *key);
/* New empty map at a position. */
struct ynode *ytree_new_map(const char *file, int line, int col);

/* Describe a node's kind for messages ("a map", "a list", "a scalar"). */
const char *ytree_kind_name(const struct ynode *n);

#endif
