#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

/* Under AddressSanitizer a block on a pool's free list is poisoned (all
 * but its link), so a use after pool_free is reported as one after free()
 * would be. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define Q2_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define Q2_ASAN 1
#endif
#ifdef Q2_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static void out_of_memory(size_t size)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

/* Blocks this large are offered to huge pages (os_hint_huge_pages): the
 * tools touch them all soon after allocating, and on virtual machines a
 * page fault can cost ten microseconds or more, so one fault per 2 MiB
 * instead of per 4 KiB saves whole percent of a run. */
#define HUGE_HINT_MIN ((size_t)2 << 20)

static void hint_huge(void *p, size_t size)
{
    if (size >= HUGE_HINT_MIN) os_hint_huge_pages(p, size);
}

void mem_heap_setup(void) { os_heap_setup(); }

void *q2_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) out_of_memory(size);
    hint_huge(p, size);
    return p;
}

/* The block as malloc gave it is kept just before the aligned start (C11's
 * aligned_alloc is missing from the Windows C runtime). */
void *q2_aligned_alloc(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1))) {
        /* a caller's mistake, not the input's: as out of memory, no way on */
        fprintf(stderr, "q2_aligned_alloc: alignment %zu is not a power of two\n", align);
        abort();
    }
    size_t extra = align + sizeof(void *);
    if (size > (size_t)-1 - extra) out_of_memory(size);
    char *base = malloc(size + extra);
    if (!base) out_of_memory(size + extra);
    uintptr_t a = ((uintptr_t)(base + sizeof(void *)) + (align - 1)) & ~(uintptr_t)(align - 1);
    char *p = (char *)a;
    memcpy(p - sizeof(void *), &base, sizeof base);
    hint_huge(p, size);
    return p;
}

void q2_aligned_free(void *p)
{
    if (!p) return;
    void *base;
    memcpy(&base, (char *)p - sizeof(void *), sizeof base);
    free(base);
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

/* arena_alloc without the zeroing. */
static void *arena_take(arena_t *a, size_t size)
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
    return p;
}

void *arena_alloc(arena_t *a, size_t size)
{
    void *p = arena_take(a, size);
    memset(p, 0, (size + 15) & ~(size_t)15);
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

_Static_assert(POOL_STEP % 16 == 0 && POOL_MAX_SIZE % POOL_STEP == 0, "pool sizes keep the arena's alignment");

void pool_init(pool_t *p, size_t block_size)
{
    arena_init(&p->arena, block_size);
    memset(p->freelist, 0, sizeof p->freelist);
}

/* The free list of blocks of `size`: in POOL_STEP steps, at least one. */
static size_t pool_class(size_t size)
{
    size_t c = (size + POOL_STEP - 1) / POOL_STEP;
    return c ? c : 1;
}

void *pool_alloc(pool_t *p, size_t size)
{
    size_t c = pool_class(size);
    if (c * POOL_STEP > POOL_MAX_SIZE) return arena_take(&p->arena, size);
    void *b = p->freelist[c];
    if (b) {
        POOL_UNPOISON(b, c * POOL_STEP);
        p->freelist[c] = *(void **)b;
        return b;
    }
    return arena_take(&p->arena, c * POOL_STEP);
}

void pool_free(pool_t *p, void *ptr, size_t size)
{
    if (!ptr) return;
    size_t c = pool_class(size);
    if (c * POOL_STEP > POOL_MAX_SIZE) return; /* back at pool_release */
    *(void **)ptr = p->freelist[c];
    p->freelist[c] = ptr;
    POOL_POISON((char *)ptr + sizeof(void *), c * POOL_STEP - sizeof(void *));
}

void pool_release(pool_t *p)
{
    /* the blocks go back to malloc whole */
    for (arena_block_t *b = p->arena.head; b; b = b->next) POOL_UNPOISON(b->data, b->size);
    arena_free(&p->arena);
    memset(p->freelist, 0, sizeof p->freelist);
}

void pool_absorb(pool_t *dst, pool_t *src)
{
    if (src->arena.head) {
        arena_block_t *last = src->arena.head;
        while (last->next) last = last->next;
        last->next = dst->arena.head;
        dst->arena.head = src->arena.head;
        dst->arena.total += src->arena.total;
    }
    for (size_t c = 0; c < sizeof src->freelist / sizeof src->freelist[0]; c++) {
        void *head = src->freelist[c];
        if (!head) continue;
        /* (a free block's first word, its link, is never poisoned) */
        void **tail = head;
        while (*tail) tail = *tail;
        *tail = dst->freelist[c];
        dst->freelist[c] = head;
    }
    size_t bs = src->arena.block_size;
    pool_init(src, bs);
}
