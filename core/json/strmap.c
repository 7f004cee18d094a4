/* strmap.c — open-addressing (linear probing) hash map; see strmap.h. */
#include "core/json/strmap.h"

#include <stdlib.h>
#include <string.h>

void ts_strmap_init(ts_strmap *map) {
    map->slots = NULL;
    map->capacity = 0;
    map->count = 0;
}

void ts_strmap_free(ts_strmap *map) {
    if (!map) return;
    free(map->slots);
    ts_strmap_init(map);
}

/* A multiply-xorshift hash over the tag and the bytes, eight at a time, finished with a full
 * avalanche (the slot index takes the low bits); never returns 0 (0 marks an empty slot). */
static uint64_t mix(uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static uint64_t hash_key(uint64_t tag, ts_str key) {
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
    return h ? h : 1;
}

static ts_strmap_slot *find(const ts_strmap *map, uint64_t hash, uint64_t tag, ts_str key) {
    size_t mask = map->capacity - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        ts_strmap_slot *s = &map->slots[i];
        if (s->hash == 0) return s;
        if (s->hash == hash && s->tag == tag && ts_str_eq(s->key, key)) return s;
    }
}

bool ts_strmap_get(const ts_strmap *map, uint64_t tag, ts_str key, size_t *value) {
    if (map->capacity == 0) return false;
    ts_strmap_slot *s = find(map, hash_key(tag, key), tag, key);
    if (s->hash == 0) return false;
    *value = s->value;
    return true;
}

static bool grow(ts_strmap *map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 64;
    ts_strmap_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots) return false;
    ts_strmap old = *map;
    map->slots = slots;
    map->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++) {
        if (old.slots[i].hash == 0) continue;
        *find(map, old.slots[i].hash, old.slots[i].tag, old.slots[i].key) = old.slots[i];
    }
    free(old.slots);
    return true;
}

bool ts_strmap_put(ts_strmap *map, uint64_t tag, ts_str key, size_t value) {
    if ((map->count + 1) * 4 > map->capacity * 3 && !grow(map)) return false;
    uint64_t h = hash_key(tag, key);
    ts_strmap_slot *s = find(map, h, tag, key);
    if (s->hash == 0) {
        s->hash = h;
        s->tag = tag;
        s->key = key;
        map->count++;
    }
    s->value = value;
    return true;
}
