/* Where nastwin's data lives: the catalogue, the validation set and its
 * calibration, the shipped scenarios.
 *
 * In order: $NASTWIN_DATA; PREFIX/share/nastwin beside an installed binary
 * (PREFIX/bin/nastwin); the source tree above a build folder (build/nastwin);
 * the source tree the binary was configured from.  The first that holds a
 * catalog/ folder wins. */
#ifndef NASTWIN_BASE_DATADIR_H
#define NASTWIN_BASE_DATADIR_H

#include <stddef.h>

/* The data folder (no trailing slash); computed once, never NULL. */
const char *nw_data_dir(void);

/* nw_data_dir() + "/" + rel into buf; returns buf (cut to n bytes). */
char *nw_data_path(char *buf, size_t n, const char *rel);

#endif
