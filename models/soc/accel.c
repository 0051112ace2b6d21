#include "models/soc/accel.h"

#include <stdio.h>

void accel_init(struct accel *a, const char *name, double rate_bytes_per_s, double setup_s)
{
  snprintf(a->name, sizeof a->name, "%s", name);
  a->rate_bytes_per_s = rate_bytes_per_s;
  a->setup_s = setup_s;
  a->busy_until_s = 0.0;
  a->busy_s = 0.0;
  a->jobs = 0;
  a->bytes = 0.0;
}

double accel_submit(struct accel *a, double now_s, double bytes)
{
  double start = now_s > a->busy_until_s ? now_s : a->busy_until_s;
  double service = a->setup_s + bytes / a->rate_bytes_per_s;
  a->busy_until_s = start + service;
  a->busy_s += service;
  a->jobs++;
  a->bytes += bytes;
  return a->busy_until_s;
}

double accel_utilization(const struct accel *a, double now_s)
{
  if (now_s <= 0.0)
    return 0.0;
  /* Work queued past now_s is not yet done: count only what was served. */
  double backlog = a->busy_until_s > now_s ? a->busy_until_s - now_s : 0.0;
  double u = (a->busy_s - backlog) / now_s;
  return u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
}
