/* flow.h - the fluid network model of the client<->NAS transfers.
 *
 * It computes exactly what SimGrid 3.32's CM02 network model does for the
 * routes of this platform (network/model CM02, crosstraffic off), without
 * SimGrid's LMM solver, whose cost with one NAS port shared by every
 * client flow grew as the cube of the client count:
 *
 *   - a flow of S bytes first pays its route's latency (CM02: latency
 *     factor 1), taking no bandwidth meanwhile;
 *   - it then shares bandwidth max-min fairly with the other flows of
 *     every constraint it crosses (each direction of a full-duplex link is
 *     a constraint of its own, a shared switch backplane one for both),
 *     weighted: its rate is the level of its bottleneck over its weight,
 *     CM02's sharing penalty = its route latency (weight-S 0), 1 when the
 *     latency is 0;
 *   - its rate is bounded by its bound: the slowest link of its route and
 *     TCP-gamma / (2 x route latency);
 *   - it ends when S bytes are through (a 0-byte flow at the end of its
 *     latency).
 *
 * Only the constraints whose flow set changed are re-solved, with the
 * flows they are connected to (progressive filling over that component);
 * events (latency paid, flow done) sit in one heap, ties the last started
 * first (as SimGrid).  A flow alone on its constraints from its start has
 * its end as its only event, and a latency paid with nothing else due is
 * not an event of its own (flow.c); flow_next_s is then the next end.
 *
 * A component of at least 64 flows whose solve fixes them all at one
 * constraint's level (no other constraint's level or bound reached)
 * becomes a star: its flows run at level / weight, each flow's end a fixed
 * amount of that constraint's cumulative per-weight service, so a start
 * or end costs O(log flows) rather than a re-solve of them all (the same
 * max-min rates; the ends then differ from the re-solve's in the last
 * bits: the re-solve brings every flow's remaining bytes up to date at
 * each event, a star only its service).  It is re-solved as usual once
 * another constraint or a bound would be reached, or below 32 flows. */
#ifndef NASTWIN_FLOW_H
#define NASTWIN_FLOW_H

#define FLOW_MAX_CONS 4 /* constraints a flow crosses at most */

struct flow_net;

/* A model with ncons constraints, all of capacity 0 until set; NULL out of memory. */
struct flow_net *flow_net_create(int ncons);
void flow_net_destroy(struct flow_net *n);
/* Components of at least min_flows flows on one bottleneck become stars
 * (default 64; 0: never): for tests, which compare both forms. */
void flow_net_stars(struct flow_net *n, int min_flows);
/* Constraint j carries at most cap bytes/s over all its flows. */
void flow_cons_set(struct flow_net *n, int j, double cap);

/* Start a flow of `bytes` at now over constraints cons[0..ncons-1]
 * (shared ones; latency-only links are not constraints), paying
 * latency_s first, weight and bound as above (bound <= 0: none).  tag
 * comes back to done() when it ends.  0, or -1 out of memory. */
int flow_start(struct flow_net *n, double now, double bytes, const int *cons, int ncons, double latency_s,
               double weight, double bound, void *tag);

/* Time of the next event (INFINITY: none). */
double flow_next_s(const struct flow_net *n);

/* Process every event at or before now: flows whose latency is paid start
 * sharing, flows through end; then done(ctx, tag) for each ended flow,
 * in end time, ties the last started first.  done may start flows.  0, or
 * -1 out of memory (the model is then unusable). */
int flow_advance(struct flow_net *n, double now, void (*done)(void *ctx, void *tag), void *ctx);

/* The current rate of the flow started with tag (bytes/s; 0 while it pays
 * its latency, unless it is alone on its constraints: its rate once paid;
 * -1 if not in flight): for tests. */
double flow_rate_of(const struct flow_net *n, const void *tag);

/* Stars in the model now: for tests. */
int flow_stars(const struct flow_net *n);

#endif
