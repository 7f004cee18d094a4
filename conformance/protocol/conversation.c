/* conversation.c — conversations as items; see conversation.h. */
#include "conformance/protocol/conversation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"


static bool bad(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool bad(char *why, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return false;
}

static bool role_is(ts_str role, const char *name) { return ts_str_eq_nocase(role, ts_str_from(name)); }

/* Concatenates text into *acc (in arena). */
static bool append_text(ts_arena *arena, ts_str *acc, ts_str text) {
    if (!acc->ptr) {
        *acc = text;
        return true;
    }
    char *joined = ts_arena_alloc(arena, acc->len + text.len + 1);
    if (!joined) return false;
    memcpy(joined, acc->ptr, acc->len);
    memcpy(joined + acc->len, text.ptr, text.len);
    joined[acc->len + text.len] = '\0';
    *acc = (ts_str){joined, acc->len + text.len};
    return true;
}

bool ts_resume_items(const ts_json *messages, ts_arena *arena, ts_item **out, size_t *count, char *why,
                     size_t why_size) {
    *out = NULL;
    *count = 0;
    if (!messages || messages->kind != TS_JSON_ARRAY) {
        snprintf(why, why_size, "messages: must be an array of ChatMessage objects");
        return false;
    }
    size_t cap = 0;
    for (size_t m = 0; m < messages->u.a.count; m++) {
        const ts_json *msg = &messages->u.a.items[m];
        if (msg->kind != TS_JSON_OBJECT) return bad(why, why_size, "messages[%zu]: must be an object", m);
        const ts_json *role_v = ts_json_get(msg, "role"), *contents = ts_json_get(msg, "contents");
        if (role_v && role_v->kind != TS_JSON_STRING)
            return bad(why, why_size, "messages[%zu].role: must be a string", m);
        if (contents && contents->kind != TS_JSON_ARRAY)
            return bad(why, why_size, "messages[%zu].contents: must be an array", m);
        ts_str role = role_v ? role_v->u.s : ts_str_from("user"); /* MEAI reads a missing role as user */
        if (role_is(role, "system") || role_is(role, "developer")) continue;
        const ts_json *id = ts_json_get(msg, "messageId"), *at = ts_json_get(msg, "createdAt");
        ts_item base = {.message = m, .message_id = id && id->kind == TS_JSON_STRING && id->u.s.len ? id->u.s : (ts_str){0},
                        .created_at = at && at->kind == TS_JSON_STRING ? at->u.s : (ts_str){0}};
        ts_item whole = base;
        whole.kind = role_is(role, "assistant") ? TS_ITEM_ASSISTANT : TS_ITEM_USER;
        size_t n = contents ? contents->u.a.count : 0, results = 0, texts = 0, calls = 0;
        ts_item_call *list = ts_arena_calloc(arena, n + 1, sizeof *list);
        if (!list) return bad(why, why_size, "out of memory");
        for (size_t c = 0; c < n; c++) {
            const ts_json *content = &contents->u.a.items[c];
            if (content->kind != TS_JSON_OBJECT)
                return bad(why, why_size, "messages[%zu].contents[%zu]: must be an object", m, c);
            ts_str type = ts_json_string(ts_json_get(content, "$type"));
            if (ts_str_eq_cstr(type, "text")) {
                ts_str text = ts_json_string(ts_json_get(content, "text"));
                if (!text.ptr) return bad(why, why_size, "messages[%zu].contents[%zu].text: must be a string", m, c);
                if (!append_text(arena, &whole.text, text)) return bad(why, why_size, "out of memory");
                texts++;
            } else if (ts_str_eq_cstr(type, "functionCall") && whole.kind == TS_ITEM_ASSISTANT) {
                ts_item_call *call = &list[calls++];
                call->call_id = ts_json_string(ts_json_get(content, "callId"));
                call->name = ts_json_string(ts_json_get(content, "name"));
                const ts_json *arguments = ts_json_get(content, "arguments");
                call->arguments = arguments ? *arguments : ts_json_make_null();
                ts_error err;
                if (arguments && arguments->kind == TS_JSON_STRING &&
                    !ts_codec_parse(arena, arguments->u.s.ptr, arguments->u.s.len, &call->arguments, &err))
                    call->arguments = *arguments;
                if (!call->call_id.ptr || !call->name.ptr)
                    return bad(why, why_size, "messages[%zu].contents[%zu]: a functionCall needs string callId and name", m, c);
            } else if (ts_str_eq_cstr(type, "functionResult") && whole.kind != TS_ITEM_ASSISTANT) {
                ts_item r = base;
                r.kind = TS_ITEM_RESULT;
                r.call_id = ts_json_string(ts_json_get(content, "callId"));
                const ts_json *value = ts_json_get(content, "result");
                r.value = value ? *value : ts_json_make_null();
                if (!r.call_id.ptr)
                    return bad(why, why_size, "messages[%zu].contents[%zu].callId: must be a string", m, c);
                ts_item *items = ts_arena_grow_array(arena, *out, &cap, *count, sizeof *items);
                if (!items) return bad(why, why_size, "out of memory");
                *out = items;
                items[(*count)++] = r;
                results++;
            }
        }
        bool user_item = whole.kind == TS_ITEM_USER && role_is(role, "user") && (texts > 0 || results == 0);
        if (whole.kind == TS_ITEM_ASSISTANT || user_item) {
            whole.calls = list;
            whole.call_count = calls;
            ts_item *items = ts_arena_grow_array(arena, *out, &cap, *count, sizeof *items);
            if (!items) return bad(why, why_size, "out of memory");
            *out = items;
            items[(*count)++] = whole;
        }
    }
    return true;
}

size_t ts_count_assistants(const ts_item *items, size_t count) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += items[i].kind == TS_ITEM_ASSISTANT;
    return n;
}
