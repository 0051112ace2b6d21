/* libFuzzer target: the fio job-file parser (fio_parse_string) on
 * arbitrary bytes.  A refusal must carry a message; nothing may crash,
 * leak or hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (!text)
    abort();
  memcpy(text, data, size);
  text[size] = '\0';
  struct workload w;
  memset(&w, 0, sizeof w);
  char *warnings = NULL;
  struct nw_err err;
  nw_err_clear(&err);
  if (fio_parse_string(text, "fuzz.fio", &w, &warnings, &err) == 0)
    workload_free(&w);
  else if (err.msg[0] == '\0')
    abort(); /* a refusal must say why */
  free(warnings);
  free(text);
  return 0;
}
