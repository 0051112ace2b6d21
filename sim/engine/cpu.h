/* cpu.h - the processor-sharing model of the NAS cores.
 *
 * It computes what SimGrid 3.32's CPU model (Cas01, lazy updates) does
 * for the executions of one host, without SimGrid's LMM solver, which
 * re-solved the host's constraint with every concurrent daemon execution
 * at each start and end:
 *
 *   - a host of N cores of `speed` cycles/s is one constraint of
 *     capacity N x speed; an execution of priority p shares it max-min
 *     fairly with the others, weighted by p (its rate is the level over
 *     its sharing penalty 1/p), capped at one core (speed);
 *   - at each start or end every running execution's remaining cycles
 *     are brought up to date at its previous rate and its end date is
 *     re-computed (now + remaining / rate), as SimGrid's lazy update;
 *   - an execution due within 1 ns of now ends now (SimGrid's timing
 *     precision), due ones end in date order, ties the last started
 *     instant first and, within one instant, the first started first
 *     (measured);
 *   - the host's energy is SimGrid's host energy plugin's for
 *     wattage_per_state "idle:epsilon:max": idle W while nothing runs,
 *     else epsilon + load x (max - epsilon), load = the summed rates
 *     over N x speed, integrated between changes. */
#ifndef NASTWIN_CPU_H
#define NASTWIN_CPU_H

struct cpu_host;

/* A host of cores x speed cycles/s drawing idle_W, eps_W, max_W as above;
 * NULL out of memory. */
struct cpu_host *cpu_host_create(int cores, double speed, double idle_W, double eps_W, double max_W);
void cpu_host_destroy(struct cpu_host *h);

/* Start executing `cycles` at now with priority (> 0; 1: a process);
 * tag comes back to done() when it ends.  0, or -1 out of memory. */
int cpu_start(struct cpu_host *h, double now, double cycles, double priority, void *tag);

/* Time of the next end (INFINITY: none). */
double cpu_next_s(const struct cpu_host *h);

/* The tag of an execution ending at cpu_next_s (NULL: none). */
void *cpu_next_tag(const struct cpu_host *h);

/* 1 while every running execution has a core of its own (at most one per
 * core): each runs at full speed, so an end speeds no other up. */
int cpu_uncontended(const struct cpu_host *h);

/* The end of the execution started with tag if nothing changes (s; -1
 * if not running). */
double cpu_end_of(const struct cpu_host *h, const void *tag);

/* End every execution due at now (within 1 ns), then done(ctx, tag) for
 * each in the order above.  done may start executions.  0, or -1 out of
 * memory. */
int cpu_advance(struct cpu_host *h, double now, void (*done)(void *ctx, void *tag), void *ctx);

/* Energy drawn from creation to now (J; now >= the last start or end). */
double cpu_energy_J(const struct cpu_host *h, double now);

/* The current rate of the execution started with tag (cycles/s, -1 if
 * not running): for tests. */
double cpu_rate_of(const struct cpu_host *h, const void *tag);

#endif
