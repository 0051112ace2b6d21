/* report.h - results as text (fio-like summary + utilisation + bottleneck)
 * and as JSON (the stable contract of `nastwin run --json`). */
#ifndef NASTWIN_REPORT_H
#define NASTWIN_REPORT_H

#include <stdio.h>

#include "sim/config/config.h"
#include "sim/report/result.h"

/* Human summary of the steps of one scenario run. */
void report_text(FILE *out, const struct scenario *s, const struct run_result *r, int n);

/* One JSON object: the first step's figures at top level and every step
 * under "steps" (see README for the schema).  Deterministic: no wall
 * times, fixed number formatting. */
void report_json(FILE *out, const struct scenario *s, const struct run_result *r, int n);

/* The JSON fio 3.33 writes (--output-format=json; plus = json+, with the
 * clat_ns histogram bins), one fio job per step (sim/report/fiojson.c). */
void report_fio_json(FILE *out, const struct scenario *s, const struct run_result *r, int n, int plus);

/* Client I/Os a time-based run abandoned: issued, still outstanding when
 * it stopped at its window's end (not lost, not errors; run_result issued
 * - completed).  0 for a failed run: its failure counts what did not
 * complete. */
uint64_t report_abandoned(const struct run_result *r);

/* JSON string literal, escaped. */
void report_json_string(FILE *out, const char *s);
/* The calibration a result used: {"file": F, "hash": H}, or "uncalibrated"
 * when file is NULL or "". */
void report_calib_json(FILE *out, const char *file, const char *hash);

#endif
