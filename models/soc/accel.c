#include "models/soc/accel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void accel_init(struct accel *a, const char *name, double rate_bytes_per_s, double setup_s)
{
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "%s", name);
  a->rate_bytes_per_s = rate_bytes_per_s;
  a->setup_s = setup_s;
  a->queues = 1;
}

void accel_set_queues(struct accel *a, int queues)
{
  a->queues = queues < 1 ? 1 : queues > ACCEL_MAX_QUEUES ? ACCEL_MAX_QUEUES : queues;
}

/* `jobs` submissions totalling `bytes`, back to back on queue q */
static double accel_run(struct accel *a, int q, double now_s, double bytes, double jobs)
{
  double start = now_s > a->busy_until_s[q] ? now_s : a->busy_until_s[q];
  double service = jobs * a->setup_s + bytes / a->rate_bytes_per_s;
  a->busy_until_s[q] = start + service;
  a->q_busy_s[q] += service;
  a->busy_s += service;
  a->jobs += (uint64_t)jobs;
  a->bytes += bytes;
  return a->busy_until_s[q];
}

int accel_free_queue(const struct accel *a)
{
  int q = 0;
  for (int i = 1; i < a->queues; i++)
    if (a->busy_until_s[i] < a->busy_until_s[q])
      q = i;
  return q;
}

double accel_submit(struct accel *a, double now_s, double bytes)
{
  return accel_run(a, accel_free_queue(a), now_s, bytes, 1);
}

double accel_submit_spread(struct accel *a, double now_s, double bytes)
{
  double done = now_s;
  for (int q = 0; q < a->queues; q++)
    done = fmax(done, accel_run(a, q, now_s, bytes / a->queues, 1));
  return done;
}

double accel_submit_chain(struct accel *a, int q, double now_s, double bytes, double job_bytes)
{
  double jobs = job_bytes > 0 ? ceil(bytes / job_bytes) : 1;
  if (q < 0 || q >= a->queues)
    q = 0;
  return accel_run(a, q, now_s, bytes, jobs < 1 ? 1 : jobs);
}

double accel_utilization(const struct accel *a, double now_s)
{
  if (now_s <= 0.0)
    return 0.0;
  double u = 0.0;
  for (int q = 0; q < a->queues; q++) {
    /* Work queued past now_s is not yet done: count only what was served. */
    double backlog = a->busy_until_s[q] > now_s ? a->busy_until_s[q] - now_s : 0.0;
    u = fmax(u, (a->q_busy_s[q] - backlog) / now_s);
  }
  return u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
}
