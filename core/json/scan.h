/* scan.h — the codec's fast path: turnstile's own one-pass JSON scanner. Internal to core/json:
 * only codec.c and jsonstream.c include it.
 *
 * Owns: a scanner's two stacks (the items and members of the containers being read, reused from
 * one value to the next). Values are written straight into the caller's arena as ts_json, in one
 * pass over the bytes: no tape, no tree to copy.
 *
 * The fast path never decides that input is invalid. It accepts a value only when the strict
 * path (jansson under the flags SPEC W2 asks for, strict.h) would accept the same bytes as the
 * same ts_json; at anything else — a syntax error, invalid UTF-8, a lone surrogate, a duplicate
 * key, a key holding U+0000, an integer beyond int64, a real beyond the double range, nesting
 * deeper than TS_SCAN_MAX_DEPTH — it answers TS_SCAN_DEFER, and the strict path reads the value
 * again and either accepts it or names line, column and reason.
 */
#ifndef TURNSTILE_CORE_JSON_SCAN_H
#define TURNSTILE_CORE_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/json.h"

/* Deeper containers are the strict path's (jansson reads up to 2048 levels). */
enum { TS_SCAN_MAX_DEPTH = 1000 };

typedef enum ts_scan_result {
    TS_SCAN_VALUE,      /* a value was read into *out; *end is one past its last byte */
    TS_SCAN_INCOMPLETE, /* the bytes ended inside the value: more input may complete it */
    TS_SCAN_DEFER,      /* the strict path must read this value */
    TS_SCAN_NOMEM,      /* out of memory */
} ts_scan_result;

enum { TS_SCAN_INLINE = 16 };

/* The stacks start in the scanner itself, so that a small document needs no allocation; a
 * scanner must not be moved once initialised. */
typedef struct ts_scanner {
    ts_json *items;     /* array items of the open arrays, innermost last */
    size_t item_count, item_cap;
    ts_member *members; /* members of the open objects, innermost last */
    size_t member_count, member_cap;
    ts_json inline_items[TS_SCAN_INLINE];
    ts_member inline_members[TS_SCAN_INLINE];
    bool borrow;        /* strings without escapes, and keys, may point into the data read (they
                         * are then not NUL-terminated): for a reader done with each value before
                         * the data changes */
} ts_scanner;

void ts_scanner_init(ts_scanner *scanner);
void ts_scanner_free(ts_scanner *scanner); /* the stacks; the scanner can be used again */

/* Reads the value that starts at data[0] (leading whitespace is skipped) into the arena. Only an
 * object or array is taken at top level unless any_value. `final`: nothing follows data[len), so
 * that the bytes ending inside a value is a defer (the strict path names the error), not
 * TS_SCAN_INCOMPLETE. Whatever follows the value is not read. */
ts_scan_result ts_scan_value(ts_scanner *scanner, ts_arena *arena, const char *data, size_t len, bool final,
                             bool any_value, size_t *end, ts_json *out);

/* Whether the object or array that starts at data[0] (after whitespace) closes inside
 * data[0..len), by its brackets and quotes alone: a reader that the scanner deferred makes sure
 * the strict path is given the whole value before it judges it. True for anything else. */
bool ts_scan_complete(const char *data, size_t len);

#endif
