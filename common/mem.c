#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

static void out_of_memory(size_t size)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

/* Blocks this large are asked to be backed by transparent huge pages:
 * the tools touch them all soon after allocating, and on virtual machines a
 * page fault can cost ten microseconds or more, so one fault per 2 MiB
 * instead of per 4 KiB saves whole percent of a run. Only the 2 MiB-aligned
 * interior of a block can use them; the hint changes no contents and is
 * ignored where the kernel does not support it. */
#define HUGE_HINT_MIN ((size_t)2 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void hint_huge(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (size < HUGE_HINT_MIN) return;
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

/* Room reserved at the top of the heap, and the most the compile keeps
 * there instead of handing it back (see mem_heap_setup). */
#define HEAP_RESERVE ((size_t)64 << 20)

/* The tools make and free many small objects (qbsp: hundreds of thousands
 * of windings, brushes and portals), and on e1m1 a fifth of qbsp's time
 * went to the kernel faulting in fresh 4 KiB heap pages one by one (about
 * 7000 faults). With glibc the heap is grown once by HEAP_RESERVE and that
 * range is offered to transparent huge pages (a hint: the kernel may ignore
 * it), so it faults in 2 MiB at a time; freed memory stays in the heap for
 * reuse instead of being trimmed and faulted in again. Pages are only counted once touched,
 * so the reserve costs no resident memory. Elsewhere this does nothing. */
void mem_heap_setup(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    mallopt(M_TOP_PAD, (int)HEAP_RESERVE);
    mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_RESERVE));
    uintptr_t before = (uintptr_t)sbrk(0);
    /* Blocks below the mmap threshold until the heap grows (by the pad);
     * volatile so that the compiler keeps them. */
    void *volatile grow[64];
    int n = 0;
    while (n < 64 && (uintptr_t)sbrk(0) == before) grow[n++] = malloc(64 << 10);
    while (n > 0) free(grow[--n]);
    uintptr_t after = (uintptr_t)sbrk(0);
    uintptr_t start = (before + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (before != (uintptr_t)-1 && after > start) madvise((void *)start, after - start, MADV_HUGEPAGE);
#endif
}

void *q2_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) out_of_memory(size);
    hint_huge(p, size);
    return p;
}

void *q2_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    hint_huge(p, count * size);
    return p;
}

void *q2_realloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) out_of_memory(size);
    hint_huge(q, size);
    return q;
}

char *q2_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = q2_malloc(n);
    memcpy(d, s, n);
    return d;
}

void *q2_grow(void *array, size_t elem, int *capacity, int need)
{
    if (need <= *capacity) return array;
    size_t cap = *capacity > 0 ? (size_t)*capacity : 16;
    while (cap < (size_t)need) cap *= 2;
    if (cap > INT32_MAX) cap = INT32_MAX;
    if (cap > SIZE_MAX / elem) out_of_memory(SIZE_MAX);
    array = q2_realloc(array, cap * elem);
    *capacity = (int)cap;
    return array;
}

struct arena_block_t {
    arena_block_t *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void arena_init(arena_t *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 1 << 20;
    a->total = 0;
}

void *arena_alloc(arena_t *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    arena_block_t *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t bs = size > a->block_size ? size : a->block_size;
        b = q2_malloc(sizeof *b + bs);
        b->next = a->head;
        b->used = 0;
        b->size = bs;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

char *arena_strdup(arena_t *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(a, n);
    memcpy(d, s, n);
    return d;
}

void arena_free(arena_t *a)
{
    arena_block_t *b = a->head;
    while (b) {
        arena_block_t *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}
