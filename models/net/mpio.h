/* mpio.h - multipath I/O path selectors, after Linux dm-path-selector.h.
 *
 * An initiator with several paths (one iSCSI session/TCP connection per
 * path) asks its selector which path to send each command on:
 *
 *   p = mpio_select_path(m, bytes);    -1 when every path has failed
 *   mpio_start_io(m, p, bytes);        the command is issued on p
 *   ... command travels, is served ...
 *   mpio_end_io(m, p, bytes);          its completion came back on p
 *   mpio_fail_path(m, p);              link down: never selected again
 *   mpio_reinstate_path(m, p);         link back up
 *
 * Selectors are ops tables registered by name (mpio_selector_find):
 *   "round-robin"        dm-round-robin: the valid paths in a ring, each
 *                        used for repeat_count commands in turn;
 *   "least-queue-depth"  dm-queue-length: the valid path with the fewest
 *                        commands in flight; ties rotate (the list head is
 *                        moved to the tail before each search, as the
 *                        kernel does).
 * Paths are numbered 0..npaths-1 (the engine maps path i to client NIC i
 * and NAS NIC i).  Pure C, no SimGrid, no global state. */
#ifndef NASTWIN_MPIO_H
#define NASTWIN_MPIO_H

#include "base/err.h"

/* Most paths a selector handles (count). */
#define MPIO_MAX_PATHS 16

struct mpio_selector_ops {
  const char *name;
  /* New selector state over npaths valid paths; NULL when out of memory. */
  void *(*create)(int npaths, int repeat_count);
  void (*destroy)(void *priv); /* accepts NULL */
  /* Path for the next command of `bytes`; -1 if no path is valid. */
  int (*select_path)(void *priv, double bytes);
  void (*fail_path)(void *priv, int path);
  /* 0, or -1 if the path was not failed / out of range. */
  int (*reinstate_path)(void *priv, int path);
  void (*start_io)(void *priv, int path, double bytes);
  void (*end_io)(void *priv, int path, double bytes);
  /* Commands in flight on a path (count). */
  int (*queue_depth)(const void *priv, int path);
};

/* A selector instance. */
struct mpio {
  const struct mpio_selector_ops *ops;
  void *priv;
};

/* Selector by name ("round-robin", "least-queue-depth"); NULL if unknown. */
const struct mpio_selector_ops *mpio_selector_find(const char *name);

/* "round-robin, least-queue-depth": valid names, for messages. */
const char *mpio_selector_names(void);

/* New selector of policy `name` over npaths (1..MPIO_MAX_PATHS) paths,
 * repeat_count >= 1 commands per path turn (round-robin only).  NULL with
 * err naming the bad value, or on out of memory.  Free with mpio_destroy. */
struct mpio *mpio_create(const char *name, int npaths, int repeat_count, struct nw_err *err);

/* Free a selector; accepts NULL. */
void mpio_destroy(struct mpio *m);

/* Path for the next command (index), -1 when all paths failed. */
static inline int mpio_select_path(struct mpio *m, double bytes)
{
  return m->ops->select_path(m->priv, bytes);
}
/* Account a command of `bytes` issued on path. */
static inline void mpio_start_io(struct mpio *m, int path, double bytes)
{
  m->ops->start_io(m->priv, path, bytes);
}
/* Account the completion of a command of `bytes` on path. */
static inline void mpio_end_io(struct mpio *m, int path, double bytes)
{
  m->ops->end_io(m->priv, path, bytes);
}
/* Take a path out of service (link down). */
static inline void mpio_fail_path(struct mpio *m, int path)
{
  m->ops->fail_path(m->priv, path);
}
/* Bring a failed path back; 0, or -1 if it was not failed. */
static inline int mpio_reinstate_path(struct mpio *m, int path)
{
  return m->ops->reinstate_path(m->priv, path);
}
/* Commands in flight on path (count). */
static inline int mpio_queue_depth(const struct mpio *m, int path)
{
  return m->ops->queue_depth(m->priv, path);
}

#endif
