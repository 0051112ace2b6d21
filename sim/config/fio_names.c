/* fio_names.c - the classification of fio's option names and I/O engines.
 *
 * The names are fio's (3.33 and the options later fio added, up to 3.41:
 * its man page's JOB PARAMETERS and the common engine options).  Every
 * real option falls in one of four classes:
 *   - modelled: applied to the job (fio.c fio_modelled_keys, fio_dir.c);
 *   - timing-neutral (fio_neutral below): it changes only what fio logs or
 *     reports, the bytes' content, names, the client's CPU placement or
 *     hints no NAS protocol carries, so it does not change when any I/O of
 *     the simulated NAS starts or ends; accepted silently, each with the
 *     reason it is neutral;
 *   - not modelled (fio_unmodelled): it could change the I/O's timing but
 *     nastwin does not follow it; accepted with a warning naming it;
 *   - refused (fio_refused, fio_engine_refused): nastwin cannot honour it;
 *     an error with the reason.
 * A name in none of them is unknown (an error, with the nearest name). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/params.h"
#include "sim/config/fio_lang.h"

#define FIO_COUNT(t) (sizeof(t) / sizeof((t)[0]))

/* Why an option is timing-neutral for a simulated NAS client. */
#define N_LOG "what fio logs or reports, not the I/O"
#define N_DATA "the bytes' content or how fio checks it; the NAS models no compression or dedupe"
#define N_CPU "where and how the client's fio threads run; the client's CPU is not a modelled resource"
#define N_MEM "how the client allocates its I/O buffers"
#define N_RAND "which random numbers fio draws, not how they are spread"
#define N_SOFTMAP "fio drops its random map only when it cannot allocate it; nastwin's map takes no memory, " \
                  "so it is always kept"
#define N_NAME "names or places files on the share; the volume model has no directories"
#define N_HINT "a hint of the client's own block layer that SMB, NFS and iSCSI do not carry to the NAS"
#define N_TARGET "where the engine connects; the scenario names the NAS"
#define N_DEPR "deprecated in fio, which ignores it"
#define N_AFTER "acts before or after the measured I/O"
#define N_BURN "how ioengine=cpuio burns its share of a core (a spin or qsort, in chunks), not the share"
#define N_EXEC "what ioengine=exec's program is given or where its output goes; the program is not modelled"
#define N_ZRESET "fio resets the zones it emulates on a file or LUN without I/O; nastwin's zones open empty"

static const struct {
  const char *key;
  const char *why;
} fio_neutral[] = {
    {"block_error_percentiles", N_LOG}, {"bwavgtime", N_LOG}, {"clat_percentiles", N_LOG},
    {"disable_bw_measurement", N_LOG}, {"disable_clat", N_LOG}, {"disable_lat", N_LOG},
    {"disable_slat", N_LOG}, {"disk_util", N_LOG}, {"error_dump", N_LOG},
    {"clocksource", N_LOG}, {"gtod_cpu", N_LOG}, {"idle_prof", N_LOG}, {"iopsavgtime", N_LOG},
    {"job_start_clock_id", N_LOG}, {"lat_percentiles", N_LOG}, {"log_alternate_epoch", N_LOG},
    {"log_alternate_epoch_clock_id", N_LOG}, {"log_avg_msec", N_LOG}, {"log_compression", N_LOG},
    {"log_compression_cpus", N_LOG}, {"log_entries", N_LOG}, {"log_hist_coarseness", N_LOG},
    {"log_hist_msec", N_LOG}, {"log_issue_time", N_LOG}, {"log_max_value", N_LOG},
    {"log_offset", N_LOG}, {"log_prio", N_LOG}, {"log_store_compressed", N_LOG},
    {"log_unix_epoch", N_LOG}, {"log_window_value", N_LOG}, {"new_group", N_LOG},
    {"per_job_logs", N_LOG}, {"percentile_list", N_LOG}, {"significant_figures", N_LOG},
    {"slat_percentiles", N_LOG}, {"stats", N_LOG}, {"status_interval", N_LOG},
    {"unified_rw_reporting", N_LOG}, {"unit_base", N_LOG}, {"write_bw_log", N_LOG},
    {"write_hist_log", N_LOG}, {"write_iolog", N_LOG}, {"write_iops_log", N_LOG},
    {"write_lat_log", N_LOG}, {"verify_dump", N_LOG}, {"ters", N_LOG},
    {"buffer_compress_chunk", N_DATA}, {"buffer_compress_percentage", N_DATA},
    {"buffer_pattern", N_DATA}, {"dedupe_global", N_DATA}, {"dedupe_mode", N_DATA},
    {"dedupe_percentage", N_DATA}, {"dedupe_working_set_percentage", N_DATA},
    {"refill_buffers", N_DATA}, {"scramble_buffers", N_DATA}, {"zero_buffers", N_DATA},
    {"verify_pattern", N_DATA}, {"verify_pattern_interval", N_DATA}, {"verify_interval", N_DATA},
    {"verify_offset", N_DATA}, {"verify_fatal", N_DATA}, {"verify_write_sequence", N_DATA},
    {"verify_header_seed", N_DATA}, {"experimental_verify", N_DATA}, {"verify_state_save", N_DATA},
    {"verify_state_load", N_DATA}, {"pi_act", N_DATA}, {"pi_chk", N_DATA}, {"apptag", N_DATA},
    {"apptag_mask", N_DATA},
    {"cpumask", N_CPU}, {"cpus_allowed", N_CPU}, {"cpus_allowed_policy", N_CPU},
    {"numa_cpu_nodes", N_CPU}, {"numa_mem_policy", N_CPU}, {"nice", N_CPU}, {"thread", N_CPU},
    {"threads", N_CPU}, {"cgroup", N_CPU}, {"cgroup_nodelete", N_CPU}, {"uid", N_CPU}, {"gid", N_CPU},
    {"verify_async", N_CPU}, {"verify_async_cpus", N_CPU},
    {"iomem", N_MEM}, {"mem", N_MEM}, {"iomem_align", N_MEM}, {"hugepage-size", N_MEM},
    {"hugepage_size", N_MEM}, {"lockmem", N_MEM},
    {"randrepeat", N_RAND}, {"randseed", N_RAND}, {"allrandrepeat", N_RAND}, {"random_generator", N_RAND},
    {"softrandommap", N_SOFTMAP},
    {"directory", N_NAME}, {"dir", N_NAME}, {"filename_format", N_NAME}, {"unique_filename", N_NAME},
    {"opendir", N_NAME}, {"allow_file_create", N_NAME}, {"allow_mounted_write", N_NAME},
    {"filetype", N_NAME},
    {"prio", N_HINT}, {"prioclass", N_HINT}, {"priohint", N_HINT}, {"cmdprio", N_HINT},
    {"cmdprio_bssplit", N_HINT}, {"cmdprio_class", N_HINT}, {"cmdprio_hint", N_HINT}, {"cmdprio_percentage", N_HINT},
    {"write_hint", N_HINT}, {"dataplacement", N_HINT}, {"data_placement", N_HINT}, {"fdp", N_HINT},
    {"plids", N_HINT}, {"fdp_pli", N_HINT}, {"plid_select", N_HINT}, {"fdp_pli_select", N_HINT},
    {"dp_scheme", N_HINT},
    {"clientname", N_TARGET}, {"hostname", N_TARGET}, {"port", N_TARGET}, {"interface", N_TARGET},
    {"ttl", N_TARGET}, {"listen", "which end of a net job's connection connects; it is set up before the measured I/O"},
    {"namenode", N_TARGET}, {"volume", N_TARGET}, {"brick", N_TARGET}, {"pool", N_TARGET},
    {"rbdname", N_TARGET}, {"clustername", N_TARGET},
    {"nfs_url", N_TARGET}, {"libblkio_driver", N_TARGET}, {"libblkio_path", N_TARGET},
    {"libblkio_pre_connect_props", N_TARGET}, {"libblkio_pre_start_props", N_TARGET},
    {"initiator", N_TARGET}, {"xnvme_dev_nsid", N_TARGET}, {"xnvme_dev_subnqn", N_TARGET},
    {"hdfsdirectory", N_NAME}, {"stream_id", N_HINT},
    {"cmd_type", "the command set io_uring_cmd passes through; nvme is the only one fio knows"},
    {"stat_type", "which stat call ioengine=filestat makes (stat, lstat, statx): on a share each is one GETATTR "
                  "request"},
    {"flow_watermark", N_DEPR}, {"rwmixcycle", N_DEPR}, {"verifysort", N_DEPR}, {"verifysort_nr", N_DEPR},
    {"percentage_sequential", N_DEPR},
    {"ignore_zone_limits", "the zones fio emulates on a NAS file or LUN have no device limits"},
    {"zone_reset_threshold", N_ZRESET}, {"zone_reset_frequency", N_ZRESET},
    {"cpumode", N_BURN}, {"cpuchunks", N_BURN},
    {"arguments", N_EXEC}, {"std_redirect", N_EXEC},
    {"grace_time", "how long ioengine=exec lets its program end once the runtime is over, after the measured "
                   "time"},
    {"exec_prerun", N_AFTER}, {"exec_postrun", N_AFTER}, {"unlink", N_AFTER},
    {"unlink_each_loop", N_AFTER},
};

/* Real options that could change the I/O's timing, which nastwin does not
 * follow: accepted with a warning. */
static const char *const fio_unmodelled[] = {
    "atomic", "ba", "block", "blockalign", "blocksize_unaligned", "bs_is_seq_rand", "bs_unaligned",
    "busy_poll", "cgroup_weight", "chunck_size", "chunk_size", "continue_on_error", "create_fsync",
    "create_on_open", "create_serialize", "cuda_io", "direct_io_fragment_size", "end_fsync",
    "exit_on_io_done", "exit_what", "exitall", "exitall_on_error", "fadvise_hint", "fallocate", "file_append",
    "file_service_type", "fill_device", "fill_fs", "fixedbufs", "flow", "flow_id", "flow_sleep",
    "force_async", "fsync_on_close", "gpu_dev_id", "gpu_dev_ids", "hdfs_use_direct", "hipri",
    "hipri_percentage", "ignore_error", "invalidate", "io_submit_mode", "iodepth_batch",
    "iodepth_batch_complete", "iodepth_batch_complete_max", "iodepth_batch_complete_min",
    "iodepth_batch_submit", "iodepth_low", "ioscheduler", "kb_base",
    "libblkio_force_enable_completion_eventfd", "libblkio_num_entries", "libblkio_queue_size",
    "libblkio_vectored", "libblkio_wait_mode", "libblkio_write_zeroes_on_trim", "load", "lockfile",
    "max_latency", "md_per_io_size", "mss", "no_completion_thread", "nodelay", "nonvectored", "nowait",
    "numruns", "offset_align", "num_range", "openfiles", "overwrite", "pre_read", "rate_cycle",
    "rate_ignore_thinktime", "rate_process", "readfua", "registerfiles", "rw_sequencer", "serialize_overlap",
    "sg_write_mode", "single_instance", "single-instance", "spr_num_regions", "spr_op", "sprandom",
    "sqthread_poll", "sqthread_poll_cpu", "ss", "ss_dur", "ss_interval", "ss_ramp", "startdelay",
    "steadystate", "steadystate_check_interval", "steadystate_duration", "steadystate_ramp_time",
    "sync_file_range", "thinkcycles", "thinktime_blocks", "thinktime_blocks_type", "thinktime_iotime",
    "thinktime_spin", "thp", "uncached", "userspace_reap", "verify_backlog", "verify_backlog_batch",
    "write_barrier", "writefua", "xnvme_admin", "xnvme_be", "xnvme_iovec", "xnvme_mem", "xnvme_sync",
};

#define FIO_WHY_TRACE "I/O trace replay is not modelled; describe the mix with rw, bs/bssplit, iodepth"
#define FIO_WHY_ZONE "write-error recovery of real zoned devices is not modelled"
#define FIO_WHY_TRIM "trimming a share of a write job's verified blocks is not modelled (rw=trim, randtrim, trimwrite are)"
#define FIO_WHY_CREATE "create_only lays out files and does no I/O to measure"
#define FIO_WHY_PROFILE "fio's built-in profiles are not modelled; write the jobs out"

static const struct {
  const char *key;
  const char *why;
} fio_refused[] = {
    {"read_iolog", FIO_WHY_TRACE},
    {"read_iolog_chunked", FIO_WHY_TRACE},
    {"merge_blktrace_file", FIO_WHY_TRACE},
    {"merge_blktrace_scalars", FIO_WHY_TRACE},
    {"merge_blktrace_iters", FIO_WHY_TRACE},
    {"replay_no_stall", FIO_WHY_TRACE},
    {"replay_redirect", FIO_WHY_TRACE},
    {"replay_align", FIO_WHY_TRACE},
    {"replay_scale", FIO_WHY_TRACE},
    {"replay_time_scale", FIO_WHY_TRACE},
    {"replay_skip", FIO_WHY_TRACE},
    {"iolog", FIO_WHY_TRACE},
    {"recover_zbd_write_error", FIO_WHY_ZONE},
    {"trim_percentage", FIO_WHY_TRIM},
    {"trim_backlog", FIO_WHY_TRIM},
    {"trim_backlog_batch", FIO_WHY_TRIM},
    {"trim_verify_zero", FIO_WHY_TRIM},
    {"create_only", FIO_WHY_CREATE},
    {"profile", FIO_WHY_PROFILE},
};

/* fio 3.33's options.c: .alias beside .name. */
const char *fio_option_alias(const char *key)
{
  static const char *const alias[][2] = {
      {"ratemin", "rate_min"},       {"ratecycle", "rate_cycle"}, {"fileoffset", "offset"},
      {"nr_files", "nrfiles"},       {"mem_align", "iomem_align"}, {"fill_fs", "fill_device"},
      {"iodepth_batch_submit", "iodepth_batch"},
      {"iodepth_batch_complete", "iodepth_batch_complete_min"},
      {"disable_bw", "disable_bw_measurement"}, {"proto", "protocol"},
  };
  for (size_t i = 0; i < FIO_COUNT(alias); i++)
    if (!strcmp(alias[i][0], key))
      return alias[i][1];
  return key;
}

int fio_option_known(const char *key)
{
  for (size_t i = 0; i < FIO_COUNT(fio_unmodelled); i++)
    if (!strcmp(fio_unmodelled[i], key))
      return 1;
  return 0;
}

const char *fio_option_neutral(const char *key)
{
  for (size_t i = 0; i < FIO_COUNT(fio_neutral); i++)
    if (!strcmp(fio_neutral[i].key, key))
      return fio_neutral[i].why;
  return NULL;
}

/* The options fio 3.33 parses with an empty value (checked one by one with
 * `fio --parse-only` on KEY= for every option named in this file: parse.c
 * refuses an empty string store, number, size, time and bool; these are
 * FIO_OPT_STR with a callback that takes an empty list or log name, or
 * deprecated and skipped).  Every other option's empty value is refused. */
int fio_option_takes_empty(const char *key)
{
  static const char *const ok[] = {
      "write_bw_log", "write_hist_log",   "write_iops_log", "write_lat_log",     "log_compression_cpus",
      "cpus_allowed", "numa_cpu_nodes",   "numa_mem_policy", "verify_async_cpus", "ignore_error",
      "flow_watermark", "verifysort",     "verifysort_nr",
  };
  for (size_t i = 0; i < FIO_COUNT(ok); i++)
    if (!strcmp(ok[i], key))
      return 1;
  return 0;
}

const char *fio_option_refused(const char *key)
{
  for (size_t i = 0; i < FIO_COUNT(fio_refused); i++)
    if (!strcmp(fio_refused[i].key, key))
      return fio_refused[i].why;
  return NULL;
}

const char *fio_option_suggest(const char *key, const char *const *modelled)
{
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; modelled[i]; i++) {
    size_t d = params_edit_distance(key, modelled[i]);
    if (d < best_d)
      best_d = d, best = modelled[i];
  }
  for (size_t i = 0; i < FIO_COUNT(fio_unmodelled); i++) {
    size_t d = params_edit_distance(key, fio_unmodelled[i]);
    if (d < best_d)
      best_d = d, best = fio_unmodelled[i];
  }
  for (size_t i = 0; i < FIO_COUNT(fio_neutral); i++) {
    size_t d = params_edit_distance(key, fio_neutral[i].key);
    if (d < best_d)
      best_d = d, best = fio_neutral[i].key;
  }
  size_t len = strlen(key);
  return best && best_d <= (len < 6 ? 2 : len / 3 + 1) ? best : NULL;
}

/* fio's engines: fio 3.33's (its engines/ folder, cpp_null.cpp included) and those later fio
 * added (dircreate, dirstat, dirdelete, libblkio); fio fails a job whose
 * engine is none of them ("fio: engine NAME not loadable").  fio's own
 * aliases of libaio (aio..., linuxaio...; ioengines.c) are libaio.  NULL
 * when name is one (*canon: fio's name for it), else why it is refused. */
static const char *const fio_engines[] = {
    "cpp_null", "cpuio", "dev-dax", "dfs", "dircreate", "dirdelete", "dirstat", "e4defrag", "exec", "falloc",
    "filecreate", "filedelete", "filestat", "ftruncate", "gfapi", "gfapi_async", "http", "ime_aio", "ime_psync",
    "ime_psyncv", "io_uring", "io_uring_cmd", "libaio", "libblkio", "libcufile", "libhdfs", "libiscsi", "libpmem",
    "librpma_apm", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm", "librpma_gpspm_client",
    "librpma_gpspm_server", "libzbc", "mmap", "mtd", "nbd", "net", "netsplice", "nfs", "null", "pmemblk",
    "posixaio", "psync", "pvsync", "pvsync2", "rados", "rbd", "rdma", "sg", "solarisaio", "splice", "sync",
    "vsync", "windowsaio", "xnvme",
};

const char *fio_engine_check(const char *name, const char **canon)
{
  *canon = name;
  if (!strncmp(name, "aio", 3) || !strncmp(name, "linuxaio", 8)) {
    *canon = "libaio";
    return NULL;
  }
  if (!strncmp(name, "external", 8) || strchr(name, '/'))
    return "is an external engine (a shared object of its own): what its code does is unknown to nastwin, "
           "not simulated";
  for (size_t i = 0; i < FIO_COUNT(fio_engines); i++)
    if (!strcmp(fio_engines[i], name))
      return NULL;
  return "is not one of fio's engines (fio: \"engine not loadable\"; fio's engines: cpp_null, cpuio, dev-dax, "
         "dfs, dircreate, dirdelete, dirstat, e4defrag, exec, falloc, filecreate, filedelete, filestat, "
         "ftruncate, gfapi, gfapi_async, http, ime_aio, ime_psync, ime_psyncv, io_uring, io_uring_cmd, libaio, "
         "libblkio, libcufile, libhdfs, libiscsi, libpmem, librpma_*, libzbc, mmap, mtd, nbd, net, netsplice, "
         "nfs, null, pmemblk, posixaio, psync, pvsync, pvsync2, rados, rbd, rdma, sg, solarisaio, splice, sync, "
         "vsync, windowsaio, xnvme)";
}

/* The options of the engines fio_engine_refused refuses (fio 3.33's
 * engines/rdma.c, librpma_*.c, rados.c, dfs.c, e4defrag.c, mtd.c, nbd.c):
 * named as that engine's own, with no guess at a generic option. */
int fio_option_of_refused_engine(const char *key)
{
  static const char *const own[] = {
      "bindname", "verb", "serverip", "busy_wait_polling", "direct_write_to_pmem", "conf", "touch_objects",
      "cont", "object_class", "svcl", "donorname", "inplace", "skip_bad", "uri",
  };
  for (size_t i = 0; i < FIO_COUNT(own); i++)
    if (!strcmp(own[i], key))
      return 1;
  return 0;
}

/* Engines that do no block or file data I/O, or that talk a protocol no
 * modelled NAS daemon serves. */
const char *fio_engine_refused(const char *name)
{
  static const struct {
    const char *name;
    const char *why;
  } refused[] = {
      {"e4defrag", "moves extents with ext4's EXT4_IOC_MOVE_EXT ioctl, which a file on an SMB or NFS share "
                   "does not support (fio fails); on a local ext4 volume the move (each block of the range read, "
                   "written to the donor file's preallocated blocks, the extents swapped, journalled) is not "
                   "modelled: not simulated"},
      {"nbd", "talks the NBD protocol (a block export over TCP); NBD is not a modelled protocol (smb, nfs, "
              "iscsi): a NAS exports blocks over iSCSI, use protocol.kind: iscsi with a block engine (libaio, "
              "io_uring, psync)"},
      {"rdma", "does no block I/O: it moves memory over RDMA (InfiniBand, RoCE) to a fio peer, and the "
               "modelled NAS links are TCP over Ethernet: not simulated"},
  };
  for (size_t i = 0; i < FIO_COUNT(refused); i++)
    if (!strcmp(refused[i].name, name))
      return refused[i].why;
  static const char *const rpma[] = {"librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client",
                                     "librpma_gpspm_server", "librpma_apm", "librpma_gpspm"};
  for (size_t i = 0; i < FIO_COUNT(rpma); i++)
    if (!strcmp(rpma[i], name))
      return "does its I/O to RDMA persistent memory, which a NAS does not serve: not simulated";
  /* Block or object I/O, but to a target no NAS serves.  (libcufile is not
   * one: its data goes to and from a file, with POSIX reads and writes at
   * cuda_io=posix, and through cuFile at cuda_io=cufile, which on a share
   * GPUDirect Storage does not support, SMB or NFS over TCP, is cuFile's
   * compatibility mode: POSIX I/O through a host bounce buffer.  The file
   * I/O reaches the NAS as any file engine's; the host-GPU copy is the
   * client's, not modelled: cuda_io and gpu_dev_ids warn.) */
  static const char *const other[] = {"rados", "dfs", "mtd"};
  for (size_t i = 0; i < FIO_COUNT(other); i++)
    if (!strcmp(other[i], name))
      return "does its I/O to a target a NAS does not serve (Ceph RADOS, DAOS, raw flash): not "
             "simulated (use psync, libaio, io_uring, ...)";
  return NULL;
}

/* Engines that send NVMe commands straight to an NVMe namespace's generic
 * character device (/dev/ngXnY) of the machine fio runs on, past its block
 * layer and page cache (fio's engines/io_uring.c io_uring_cmd, cmd_type
 * nvme, the only type fio 3.33 knows): no file protocol or block export
 * carries them, so they need a local NVMe drive. */
int fio_engine_passthrough(const char *name)
{
  return !strcmp(name, "io_uring_cmd");
}

/* Engines whose I/O never leaves fio's thread (engines/null.c, cpp_null.cpp,
 * cpu.c), that stream bytes over TCP with no file behind them
 * (engines/net.c, net and netsplice), or that run a program and do no I/O
 * (engines/exec.c: FIO_NOIO): what the job is on the client;
 * JOB_CLIENT_NAS for any other. */
enum job_client fio_engine_client(const char *name)
{
  if (!strcmp(name, "null") || !strcmp(name, "cpp_null"))
    return JOB_CLIENT_NULL;
  if (!strcmp(name, "net") || !strcmp(name, "netsplice"))
    return JOB_CLIENT_NET;
  if (!strcmp(name, "exec"))
    return JOB_CLIENT_EXEC;
  return !strcmp(name, "cpuio") ? JOB_CLIENT_CPU : JOB_CLIENT_NAS;
}

/* fio's metadata engines (engines/fileoperations.c, ftruncate.c): the file
 * operation each of their I/Os is; JOB_META_NONE for any other engine. */
enum job_meta fio_engine_meta(const char *name)
{
  static const struct {
    const char *name;
    enum job_meta op;
  } meta[] = {{"filecreate", JOB_META_CREATE}, {"dircreate", JOB_META_CREATE}, {"filestat", JOB_META_STAT},
              {"dirstat", JOB_META_STAT},      {"filedelete", JOB_META_DELETE}, {"dirdelete", JOB_META_DELETE},
              {"ftruncate", JOB_META_TRUNC},   {"falloc", JOB_META_FALLOC}};
  for (size_t i = 0; i < FIO_COUNT(meta); i++)
    if (!strcmp(meta[i].name, name))
      return meta[i].op;
  return JOB_META_NONE;
}
