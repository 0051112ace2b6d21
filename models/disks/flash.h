/* flash.h - the flash SSD engine shared by "sata_ssd" (ssd.c) and "nvme"
 * (nvme.c).  The two models share every function and differ in their
 * parameter tables and host link (SATA port vs PCIe link).
 *
 * Mechanism (all stages are FIFO resources, computed at submit time):
 *   1. command slots: at most `outstanding` commands in the device (SATA
 *      NCQ 32; NVMe queues x depth); later ones wait for a free slot;
 *   2. controller: a serial per-command processing time (cmd_time);
 *   3. flash units (channels x dies_per_channel): a command of n bytes is
 *      ceil(n / page) page operations, each taking the earliest free unit
 *      for read_latency (reads) or write_latency x WA (writes);
 *   4. the controller's data path at read_rate / write_rate;
 *   5. the host link (SATA 8b/10b payload, or PCIe lanes), then any
 *      shared upstream link.
 * WA = steady_state_write_factor for non-sequential writes when
 * preconditioned, else 1. */
#ifndef NASTWIN_FLASH_H
#define NASTWIN_FLASH_H

#include <stdint.h>

#include "models/disks/disk_impl.h"

struct flash_params {
  double capacity_bytes;
  double read_latency_s;  /* flash unit occupancy per page read */
  double write_latency_s; /* flash unit occupancy per page program (fresh) */
  double cmd_time_s;      /* controller time per command */
  double channels;
  double dies_per_channel;
  double page_bytes;
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

#endif
