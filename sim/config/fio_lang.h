/* fio_lang.h - fio's job language below the options (internal to
 * sim/config/fio.c): value expansion as fio does it before an option sees
 * the value, and the classification of fio's option names and engines. */
#ifndef NASTWIN_FIO_LANG_H
#define NASTWIN_FIO_LANG_H

#include <stddef.h>

#include "sim/config/workload.h"

#define FIO_MAX_BS_BYTES (1024.0 * 1024.0 * 1024.0) /* 1 GiB: sanity bound per I/O */
#define FIO_MAX_SIZE_BYTES 1125899906842624.0       /* 1 PiB */
#define FIO_LINE_MAX 8192                           /* fio's own limit */
#define FIO_SIZE_ALLOWED \
  "a size: number with optional suffix k, m, g, t, p (powers of 1024, also spelled KB or KiB)"

/* Append text to a growing buffer (*buf, *len, *cap); -1 when out of memory. */
int fio_append(char **buf, size_t *len, size_t *cap, const char *text);

/* Format msg (when given) and return -1: the shape of every refusal. */
int fio_msg(char *msg, size_t msg_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A plain decimal number at the start of s (no hex, no inf/nan); *end after it. 0 or -1. */
int fio_number(const char *s, double *out, const char **end);
/* fio time: plain number in unit_s seconds, or with us/ms/s/m/min/h/d; 0 or -1. */
int fio_parse_time(const char *v, double unit_s, double *out);
/* fio size: "4096", "4k", "4K", "4KB", "4KiB", "1.5g"; powers of 1024.  0 or -1. */
int fio_parse_size(const char *v, double *out);
/* A flag: bare (value NULL or ""), 1/0, true/false, yes/no, on/off.  0 or -1. */
int fio_parse_bool(const char *v, int *out);
/* A whole decimal number in [lo, hi].  0 or -1. */
int fio_parse_int(const char *v, long lo, long hi, long *out);

/* fio's other name for an option (ratemin -> rate_min, fileoffset ->
 * offset, nr_files -> nrfiles, ...): the name fio documents, else key. */
const char *fio_option_alias(const char *key);

/* fio_extent.c: size, filesize, offset, offset_increment (bytes, N% of
 * the target, Nz zones) and bsrange=LO-HI on j.  0, or -1 with msg. */
int fio_set_extent(struct job *j, const char *key, const char *v, char *msg, size_t msg_len);
int fio_set_bsrange(struct job *j, const char *key, const char *v, char *msg, size_t msg_len);

/* fio_dir.c: the options whose value may differ per direction
 * ("READ,WRITE[,TRIM]": bs, blocksize, bssplit, rate, rate_iops) and
 * random_distribution.  0, or -1 with msg; 1 when key is not one of them. */
int fio_set_direction_option(struct job *j, const char *key, const char *v, char *msg, size_t msg_len);

/* fio_dir.c: the mean of a bs/weight list; each direction's rate and
 * rate_iops folded into the job's one rate_iops (fio paces each direction
 * on its own: see the comment there). */
double fio_mean_bs(const double *bs, const double *w, int n);
void fio_fold_rates(struct job *j, double mean_r, double mean_w);

/* fio_verify.c: verify=METHOD on j (none and 0 turn it off).  0, or -1 with msg. */
int fio_set_verify(struct job *j, const char *v, char *msg, size_t msg_len);

/* The zone size of a zoned device when a zonemode=zbd job gives no
 * zonesize (bytes).  fio then takes the zone size from the device itself
 * (zbd.c parse_zone_info: the zones the kernel reports, sysfs
 * queue/chunk_sectors); the job's target here is a NAS file or LUN, and no
 * drive model in the catalogue declares write zones (their zones are
 * recording zones), so the zoned device is assumed to be a host-managed
 * SMR drive: 256 MiB, the zone size of every host-managed SMR hard disk
 * shipped (zonedstorage.io "Shingled Magnetic Recording": "all SMR hard
 * disks ... 256 MiB zone size"; e.g. WD Ultrastar DC HC620, Seagate
 * ST8000AS0022 ZAC); ZNS SSDs range 16 MiB .. 2 GiB.  Warned about by name
 * (fio_zbd_default_note). */
#define FIO_ZBD_DEVICE_ZONE_BYTES (256.0 * 1048576.0)

/* fio_dir.c: zonemode=zbd and 'Nz' sizes once all options are set (zones
 * as fio emulates them on a target that is not zoned; no zonesize: the
 * device's, FIO_ZBD_DEVICE_ZONE_BYTES).  0, or -1 with msg. */
int fio_zbd_finish(struct job *j, char *msg, size_t msg_len);
/* The warning for a zonemode=zbd job j that gives no zonesize (before
 * fio_zbd_finish) into out, FILE:LINE: prefixed; "" for any other job. */
void fio_zbd_default_note(const struct job *j, const char *file, int line, char *out, size_t n);

/* Expand a value: ${VAR} from the environment (an unset one becomes
 * nothing, as fio substitutes it), the built-ins $pagesize, $mb_memory and
 * $ncpus (this machine's, as fio takes them), then an arithmetic
 * expression when the value starts with '(' (+ - * / % ^, parentheses,
 * numbers with size suffixes; for a time option plain numbers are
 * microseconds, as fio's expressions count time).  Anything after the
 * closing ')' stays (a unit: "(2*3)m").  0, or -1 with msg. */
int fio_expand(const char *in, int is_time, char *out, size_t n, char *msg, size_t msg_len);

/* fio_names.c: a real fio option that could change the I/O's timing and
 * that nastwin accepts but does not model (named in a warning): 1, else 0. */
int fio_option_known(const char *key);

/* A real fio option that does not change the I/O's timing (logging,
 * content, names, client CPU placement, hints no NAS protocol carries):
 * why, else NULL.  Accepted without effect. */
const char *fio_option_neutral(const char *key);

/* fio 3.33 takes KEY= with an empty value (an unset ${VAR} substitutes
 * nothing) for this option: 1, else 0 (fio: "failed parsing KEY=", the
 * job dropped, fio exits 1). */
int fio_option_takes_empty(const char *key);

/* A real fio option nastwin cannot honour: the reason, else NULL. */
const char *fio_option_refused(const char *key);

/* ioengine=NAME: NULL when it does block or file I/O (modelled as the
 * scenario's protocol), else why it is refused. */
const char *fio_engine_refused(const char *name);
/* ioengine=NAME: NULL when fio has the engine (*canon its name, an alias
 * of libaio resolved), else why not (unknown, or an external .so). */
const char *fio_engine_check(const char *name, const char **canon);
/* 1 when key is an option of one of those refused engines (named as the
 * engine's own, with no nearest generic option suggested). */
int fio_option_of_refused_engine(const char *key);
/* 1 for an NVMe passthrough engine (io_uring_cmd): its commands need a
 * local NVMe drive (protocol.kind local), see cfg_workload_check. */
int fio_engine_passthrough(const char *name);
/* fio's null, cpp_null (no I/O: fio's own per-I/O work) and cpuio (a
 * share of a client core) engines: JOB_CLIENT_NAS for any other. */
enum job_client fio_engine_client(const char *name);
/* fio's metadata engines: the file operation each I/O is (JOB_META_NONE: another engine). */
enum job_meta fio_engine_meta(const char *name);
/* A metadata job once its options are all set: one operation per file
 * (nrfiles), as fio times them; 0, or -1 with msg. */
int fio_meta_finish(struct job *j, char *msg, size_t msg_len);
/* fio_net.c: ioengine=net's own options (protocol=, window_size=,
 * pingpong; value NULL for a bare flag): 0, or -1 with msg; 1 when key is
 * not one of them. */
int fio_net_option(struct job *j, const char *key, const char *value, char *msg, size_t msg_len);
/* A net job once its options are all set: what nastwin models of fio's net
 * engine (a TCP stream, one direction, sequential); 0, or -1 with msg. */
int fio_net_finish(struct job *j, char *msg, size_t msg_len);
/* fio_http.c: ioengine=http's own options (http_mode=, https=, http_verbose=,
 * host and credentials): 0, or -1 with msg; 1 when key is not one of them. */
int fio_http_option(struct job *j, const char *key, const char *value, char *msg, size_t msg_len);
/* An http job once its options are all set: a trim becomes one DELETE (an
 * unlink) per block of its I/O; 0, or -1 with msg. */
int fio_http_finish(struct job *j, char *msg, size_t msg_len);
/* The warnings of an http job (object gateway, https) into out ("" for none). */
int fio_http_notes(const struct job *j, const char *file, int line, char *out, size_t out_len);
/* latency_target, latency_window (times, plain = microseconds), latency_percentile
 * (0..100), latency_run (a flag); 0, or -1 with msg. */
int fio_set_latency(struct job *j, const char *key, const char *v, char *msg, size_t msg_len);

/* Closest known or modelled option name to key within a small edit
 * distance, or NULL; modelled: the modelled keys (NULL-terminated). */
const char *fio_option_suggest(const char *key, const char *const *modelled);

#endif
