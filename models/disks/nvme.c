/* nvme.c - model "nvme": the flash engine of ssd.c (see flash.h) behind a
 * full-duplex PCIe link of pcie_lanes lanes of generation pcie_gen, with
 * queue_count x queue_depth commands outstanding. */
#include <stddef.h>

#include "models/disks/flash.h"

#define NVME_OFF(field) offsetof(struct flash_params, field)

static const struct param_desc nvme_params_table[] = {
    {.key = "capacity", .dim = UNITS_BYTES, .offset = NVME_OFF(capacity_bytes), .min = 1e9,
     .max = 1e14, .help = "user capacity (bytes)"},
    {.key = "read_latency", .dim = UNITS_TIME, .offset = NVME_OFF(read_latency_s), .min = 5e-6,
     .max = 2e-3, .help = "flash unit busy time per page read (s)"},
    {.key = "write_latency", .dim = UNITS_TIME, .offset = NVME_OFF(write_latency_s), .min = 5e-6,
     .max = 1e-2, .help = "flash unit busy time per full page programmed, fresh drive (s)"},
    {.key = "cmd_time", .dim = UNITS_TIME, .offset = NVME_OFF(cmd_time_s), .min = 0.0,
     .max = 1e-3, .optional = 1, .def = 0.0,
     .help = "controller processing time per command, serial (s)"},
    {.key = "channels", .dim = UNITS_NUMBER, .offset = NVME_OFF(channels), .min = 1, .max = 32,
     .help = "flash channels"},
    {.key = "dies_per_channel", .dim = UNITS_NUMBER, .offset = NVME_OFF(dies_per_channel),
     .min = 1, .max = 64, .help = "independent flash units (dies/planes) per channel"},
    {.key = "page", .dim = UNITS_BYTES, .offset = NVME_OFF(page_bytes), .min = 2048,
     .max = 65536, .optional = 1, .def = 16384, .help = "flash page (bytes)"},
    {.key = "read_rate", .dim = UNITS_RATE, .offset = NVME_OFF(read_rate_bytes_per_s),
     .min = 10e6, .max = 20e9, .help = "internal sequential read bandwidth cap (bytes/s)"},
    {.key = "write_rate", .dim = UNITS_RATE, .offset = NVME_OFF(write_rate_bytes_per_s),
     .min = 10e6, .max = 20e9, .help = "internal sequential write bandwidth cap (bytes/s)"},
    {.key = "pcie_gen", .dim = UNITS_NUMBER, .offset = NVME_OFF(pcie_gen), .min = 1, .max = 5,
     .help = "PCIe generation 1..5 (lane payload 250, 500, 985, 1969, 3938 MB/s)"},
    {.key = "pcie_lanes", .dim = UNITS_NUMBER, .offset = NVME_OFF(pcie_lanes), .min = 1,
     .max = 16, .help = "PCIe lanes of the link"},
    {.key = "queue_count", .dim = UNITS_NUMBER, .offset = NVME_OFF(queue_count), .min = 1,
     .max = 128, .optional = 1, .def = 8, .help = "I/O submission queues in use"},
    {.key = "queue_depth", .dim = UNITS_NUMBER, .offset = NVME_OFF(queue_depth), .min = 1,
     .max = 4096, .optional = 1, .def = 1024, .help = "commands per submission queue"},
    {.key = "preconditioned", .dim = UNITS_NUMBER, .offset = NVME_OFF(preconditioned), .min = 0,
     .max = 1, .optional = 1, .def = 1,
     .help = "1: steady state (written full before), 0: fresh out of box"},
    {.key = "steady_state_write_factor", .dim = UNITS_NUMBER,
     .offset = NVME_OFF(steady_state_write_factor), .min = 1, .max = 20, .optional = 1, .def = 3,
     .help = "write amplification of random writes in steady state"},
    {.key = "power_active", .dim = UNITS_POWER, .offset = NVME_OFF(power_active_W), .min = 0.05,
     .max = 25, .help = "power while serving requests (W)"},
    {.key = "power_idle", .dim = UNITS_POWER, .offset = NVME_OFF(power_idle_W), .min = 0.01,
     .max = 15, .help = "power when idle (W)"},
    {.key = "power_standby", .dim = UNITS_POWER, .offset = NVME_OFF(power_standby_W), .min = 0,
     .max = 15, .optional = 1, .def = 0, .help = "power in the autonomous low-power state (W)"},
    {.key = "standby_after", .dim = UNITS_TIME, .offset = NVME_OFF(standby_after_s), .min = 0,
     .max = 86400, .optional = 1, .def = 0, .help = "idle time before low power (s), 0 = never"},
    {.key = "wake_time", .dim = UNITS_TIME, .offset = NVME_OFF(wake_time_s), .min = 0, .max = 1,
     .optional = 1, .def = 0, .help = "exit latency from low power (s)"},
};

const struct disk_model nvme_model = {
    .name = "nvme",
    .params = nvme_params_table,
    .nparams = PARAM_COUNT(nvme_params_table),
    .params_size = sizeof(struct flash_params),
    .check = flash_check_nvme,
    .capacity_bytes = flash_capacity_bytes,
    .create = flash_create_nvme,
    .destroy = flash_destroy,
    .submit = flash_submit,
    .next_completion_s = flash_next_completion_s,
    .pop_completion = flash_pop_completion,
    .stats = flash_stats,
    .attach_link = flash_attach_link,
};
