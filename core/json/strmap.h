/* strmap.h — an open-addressing hash map from (tag, string) to a size_t.
 *
 * Owns: its slot and entry arrays (heap). Keys are borrowed: the strings must outlive the map.
 * The tag lets one map hold keys of several scopes (the merger keys message ids by response
 * group). Iteration order is never exposed, so nothing that uses it can depend on hashing.
 * Slots are 8 bytes (a 32-bit hash and an entry number) and entries are stored in insertion
 * order apart from them, so that a lookup that misses, the common case when most ids are new,
 * touches one cache line of slots and no entry.
 */
#ifndef TURNSTILE_CORE_STRMAP_H
#define TURNSTILE_CORE_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/json.h"

typedef struct ts_strmap_slot {
    uint32_t hash;  /* 0 = empty */
    uint32_t entry; /* index into entries */
} ts_strmap_slot;

typedef struct ts_strmap_entry {
    uint64_t tag;
    ts_str key;
    size_t value;
} ts_strmap_entry;

typedef struct ts_strmap {
    ts_strmap_slot *slots;
    size_t capacity; /* slots: a power of two, or 0 */
    size_t count;    /* entries */
    ts_strmap_entry *entries;
    size_t entry_capacity;
} ts_strmap;

void ts_strmap_init(ts_strmap *map);
void ts_strmap_free(ts_strmap *map); /* accepts NULL */

/* Looks up (tag, key); returns true and *value when present. */
bool ts_strmap_get(const ts_strmap *map, uint64_t tag, ts_str key, size_t *value);

/* Inserts or overwrites (tag, key) -> value. Returns false on allocation failure. */
bool ts_strmap_put(ts_strmap *map, uint64_t tag, ts_str key, size_t value);

#endif
