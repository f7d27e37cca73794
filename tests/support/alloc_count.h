/* alloc_count.h - counts heap allocations in a test executable, to prove a step allocates nothing.
 * Include from exactly one .c per test executable: it defines malloc/calloc/realloc. */
#ifndef TRESS_TEST_ALLOC_COUNT_H
#define TRESS_TEST_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stddef.h>

/* The counter is test state, not library state: one per test executable. */
static atomic_long alloc_count_calls;
static atomic_int alloc_count_on;

static inline void alloc_count_start(void) {
  atomic_store(&alloc_count_calls, 0);
  atomic_store(&alloc_count_on, 1);
}
static inline long alloc_count_stop(void) {
  atomic_store(&alloc_count_on, 0);
  return atomic_load(&alloc_count_calls);
}

#if defined(__SANITIZE_ADDRESS__)
/* Under ASan the sanitizer owns malloc; it offers allocation hooks instead of interposition. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void alloc_count_malloc_hook(const volatile void *p, size_t n) {
  (void)p;
  (void)n;
  if (atomic_load(&alloc_count_on)) atomic_fetch_add(&alloc_count_calls, 1);
}
static void alloc_count_free_hook(const volatile void *p) { (void)p; }
static inline void alloc_count_install(void) {
  __sanitizer_install_malloc_and_free_hooks(alloc_count_malloc_hook, alloc_count_free_hook);
}
#else
/* glibc 2.36 removed __malloc_hook: interpose the allocator in this executable. The static
 * libtress objects bind to these definitions at link time. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *malloc(size_t n) {
  if (atomic_load(&alloc_count_on)) atomic_fetch_add(&alloc_count_calls, 1);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  if (atomic_load(&alloc_count_on)) atomic_fetch_add(&alloc_count_calls, 1);
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  if (atomic_load(&alloc_count_on)) atomic_fetch_add(&alloc_count_calls, 1);
  return __libc_realloc(p, n);
}
void *__libc_memalign(size_t alignment, size_t n);
void *aligned_alloc(size_t alignment, size_t n) {
  if (atomic_load(&alloc_count_on)) atomic_fetch_add(&alloc_count_calls, 1);
  return __libc_memalign(alignment, n);
}
static inline void alloc_count_install(void) {}
#endif

#endif
