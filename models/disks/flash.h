/* flash.h - the flash SSD engine shared by "sata_ssd" (ssd.c) and "nvme"
 * (nvme.c).  The two models share every function and differ in their
 * parameter tables and host link (SATA port vs PCIe link).
 *
 * Mechanism (all stages are FIFO resources, computed at submit time):
 *   1. command slots: at most `outstanding` commands in the device (SATA
 *      NCQ 32; NVMe queues x depth); later ones wait for a free slot;
 *   2. controller: a serial per-command processing time (cmd_time);
 *   3. dies (channels x dies_per_channel), one operation at a time: a
 *      command is one operation per flash page it touches.  A read's page
 *      is on die (page index mod dies) -- the FTL's stripe -- so random
 *      reads collide on dies; the die senses it for read_latency and
 *      holds it until its channel (die mod channels, one transfer at a
 *      time at channel_rate) has moved the bytes asked for.  A write's
 *      data crosses the channel of the die free first and is programmed
 *      for write_latency x share of a page x WA.  A read command finds
 *      its first die busy with a background operation (a program or
 *      erase it waits behind, a read retry) with probability
 *      read_stall_fraction and waits an exponential time of mean
 *      read_stall_time first, holding the die: the heavy tail of flash
 *      read latency, and why random-read IOPS grow slowly with depth.  A
 *      write command finds no free block with probability
 *      write_stall_fraction and its die first garbage-collects for an
 *      exponential time of mean write_stall_time (the write tail).
 *      Mixed traffic (mixed_flush > 0): a write submitted while a read is
 *      in the device is programmed in flushes of mixed_flush bytes, one
 *      after the other, each after the reads in the device when it opens
 *      (no program suspend, reads served first): the write buffer drains
 *      in partial superpages instead of striping over every die;
 *   4. the controller's data path at read_rate / write_rate;
 *   5. the host link (SATA 8b/10b payload, or PCIe lanes), then any
 *      shared upstream link.
 * WA for non-sequential writes when preconditioned: steady_state_write_factor
 * (the whole drive written at random) scaled down to the span written
 * (flash_range_wa in ssd.c: the spare area serves only the active range);
 * else 1. */
#ifndef NASTWIN_FLASH_H
#define NASTWIN_FLASH_H

#include <stdint.h>

#include "models/disks/disk_impl.h"

struct flash_params {
  double capacity_bytes;
  double read_latency_s;  /* die busy time per page sensed (tR) */
  double write_latency_s; /* die busy time per page programmed (fresh) */
  double cmd_time_s;      /* controller time per command */
  double read_stall_fraction; /* share of read commands whose die is busy with a background operation */
  double read_stall_s;        /* mean wait of such a read (exponential) */
  double write_stall_fraction; /* share of write commands that wait for a garbage collection */
  double write_stall_s;        /* mean wait of such a write (exponential) */
  double mixed_flush_bytes;    /* write data programmed per flush while reads interleave (0: off) */
  double channels;
  double dies_per_channel;
  double page_bytes;
  double channel_rate_bytes_per_s; /* flash bus of one channel (ONFI / Toggle) */
  double read_rate_bytes_per_s;  /* internal data path cap, reads */
  double write_rate_bytes_per_s; /* internal data path cap, writes */
  double link_rate_bytes_per_s;  /* sata_ssd: SATA line rate (before 8b/10b) */
  double pcie_gen;               /* nvme */
  double pcie_lanes;             /* nvme */
  double ncq_depth;              /* sata_ssd: outstanding commands */
  double queue_count;            /* nvme */
  double queue_depth;            /* nvme */
  double preconditioned;         /* 0 fresh, 1 steady state */
  double steady_state_write_factor;
  double power_active_W;
  double power_idle_W;
  double power_standby_W;
  double standby_after_s;
  double wake_time_s;
};

/* Shared model functions (the ops of both tables). */
int flash_check_sata(const void *params, char *msg, size_t msg_len);
int flash_check_nvme(const void *params, char *msg, size_t msg_len);
double flash_capacity_bytes(const void *params);
void *flash_create_sata(const void *params, uint64_t seed);
void *flash_create_nvme(const void *params, uint64_t seed);
void flash_destroy(void *priv);
void flash_submit(void *priv, double now_s, const struct disk_io *io);
double flash_next_completion_s(const void *priv);
int flash_pop_completion(void *priv, double now_s, struct disk_io *done);
void flash_stats(const void *priv, double now_s, struct disk_stats *out);
void flash_attach_link(void *priv, struct iface_link *link);
void flash_precondition(void *priv, const struct disk_precond *p);

#include <stddef.h>

/* Resolution of the discarded-LBA table (ssd.c flash_discard): 16 MiB,
 * 60k entries for a 1 TB drive; a granule counts bytes, not which LBAs. */
#define FLASH_TRIM_GRANULE_BYTES (16u << 20)

#define FLASH_OFF(field) offsetof(struct flash_params, field)

/* Parameter rows shared by sata_ssd and nvme: capacity, latencies, parallelism, data-path caps. */
#define FLASH_MEDIA_PARAMS \
    {.key = "capacity", .dim = UNITS_BYTES, .offset = FLASH_OFF(capacity_bytes), .min = 1e9, \
     .max = 1e14, .help = "user capacity (bytes)"}, \
    {.key = "read_latency", .dim = UNITS_TIME, .offset = FLASH_OFF(read_latency_s), .min = 5e-6, \
     .max = 2e-3, .help = "die busy time per page sensed, tR (s)"}, \
    {.key = "write_latency", .dim = UNITS_TIME, .offset = FLASH_OFF(write_latency_s), .min = 5e-6, \
     .max = 1e-2, .help = "die busy time per full page programmed, fresh drive (s)"}, \
    {.key = "cmd_time", .dim = UNITS_TIME, .offset = FLASH_OFF(cmd_time_s), .min = 0.0, \
     .max = 1e-3, .optional = 1, .def = 0.0, \
     .help = "controller processing time per command, serial (s)"}, \
    {.key = "read_stall_fraction", .dim = UNITS_NUMBER, .offset = FLASH_OFF(read_stall_fraction), \
     .min = 0.0, .max = 0.5, .optional = 1, .def = 0.0, \
     .help = "share of read commands that find their die busy (program/erase, read retry) and wait"}, \
    {.key = "read_stall_time", .dim = UNITS_TIME, .offset = FLASH_OFF(read_stall_s), .min = 0.0, \
     .max = 0.1, .optional = 1, .def = 1e-3, \
     .help = "mean wait of a stalled read, exponential (s)"}, \
    {.key = "write_stall_fraction", .dim = UNITS_NUMBER, .offset = FLASH_OFF(write_stall_fraction), \
     .min = 0.0, .max = 0.5, .optional = 1, .def = 0.0, \
     .help = "share of write commands that find no free block and wait for garbage collection"}, \
    {.key = "write_stall_time", .dim = UNITS_TIME, .offset = FLASH_OFF(write_stall_s), .min = 0.0, \
     .max = 0.5, .optional = 1, .def = 5e-3, \
     .help = "mean wait of a write stalled by garbage collection, exponential (s)"}, \
    {.key = "mixed_flush", .dim = UNITS_BYTES, .offset = FLASH_OFF(mixed_flush_bytes), .min = 0.0, \
     .max = 16777216.0, .optional = 1, .def = 0.0, \
     .help = "write data programmed per buffer flush while reads interleave with writes, 0 = no such limit (bytes)"}, \
    {.key = "channels", .dim = UNITS_NUMBER, .offset = FLASH_OFF(channels), .min = 1, .max = 32, \
     .help = "flash channels"}, \
    {.key = "dies_per_channel", .dim = UNITS_NUMBER, .offset = FLASH_OFF(dies_per_channel), \
     .min = 1, .max = 64, .help = "dies per channel (each senses or programs one page at a time)"}, \
    {.key = "page", .dim = UNITS_BYTES, .offset = FLASH_OFF(page_bytes), .min = 2048, \
     .max = 65536, .optional = 1, .def = 16384, .help = "flash page (bytes)"}, \
    {.key = "channel_rate", .dim = UNITS_RATE, .offset = FLASH_OFF(channel_rate_bytes_per_s), \
     .min = 10e6, .max = 4e9, .help = "flash bus rate of one channel, ONFI / Toggle (bytes/s)"}, \
    {.key = "read_rate", .dim = UNITS_RATE, .offset = FLASH_OFF(read_rate_bytes_per_s), \
     .min = 10e6, .max = 20e9, .help = "internal sequential read bandwidth cap (bytes/s)"}, \
    {.key = "write_rate", .dim = UNITS_RATE, .offset = FLASH_OFF(write_rate_bytes_per_s), \
     .min = 10e6, .max = 20e9, .help = "internal sequential write bandwidth cap (bytes/s)"},

/* Parameter rows shared by sata_ssd and nvme: preconditioning and power states. */
#define FLASH_STATE_PARAMS \
    {.key = "preconditioned", .dim = UNITS_NUMBER, .offset = FLASH_OFF(preconditioned), .min = 0, \
     .max = 1, .optional = 1, .def = 1, \
     .help = "1: steady state (written full before), 0: fresh out of box"}, \
    {.key = "steady_state_write_factor", .dim = UNITS_NUMBER, \
     .offset = FLASH_OFF(steady_state_write_factor), .min = 1, .max = 20, .optional = 1, .def = 3, \
     .help = "write amplification of uniform random writes over the whole drive in steady state"}, \
    {.key = "power_active", .dim = UNITS_POWER, .offset = FLASH_OFF(power_active_W), .min = 0.05, \
     .max = 25, .help = "power while serving requests (W)"}, \
    {.key = "power_idle", .dim = UNITS_POWER, .offset = FLASH_OFF(power_idle_W), .min = 0.01, \
     .max = 15, .help = "power when idle (W)"}, \
    {.key = "power_standby", .dim = UNITS_POWER, .offset = FLASH_OFF(power_standby_W), .min = 0, \
     .max = 15, .optional = 1, .def = 0, .help = "power in the low-power state (W): DEVSLP / NVMe APST"}, \
    {.key = "standby_after", .dim = UNITS_TIME, .offset = FLASH_OFF(standby_after_s), .min = 0, \
     .max = 86400, .optional = 1, .def = 0, .help = "idle time before low power (s), 0 = never"}, \
    {.key = "wake_time", .dim = UNITS_TIME, .offset = FLASH_OFF(wake_time_s), .min = 0, .max = 1, \
     .optional = 1, .def = 0, .help = "exit latency from low power (s)"},

#endif
