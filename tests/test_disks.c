/* Device models: fixed FIFO golden times and the registry, shared links,
 * random request streams, and the drive catalogue against the param
 * tables.  HDD mechanics: test_disks_hdd.c; SSD/NVMe: test_disks_flash.c. */
#include <check.h>
#include "ck_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/disks/disk.h"
#include "models/disks/iface.h"
#include "disks_harness.c.inc"

START_TEST(test_fixed_golden)
{
  const struct disk_model *m = disk_model_find("fixed");
  struct pbuf pb;
  init_params(m, &pb);
  set_param(m, &pb, "capacity", 1e12);
  set_param(m, &pb, "latency", 1e-3);
  set_param(m, &pb, "read_rate", 100e6);
  set_param(m, &pb, "write_rate", 50e6);
  set_param(m, &pb, "power_idle", 2.0);
  set_param(m, &pb, "power_active", 5.0);
  struct disk *d = make_disk(m, &pb, 1);
  struct disk_io a = {.offset_bytes = 0, .len_bytes = 1000000, .write = 0, .tag = 1};
  struct disk_io b = {.offset_bytes = 0, .len_bytes = 1000000, .write = 0, .tag = 2};
  struct disk_io c = {.offset_bytes = 0, .len_bytes = 500000, .write = 1, .tag = 3};
  disk_submit(d, 0.5, &a); /* idle: 0.5 + 0.001 + 1e6 / 100e6 = 0.511 */
  disk_submit(d, 0.5, &b); /* FIFO: 0.511 + 0.011 = 0.522 */
  disk_submit(d, 0.5, &c); /* 0.522 + 0.001 + 5e5 / 50e6 = 0.533 */
  const double want[3] = {0.511, 0.522, 0.533};
  for (int i = 0; i < 3; i++) {
    double t = disk_next_completion_s(d);
    ck_assert_msg(fabs(t - want[i]) < 1e-12, "completion %d at %.9f, want %.9f", i, t, want[i]);
    struct disk_io done;
    ck_assert_int_eq(disk_pop_completion(d, t - 1e-9, &done), 0);
    ck_assert_int_eq(disk_pop_completion(d, t, &done), 1);
    ck_assert_msg(done.tag == (uint64_t)i + 1, "popped tag %llu, want %d",
                  (unsigned long long)done.tag, i + 1);
  }
  ck_assert(isinf(disk_next_completion_s(d)));
  struct disk_stats st;
  disk_stats(d, 1.0, &st);
  ck_assert_msg(fabs(st.busy_s - 0.033) < 1e-12, "busy %.9f s, want 0.033", st.busy_s);
  double e = 2.0 * 1.0 + 3.0 * 0.033; /* idle power x time + (active - idle) x busy */
  ck_assert_msg(fabs(st.energy_J - e) < 1e-9, "energy %.9f J, want %.9f", st.energy_J, e);
  ck_assert(st.reads == 2 && st.writes == 1 && st.read_bytes == 2000000 && st.write_bytes == 500000);
  disk_destroy(d);
}
END_TEST

START_TEST(test_registry)
{
  const char *names[] = {"hdd", "sata_ssd", "nvme", "fixed"};
  for (int i = 0; i < 4; i++) {
    const struct disk_model *m = disk_model_find(names[i]);
    ck_assert_msg(m != NULL && strcmp(m->name, names[i]) == 0, "model %s not found", names[i]);
    ck_assert_msg(strstr(disk_model_names(), names[i]) != NULL, "%s missing from names", names[i]);
    for (size_t k = 0; k < m->nparams; k++) {
      const struct param_desc *p = &m->params[k];
      ck_assert_msg(p->min <= p->max, "%s.%s min > max", m->name, p->key);
      ck_assert_msg(!p->optional || p->choices || (p->def >= p->min && p->def <= p->max),
                    "%s.%s default %g outside [%g, %g]", m->name, p->key, p->def, p->min, p->max);
      ck_assert_msg(p->offset + sizeof(double) <= m->params_size, "%s.%s offset", m->name, p->key);
    }
  }
  ck_assert_ptr_null(disk_model_find("tape"));
  ck_assert_ptr_null(disk_model_find(NULL));
  disk_destroy(NULL);
}
END_TEST

/* ---- shared link ---- */

START_TEST(test_iface_shared_link)
{
  ck_assert_ptr_null(iface_link_create("bad", 1e9, 1e9));
  ck_assert_ptr_null(iface_link_create("bad", 0, 0));
  char msg[160];
  ck_assert_int_eq(iface_link_check(1e9, 2e9, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "reserved") != NULL, "message: %s", msg);
  double gen3x4 = 4 * iface_pcie_lane_rate(3), nic = 10e9 / 8;
  struct iface_link *l = iface_link_create("e10m20", gen3x4, nic);
  ck_assert_ptr_nonnull(l);
  struct pbuf pa, pb2;
  struct disk *a = make_flash("nvme", &pa, 3.5e9), *b = make_flash("nvme", &pb2, 3.5e9);
  a->model->attach_link(a->priv, l);
  b->model->attach_link(b->priv, l);
  uint64_t len = 1 << 20, off_a = 0, off_b = 0;
  double now = 0.0;
  int out_a = 0, out_b = 0, done = 0, n = 800;
  int sub = 0;
  while (done < n) {
    while (sub < n && (out_a < 16 || out_b < 16)) {
      struct disk_io io = {.len_bytes = len};
      if (out_a <= out_b) {
        io.offset_bytes = off_a;
        off_a += len;
        disk_submit(a, now, &io);
        out_a++;
      } else {
        io.offset_bytes = off_b;
        off_b += len;
        disk_submit(b, now, &io);
        out_b++;
      }
      sub++;
    }
    double ta = disk_next_completion_s(a), tb = disk_next_completion_s(b);
    now = ta < tb ? ta : tb;
    struct disk_io io;
    while (disk_pop_completion(a, now, &io)) {
      out_a--;
      done++;
    }
    while (disk_pop_completion(b, now, &io)) {
      out_b--;
      done++;
    }
  }
  double rate = (double)n * len / now, cap = gen3x4 - nic;
  ck_assert_msg(rate <= cap * 1.0001 + len / now, "two NVMe %.1f MB/s above link share %.1f",
                rate / 1e6, cap / 1e6);
  ck_assert_msg(rate > 0.9 * cap, "two NVMe %.1f MB/s well below link share %.1f", rate / 1e6,
                cap / 1e6);
  disk_destroy(a);
  disk_destroy(b);
  iface_link_destroy(l);
  iface_link_destroy(NULL);
}
END_TEST

/* ---- random streams ---- */

static void random_stream(struct disk *d, double min_fixed_lat, double min_rate, int fifo,
                          uint64_t seed)
{
  enum { N = 1500 };
  static double submit_at[N];
  static int popped[N];
  memset(popped, 0, sizeof popped);
  uint64_t rs = seed, lens[N];
  double now = 0.0, next_arrival = 0.0, last_done = 0.0;
  int sub = 0, done = 0, loops = 0;
  while (done < N) {
    double tc = disk_next_completion_s(d);
    ck_assert_msg(tc >= now, "next completion %.9f before now %.9f", tc, now);
    if (sub < N && next_arrival <= tc) {
      now = next_arrival;
      lens[sub] = 512ULL << (rng_next(&rs) % 10);
      struct disk_io io = {.offset_bytes = (rng_next(&rs) % 1000000) * 4096,
                           .len_bytes = lens[sub],
                           .write = rng_unit(&rs) < 0.3,
                           .tag = (uint64_t)sub};
      if (rng_unit(&rs) < 0.3 && sub > 0) /* some sequential runs */
        io.offset_bytes = (uint64_t)sub * 65536;
      submit_at[sub] = now;
      disk_submit(d, now, &io);
      sub++;
      next_arrival = now + (rng_unit(&rs) < 0.5 ? 0.0 : rng_unit(&rs) * 4e-3);
    } else {
      now = tc;
      struct disk_io io;
      while (disk_pop_completion(d, now, &io)) {
        ck_assert_msg(io.tag < (uint64_t)sub && !popped[io.tag], "tag %llu popped twice",
                      (unsigned long long)io.tag);
        popped[io.tag] = 1;
        double min_s = min_fixed_lat + (double)lens[io.tag] / min_rate;
        ck_assert_msg(now >= submit_at[io.tag] + min_s - 1e-12,
                      "tag %llu done at %.9f, submitted %.9f, min service %.9f",
                      (unsigned long long)io.tag, now, submit_at[io.tag], min_s);
        if (fifo) {
          ck_assert_msg(now >= last_done, "FIFO completion %.9f before %.9f", now, last_done);
          ck_assert_msg(io.tag == (uint64_t)done, "FIFO popped %llu, want %d",
                        (unsigned long long)io.tag, done);
        }
        last_done = now;
        done++;
      }
    }
    ck_assert_msg(++loops < 20 * N, "stream does not progress");
  }
  ck_assert(isinf(disk_next_completion_s(d)));
}

START_TEST(test_random_streams)
{
  struct pbuf pb;
  const struct disk_model *m = disk_model_find("fixed");
  init_params(m, &pb);
  set_param(m, &pb, "capacity", 1e12);
  set_param(m, &pb, "latency", 2e-4);
  set_param(m, &pb, "read_rate", 200e6);
  set_param(m, &pb, "write_rate", 200e6);
  struct disk *d = make_disk(m, &pb, 1);
  random_stream(d, 2e-4, 200e6, 1, 1);
  disk_destroy(d);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    /* any model: never faster than its host link */
    d = make_hdd(&pb, 150e6, 80e6, 32);
    random_stream(d, 0.0, 600e6, 0, seed);
    disk_destroy(d);
    d = make_flash("sata_ssd", &pb, 550e6);
    random_stream(d, 0.0, 600e6, 0, seed);
    disk_destroy(d);
    d = make_flash("nvme", &pb, 3e9);
    random_stream(d, 0.0, 4 * 8e9 * 128 / 130 / 8, 0, seed);
    disk_destroy(d);
  }
}
END_TEST

/* ---- catalogue ---- */

/* Parse catalog/drives.yaml into a small tree walk: drives -> entry ->
 * model / params -> key -> {value, source, fit: [lo, hi]}. */
struct cat_ctx {
  yaml_parser_t parser;
  int entries;
};

static int cat_next(yaml_parser_t *p, yaml_event_t *ev)
{
  ck_assert_msg(yaml_parser_parse(p, ev), "YAML error in drives.yaml: %s (line %zu)",
                p->problem ? p->problem : "?", p->problem_mark.line + 1);
  return ev->type;
}

/* Read a scalar event (asserting its type). */
static void cat_scalar(yaml_parser_t *p, char *out, size_t len)
{
  yaml_event_t ev;
  cat_next(p, &ev);
  ck_assert_msg(ev.type == YAML_SCALAR_EVENT, "expected a scalar at line %zu",
                ev.start_mark.line + 1);
  snprintf(out, len, "%s", (const char *)ev.data.scalar.value);
  yaml_event_delete(&ev);
}

static double cat_value(const struct param_desc *d, const char *text, const char *where)
{
  double v = 0.0;
  if (d->choices != NULL) {
    for (int i = 0; d->choices[i]; i++)
      if (strcmp(d->choices[i], text) == 0)
        return i;
    ck_abort_msg("%s: '%s' is not a choice", where, text);
  }
  char msg[256];
  ck_assert_msg(units_parse(text, d->dim, &v, msg, sizeof msg) == 0, "%s: %s", where, msg);
  ck_assert_msg(v >= d->min && v <= d->max, "%s: %s outside [%g, %g]", where, text, d->min,
                d->max);
  return v;
}

/* One param mapping {value, source, fit}. */
static void cat_param(yaml_parser_t *p, const struct disk_model *m, struct pbuf *pb,
                      const char *entry, const char *key, int *seen)
{
  char where[256];
  snprintf(where, sizeof where, "%s.%s", entry, key);
  const struct param_desc *d = params_find(m->params, m->nparams, key);
  ck_assert_msg(d != NULL, "%s: not a param of model %s", where, m->name);
  seen[d - m->params] = 1;
  yaml_event_t ev;
  cat_next(p, &ev);
  ck_assert_msg(ev.type == YAML_MAPPING_START_EVENT, "%s: expected {value, source}", where);
  yaml_event_delete(&ev);
  int has_value = 0, has_source = 0, has_fit = 0;
  double v = 0, lo = 0, hi = 0;
  for (;;) {
    cat_next(p, &ev);
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    char k[64];
    snprintf(k, sizeof k, "%s", (const char *)ev.data.scalar.value);
    yaml_event_delete(&ev);
    char text[512];
    if (strcmp(k, "fit") == 0) {
      cat_next(p, &ev);
      ck_assert_msg(ev.type == YAML_SEQUENCE_START_EVENT, "%s: fit must be [lo, hi]", where);
      yaml_event_delete(&ev);
      cat_scalar(p, text, sizeof text);
      lo = cat_value(d, text, where);
      cat_scalar(p, text, sizeof text);
      hi = cat_value(d, text, where);
      cat_next(p, &ev);
      ck_assert_msg(ev.type == YAML_SEQUENCE_END_EVENT, "%s: fit must be [lo, hi]", where);
      yaml_event_delete(&ev);
      has_fit = 1;
    } else {
      cat_scalar(p, text, sizeof text);
      if (strcmp(k, "value") == 0) {
        v = cat_value(d, text, where);
        has_value = 1;
      } else if (strcmp(k, "source") == 0) {
        has_source = strlen(text) > 5;
      } else {
        ck_abort_msg("%s: unknown field '%s'", where, k);
      }
    }
  }
  ck_assert_msg(has_value && has_source, "%s: needs value and source", where);
  if (has_fit)
    ck_assert_msg(lo <= v && v <= hi, "%s: value %g outside fit [%g, %g]", where, v, lo, hi);
  *(double *)((char *)pb->v + d->offset) = v;
}

START_TEST(test_catalog)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/catalog/drives.yaml", NASTWIN_SOURCE_DIR);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  yaml_event_t ev;
  /* stream, document, mapping, "drives", mapping */
  for (int i = 0; i < 3; i++) {
    cat_next(&p, &ev);
    yaml_event_delete(&ev);
  }
  char text[256];
  cat_scalar(&p, text, sizeof text);
  ck_assert_str_eq(text, "drives");
  cat_next(&p, &ev);
  yaml_event_delete(&ev);
  const char *expect[] = {"ocz-vector-120", "sandisk-ultra-plus-256", "hitachi-7k3000-3tb",
                          "hitachi-a7k2000-2tb", "wd-red-14tb", "synology-snv3400-400g",
                          "samsung-pm810-256", "wd-re-4tb", "teaching-fixed"};
  int found[9] = {0};
  for (;;) {
    cat_next(&p, &ev);
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    char entry[128];
    snprintf(entry, sizeof entry, "%s", (const char *)ev.data.scalar.value);
    yaml_event_delete(&ev);
    for (int i = 0; i < 9; i++)
      if (strcmp(entry, expect[i]) == 0)
        found[i] = 1;
    cat_next(&p, &ev);
    yaml_event_delete(&ev); /* entry mapping */
    const struct disk_model *m = NULL;
    struct pbuf pb;
    int seen[64] = {0};
    for (;;) {
      cat_next(&p, &ev);
      if (ev.type == YAML_MAPPING_END_EVENT) {
        yaml_event_delete(&ev);
        break;
      }
      char k[64];
      snprintf(k, sizeof k, "%s", (const char *)ev.data.scalar.value);
      yaml_event_delete(&ev);
      if (strcmp(k, "model") == 0) {
        cat_scalar(&p, text, sizeof text);
        m = disk_model_find(text);
        ck_assert_msg(m != NULL, "%s: unknown model %s", entry, text);
        init_params(m, &pb);
      } else if (strcmp(k, "description") == 0 || strcmp(k, "source") == 0) {
        cat_scalar(&p, text, sizeof text);
      } else if (strcmp(k, "seek_curve") == 0 || strcmp(k, "zones") == 0) {
        int depth = 0; /* the measured layout: checked by the config loader (test_disksim) */
        do {
          cat_next(&p, &ev);
          depth += ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT;
          depth -= ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT;
          yaml_event_delete(&ev);
        } while (depth > 0);
      } else {
        ck_assert_msg(strcmp(k, "params") == 0 && m != NULL, "%s: unexpected '%s'", entry, k);
        cat_next(&p, &ev);
        yaml_event_delete(&ev);
        for (;;) {
          cat_next(&p, &ev);
          if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            break;
          }
          char key[64];
          snprintf(key, sizeof key, "%s", (const char *)ev.data.scalar.value);
          yaml_event_delete(&ev);
          cat_param(&p, m, &pb, entry, key, seen);
        }
      }
    }
    ck_assert_msg(m != NULL, "%s: no model", entry);
    for (size_t i = 0; i < m->nparams; i++)
      ck_assert_msg(m->params[i].optional || seen[i], "%s: required param %s missing", entry,
                    m->params[i].key);
    char msg[256] = "";
    ck_assert_msg(m->check(pb.v, msg, sizeof msg) == 0, "%s: %s", entry, msg);
    struct disk *d = disk_create(m, pb.v, entry, 1);
    ck_assert_ptr_nonnull(d);
    run_qd(d, 50, 4, 65536, RANDOM_READ, 0, (uint64_t)(m->capacity_bytes(pb.v) / 2), 1);
    disk_destroy(d);
  }
  for (int i = 0; i < 9; i++)
    ck_assert_msg(found[i], "catalogue lacks %s", expect[i]);
  yaml_parser_delete(&p);
  fclose(f);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("disks");
  TCase *tc;
  tc = tcase_create("fixed");
  tcase_add_test(tc, test_fixed_golden);
  tcase_add_test(tc, test_registry);
  suite_add_tcase(s, tc);
  tc = tcase_create("iface");
  tcase_add_test(tc, test_iface_shared_link);
  suite_add_tcase(s, tc);
  tc = tcase_create("streams");
  tcase_add_test(tc, test_random_streams);
  suite_add_tcase(s, tc);
  tc = tcase_create("catalog");
  tcase_add_test(tc, test_catalog);
  suite_add_tcase(s, tc);
  return ck_run(s);
}
