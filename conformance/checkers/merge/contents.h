/* contents.h — the checkers' vocabulary for contents: when two contents are the same, a hash
 * that agrees with that equality, and C1's normal form (conservation.h judges C1 with them).
 *
 * Owns: content equality as the checkers read SPEC C1/W3 (a null member of a content object is
 * the same as an absent one; nested values are raw JSON compared as ts_json_equal does) and
 * the hashes the matching room indexes by. A hash never decides anything: every lookup by
 * hash is verified by the equality it agrees with (equal values always hash alike), so a
 * collision can cost time but never change a verdict. Hashes are functions of the values
 * alone (no seed, no address), so runs are reproducible.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_CONTENTS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_CONTENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/checkers/findings.h"
#include "core/json/arena.h"
#include "core/json/json.h"

/* A 64-bit mixer (splitmix64's finaliser) and a hash of bytes; both deterministic. */
uint64_t ts_hash_mix(uint64_t x);
uint64_t ts_hash_bytes(const void *data, size_t len, uint64_t seed);
/* Combines an ordered sequence: h = ts_hash_then(h, next). */
uint64_t ts_hash_then(uint64_t h, uint64_t next);

/* A hash that agrees with ts_json_equal: equal values (objects in any member order, 10 and
 * 10.0) hash alike. */
uint64_t ts_hash_json(const ts_json *value);
/* An object's hash from its members': ts_hash_json(object) is ts_hash_object(the sum of
 * ts_hash_member over its members, their count), so a subset of members hashes as the object
 * of that subset would. */
uint64_t ts_hash_member(const ts_member *member);
uint64_t ts_hash_object(uint64_t member_sum, size_t count);

/* Two contents are the same content: equal as JSON, except that a null member of the content
 * object is the same as an absent one (SPEC W3; System.Text.Json leaves nulls out when
 * writing, so "result": null comes back as no result). Nested values compare exactly. */
bool ts_same_content(const ts_json *a, const ts_json *b);
/* A hash that agrees with ts_same_content. */
uint64_t ts_hash_content(const ts_json *content);

/* Two content lists are the same item by item (ts_same_content), and its hash. */
bool ts_same_contents(const ts_json *a, size_t a_count, const ts_json *b, size_t b_count);
uint64_t ts_hash_contents(const ts_json *items, size_t count);

/* C1's normal form of a content list: every run of adjacent text items becomes one text item
 * holding their concatenated text, likewise reasoning; other items unchanged. Two lists with
 * the same normal form hold the same contents in the same order, however they coalesced.
 * *out is allocated in arena. Returns false on allocation failure. */
bool ts_contents_normalize(ts_arena *arena, const ts_json *items, size_t count, ts_json **out, size_t *out_count);

/* The text of a text or reasoning content (absent when it has none). */
ts_str ts_content_text(const ts_json *content);

/* What a content is, by its "$type" (the checkers look this up for every content, several
 * times: keys the codec interned are recognised by their address first). */
typedef enum ts_content_kind { TS_CONTENT_TEXT, TS_CONTENT_REASONING, TS_CONTENT_USAGE, TS_CONTENT_OTHER } ts_content_kind;
ts_content_kind ts_content_kind_of(const ts_json *content);


#endif
