/* arena.c — chunked bump allocator; see arena.h. */
#include "core/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TS_ARENA_MIN_CHUNK = 64 * 1024 };

struct ts_arena_chunk {
    ts_arena_chunk *next;
    size_t capacity; /* usable bytes after the header */
    size_t used;
    alignas(max_align_t) unsigned char data[];
};

void ts_arena_init(ts_arena *arena) {
    arena->head = NULL;
    arena->bytes_allocated = 0;
}

void ts_arena_free(ts_arena *arena) {
    if (!arena) return;
    ts_arena_chunk *chunk = arena->head;
    while (chunk) {
        ts_arena_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    arena->head = NULL;
    arena->bytes_allocated = 0;
}

static size_t round_up(size_t n, size_t align) { return (n + align - 1) & ~(align - 1); }

void *ts_arena_alloc(ts_arena *arena, size_t size) {
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX / 2) return NULL;
    size_t need = round_up(size ? size : 1, align);
    ts_arena_chunk *chunk = arena->head;
    if (!chunk || chunk->capacity - chunk->used < need) {
        size_t capacity = need > TS_ARENA_MIN_CHUNK ? need : TS_ARENA_MIN_CHUNK;
        /* Grow chunks with the arena so that large documents need few mallocs. */
        if (arena->bytes_allocated / 4 > capacity && arena->bytes_allocated / 4 < (size_t)64 << 20)
            capacity = round_up(arena->bytes_allocated / 4, align);
        ts_arena_chunk *fresh = malloc(sizeof *fresh + capacity);
        if (!fresh) return NULL;
        fresh->capacity = capacity;
        fresh->used = 0;
        if (chunk && chunk->capacity - chunk->used >= TS_ARENA_MIN_CHUNK / 4 && need > TS_ARENA_MIN_CHUNK) {
            /* A one-off large block: keep filling the current chunk afterwards. */
            fresh->next = chunk->next;
            chunk->next = fresh;
        } else {
            fresh->next = chunk;
            arena->head = fresh;
        }
        arena->bytes_allocated += sizeof *fresh + capacity;
        chunk = fresh;
    }
    void *p = chunk->data + chunk->used;
    chunk->used += need;
    return p;
}

void *ts_arena_calloc(ts_arena *arena, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = ts_arena_alloc(arena, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

char *ts_arena_strndup(ts_arena *arena, const char *src, size_t len) {
    if (len == SIZE_MAX) return NULL;
    char *p = ts_arena_alloc(arena, len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, src, len);
    p[len] = '\0';
    return p;
}
