#include "support/spring_import_queries.h"

#include <stdint.h>
#include <string.h>

bool import_has_warning(const tress_spring_import *imp, const char *a, const char *b) {
  for (uint32_t i = 0; i < imp->warning_count; i++)
    if (strstr(imp->warnings[i], a) && (!b || strstr(imp->warnings[i], b))) return true;
  return false;
}

const tress_spring_chain *import_chain_rooted(const tress_spring_import *imp, const char *name) {
  int32_t n = tress_spring_import_find_node(imp, name);
  for (uint32_t i = 0; i < imp->chain_count; i++)
    if (imp->chains[i].root == n) return &imp->chains[i];
  return NULL;
}
