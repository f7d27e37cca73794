/* spring_import_queries.h - questions the spring import tests ask of an import's result. */
#ifndef TRESS_TEST_SPRING_IMPORT_QUERIES_H
#define TRESS_TEST_SPRING_IMPORT_QUERIES_H

#include <stdbool.h>

#include "tress/spring_import.h"

/* True when one warning contains a (and b, unless b is NULL). */
bool import_has_warning(const tress_spring_import *imp, const char *a, const char *b);
/* The chain whose root is the node called name; NULL when there is none. */
const tress_spring_chain *import_chain_rooted(const tress_spring_import *imp, const char *name);

#endif
