#include "sim/study/runpool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int runpool_cpus(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

struct runpool_child {
  pid_t pid;
  int task;
  int fd_res, fd_err;
  size_t got;
  char err_tail[400];
  size_t err_len;
  double start_s;
};

static double runpool_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int runpool_spawn(struct runpool_child *c, int task, runpool_fn fn, void *ctx,
                         struct run_result *results)
{
  int pr[2], pe[2];
  if (pipe(pr) < 0)
    return -1;
  if (pipe(pe) < 0) {
    close(pr[0]);
    close(pr[1]);
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(pr[0]);
    close(pr[1]);
    close(pe[0]);
    close(pe[1]);
    return -1;
  }
  if (pid == 0) {
    close(pr[0]);
    close(pe[0]);
    dup2(pe[1], 2);
    close(pe[1]);
    /* The child never writes to the parent's stdout. */
    if (!freopen("/dev/null", "w", stdout))
      _exit(3);
    struct run_result *r = calloc(1, sizeof *r);
    if (!r)
      _exit(4);
    fn(ctx, task, r);
    const char *p = (const char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
      ssize_t w = write(pr[1], p, left);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        _exit(5);
      p += w;
      left -= (size_t)w;
    }
    free(r);
    _exit(0);
  }
  close(pr[1]);
  close(pe[1]);
  memset(c, 0, sizeof *c);
  c->pid = pid;
  c->task = task;
  c->fd_res = pr[0];
  c->fd_err = pe[0];
  c->start_s = runpool_now();
  memset(&results[task], 0, sizeof results[task]);
  return 0;
}

/* The pool's own progress bar: on stderr when it is a terminal, once the
 * pool has run RUNPOOL_METER_AFTER_S of wall time, redrawn at most every
 * RUNPOOL_METER_EVERY_S; the line is erased when the pool ends, so what
 * follows starts clean.  Nothing at all when stderr is not a terminal. */
#define RUNPOOL_METER_AFTER_S 2.0
#define RUNPOOL_METER_EVERY_S 0.25
#define RUNPOOL_METER_WIDTH 30

struct runpool_meter {
  int on, drawn;
  double start_s, last_s;
};

void runpool_no_progress(void *ctx, int done, int total)
{
  (void)ctx;
  (void)done;
  (void)total;
}

/* Format the bar line for done of total finished (running in flight)
 * after elapsed_s: "[###...] 3/10 simulations, 14 s elapsed, ETA 30 s". */
void runpool_meter_line(int done, int total, int running, double elapsed_s, char *buf, size_t len)
{
  char bar[RUNPOOL_METER_WIDTH + 1];
  int fill = total > 0 ? (int)((long)done * RUNPOOL_METER_WIDTH / total) : 0;
  for (int i = 0; i < RUNPOOL_METER_WIDTH; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[RUNPOOL_METER_WIDTH] = '\0';
  if (done > 0)
    snprintf(buf, len, "[%s] %d/%d simulations, %.0f s elapsed, ETA %.0f s", bar, done, total, elapsed_s,
             elapsed_s / done * (total - done));
  else
    snprintf(buf, len, "[%s] %d/%d simulations, %d running, %.0f s elapsed, ETA after the first", bar, done,
             total, running, elapsed_s);
}

static void runpool_meter_tick(struct runpool_meter *m, int done, int total, int running, double now_s)
{
  if (!m->on || now_s - m->start_s < RUNPOOL_METER_AFTER_S || now_s - m->last_s < RUNPOOL_METER_EVERY_S)
    return;
  char line[160];
  runpool_meter_line(done, total, running, now_s - m->start_s, line, sizeof line);
  fprintf(stderr, "\r%s\033[K", line);
  fflush(stderr);
  m->drawn = 1;
  m->last_s = now_s;
}

static void runpool_meter_end(struct runpool_meter *m)
{
  if (m->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
}

static void runpool_fail(struct run_result *r, const char *why, const struct runpool_child *c)
{
  r->failed = 1;
  snprintf(r->failure, sizeof r->failure, "%s%s%.*s", why, c->err_len ? "; stderr: " : "",
           (int)c->err_len, c->err_tail);
}

/* Reap a child whose pipes are closed; classify the outcome. */
static void runpool_reap(struct runpool_child *c, struct run_result *results, int killed)
{
  int status = 0;
  while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
    ;
  struct run_result *r = &results[c->task];
  char why[128];
  if (killed)
    runpool_fail(r, "timed out", c);
  else if (WIFSIGNALED(status)) {
    snprintf(why, sizeof why, "simulation crashed (signal %d)", WTERMSIG(status));
    runpool_fail(r, why, c);
  } else if (c->got != sizeof *r) {
    snprintf(why, sizeof why, "simulation exited with status %d without a result",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    runpool_fail(r, why, c);
  }
  c->pid = 0;
}

int runpool_run(int ntasks, int njobs, double timeout_s, runpool_fn fn, void *ctx,
                struct run_result *results, void (*progress)(void *ctx, int done, int total))
{
  if (njobs < 1)
    njobs = runpool_cpus();
  if (njobs > 64)
    njobs = 64;
  struct runpool_child kids[64];
  memset(kids, 0, sizeof kids);
  struct runpool_meter meter = {.on = !progress && isatty(STDERR_FILENO), .start_s = runpool_now()};
  int next = 0, running = 0, done = 0, failed = 0;
  while (done < ntasks) {
    while (running < njobs && next < ntasks) {
      int slot = 0;
      while (kids[slot].pid)
        slot++;
      if (runpool_spawn(&kids[slot], next, fn, ctx, results) < 0) {
        memset(&results[next], 0, sizeof results[next]);
        results[next].failed = 1;
        snprintf(results[next].failure, sizeof results[next].failure, "cannot fork: %s",
                 strerror(errno));
        next++;
        done++;
        failed++;
        continue;
      }
      next++;
      running++;
    }
    if (running == 0)
      continue;
    struct pollfd fds[128];
    int owner[128], n = 0;
    for (int i = 0; i < njobs; i++) {
      if (!kids[i].pid)
        continue;
      if (kids[i].fd_res >= 0) {
        fds[n] = (struct pollfd){.fd = kids[i].fd_res, .events = POLLIN};
        owner[n++] = i;
      }
      if (kids[i].fd_err >= 0) {
        fds[n] = (struct pollfd){.fd = kids[i].fd_err, .events = POLLIN};
        owner[n++] = i;
      }
    }
    int rc = poll(fds, (nfds_t)n, 200);
    if (rc < 0 && errno != EINTR)
      break;
    for (int k = 0; k < n && rc > 0; k++) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      struct runpool_child *c = &kids[owner[k]];
      if (fds[k].fd == c->fd_res) {
        char *dst = (char *)&results[c->task] + c->got;
        ssize_t r = read(c->fd_res, dst, sizeof results[c->task] - c->got);
        if (r > 0)
          c->got += (size_t)r;
        if (r <= 0 || c->got == sizeof results[c->task]) {
          if (r <= 0) {
            close(c->fd_res);
            c->fd_res = -1;
          }
        }
      } else {
        char buf[512];
        ssize_t r = read(c->fd_err, buf, sizeof buf);
        if (r > 0) {
          /* keep the tail */
          size_t keep = sizeof c->err_tail - 1;
          for (ssize_t i = 0; i < r; i++) {
            if (c->err_len == keep) {
              memmove(c->err_tail, c->err_tail + 1, keep - 1);
              c->err_len--;
            }
            c->err_tail[c->err_len++] = buf[i] == '\n' ? ' ' : buf[i];
          }
        } else {
          close(c->fd_err);
          c->fd_err = -1;
        }
      }
    }
    double now = runpool_now();
    for (int i = 0; i < njobs; i++) {
      struct runpool_child *c = &kids[i];
      if (!c->pid)
        continue;
      int killed = 0;
      if (timeout_s > 0 && now - c->start_s > timeout_s && (c->fd_res >= 0 || c->fd_err >= 0)) {
        kill(c->pid, SIGKILL);
        killed = 1;
      }
      if (killed || (c->fd_res < 0 && c->fd_err < 0)) {
        if (c->fd_res >= 0)
          close(c->fd_res);
        if (c->fd_err >= 0)
          close(c->fd_err);
        c->fd_res = c->fd_err = -1;
        runpool_reap(c, results, killed);
        running--;
        done++;
        if (results[c->task].failed)
          failed++;
        if (progress)
          progress(ctx, done, ntasks);
      }
    }
    runpool_meter_tick(&meter, done, ntasks, running, now);
  }
  runpool_meter_end(&meter);
  return failed;
}
