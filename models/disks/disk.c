/* disk.c - the device model registry and the machinery the models share. */
#include "models/disks/disk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/disks/disk_impl.h"

static const struct disk_model *const disk_models[] = {&hdd_model, &sata_ssd_model, &nvme_model,
                                                       &fixed_model};

const struct disk_model *disk_model_find(const char *name)
{
  if (name == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof disk_models / sizeof disk_models[0]; i++)
    if (strcmp(disk_models[i]->name, name) == 0)
      return disk_models[i];
  return NULL;
}

const char *disk_model_names(void)
{
  return "hdd, sata_ssd, nvme, fixed";
}

struct disk *disk_create(const struct disk_model *m, const void *params, const char *name,
                         uint64_t seed)
{
  struct disk *d = calloc(1, sizeof *d);
  if (d == NULL)
    return NULL;
  d->model = m;
  snprintf(d->name, sizeof d->name, "%s", name ? name : m->name);
  d->priv = m->create(params, seed);
  if (d->priv == NULL) {
    free(d);
    return NULL;
  }
  return d;
}

void disk_destroy(struct disk *d)
{
  if (d == NULL)
    return;
  d->model->destroy(d->priv);
  free(d);
}

/* ---- completion heap ---- */

void disk_heap_init(struct disk_heap *h)
{
  memset(h, 0, sizeof *h);
}

void disk_heap_free(struct disk_heap *h)
{
  free(h->v);
  memset(h, 0, sizeof *h);
}

static int disk_heap_less(const struct disk_heap_ent *a, const struct disk_heap_ent *b)
{
  return a->key_s < b->key_s || (a->key_s == b->key_s && a->seq < b->seq);
}

int disk_heap_push(struct disk_heap *h, double key_s, const struct disk_io *io)
{
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    struct disk_heap_ent *v = realloc(h->v, cap * sizeof *v);
    if (v == NULL)
      return -1;
    h->v = v;
    h->cap = cap;
  }
  size_t i = h->n++;
  struct disk_heap_ent e = {.key_s = key_s, .seq = h->next_seq++};
  if (io != NULL)
    e.io = *io;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!disk_heap_less(&e, &h->v[parent]))
      break;
    h->v[i] = h->v[parent];
    i = parent;
  }
  h->v[i] = e;
  return 0;
}

double disk_heap_min_s(const struct disk_heap *h)
{
  return h->n ? h->v[0].key_s : INFINITY;
}

int disk_heap_pop(struct disk_heap *h, struct disk_heap_ent *out)
{
  if (h->n == 0)
    return 0;
  if (out != NULL)
    *out = h->v[0];
  struct disk_heap_ent last = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && disk_heap_less(&h->v[c + 1], &h->v[c]))
      c++;
    if (!disk_heap_less(&h->v[c], &last))
      break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n > 0)
    h->v[i] = last;
  return 1;
}

/* ---- busy time ---- */

void disk_busy_add(struct disk_busy *b, double start_s, double end_s)
{
  if (end_s <= start_s)
    return;
  if (start_s >= b->cover_end_s) {
    b->total_s += end_s - start_s;
    b->cover_end_s = end_s;
  } else if (end_s > b->cover_end_s) {
    b->total_s += end_s - b->cover_end_s;
    b->cover_end_s = end_s;
  }
}

double disk_busy_at(const struct disk_busy *b, double now_s)
{
  /* Every interval starts at or before now, so the part of the union
   * after now is exactly [now, cover_end]. */
  double future_s = b->cover_end_s > now_s ? b->cover_end_s - now_s : 0.0;
  return b->total_s - future_s;
}

/* ---- power states ---- */

double disk_power_gap(struct disk_power *pw, double gap_s)
{
  if (pw->standby_after_s <= 0.0 || gap_s <= pw->standby_after_s)
    return 0.0;
  pw->standby_s += gap_s - pw->standby_after_s;
  pw->wakes++;
  pw->wake_total_s += pw->wake_s;
  return pw->wake_s;
}

double disk_power_energy_J(const struct disk_power *pw, double now_s, double busy_s,
                           double idle_since_s)
{
  double standby_s = pw->standby_s;
  double open_gap_s = now_s - idle_since_s;
  if (pw->standby_after_s > 0.0 && open_gap_s > pw->standby_after_s)
    standby_s += open_gap_s - pw->standby_after_s;
  double idle_s = now_s - busy_s - standby_s - pw->wake_total_s;
  if (idle_s < 0.0)
    idle_s = 0.0;
  return pw->idle_W * idle_s + pw->active_W * busy_s + pw->standby_W * standby_s +
         pw->wake_W * pw->wake_total_s;
}

double disk_seed_unit(uint64_t seed)
{
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

int disk_heap_pop_due(struct disk_heap *h, double now_s, struct disk_io *done,
                      struct disk_stats *counts)
{
  struct disk_heap_ent e;
  if (disk_heap_min_s(h) > now_s || !disk_heap_pop(h, &e))
    return 0;
  *done = e.io;
  if (e.io.discard) {
    counts->discards++;
    counts->discard_bytes += e.io.len_bytes;
  } else if (e.io.write) {
    counts->writes++;
    counts->write_bytes += e.io.len_bytes;
  } else {
    counts->reads++;
    counts->read_bytes += e.io.len_bytes;
  }
  return 1;
}
