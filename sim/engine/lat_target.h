/* lat_target.h - fio's latency_target queue-depth search (fio io_u.c
 * lat_target_*), as plain state a job's completions drive.
 *
 * The job starts at depth 1.  Each latency_window, the share of its
 * completions at or under latency_target decides: at or above
 * latency_percentile the depth doubles (or, once a depth has failed,
 * bisects towards it); below it the depth bisects down towards the last
 * good one, after the I/O in flight drains (io_u_quiesce).  When a
 * successful window leaves the depth unchanged, fio runs one more window
 * at that depth and ends the job (unless latency_run keeps searching). */
#ifndef NASTWIN_LAT_TARGET_H
#define NASTWIN_LAT_TARGET_H

#include <stdint.h>

struct job;

struct lat_target {
  int on;                 /* the job has a latency_target */
  int qd, qd_low, qd_high; /* fio's latency_qd, _low, _high */
  int iodepth;            /* the job's iodepth, the ceiling */
  int quiesce;            /* draining the I/O in flight before a new window */
  int end_run;            /* the final window at the found depth is running */
  double window_start_s;
  uint64_t ios, failed;   /* completions in the window, those over the target */
};

/* Set up for job sp with outstanding limit iodepth at time now_s. */
void lat_target_init(struct lat_target *t, const struct job *sp, int iodepth, double now_s);
/* The outstanding limit now: iodepth without a target, 0 while draining. */
int lat_target_depth(const struct lat_target *t, int iodepth);
/* One completion of latency lat_s at now_s, outstanding still in flight;
 * 1 when the search is done and the job ends (fio td->done). */
int lat_target_complete(struct lat_target *t, const struct job *sp, double now_s, double lat_s, int outstanding);

#endif
