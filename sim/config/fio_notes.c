/* fio_notes.c - the notes a fio job file's run prints once: its
 * warnings (each line once per process: a calibrated run loads the
 * scenario twice, to learn its fit parameters and then with them) and
 * what the scenario's time cap leaves out. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sim/config/fio_lang.h"
#include "sim/config/workload.h"

static pthread_mutex_t fio_said_lock = PTHREAD_MUTEX_INITIALIZER;
static char *fio_said; /* every line printed so far, '\n'-separated */
static size_t fio_said_len, fio_said_cap;

void fio_print_warnings(FILE *out, const char *warnings)
{
  if (!warnings)
    return;
  pthread_mutex_lock(&fio_said_lock);
  for (const char *p = warnings; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char line[FIO_LINE_MAX + 1200];
    snprintf(line, sizeof line, "\n%.*s\n", (int)(n < sizeof line - 3 ? n : sizeof line - 3), p);
    if (n && !(fio_said && strstr(fio_said, line))) {
      fprintf(out, "%s", line + 1);
      if (!fio_said_len)
        fio_append(&fio_said, &fio_said_len, &fio_said_cap, "\n");
      fio_append(&fio_said, &fio_said_len, &fio_said_cap, line + 1); /* out of memory: said again */
    }
    p += n + (nl ? 1 : 0);
  }
  pthread_mutex_unlock(&fio_said_lock);
}

/* Names of the jobs of w that sel picks, "a, b, ..." into buf; how many. */
static int fio_jobs_where(const struct workload *w, double time_s, int longer, char *buf, size_t n)
{
  int count = 0;
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < w->nsteps; i++) {
    for (int k = 0; k < w->steps[i].njobs; k++) {
      const struct job *j = &w->steps[i].jobs[k];
      int pick = longer ? j->runtime_s > time_s : j->runtime_s <= 0 && !j->time_based;
      if (j->prep || !pick)
        continue;
      if (count++ < 8 && len + strlen(j->name) + 4 < n)
        len += (size_t)snprintf(buf + len, n - len, "%s'%s'", len ? ", " : "", j->name);
      else if (count == 9 && len + 6 < n)
        len += (size_t)snprintf(buf + len, n - len, ", ...");
    }
  }
  return count;
}

void fio_note_time_cap(FILE *out, const char *file, const struct workload *w, double time_s)
{
  char names[600], note[1200];
  double longest = 0.0;
  for (int i = 0; i < w->nsteps; i++)
    for (int k = 0; k < w->steps[i].njobs; k++)
      longest = fmax(longest, w->steps[i].jobs[k].runtime_s);
  int n = fio_jobs_where(w, time_s, 1, names, sizeof names);
  if (n) {
    snprintf(note, sizeof note,
             "%s: note: %d job(s) (%s) have a runtime up to %g s; nastwin simulates at most %g s of each (the "
             "scenario's time; --time %gs simulates all of it, about %.0f times this run's wall time)\n",
             file, n, names, longest, time_s, longest, ceil(longest / time_s));
    fio_print_warnings(out, note);
  }
  n = fio_jobs_where(w, time_s, 0, names, sizeof names);
  if (n) {
    snprintf(note, sizeof note,
             "%s: note: %d job(s) (%s) have no runtime and run until their size is done, as in fio; nastwin "
             "stops them at %g s (the scenario's time, --time for longer) if they are not done by then\n",
             file, n, names, time_s);
    fio_print_warnings(out, note);
  }
}
