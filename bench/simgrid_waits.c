/* simgrid_waits.c - an LD_PRELOAD library that counts the SimGrid waits
 * of a simulation (each one a SimGrid activity and a context switch to
 * maestro and back, even on a released semaphore): semaphore acquires
 * (those on an already released semaphore apart), timed acquires and
 * actor sleeps.  The simulation child writes its counts when it exits
 * (runpool.c ends it with _exit) to the file NASTWIN_WAITS_OUT names:
 *
 *   LD_PRELOAD=build-bench/bench/libsimgrid_waits.so NASTWIN_WAITS_OUT=/tmp/w.txt \
 *     build-bench/nastwin run SCENARIO.yaml -j 1 --no-ci
 *
 * Divide by the run's client I/Os for the waits per I/O (bench/README.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/semaphore.h>

struct waits {
  unsigned long long acquire, acquire_released, acquire_timeout, sleep;
};
static struct waits waits_count; /* one simulation per process: its counts */

/* The next definition of name (the real SimGrid or libc function). */
static void waits_real(const char *name, void *fn, size_t size)
{
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "simgrid_waits: %s not found\n", name);
    abort();
  }
  memcpy(fn, &p, size); /* object to function pointer, as POSIX dlsym allows */
}

void sg_sem_acquire(sg_sem_t sem)
{
  static void (*real)(sg_sem_t);
  if (!real)
    waits_real("sg_sem_acquire", &real, sizeof real);
  if (sg_sem_get_capacity(sem) > 0)
    waits_count.acquire_released++;
  else
    waits_count.acquire++;
  real(sem);
}

int sg_sem_acquire_timeout(sg_sem_t sem, double timeout)
{
  static int (*real)(sg_sem_t, double);
  if (!real)
    waits_real("sg_sem_acquire_timeout", &real, sizeof real);
  waits_count.acquire_timeout++;
  return real(sem, timeout);
}

void sg_actor_sleep_for(double duration)
{
  static void (*real)(double);
  if (!real)
    waits_real("sg_actor_sleep_for", &real, sizeof real);
  waits_count.sleep++;
  real(duration);
}

void sg_actor_sleep_until(double wakeup_time)
{
  static void (*real)(double);
  if (!real)
    waits_real("sg_actor_sleep_until", &real, sizeof real);
  waits_count.sleep++;
  real(wakeup_time);
}

void _exit(int status)
{
  static void (*real)(int);
  if (!real)
    waits_real("_exit", &real, sizeof real);
  const char *path = getenv("NASTWIN_WAITS_OUT");
  const struct waits *w = &waits_count;
  if (path && w->acquire + w->acquire_released + w->acquire_timeout + w->sleep > 0) {
    FILE *f = fopen(path, "a");
    if (f) {
      fprintf(f, "acquire %llu acquire_released %llu acquire_timeout %llu sleep %llu total %llu\n", w->acquire,
              w->acquire_released, w->acquire_timeout, w->sleep,
              w->acquire + w->acquire_released + w->acquire_timeout + w->sleep);
      fclose(f);
    }
  }
  real(status);
  abort(); /* not reached */
}
