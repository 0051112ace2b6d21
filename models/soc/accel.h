/* accel.h - a hardware offload engine (crypto block, XOR/RAID-6 DMA engine).
 *
 * `queues` FIFO servers (the engine's DMA queues, each with its own data
 * path), each with a fixed per-submission setup time and a byte rate: a
 * submission of n bytes to a queue at t starts at max(t, the queue's
 * busy_until) and finishes setup_s + n / rate later.  accel_init makes a
 * one-queue engine (the parity engine, the memory bus); the crypto engine
 * sets its queue count (accel_set_queues).  Pure C; used by the storage
 * stack for parity and encryption when the SoC has the engine. */
#ifndef NASTWIN_ACCEL_H
#define NASTWIN_ACCEL_H

#include <stdint.h>

#define ACCEL_MAX_QUEUES 8

struct accel {
  char name[32];
  double rate_bytes_per_s; /* > 0, per queue */
  double setup_s;          /* per submission, >= 0 */
  int queues;              /* 1..ACCEL_MAX_QUEUES */
  double busy_until_s[ACCEL_MAX_QUEUES];
  double q_busy_s[ACCEL_MAX_QUEUES]; /* accumulated service time per queue */
  double busy_s;           /* accumulated service time, all queues */
  uint64_t jobs;           /* submissions */
  double bytes;
};

/* Initialise a one-queue engine (rate > 0). */
void accel_init(struct accel *a, const char *name, double rate_bytes_per_s, double setup_s);

/* Queue count (clamped to 1..ACCEL_MAX_QUEUES); call before the first job. */
void accel_set_queues(struct accel *a, int queues);

/* The queue that frees first (the lowest on ties). */
int accel_free_queue(const struct accel *a);

/* One submission of `bytes` at now_s to the queue that frees first (the
 * lowest on ties); returns its completion time (s). */
double accel_submit(struct accel *a, double now_s, double bytes);

/* Independent jobs queued together (a reader's requests in flight): the
 * bytes are spread evenly over all queues, one submission per queue;
 * returns when the last part completes. */
double accel_submit_spread(struct accel *a, double now_s, double bytes);

/* A synchronous submitter on queue q: ceil(bytes / job_bytes) jobs one
 * after another, each its own submission (setup) -- the caller waits for
 * each before it submits the next.  Returns when the last completes. */
double accel_submit_chain(struct accel *a, int q, double now_s, double bytes, double job_bytes);

/* Busy fraction over [0, now_s] of the busiest queue (with balanced
 * queues the mean; a submitter bound to one queue is bound when it is). */
double accel_utilization(const struct accel *a, double now_s);

#endif
