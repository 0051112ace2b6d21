/* nvme.c - model "nvme": the flash engine of ssd.c (see flash.h) behind a
 * full-duplex PCIe link of pcie_lanes lanes of generation pcie_gen, with
 * queue_count x queue_depth commands outstanding. */
#include <stddef.h>

#include "models/disks/flash.h"

static const struct param_desc nvme_params_table[] = {
    FLASH_MEDIA_PARAMS
    {.key = "pcie_gen", .dim = UNITS_NUMBER, .offset = FLASH_OFF(pcie_gen), .min = 1, .max = 5,
     .help = "PCIe generation 1..5 (lane payload 250, 500, 985, 1969, 3938 MB/s)"},
    {.key = "pcie_lanes", .dim = UNITS_NUMBER, .offset = FLASH_OFF(pcie_lanes), .min = 1,
     .max = 16, .help = "PCIe lanes of the link"},
    {.key = "queue_count", .dim = UNITS_NUMBER, .offset = FLASH_OFF(queue_count), .min = 1,
     .max = 128, .optional = 1, .def = 8, .help = "I/O submission queues in use"},
    {.key = "queue_depth", .dim = UNITS_NUMBER, .offset = FLASH_OFF(queue_depth), .min = 1,
     .max = 4096, .optional = 1, .def = 1024, .help = "commands per submission queue"},
    FLASH_STATE_PARAMS
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
    .discard = 1,
    .next_completion_s = flash_next_completion_s,
    .pop_completion = flash_pop_completion,
    .stats = flash_stats,
    .attach_link = flash_attach_link,
    .precondition = flash_precondition,
};
