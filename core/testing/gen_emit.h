/* gen_emit.h — the generators' emitter: one description of a stream, two outputs.
 *
 * Owns: writing JSON either as text (JSON Lines, members in the order given) or as ts_json
 * values in an arena (for in-process fuzz targets, which then skip writing and re-parsing the
 * stream). A generator describes each update once, as a sequence of these calls. Internal to
 * the generator (gen.c, gen_lookalike.c, gen_partition.c, gen_turn.c).
 */
#ifndef TURNSTILE_CORE_TESTING_GEN_EMIT_H
#define TURNSTILE_CORE_TESTING_GEN_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/json.h"

enum { TS_EMIT_MAX_DEPTH = 8 };

typedef struct ts_emit_frame {
    bool is_object;
    bool first;                  /* text: no member or item written yet */
    ts_json_builder object;      /* values: the object's members */
    ts_json *items;              /* values: the array's items */
    size_t count, cap;
    ts_str key;                  /* values: the key waiting for its value */
} ts_emit_frame;

typedef struct ts_emitter {
    ts_buf *text;                /* text mode when non-NULL */
    ts_arena *arena;             /* value mode */
    ts_emit_frame stack[TS_EMIT_MAX_DEPTH];
    int depth;
    ts_json result;              /* value mode: the finished top-level value */
    bool failed;                 /* value mode: an allocation failed */
} ts_emitter;

void ts_emit_begin(ts_emitter *e, bool is_object); /* an object or an array */
void ts_emit_end(ts_emitter *e);
void ts_emit_key(ts_emitter *e, const char *name);  /* name: a string literal (value mode borrows it) */
void ts_emit_string(ts_emitter *e, ts_str s);       /* copied */
void ts_emit_int(ts_emitter *e, int64_t i);
void ts_emit_real(ts_emitter *e, double r);
void ts_emit_literal(ts_emitter *e, ts_json_kind kind); /* null, true or false */

/* The shapes' generators (gen.c, gen_lookalike.c, gen_partition.c): describe a stream into
 * out; return the number of updates (>= 1). tagged: the variant whose updates with content
 * carry additionalProperties {"group": ID} (gen.h). */
size_t ts_gen_lookalike(const uint8_t *data, size_t size, bool tagged, ts_emitter *out);
size_t ts_gen_partition(const uint8_t *data, size_t size, bool tagged, ts_emitter *out);
size_t ts_gen_agent_turn(const uint8_t *data, size_t size, ts_emitter *out);

#endif
