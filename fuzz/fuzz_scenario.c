/* libFuzzer target: the YAML scenario loader (cfg_load) on arbitrary bytes.
 * The input is written to a temporary file (cfg_load reads files) and
 * loaded against the source tree's catalogue.  Any crash, sanitizer report,
 * leak or timeout is a bug; a clean -1 with a message is the expected
 * outcome for nearly every input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_scenario_state {
  char path[64];
  int ready;
};

static struct fuzz_scenario_state *fuzz_scenario_state(void)
{
  /* One temp file per fuzzing process (libFuzzer calls us in a loop). */
  static struct fuzz_scenario_state st;
  if (!st.ready) {
    snprintf(st.path, sizeof st.path, "/tmp/nastwin-fuzz-XXXXXX");
    int fd = mkstemp(st.path);
    if (fd < 0)
      abort();
    close(fd);
    st.ready = 1;
  }
  return &st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fuzz_scenario_state *st = fuzz_scenario_state();
  FILE *f = fopen(st->path, "wb");
  if (!f)
    abort();
  if (size && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
  struct scenario *s = calloc(1, sizeof *s);
  struct nw_err err;
  nw_err_clear(&err);
  if (!s)
    abort();
  if (cfg_load(st->path, NASTWIN_SOURCE_DIR "/catalog", NULL, 0, NULL, s, &err) == 0)
    cfg_free(s);
  else if (err.msg[0] == '\0')
    abort(); /* a refusal must say why */
  free(s);
  return 0;
}
