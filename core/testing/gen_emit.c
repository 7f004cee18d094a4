/* gen_emit.c — the generators' emitter; see gen_emit.h. */
#include "core/testing/gen_emit.h"

#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/numfmt.h"

static void text_separator(ts_emitter *e) {
    if (e->depth == 0) return;
    ts_emit_frame *f = &e->stack[e->depth - 1];
    if (!f->is_object) {
        if (!f->first) ts_buf_append_char(e->text, ',');
        f->first = false;
    }
}

/* Value mode: places a finished value into the enclosing container (or makes it the result). */
static void place(ts_emitter *e, ts_json value) {
    if (e->depth == 0) {
        e->result = value;
        return;
    }
    ts_emit_frame *f = &e->stack[e->depth - 1];
    if (f->is_object) {
        ts_json_builder_add_key(&f->object, f->key, value);
        return;
    }
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        ts_json *items = ts_arena_alloc(e->arena, cap * sizeof *items);
        if (!items) {
            e->failed = true;
            return;
        }
        if (f->count) memcpy(items, f->items, f->count * sizeof *items);
        f->items = items;
        f->cap = cap;
    }
    f->items[f->count++] = value;
}

void ts_emit_begin(ts_emitter *e, bool is_object) {
    if (e->text) {
        text_separator(e);
        ts_buf_append_char(e->text, is_object ? '{' : '[');
    }
    if (e->depth == TS_EMIT_MAX_DEPTH) abort(); /* the generator nests at most 5 deep */
    ts_emit_frame *f = &e->stack[e->depth++];
    memset(f, 0, sizeof *f);
    f->is_object = is_object;
    f->first = true;
    if (!e->text && is_object) ts_json_builder_init(&f->object, e->arena);
}

void ts_emit_end(ts_emitter *e) {
    ts_emit_frame *f = &e->stack[--e->depth];
    if (e->text) {
        ts_buf_append_char(e->text, f->is_object ? '}' : ']');
        if (e->depth == 0) ts_buf_append_char(e->text, '\n'); /* JSON Lines */
        return;
    }
    ts_json value;
    if (f->is_object) {
        if (!ts_json_builder_finish(&f->object, &value)) e->failed = true;
    } else {
        value = (ts_json){TS_JSON_ARRAY, {.a = {f->items, f->count}}};
    }
    place(e, value);
}

void ts_emit_key(ts_emitter *e, const char *name) {
    ts_emit_frame *f = &e->stack[e->depth - 1];
    if (e->text) {
        if (!f->first) ts_buf_append_char(e->text, ',');
        f->first = false;
        ts_codec_write_string(e->text, ts_str_from(name));
        ts_buf_append_char(e->text, ':');
    } else {
        f->key = ts_str_from(name); /* names are string literals: they outlive the arena */
    }
}

void ts_emit_string(ts_emitter *e, ts_str s) {
    if (e->text) {
        text_separator(e);
        ts_codec_write_string(e->text, s);
        return;
    }
    place(e, ts_json_make_string(ts_str_dup(e->arena, s)));
}

void ts_emit_int(ts_emitter *e, int64_t i) {
    if (e->text) {
        text_separator(e);
        ts_buf_appendf(e->text, "%lld", (long long)i);
        return;
    }
    place(e, ts_json_make_int(i));
}

void ts_emit_real(ts_emitter *e, double r) {
    if (e->text) {
        char digits[TS_NUMFMT_MAX];
        text_separator(e);
        ts_buf_append(e->text, digits, ts_format_double(r, digits));
        return;
    }
    place(e, (ts_json){TS_JSON_REAL, {.r = r}});
}

void ts_emit_literal(ts_emitter *e, ts_json_kind kind) {
    if (e->text) {
        text_separator(e);
        ts_buf_append_str(e->text, kind == TS_JSON_NULL ? "null" : kind == TS_JSON_TRUE ? "true" : "false");
        return;
    }
    place(e, (ts_json){kind, {.i = 0}});
}
