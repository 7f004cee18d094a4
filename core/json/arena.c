/* arena.c — chunked bump allocator; see arena.h. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "core/json/arena.h"

#include <sys/mman.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"

/* Chunks start small (most arenas hold one small document) and grow with the arena. */
enum { TS_ARENA_MIN_CHUNK = 4 * 1024, TS_ARENA_DEDICATED = 64 * 1024 };

void ts_memory_advise_huge(void *block, size_t size) {
#ifdef MADV_HUGEPAGE
    enum { HUGE_PAGE = 2 << 20 };
    if (!block || size < 2 * (size_t)HUGE_PAGE) return;
    uintptr_t start = ((uintptr_t)block + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)block + size) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice: failure is harmless */
#else
    (void)block;
    (void)size;
#endif
}

void ts_arena_init(ts_arena *arena) {
    arena->head = NULL;
    arena->bytes_allocated = 0;
}

static void free_chunks(ts_arena_chunk *chunk) {
    while (chunk) {
        ts_arena_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
}

void ts_arena_free(ts_arena *arena) {
    if (!arena) return;
    free_chunks(arena->head);
    arena->head = NULL;
    arena->bytes_allocated = 0;
}

void ts_arena_reset(ts_arena *arena) {
    ts_arena_chunk *keep = arena->head;
    if (!keep || keep->capacity > (size_t)1 << 20) { /* a large one is not kept for later */
        ts_arena_free(arena);
        return;
    }
    free_chunks(keep->next);
    keep->next = NULL;
    keep->used = 0;
    arena->bytes_allocated = sizeof *keep + keep->capacity;
}

static size_t round_up(size_t n, size_t align) { return (n + align - 1) & ~(align - 1); }

/* Allocates `size` bytes at `align` (a power of two no larger than max_align_t). Requests
 * larger than a chunk get a chunk of their own, which ts_arena_grow can later realloc. */
void *ts_arena_alloc_slow(ts_arena *arena, size_t size, size_t align) {
    TS_ASSERT(align > 0 && (align & (align - 1)) == 0 && align <= alignof(max_align_t));
    if (size > SIZE_MAX / 2) return NULL;
    if (size == 0) size = 1;
    ts_arena_chunk *chunk = arena->head;
    if (chunk) {
        TS_ASSERT(chunk->used <= chunk->capacity);
        size_t start = round_up(chunk->used, align);
        if (start <= chunk->capacity && chunk->capacity - start >= size) {
            chunk->used = start + size;
            TS_ASSERT(((uintptr_t)(chunk->data + start) & (align - 1)) == 0);
            return chunk->data + start;
        }
    }
    size_t capacity = size > TS_ARENA_MIN_CHUNK ? size : TS_ARENA_MIN_CHUNK;
    bool dedicated = size > TS_ARENA_DEDICATED;
    /* Grow ordinary chunks with the arena (each about half of what it holds, at most 64 MiB)
     * so that large documents need few mallocs. */
    if (!dedicated && arena->bytes_allocated / 2 > capacity)
        capacity = round_up(arena->bytes_allocated / 2 < (size_t)64 << 20 ? arena->bytes_allocated / 2 : (size_t)64 << 20,
                            alignof(max_align_t));
    if (!dedicated && capacity < size) capacity = size;
    TS_ASSERT(capacity >= size); /* a chunk holds the request that made it */
    ts_arena_chunk *fresh = malloc(sizeof *fresh + capacity);
    if (!fresh) return NULL;
    ts_memory_advise_huge(fresh, sizeof *fresh + capacity);
    fresh->capacity = capacity;
    fresh->used = size;
    if (dedicated && chunk) {
        /* Keep filling the current chunk afterwards. */
        fresh->next = chunk->next;
        chunk->next = fresh;
    } else {
        fresh->next = chunk;
        arena->head = fresh;
    }
    arena->bytes_allocated += sizeof *fresh + capacity;
    return fresh->data;
}

void *ts_arena_grow_array(ts_arena *arena, void *items, size_t *cap, size_t count, size_t size) {
    if (count < *cap) return items;
    size_t next = *cap ? *cap * 2 : 8;
    void *grown = items ? ts_arena_grow(arena, items, *cap * size, next * size) : ts_arena_alloc(arena, next * size);
    if (grown) *cap = next;
    return grown;
}

void *ts_arena_grow(ts_arena *arena, void *ptr, size_t old_size, size_t new_size) {
    if (!ptr) return ts_arena_alloc(arena, new_size);
    if (new_size <= old_size) return ptr;
    ts_arena_chunk *head = arena->head;
    /* The latest allocation of the head chunk grows in place when there is room. */
    if (head && (unsigned char *)ptr >= head->data && (unsigned char *)ptr + old_size == head->data + head->used &&
        head->capacity - head->used >= new_size - old_size) {
        head->used += new_size - old_size;
        TS_ASSERT(head->used <= head->capacity);
        return ptr;
    }
    /* A block that has a chunk of its own is realloc'd with it. */
    for (ts_arena_chunk **link = &arena->head; *link; link = &(*link)->next) {
        ts_arena_chunk *c = *link;
        if (c->data != (unsigned char *)ptr || c->used != old_size || c->capacity != old_size) continue;
        if (new_size > SIZE_MAX / 2) return NULL;
        ts_arena_chunk *moved = realloc(c, sizeof *c + new_size);
        if (!moved) return NULL;
        ts_memory_advise_huge(moved, sizeof *moved + new_size);
        moved->capacity = moved->used = new_size;
        arena->bytes_allocated += new_size - old_size;
        *link = moved;
        return moved->data;
    }
    void *fresh = ts_arena_alloc(arena, new_size);
    if (fresh && old_size) memcpy(fresh, ptr, old_size);
    return fresh;
}

void *ts_arena_calloc(ts_arena *arena, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = ts_arena_alloc(arena, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

char *ts_arena_strndup(ts_arena *arena, const char *src, size_t len) {
    if (len == SIZE_MAX) return NULL;
    char *p = ts_arena_alloc_bytes(arena, len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, src, len);
    p[len] = '\0';
    return p;
}
