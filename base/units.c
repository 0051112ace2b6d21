#include "base/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
  const char *name;
  enum units_dim dim;
  double factor; /* canonical units per one of this unit */
};

/* Every unit nastwin accepts.  Matching is exact and case-sensitive
 * ("Mb/s" is not "MB/s": a factor 8 should never be a guess). */
static const struct unit units_table[] = {
    {"ns", UNITS_TIME, 1e-9},        {"us", UNITS_TIME, 1e-6},
    {"ms", UNITS_TIME, 1e-3},        {"s", UNITS_TIME, 1.0},
    {"min", UNITS_TIME, 60.0},       {"h", UNITS_TIME, 3600.0},
    {"B", UNITS_BYTES, 1.0},         {"sector", UNITS_BYTES, 512.0},
    {"KB", UNITS_BYTES, 1e3},        {"MB", UNITS_BYTES, 1e6},
    {"GB", UNITS_BYTES, 1e9},        {"TB", UNITS_BYTES, 1e12},
    {"PB", UNITS_BYTES, 1e15},       {"KiB", UNITS_BYTES, 1024.0},
    {"MiB", UNITS_BYTES, 1048576.0}, {"GiB", UNITS_BYTES, 1073741824.0},
    {"TiB", UNITS_BYTES, 1099511627776.0},
    {"PiB", UNITS_BYTES, 1125899906842624.0},
    {"B/s", UNITS_RATE, 1.0},        {"KB/s", UNITS_RATE, 1e3},
    {"MB/s", UNITS_RATE, 1e6},       {"GB/s", UNITS_RATE, 1e9},
    {"KiB/s", UNITS_RATE, 1024.0},   {"MiB/s", UNITS_RATE, 1048576.0},
    {"GiB/s", UNITS_RATE, 1073741824.0},
    {"bit/s", UNITS_RATE, 1.0 / 8},  {"kbit/s", UNITS_RATE, 1e3 / 8},
    {"Mbit/s", UNITS_RATE, 1e6 / 8}, {"Gbit/s", UNITS_RATE, 1e9 / 8},
    {"Hz", UNITS_FREQ, 1.0},         {"kHz", UNITS_FREQ, 1e3},
    {"MHz", UNITS_FREQ, 1e6},        {"GHz", UNITS_FREQ, 1e9},
    {"mW", UNITS_POWER, 1e-3},       {"W", UNITS_POWER, 1.0},
    {"kW", UNITS_POWER, 1e3},        {"J", UNITS_ENERGY, 1.0},
    {"kJ", UNITS_ENERGY, 1e3},       {"Wh", UNITS_ENERGY, 3600.0},
    {"kWh", UNITS_ENERGY, 3.6e6},    {"rpm", UNITS_ROTATION, 1.0},
    {"%", UNITS_NUMBER, 0.01},
};

const char *units_dim_name(enum units_dim dim)
{
  switch (dim) {
  case UNITS_NUMBER: return "number";
  case UNITS_TIME: return "time";
  case UNITS_BYTES: return "size";
  case UNITS_RATE: return "rate";
  case UNITS_FREQ: return "frequency";
  case UNITS_POWER: return "power";
  case UNITS_ENERGY: return "energy";
  case UNITS_ROTATION: return "rotation speed";
  }
  return "?";
}

const char *units_dim_units(enum units_dim dim)
{
  switch (dim) {
  case UNITS_NUMBER: return "a plain number or a percentage (70%)";
  case UNITS_TIME: return "ns, us, ms, s, min, h";
  case UNITS_BYTES: return "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB, sector";
  case UNITS_RATE: return "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, kbit/s, Mbit/s, Gbit/s";
  case UNITS_FREQ: return "Hz, kHz, MHz, GHz";
  case UNITS_POWER: return "mW, W, kW";
  case UNITS_ENERGY: return "J, kJ, Wh, kWh";
  case UNITS_ROTATION: return "rpm";
  }
  return "?";
}

/* Decimal number: [+-]digits[.digits][(e|E)[+-]digits].  Returns the
 * number of characters consumed, 0 if there is no number.  Written by
 * hand so "nan", "inf" and hex floats, which strtod takes, are refused. */
static size_t units_scan_number(const char *s, double *out)
{
  size_t i = 0;
  if (s[i] == '+' || s[i] == '-')
    i++;
  size_t digits = 0;
  while (isdigit((unsigned char)s[i])) {
    i++;
    digits++;
  }
  if (s[i] == '.') {
    i++;
    while (isdigit((unsigned char)s[i])) {
      i++;
      digits++;
    }
  }
  if (digits == 0)
    return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-')
      j++;
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j]))
        j++;
      i = j;
    }
  }
  char buf[128];
  if (i >= sizeof buf)
    return 0;
  memcpy(buf, s, i);
  buf[i] = '\0';
  char *end = NULL;
  *out = strtod(buf, &end);
  return i;
}

int units_parse(const char *text, enum units_dim dim, double *out, char *msg, size_t msg_len)
{
  if (!text)
    text = "";
  const char *p = text;
  while (*p == ' ' || *p == '\t')
    p++;
  double num = 0.0;
  size_t n = units_scan_number(p, &num);
  if (n == 0) {
    snprintf(msg, msg_len, "'%s' is not a %s: expected a decimal number%s%s", text,
             units_dim_name(dim), dim == UNITS_NUMBER ? "" : " followed by one of ",
             dim == UNITS_NUMBER ? "" : units_dim_units(dim));
    return -1;
  }
  p += n;
  while (*p == ' ' || *p == '\t')
    p++;
  char unit[32];
  size_t ulen = strlen(p);
  while (ulen > 0 && (p[ulen - 1] == ' ' || p[ulen - 1] == '\t'))
    ulen--;
  if (ulen >= sizeof unit) {
    snprintf(msg, msg_len, "'%s': unknown unit; a %s takes %s", text, units_dim_name(dim),
             units_dim_units(dim));
    return -1;
  }
  memcpy(unit, p, ulen);
  unit[ulen] = '\0';

  double factor = 1.0;
  if (ulen == 0) {
    if (dim != UNITS_NUMBER) {
      snprintf(msg, msg_len, "'%s' has no unit: a %s needs one of %s", text,
               units_dim_name(dim), units_dim_units(dim));
      return -1;
    }
  } else {
    const struct unit *u = NULL;
    for (size_t i = 0; i < sizeof units_table / sizeof units_table[0]; i++)
      if (strcmp(units_table[i].name, unit) == 0) {
        u = &units_table[i];
        break;
      }
    if (!u) {
      snprintf(msg, msg_len, "'%s': unknown unit '%s'; a %s takes %s", text, unit,
               units_dim_name(dim), units_dim_units(dim));
      return -1;
    }
    if (u->dim != dim) {
      snprintf(msg, msg_len, "'%s' is a %s, but a %s is expected (%s)", text,
               units_dim_name(u->dim), units_dim_name(dim), units_dim_units(dim));
      return -1;
    }
    factor = u->factor;
  }
  /* Percent divides, so 70% is exactly the double nearest 0.7. */
  double v = strcmp(unit, "%") == 0 ? num / 100.0 : num * factor;
  if (!isfinite(v)) {
    snprintf(msg, msg_len, "'%s' is out of range", text);
    return -1;
  }
  *out = v;
  return 0;
}

char *units_format(double value, enum units_dim dim, char *buf, size_t len)
{
  static const char *const dec[] = {"", "K", "M", "G", "T", "P"};
  static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  double a = fabs(value);
  int k = 0;
  switch (dim) {
  case UNITS_TIME:
    if (a != 0 && a < 1e-6)
      snprintf(buf, len, "%.4g ns", value * 1e9);
    else if (a != 0 && a < 1e-3)
      snprintf(buf, len, "%.4g us", value * 1e6);
    else if (a != 0 && a < 1.0)
      snprintf(buf, len, "%.4g ms", value * 1e3);
    else
      snprintf(buf, len, "%.4g s", value);
    return buf;
  case UNITS_BYTES:
    while (a >= 1024.0 && k < 5) {
      a /= 1024.0;
      value /= 1024.0;
      k++;
    }
    snprintf(buf, len, "%.4g %sB", value, bin[k]);
    return buf;
  case UNITS_RATE:
  case UNITS_FREQ:
  case UNITS_POWER:
  case UNITS_ENERGY:
    while (a >= 1000.0 && k < 5) {
      a /= 1000.0;
      value /= 1000.0;
      k++;
    }
    snprintf(buf, len, "%.4g %s%s", value, dec[k],
             dim == UNITS_RATE ? "B/s" : dim == UNITS_FREQ ? "Hz" : dim == UNITS_POWER ? "W" : "J");
    return buf;
  case UNITS_ROTATION:
    snprintf(buf, len, "%.4g rpm", value);
    return buf;
  case UNITS_NUMBER:
    snprintf(buf, len, "%.6g", value);
    return buf;
  }
  snprintf(buf, len, "%g", value);
  return buf;
}
