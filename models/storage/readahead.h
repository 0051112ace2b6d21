/* readahead.h - the window sizes of Linux's on-demand read-ahead
 * (mm/readahead.c, the same rules in 2.6.32 and 3.10 / 4.4), in pages:
 * the NAS's volume read-ahead (stack_ra.c) and the NFS client's page cache
 * (sim/engine/client_pages.c) both grow their windows by them. */
#ifndef NASTWIN_MODELS_STORAGE_READAHEAD_H
#define NASTWIN_MODELS_STORAGE_READAHEAD_H

#include <stdint.h>

/* get_init_ra_size: the first window for a read of `req` pages: x4 (x2)
 * of the request rounded up to a power of two while that is at most
 * max/32 (max/4), else max. */
uint64_t linux_ra_init_pages(uint64_t req, uint64_t max);

/* get_next_ra_size: the window after one of `cur` pages: x4 below max/16,
 * else x2, at most max. */
uint64_t linux_ra_next_pages(uint64_t cur, uint64_t max);

#endif
