/* fio_lang.c - fio's value expansion (environment, built-ins, arithmetic)
 * and fio's number, size and integer syntax.  The classification of
 * option names and engines is fio_names.c. */
#include "sim/config/fio_lang.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/params.h"

#define FIO_COUNT(t) (sizeof(t) / sizeof((t)[0]))

/* ------------------------------------------------------------ values */

int fio_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
  if (msg && msg_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* A plain decimal number at the start of s (no hex, no inf/nan); *end after it. */
int fio_number(const char *s, double *out, const char **end)
{
  const char *p = s;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
    return -1;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    return -1;
  char *e = NULL;
  errno = 0;
  double v = strtod(s, &e);
  if (e == s || errno == ERANGE || !isfinite(v))
    return -1;
  *out = v;
  *end = e;
  return 0;
}

/* fio size: "4096", "4k", "4K", "4KB", "4KiB", "1.5g"; powers of 1024. */
int fio_parse_size(const char *v, double *out)
{
  double n = 0.0;
  const char *e = NULL;
  if (fio_number(v, &n, &e) != 0)
    return -1;
  while (*e == ' ')
    e++;
  double mult = 1.0;
  if (*e) {
    static const char prefixes[] = "kmgtp";
    const char *p = strchr(prefixes, tolower((unsigned char)*e));
    if (p && *e) {
      mult = pow(1024.0, (double)(p - prefixes + 1));
      e++;
      if (*e == 'i' || *e == 'I')
        e++;
    }
    if (*e == 'b' || *e == 'B')
      e++;
    if (*e)
      return -1;
  }
  *out = n * mult;
  return 0;
}

int fio_parse_int(const char *v, long lo, long hi, long *out)
{
  char *e = NULL;
  errno = 0;
  if (!v || !*v || (!isdigit((unsigned char)*v) && *v != '-' && *v != '+'))
    return -1;
  long n = strtol(v, &e, 10);
  if (errno || *e || n < lo || n > hi)
    return -1;
  *out = n;
  return 0;
}

/* ------------------------------------------------------------ expansion */

struct fx {
  const char *p;
  int is_time;
  char *msg;
  size_t msg_len;
  int failed;
};

static void fx_fail(struct fx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fx_fail(struct fx *x, const char *fmt, ...)
{
  if (x->failed)
    return;
  x->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->msg, x->msg_len, fmt, ap);
  va_end(ap);
}

static void fx_ws(struct fx *x)
{
  while (*x->p == ' ' || *x->p == '\t')
    x->p++;
}

static double fx_expr(struct fx *x, int depth);

/* A number with an optional unit: sizes k/m/g/t/p (1024, fio's default
 * kb_base) with i/b; times us/ms/s/m/h/d (plain = microseconds). */
static double fx_number(struct fx *x)
{
  char *end = NULL;
  errno = 0;
  double v = strtod(x->p, &end);
  if (end == x->p || errno == ERANGE || !isfinite(v)) {
    fx_fail(x, "expected a number at '%s'", x->p);
    return 0.0;
  }
  x->p = end;
  const char *u = x->p;
  size_t n = 0;
  while (isalpha((unsigned char)u[n]))
    n++;
  if (n == 0)
    return v;
  char unit[8];
  if (n >= sizeof unit) {
    fx_fail(x, "unknown unit '%.*s'", (int)n, u);
    return 0.0;
  }
  memcpy(unit, u, n);
  unit[n] = 0;
  x->p += n;
  if (x->is_time) {
    static const struct {
      const char *s;
      double us;
    } t[] = {{"us", 1}, {"usec", 1}, {"ms", 1e3}, {"msec", 1e3}, {"s", 1e6}, {"sec", 1e6},
             {"m", 60e6}, {"min", 60e6}, {"h", 3600e6}, {"d", 86400e6}};
    for (size_t i = 0; i < FIO_COUNT(t); i++)
      if (!strcasecmp(unit, t[i].s))
        return v * t[i].us;
  } else {
    const char *pre = strchr("kmgtp", tolower((unsigned char)unit[0]));
    const char *rest = unit + 1;
    if (pre && unit[0]) {
      if (*rest == 'i' || *rest == 'I')
        rest++;
      if (*rest == 'b' || *rest == 'B')
        rest++;
      if (!*rest)
        return v * pow(1024.0, (double)(pre - "kmgtp" + 1));
    } else if (!strcasecmp(unit, "b")) {
      return v;
    }
  }
  fx_fail(x, "unknown unit '%s' in an expression", unit);
  return 0.0;
}

static double fx_primary(struct fx *x, int depth)
{
  if (depth > 64) {
    fx_fail(x, "expression nested too deep");
    return 0.0;
  }
  fx_ws(x);
  if (*x->p == '(') {
    x->p++;
    double v = fx_expr(x, depth + 1);
    fx_ws(x);
    if (*x->p != ')')
      fx_fail(x, "missing ')'");
    else
      x->p++;
    return v;
  }
  if (*x->p == '-') {
    x->p++;
    return -fx_primary(x, depth + 1);
  }
  return fx_number(x);
}

static double fx_power(struct fx *x, int depth)
{
  double b = fx_primary(x, depth);
  fx_ws(x);
  if (*x->p == '^') {
    x->p++;
    double e = fx_power(x, depth + 1);
    return pow(b, e);
  }
  return b;
}

static double fx_term(struct fx *x, int depth)
{
  double v = fx_power(x, depth);
  for (;;) {
    fx_ws(x);
    char op = *x->p;
    if (op != '*' && op != '/' && op != '%')
      return v;
    x->p++;
    double r = fx_power(x, depth);
    if (op != '*' && r == 0.0) {
      fx_fail(x, "division by zero");
      return 0.0;
    }
    v = op == '*' ? v * r : op == '/' ? v / r : fmod(v, r);
  }
}

static double fx_expr(struct fx *x, int depth)
{
  if (depth > 64) {
    fx_fail(x, "expression nested too deep");
    return 0.0;
  }
  double v = fx_term(x, depth);
  for (;;) {
    fx_ws(x);
    char op = *x->p;
    if (op != '+' && op != '-')
      return v;
    x->p++;
    double r = fx_term(x, depth);
    v = op == '+' ? v + r : v - r;
  }
}

/* Append s to out[*k..n). */
static int fx_put(char *out, size_t n, size_t *k, const char *s, size_t len)
{
  if (*k + len + 1 > n)
    return -1;
  memcpy(out + *k, s, len);
  *k += len;
  out[*k] = 0;
  return 0;
}

/* ${VAR} and the built-ins into out. */
static int fx_substitute(const char *in, char *out, size_t n, char *msg, size_t msg_len)
{
  size_t k = 0;
  out[0] = 0;
  for (const char *p = in; *p;) {
    const char *val = NULL;
    size_t skip = 0;
    char num[32];
    if (p[0] == '$' && p[1] == '{') {
      const char *close = strchr(p, '}');
      if (close && close - p - 2 > 0 && close - p - 2 < 128) {
        char name[128];
        memcpy(name, p + 2, (size_t)(close - p - 2));
        name[close - p - 2] = 0;
        val = getenv(name);
        if (!val)
          val = ""; /* unset: nothing, as fio substitutes (options.c fio_option_dup_subs) */
        skip = (size_t)(close - p + 1);
      }
    } else if (p[0] == '$') {
      static const char *const names[] = {"pagesize", "mb_memory", "ncpus"};
      for (size_t i = 0; i < FIO_COUNT(names) && !val; i++) {
        size_t len = strlen(names[i]);
        if (strncmp(p + 1, names[i], len) || isalnum((unsigned char)p[1 + len]) || p[1 + len] == '_')
          continue;
        long ps = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES), cpus = sysconf(_SC_NPROCESSORS_ONLN);
        double v = i == 0 ? (double)ps : i == 1 ? floor((double)pages * (double)ps / 1048576.0) : (double)cpus;
        snprintf(num, sizeof num, "%.0f", v > 0 ? v : 1.0);
        val = num;
        skip = len + 1;
      }
    }
    if (val) {
      if (fx_put(out, n, &k, val, strlen(val)) != 0)
        goto long_value;
      p += skip;
      continue;
    }
    if (fx_put(out, n, &k, p, 1) != 0)
      goto long_value;
    p++;
  }
  return 0;
long_value:
  snprintf(msg, msg_len, "value '%.60s...' too long after substitution", in);
  return -1;
}

int fio_expand(const char *in, int is_time, char *out, size_t n, char *msg, size_t msg_len)
{
  if (fx_substitute(in, out, n, msg, msg_len) != 0)
    return -1;
  if (out[0] != '(')
    return 0;
  char expr[4096];
  snprintf(expr, sizeof expr, "%s", out);
  struct fx x = {.p = expr, .is_time = is_time, .msg = msg, .msg_len = msg_len};
  x.p++;
  double v = fx_expr(&x, 0);
  fx_ws(&x);
  if (!x.failed && *x.p != ')')
    fx_fail(&x, "unexpected '%s' (allowed: numbers, + - * / %% ^ and parentheses)", x.p);
  if (x.failed) {
    char why[256];
    snprintf(why, sizeof why, "%s", msg);
    snprintf(msg, msg_len, "bad expression '%s': %s", expr, why);
    return -1;
  }
  x.p++;
  if (v < 0 && !is_time) {
    snprintf(msg, msg_len, "expression '%s' is negative (%g)", expr, v);
    return -1;
  }
  /* Whole numbers print exactly; a time carries its microseconds. */
  snprintf(out, n, "%.17g%s%s", is_time ? floor(v + 0.5) : v, is_time && !*x.p ? "us" : "", x.p);
  return 0;
}

/* fio time: plain number in unit_s seconds, or with us/ms/s/m/min/h/d. */
int fio_parse_time(const char *v, double unit_s, double *out)
{
  double n = 0.0;
  const char *e = NULL;
  if (fio_number(v, &n, &e) != 0)
    return -1;
  while (*e == ' ')
    e++;
  static const struct {
    const char *suffix;
    double s;
  } units[] = {{"", 0.0},      {"us", 1e-6},  {"usec", 1e-6}, {"ms", 1e-3}, {"msec", 1e-3},
               {"s", 1.0},     {"sec", 1.0},  {"m", 60.0},    {"min", 60.0}, {"h", 3600.0},
               {"d", 86400.0}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcasecmp(e, units[i].suffix) == 0) {
      *out = n * (units[i].s > 0.0 ? units[i].s : unit_s);
      return 0;
    }
  }
  return -1;
}
