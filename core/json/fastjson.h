/* fastjson.h — the codec's fast path: simdjson (C++, Debian's libsimdjson-dev) behind a C
 * interface. Internal to core/json: only codec.c and jsonstream.c include it.
 *
 * Owns: a simdjson DOM parser (its buffers, reused from one document to the next) and, while a
 * window is being read, simdjson's document stream over it. Values are written straight into
 * the caller's arena as ts_json; nothing of simdjson outlives the call that produced a value.
 *
 * The fast path never decides that input is invalid. Whenever simdjson reports an error, or a
 * value holds something jansson reads differently or rejects (a duplicate key, a key holding
 * U+0000, an integer beyond int64, a top-level scalar, nesting deeper than simdjson's 1024), the
 * answer is TS_FAST_DEFER with the offset of that value: the strict path (jansson, under the
 * flags SPEC W2 asks for) reads it again and either accepts it or names line, column and reason.
 * Every value the fast path accepts, the strict path accepts as the same ts_json.
 */
#ifndef TURNSTILE_CORE_FASTJSON_H
#define TURNSTILE_CORE_FASTJSON_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/json.h"

/* Bytes that must be readable (any content) after the last byte handed to the fast path. */
enum { TS_FAST_PADDING = 64 };

typedef struct ts_fast_parser ts_fast_parser;

typedef enum ts_fast_result {
    TS_FAST_VALUE, /* a value was read into *out */
    TS_FAST_END,   /* no further complete value in the window; the rest starts at *start */
    TS_FAST_DEFER, /* the strict path must read the value that starts at *start */
    TS_FAST_NOMEM, /* out of memory */
} ts_fast_result;

/* A parser with no buffers yet; NULL when out of memory. Free with ts_fast_parser_free. */
ts_fast_parser *ts_fast_parser_new(void);
void ts_fast_parser_free(ts_fast_parser *parser); /* accepts NULL */

/* Reads data[0..len) as exactly one JSON document (any value at top level when any_value, else
 * an object or array). data must have TS_FAST_PADDING readable bytes after len. */
ts_fast_result ts_fast_parse_document(ts_fast_parser *parser, const char *data, size_t len, bool any_value,
                                      ts_arena *arena, ts_json *out);

/* Starts reading a window data[0..len) of concatenated values (objects or arrays, separated by
 * optional whitespace); data must have TS_FAST_PADDING readable bytes after len and stay
 * unchanged until the window is done. */
ts_fast_result ts_fast_window_begin(ts_fast_parser *parser, const char *data, size_t len);

/* The next value of the window, with the offsets of its first and one-past-last byte. With
 * `borrow`, the value's strings and keys point into the parser's memory (NUL-terminated there)
 * and stay valid only until the next call; else they are copied into the arena.
 * TS_FAST_END: every complete value has been read; *start is where the unread rest (an
 * incomplete value, possibly empty) begins. TS_FAST_DEFER: *start is where the value the
 * strict path must read begins; the window is over (begin a new one to go on). */
ts_fast_result ts_fast_window_next(ts_fast_parser *parser, ts_arena *arena, bool borrow, ts_json *out, size_t *start,
                                   size_t *end);

/* The byte offset, inside doc[0..len) (one valid JSON document, no padding needed), of the value
 * at the JSON Pointer (RFC 6901) `pointer`. Returns false when there is no such value. */
bool ts_fast_locate(const char *doc, size_t len, const char *pointer, size_t *offset);

#ifdef __cplusplus
}
#endif

#endif
