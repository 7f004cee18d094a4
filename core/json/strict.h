/* strict.h — the codec's strict path: jansson under the flags SPEC W2 asks for. Internal to
 * core/json: only codec.c and jsonstream.c include it.
 *
 * Owns: nothing past a call (jansson's tree is freed before it returns). It reads whatever the
 * fast path (fastjson.h) defers, and it is what decides every error: the message is jansson's,
 * the position is the offending byte (a raw NUL byte is named as such, at its own offset).
 */
#ifndef TURNSTILE_CORE_STRICT_H
#define TURNSTILE_CORE_STRICT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"

typedef enum ts_strict_mode {
    TS_STRICT_DOCUMENT,          /* exactly one object or array, whitespace around it */
    TS_STRICT_ANY,               /* exactly one value of any kind */
    TS_STRICT_ANY_AS_DOUBLES,    /* like TS_STRICT_ANY, every number read as a double */
    TS_STRICT_FIRST_VALUE,       /* the object or array at the start; what follows is not read */
} ts_strict_mode;

typedef struct ts_strict_outcome {
    size_t consumed;      /* value read: bytes up to the end of the value */
    size_t error_offset;  /* error: offset of the offending byte in data */
    bool ran_out;         /* error: reading stopped near the end of data (more input might read otherwise) */
    bool out_of_memory;   /* error: memory ran out (err says so; error_offset is 0) */
} ts_strict_outcome;

/* Reads data[0..len) under `mode` into the arena. On failure fills err->message (line, column
 * and path are left 0/empty: the caller knows where data starts) and outcome's error fields. */
bool ts_strict_read(ts_arena *arena, const char *data, size_t len, ts_strict_mode mode, ts_json *out,
                    ts_strict_outcome *outcome, ts_error *err);

/* Line and byte column of data[pos], counting from data[from], which is on line from_line at
 * column from_column (both 1-based). */
void ts_strict_position(const char *data, size_t from, int from_line, int from_column, size_t pos, int *line,
                        int *column);

#endif
