/* fio.c - fio job files (INI) and fio option spellings.
 *
 * fio_set_option is the single place a key=value is applied to a job; the
 * INI parser only splits lines into sections and options, tracks [global]
 * and cuts steps at stonewall.  fio's own syntax is parsed here (not
 * sim/units): sizes take k/m/g/t/p suffixes that are powers of 1024
 * whether spelled k, KB or KiB (fio's default kb_base=1024); times are
 * plain seconds (runtime, ramp_time) or microseconds (thinktime) with
 * optional us/ms/s/m/h/d suffixes. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/params.h"
#include "sim/config/workload.h"
#include "sim/config/fio_lang.h"
#include "sim/config/workload_build.h"

#define FIO_MAX_DEPTH 65536
#define FIO_MAX_NUMJOBS 65536
#define FIO_MAX_TIME_S (365.0 * 86400.0)
#define FIO_MAX_INCLUDE_DEPTH 8
#define FIO_FILE_MAX_BYTES ((size_t)64 << 20) /* 64 MiB: a job file is a few lines */

/* Options applied to the job (fio spelling). */
static const char *const fio_modelled_keys[] = {
    "rw",        "readwrite",     "bs",          "blocksize",  "bssplit",   "iodepth",
    "numjobs",   "rwmixread",     "rwmixwrite",  "size",       "filesize",  "offset",
    "runtime",   "timeout",       "ramp_time",   "time_based", "direct",    "buffered",
    "thinktime", "rate_iops",     "stonewall",   "wait_for_previous",       "sync",
    "fsync",     "percentage_random",          "name",       "group_reporting",
    "description", "filename",   "offset_increment", "io_size", "io_limit", "number_ios",
    "rate",      "rate_min",      "rate_iops_min", "wait_for", "random_distribution",
    "bsrange",   "blocksize_range", "fdatasync",  "ioengine",  "zonemode",  "zonesize",
    "zonerange", "zoneskip", "zonecapacity", "max_open_zones", "job_max_open_zones", "read_beyond_wp", "loops", "verify", "do_verify", "verify_only", "nrfiles", "latency_target", "latency_window", "latency_percentile", "latency_run",
    "cpuload", "gtod_reduce", "protocol", "window_size", "pingpong", "program",
    "http_mode", "https", "http_verbose", "http_host", "http_user", "http_pass", "http_s3_key", "http_s3_keyid",
    "http_s3_region", "http_s3_sse_customer_key", "http_s3_sse_customer_algorithm", "http_s3_storage_class",
    "http_swift_auth_token", "xnvme_async", "norandommap", NULL,
};

#define FIO_COUNT(t) (sizeof(t) / sizeof((t)[0]))

static int fio_in_list(const char *const *list, size_t n, const char *key)
{
  for (size_t i = 0; i < n && list[i]; i++)
    if (strcmp(list[i], key) == 0)
      return 1;
  return 0;
}

int fio_parse_bool(const char *v, int *out)
{
  if (!v || !*v || strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
      strcasecmp(v, "on") == 0) {
    *out = 1;
    return 0;
  }
  if (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 ||
      strcasecmp(v, "off") == 0) {
    *out = 0;
    return 0;
  }
  return -1;
}

static int fio_set_rw(struct job *j, const char *key, const char *v, char *msg, size_t msg_len)
{
  static const struct {
    const char *word;
    double read_frac; /* < 0: mixed */
    enum job_access access;
    int trim; /* struct job trim */
  } modes[] = {
      {"read", 1.0, JOB_SEQ, 0},     {"write", 0.0, JOB_SEQ, 0},       {"randread", 1.0, JOB_RANDOM, 0},
      {"randwrite", 0.0, JOB_RANDOM, 0}, {"rw", -1.0, JOB_SEQ, 0},     {"readwrite", -1.0, JOB_SEQ, 0},
      {"randrw", -1.0, JOB_RANDOM, 0}, {"trim", 0.0, JOB_SEQ, 1},      {"randtrim", 0.0, JOB_RANDOM, 1},
      {"trimwrite", 0.0, JOB_SEQ, 2},  {"randtrimwrite", 0.0, JOB_RANDOM, 2},
  };
  char mode[64];
  const char *colon = strchr(v, ':');
  size_t mlen = colon ? (size_t)(colon - v) : strlen(v);
  snprintf(mode, sizeof mode, "%.*s", (int)(mlen < sizeof mode ? mlen : sizeof mode - 1), v);
  double modifier = 0.0;
  if (colon) {
    /* Sequential: a hole of N bytes after each I/O (negative goes back);
     * random: a new random offset every N I/Os. */
    const char *num = colon + 1;
    int neg = *num == '-';
    if (fio_parse_size(num + neg, &modifier) != 0 || modifier > FIO_MAX_SIZE_BYTES)
      return fio_msg(msg, msg_len, "%s: bad offset modifier '%s' in '%s' (allowed: MODE:N, N %s)", key,
                     num, v, FIO_SIZE_ALLOWED);
    modifier = neg ? -modifier : modifier;
  }
  for (size_t i = 0; i < FIO_COUNT(modes); i++) {
    if (strcmp(mode, modes[i].word) != 0)
      continue;
    j->access = modes[i].access;
    j->rw_mixed = modes[i].read_frac < 0.0;
    j->trim = modes[i].trim;
    j->read_frac = j->rw_mixed ? j->rwmixread_frac : modes[i].read_frac;
    j->rw_modifier = modifier;
    return 0;
  }
  return fio_msg(msg, msg_len,
                 "%s: bad value '%s' (allowed: read, write, randread, randwrite, rw, readwrite, "
                 "randrw, trim, randtrim, trimwrite, randtrimwrite, each with an optional :N)",
                 key, v);
}

static void fio_set_rwmix(struct job *j, double read_frac)
{
  j->rwmixread_frac = read_frac;
  if (j->rw_mixed)
    j->read_frac = read_frac;
}

static int fio_apply(struct job *j, const char *key, const char *value, int *unmodelled, char *msg,
                     size_t msg_len);

/* Keys whose plain numbers are times (expressions count microseconds). */
static int fio_is_time_key(const char *key)
{
  return !strcmp(key, "runtime") || !strcmp(key, "timeout") || !strcmp(key, "ramp_time") ||
         !strcmp(key, "thinktime") || !strcmp(key, "startdelay");
}

/* KEY= with nothing after ${VAR} substitution: refused as fio 3.33 does
 * (parse.c "failed parsing KEY=", the job dropped, fio exits 1), but for
 * the options fio takes empty.  An unset variable substitutes nothing
 * (options.c fio_option_dup_subs), so e.g. http_s3_key=${S3_KEY} with
 * S3_KEY unset is refused like rw=${FIO_RW}. */
static int fio_empty_value(const char *key, const char *value, char *msg, size_t msg_len)
{
  char expanded[FIO_LINE_MAX], why[512];
  if (!value || fio_option_takes_empty(key) ||
      fio_expand(value, 0, expanded, sizeof expanded, why, sizeof why) != 0 || expanded[0])
    return 0;
  const char *var = strstr(value, "${");
  if (!var)
    return fio_msg(msg, msg_len, "%s: needs a value (%s=...; fio: \"failed parsing %s=\")", key, key, key);
  return fio_msg(msg, msg_len, "%s: '%s' is empty: the environment variable is not set (fio substitutes "
                 "nothing and refuses the empty value: \"failed parsing %s=%s\"; set it, e.g. %.*s=VALUE "
                 "nastwin run ...)", key, value, key, value,
                 (int)(strchr(var, '}') ? strchr(var, '}') - var - 2 : 0), var + 2);
}

int fio_set_option(struct job *j, const char *key, const char *value, int *unmodelled, char *msg,
                   size_t msg_len)
{
  int dummy = 0;
  if (!unmodelled)
    unmodelled = &dummy;
  *unmodelled = 0;
  if (!key || !*key)
    return fio_msg(msg, msg_len, "empty fio option name");
  key = fio_option_alias(key);
  if (fio_empty_value(key, value, msg, msg_len) != 0)
    return -1;
  if (!fio_in_list(fio_modelled_keys, FIO_COUNT(fio_modelled_keys), key)) {
    const char *why = fio_option_refused(key);
    if (why)
      return fio_msg(msg, msg_len, "fio option '%s' is not supported by nastwin (%s)", key, why);
    if (fio_option_neutral(key))
      return 0; /* does not change the I/O's timing (fio_names.c says why) */
    if (fio_option_known(key)) {
      *unmodelled = 1;
      return 0;
    }
    const char *near = fio_option_suggest(key, fio_modelled_keys);
    if (near)
      return fio_msg(msg, msg_len, "unknown fio option '%s' (did you mean '%s'?)", key, near);
    return fio_msg(msg, msg_len, "unknown fio option '%s'", key);
  }
  if (!value)
    return fio_apply(j, key, NULL, unmodelled, msg, msg_len);
  char expanded[FIO_LINE_MAX], why[512];
  if (fio_expand(value, fio_is_time_key(key), expanded, sizeof expanded, why, sizeof why) != 0)
    return fio_msg(msg, msg_len, "%s: %s", key, why);
  return fio_apply(j, key, expanded, unmodelled, msg, msg_len);
}

/* One value for reads and writes ("10m" or "10m,10m"); msg otherwise. */
static int fio_one_value(const char *key, const char *v, char *out, size_t n, char *msg, size_t msg_len)
{
  const char *comma = strchr(v, ',');
  snprintf(out, n, "%.*s", (int)(comma ? (size_t)(comma - v) : strlen(v)), v);
  if (comma && strcmp(out, comma + 1) != 0)
    return fio_msg(msg, msg_len, "%s: bad value '%s' (per-direction values 'read,write' are not modelled; "
                   "give one value)", key, v);
  return 0;
}

/* The options the job language added: io amount, rate, distribution,
 * ordering, engine.  1 when key is not one of them. */
static int fio_apply_more(struct job *j, const char *key, const char *v, int *unmodelled, int *rc,
                          char *msg, size_t msg_len)
{
  double d = 0.0;
  char one[256];
  *rc = 0;
  if (!strcmp(key, "io_size") || !strcmp(key, "io_limit")) {
    if (fio_parse_size(v, &d) != 0 || d < 1.0 || d > FIO_MAX_SIZE_BYTES)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: %s, 1 B .. 1 PiB)", key, v, FIO_SIZE_ALLOWED);
    j->io_bytes = d;
  } else if (!strcmp(key, "number_ios")) {
    long n = 0;
    if (fio_parse_int(v, 1, LONG_MAX, &n) != 0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 1)", key, v);
    j->number_ios = (double)n;
  } else if (!strcmp(key, "rate_min")) {
    if (fio_one_value(key, v, one, sizeof one, msg, msg_len) != 0)
      *rc = -1;
    else if (fio_parse_size(one, &d) != 0 || d < 0.0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: bytes per second, %s)", key, v, FIO_SIZE_ALLOWED);
    *unmodelled = 1; /* a floor fio checks, not a throttle */
  } else if (!strcmp(key, "rate_iops_min")) {
    long n = 0;
    if (fio_one_value(key, v, one, sizeof one, msg, msg_len) != 0 || fio_parse_int(one, 0, INT_MAX, &n) != 0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 0)", key, v);
    *unmodelled = 1;
  } else if (!strcmp(key, "loops")) {
    long n = 0;
    if (fio_parse_int(v, 1, INT_MAX, &n) != 0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 1)", key, v);
    j->loops = (int)n;
  } else if (!strcmp(key, "verify")) {
    *rc = fio_set_verify(j, v, msg, msg_len);
  } else if (!strcmp(key, "wait_for")) {
    j->stonewall = 1; /* starts after the named job: nastwin starts a new step */
  } else if (!strcmp(key, "bsrange") || !strcmp(key, "blocksize_range")) {
    *rc = fio_set_bsrange(j, key, v, msg, msg_len);
  } else if (!strcmp(key, "ioengine")) {
    const char *why = fio_engine_check(v, &v);
    why = why ? why : fio_engine_refused(v);
    if (why)
      *rc = fio_msg(msg, msg_len, "ioengine=%s %s", v, why);
    j->meta_op = fio_engine_meta(v);
    j->client_only = fio_engine_client(v);
    snprintf(j->engine, sizeof j->engine, "%s", v);
    /* the scenario's protocol carries the I/O (a passthrough engine's goes to the local drive itself) */
    *unmodelled = j->meta_op == JOB_META_NONE && j->client_only == JOB_CLIENT_NAS && strcmp(v, "http") != 0 &&
                  !fio_engine_passthrough(v);
  } else if (!strcmp(key, "xnvme_async")) {
    j->xnvme_cmd = !strcmp(v, "io_uring_cmd"); /* NVMe passthrough (fio_job_finish) */
    *unmodelled = !j->xnvme_cmd;               /* the other back-ends' submission paths are not modelled */
  } else if (!strcmp(key, "program")) {
    j->exec_program = 1; /* ioengine=exec's: what it does on the client is not modelled (fio_finish_job) */
  } else if (!strcmp(key, "cpuload")) {
    long n = 0;
    if (fio_parse_int(v, 0, INT_MAX, &n) != 0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 0, a percentage of a core)", key, v);
    j->cpuload = (n > 100 ? 100 : (double)n) / 100.0; /* fio's cpuio caps it at 100 */
  } else if (!strncmp(key, "latency_", 8)) {
    *rc = fio_set_latency(j, key, v, msg, msg_len);
  } else if (!strcmp(key, "nrfiles")) {
    long n = 0;
    if (fio_parse_int(v, 1, INT_MAX, &n) != 0)
      *rc = fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 1)", key, v);
    j->nrfiles = (double)n; /* a metadata job's operations; fio_finish_job warns on a data job */
  } else {
    return 1;
  }
  return 0;
}

static int fio_apply(struct job *j, const char *key, const char *value, int *unmodelled, char *msg,
                     size_t msg_len)
{
  const char *v = value ? value : "";
  long n = 0;
  int b = 0;
  int rc = fio_net_option(j, key, value, msg, msg_len); /* ioengine=net's own */
  if (rc == 1)
    rc = fio_http_option(j, key, value, msg, msg_len); /* ioengine=http's own */
  if (rc != 1)
    return rc;

  /* Flags: bare or 0/1. */
  if (!strcmp(key, "time_based") || !strcmp(key, "direct") || !strcmp(key, "buffered") ||
      !strcmp(key, "stonewall") || !strcmp(key, "wait_for_previous") ||
      !strcmp(key, "group_reporting") || !strcmp(key, "do_verify") || !strcmp(key, "verify_only") ||
      !strcmp(key, "gtod_reduce") || !strcmp(key, "norandommap")) {
    if (fio_parse_bool(value, &b) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: 0 or 1, or the bare flag)", key, v);
    if (!strcmp(key, "time_based"))
      j->time_based = b;
    else if (!strcmp(key, "direct"))
      j->direct = b;
    else if (!strcmp(key, "buffered"))
      j->direct = !b;
    else if (!strcmp(key, "stonewall") || !strcmp(key, "wait_for_previous"))
      j->stonewall = b;
    else if (!strcmp(key, "do_verify"))
      j->no_verify = !b;
    else if (!strcmp(key, "verify_only"))
      j->verify_only = b;
    else if (!strcmp(key, "gtod_reduce"))
      j->gtod_reduce = b; /* fio's own per-I/O work: a null job's whole time */
    else if (!strcmp(key, "norandommap"))
      j->norandommap = b; /* random offsets with replacement (workgen.c workgen_maps) */
    /* group_reporting: nastwin always reports per step (stonewall group). */
    return 0;
  }
  if (!strcmp(key, "sync")) {
    if (!strcmp(v, "sync") || !strcmp(v, "dsync"))
      b = 1;
    else if (!strcmp(v, "none"))
      b = 0;
    else if (fio_parse_bool(value, &b) != 0)
      return fio_msg(msg, msg_len,
                     "%s: bad value '%s' (allowed: 0, 1, none, sync, dsync, or the bare flag)", key, v);
    j->sync = b;
    return 0;
  }
  if (!value || !*value)
    return fio_msg(msg, msg_len, "%s: needs a value (%s=...)", key, key);
  rc = fio_set_direction_option(j, key, v, msg, msg_len);
  if (rc != 1)
    return rc;
  if (!fio_apply_more(j, key, v, unmodelled, &rc, msg, msg_len))
    return rc;

  if (!strcmp(key, "name") || !strcmp(key, "description")) {
    if (!strcmp(key, "name")) {
      if (strlen(v) >= sizeof j->name)
        return fio_msg(msg, msg_len, "%s: value '%s' too long (at most %zu characters)", key, v,
                       sizeof j->name - 1);
      snprintf(j->name, sizeof j->name, "%s", v);
    }
    return 0;
  }
  if (!strcmp(key, "rw") || !strcmp(key, "readwrite"))
    return fio_set_rw(j, key, v, msg, msg_len);
  if (!strcmp(key, "iodepth") || !strcmp(key, "numjobs")) {
    long hi = !strcmp(key, "iodepth") ? FIO_MAX_DEPTH : FIO_MAX_NUMJOBS;
    if (fio_parse_int(v, 1, hi, &n) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer 1..%ld)", key, v, hi);
    if (!strcmp(key, "iodepth"))
      j->iodepth = (int)n;
    else
      j->numjobs = (int)n;
    return 0;
  }
  if (!strcmp(key, "rwmixread") || !strcmp(key, "rwmixwrite") ||
      !strcmp(key, "percentage_random")) {
    if (fio_parse_int(v, 0, 100, &n) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer 0..100, a percentage)",
                     key, v);
    if (!strcmp(key, "rwmixread"))
      fio_set_rwmix(j, (double)n / 100.0);
    else if (!strcmp(key, "rwmixwrite"))
      fio_set_rwmix(j, (double)(100 - n) / 100.0);
    else
      j->seq_frac = (double)(100 - n) / 100.0;
    return 0;
  }
  if (!strcmp(key, "filename")) {
    j->shared_file = 1; /* every copy of the job opens this one file */
    return 0;
  }
  if (!strcmp(key, "size") || !strcmp(key, "filesize") || !strcmp(key, "offset") ||
      !strcmp(key, "offset_increment"))
    return fio_set_extent(j, key, v, msg, msg_len);
  if (!strcmp(key, "runtime") || !strcmp(key, "timeout") || !strcmp(key, "ramp_time") ||
      !strcmp(key, "thinktime")) {
    int micro = !strcmp(key, "thinktime");
    double d = 0.0;
    if (fio_parse_time(v, micro ? 1e-6 : 1.0, &d) != 0 || d < 0.0 || d > FIO_MAX_TIME_S)
      return fio_msg(msg, msg_len,
                     "%s: bad value '%s' (allowed: a time >= 0, plain number = %s, or with suffix "
                     "us, ms, s, m, h, d)",
                     key, v, micro ? "microseconds" : "seconds");
    if (micro)
      j->thinktime_s = d;
    else if (!strcmp(key, "ramp_time"))
      j->ramp_s = d;
    else
      j->runtime_s = d;
    return 0;
  }
  if (!strcmp(key, "fsync") || !strcmp(key, "fdatasync")) {
    char one[256];
    if (fio_one_value(key, v, one, sizeof one, msg, msg_len) != 0)
      return -1;
    if (fio_parse_int(one, 0, INT_MAX, &n) != 0)
      return fio_msg(msg, msg_len, "%s: bad value '%s' (allowed: integer >= 0)", key, v);
    j->fsync_every = (int)n;
    return 0;
  }
  return fio_msg(msg, msg_len, "fio option '%s' is listed but not handled (nastwin bug)", key);
}

int fio_job_finish(struct job *j, char *msg, size_t msg_len)
{
  double max_bs = 0.0; /* whole bytes, and no block larger than the data set (fio refuses both) */
  for (int i = 0; i < j->nbs + j->nbs_w; i++) {
    double b = i < j->nbs ? j->bs_bytes[i] : j->bs_bytes_w[i - j->nbs];
    if (b != floor(b))
      return fio_msg(msg, msg_len, "bs: %g B is not a whole number of bytes", b);
    max_bs = b > max_bs ? b : max_bs;
  }
  if (j->size_bytes > 0 && j->size_bytes != floor(j->size_bytes))
    return fio_msg(msg, msg_len, "size: %g B is not a whole number of bytes", j->size_bytes);
  if (j->size_bytes > 0 && j->size_bytes < max_bs)
    return fio_msg(msg, msg_len, "size: %.0f B is smaller than the block size %.0f B (fio: blocksize too "
                   "large for data set)", j->size_bytes, max_bs);
  double mean_r = fio_mean_bs(j->bs_bytes, j->bs_weight, j->nbs);
  double mean_w = j->nbs_w > 0 ? fio_mean_bs(j->bs_bytes_w, j->bs_weight_w, j->nbs_w) : mean_r;
  double wf = 1.0 - j->read_frac;
  double mean_bs = (1.0 - wf) * mean_r + wf * mean_w;
  fio_fold_rates(j, mean_r, mean_w);
  j->nvme_passthrough = fio_engine_passthrough(j->engine) || (!strcmp(j->engine, "xnvme") && j->xnvme_cmd);
  if (j->nvme_passthrough)
    j->direct = 1; /* NVMe commands to the namespace: no page cache on the way, whatever direct= says */
  if (j->zone_mode == 1 || (j->zone_mode == 2 && j->zone_size_bytes <= 0)) /* fio: none ignores them */
    j->zone_size_bytes = j->zone_range_bytes = j->zone_skip_bytes = 0.0;
  if (fio_zbd_finish(j, msg, msg_len) != 0 || fio_http_finish(j, msg, msg_len) != 0 ||
      fio_meta_finish(j, msg, msg_len) != 0 ||
      fio_net_finish(j, msg, msg_len) != 0)
    return -1;
  if (j->client_only == JOB_CLIENT_NULL && !(j->size_bytes > 0)) /* fio filesetup.c total_file_size */
    return fio_msg(msg, msg_len, "ioengine=%s needs size=BYTES: its file is fio's own, with no size to take a "
                   "share of (fio: \"you need to specify size=\")", j->engine);
  if (j->client_only == JOB_CLIENT_EXEC && !j->exec_program) /* fio exec.c fio_exec_init */
    return fio_msg(msg, msg_len, "ioengine=exec needs program=PATH (fio: \"no program is defined, it is "
                   "mandatory to define one\")");
  if (j->client_only == JOB_CLIENT_EXEC && !(j->runtime_s > 0))
    return fio_msg(msg, msg_len, "ioengine=exec needs runtime=TIME: fio runs the program for the job's runtime "
                   "(without one it stops the program at its first check and the job's end is fio's own "
                   "polling loop, not modelled)");
  if (j->client_only == JOB_CLIENT_CPU && j->cpuload <= 0.0) /* fio cpu.c fio_cpuio_init */
    return fio_msg(msg, msg_len, "ioengine=cpuio needs cpuload=N, the percentage of a core each copy burns "
                   "(fio: \"cpu thread needs rate (cpuload=)\")");
  if (j->number_ios > 0) {
    double bytes = j->number_ios * mean_bs;
    j->io_bytes = j->io_bytes > 0 && j->io_bytes < bytes ? j->io_bytes : bytes;
    j->number_ios = 0.0;
  }
  double m = j->rw_modifier;
  j->rw_modifier = 0.0;
  if (m == 0.0)
    return 0;
  if (j->access == JOB_RANDOM) {
    if (m < 1.0 || m != floor(m))
      return fio_msg(msg, msg_len, "rw: ':%g' on a random mode must be a whole number of I/Os >= 1", m);
    j->random_run = m > INT_MAX ? INT_MAX : (int)m; /* fio rw_sequencer=sequential: N-1 follow on */
    return 0;
  }
  if (j->nbs != 1)
    return fio_msg(msg, msg_len, "rw: ':%g' holes need one block size (bs), not a mix", m);
  double bs = j->bs_bytes[0];
  if (m > 0) {
    j->access = JOB_STRIDE;
    j->stride_bytes = bs + m;
  } else if (m == -2.0 * bs) {
    j->access = JOB_BACKWARD; /* each I/O starts one block before the last one's start */
  } else {
    return fio_msg(msg, msg_len, "rw: ':%g' goes back by other than one block (-%g, the block size "
                   "doubled, reads backwards); not modelled", m, 2.0 * bs);
  }
  return 0;
}

/* ------------------------------------------------------------ INI parser */

struct fio_parse_ctx {
  const char *file; /* of the text being read (an include changes it) */
  struct workload *out;
  struct nw_err *err;
  struct job global;
  struct job cur;
  int in_section; /* 0 none yet, 1 [global], 2 a job */
  const char *job_file;
  int job_line; /* of the current job's [section] */
  int njobs_total;
  int nerr;      /* every error of the file is collected, then reported at once */
  char *errs;    /* the second and later, "file:line:col: error: msg\n" each */
  size_t errs_len, errs_cap;
  char *warn;
  size_t warn_len, warn_cap;
  struct job *verify;      /* the read-backs of the current step's verify jobs, */
  int nverify, verify_cap; /* a step of their own once the step's jobs are done */
  struct fio_refusal {     /* refusals with one reason, said once naming every line: */
    char first[512];       /* the first one's message */
    char group[300];       /* "ioengine=X ..." whole, or " is not supported by nastwin (why)" */
    char items[300];       /* "KEY (line N), ..." or "N, ..." */
    const char *file;
    int line, col, n, by_key;
  } refusal[8];
  int nrefusal;
  char refused_engine[64]; /* an ioengine=NAME refused: later unknown options are its own, */
  char engine_opts[512];   /* listed together in one error: "name (line N), ..." */
  const char *engine_opts_file;
  int engine_opts_line, engine_opts_n;
};

int fio_append(char **buf, size_t *len, size_t *cap, const char *text)
{
  size_t n = strlen(text);
  if (*len + n + 1 > *cap) {
    size_t grown_cap = (*cap ? *cap * 2 : 256) + n;
    char *grown = realloc(*buf, grown_cap);
    if (!grown)
      return -1;
    *buf = grown;
    *cap = grown_cap;
  }
  memcpy(*buf + *len, text, n + 1);
  *len += n;
  return 0;
}

/* Record an error and go on (0); the first fills err, the rest are listed. */
static int fio_err(struct fio_parse_ctx *c, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fio_err(struct fio_parse_ctx *c, const char *file, int line, int col, const char *fmt, ...)
{
  char text[FIO_LINE_MAX + 600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (c->nerr++ == 0) {
    nw_fail(c->err, file, line, col, "%s", text);
    return 0;
  }
  char full[FIO_LINE_MAX + 1200];
  if (line > 0)
    snprintf(full, sizeof full, "%s:%d:%d: error: %s\n", file, line, col, text);
  else
    snprintf(full, sizeof full, "%s: error: %s\n", file, text);
  fio_append(&c->errs, &c->errs_len, &c->errs_cap, full); /* out of memory: listed as "more" */
  return 0;
}

/* Fold the collected errors into err's one message: the first, then one
 * "file:line:col: error:" line each, as many as the message holds. */
static void fio_err_finish(struct fio_parse_ctx *c)
{
  if (c->nerr <= 1)
    return;
  struct nw_err *e = c->err;
  size_t len = strlen(e->msg);
  int shown = 1;
  char *save = NULL;
  for (char *l = c->errs ? strtok_r(c->errs, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
    char tail[64];
    snprintf(tail, sizeof tail, "\n(and %d more errors not shown)", c->nerr - shown);
    if (len + strlen(l) + 2 + strlen(tail) >= sizeof e->msg)
      break;
    len += (size_t)snprintf(e->msg + len, sizeof e->msg - len, "\n%s", l);
    shown++;
  }
  if (shown < c->nerr)
    snprintf(e->msg + len, sizeof e->msg - len, "\n(and %d more errors not shown)", c->nerr - shown);
}

static int fio_warn(struct fio_parse_ctx *c, int line, const char *key)
{
  char needle[128];
  snprintf(needle, sizeof needle, "'%s'", key);
  if (c->warn && strstr(c->warn, needle))
    return 0; /* named once */
  char text[FIO_LINE_MAX + 600];
  snprintf(text, sizeof text, "%s:%d: warning: fio option '%s' is accepted but not modelled (ignored)\n",
           c->file, line, key);
  if (fio_append(&c->warn, &c->warn_len, &c->warn_cap, text) != 0)
    return fio_err(c, c->file, line, 0, "out of memory");
  return 0;
}

/* The pending verify read-backs as a step after the jobs that wrote. */
static int fio_flush_verify(struct fio_parse_ctx *c)
{
  if (c->nverify == 0)
    return 0;
  struct workload_step *s = workload_add_step(c->out);
  if (!s)
    return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
  snprintf(s->name, sizeof s->name, "%s", c->verify[0].name);
  for (int i = 0; i < c->nverify; i++)
    if (workload_step_add_job(s, &c->verify[i]) != 0)
      return fio_err(c, c->job_file, c->job_line, 1, "more than %d verify jobs in one step", STEP_MAX_JOBS);
  snprintf(s->metric, sizeof s->metric, "%s", workload_default_metric(s));
  c->nverify = 0;
  return 0;
}

/* Keep job j's read-back for after its step. */
static int fio_queue_verify(struct fio_parse_ctx *c, const struct job *rb)
{
  if (c->nverify == c->verify_cap) {
    int cap = c->verify_cap ? 2 * c->verify_cap : 4;
    struct job *grown = realloc(c->verify, (size_t)cap * sizeof *grown);
    if (!grown)
      return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
    c->verify = grown, c->verify_cap = cap;
  }
  c->verify[c->nverify++] = *rb;
  return 0;
}

/* Close the current job section: add the job to the current step, or to a
 * new step when it is the first or carries stonewall; a verify job's
 * read-back follows its step (verify_only: only the read-back). */
static int fio_finish_job(struct fio_parse_ctx *c)
{
  if (c->in_section != 2)
    return 0;
  c->in_section = 0;
  char msg[sizeof c->err->msg];
  if (c->cur.meta_op == JOB_META_NONE && c->cur.nrfiles > 1 && c->cur.nrfiles_line > 0 &&
      fio_warn(c, c->cur.nrfiles_line, "nrfiles") != 0)
    return -1;
  char notes[2 * FIO_LINE_MAX];
  fio_zbd_default_note(&c->cur, c->job_file, c->job_line, notes, sizeof notes);
  if (fio_job_finish(&c->cur, msg, sizeof msg) != 0)
    return fio_err(c, c->job_file, c->job_line, 1, "job '%s': %s", c->cur.name, msg);
  if (notes[0] && fio_append(&c->warn, &c->warn_len, &c->warn_cap, notes) != 0)
    return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
  if (c->cur.client_only == JOB_CLIENT_EXEC) {
    char text[FIO_LINE_MAX + 600];
    snprintf(text, sizeof text, "%s:%d: warning: job '%s' (ioengine=exec) runs its program on the client for "
             "%g s; what the program does there is not modelled (fio counts no I/O for the job; the NAS "
             "idles)\n", c->job_file, c->job_line, c->cur.name, c->cur.runtime_s);
    if (fio_append(&c->warn, &c->warn_len, &c->warn_cap, text) != 0)
      return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
  }
  fio_http_notes(&c->cur, c->job_file, c->job_line, notes, sizeof notes);
  if (notes[0] && fio_append(&c->warn, &c->warn_len, &c->warn_cap, notes) != 0)
    return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
  struct job rb;
  int reads_back = fio_verify_job(&c->cur, &rb);
  if (reads_back && c->cur.verify_only) {
    int sw = c->cur.stonewall;
    c->cur = rb, c->cur.stonewall = sw, reads_back = 0;
  }
  struct workload *w = c->out;
  struct workload_step *s = w->nsteps ? &w->steps[w->nsteps - 1] : NULL;
  if (!s || (c->cur.stonewall && s->njobs > 0)) {
    fio_flush_verify(c);
    s = workload_add_step(w);
    if (!s)
      return fio_err(c, c->job_file, c->job_line, 1, "out of memory");
    snprintf(s->name, sizeof s->name, "%s", c->cur.name);
  }
  for (int i = 0; i < s->njobs && !fio_engine_refused(c->cur.engine); i++) /* a refused engine: said already */
    if ((s->jobs[i].client_only == JOB_CLIENT_NAS) != (c->cur.client_only == JOB_CLIENT_NAS) &&
        !fio_engine_refused(s->jobs[i].engine))
      return fio_err(c, c->job_file, c->job_line, 1,
                     "job '%s' runs at once with job '%s', and only one of them does I/O to the NAS's storage "
                     "(the other stays inside the client, ioengine=null, cpuio or exec or a read of emulated zbd "
                     "zones, or only streams over the link, ioengine=net); nastwin times those apart from the "
                     "NAS simulation and cannot merge the two "
                     "in one step: put stonewall between them", c->cur.name, s->jobs[i].name);
  if (workload_step_add_job(s, &c->cur) != 0)
    return fio_err(c, c->job_file, c->job_line, 1,
                   "job '%s': more than %d jobs run at once (between two stonewalls); add "
                   "stonewall to start a new step",
                   c->cur.name, STEP_MAX_JOBS);
  snprintf(s->metric, sizeof s->metric, "%s", workload_default_metric(s));
  c->njobs_total++;
  return reads_back ? fio_queue_verify(c, &rb) : 0;
}

static char *fio_trim(char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
    s[--n] = '\0';
  return s;
}

static int fio_parse_text(struct fio_parse_ctx *c, const char *text, int depth);

/* include FILE: its lines are read in place (relative to the including
 * file's folder); fio allows no section in an included file. */
static int fio_include(struct fio_parse_ctx *c, const char *arg, int lineno, int col, int depth)
{
  if (!*arg)
    return fio_err(c, c->file, lineno, col, "include: needs a file name");
  if (depth >= FIO_MAX_INCLUDE_DEPTH)
    return fio_err(c, c->file, lineno, col, "include '%s': nested deeper than %d files", arg,
                   FIO_MAX_INCLUDE_DEPTH);
  char path[2 * FIO_LINE_MAX];
  const char *slash = strrchr(c->file, '/');
  if (arg[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", arg);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - c->file), c->file, arg);
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return fio_err(c, c->file, lineno, col, "include '%s': %s is not a readable regular file", arg, path);
  char *buf = NULL;
  size_t len = 0;
  enum file_read_status st = file_read_all(path, FIO_FILE_MAX_BYTES, &buf, &len);
  if (st != FILE_READ_OK)
    return fio_err(c, c->file, lineno, col, "include '%s': cannot read %s", arg, path);
  if (memchr(buf, '\0', len)) {
    free(buf);
    return fio_err(c, c->file, lineno, col, "include '%s': not a text file", arg);
  }
  const char *outer = c->file;
  char *name = strdup(path);
  if (!name) {
    free(buf);
    return fio_err(c, c->file, lineno, col, "out of memory");
  }
  c->file = name;
  fio_parse_text(c, buf, depth + 1);
  c->file = outer;
  free(buf);
  /* Errors name the included file: keep its name alive with the record. */
  free(name);
  return 0;
}

static int fio_parse_header(struct fio_parse_ctx *c, char *line, char *t, int lineno, int col, int depth)
{
  char *close = strchr(t, ']');
  if (!close)
    return fio_err(c, c->file, lineno, col, "section header '%s' lacks the closing ']'", t);
  char *after = close + 1;
  while (*after == ' ' || *after == '\t')
    after++;
  if (*fio_trim(after))
    return fio_err(c, c->file, lineno, (int)(after - line) + 1, "unexpected text after section header ']'");
  *close = '\0';
  char *name = fio_trim(t + 1);
  if (!*name)
    return fio_err(c, c->file, lineno, col, "empty section name '[]'");
  if (depth > 0)
    return fio_err(c, c->file, lineno, col, "section '[%s]' in an included file (fio allows none)", name);
  if (strlen(name) >= sizeof c->cur.name)
    return fio_err(c, c->file, lineno, col + 1, "section name '%s' too long (at most %zu)", name,
                   sizeof c->cur.name - 1);
  fio_finish_job(c);
  if (strcmp(name, "global") == 0) {
    c->in_section = 1;
  } else {
    c->cur = c->global;
    snprintf(c->cur.name, sizeof c->cur.name, "%s", name);
    c->in_section = 2;
    c->job_file = c->file;
    c->job_line = lineno;
  }
  return 0;
}

/* An option of a refused engine: named in one error with the others. */
static int fio_engine_opt(struct fio_parse_ctx *c, const char *key, const char *near, int lineno)
{
  size_t len = strlen(c->engine_opts);
  char item[200];
  snprintf(item, sizeof item, "%s%s (line %d%s%.*s)", c->engine_opts_n ? ", " : "", key, lineno, near ? "; " : "",
           near ? (int)strlen(near) - 2 : 0, near ? near + 1 : "");
  if (c->engine_opts_n == 0)
    c->engine_opts_file = c->file, c->engine_opts_line = lineno;
  if (len + strlen(item) + 8 < sizeof c->engine_opts)
    snprintf(c->engine_opts + len, sizeof c->engine_opts - len, "%s", item);
  else if (!strstr(c->engine_opts, ", ..."))
    snprintf(c->engine_opts + len, sizeof c->engine_opts - len, ", ...");
  c->engine_opts_n++;
  return 0;
}

/* A refusal that other lines may share (an engine, options refused for
 * one reason): kept to be said once; 1 when kept. */
static int fio_refusal_add(struct fio_parse_ctx *c, const char *key, const char *msg, int lineno, int col)
{
  const char *why = strstr(msg, " is not supported by nastwin (");
  int by_key = why != NULL;
  if (!by_key && strncmp(msg, "ioengine=", 9) != 0)
    return 0;
  const char *group = by_key ? why : msg;
  struct fio_refusal *r = NULL;
  for (int i = 0; i < c->nrefusal && !r; i++)
    r = !strcmp(c->refusal[i].group, group) ? &c->refusal[i] : NULL;
  if (!r) {
    if (c->nrefusal == (int)FIO_COUNT(c->refusal) || strlen(group) >= sizeof r->group ||
        strlen(msg) >= sizeof r->first)
      return 0;
    r = &c->refusal[c->nrefusal++];
    *r = (struct fio_refusal){.file = c->file, .line = lineno, .col = col, .by_key = by_key};
    snprintf(r->first, sizeof r->first, "%.*s", (int)sizeof r->first - 1, msg);
    snprintf(r->group, sizeof r->group, "%.*s", (int)sizeof r->group - 1, group);
  }
  size_t len = strlen(r->items);
  char item[160];
  if (by_key)
    snprintf(item, sizeof item, "%s%s (line %d)", len ? ", " : "", key, lineno);
  else
    snprintf(item, sizeof item, "%s%d", len ? ", " : "", lineno);
  if (len + strlen(item) + 8 < sizeof r->items)
    snprintf(r->items + len, sizeof r->items - len, "%s", item);
  else if (!strstr(r->items, ", ..."))
    snprintf(r->items + len, sizeof r->items - len, ", ...");
  r->n++;
  return 1;
}

static void fio_refusals_finish(struct fio_parse_ctx *c)
{
  for (int i = 0; i < c->nrefusal; i++) {
    const struct fio_refusal *r = &c->refusal[i];
    if (r->n == 1)
      fio_err(c, r->file, r->line, r->col, "%s", r->first);
    else if (r->by_key)
      fio_err(c, r->file, r->line, r->col, "fio options %s are%s", r->items, r->group + 3);
    else
      fio_err(c, r->file, r->line, r->col, "%s (lines %s)", r->first, r->items);
  }
}

static void fio_engine_opts_finish(struct fio_parse_ctx *c)
{
  if (c->engine_opts_n)
    fio_err(c, c->engine_opts_file, c->engine_opts_line, 1,
            "%d option(s) that are not generic fio options, of the refused engine(s) %s: %s",
            c->engine_opts_n, c->refused_engine, c->engine_opts);
}

static int fio_parse_line(struct fio_parse_ctx *c, char *line, int lineno, int depth)
{
  /* Comments: ';' or '#' start a comment anywhere on the line. */
  char *cm = strpbrk(line, ";#");
  if (cm)
    *cm = '\0';
  char *t = fio_trim(line);
  if (!*t)
    return 0;
  int col = (int)(t - line) + 1;
  if (*t == '[')
    return fio_parse_header(c, line, t, lineno, col, depth);
  if (!strncmp(t, "include", 7) && (t[7] == ' ' || t[7] == '\t')) {
    if (c->in_section == 0)
      return fio_err(c, c->file, lineno, col, "include before any [section] (fio reads it into one)");
    return fio_include(c, fio_trim(t + 8), lineno, col, depth);
  }
  char *key = t, *value = NULL;
  char *eq = strchr(t, '=');
  int vcol = 0;
  if (eq) {
    *eq = '\0';
    value = eq + 1;
    while (*value == ' ' || *value == '\t')
      value++;
    vcol = (int)(value - line) + 1;
    value = fio_trim(value);
    key = fio_trim(key);
  }
  if (!*key)
    return fio_err(c, c->file, lineno, col, "option without a name");
  if (c->in_section == 0)
    return fio_err(c, c->file, lineno, col,
                   "option '%s' before any [section] (start with [global] or [jobname])", key);
  struct job *j = c->in_section == 1 ? &c->global : &c->cur;
  int unmodelled = 0;
  char msg[sizeof c->err->msg];
  if (fio_set_option(j, key, value, &unmodelled, msg, sizeof msg) != 0) {
    size_t el = strlen(c->refused_engine);
    if (!strcmp(key, "ioengine") && value && !strstr(c->refused_engine, value) &&
        el + strlen(value) + 3 < sizeof c->refused_engine)
      snprintf(c->refused_engine + el, sizeof c->refused_engine - el, "%s%s", el ? ", " : "", value);
    else if (c->refused_engine[0] && !strncmp(msg, "unknown fio option", 18))
      return fio_engine_opt(c, key, fio_option_of_refused_engine(key) ? NULL : strstr(msg, "(did you mean"), lineno);
    int at = (strncmp(msg, "unknown", 7) == 0 || strstr(msg, "not supported") || !vcol) ? col : vcol;
    if (fio_refusal_add(c, key, msg, lineno, at))
      return 0;
    return fio_err(c, c->file, lineno, at, "%s", msg);
  }
  if (!strcmp(key, "nrfiles"))
    j->nrfiles_line = lineno; /* warned once the job's engine is known (fio_finish_job) */
  if (unmodelled)
    return fio_warn(c, lineno, key);
  return 0;
}

static int fio_parse_text(struct fio_parse_ctx *c, const char *text, int depth)
{
  int lineno = 0;
  for (const char *p = text ? text : ""; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    lineno++;
    char line[FIO_LINE_MAX];
    if (len >= sizeof line) {
      fio_err(c, c->file, lineno, 1, "line longer than %d characters (fio's limit)", FIO_LINE_MAX - 1);
    } else {
      memcpy(line, p, len);
      line[len] = '\0';
      fio_parse_line(c, line, lineno, depth);
    }
    p += len + (nl ? 1 : 0);
  }
  return 0;
}

int fio_parse_string(const char *text, const char *name, struct workload *out, char **warnings,
                     struct nw_err *err)
{
  struct nw_err local;
  if (!err)
    err = &local;
  nw_err_clear(err);
  if (warnings)
    *warnings = NULL;
  memset(out, 0, sizeof *out);
  out->combine = COMBINE_EACH;
  struct fio_parse_ctx c = {.file = name ? name : "<fio>", .out = out, .err = err};
  job_defaults(&c.global);
  fio_parse_text(&c, text, 0);
  fio_finish_job(&c);
  fio_flush_verify(&c);
  free(c.verify);
  fio_refusals_finish(&c);
  fio_engine_opts_finish(&c);
  if (c.njobs_total == 0 && c.nerr == 0)
    fio_err(&c, c.file, 0, 0, "no job section (a fio job file needs at least one [jobname])");
  if (c.nerr == 0 && warnings) {
    *warnings = c.warn ? c.warn : calloc(1, 1);
    c.warn = NULL;
    if (!*warnings)
      fio_err(&c, c.file, 0, 0, "out of memory");
  }
  fio_err_finish(&c);
  free(c.errs);
  free(c.warn);
  if (c.nerr == 0)
    return 0;
  workload_free(out);
  return -1;
}

int fio_parse_file(const char *path, struct workload *out, char **warnings, struct nw_err *err)
{
  if (warnings)
    *warnings = NULL;
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  enum file_read_status st = file_read_all(path, FIO_FILE_MAX_BYTES, &buf, &len);
  if (st == FILE_READ_CANNOT_OPEN)
    return nw_fail(err, path, 0, 0, "cannot open fio job file: %s", strerror(errno));
  if (st != FILE_READ_OK)
    return nw_fail(err, path, 0, 0, "cannot read fio job file (I/O error, or larger than 64 MiB)");
  if (memchr(buf, '\0', len)) {
    free(buf);
    return nw_fail(err, path, 0, 0, "not a text file (contains NUL bytes)");
  }
  int rc = fio_parse_string(buf, path, out, warnings, err);
  free(buf);
  return rc;
}
