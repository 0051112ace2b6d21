/* workgen.h - the workload generator: a job's next I/O (time, offset, size,
 * direction) from the job and its random stream, without the engine.
 *
 * Synthetic jobs (fio's rw/bs/bssplit/rwmixread, sequential, random,
 * backward, stride) walk their region; replay jobs take the trace's
 * records in order.  The engine asks workgen_more() whether the job may
 * issue, workgen_next() for the I/O and, for jobs on a timer
 * (workgen_timed()), workgen_arrival_s() for when to issue it. */
#ifndef NASTWIN_WORKGEN_H
#define NASTWIN_WORKGEN_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "models/soc/proto.h"
#include "sim/config/replay.h"
#include "sim/config/workload.h"

#define WORKGEN_ZBD_OPEN 128 /* zonemode=zbd: open zones followed at once per job copy */

struct workgen {
  const struct job *spec;
  const struct replay_trace *replay; /* NULL: synthetic */
  double region_start, region_bytes; /* where the job works (bytes) */
  double next_off;                   /* sequential, backward, stride: the next offset in region */
  double issued_bytes;
  int next_rec;                      /* replay: the next record */
  int run_left;                      /* JOB_RANDOM with random_run: sequential I/Os left before
                                        the next random one (fio rw=randread:N) */
  /* JOB_RANDOM with fio's random map (workgen_map_next): the pass's keyed permutation of
   * its units (blocks, or random_run runs of blocks), each unit once per pass */
  uint64_t map_key;                  /* the pass's key, drawn from the job's stream */
  uint64_t map_n, map_i;             /* units in the pass (0: none yet), units done in it */
  double map_start;                  /* region_start the pass covers (a strided zone's) */
  /* Non-uniform random_distribution, set at the first random I/O: */
  int dist_ready;
  double dist_n;                     /* ranges: the region in units of the smallest block */
  double dist_unit;                  /* the smallest block size (fio's min_bs) */
  double zeta_n, zeta_2;             /* zipf: sum of k^-theta over 1..n and 1..2 */
  uint64_t rand_off;                 /* fio's rotation of the hot ranges */
  double zone_start, zone_done;      /* zonemode=strided: the zone's start in region, bytes done in it */
  int zbd_nopen;                     /* zonemode=zbd: the open zones, their start in region */
  double zbd_zone[WORKGEN_ZBD_OPEN], zbd_wp[WORKGEN_ZBD_OPEN]; /* and bytes written in each */
  int handle_next;                   /* file_handles: 1 the next I/O opens the next file, 2 it
                                        closes the one just read or written, 0 data, -1 none
                                        (workgen_local_files) */
  int handle_last;                   /* file_handles: the last I/O was an open or a close */
  double last_file_off;              /* file_handles: where the open file starts in region */
  int tw_pending;                    /* trimwrite: the block just trimmed is written next */
  uint64_t tw_off, tw_len;
};

struct workgen_io {
  uint64_t offset_bytes, len_bytes;
  int write;
  int opens;      /* file copies: the tool opens (and closes) a file before this I/O */
  enum proto_fop fop; /* the file operation it is (a metadata operation, a copy's open or
                         close), or that its data follow (a data I/O that opens its file:
                         PROTO_FOP_OPEN); the engine sends it as the protocol's requests */
  int rec;        /* replay: the record's index, else -1 */
  enum job_meta meta; /* a metadata operation: len_bytes 0 on the wire, the NAS does
                         workgen_meta_store() instead */
  int trim;           /* a trim (fio DDIR_TRIM) of range_bytes at offset_bytes: write 0 */
  uint64_t range_bytes; /* a trim or fallocate: the bytes it covers (len_bytes 0: no data
                           on the wire), counted in the results as fio counts them */
};

/* What the NAS filesystem does below a metadata operation: 1 writes
 * JOB_META_UPDATE_BYTES of metadata (create, delete, truncate), 0 reads its
 * (cached) inode block (stat). */
int workgen_meta_writes(enum job_meta m);

/* A generator for job spec working in [region_start, region_start +
 * region_bytes); replay NULL unless the job replays a trace. */
void workgen_init(struct workgen *g, const struct job *spec, const struct replay_trace *replay,
                  double region_start, double region_bytes);
/* 1 while the job has I/O left (time limits are the caller's). */
int workgen_more(const struct workgen *g);
/* 1 when a file copy's next I/O waits for the job's outstanding ones: it
 * starts the next file (the tool is done with the last one first), it is
 * a file_handles open or close, or it follows one (the handle's request
 * must be answered first); 0 otherwise, and for every other job. */
int workgen_waits(const struct workgen *g);
/* The job's files are the client's own (on a block protocol's LUN its
 * filesystem opens and closes them without a request): no file_handles
 * requests. */
void workgen_local_files(struct workgen *g);
/* The next I/O; advances the generator (and the RNG for random choices). */
void workgen_next(struct workgen *g, gsl_rng *rng, struct workgen_io *out);
/* 1 when the job issues on a timer (open loop: rate_iops, replay by
 * timestamps; or think time), 0 for a closed loop. */
int workgen_timed(const struct job *spec);
/* Open loop: when the next I/O is due (s), given the job's start and the
 * previous due time (the start for the first). */
double workgen_arrival_s(const struct workgen *g, double start_s, double prev_s);

#endif
