/* codec.h — bytes <-> ts_json, the only module that knows a JSON parser exists.
 *
 * Owns: reading JSON text (one document, or a stream of concatenated / line-delimited values
 * such as JSON Lines and MEAI's pretty-printed output) and writing it back in turnstile's one
 * output form: "$type" first in every object, other members in their stored order, numbers
 * in shortest round-trip form (numfmt.h), strings escaped minimally (raw UTF-8, as
 * System.Text.Json's relaxed encoder and RFC 8785 do). Parsing is strict: invalid UTF-8,
 * duplicate keys, lone surrogates, integers beyond int64 and nesting deeper than 2048 are
 * errors with a line and column. Today the parser is jansson.
 */
#ifndef TURNSTILE_CORE_CODEC_H
#define TURNSTILE_CORE_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/error.h"
#include "core/json/json.h"

/* Parses exactly one JSON document (object or array at top level; whitespace around it is
 * allowed) into the arena. Returns false and fills err (line, column, message) on failure. */
bool ts_codec_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err);

/* Like ts_codec_parse but any JSON value is accepted at top level. */
bool ts_codec_parse_any(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err);

/* Like ts_codec_parse_any, but every number is read as a double (TS_JSON_REAL), the way
 * JSON.parse and I-JSON (RFC 7493) read numbers: integers beyond int64 are accepted and rounded
 * to the nearest double, and a number beyond the double range ("1e400") is an error; one that
 * underflows reads as 0. For canon.h, where a number is the double it denotes. */
bool ts_codec_parse_any_numbers_as_doubles(ts_arena *arena, const char *data, size_t len, ts_json *out,
                                           ts_error *err);

/* Reads a sequence of top-level JSON values (objects or arrays) separated by optional
 * whitespace: JSON Lines, concatenated JSON, pretty-printed values one after another. A UTF-8
 * byte order mark at the start is skipped. The reader borrows `data`. */
typedef struct ts_value_reader {
    const char *data;
    size_t len;
    size_t pos;   /* next byte to read */
    int line;     /* 1-based line of `pos` */
    size_t line_start; /* byte offset where that line starts */
} ts_value_reader;

void ts_value_reader_init(ts_value_reader *r, const char *data, size_t len);

/* Returns 1 and the next value (with the 1-based line it starts on), 0 at the end of input,
 * -1 on a syntax error (err filled; the reader stops there). */
int ts_value_reader_next(ts_value_reader *r, ts_arena *arena, ts_json *out, int *out_line, ts_error *err);

typedef enum ts_write_style {
    TS_WRITE_COMPACT = 0, /* one line, no spaces */
    TS_WRITE_PRETTY = 1,  /* two-space indent, "key": value */
} ts_write_style;

/* Appends the JSON text of value to buf. Objects are written "$type" first, then the other
 * members in stored order. Returns false if a number is not finite or buf ran out of memory. */
bool ts_codec_write(ts_buf *buf, const ts_json *value, ts_write_style style);

/* Appends a JSON string literal (with quotes) for the given bytes. */
void ts_codec_write_string(ts_buf *buf, ts_str s);

#endif
