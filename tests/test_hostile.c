/* Hostile inputs through the real binary: every one must end with exit 2,
 * a "file:line:col: error:" (or "file: error:") first line on stderr and
 * nothing on stdout, within a wall-clock limit and (outside ASan) a 1 GiB
 * address-space limit.  Small cases are committed in scenarios/hostile/;
 * big ones (100 MB file, 10^6-item list, 10^5-deep nesting, ...) are
 * generated into a temporary directory.  Crash reproducers found by the
 * fuzzers (fuzz/regressions/) are replayed the same way. */
#include <check.h>
#include "ck_run.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOSTILE_ASAN 1
#endif
#endif
#ifndef HOSTILE_ASAN
#define HOSTILE_ASAN 0
#endif

#define HOSTILE_AS_LIMIT_BYTES (1024L * 1024L * 1024L)
#define HOSTILE_TIMEOUT_S 20.0
#define HOSTILE_RSS_LIMIT_KB (512L * 1024L)
#define HOSTILE_OUT_MAX 8192

struct hostile_out {
  int exited, code, signo, timed_out;
  long maxrss_kb;
  double wall_s;
  char err[HOSTILE_OUT_MAX];
  size_t out_bytes;
};

static char hostile_tmp[256];

static const char *hostile_bin(void)
{
  const char *b = getenv("NASTWIN_BIN");
  return b && *b ? b : "./nastwin";
}

static const char *hostile_src(void)
{
  const char *s = getenv("NASTWIN_SOURCE_DIR");
  return s && *s ? s : NASTWIN_SOURCE_DIR;
}

static double hostile_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run nastwin with args (NULL-terminated, argv[0] excluded) in a child with
 * limits; stdout/stderr go to files in the temp dir. */
static void hostile_exec(const char *const *args, double timeout_s, struct hostile_out *o)
{
  memset(o, 0, sizeof *o);
  char out_path[300], err_path[300];
  snprintf(out_path, sizeof out_path, "%s/stdout", hostile_tmp);
  snprintf(err_path, sizeof err_path, "%s/stderr", hostile_tmp);
  double t0 = hostile_now_s();
  pid_t pid = fork();
  ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
  if (pid == 0) {
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fo < 0 || fe < 0)
      _exit(120);
    dup2(fo, 1);
    dup2(fe, 2);
    if (HOSTILE_ASAN) {
      /* ASan reserves terabytes of shadow: cap the heap instead. */
      const char *prev = getenv("ASAN_OPTIONS");
      char opts[512];
      snprintf(opts, sizeof opts, "%s%shard_rss_limit_mb=1024:malloc_limit_mb=1024", prev ? prev : "",
               prev && *prev ? ":" : "");
      setenv("ASAN_OPTIONS", opts, 1);
    } else {
      struct rlimit rl = {.rlim_cur = HOSTILE_AS_LIMIT_BYTES, .rlim_max = HOSTILE_AS_LIMIT_BYTES};
      setrlimit(RLIMIT_AS, &rl);
    }
    const char *argv[32];
    int n = 0;
    argv[n++] = hostile_bin();
    for (int i = 0; args[i] && n < 31; i++)
      argv[n++] = args[i];
    argv[n] = NULL;
    execv(argv[0], (char *const *)argv);
    _exit(121);
  }
  int status = 0;
  struct rusage ru;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (hostile_now_s() - t0 > timeout_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      o->timed_out = 1;
      break;
    }
    nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
  }
  o->wall_s = hostile_now_s() - t0;
  getrusage(RUSAGE_CHILDREN, &ru); /* max over the children reaped so far */
  o->maxrss_kb = ru.ru_maxrss;
  o->exited = WIFEXITED(status);
  o->code = o->exited ? WEXITSTATUS(status) : -1;
  o->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  FILE *f = fopen(err_path, "rb");
  if (f) {
    size_t k = fread(o->err, 1, sizeof o->err - 1, f);
    o->err[k] = '\0';
    fclose(f);
  }
  struct stat st;
  o->out_bytes = stat(out_path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* 1 when s starts with "<file>:<digits>:<digits>: error: " or "<file>: error: ". */
static int hostile_shape_ok(const char *s, const char *file)
{
  size_t n = strlen(file);
  if (strncmp(s, file, n) != 0)
    return 0;
  s += n;
  if (!strncmp(s, ": error: ", 9))
    return s[9] != '\0' && s[9] != '\n';
  for (int part = 0; part < 2; part++) {
    if (*s++ != ':')
      return 0;
    if (*s < '0' || *s > '9')
      return 0;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  return !strncmp(s, ": error: ", 9) && s[9] != '\0' && s[9] != '\n';
}

/* Expect a clean refusal naming `file`; `needle` (may be NULL) must appear. */
static void hostile_expect(const char *const *args, const char *file, const char *needle)
{
  struct hostile_out o;
  hostile_exec(args, HOSTILE_TIMEOUT_S, &o);
  char cmd[512] = "nastwin";
  for (int i = 0; args[i]; i++) {
    strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
    strncat(cmd, args[i], sizeof cmd - strlen(cmd) - 1);
  }
  ck_assert_msg(!o.timed_out, "%s: still running after %.0f s (hang)", cmd, HOSTILE_TIMEOUT_S);
  ck_assert_msg(o.exited, "%s: killed by signal %d (crash or memory limit); stderr: %.500s", cmd,
                o.signo, o.err);
  ck_assert_msg(o.code == 2, "%s: exit %d, expected 2; stderr: %.500s", cmd, o.code, o.err);
  ck_assert_msg(o.out_bytes == 0, "%s: %zu bytes on stdout, expected none", cmd, o.out_bytes);
  ck_assert_msg(hostile_shape_ok(o.err, file), "%s: stderr is not '%s[:line:col]: error: ...': %.500s",
                cmd, file, o.err);
  ck_assert_msg(!strstr(o.err, "Sanitizer") && !strstr(o.err, "runtime error"),
                "%s: sanitizer report: %.2000s", cmd, o.err);
  if (needle)
    ck_assert_msg(strstr(o.err, needle) != NULL, "%s: message lacks '%s': %.500s", cmd, needle, o.err);
  if (!HOSTILE_ASAN)
    ck_assert_msg(o.maxrss_kb < HOSTILE_RSS_LIMIT_KB, "%s: peak RSS %ld kB, limit %ld kB", cmd,
                  o.maxrss_kb, HOSTILE_RSS_LIMIT_KB);
}

static void hostile_check_yaml(const char *path, const char *needle)
{
  const char *args[] = {"check", path, NULL};
  hostile_expect(args, path, needle);
}

static void hostile_run_fio(const char *path, const char *needle)
{
  const char *args[] = {"run", "--fio", path, NULL};
  hostile_expect(args, path, needle);
}

static int hostile_has_suffix(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* Every committed file of a directory with the suffix goes through fn. */
static int hostile_each(const char *dir, const char *suffix, void (*fn)(const char *, const char *))
{
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!hostile_has_suffix(e->d_name, suffix))
      continue;
    char path[1536];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    fn(path, NULL);
    n++;
  }
  closedir(d);
  return n;
}

/* Write `head`, then `body` repeated `times`, then `tail` to tmp/name. */
static const char *hostile_gen(const char *name, const char *head, const char *body, long times,
                               const char *tail)
{
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", hostile_tmp, name);
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
  fputs(head, f);
  size_t bl = strlen(body);
  for (long i = 0; i < times; i++)
    fwrite(body, 1, bl, f);
  fputs(tail, f);
  ck_assert_msg(fclose(f) == 0, "write %s failed", path);
  return path;
}

static void hostile_setup(void)
{
  snprintf(hostile_tmp, sizeof hostile_tmp, "%s/nastwin-hostile-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_msg(mkdtemp(hostile_tmp) != NULL, "mkdtemp: %s", strerror(errno));
}

static void hostile_teardown(void)
{
  DIR *d = opendir(hostile_tmp);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.')
        continue;
      char p[600];
      snprintf(p, sizeof p, "%s/%s", hostile_tmp, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(hostile_tmp);
}

START_TEST(test_committed_yaml)
{
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/scenarios/hostile", hostile_src());
  int n = hostile_each(dir, ".yaml", hostile_check_yaml);
  ck_assert_msg(n >= 10, "only %d hostile YAML files in %s", n, dir);
}
END_TEST

START_TEST(test_committed_fio)
{
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/scenarios/hostile", hostile_src());
  int n = hostile_each(dir, ".fio", hostile_run_fio);
  ck_assert_msg(n >= 5, "only %d hostile fio files in %s", n, dir);
}
END_TEST

START_TEST(test_specific_messages)
{
  char p[1024];
  const char *src = hostile_src();
  snprintf(p, sizeof p, "%s/scenarios/hostile/alias_bomb.yaml", src);
  hostile_check_yaml(p, "anchors");
  snprintf(p, sizeof p, "%s/scenarios/hostile/disks_count_1e30.yaml", src);
  hostile_check_yaml(p, "disks.count");
  snprintf(p, sizeof p, "%s/scenarios/hostile/bs_zero.yaml", src);
  hostile_check_yaml(p, "bs");
  snprintf(p, sizeof p, "%s/scenarios/hostile/time_1e400.yaml", src);
  hostile_check_yaml(p, "time");
  static const char *const cases[][2] = {
      {"link_rate_10GBps.yaml", "10GB/s is 80 Gbit/s; the ds2015xs ports are 10 Gbit/s at most"},
      {"link_rate_10GBps.yaml", "(did you mean 10Gbit/s?)"},
      {"fio_is_directory.yaml", "workload.fio: '/tmp' is a directory, not a fio job file"},
      {"fio_is_device.yaml", "workload.fio: '/dev/null' is a device, pipe or socket"},
      {"fio_missing.yaml", "workload.fio: cannot open '/nonexistent.fio'"},
      {"empty_document.yaml", "the file is empty"},
      {"system_empty.yaml", "scenario.system: expected a name, got an empty value"},
      {"tab_indent.yaml", "YAML syntax"},
      {"clients_1e9.yaml", "clients.count: '1e9' is not allowed"},
      {"iodepth_1e9.yaml", "iodepth: bad value '1e9'"},
      {"disks_1e6.yaml", "disks.count: '1000000' is not allowed"},
      {"time_1e12.yaml", "time: '1e12s' is out of range"},
      {"faults_too_many.yaml", "faults: at most 8 faults"},
      {"duplicate_nested_key.yaml", "duplicate key 'mtu'"},
      {"seed_map.yaml", "scenario.seed: expected a whole number, got a map"},
      {"fault_after_time.yaml", "the fault would never happen"},
      {"fault_at_end.yaml", "is not before the end of the simulated time (time 2 s)"},
      {"fault_path_single.yaml", "mode single has one path and no failover"},
      {"fault_path_no_port.yaml", "network.mode lacp has NAS ports 0 .. 1"},
      {"fault_lacp_one_port.yaml", "on a bond of 1 port leaves nothing to fail over to"},
      {"fault_all_paths_down.yaml", "leaves no path up (all 2 down)"},
      {"fault_disk_twice.yaml", "disk_fail of disk 3 at 1.5 s follows its disk_fail at 1 s"},
      {"fault_hang_then_fail.yaml", "disk_fail of disk 1 at 1 s follows its disk_hang at 0.5 s"},
      {"fault_path_up_first.yaml", "path_up of path 1 at 1 s: it is already up"},
      {"bs_fraction.yaml", "bs: 4.5 B is not a whole number of bytes"},
      {"size_fraction.yaml", "size: 4.5 B is not a whole number of bytes"},
      {"size_below_bs.yaml", "size: 4096 B is smaller than the block size 65536 B"},
      {"bs_unicode_digits.yaml", "bs: bad value"},
      {"requests_fraction.yaml", "requests_fraction.yaml:6:38: error: protocol.open_requests: '2.5' is not allowed: must be a whole number"},
      {"mtu_fraction.yaml", "mtu_fraction.yaml:5:111: error: network.mtu: '1500.5' is not allowed: must be a whole number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(p, sizeof p, "%s/scenarios/hostile/%s", src, cases[i][0]);
    hostile_check_yaml(p, cases[i][1]);
  }
  snprintf(p, sizeof p, "%s/scenarios/hostile/size_below_bs.fio", src);
  hostile_run_fio(p, "blocksize too large for data set");
}
END_TEST

START_TEST(test_special_paths)
{
  hostile_check_yaml("/dev/null", NULL);
  hostile_check_yaml("/dev/zero", NULL);
  hostile_check_yaml(hostile_tmp, NULL); /* a directory */
  char p[600];
  snprintf(p, sizeof p, "%s/does-not-exist.yaml", hostile_tmp);
  hostile_check_yaml(p, NULL);
  hostile_run_fio("/dev/null", NULL);
  hostile_run_fio("/dev/zero", NULL);
  hostile_run_fio(hostile_tmp, NULL);
  hostile_run_fio(p, NULL);
}
END_TEST

START_TEST(test_huge_file)
{
  static char line[101];
  memset(line, 'x', 99);
  line[0] = '#';
  line[99] = '\n';
  /* 10^6 lines of 100 bytes: a 100 MB file. */
  hostile_check_yaml(hostile_gen("big.yaml", "name: x\n", line, 1000000L, ""), NULL);
  hostile_run_fio(hostile_gen("big.fio", "[j]\n", line, 1000000L, ""), NULL);
}
END_TEST

START_TEST(test_huge_list)
{
  hostile_check_yaml(hostile_gen("list.yaml", "name: x\nsystem: ds2015xs\nl:\n", "- 1\n", 1000000L, ""),
                     NULL);
  hostile_check_yaml(hostile_gen("flow.yaml", "name: x\nl: [", "1,", 1000000L, "1]\n"), NULL);
}
END_TEST

START_TEST(test_deep_nesting)
{
  /* 10^5 levels of flow maps and of flow lists. */
  static char close_maps[100002], close_seqs[100002];
  memset(close_maps, '}', 100000);
  memset(close_seqs, ']', 100000);
  strcpy(close_maps + 100000, "\n");
  strcpy(close_seqs + 100000, "\n");
  hostile_check_yaml(hostile_gen("deepmap.yaml", "a: ", "{a: ", 100000L, ""), NULL);
  const char *p = hostile_gen("deepmap2.yaml", "a: ", "{a: ", 100000L, "");
  FILE *f = fopen(p, "ab");
  ck_assert(f != NULL);
  fputs("1", f);
  fputs(close_maps, f);
  fclose(f);
  hostile_check_yaml(p, NULL);
  hostile_check_yaml(hostile_gen("deepseq.yaml", "a: ", "[", 100000L, close_seqs), NULL);
  /* Block nesting: 3000 levels of indentation. */
  p = hostile_gen("deepblock.yaml", "", "", 0, "");
  f = fopen(p, "wb");
  ck_assert(f != NULL);
  for (int i = 0; i < 3000; i++)
    fprintf(f, "%*sa:\n", i, "");
  fprintf(f, "%*sa: 1\n", 3000, "");
  fclose(f);
  hostile_check_yaml(p, NULL);
}
END_TEST

START_TEST(test_hostile_fio_generated)
{
  hostile_run_fio(hostile_gen("sections.fio", "", "[j]\n", 100000L, ""), NULL);
  hostile_run_fio(hostile_gen("longline.fio", "[j]\nrw=", "r", 5000000L, "\n"), NULL);
  hostile_run_fio(hostile_gen("longhdr.fio", "[", "j", 5000000L, "]\n"), NULL);
  hostile_run_fio(hostile_gen("garbage.fio", "", "\x01\x02\xff\xfe=[]\n", 100000L, ""), NULL);
}
END_TEST

/* Replay every fuzzer reproducer: no crash, no hang, exit 0 or 2. */
static void hostile_replay(const char *path, const char *needle)
{
  (void)needle;
  char def[1024];
  snprintf(def, sizeof def, "%s/scenarios/default.yaml", hostile_src());
  const char *yargs[] = {"check", path, NULL};
  const char *fargs[] = {"check", def, "--fio", path, NULL};
  const char *const *args = hostile_has_suffix(path, ".fio") ? fargs : yargs;
  struct hostile_out o;
  hostile_exec(args, HOSTILE_TIMEOUT_S, &o);
  ck_assert_msg(!o.timed_out, "replay %s: hang", path);
  ck_assert_msg(o.exited && (o.code == 0 || o.code == 2), "replay %s: signal %d exit %d: %.1000s", path,
                o.signo, o.code, o.err);
  if (o.code == 2)
    ck_assert_msg(hostile_shape_ok(o.err, path), "replay %s: bad message: %.500s", path, o.err);
}

START_TEST(test_fuzz_regressions)
{
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/fuzz/regressions", hostile_src());
  hostile_each(dir, ".yaml", hostile_replay);
  hostile_each(dir, ".fio", hostile_replay);
}
END_TEST

/* Very long scalars and keys: refused with a position, no overflow of the
 * fixed message buffers (the message is cut, not the process). */
START_TEST(test_long_strings)
{
  static const char *const heads[] = {"system: ", "name: x\n", "system: ds2015xs\ndisks: {count: 8, drive: "};
  static const char *const tails[] = {"\n", ": 1\n", "}\nvolume: {level: 5}\nprotocol: {kind: smb}\nworkload: {rw: read}\n"};
  static const char *const needles[] = {"unknown system", "YAML syntax", "unknown drive"}; /* libyaml: keys <= 1024 chars */
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "long%d.yaml", i);
    hostile_check_yaml(hostile_gen(name, heads[i], "x", 200000L, tails[i]), needles[i]);
  }
}
END_TEST

/* Every value of a scenario that uses most sections, replaced in turn by
 * a value of the wrong type or a hostile number: accepted (exit 0) or
 * refused with a positioned message (exit 2), never a crash or a hang. */
START_TEST(test_wrong_type_everywhere)
{
  /* '@' marks a value; the test swaps one at a time. */
  static const char *const base[] = {
      "name: @x", "system: @ds2015xs", "disks: {count: @8, drive: @ocz-vector-120}", "volume: {level: @5}",
      "network: {mode: @lacp, nas_links: @2, nas_link_rate: @10Gbit/s, mtu: @9000}",
      "protocol: {kind: @smb}", "clients: {count: @2, ram: @1GiB, copy_rate: @4GB/s}",
      "ssd_cache: {mode: @read-only, count: @2, drive: @ocz-vector-120, capacity: @100GB}",
      "workload: {rw: @read, bs: @1m, iodepth: @4, size: @4g, runtime: @1s}", "time: @1s", "seed: @1",
      "faults: [{kind: @disk_fail, target: @1, at: @1s}]", "operation: {kind: @rebuild}", "chassis: {ram: @2GiB}",
      NULL};
  static const char *const hostile[] = {"[1]", "{x: 1}", "''", "1e400", NULL};
  char defaults[64][32];
  int nmarks = 0;
  for (int l = 0; base[l]; l++)
    for (const char *c = base[l]; (c = strchr(c, '@')) != NULL; c++) {
      size_t n = strcspn(c + 1, ",}]");
      snprintf(defaults[nmarks++], sizeof defaults[0], "%.*s", (int)n, c + 1);
    }
  for (int m = 0; m < nmarks; m++)
    for (int h = 0; hostile[h]; h++) {
      char name[32];
      snprintf(name, sizeof name, "wt%d_%d.yaml", m, h);
      const char *p = hostile_gen(name, "", "", 0, "");
      FILE *f = fopen(p, "wb");
      ck_assert(f != NULL);
      int k = 0;
      for (int l = 0; base[l]; l++) {
        for (const char *c = base[l]; *c; c++) {
          if (*c != '@') {
            fputc(*c, f);
            continue;
          }
          fputs(k == m ? hostile[h] : defaults[k], f);
          c += strlen(defaults[k]);
          k++;
        }
        fputc('\n', f);
      }
      fclose(f);
      const char *args[] = {"check", p, NULL};
      struct hostile_out o;
      hostile_exec(args, HOSTILE_TIMEOUT_S, &o);
      ck_assert_msg(!o.timed_out && o.exited, "%s = %s: hang or signal %d", defaults[m], hostile[h], o.signo);
      ck_assert_msg(o.code == 0 || (o.code == 2 && hostile_shape_ok(o.err, p) && o.out_bytes == 0),
                    "%s = %s: exit %d: %.300s", defaults[m], hostile[h], o.code, o.err);
    }
  ck_assert_int_ge(nmarks, 29);
}
END_TEST

/* A UTF-8 byte-order mark (what some editors write first) is not content:
 * the scenario behind it loads. */
START_TEST(test_bom)
{
  char def[1024];
  snprintf(def, sizeof def, "%s/scenarios/default.yaml", hostile_src());
  FILE *f = fopen(def, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", def);
  static char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *p = hostile_gen("bom.yaml", "\xef\xbb\xbf", text, 1, "");
  const char *args[] = {"check", p, NULL};
  struct hostile_out o;
  hostile_exec(args, HOSTILE_TIMEOUT_S, &o);
  ck_assert_msg(o.exited && o.code == 0, "BOM + default scenario: signal %d exit %d: %.500s", o.signo, o.code,
                o.err);
}
END_TEST

/* A map with ~10^5 distinct keys: refused quickly (at most YTREE_MAX_KEYS
 * keys per map), never a quadratic duplicate-key scan. */
START_TEST(test_many_keys)
{
  const char *p = hostile_gen("keys.yaml", "", "", 0, "");
  FILE *f = fopen(p, "wb");
  ck_assert(f != NULL);
  fputs("a: {", f);
  for (int i = 0; i < 100000; i++)
    fprintf(f, "%sk%d: 1", i ? "," : "", i);
  fputs("}\n", f);
  fclose(f);
  const char *args[] = {"check", p, NULL};
  struct hostile_out o;
  hostile_exec(args, HOSTILE_ASAN ? 4.0 : 2.0, &o);
  ck_assert_msg(!o.timed_out, "many keys: still running after %.0f s", HOSTILE_ASAN ? 4.0 : 2.0);
  ck_assert_msg(strstr(o.err, "a map may hold at most 4096 keys") != NULL, "many keys: %.300s", o.err);
  ck_assert_msg(o.exited && o.code == 2, "many keys: signal %d exit %d: %.500s", o.signo, o.code, o.err);
  ck_assert_msg(hostile_shape_ok(o.err, p), "many keys: bad message: %.500s", o.err);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("hostile");
  struct {
    const char *name;
    const TTest *test;
  } const cases[] = {
      {"committed_yaml", test_committed_yaml},   {"committed_fio", test_committed_fio},
      {"specific_messages", test_specific_messages}, {"special_paths", test_special_paths},
      {"huge_file", test_huge_file},             {"huge_list", test_huge_list},
      {"deep_nesting", test_deep_nesting},       {"fio_generated", test_hostile_fio_generated},
      {"fuzz_regressions", test_fuzz_regressions}, {"known_failures", test_many_keys},
      {"long_strings", test_long_strings},       {"bom", test_bom},
      {"wrong_type_everywhere", test_wrong_type_everywhere},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    TCase *tc = tcase_create(cases[i].name);
    tcase_add_checked_fixture(tc, hostile_setup, hostile_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cases[i].test);
    suite_add_tcase(s, tc);
  }
  return ck_run(s);
}
