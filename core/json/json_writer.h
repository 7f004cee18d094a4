/* json_writer.h — a streaming JSON writer: the caller says begin object, key, value, end, in the
 * order the document has them ("$type" first is the caller's order, not the writer's); the
 * writer puts the commas, the colons, the indentation and the string escaping. For reports,
 * certificates and histories that used to spell `{\"key\":` by hand.
 *
 * Owns: its nesting state (up to TS_JSON_WRITER_MAX_DEPTH levels) and, writing to a FILE, a
 * buffer of what is not yet written (written out whenever 64 KiB have gathered after a value). Not the sink: the caller's ts_buf or FILE stays the
 * caller's (a FILE is flushed by ts_jw_finish, never closed).
 *
 * Strings: any bytes; written as valid UTF-8 (each byte that starts no valid character becomes
 * U+FFFD, utf8.h) and escaped minimally, as ts_codec_write_string does: `"` and `\` escaped,
 * \b \f \n \r \t, other controls below U+0020 as \u00XX, everything else raw UTF-8.
 *
 * Errors: sticky. A write to the FILE that fails, memory that runs out (the ts_buf's `failed`),
 * an end with no matching begin, a value where a key is due, or nesting deeper than the limit
 * marks the writer failed; later calls do nothing, and ts_jw_finish returns false. No global state.
 */
#ifndef TURNSTILE_CORE_JSON_JSON_WRITER_H
#define TURNSTILE_CORE_JSON_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/json/buf.h"
#include "core/json/json.h"

enum { TS_JSON_WRITER_MAX_DEPTH = 64 };

typedef struct ts_json_writer {
    ts_buf *out;     /* where bytes go: the caller's buffer, or &pending when writing to file */
    ts_buf pending;  /* FILE sink: bytes not yet written */
    FILE *file;      /* NULL: the buffer sink */
    int indent;      /* spaces per level; 0: compact (no whitespace at all) */
    int depth;
    bool failed;
    bool after_key;  /* a key was written: its value is next */
    uint64_t has_items; /* bit d: the container at depth d+1 has an item (a comma before the next) */
    uint64_t is_object; /* bit d: the container at depth d+1 is an object (keys due) */
} ts_json_writer;

/* Start a writer that appends to out (the caller's; its `failed` is the writer's too), or that
 * writes to file. indent: 0 for compact JSON (what the reports print), N for one item a line
 * indented N spaces a level, `"key": value`, empty containers as {} and []. */
void ts_jw_init_buf(ts_json_writer *w, ts_buf *out, int indent);
void ts_jw_init_file(ts_json_writer *w, FILE *file, int indent);

/* Writes what is pending (a FILE sink: and fflush), frees the writer's buffer, and returns true
 * when everything was written and every container closed. Call once, also after a failure. */
bool ts_jw_finish(ts_json_writer *w);
bool ts_jw_failed(const ts_json_writer *w);
/* Marks the writer failed for an error of the caller's (memory it could not get for what it was
 * to write): the document is incomplete, and ts_jw_finish says so. */
void ts_jw_fail(ts_json_writer *w);

void ts_jw_begin_object(ts_json_writer *w);
void ts_jw_end_object(ts_json_writer *w);
void ts_jw_begin_array(ts_json_writer *w);
void ts_jw_end_array(ts_json_writer *w);

/* A member's key, in an object (escaped as a string). Its value is the next call. */
void ts_jw_key(ts_json_writer *w, const char *key);

/* Values: an array's next item, or the value of the key just written. s NULL writes "". */
void ts_jw_string(ts_json_writer *w, const char *s);
void ts_jw_string_len(ts_json_writer *w, const char *s, size_t len);
void ts_jw_int(ts_json_writer *w, long long value);
void ts_jw_uint(ts_json_writer *w, unsigned long long value);
/* A number with exactly `places` decimals (printf's %.*f: 1.250 for places 3); places 0-17.
 * A value that is not finite writes null (JSON has no NaN). */
void ts_jw_fixed(ts_json_writer *w, double value, int places);
void ts_jw_bool(ts_json_writer *w, bool value);
void ts_jw_null(ts_json_writer *w);
/* A value that is already JSON text (len bytes, the caller's to have made valid), copied as is:
 * a recorded history, a testee's answer. Not reindented. */
void ts_jw_raw(ts_json_writer *w, const char *json, size_t len);
/* A parsed value (json.h; the caller's), written as ts_codec_write writes it compact: "$type"
 * first, numbers in shortest form, strings escaped as above (a parsed string is valid UTF-8).
 * NULL writes null. Not reindented. A value ts_codec_write cannot write fails the writer. */
void ts_jw_json(ts_json_writer *w, const ts_json *value);

/* A newline after the top-level value (the last line of a report file, a JSON Lines record). */
void ts_jw_end_line(ts_json_writer *w);

/* A key and its value in one call. */
void ts_jw_field_string(ts_json_writer *w, const char *key, const char *s);
void ts_jw_field_int(ts_json_writer *w, const char *key, long long value);
void ts_jw_field_uint(ts_json_writer *w, const char *key, unsigned long long value);
void ts_jw_field_fixed(ts_json_writer *w, const char *key, double value, int places);
void ts_jw_field_bool(ts_json_writer *w, const char *key, bool value);

#endif
