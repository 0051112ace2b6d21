/* workload_build.h - helpers shared by the fio parser and the presets
 * (internal to sim/config/fio.c, sim/config/presets.c, sim/config/workload.c). */
#ifndef NASTWIN_WORKLOAD_BUILD_H
#define NASTWIN_WORKLOAD_BUILD_H

#include <stddef.h>

#include "sim/config/workload.h"

/* Append a zeroed step to w; returns it, or NULL when out of memory.
 * Capacity is implied by nsteps (next power of two): build w->steps only
 * through this function (or free it with workload_free). */
struct workload_step *workload_add_step(struct workload *w);

/* Append a copy of j to step s; -1 when the step already holds STEP_MAX_JOBS. */
int workload_step_add_job(struct workload_step *s, const struct job *j);

/* Set j to one block size (bytes). */
void workload_job_set_bs(struct job *j, double bs_bytes);

/* Print a byte count the way presets name steps: "512B", "4KiB", "1.5MiB", "2GiB". */
char *workload_format_bytes(double bytes, char *buf, size_t len);

/* Metric a step of plain jobs reports: "read_MBps" when its measured jobs
 * only read, "write_MBps" when they only write, "MBps" otherwise (trims). */
const char *workload_default_metric(const struct workload_step *s);

#endif
