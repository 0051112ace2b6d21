#include "base/err.h"

#include <stdarg.h>
#include <string.h>

int nw_fail(struct nw_err *err, const char *file, int line, int col, const char *fmt, ...)
{
  if (!err)
    return -1;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  err->line = line;
  err->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return -1;
}

void nw_err_print(const struct nw_err *err, FILE *out)
{
  if (err->file[0]) {
    fputs(err->file, out);
    if (err->line > 0) {
      fprintf(out, ":%d", err->line);
      if (err->col > 0)
        fprintf(out, ":%d", err->col);
    }
    fputs(": ", out);
  }
  fprintf(out, "error: %s\n", err->msg);
}

void nw_err_clear(struct nw_err *err)
{
  memset(err, 0, sizeof *err);
}
