/* scene_text.h - an instance's short text (its name, a part's asset id) in 16 bytes: up to 15
 * bytes in place, longer text on the heap. A hair rig is mostly bones, and bone names ("Hair",
 * "Hair_S12_B10", VRM's "J_Sec_Hair1_01") fit in place, so the instance array keeps 16 bytes a
 * text instead of a fixed 64- or 128-byte buffer that sized every slot; the few longer names of a
 * character's parts and attachments ("RightShoulderAttachment") take a heap copy. Text is set
 * when an instance is made or renamed, never per frame. Private to scene.c. */
#ifndef TRESS_SCENE_TEXT_H
#define TRESS_SCENE_TEXT_H

#include <stddef.h>

/* In place: bytes[15] is 0 (the terminator of a 15-byte text, or after a shorter one's).
 * On the heap: bytes[15] is SCENE_TEXT_HEAP and the first pointer-sized bytes hold the copy. */
typedef struct scene_text {
  char bytes[16];
} scene_text;

/* The text (never NULL; "" for an empty or zeroed one). */
const char *scene_text_get(const scene_text *t);
/* Replaces the text with src cut to cap - 1 bytes (NULL: ""). Returns the heap bytes it now
 * holds minus those it held, as allocated (malloc's granules and header) (for the owner's memory count). Out of memory keeps the first 15
 * bytes in place. */
long scene_text_set(scene_text *t, const char *src, size_t cap);
/* Frees a heap copy; the text becomes "". Returns the heap bytes released. */
size_t scene_text_clear(scene_text *t);

#endif
