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
 * Divide by the run's client I/Os for the waits per I/O (bench/README.md).
 * With NASTWIN_WAITS_BY_ACTOR set it adds a line per kind of waiting actor
 * (its name with the digits taken out: "smbd" for smbd0..smbdN), the
 * kind's count of all four. */
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

#define WAITS_KINDS 64
static struct {
  char name[48];
  unsigned long long n;
} waits_kind[WAITS_KINDS];

/* One more wait of the calling actor's kind (the last slot takes the rest). */
static void waits_by_actor(void)
{
  sg_actor_t self = sg_actor_self();
  const char *full = self ? sg_actor_get_name(self) : "maestro";
  char name[48];
  size_t k = 0;
  for (const char *c = full; *c && k + 1 < sizeof name; c++)
    if (*c < '0' || *c > '9')
      name[k++] = *c;
  name[k] = 0;
  int i = 0;
  while (i < WAITS_KINDS - 1 && waits_kind[i].name[0] && strcmp(waits_kind[i].name, name) != 0)
    i++;
  if (!waits_kind[i].name[0])
    snprintf(waits_kind[i].name, sizeof waits_kind[i].name, "%s", i < WAITS_KINDS - 1 ? name : "(others)");
  waits_kind[i].n++;
}

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
  waits_by_actor();
  real(sem);
}

int sg_sem_acquire_timeout(sg_sem_t sem, double timeout)
{
  static int (*real)(sg_sem_t, double);
  if (!real)
    waits_real("sg_sem_acquire_timeout", &real, sizeof real);
  waits_count.acquire_timeout++;
  waits_by_actor();
  return real(sem, timeout);
}

void sg_actor_sleep_for(double duration)
{
  static void (*real)(double);
  if (!real)
    waits_real("sg_actor_sleep_for", &real, sizeof real);
  waits_count.sleep++;
  waits_by_actor();
  real(duration);
}

void sg_actor_sleep_until(double wakeup_time)
{
  static void (*real)(double);
  if (!real)
    waits_real("sg_actor_sleep_until", &real, sizeof real);
  waits_count.sleep++;
  waits_by_actor();
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
      for (int i = 0; getenv("NASTWIN_WAITS_BY_ACTOR") && i < WAITS_KINDS && waits_kind[i].name[0]; i++)
        fprintf(f, "  %s %llu\n", waits_kind[i].name, waits_kind[i].n);
      fclose(f);
    }
  }
  real(status);
  abort(); /* not reached */
}
