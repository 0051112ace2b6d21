#include "models/disks/fault.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct fault_hang {
  struct disk *inner;
  double at_s;
  uint64_t swallowed; /* requests that will never complete */
};

static void fault_hang_destroy(void *priv)
{
  struct fault_hang *h = priv;
  if (!h)
    return;
  disk_destroy(h->inner);
  free(h);
}

static void fault_hang_submit(void *priv, double now_s, const struct disk_io *io)
{
  struct fault_hang *h = priv;
  if (now_s >= h->at_s)
    h->swallowed++;
  else
    disk_submit(h->inner, now_s, io);
}

static double fault_hang_next(const void *priv)
{
  const struct fault_hang *h = priv;
  return disk_next_completion_s(h->inner);
}

static int fault_hang_pop(void *priv, double now_s, struct disk_io *done)
{
  struct fault_hang *h = priv;
  return disk_pop_completion(h->inner, now_s, done);
}

static void fault_hang_stats(const void *priv, double now_s, struct disk_stats *out)
{
  const struct fault_hang *h = priv;
  disk_stats(h->inner, now_s, out);
}

static void fault_hang_attach(void *priv, struct iface_link *link)
{
  struct fault_hang *h = priv;
  if (h->inner->model->attach_link)
    h->inner->model->attach_link(h->inner->priv, link);
}

static void fault_hang_precondition(void *priv, const struct disk_precond *p)
{
  struct fault_hang *h = priv;
  disk_precondition(h->inner, p);
}

static const struct disk_model fault_hang_model = {
    .name = "fault-hang",
    .destroy = fault_hang_destroy,
    .submit = fault_hang_submit,
    .next_completion_s = fault_hang_next,
    .pop_completion = fault_hang_pop,
    .stats = fault_hang_stats,
    .attach_link = fault_hang_attach,
    .precondition = fault_hang_precondition,
};

struct disk *disk_fault_hang(struct disk *inner, double at_s)
{
  struct disk *d = calloc(1, sizeof *d);
  struct fault_hang *h = calloc(1, sizeof *h);
  if (!d || !h) {
    free(d);
    free(h);
    disk_destroy(inner);
    return NULL;
  }
  h->inner = inner;
  h->at_s = at_s;
  d->model = &fault_hang_model;
  d->priv = h;
  snprintf(d->name, sizeof d->name, "%s", inner->name);
  return d;
}
