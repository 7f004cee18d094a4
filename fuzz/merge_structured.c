/* merge_structured.c — fuzz target: generator -> reference merger -> every checker, plus the
 * merger's metamorphic relations:
 *   - merging twice gives identical bytes (D1);
 *   - splitting a text delta in two (at a character boundary) does not change the response;
 *   - renaming every responseId, messageId and agentId consistently renames the response.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "core/testing/gen.h"
#include "fuzz/oracle.h"

static const ts_merge_options turn = {.primary_response_id = {"fuzz-turn", 9}};

/* Splits each text content (without annotations, two or more characters) of every update into
 * two adjacent text contents: the first keeps the original's members. */
static ts_update *split_texts(ts_arena *arena, const ts_update *updates, size_t count) {
    ts_update *copy = ts_arena_alloc(arena, count * sizeof *copy);
    if (!copy) return NULL;
    memcpy(copy, updates, count * sizeof *copy);
    for (size_t i = 0; i < count; i++) {
        const ts_json *contents = updates[i].contents;
        ts_json *items = ts_arena_alloc(arena, (2 * contents->u.a.count + 1) * sizeof *items);
        ts_json *array = ts_arena_alloc(arena, sizeof *array);
        if (!items || !array) return NULL;
        size_t n = 0;
        for (size_t c = 0; c < contents->u.a.count; c++) {
            const ts_json *item = &contents->u.a.items[c];
            ts_str text = ts_json_string(ts_json_get(item, "text"));
            const ts_json *annotations = ts_json_get(item, "annotations");
            size_t cut = text.len / 2;
            while (cut > 0 && ((unsigned char)text.ptr[cut] & 0xC0) == 0x80) cut--; /* a character boundary */
            bool splittable = ts_str_eq_cstr(ts_content_type(item), "text") && cut > 0 &&
                              (!annotations || annotations->kind == TS_JSON_NULL ||
                               (annotations->kind == TS_JSON_ARRAY && annotations->u.a.count == 0));
            if (!splittable) {
                items[n++] = *item;
                continue;
            }
            ts_json_builder first, second;
            ts_json_builder_init(&first, arena);
            ts_json_builder_init(&second, arena);
            for (size_t k = 0; k < item->u.o.count; k++)
                ts_json_builder_add_key(&first, item->u.o.members[k].key, item->u.o.members[k].value);
            ts_json_builder_set(&first, ts_str_from("text"), ts_json_make_string((ts_str){text.ptr, cut}));
            ts_json_builder_add(&second, "$type", ts_json_make_string(ts_str_from("text")));
            ts_json_builder_add(&second, "text", ts_json_make_string((ts_str){text.ptr + cut, text.len - cut}));
            if (!ts_json_builder_finish(&first, &items[n++]) || !ts_json_builder_finish(&second, &items[n++])) return NULL;
        }
        *array = (ts_json){TS_JSON_ARRAY, {.a = {items, n}}};
        copy[i].contents = array;
    }
    return copy;
}

static ts_str renamed(ts_arena *arena, ts_str s) {
    if (!ts_str_nonempty(s)) return s;
    char *p = ts_arena_alloc_bytes(arena, s.len + 3);
    if (!p) return s;
    memcpy(p, "x:", 2);
    memcpy(p + 2, s.ptr, s.len);
    p[s.len + 2] = '\0';
    return (ts_str){p, s.len + 2};
}

static void rename_member(ts_arena *arena, ts_json *object, const char *key) {
    for (size_t i = 0; object && object->kind == TS_JSON_OBJECT && i < object->u.o.count; i++)
        if (ts_str_eq_cstr(object->u.o.members[i].key, key) && object->u.o.members[i].value.kind == TS_JSON_STRING)
            object->u.o.members[i].value.u.s = renamed(arena, object->u.o.members[i].value.u.s);
}

/* Fails with the generated stream as text (written only now: the run itself never needs it). */
static _Noreturn void fail(const char *what, const uint8_t *data, size_t size) {
    ts_buf text;
    ts_buf_init(&text);
    ts_gen_stream(data, size, &text);
    ts_oracle_fail(what, text.data, text.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_json generated;
    ts_stream stream;
    if (!ts_gen_updates(&arena, data, size, &generated)) fail("out of memory", data, size);
    if (!ts_stream_from_array(&arena, &generated, "", &stream, &err))
        fail("the generator made a stream the model rejects", data, size);
    ts_json plain, first, second, split_json, renamed_json;
    if (!ts_oracle_merge_json(&arena, stream.updates, stream.count, NULL, &plain, &err))
        fail("the reference refused a generated stream", data, size);
    if (!ts_oracle_check_json(stream.updates, stream.count, &plain))
        fail("a conformance checker rejects the reference's answer", data, size);

    /* D1: the same stream twice gives the same bytes. */
    if (!ts_oracle_merge_json(&arena, stream.updates, stream.count, &turn, &first, &err) ||
        !ts_oracle_merge_json(&arena, stream.updates, stream.count, &turn, &second, &err) ||
        !ts_oracle_identical(&first, &second))
        fail("D1: merging the same stream twice gave different bytes", data, size);

    ts_update *split = split_texts(&arena, stream.updates, stream.count);
    if (!split || !ts_oracle_merge_json(&arena, split, stream.count, &turn, &split_json, &err) ||
        !ts_json_equal(&split_json, &first))
        fail("splitting text deltas changed the merged response", data, size);

    ts_update *renamed_updates = ts_arena_alloc(&arena, stream.count * sizeof *renamed_updates);
    if (!renamed_updates) fail("out of memory", data, size);
    memcpy(renamed_updates, stream.updates, stream.count * sizeof *renamed_updates);
    for (size_t i = 0; i < stream.count; i++) {
        renamed_updates[i].response_id = renamed(&arena, renamed_updates[i].response_id);
        renamed_updates[i].message_id = renamed(&arena, renamed_updates[i].message_id);
        renamed_updates[i].agent_id = renamed(&arena, renamed_updates[i].agent_id);
    }
    if (!ts_oracle_merge_json(&arena, renamed_updates, stream.count, &turn, &renamed_json, &err))
        fail("renaming ids made the stream unmergeable", data, size);
    rename_member(&arena, &first, "agentId"); /* first is not used after this */
    ts_json *messages = (ts_json *)ts_json_get(&first, "messages");
    for (size_t i = 0; messages && i < messages->u.a.count; i++) {
        rename_member(&arena, &messages->u.a.items[i], "messageId");
        rename_member(&arena, &messages->u.a.items[i], "agentId");
    }
    if (!ts_json_equal(&renamed_json, &first)) fail("renaming ids did not just rename the response", data, size);

    ts_arena_free(&arena);
    return 0;
}
