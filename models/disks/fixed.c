/* fixed.c - model "fixed": a FIFO device with a per-command latency and a
 * byte rate (read and write separately).
 *
 * An I/O of n bytes submitted at t to an idle device completes at
 * t + latency + n / rate; otherwise it starts when the previous one ends.
 * For teaching and for end-to-end tests checkable by hand. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/disks/disk_impl.h"
#include "models/disks/iface.h"

struct fixed_params {
  double capacity_bytes;
  double latency_s;
  double read_rate_bytes_per_s;
  double write_rate_bytes_per_s;
  double power_idle_W;
  double power_active_W;
};

static const struct param_desc fixed_params_table[] = {
    {.key = "capacity", .dim = UNITS_BYTES, .offset = offsetof(struct fixed_params, capacity_bytes),
     .min = 1e6, .max = 1e15, .help = "capacity (bytes)"},
    {.key = "latency", .dim = UNITS_TIME, .offset = offsetof(struct fixed_params, latency_s),
     .min = 0.0, .max = 1.0, .help = "per-command latency before the transfer (s)"},
    {.key = "read_rate", .dim = UNITS_RATE,
     .offset = offsetof(struct fixed_params, read_rate_bytes_per_s), .min = 1e3, .max = 1e11,
     .help = "read transfer rate (bytes/s)"},
    {.key = "write_rate", .dim = UNITS_RATE,
     .offset = offsetof(struct fixed_params, write_rate_bytes_per_s), .min = 1e3, .max = 1e11,
     .help = "write transfer rate (bytes/s)"},
    {.key = "power_idle", .dim = UNITS_POWER, .offset = offsetof(struct fixed_params, power_idle_W),
     .min = 0.0, .max = 50.0, .optional = 1, .def = 0.0, .help = "power when idle (W)"},
    {.key = "power_active", .dim = UNITS_POWER,
     .offset = offsetof(struct fixed_params, power_active_W), .min = 0.0, .max = 50.0,
     .optional = 1, .def = 0.0, .help = "power while serving a request (W)"},
};

struct fixed {
  struct fixed_params p;
  double busy_until_s;
  struct disk_heap done;
  struct disk_busy busy;
  struct disk_power power;
  struct iface_link *link;
  struct disk_stats counts; /* reads, writes and their bytes */
};

static int fixed_check(const void *params, char *msg, size_t msg_len)
{
  const struct fixed_params *p = params;
  if (p->power_active_W < p->power_idle_W) {
    snprintf(msg, msg_len, "fixed: power_active %g W must be >= power_idle %g W", p->power_active_W,
             p->power_idle_W);
    return -1;
  }
  return 0;
}

static double fixed_capacity_bytes(const void *params)
{
  return ((const struct fixed_params *)params)->capacity_bytes;
}

static void *fixed_create(const void *params, uint64_t seed)
{
  (void)seed; /* deterministic: no randomness */
  struct fixed *f = calloc(1, sizeof *f);
  if (f == NULL)
    return NULL;
  f->p = *(const struct fixed_params *)params;
  disk_heap_init(&f->done);
  f->power.active_W = f->p.power_active_W;
  f->power.idle_W = f->p.power_idle_W;
  return f;
}

static void fixed_destroy(void *priv)
{
  struct fixed *f = priv;
  if (f == NULL)
    return;
  disk_heap_free(&f->done);
  free(f);
}

static void fixed_submit(void *priv, double now_s, const struct disk_io *io)
{
  struct fixed *f = priv;
  double rate = io->write ? f->p.write_rate_bytes_per_s : f->p.read_rate_bytes_per_s;
  double start = now_s > f->busy_until_s ? now_s : f->busy_until_s;
  double end = start + f->p.latency_s + (double)io->len_bytes / rate;
  if (f->link != NULL) { /* the payload also crosses the shared link */
    double link_end = iface_link_transfer(f->link, io->write ? IFACE_TO_DEVICE : IFACE_TO_HOST,
                                          now_s, start + f->p.latency_s, (double)io->len_bytes);
    if (link_end > end)
      end = link_end;
  }
  f->busy_until_s = end;
  disk_busy_add(&f->busy, start, end);
  disk_heap_push(&f->done, end, io);
}

static double fixed_next_completion_s(const void *priv)
{
  return disk_heap_min_s(&((const struct fixed *)priv)->done);
}

static int fixed_pop_completion(void *priv, double now_s, struct disk_io *done)
{
  struct fixed *f = priv;
  return disk_heap_pop_due(&f->done, now_s, done, &f->counts);
}

static void fixed_stats(const void *priv, double now_s, struct disk_stats *out)
{
  const struct fixed *f = priv;
  out->reads = f->counts.reads;
  out->writes = f->counts.writes;
  out->read_bytes = f->counts.read_bytes;
  out->write_bytes = f->counts.write_bytes;
  out->busy_s = disk_busy_at(&f->busy, now_s);
  out->energy_J = disk_power_energy_J(&f->power, now_s, out->busy_s, now_s);
}

static void fixed_attach_link(void *priv, struct iface_link *link)
{
  ((struct fixed *)priv)->link = link;
}

const struct disk_model fixed_model = {
    .name = "fixed",
    .params = fixed_params_table,
    .nparams = PARAM_COUNT(fixed_params_table),
    .params_size = sizeof(struct fixed_params),
    .check = fixed_check,
    .capacity_bytes = fixed_capacity_bytes,
    .create = fixed_create,
    .destroy = fixed_destroy,
    .submit = fixed_submit,
    .next_completion_s = fixed_next_completion_s,
    .pop_completion = fixed_pop_completion,
    .stats = fixed_stats,
    .attach_link = fixed_attach_link,
};
