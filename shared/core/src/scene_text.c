/* scene_text.c - an instance's short text, in place or on the heap (scene_text.h). */
#include "scene_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_TEXT_HEAP 1
#define IN_PLACE (sizeof(((scene_text *)0)->bytes) - 1) /* 15 bytes and the terminator */

/* What a heap copy of n bytes and its terminator costs as allocated: malloc's 16-byte granules
 * and its header (glibc's on 64-bit), so the memory figures count what the heap really holds. */
static size_t heap_cost(size_t n) { return ((n + 1 + 15) & ~(size_t)15) + 16; }

static char *heap_of(const scene_text *t) {
  char *p;
  memcpy(&p, t->bytes, sizeof p);
  return p;
}

const char *scene_text_get(const scene_text *t) { return t->bytes[IN_PLACE] == SCENE_TEXT_HEAP ? heap_of(t) : t->bytes; }

size_t scene_text_clear(scene_text *t) {
  size_t released = 0;
  if (t->bytes[IN_PLACE] == SCENE_TEXT_HEAP) {
    char *p = heap_of(t);
    released = heap_cost(strlen(p));
    free(p);
  }
  memset(t, 0, sizeof *t);
  return released;
}

long scene_text_set(scene_text *t, const char *src, size_t cap) {
  size_t n = src ? strlen(src) : 0;
  if (n >= cap) n = cap - 1;
  /* src may be this text's own bytes: copy out before the old one goes */
  char *heap = n > IN_PLACE ? malloc(n + 1) : NULL;
  if (heap) {
    memcpy(heap, src, n);
    heap[n] = '\0';
  }
  char small[sizeof t->bytes] = {0};
  if (!heap) memcpy(small, src ? src : "", n > IN_PLACE ? IN_PLACE : n);
  long released = (long)scene_text_clear(t);
  if (!heap) {
    memcpy(t->bytes, small, sizeof small);
    return -released;
  }
  memcpy(t->bytes, &heap, sizeof heap);
  t->bytes[IN_PLACE] = SCENE_TEXT_HEAP;
  return (long)heap_cost(n) - released;
}
