/* reader.c — updates from JSON text, one at a time; see reader.h (and ts_stream_read, model.h). */
#include "core/merge/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"

struct ts_update_reader {
    ts_json_stream *stream;
    ts_arena own;        /* the current value's memory when the caller gives no arena */
    ts_json value;       /* the current top-level value: an update, or an array of them */
    int line;            /* the line it starts on */
    size_t next_item;    /* for an array: the element to read next */
    bool in_array;
    size_t index;        /* updates returned so far */
    char prefix[32];     /* "[i]" for an array element, else "" */
};

static ts_update_reader *wrap(ts_json_stream *stream) {
    if (!stream) return NULL;
    ts_update_reader *r = calloc(1, sizeof *r);
    if (!r) {
        ts_json_stream_close(stream);
        return NULL;
    }
    r->stream = stream;
    ts_arena_init(&r->own);
    return r;
}

ts_update_reader *ts_update_reader_open_file(FILE *file, size_t max_bytes) {
    return wrap(ts_json_stream_open_file(file, max_bytes));
}

ts_update_reader *ts_update_reader_open_memory(const char *data, size_t len) {
    return wrap(ts_json_stream_open_memory(data, len));
}

void ts_update_reader_close(ts_update_reader *r) {
    if (!r) return;
    ts_json_stream_close(r->stream);
    ts_arena_free(&r->own);
    free(r);
}

size_t ts_update_reader_bytes_read(const ts_update_reader *r) { return ts_json_stream_bytes_read(r->stream); }

bool ts_update_reader_locate(const ts_update_reader *r, const char *path, ts_error *err) {
    char full[sizeof err->path + sizeof r->prefix];
    snprintf(full, sizeof full, "%s%s%s", r->prefix, r->prefix[0] && path[0] && path[0] != '[' ? "." : "", path);
    return ts_json_stream_locate(r->stream, full, err);
}

/* The model rejected a field: point at it in the text (err->path is relative to the value). */
static int rejected(ts_update_reader *r, ts_error *err) {
    if (err) ts_json_stream_locate(r->stream, err->path, err);
    return -1;
}

int ts_update_reader_next(ts_update_reader *r, ts_arena *arena, ts_update *out, ts_error *err) {
    ts_arena *memory = arena ? arena : &r->own;
    if (!arena && r->index == 0 && !r->in_array) ts_json_stream_borrow_strings(r->stream); /* valid until the next call */
    while (!r->in_array || r->next_item == r->value.u.a.count) {
        r->in_array = false;
        r->prefix[0] = '\0';
        if (!arena) ts_arena_reset(&r->own);
        int got = ts_json_stream_next(r->stream, memory, &r->value, &r->line, err);
        if (got <= 0) return got;
        if (r->value.kind != TS_JSON_ARRAY) {
            if (!ts_update_from_json(memory, &r->value, r->index, r->line, "", out, err)) return rejected(r, err);
            r->index++;
            return 1;
        }
        r->in_array = true;
        r->next_item = 0;
    }
    size_t i = r->next_item++;
    snprintf(r->prefix, sizeof r->prefix, "[%zu]", i);
    if (!ts_update_from_json(memory, &r->value.u.a.items[i], r->index, r->line, r->prefix, out, err))
        return rejected(r, err);
    r->index++;
    return 1;
}

bool ts_stream_read(ts_arena *arena, const char *data, size_t len, ts_stream *out, ts_error *err) {
    out->updates = NULL;
    out->count = 0;
    ts_update_reader *reader = ts_update_reader_open_memory(data, len);
    if (!reader) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    ts_update *updates = NULL;
    size_t count = 0, cap = 0;
    int got;
    for (;;) {
        if (count == cap) {
            size_t new_cap = cap ? cap * 2 : 64;
            ts_update *grown = ts_arena_grow(arena, updates, cap * sizeof *grown, new_cap * sizeof *grown);
            if (!grown) {
                ts_error_clear(err);
                ts_error_set(err, TS_ERR_NOMEM, "out of memory");
                got = -1;
                break;
            }
            updates = grown;
            cap = new_cap;
        }
        got = ts_update_reader_next(reader, arena, &updates[count], err);
        if (got <= 0) break;
        count++;
    }
    ts_update_reader_close(reader);
    if (got < 0) return false;
    if (count == 0) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_INPUT, "the stream holds no update (an empty input, or only empty arrays)");
        return false;
    }
    out->updates = updates;
    out->count = count;
    return true;
}
