/* codec.h — bytes <-> ts_json, the only module that knows a JSON parser exists.
 *
 * Owns: reading JSON text (one document, or a stream of concatenated / line-delimited values
 * such as JSON Lines and MEAI's pretty-printed output) and writing it back in turnstile's one
 * output form: "$type" first in every object, other members in their stored order, numbers
 * in shortest round-trip form (numfmt.h), strings escaped minimally (raw UTF-8, as
 * System.Text.Json's relaxed encoder and RFC 8785 do). Parsing is strict: invalid UTF-8,
 * duplicate keys, lone surrogates, integers beyond int64, non-finite numbers and nesting deeper
 * than 2048 are errors with a line and column.
 *
 * Two parsers stand behind it. simdjson (the fast path) reads every value it can be sure of in
 * one pass straight into the arena; jansson (the strict path) reads the rest, and it alone
 * decides errors, so messages and positions are jansson's. Both accept exactly the same texts
 * as the same values (core/tests/codec_paths_test.c checks it).
 */
#ifndef TURNSTILE_CORE_CODEC_H
#define TURNSTILE_CORE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/error.h"
#include "core/json/json.h"

/* Parses exactly one JSON document (object or array at top level; whitespace around it is
 * allowed) into the arena. Returns false and fills err (line, column, message) on failure. */
bool ts_codec_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err);

/* Like ts_codec_parse but any JSON value is accepted at top level. */
bool ts_codec_parse_any(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err);

/* ts_codec_parse (any_value false) or ts_codec_parse_any (true) through the strict path alone:
 * for tests and fuzzers that compare the two paths. */
bool ts_codec_parse_strict(ts_arena *arena, const char *data, size_t len, bool any_value, ts_json *out,
                           ts_error *err);

/* Points err (line, column) at the value `path` names ("steps[2].input", "" for the whole)
 * in data[0..len), one valid JSON document, or at its nearest enclosing value when that one is
 * not there: for a field error found after parsing. False, err unchanged, when it cannot. */
bool ts_codec_locate(const char *data, size_t len, const char *path, ts_error *err);

/* Like ts_codec_parse_any, but every number is read as a double (TS_JSON_REAL), the way
 * JSON.parse and I-JSON (RFC 7493) read numbers: integers beyond int64 are accepted and rounded
 * to the nearest double, and a number beyond the double range ("1e400") is an error; one that
 * underflows reads as 0. For canon.h, where a number is the double it denotes. */
bool ts_codec_parse_any_numbers_as_doubles(ts_arena *arena, const char *data, size_t len, ts_json *out,
                                           ts_error *err);

/* Reads a sequence of top-level JSON values (objects or arrays) separated by optional
 * whitespace: JSON Lines, concatenated JSON, pretty-printed values one after another. A UTF-8
 * byte order mark at the start is skipped. The reader borrows `data` and allocates nothing of
 * its own; it reads through the strict path only (ts_json_stream below is the fast reader). */
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

/* The same sequence of values as ts_value_reader reads, with the same values, lines and errors,
 * from a file or a buffer read in windows of about a mebibyte through the fast path: the whole
 * input is never held at once. A value larger than a window grows the window to hold it.
 * Owns: its window buffer and parser; close it with ts_json_stream_close. */
typedef struct ts_json_stream ts_json_stream;

/* Reads `file` from where it is to its end (the file is not closed by the stream). At most
 * max_bytes are read (0: no bound); an input longer than that is an error, reported as soon as
 * the excess is read. NULL when out of memory. */
ts_json_stream *ts_json_stream_open_file(FILE *file, size_t max_bytes);

/* Reads data[0..len), which the stream borrows until it is closed. NULL when out of memory. */
ts_json_stream *ts_json_stream_open_memory(const char *data, size_t len);

void ts_json_stream_close(ts_json_stream *stream); /* accepts NULL */

/* As ts_value_reader_next: 1 and the next value (its first line in *out_line), 0 at the end,
 * -1 on an error (err filled: line and column, or no position for a read error, an input over
 * the bound, or memory running out). After -1 every call returns 0. */
int ts_json_stream_next(ts_json_stream *stream, ts_arena *arena, ts_json *out, int *out_line, ts_error *err);

/* Points err (line, column) at the value `path` names ("contents[2].name", "[3].role", "" for
 * the value itself) inside the value the last ts_json_stream_next returned; a path to a member
 * that is not there points at the nearest enclosing value that is. Returns false, leaving err
 * as it was, when there is no such value (or the stream moved on). */
bool ts_json_stream_locate(const ts_json_stream *stream, const char *path, ts_error *err);

/* From now on, a value's strings and keys may point into the stream's own memory, valid only
 * until the next ts_json_stream_next and not NUL-terminated (the rest of the value is in the
 * arena as usual): for a reader that is done with each value before it asks for the next, reads
 * strings by their length, and copies what it keeps. */
void ts_json_stream_borrow_strings(ts_json_stream *stream);

/* For tests: windows of `bytes` instead of a mebibyte, so that short inputs cross window
 * boundaries. Only before the first ts_json_stream_next; false when too late or out of memory. */
bool ts_json_stream_set_window(ts_json_stream *stream, size_t bytes);

/* Input bytes the stream has taken from its source so far. */
size_t ts_json_stream_bytes_read(const ts_json_stream *stream);

typedef enum ts_write_style {
    TS_WRITE_COMPACT = 0, /* one line, no spaces */
    TS_WRITE_PRETTY = 1,  /* two-space indent, "key": value */
} ts_write_style;

/* Appends the JSON text of value to buf. Objects are written "$type" first, then the other
 * members in stored order. Returns false if a number is not finite or buf ran out of memory. */
bool ts_codec_write(ts_buf *buf, const ts_json *value, ts_write_style style);

/* Writes the JSON text of value (as ts_codec_write) to file as it is formed, then `end` (or
 * nothing when NULL), so that a large value never sits whole in memory. Returns false as
 * ts_codec_write does, or when a write fails; what was written before stays written. */
bool ts_codec_write_file(FILE *file, const ts_json *value, ts_write_style style, const char *end);

/* Writes `object` to file as ts_codec_write_file would write it with one more member, `key`
 * (not "$type"), last: an array of `count` items that item(context, i, &out) forms one at a
 * time, each written before the next is asked for (the item's memory is the callback's to
 * reuse). For a response whose messages should never all be held at once. Returns false when
 * an item cannot be formed, a number is not finite, memory runs out or a write fails. */
typedef bool (*ts_codec_item_fn)(void *context, size_t index, ts_json *out);
bool ts_codec_write_file_streaming(FILE *file, const ts_json *object, const char *key, size_t count,
                                   ts_codec_item_fn item, void *context, ts_write_style style, const char *end);

/* Appends a JSON string literal (with quotes) for the given bytes. */
void ts_codec_write_string(ts_buf *buf, ts_str s);

#endif
