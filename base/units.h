/* units.h - the one place quantities with units are parsed and printed.
 *
 * Canonical units inside nastwin: seconds, bytes, bytes per second, hertz,
 * watts, joules, revolutions per minute, plain numbers.  Every YAML value
 * that is a quantity must carry its unit ("10Gbit/s", "4KiB", "8.5ms",
 * "1.7GHz", "200MB/s"); a bare number is rejected for every dimension but
 * UNITS_NUMBER.  Decimal prefixes are powers of 10 (KB = 1000 B), binary
 * prefixes powers of 2 (KiB = 1024 B); bit rates are divided by 8. */
#ifndef NASTWIN_UNITS_H
#define NASTWIN_UNITS_H

#include <stddef.h>

enum units_dim {
  UNITS_NUMBER,  /* dimensionless: "3", "0.7", "70%" (= 0.7) */
  UNITS_TIME,    /* seconds: ns us ms s min h */
  UNITS_BYTES,   /* bytes: B KB MB GB TB PB KiB MiB GiB TiB PiB, sector (512 B) */
  UNITS_RATE,    /* bytes/s: B/s KB/s MB/s GB/s KiB/s MiB/s GiB/s bit/s kbit/s Mbit/s Gbit/s */
  UNITS_FREQ,    /* hertz: Hz kHz MHz GHz */
  UNITS_POWER,   /* watts: mW W kW */
  UNITS_ENERGY,  /* joules: J kJ Wh kWh */
  UNITS_ROTATION /* revolutions per minute: rpm */
};

/* Name of a dimension for messages ("time", "size", "rate", ...). */
const char *units_dim_name(enum units_dim dim);

/* Comma-separated list of the units accepted for dim, for messages. */
const char *units_dim_units(enum units_dim dim);

/* Parse text as a quantity of dimension dim into *out (canonical unit).
 * Returns 0, or -1 with a message in msg (msg_len bytes) naming the value
 * and what is allowed.  Rejects NaN, infinities, hex, empty strings, a
 * missing unit, a unit of another dimension, and trailing garbage. */
int units_parse(const char *text, enum units_dim dim, double *out, char *msg, size_t msg_len);

/* Print value (canonical unit of dim) with a readable prefix, e.g.
 * "1.25 GB/s", "8.5 ms", "4 KiB".  Returns buf. */
char *units_format(double value, enum units_dim dim, char *buf, size_t len);

#endif
