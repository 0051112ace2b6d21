#include "models/soc/soc.h"

#include <math.h>

#define SOC_OFF(field) offsetof(struct soc_params, field)

/* Ranges: embedded/server SoCs of NAS units (1..64 cores, 0.1..5 GHz);
 * work_per_cycle 0.1..4 spans a simple in-order ARM9 to a wide modern
 * out-of-order core relative to Bonnell; engines up to 100 GB/s; power of
 * a NAS SoC up to 200 W. */
const struct param_desc soc_param_table[] = {
    {.key = "cores", .dim = UNITS_NUMBER, .whole = 1, .offset = SOC_OFF(cores), .min = 1, .max = 64,
     .help = "physical cores (count)"},
    {.key = "threads_per_core", .dim = UNITS_NUMBER, .whole = 1, .offset = SOC_OFF(threads_per_core), .min = 1,
     .max = 8, .optional = 1, .def = 1, .help = "SMT threads per core (count)"},
    {.key = "clock", .dim = UNITS_FREQ, .offset = SOC_OFF(clock_hz), .min = 1e8, .max = 5e9,
     .help = "core clock (Hz)"},
    {.key = "work_per_cycle", .dim = UNITS_NUMBER, .offset = SOC_OFF(work_per_cycle), .min = 0.1,
     .max = 4, .optional = 1, .def = 1,
     .help = "useful work per cycle relative to the reference core (Atom Bonnell = 1)"},
    {.key = "mem_bandwidth", .dim = UNITS_RATE, .offset = SOC_OFF(mem_bandwidth_bytes_per_s),
     .min = 0, .max = 2e11, .optional = 1, .def = 0,
     .help = "sustained memory copy bandwidth (bytes/s); 0B/s = dram_efficiency x the DRAM bus's peak"},
    {.key = "crypto_engine_rate", .dim = UNITS_RATE,
     .offset = SOC_OFF(crypto_engine_rate_bytes_per_s), .min = 0, .max = 1e11, .optional = 1,
     .def = 0, .help = "AES engine throughput per queue (bytes/s); 0B/s = no engine"},
    {.key = "crypto_engine_setup", .dim = UNITS_TIME, .offset = SOC_OFF(crypto_engine_setup_s),
     .min = 0, .max = 1e-3, .optional = 1, .def = 0, .help = "crypto engine per-job setup (s)"},
    /* AES-CBC encryption is a serial chain (each block needs the previous
     * ciphertext) while decryption is not: an engine with several AES
     * pipelines (or one deep pipeline) decrypts up to that many blocks at
     * once, so decrypt throughput = speedup x crypto_engine_rate.  1 = one
     * block at a time either way; bound: pipeline depths of embedded engines. */
    {.key = "crypto_engine_decrypt_speedup", .dim = UNITS_NUMBER,
     .offset = SOC_OFF(crypto_engine_decrypt_speedup), .min = 1, .max = 16, .optional = 1, .def = 1,
     .help = "crypto engine CBC decryption throughput / encryption throughput"},
    /* The engine's DMA queues, each with its own AES data path at
     * crypto_engine_rate: jobs queued together (a reader's requests in
     * flight) run on all of them at once, a synchronous submitter (the
     * write-back's page-by-page encryption) keeps one busy.  Bound: the
     * queue count of embedded DMA engines. */
    {.key = "crypto_engine_queues", .dim = UNITS_NUMBER, .offset = SOC_OFF(crypto_engine_queues),
     .min = 1, .max = ACCEL_MAX_QUEUES, .optional = 1, .def = 1,
     .help = "crypto engine DMA queues, each with its own AES data path (count)"},
    {.key = "parity_engine_rate", .dim = UNITS_RATE,
     .offset = SOC_OFF(parity_engine_rate_bytes_per_s), .min = 0, .max = 1e11, .optional = 1,
     .def = 0, .help = "XOR / RAID-6 DMA engine throughput (bytes/s); 0B/s = no engine"},
    {.key = "parity_engine_setup", .dim = UNITS_TIME, .offset = SOC_OFF(parity_engine_setup_s),
     .min = 0, .max = 1e-3, .optional = 1, .def = 0, .help = "parity engine per-job setup (s)"},
    {.key = "power_idle", .dim = UNITS_POWER, .offset = SOC_OFF(power_idle_W), .min = 0, .max = 200,
     .optional = 1, .def = 0, .help = "SoC power when idle (W)"},
    {.key = "power_core_busy", .dim = UNITS_POWER, .offset = SOC_OFF(power_core_busy_W), .min = 0,
     .max = 50, .optional = 1, .def = 0, .help = "extra power per busy core (W) at power_ref_clock"},
    {.key = "power_ref_clock", .dim = UNITS_FREQ, .offset = SOC_OFF(power_ref_clock_hz), .min = 0, .max = 5e9,
     .optional = 1, .def = 0,
     .help = "clock the power figures are stated at (Hz); 0Hz = power does not follow clock and voltage"},
    {.key = "power_ref_cores", .dim = UNITS_NUMBER, .offset = SOC_OFF(power_ref_cores), .min = 0, .max = 256,
     .optional = 1, .def = 0, .help = "cores whose leakage power_idle includes (count; 0 = cores)"},
    {.key = "voltage_ref", .dim = UNITS_NUMBER, .offset = SOC_OFF(voltage_ref_V), .min = 0, .max = 2,
     .optional = 1, .def = 0, .help = "core voltage at power_ref_clock (V)"},
    {.key = "volts_per_ghz", .dim = UNITS_NUMBER, .offset = SOC_OFF(volts_per_ghz), .min = 0, .max = 1,
     .optional = 1, .def = 0, .help = "DVFS slope of the core voltage (V per GHz)"},
    {.key = "power_core_leak", .dim = UNITS_POWER, .offset = SOC_OFF(power_core_leak_W), .min = 0, .max = 10,
     .optional = 1, .def = 0, .help = "leakage of one powered core at voltage_ref (W, inside power_idle)"},
    {.key = "irq_core", .dim = UNITS_NUMBER, .whole = 1, .offset = SOC_OFF(irq_core), .min = -1, .max = 63,
     .optional = 1, .def = 0,
     .help = "core that takes NIC interrupts and softirq work (-1 = spread over all cores)"},
    /* every request sent to a member disk goes through the block layer
     * (bio split/merge, elevator, blk-mq tag), the SCSI/libata command
     * build and the AHCI submit, then a completion interrupt and the block
     * softirq (bio_endio up the md/eCryptfs stack): a few microseconds per
     * request on these cores.  Bounds: ~2.5 us .. 25 us on a 2 GHz
     * reference core. */
    {.key = "disk_request_cycles", .dim = UNITS_NUMBER, .offset = SOC_OFF(disk_request_cycles),
     .min = 0, .max = 2e5, .optional = 1, .def = 1.5e4,
     .help = "CPU per request sent to a disk: block layer, SATA driver, completion IRQ (reference cycles)"},
    /* md RAID-5/6 handles resync, rebuild, reshape and writes 4 KiB
     * stripe_head by stripe_head on ONE kernel thread (raid5d;
     * group_thread_cnt 0 by default): handle_stripe walks the stripe's
     * state machine over its devices, once per event (reads done, parity
     * or copy done, writes done), allocating and ending one bio per device
     * page.  Kernel code on this CPU: a catalogue unknown per SoC (no
     * default).  Bounds: ~1 us .. 75 us per stripe_head on a 2 GHz
     * reference core, 0.1 .. 4 us per device. */
    {.key = "md_stripe_cycles", .dim = UNITS_NUMBER, .offset = SOC_OFF(md_stripe_cycles), .min = 0,
     .max = 1.5e5, .help = "md raid5d CPU per stripe_head handled (reference cycles)"},
    /* DSM's SSD cache (flashcache-derived): per bio the set look-up (a scan
     * of the set), LRU update, remap and completion, on the cache's kernel
     * path.  Kernel code on this CPU: a catalogue unknown per SoC (no
     * default).  Bounds: ~1 us .. 50 us on a 2 GHz reference core. */
    {.key = "ssdcache_io_cycles", .dim = UNITS_NUMBER, .offset = SOC_OFF(ssdcache_io_cycles), .min = 0,
     .max = 1e6, .help = "SSD-cache layer CPU per I/O it handles (reference cycles)"},
    {.key = "md_stripe_dev_cycles", .dim = UNITS_NUMBER, .offset = SOC_OFF(md_stripe_dev_cycles),
     .min = 0, .max = 1e4,
     .help = "md raid5d CPU per member device of a stripe_head (reference cycles)"},
    /* Shared L2 of the cores (the last level on these SoCs): Cortex-A15
     * 512 KiB..4 MiB, Atom 512 KiB per core pair, server parts up to
     * 64 MiB.  0 = not modelled (no working-set refills). */
    {.key = "l2_cache", .dim = UNITS_BYTES, .offset = SOC_OFF(l2_cache_bytes), .min = 0, .max = 64.0 * 1048576,
     .optional = 1, .def = 0, .help = "last-level cache shared by the cores (bytes); 0B = not modelled"},
    /* What one work item of a kernel path touches besides its data: the
     * path's code, its structures (sk_buff, svc_rqst, bio, stripe_head,
     * page and radix-tree nodes), its stack: a few KiB to ~100 KiB.  0 =
     * not modelled. */
    {.key = "kernel_working_set", .dim = UNITS_BYTES, .offset = SOC_OFF(kernel_working_set_bytes),
     .min = 0, .max = 4.0 * 1048576, .optional = 1, .def = 0,
     .help = "cache footprint of one work item of a NAS path: daemon, softirq, flusher, "
             "block layer, md (bytes); 0B = not modelled"},
    /* The lines of one work item that no cache can hold for it: the
     * request's own structures and headers, written since by the NIC's
     * DMA or by another path on the other side of the hand-off (the
     * sk_buff and its headers, the RPC/SMB buffers and svc_rqst, the bio,
     * struct page and radix-tree nodes of the pages it maps): compulsory
     * misses, refilled at the memory system's rate on every item however
     * few paths take turns.  A few KiB per item (2..16 KiB).  0 = not
     * modelled (a core whose reference cycles already hold them). */
    {.key = "kernel_cold_bytes", .dim = UNITS_BYTES, .offset = SOC_OFF(kernel_cold_bytes),
     .min = 0, .max = 1048576, .optional = 1, .def = 0,
     .help = "lines one work item of a NAS path misses whatever the cache holds: its request's "
             "structures, fresh from DMA or another path (bytes); 0B = not modelled"},
    /* Ways of the L2: 4..16 on these SoCs (Aurora L2 4/8, Cortex-A15
     * 16, Atom 8).  0 = fully associative (overflow only past the size). */
    {.key = "l2_ways", .dim = UNITS_NUMBER, .whole = 1, .offset = SOC_OFF(l2_ways), .min = 0, .max = 64, .optional = 1,
     .def = 0, .help = "L2 associativity (ways, count); 0 = treated as fully associative"},
    /* The memory system behind the L2, for the refill rate
     * (soc_cache_refill_rate): line 32 B (Marvell PJ4B / Aurora L2) or
     * 64 B (Cortex-A15, Atom); DRAM load latency ~50..250 ns on these
     * SoCs; buses 16..128 bits at 400..3200 MT/s; a core keeps 1..~10
     * line fills outstanding (a process's evicted lines come back as
     * demand misses scattered over its code and heap, not as a prefetched
     * stream).  Needed with l2_cache. */
    {.key = "cache_line", .dim = UNITS_BYTES, .offset = SOC_OFF(cache_line_bytes), .min = 0, .max = 256,
     .optional = 1, .def = 0, .help = "L2 cache line (bytes); needed with l2_cache"},
    {.key = "dram_latency", .dim = UNITS_TIME, .offset = SOC_OFF(dram_latency_s), .min = 0, .max = 500e-9,
     .optional = 1, .def = 0, .help = "time from an L2 miss to its data: controller, DRAM row and column (s)"},
    {.key = "dram_bus_width", .dim = UNITS_NUMBER, .offset = SOC_OFF(dram_bus_bits), .min = 0, .max = 128,
     .optional = 1, .def = 0, .help = "DRAM data bus width (bits)"},
    {.key = "dram_transfer_rate", .dim = UNITS_FREQ, .offset = SOC_OFF(dram_transfer_rate), .min = 0,
     .max = 6.4e9, .optional = 1, .def = 0,
     .help = "DRAM data transfers per second (DDR3-1333: 1333MHz)"},
    {.key = "misses_in_flight", .dim = UNITS_NUMBER, .offset = SOC_OFF(misses_in_flight), .min = 1, .max = 16,
     .optional = 1, .def = 1, .help = "cache line fills one core keeps outstanding at once (count)"},
    /* A stream (memcpy, DMA) does not reach the bus's peak: read/write
     * turnarounds, refresh, row misses and the controller's scheduling
     * leave STREAM-class copies at ~50..85 % of it on DDR2/DDR3/DDR4. */
    {.key = "dram_efficiency", .dim = UNITS_NUMBER, .offset = SOC_OFF(dram_efficiency), .min = 0, .max = 1,
     .optional = 1, .def = 0,
     .help = "sustained streaming bandwidth / the DRAM bus's peak (fraction); gives mem_bandwidth"},
};
const size_t soc_param_count = PARAM_COUNT(soc_param_table);

static double soc_dram_peak(const struct soc_params *p)
{
  return p->dram_bus_bits / 8.0 * p->dram_transfer_rate;
}

/* The memory system: mem_bandwidth given or from the DRAM figures (not
 * both); an L2 needs its line and the DRAM figures for its refill rate. */
static int soc_check_memory(const struct soc_params *p, struct nw_err *err)
{
  int dram = p->dram_bus_bits > 0 && p->dram_transfer_rate > 0;
  if ((p->mem_bandwidth_bytes_per_s > 0) == (p->dram_efficiency > 0 && dram))
    return nw_fail(err, NULL, 0, 0,
                   "soc: give either mem_bandwidth (got %g B/s) or dram_efficiency with dram_bus_width and "
                   "dram_transfer_rate (got %g, %g bits, %g transfers/s), not both or neither",
                   p->mem_bandwidth_bytes_per_s, p->dram_efficiency, p->dram_bus_bits, p->dram_transfer_rate);
  if (p->l2_cache_bytes > 0 && (p->cache_line_bytes <= 0 || p->dram_latency_s <= 0 || !dram))
    return nw_fail(err, NULL, 0, 0,
                   "soc: l2_cache %g B needs cache_line, dram_latency, dram_bus_width and dram_transfer_rate "
                   "above 0 (got %g B, %g s, %g bits, %g transfers/s) to give the refill rate",
                   p->l2_cache_bytes, p->cache_line_bytes, p->dram_latency_s, p->dram_bus_bits,
                   p->dram_transfer_rate);
  return 0;
}

int soc_check(const struct soc_params *p, struct nw_err *err)
{
  if (p->power_ref_clock_hz > 0 &&
      p->power_core_leak_W * (p->power_ref_cores > 0 ? p->power_ref_cores : p->cores) > p->power_idle_W)
    return nw_fail(err, NULL, 0, 0,
                   "soc: power_core_leak %g W x %g reference cores exceeds power_idle %g W (the idle figure "
                   "includes the leakage)", p->power_core_leak_W,
                   p->power_ref_cores > 0 ? p->power_ref_cores : p->cores, p->power_idle_W);
  if (soc_check_memory(p, err) < 0)
    return -1;
  if (p->irq_core >= p->cores)
    return nw_fail(err, NULL, 0, 0,
                   "soc: irq_core %g is not a core of this SoC: must be between -1 and %g "
                   "inclusive",
                   p->irq_core, p->cores - 1);
  return 0;
}

double soc_effective_speed_cycles_per_s(const struct soc_params *p)
{
  return p->clock_hz * p->work_per_cycle;
}

double soc_cycles_to_s(const struct soc_params *p, double cycles)
{
  return cycles / soc_effective_speed_cycles_per_s(p);
}

double soc_total_speed_cycles_per_s(const struct soc_params *p)
{
  return p->cores * soc_effective_speed_cycles_per_s(p);
}

/* V(f) / voltage_ref (1 when power does not follow the silicon). */
static double soc_voltage_scale(const struct soc_params *p)
{
  if (p->power_ref_clock_hz <= 0 || p->voltage_ref_V <= 0)
    return 1.0;
  double v = p->voltage_ref_V + p->volts_per_ghz * (p->clock_hz - p->power_ref_clock_hz) / 1e9;
  if (v < 0.5 * p->voltage_ref_V)
    v = 0.5 * p->voltage_ref_V;
  return v / p->voltage_ref_V;
}

double soc_power_idle_W(const struct soc_params *p)
{
  if (p->power_ref_clock_hz <= 0)
    return p->power_idle_W;
  double ref = p->power_ref_cores > 0 ? p->power_ref_cores : p->cores;
  return p->power_idle_W + p->power_core_leak_W * (p->cores * soc_voltage_scale(p) - ref);
}

double soc_power_core_busy_W(const struct soc_params *p)
{
  if (p->power_ref_clock_hz <= 0)
    return p->power_core_busy_W;
  double v = soc_voltage_scale(p);
  return p->power_core_busy_W * (p->clock_hz / p->power_ref_clock_hz) * v * v;
}

double soc_power_W(const struct soc_params *p, double busy_cores)
{
  if (busy_cores < 0.0)
    busy_cores = 0.0;
  if (busy_cores > p->cores)
    busy_cores = p->cores;
  return soc_power_idle_W(p) + busy_cores * soc_power_core_busy_W(p);
}

double soc_mem_bandwidth(const struct soc_params *p)
{
  if (p->mem_bandwidth_bytes_per_s > 0)
    return p->mem_bandwidth_bytes_per_s;
  return p->dram_efficiency * soc_dram_peak(p);
}

double soc_mem_copy_s(const struct soc_params *p, double bytes)
{
  return 2.0 * bytes / soc_mem_bandwidth(p);
}

double soc_cache_refill_rate(const struct soc_params *p)
{
  double line_s = p->dram_latency_s + p->cache_line_bytes / soc_dram_peak(p);
  double rate = p->misses_in_flight * p->cache_line_bytes / line_s;
  double sustained = soc_mem_bandwidth(p);
  return rate < sustained ? rate : sustained;
}

/* Share of a footprint's lines an A-way L2 cannot keep: a set holds k ~
 * Poisson(lambda) of them, lambda = A x footprint / L2; the k - A beyond
 * its ways take turns (random replacement).  E[(k - A)+] / lambda, with
 * E[(k - A)+] = lambda - A + sum_{k < A} (A - k) P(k). */
static double soc_set_overflow_share(double ways, double footprint_over_l2)
{
  double lambda = ways * footprint_over_l2;
  double pk = exp(-lambda), below = 0.0;
  for (int k = 0; k < (int)ways; k++) {
    below += (ways - k) * pk;
    pk *= lambda / (k + 1);
  }
  double share = (lambda - ways + below) / lambda;
  return share > 0.0 ? share : 0.0;
}

double soc_cache_refill_s(const struct soc_params *p, double working_set_bytes, int sharing)
{
  /* Alone, a path's misses on its own lines are part of its measured
   * cost (its cycles); only the others' lines evict. */
  double footprint_bytes = sharing * working_set_bytes;
  if (p->l2_cache_bytes <= 0.0 || working_set_bytes <= 0.0 || sharing <= 1)
    return 0.0;
  double share;
  if (p->l2_ways > 0)
    share = soc_set_overflow_share(p->l2_ways, footprint_bytes / p->l2_cache_bytes);
  else
    share = footprint_bytes <= p->l2_cache_bytes ? 0.0 : 1.0 - p->l2_cache_bytes / footprint_bytes;
  return working_set_bytes * share / soc_cache_refill_rate(p);
}

double soc_kernel_stall_s(const struct soc_params *p, double items_since)
{
  double n = items_since < 0.0 ? 1.0 : items_since + 1.0;
  if (n > 1e6)
    n = 1e6;
  double cold_s = p->kernel_cold_bytes > 0.0 ? p->kernel_cold_bytes / soc_cache_refill_rate(p) : 0.0;
  return soc_cache_refill_s(p, p->kernel_working_set_bytes, (int)n) + cold_s;
}

int soc_has_crypto_engine(const struct soc_params *p)
{
  return p->crypto_engine_rate_bytes_per_s > 0.0;
}

int soc_has_parity_engine(const struct soc_params *p)
{
  return p->parity_engine_rate_bytes_per_s > 0.0;
}

int soc_crypto_engine_init(const struct soc_params *p, struct accel *a)
{
  if (!soc_has_crypto_engine(p))
    return -1;
  accel_init(a, "crypto", p->crypto_engine_rate_bytes_per_s, p->crypto_engine_setup_s);
  accel_set_queues(a, (int)p->crypto_engine_queues);
  return 0;
}

int soc_parity_engine_init(const struct soc_params *p, struct accel *a)
{
  if (!soc_has_parity_engine(p))
    return -1;
  accel_init(a, "parity", p->parity_engine_rate_bytes_per_s, p->parity_engine_setup_s);
  return 0;
}
