#include "base/params.h"

#include <string.h>

const struct param_desc *params_find(const struct param_desc *table, size_t n, const char *key)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(table[i].key, key) == 0)
      return &table[i];
  return NULL;
}

void params_defaults(const struct param_desc *table, size_t n, void *out)
{
  for (size_t i = 0; i < n; i++) {
    double *field = (double *)((char *)out + table[i].offset);
    *field = table[i].optional ? table[i].def : 0.0;
  }
}

size_t params_edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63)
    return la > lb ? la : lb;
  size_t prev[64], cur[64];
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      size_t m = sub < del ? sub : del;
      cur[j] = m < ins ? m : ins;
    }
    memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
  }
  return prev[lb];
}

const char *params_suggest(const struct param_desc *table, size_t n, const char *key)
{
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    size_t d = params_edit_distance(key, table[i].key);
    if (d < best_d) {
      best_d = d;
      best = table[i].key;
    }
  }
  size_t len = strlen(key);
  return best && best_d <= (len < 6 ? 2 : len / 3 + 1) ? best : NULL;
}
