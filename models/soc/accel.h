/* accel.h - a hardware offload engine (crypto block, XOR/RAID-6 DMA engine).
 *
 * A FIFO server with a fixed per-job setup time and a byte rate: a job of
 * n bytes submitted at t starts at max(t, busy_until) and finishes
 * setup_s + n / rate later.  Pure C; used by the storage stack for parity
 * and encryption when the SoC has the engine. */
#ifndef NASTWIN_ACCEL_H
#define NASTWIN_ACCEL_H

#include <stdint.h>

struct accel {
  char name[32];
  double rate_bytes_per_s; /* > 0 */
  double setup_s;          /* per job, >= 0 */
  double busy_until_s;
  double busy_s;           /* accumulated service time */
  uint64_t jobs;
  double bytes;
};

/* Initialise an engine (rate > 0). */
void accel_init(struct accel *a, const char *name, double rate_bytes_per_s, double setup_s);

/* Queue a job of `bytes` at now_s; returns its completion time (s). */
double accel_submit(struct accel *a, double now_s, double bytes);

/* Busy fraction over [0, now_s]. */
double accel_utilization(const struct accel *a, double now_s);

#endif
