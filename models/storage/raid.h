/* raid.h - md RAID address mapping and I/O planning (pure C, no time).
 *
 * A geometry (level, layout, member count, chunk, member size) maps a
 * logical byte address to (member, member offset) exactly as Linux md does
 * (raid0.c, raid1.c, raid10.c near-2, raid5.c raid5_compute_sector for
 * RAID-4/5/6, linear.c for JBOD).  A plan turns a logical read or write
 * into phase-1 reads, parity work (P and Q bytes) and phase-2 writes on
 * the members.  Each level is an ops table; RAID-5 and RAID-6 share one
 * set of functions (as raid4/5/6 personalities share raid5.c). */
#ifndef NASTWIN_RAID_H
#define NASTWIN_RAID_H

#include <stdint.h>

#include "base/err.h"

/* Indices into raid_level_names (stack.h). */
enum raid_level {
  RAID_SINGLE = 0,
  RAID_JBOD = 1,
  RAID_0 = 2,
  RAID_1 = 3,
  RAID_5 = 4,
  RAID_6 = 5,
  RAID_10 = 6,
  RAID_SHR = 7,  /* Synology Hybrid RAID, equal disks: 1 disk single, 2 RAID-1, >=3 RAID-5 */
  RAID_SHR2 = 8, /* SHR-2 on equal disks: RAID-6 (>= 4 disks) */
  RAID_LEVEL_COUNT
};

/* Indices into raid_layout_names (stack.h); md's ALGORITHM_* for RAID-5/6. */
enum raid_layout {
  RAID_LEFT_SYMMETRIC = 0,
  RAID_LEFT_ASYMMETRIC = 1,
  RAID_RIGHT_SYMMETRIC = 2,
  RAID_RIGHT_ASYMMETRIC = 3,
  RAID_LAYOUT_COUNT
};

#define RAID_MAX_MEMBERS 64
#define RAID_PAGE_BYTES 4096u /* md stripe_head unit: one page per member */

struct raid_geom {
  int level;             /* effective level after SHR resolution (never SHR/SHR2) */
  int layout;            /* enum raid_layout (RAID-5/6 only) */
  int members;           /* member devices */
  uint64_t chunk_bytes;  /* power of two >= 4 KiB */
  uint64_t member_bytes; /* usable bytes per member (multiple of chunk) */
  int data_members;      /* members holding data in one stripe (RAID-5: n-1, RAID-6: n-2) */
  int parity_members;    /* 0, 1 (P) or 2 (P, Q) */
  uint64_t failed_mask;  /* bit i: member i failed (degraded) */
};

/* Where one logical byte lives. */
struct raid_loc {
  int member;             /* member holding the (first) copy of the data */
  uint64_t member_offset; /* byte address on that member */
  uint64_t stripe;        /* stripe number (chunk row) */
  int p_member, q_member; /* parity members of that stripe, -1 when none */
  int mirror_member;      /* RAID-1/10: a second copy (-1 otherwise) */
  uint64_t mirror_offset;
};

/* One contiguous I/O on one member. */
struct raid_ext {
  int member;
  uint64_t offset_bytes;
  uint64_t len_bytes;
};

struct raid_ext_list {
  struct raid_ext *v;
  int n, cap;
};

/* The plan of one logical I/O: phase-1 reads, parity, phase-2 writes. */
struct raid_plan {
  struct raid_ext_list reads;  /* phase 1 */
  struct raid_ext_list writes; /* phase 2 (after parity) */
  double p_bytes;              /* bytes fed to the P (XOR) computation */
  double q_bytes;              /* bytes fed to the Q (GF(2^8)) computation */
  int stripes;                 /* chunk rows touched */
  int full_stripes;            /* stripe segments written without reads */
  int rmw_segments, rcw_segments; /* partial-stripe segments by method */
  int degraded_reads;          /* chunks reconstructed from the others */
  int lost;                    /* 1: data unavailable (too many failures) */
};

struct raid_ops {
  const char *name;
  int min_members, max_members;
  /* Usable capacity (bytes). */
  uint64_t (*capacity_bytes)(const struct raid_geom *g);
  /* Map a logical byte address (< capacity). */
  void (*map)(const struct raid_geom *g, uint64_t logical_bytes, struct raid_loc *out);
  /* Append the member I/Os of a logical read; pending (may be NULL) is the
   * queue depth per member, used by mirrors to balance reads. */
  void (*plan_read)(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                    struct raid_plan *p);
  /* Append the member I/Os of a logical write. */
  void (*plan_write)(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p);
  /* md resync window [moff, moff+len) of every member (NULL: no redundancy,
   * nothing to resync) */
  void (*plan_resync)(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p);
  /* the reads (and parity) recovering member `target` over [moff, moff+len)
   * (NULL: nothing to rebuild from) */
  void (*plan_rebuild)(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                       struct raid_plan *p);
  int can_reshape; /* 1: md grows it onto added disks by a reshape */
};

/* Ops table of an effective level (RAID_SINGLE..RAID_10); NULL otherwise. */
const struct raid_ops *raid_ops_of(int level);

/* Resolve SHR/SHR2 to md levels for n members (SHR: 1->single, 2->1, 3+->5). */
int raid_effective_level(int level, int members);

/* Check and fill a geometry; -1 with a message naming the bad value.
 * member_bytes is rounded down to a whole number of chunks. */
int raid_geom_init(struct raid_geom *g, int level, int layout, int members, uint64_t chunk_bytes,
                   uint64_t member_bytes, struct nw_err *err);

/* Usable capacity of g (bytes). */
uint64_t raid_capacity_bytes(const struct raid_geom *g);

/* Map one logical byte (see struct raid_loc). */
void raid_map(const struct raid_geom *g, uint64_t logical_bytes, struct raid_loc *out);

/* Parity members of stripe `stripe` (RAID-5/6; -1 when none). */
void raid_parity_members(const struct raid_geom *g, uint64_t stripe, int *p_member, int *q_member);

/* Empty a plan, keeping its buffers. */
void raid_plan_reset(struct raid_plan *p);
/* Free a plan's buffers. */
void raid_plan_free(struct raid_plan *p);

/* Plan a logical read / write of [off, off+len) bytes. */
void raid_plan_read(const struct raid_geom *g, uint64_t off, uint64_t len, const int *pending,
                    struct raid_plan *p);
void raid_plan_write(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p);

/* Plan a discard of logical [off, off+len) as md passes it down: the
 * phase-2 list holds each member's discarded extents.  RAID-0/1/10,
 * linear and single split it like a write; RAID-5/6 pass only the whole
 * stripes inside the range (raid5.c make_discard_request; md enables
 * discard there only with devices_handle_discard_safely, which nastwin
 * takes as set). */
void raid_plan_discard(const struct raid_geom *g, uint64_t off, uint64_t len, struct raid_plan *p);

/* Plan a background window on member range [moff, moff+len) of every member:
 * resync (read all, write parity / mirrors) or rebuild of member `target`
 * (read the survivors, write target). */
void raid_plan_resync(const struct raid_geom *g, uint64_t moff, uint64_t len, struct raid_plan *p);
void raid_plan_rebuild(const struct raid_geom *g, int target, uint64_t moff, uint64_t len,
                       struct raid_plan *p);
/* 1 if the level keeps data through a member failure (it can resync and
 * rebuild). */
int raid_redundant(const struct raid_geom *g);

/* md's grow rules: a reshape of g onto new_members (RAID-5/6/0), or a
 * migration to target_level (single/1-disk JBOD -> 2-disk RAID-1, 2-disk
 * RAID-1 -> RAID-5).  *from = the geometry the operation starts from (g,
 * or the 2-disk RAID-5 md takes a 2-disk RAID-1 over as), *to = the
 * result.  -1 with a message naming what md refuses. */
int raid_grow_plan(const struct raid_geom *g, int reshape, int target_level, int new_members,
                   struct raid_geom *from, struct raid_geom *to, struct nw_err *err);

/* Plan one md reshape window from geometry o to n (same chunk, n->members >
 * o->members): [moff, moff+len) is a range of every NEW member (md's reshape
 * progress counts per-device sectors of the new layout).  The window holds
 * the logical bytes [moff*D_new, (moff+len)*D_new); the part below o's
 * capacity is read from every old member (whole stripes, parity included,
 * as raid5 handle_stripe does for an expanding source), the part beyond is
 * zero-filled.  Every new member is written [moff, moff+len); P (and Q) are
 * computed over all the window's data.  Returns the old per-member bytes read. */
uint64_t raid_plan_reshape(const struct raid_geom *o, const struct raid_geom *n, uint64_t moff,
                           uint64_t len, struct raid_plan *p);

/* Logical bytes that no member holds readably any more with the members
 * of g->failed_mask failed; > 0 exactly when md fails the array (more
 * failures than the level's redundancy, or both copies of a RAID-10
 * chunk). */
uint64_t raid_lost_bytes(const struct raid_geom *g);

/* Append an extent (merged with a contiguous earlier one on the same member). */
void raid_ext_add(struct raid_ext_list *l, int member, uint64_t off, uint64_t len);

/* Bytes of all extents of a list on one member (-1: all members). */
uint64_t raid_ext_bytes(const struct raid_ext_list *l, int member);

#endif
