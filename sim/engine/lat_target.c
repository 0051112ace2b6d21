/* lat_target.c - fio's latency_target queue-depth search (lat_target.h). */
#include "sim/engine/lat_target.h"

#include "sim/config/workload.h"

void lat_target_init(struct lat_target *t, const struct job *sp, int iodepth, double now_s)
{
  *t = (struct lat_target){.on = sp->lat_target_s > 0.0, .qd = 1, .qd_low = 1, .qd_high = iodepth,
                           .iodepth = iodepth, .window_start_s = now_s};
}

int lat_target_depth(const struct lat_target *t, int iodepth)
{
  if (!t->on)
    return iodepth;
  return t->quiesce ? 0 : t->qd;
}

static void lat_new_cycle(struct lat_target *t, double now_s)
{
  t->window_start_s = now_s;
  t->ios = t->failed = 0;
}

/* fio lat_target_success: 1 when the job is done. */
static int lat_success(struct lat_target *t, const struct job *sp)
{
  int qd = t->qd;
  t->qd_low = t->qd;
  if (t->qd_high != t->iodepth)
    t->qd = (t->qd + t->qd_high) / 2;
  else
    t->qd *= 2;
  if (t->qd > t->iodepth)
    t->qd = t->iodepth;
  if (!sp->lat_run && t->qd == qd) {
    if (t->end_run)
      return 1;
    t->end_run = 1; /* fio quiesces and runs one more window at this depth */
    t->quiesce = 1;
  }
  return 0;
}

/* fio __lat_target_failed. */
static void lat_failed(struct lat_target *t)
{
  if (t->qd == 1)
    return;
  t->qd_high = t->qd;
  if (t->qd == t->qd_low)
    t->qd_low--;
  t->qd = (t->qd + t->qd_low) / 2;
  t->quiesce = 1;
}

int lat_target_complete(struct lat_target *t, const struct job *sp, double now_s, double lat_s, int outstanding)
{
  if (!t->on)
    return 0;
  int done = 0;
  if (!t->quiesce) {
    t->ios++;
    if (lat_s > sp->lat_target_s && sp->lat_pct >= 100.0) { /* fio: one miss fails the depth at once */
      lat_failed(t);
      lat_new_cycle(t, now_s);
    } else {
      t->failed += lat_s > sp->lat_target_s;
      if (now_s - t->window_start_s >= sp->lat_window_s) {
        double success = 100.0 * (double)(t->ios - t->failed) / (double)t->ios;
        if (success >= sp->lat_pct)
          done = lat_success(t, sp);
        else
          lat_failed(t);
        lat_new_cycle(t, now_s);
      }
    }
  }
  if (t->quiesce && outstanding == 0) { /* fio io_u_quiesce: the window starts once the I/O in flight is done */
    t->quiesce = 0;
    lat_new_cycle(t, now_s);
  }
  return done;
}
