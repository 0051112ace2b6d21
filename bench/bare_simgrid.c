/* bare_simgrid - the ceiling of any SimGrid design here: N closed-loop
 * clients, each sends a request to its own server actor, which executes a
 * fixed amount of work and replies.  Usage: bare_simgrid CLIENTS
 * SIM_SECONDS [REQUESTS]: the clients stop at SIM_SECONDS or once REQUESTS
 * have completed in all (bench/run pairs a scenario with the same number
 * of requests, so both pay the process start-up once for the same work).
 * Prints "requests=R sim_s=S wall_s=W req_per_wall_s=X". */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct bare_ctx {
  double end_s;
  long done, max; /* max: stop after this many requests (0: no limit) */
};

static struct bare_ctx *bare_ctx_get(void)
{
  static struct bare_ctx c; /* one simulation per process */
  return &c;
}

static void bare_server(int argc, char **argv)
{
  (void)argc;
  sg_actor_daemonize(sg_actor_self());
  sg_mailbox_t in = sg_mailbox_by_name(argv[1]);
  sg_mailbox_t out = sg_mailbox_by_name(argv[2]);
  for (;;) {
    void *req = sg_mailbox_get(in);
    sg_actor_execute(1e5);
    sg_mailbox_put(out, req, 0);
  }
}

static void bare_client(int argc, char **argv)
{
  (void)argc;
  sg_mailbox_t in = sg_mailbox_by_name(argv[2]);
  sg_mailbox_t out = sg_mailbox_by_name(argv[1]);
  struct bare_ctx *c = bare_ctx_get();
  static int token;
  while (simgrid_get_clock() < c->end_s && (c->max == 0 || c->done < c->max)) {
    sg_mailbox_put(out, &token, 0);
    sg_mailbox_get(in);
    c->done++;
  }
}

static double bare_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  int nclients = argc > 1 ? atoi(argv[1]) : 1;
  double sim_s = argc > 2 ? atof(argv[2]) : 10.0;
  long max = argc > 3 ? atol(argv[3]) : 0;
  if (nclients < 1 || sim_s <= 0 || max < 0) {
    fprintf(stderr, "usage: bare_simgrid CLIENTS SIM_SECONDS [REQUESTS]\n");
    return 2;
  }
  char tmpl[] = "/tmp/bare-simgrid-XXXXXX";
  int fd = mkstemp(tmpl);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
             "<host id=\"nas\" speed=\"1e9f\" core=\"4\"/><host id=\"cli\" speed=\"1e9f\"/>\n"
             "<link id=\"l\" bandwidth=\"1.25GBps\" latency=\"20us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
             "<route src=\"cli\" dst=\"nas\" symmetrical=\"NO\"><link_ctn id=\"l\" direction=\"UP\"/></route>\n"
             "<route src=\"nas\" dst=\"cli\" symmetrical=\"NO\"><link_ctn id=\"l\" direction=\"DOWN\"/></route>\n"
             "</zone></platform>\n");
  fclose(f);
  char *fake[] = {argv[0], "--log=root.thres:critical", NULL};
  simgrid_init(&(int){2}, fake);
  simgrid_load_platform(tmpl);
  unlink(tmpl);
  bare_ctx_get()->end_s = sim_s;
  bare_ctx_get()->max = max;
  sg_host_t nas = sg_host_by_name("nas"), cli = sg_host_by_name("cli");
  for (int i = 0; i < nclients; i++) {
    char req[32], rep[32], name[32];
    snprintf(req, sizeof req, "req%d", i);
    snprintf(rep, sizeof rep, "rep%d", i);
    char *a[] = {name, req, rep, NULL};
    snprintf(name, sizeof name, "srv%d", i);
    sg_actor_create(name, nas, bare_server, 3, a);
    snprintf(name, sizeof name, "cli%d", i);
    sg_actor_create(name, cli, bare_client, 3, a);
  }
  double t0 = bare_now_s();
  simgrid_run();
  double wall = bare_now_s() - t0;
  long r = bare_ctx_get()->done;
  printf("requests=%ld sim_s=%g wall_s=%.3f req_per_wall_s=%.0f\n", r, simgrid_get_clock(), wall,
         (double)r / wall);
  return 0;
}
