/* htmlreport.c - sweep plots as inline SVG. */
#include "sim/htmlreport.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int htmlreport_sweep(const char *dir, const struct sweep *sw, const char *header, char **rows,
                     int nrows, struct nw_err *err)
{
  (void)sw;
  (void)header;
  (void)rows;
  (void)nrows;
  if (mkdir(dir, 0755) < 0 && errno != EEXIST)
    return nw_fail(err, dir, 0, 0, "html: cannot create the folder: %s", strerror(errno));
  return nw_fail(err, dir, 0, 0, "html: not implemented yet");
}
