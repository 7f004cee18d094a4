/* strmap.c — open-addressing (linear probing) hash map; see strmap.h. */
#include "core/json/strmap.h"

#include "core/json/arena.h"
#include "core/json/assert.h"

#include <stdlib.h>
#include <string.h>

void ts_strmap_init(ts_strmap *map) {
    map->slots = NULL;
    map->capacity = 0;
    map->count = 0;
    map->entries = NULL;
    map->entry_capacity = 0;
}

void ts_strmap_free(ts_strmap *map) {
    if (!map) return;
    free(map->slots);
    free(map->entries);
    ts_strmap_init(map);
}

/* A multiply-xorshift hash over the tag and the bytes, eight at a time, finished with a full
 * avalanche and folded to 32 bits (the slot index takes the low bits); never 0. */
static uint64_t mix(uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static uint32_t hash_key(uint64_t tag, ts_str key) {
    uint64_t h = mix(tag ^ 0x9E3779B97F4A7C15ULL) ^ (uint64_t)key.len;
    size_t i = 0;
    for (; i + 8 <= key.len; i += 8) {
        uint64_t w;
        memcpy(&w, key.ptr + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    if (i < key.len) memcpy(&tail, key.ptr + i, key.len - i);
    h = mix((h ^ tail) * 0x9E3779B97F4A7C15ULL);
    uint32_t folded = (uint32_t)(h ^ (h >> 32));
    return folded ? folded : 1;
}

/* The slot of (tag, key): where it is, or the empty slot where it would go. */
static ts_strmap_slot *find(const ts_strmap *map, uint32_t hash, uint64_t tag, ts_str key) {
    /* Linear probing ends: the slots are a power of two, never full (at most 3/4 used). */
    TS_ASSERT(map->capacity > 0 && (map->capacity & (map->capacity - 1)) == 0 && map->count < map->capacity);
    TS_ASSERT(hash != 0);
    size_t mask = map->capacity - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        ts_strmap_slot *s = &map->slots[i];
        if (s->hash == 0) return s;
        if (s->hash != hash) continue;
        const ts_strmap_entry *e = &map->entries[s->entry];
        if (e->tag == tag && ts_str_eq(e->key, key)) return s;
    }
}

bool ts_strmap_get(const ts_strmap *map, uint64_t tag, ts_str key, size_t *value) {
    if (map->capacity == 0) return false;
    ts_strmap_slot *s = find(map, hash_key(tag, key), tag, key);
    if (s->hash == 0) return false;
    *value = map->entries[s->entry].value;
    return true;
}

/* Doubles the slots; entries stay where they are (their slot is found again from its hash). */
static bool grow(ts_strmap *map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 64;
    if (capacity > ((size_t)1 << 32)) return false; /* 32-bit hashes index at most 2^32 slots */
    ts_strmap_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots) return false;
    ts_memory_advise_huge(slots, capacity * sizeof *slots);
    size_t mask = capacity - 1;
    for (size_t i = 0; i < map->capacity; i++) {
        ts_strmap_slot s = map->slots[i];
        if (s.hash == 0) continue;
        size_t j = s.hash & mask;
        while (slots[j].hash) j = (j + 1) & mask;
        slots[j] = s;
    }
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
    return true;
}

bool ts_strmap_put(ts_strmap *map, uint64_t tag, ts_str key, size_t value) {
    if ((map->count + 1) * 4 > map->capacity * 3 && !grow(map)) return false;
    uint32_t h = hash_key(tag, key);
    ts_strmap_slot *s = find(map, h, tag, key);
    if (s->hash) {
        map->entries[s->entry].value = value;
        return true;
    }
    if (map->count >= UINT32_MAX) return false;
    if (map->count == map->entry_capacity) {
        size_t cap = map->entry_capacity ? 2 * map->entry_capacity : 32;
        ts_strmap_entry *grown = realloc(map->entries, cap * sizeof *grown);
        if (!grown) return false;
        ts_memory_advise_huge(grown, cap * sizeof *grown);
        map->entries = grown;
        map->entry_capacity = cap;
    }
    map->entries[map->count] = (ts_strmap_entry){tag, key, value};
    s->hash = h;
    s->entry = (uint32_t)map->count++;
    TS_ASSERT(map->count * 4 <= map->capacity * 3 && find(map, h, tag, key) == s);
    return true;
}
