#include "models/net/mpio.h"

#include <stdlib.h>
#include <string.h>

/* Shared state: the valid paths as an ordered list (like the kernel's
 * valid_paths list_head), per-path in-flight counts. */
struct mpio_state {
  int npaths;
  int repeat_count;
  int repeat_left;            /* round-robin: commands left on the head path */
  int nvalid;
  int order[MPIO_MAX_PATHS];  /* valid paths, head first */
  int failed[MPIO_MAX_PATHS]; /* 1 = failed */
  int inflight[MPIO_MAX_PATHS];
};

static void *mpio_state_create(int npaths, int repeat_count)
{
  struct mpio_state *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->npaths = npaths;
  s->repeat_count = repeat_count < 1 ? 1 : repeat_count;
  s->repeat_left = s->repeat_count;
  s->nvalid = npaths;
  for (int i = 0; i < npaths; i++)
    s->order[i] = i;
  return s;
}

static void mpio_state_destroy(void *priv)
{
  free(priv);
}

static int mpio_state_valid_index(const struct mpio_state *s, int path)
{
  return path >= 0 && path < s->npaths;
}

/* Move the head of the valid list to its tail. */
static void mpio_state_rotate(struct mpio_state *s)
{
  if (s->nvalid < 2)
    return;
  int head = s->order[0];
  memmove(&s->order[0], &s->order[1], (size_t)(s->nvalid - 1) * sizeof s->order[0]);
  s->order[s->nvalid - 1] = head;
}

static void mpio_state_fail(void *priv, int path)
{
  struct mpio_state *s = priv;
  if (!mpio_state_valid_index(s, path) || s->failed[path])
    return;
  s->failed[path] = 1;
  for (int i = 0; i < s->nvalid; i++) {
    if (s->order[i] != path)
      continue;
    if (i == 0)
      s->repeat_left = s->repeat_count;
    memmove(&s->order[i], &s->order[i + 1], (size_t)(s->nvalid - i - 1) * sizeof s->order[0]);
    s->nvalid--;
    break;
  }
}

static int mpio_state_reinstate(void *priv, int path)
{
  struct mpio_state *s = priv;
  if (!mpio_state_valid_index(s, path) || !s->failed[path])
    return -1;
  s->failed[path] = 0;
  s->order[s->nvalid++] = path; /* the kernel adds it at the tail */
  return 0;
}

static void mpio_state_start_io(void *priv, int path, double bytes)
{
  struct mpio_state *s = priv;
  (void)bytes;
  if (mpio_state_valid_index(s, path))
    s->inflight[path]++;
}

static void mpio_state_end_io(void *priv, int path, double bytes)
{
  struct mpio_state *s = priv;
  (void)bytes;
  if (mpio_state_valid_index(s, path) && s->inflight[path] > 0)
    s->inflight[path]--;
}

static int mpio_state_queue_depth(const void *priv, int path)
{
  const struct mpio_state *s = priv;
  return mpio_state_valid_index(s, path) ? s->inflight[path] : 0;
}

/* dm-round-robin: use the head path repeat_count times, then move it to
 * the tail. */
static int mpio_rr_select(void *priv, double bytes)
{
  struct mpio_state *s = priv;
  (void)bytes;
  if (s->nvalid == 0)
    return -1;
  int path = s->order[0];
  if (--s->repeat_left <= 0) {
    s->repeat_left = s->repeat_count;
    mpio_state_rotate(s);
  }
  return path;
}

/* dm-queue-length: rotate the list head to the tail, then take the first
 * path with the smallest in-flight count (stop early at an idle one). */
static int mpio_lqd_select(void *priv, double bytes)
{
  struct mpio_state *s = priv;
  (void)bytes;
  if (s->nvalid == 0)
    return -1;
  mpio_state_rotate(s);
  int best = -1;
  for (int i = 0; i < s->nvalid; i++) {
    int p = s->order[i];
    if (best < 0 || s->inflight[p] < s->inflight[best])
      best = p;
    if (s->inflight[best] == 0)
      break;
  }
  return best;
}

static const struct mpio_selector_ops mpio_round_robin_ops = {
    .name = "round-robin",
    .create = mpio_state_create,
    .destroy = mpio_state_destroy,
    .select_path = mpio_rr_select,
    .fail_path = mpio_state_fail,
    .reinstate_path = mpio_state_reinstate,
    .start_io = mpio_state_start_io,
    .end_io = mpio_state_end_io,
    .queue_depth = mpio_state_queue_depth,
};

static const struct mpio_selector_ops mpio_lqd_ops = {
    .name = "least-queue-depth",
    .create = mpio_state_create,
    .destroy = mpio_state_destroy,
    .select_path = mpio_lqd_select,
    .fail_path = mpio_state_fail,
    .reinstate_path = mpio_state_reinstate,
    .start_io = mpio_state_start_io,
    .end_io = mpio_state_end_io,
    .queue_depth = mpio_state_queue_depth,
};

static const struct mpio_selector_ops *const mpio_selectors[] = {&mpio_round_robin_ops,
                                                                  &mpio_lqd_ops};

const struct mpio_selector_ops *mpio_selector_find(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof mpio_selectors / sizeof mpio_selectors[0]; i++)
    if (strcmp(mpio_selectors[i]->name, name) == 0)
      return mpio_selectors[i];
  return NULL;
}

const char *mpio_selector_names(void)
{
  return "round-robin, least-queue-depth";
}

struct mpio *mpio_create(const char *name, int npaths, int repeat_count, struct nw_err *err)
{
  const struct mpio_selector_ops *ops = mpio_selector_find(name);
  if (!ops) {
    nw_fail(err, NULL, 0, 0, "network: mpio_policy '%s' is unknown (one of: %s)",
            name ? name : "(null)", mpio_selector_names());
    return NULL;
  }
  if (npaths < 1 || npaths > MPIO_MAX_PATHS) {
    nw_fail(err, NULL, 0, 0, "network: mpio needs 1..%d paths inclusive, got %d", MPIO_MAX_PATHS,
            npaths);
    return NULL;
  }
  if (repeat_count < 1) {
    nw_fail(err, NULL, 0, 0, "network: mpio_rr_repeat must be >= 1, got %d", repeat_count);
    return NULL;
  }
  struct mpio *m = calloc(1, sizeof *m);
  if (!m)
    goto fail;
  m->ops = ops;
  m->priv = ops->create(npaths, repeat_count);
  if (!m->priv)
    goto fail;
  return m;
fail:
  mpio_destroy(m);
  nw_fail(err, NULL, 0, 0, "network: out of memory creating the mpio selector");
  return NULL;
}

void mpio_destroy(struct mpio *m)
{
  if (!m)
    return;
  if (m->ops)
    m->ops->destroy(m->priv);
  free(m);
}
