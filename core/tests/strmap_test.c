/* strmap_test.c — ts_strmap: put/get/overwrite over many keys, tags as scopes, keys compared by length and bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/strmap.h"
#include "core/testing/unit.h"

static ts_str str_n(const char *p, size_t n) {
    ts_str s = {p, n};
    return s;
}

static void empty_map(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 12345;
    CHECK(!ts_strmap_get(&map, 0, ts_str_from("a"), &value));
    CHECK(!ts_strmap_get(&map, 0, str_n("", 0), &value));
    CHECK(value == 12345); /* untouched on a miss */
    CHECK(map.count == 0);
    ts_strmap_free(&map);
    ts_strmap_free(&map); /* freeing twice is harmless: free re-initialises */
    ts_strmap_free(NULL);
}

static void put_get_overwrite(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 0;
    CHECK(ts_strmap_put(&map, 1, ts_str_from("alpha"), 10));
    CHECK(ts_strmap_put(&map, 1, ts_str_from("beta"), 20));
    CHECK(map.count == 2);
    CHECK(ts_strmap_get(&map, 1, ts_str_from("alpha"), &value) && value == 10);
    CHECK(ts_strmap_get(&map, 1, ts_str_from("beta"), &value) && value == 20);
    CHECK(!ts_strmap_get(&map, 1, ts_str_from("gamma"), &value));
    CHECK(!ts_strmap_get(&map, 1, ts_str_from("alph"), &value));
    CHECK(!ts_strmap_get(&map, 1, ts_str_from("alphaa"), &value));
    CHECK(!ts_strmap_get(&map, 1, ts_str_from("Alpha"), &value));

    /* overwrite keeps the count and replaces the value */
    CHECK(ts_strmap_put(&map, 1, ts_str_from("alpha"), 11));
    CHECK(map.count == 2);
    CHECK(ts_strmap_get(&map, 1, ts_str_from("alpha"), &value) && value == 11);

    /* lookup is by content, not by pointer */
    char copy[] = "beta";
    CHECK(ts_strmap_get(&map, 1, ts_str_from(copy), &value) && value == 20);

    /* extreme values are stored as given */
    CHECK(ts_strmap_put(&map, 1, ts_str_from("max"), SIZE_MAX));
    CHECK(ts_strmap_put(&map, 1, ts_str_from("zero"), 0));
    CHECK(ts_strmap_get(&map, 1, ts_str_from("max"), &value) && value == SIZE_MAX);
    CHECK(ts_strmap_get(&map, 1, ts_str_from("zero"), &value) && value == 0);

    /* the empty string is a key like any other */
    CHECK(!ts_strmap_get(&map, 1, str_n("", 0), &value));
    CHECK(ts_strmap_put(&map, 1, str_n("", 0), 7));
    CHECK(ts_strmap_get(&map, 1, str_n("", 0), &value) && value == 7);
    CHECK(map.count == 5);
    ts_strmap_free(&map);
    CHECK(map.count == 0 && map.capacity == 0 && map.slots == NULL);
}

static void tags_are_separate_scopes(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 0;
    const uint64_t tags[] = {0, 1, 2, 255, 256, 0x100000000ULL, UINT64_MAX};
    const size_t ntags = sizeof tags / sizeof tags[0];
    for (size_t t = 0; t < ntags; t++) CHECK(ts_strmap_put(&map, tags[t], ts_str_from("id"), 100 + t));
    CHECK(map.count == ntags);
    for (size_t t = 0; t < ntags; t++)
        CHECK(ts_strmap_get(&map, tags[t], ts_str_from("id"), &value) && value == 100 + t);
    CHECK(!ts_strmap_get(&map, 3, ts_str_from("id"), &value));
    CHECK(!ts_strmap_get(&map, 0x200000000ULL, ts_str_from("id"), &value));
    /* overwriting under one tag leaves the others alone */
    CHECK(ts_strmap_put(&map, 2, ts_str_from("id"), 999));
    CHECK(ts_strmap_get(&map, 2, ts_str_from("id"), &value) && value == 999);
    CHECK(ts_strmap_get(&map, 1, ts_str_from("id"), &value) && value == 101);
    CHECK(ts_strmap_get(&map, 255, ts_str_from("id"), &value) && value == 103);
    CHECK(map.count == ntags);
    ts_strmap_free(&map);
}

static void embedded_nul_bytes(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 0;
    static const char bytes[] = "a\0b\0\0";
    /* "a", "a\0", "a\0b", "a\0b\0", "a\0b\0\0" are five different keys */
    for (size_t n = 1; n <= 5; n++) CHECK(ts_strmap_put(&map, 0, str_n(bytes, n), n));
    CHECK(map.count == 5);
    for (size_t n = 1; n <= 5; n++) CHECK(ts_strmap_get(&map, 0, str_n(bytes, n), &value) && value == n);
    CHECK(!ts_strmap_get(&map, 0, str_n("a\0c", 3), &value));
    CHECK(!ts_strmap_get(&map, 0, str_n("\0", 1), &value));
    CHECK(ts_strmap_put(&map, 0, str_n("\0", 1), 77));
    CHECK(ts_strmap_put(&map, 0, str_n("\0\0", 2), 78));
    CHECK(ts_strmap_put(&map, 0, str_n("", 0), 79));
    CHECK(ts_strmap_get(&map, 0, str_n("\0", 1), &value) && value == 77);
    CHECK(ts_strmap_get(&map, 0, str_n("\0\0", 2), &value) && value == 78);
    CHECK(ts_strmap_get(&map, 0, str_n("", 0), &value) && value == 79);
    CHECK(ts_strmap_get(&map, 0, str_n(bytes, 1), &value) && value == 1);
    CHECK(map.count == 8);
    ts_strmap_free(&map);
}

/* Keys that differ in one byte at every position, and high bytes (hashing must not sign-extend). */
static void similar_keys(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 0;
    static char keys[256][8];
    for (int i = 0; i < 256; i++) {
        memcpy(keys[i], "key-000", 7);
        keys[i][6] = (char)i;
        keys[i][7] = '\0';
        CHECK(ts_strmap_put(&map, 9, str_n(keys[i], 7), (size_t)i));
    }
    CHECK(map.count == 256);
    for (int i = 0; i < 256; i++) CHECK(ts_strmap_get(&map, 9, str_n(keys[i], 7), &value) && value == (size_t)i);
    ts_strmap_free(&map);
}

/* 100k keys over several tags: growth keeps every entry; overwrite half; misses stay misses. */
static void many_keys(void) {
    enum { N = 100000, WIDTH = 24 };
    char *storage = malloc((size_t)N * WIDTH);
    ts_str *keys = malloc((size_t)N * sizeof *keys);
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(storage + i * WIDTH, WIDTH, "msg_%zu_%zx", i, i * 2654435761u);
        keys[i] = str_n(storage + i * WIDTH, (size_t)n);
    }
    ts_strmap map;
    ts_strmap_init(&map);
    int bad = 0;
    for (size_t i = 0; i < N; i++) bad += !ts_strmap_put(&map, i % 7, keys[i], i);
    CHECK(bad == 0);
    CHECK(map.count == N);
    CHECK(map.capacity >= N && (map.capacity & (map.capacity - 1)) == 0);
    CHECK(map.count * 4 <= map.capacity * 3); /* load factor at most 3/4 */

    size_t value = 0;
    for (size_t i = 0; i < N; i++) bad += !(ts_strmap_get(&map, i % 7, keys[i], &value) && value == i);
    CHECK(bad == 0);
    /* the same key under another tag is absent */
    for (size_t i = 0; i < N; i += 97) bad += ts_strmap_get(&map, (i + 1) % 7, keys[i], &value);
    CHECK(bad == 0);
    /* keys never inserted */
    for (size_t i = 0; i < 20000; i++) {
        char miss[32];
        int n = snprintf(miss, sizeof miss, "missing_%zu", i);
        bad += ts_strmap_get(&map, i % 7, str_n(miss, (size_t)n), &value);
    }
    CHECK(bad == 0);

    /* overwrite every even key: the count stays, the values change, odd keys are untouched */
    for (size_t i = 0; i < N; i += 2) bad += !ts_strmap_put(&map, i % 7, keys[i], N + i);
    CHECK(bad == 0);
    CHECK(map.count == N);
    for (size_t i = 0; i < N; i++) {
        size_t want = i % 2 == 0 ? N + i : i;
        bad += !(ts_strmap_get(&map, i % 7, keys[i], &value) && value == want);
    }
    CHECK(bad == 0);

    /* the same strings under an eighth tag are new entries */
    for (size_t i = 0; i < N; i += 10) bad += !ts_strmap_put(&map, 1000, keys[i], 3 * i);
    CHECK(bad == 0);
    CHECK(map.count == N + N / 10);
    for (size_t i = 0; i < N; i += 10)
        bad += !(ts_strmap_get(&map, 1000, keys[i], &value) && value == 3 * i);
    CHECK(bad == 0);

    ts_strmap_free(&map);
    free(keys);
    free(storage);
}

/* A map is reusable after free. */
static void reuse_after_free(void) {
    ts_strmap map;
    ts_strmap_init(&map);
    size_t value = 0;
    for (size_t i = 0; i < 1000; i++) CHECK(ts_strmap_put(&map, 0, ts_str_from("same"), i));
    CHECK(map.count == 1);
    CHECK(ts_strmap_get(&map, 0, ts_str_from("same"), &value) && value == 999);
    ts_strmap_free(&map);
    CHECK(!ts_strmap_get(&map, 0, ts_str_from("same"), &value));
    CHECK(ts_strmap_put(&map, 0, ts_str_from("same"), 5));
    CHECK(ts_strmap_get(&map, 0, ts_str_from("same"), &value) && value == 5);
    ts_strmap_free(&map);
}

int main(void) {
    TS_RUN(empty_map);
    TS_RUN(put_get_overwrite);
    TS_RUN(tags_are_separate_scopes);
    TS_RUN(embedded_nul_bytes);
    TS_RUN(similar_keys);
    TS_RUN(many_keys);
    TS_RUN(reuse_after_free);
    return ts_unit_finish();
}
