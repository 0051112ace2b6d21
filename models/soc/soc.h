/* soc.h - the NAS's system-on-chip: cores, clock, microarchitecture,
 * memory bandwidth, offload engines and power, as a parameter table for
 * the catalogue (catalog/socs.yaml) and the scenario.
 *
 * CPU work everywhere in nastwin is counted in *reference cycles*: the
 * cycles a reference core (Intel Atom "Bonnell", as in the D510/D525,
 * work_per_cycle = 1 by definition) would spend.  A core of this SoC
 * executes clock * work_per_cycle reference cycles per second; that is the
 * SimGrid host speed ("flops" = reference cycles), so a cost in reference
 * cycles divided by the host speed is the time on this SoC.
 *
 * The engine builds one SimGrid host with `cores` cores (hyper-threads are
 * not extra cores: see README) at soc_effective_speed_cycles_per_s().
 * Pure C, no SimGrid. */
#ifndef NASTWIN_SOC_H
#define NASTWIN_SOC_H

#include <stddef.h>

#include "models/soc/accel.h"
#include "base/err.h"
#include "base/params.h"

struct soc_params {
  double cores;                       /* physical cores (count) */
  double threads_per_core;            /* SMT threads per core (count) */
  double clock_hz;
  double work_per_cycle;              /* reference cycles per cycle (1 = Bonnell) */
  double mem_bandwidth_bytes_per_s;   /* sustained memcpy-class bandwidth; 0 = from the DRAM
                                         figures (soc_mem_bandwidth) */
  double crypto_engine_rate_bytes_per_s; /* 0 = no engine */
  double crypto_engine_setup_s;       /* per job */
  double crypto_engine_decrypt_speedup; /* CBC decrypt / encrypt throughput of the engine (>= 1) */
  double crypto_engine_queues;        /* DMA queues, each with its own AES data path (count) */
  double parity_engine_rate_bytes_per_s; /* 0 = no engine (XOR/P+Q DMA) */
  double parity_engine_setup_s;       /* per job */
  double power_idle_W;                /* whole SoC, idle */
  double power_core_busy_W;           /* per busy core, above idle, at power_ref_clock */
  double power_ref_clock_hz;          /* clock the power figures are stated at; 0 = power
                                         does not follow clock and voltage */
  double power_ref_cores;             /* cores whose leakage power_idle includes (count; 0 = cores) */
  double voltage_ref_V;               /* core voltage at power_ref_clock */
  double volts_per_ghz;               /* DVFS slope: V(f) = voltage_ref + slope (f - f_ref) */
  double power_core_leak_W;           /* leakage of one powered core at voltage_ref (inside power_idle) */
  double irq_core;                    /* core taking NIC interrupts; -1 = spread */
  double disk_request_cycles;         /* block layer + SATA driver + completion IRQ per request
                                         sent to a disk (reference cycles) */
  double md_stripe_cycles;            /* md raid5d per stripe_head handled (reference cycles) */
  double ssdcache_io_cycles;          /* SSD-cache layer per I/O it handles (reference cycles) */
  double md_stripe_dev_cycles;        /* md raid5d per member device of a stripe_head */
  double l2_cache_bytes;              /* last-level cache shared by the cores; 0 = not modelled */
  double kernel_working_set_bytes;    /* lines one work item of a NAS path (protocol daemon,
                                         softirq, flusher, block layer, md) touches; 0 = not modelled */
  double kernel_cold_bytes;           /* lines of one such work item no cache holds for it (its
                                         request's fresh structures): compulsory misses */
  double l2_ways;                     /* L2 associativity; 0 = treated as fully associative */
  double cache_line_bytes;            /* L2 line (needed with l2_cache_bytes) */
  double dram_latency_s;              /* L2 miss to data: controller, DRAM row + column, return */
  double dram_bus_bits;               /* DRAM data bus width (bits) */
  double dram_transfer_rate;          /* DRAM transfers per second (DDR3-1333: 1.333e9) */
  double misses_in_flight;            /* line fills one core keeps outstanding at once */
  double dram_efficiency;             /* sustained streaming bandwidth / bus peak; 0 = mem_bandwidth given */
};

extern const struct param_desc soc_param_table[];
extern const size_t soc_param_count;

/* Cross-field checks (whole counts, irq_core < cores).  0, or -1 with err
 * naming the key, the value and the allowed range. */
int soc_check(const struct soc_params *p, struct nw_err *err);

/* Reference cycles one core executes per second (cycles/s): clock * work_per_cycle.
 * This is the SimGrid host speed. */
double soc_effective_speed_cycles_per_s(const struct soc_params *p);

/* Time one core needs for `cycles` reference cycles (s). */
double soc_cycles_to_s(const struct soc_params *p, double cycles);

/* Reference cycles per second of the whole SoC, all cores busy (cycles/s). */
double soc_total_speed_cycles_per_s(const struct soc_params *p);

/* CMOS power that follows the silicon (with power_ref_clock > 0): core
 * voltage V(f) = voltage_ref + volts_per_ghz (f - f_ref) (at least half
 * of voltage_ref); a busy core draws power_core_busy (f / f_ref)
 * (V / voltage_ref)^2 (dynamic, C V^2 f), every powered core leaks
 * power_core_leak V / voltage_ref.  At the reference clock and core count
 * these are power_core_busy and power_idle exactly. */
double soc_power_idle_W(const struct soc_params *p);     /* all cores idle (W) */
double soc_power_core_busy_W(const struct soc_params *p); /* per busy core, above idle (W) */

/* SoC power with busy_cores (0..cores, may be fractional) busy (W). */
double soc_power_W(const struct soc_params *p, double busy_cores);

/* Sustained memory bandwidth of the SoC (bytes/s): mem_bandwidth when
 * given, else dram_efficiency x the bus's peak (dram_bus_width / 8 x
 * dram_transfer_rate): 16-bit DDR3-1333 at 0.7 is ~1.87 GB/s. */
double soc_mem_bandwidth(const struct soc_params *p);

/* Time to copy `bytes` in memory (s): it reads and writes them, 2 * bytes / bandwidth. */
double soc_mem_copy_s(const struct soc_params *p, double bytes);

/* Rate one core refills evicted lines from DRAM (bytes/s).  With
 * cache_line set, from the memory system: each demand miss waits the DRAM
 * latency plus the line's burst over the bus (line / (bus_bits / 8 x
 * transfer rate)); misses_in_flight of them overlap; at most the
 * sustained bandwidth (soc_mem_bandwidth).  A 32 B line over a 16-bit
 * DDR3-1333 bus at ~110 ns: ~0.26 GB/s.  Needs the DRAM figures
 * (soc_check). */
double soc_cache_refill_rate(const struct soc_params *p);

/* Stall of one daemon request refilling its working set from DRAM (s).
 * working_set_bytes: the lines of its own one request of a daemon
 * process touches (heap, stack, connection state); sharing: the
 * processes (or paths) that ran since this one last ran, this one
 * included (count), each with a working set of that size.  They share
 * the L2: while they fit (sharing * working_set <= L2) nothing is
 * refilled; beyond, a process finds the share L2 / (sharing *
 * working_set) of its own lines still
 * cached (random replacement, which the Cortex-A15's L2 uses) and refills
 * the rest at soc_cache_refill_rate.  With l2_ways A set, the L2 is A-way
 * set associative: the lines of scattered 4 KiB pages (slab objects,
 * stacks, sk_buffs, page-cache pages) fall into its sets at random, so a
 * set holds k ~ Poisson(lambda = A x footprint / L2) of them and the ones
 * beyond A take turns: the share refilled is E[(k - A)+] / lambda, which
 * starts below the full L2 (a few sets overflow first) and tends to
 * 1 - L2 / footprint far beyond it.  0 when alone (sharing <= 1: its
 * own conflicts are in its cycles) and when l2_cache_bytes or
 * working_set_bytes is 0 (mechanism not modelled). */
double soc_cache_refill_s(const struct soc_params *p, double working_set_bytes, int sharing);

/* Stall of one work item of a NAS path (protocol daemon, receive
 * softirq, flusher, block layer, md) refilling the lines the work items
 * that ran since its path last ran have evicted (s): each of those
 * `items_since` touched kernel_working_set bytes of its own, so with
 * random replacement the path finds L2 / ((items_since + 1) x working
 * set) of its lines still cached and refills the rest at
 * soc_cache_refill_rate (soc_cache_refill_s).  A small L2 behind a narrow
 * DRAM bus pays it on every small I/O, as all paths take turns on the
 * core.  Plus the item's compulsory misses, kernel_cold_bytes at the same
 * rate, alone or not.  The engine charges it only where kernel_working_set
 * is set; the evicted part is 0 when l2_cache or kernel_working_set is 0. */
double soc_kernel_stall_s(const struct soc_params *p, double items_since);

/* 1 if the SoC has a crypto engine (rate > 0). */
int soc_has_crypto_engine(const struct soc_params *p);

/* 1 if the SoC has a parity (XOR / RAID-6) engine (rate > 0). */
int soc_has_parity_engine(const struct soc_params *p);

/* Initialise *a as this SoC's crypto engine; 0, or -1 (a untouched) when there is none. */
int soc_crypto_engine_init(const struct soc_params *p, struct accel *a);

/* Initialise *a as this SoC's parity engine; 0, or -1 (a untouched) when there is none. */
int soc_parity_engine_init(const struct soc_params *p, struct accel *a);

#endif
