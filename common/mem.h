/* Allocation helpers and a memory arena.
 *
 * Out-of-memory is the one condition the library does not return as an error:
 * a compile cannot continue without memory and every caller would only pass
 * it up, so q2_malloc and friends abort with a message on stderr. */
#ifndef Q2M_MEM_H
#define Q2M_MEM_H

#include <stddef.h>

/* Called once at the start of a program's main (it changes the process's
 * allocator settings, so libraries never call it): grows the heap once and
 * offers it to transparent huge pages, and keeps freed memory for reuse
 * (see mem.c). */
void mem_heap_setup(void);

void *q2_malloc(size_t size);
void *q2_calloc(size_t count, size_t size);
void *q2_realloc(void *p, size_t size);
char *q2_strdup(const char *s);
/* Memory starting on a multiple of align (a power of two; anything else
 * aborts, as a caller's mistake), for arrays walked in cache lines; freed
 * by q2_aligned_free only. */
void *q2_aligned_alloc(size_t align, size_t size);
void q2_aligned_free(void *p);

/* Grows a dynamic array so that it holds at least `need` elements of
 * `elem` bytes, doubling its capacity; returns the (possibly moved) array. */
void *q2_grow(void *array, size_t elem, int *capacity, int need);

/* Appends one element: ARRAY_PUSH(arr, count, cap, value). */
#define ARRAY_PUSH(arr, count, cap, value)                            \
    do {                                                              \
        (arr) = q2_grow((arr), sizeof *(arr), &(cap), (count) + 1);   \
        (arr)[(count)++] = (value);                                   \
    } while (0)

/* An arena hands out zeroed memory from large blocks and frees it all at
 * once; stages that build many small objects with one lifetime use it. */
typedef struct arena_block_t arena_block_t;
typedef struct arena_t {
    arena_block_t *head;
    size_t block_size;
    size_t total; /* bytes handed out, for statistics */
} arena_t;

void arena_init(arena_t *a, size_t block_size);
void *arena_alloc(arena_t *a, size_t size);
char *arena_strdup(arena_t *a, const char *s);
void arena_free(arena_t *a);

/* A pool is an arena that also takes blocks back: a block given to
 * pool_free goes on a free list for its size (in POOL_STEP-byte steps up to
 * POOL_MAX_SIZE) and pool_alloc hands it out again, so objects that are made
 * and dropped many times over (a tree's portals and their windings, split
 * again and again) live in few blocks; pool_release frees them all at once,
 * without visiting each. Larger blocks come from the arena and are reused
 * only after pool_release. Memory from pool_alloc is not zeroed, and is
 * never given to free(). One thread at a time. */
#define POOL_STEP 16
#define POOL_MAX_SIZE 1024
typedef struct pool_t {
    arena_t arena;
    void *freelist[POOL_MAX_SIZE / POOL_STEP + 1];
} pool_t;

void pool_init(pool_t *p, size_t block_size);
void *pool_alloc(pool_t *p, size_t size);
/* size: the size it was allocated with. */
void pool_free(pool_t *p, void *ptr, size_t size);
/* Frees every block; the pool is then empty and can be used again. */
void pool_release(pool_t *p);
/* Moves src's blocks and free lists into dst (src is then empty, as after
 * pool_init): what lives in src is dst's from now on, freed by dst's
 * pool_release. For work two threads did with a pool each. */
void pool_absorb(pool_t *dst, pool_t *src);

#endif
