/* model.c — reading and writing the wire model; see model.h. */
#include "core/merge/model.h"

#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"

#define TYPE_IS(t, name) ((t).len == sizeof(name) - 1 && memcmp((t).ptr, name, sizeof(name) - 1) == 0)

const char *const ts_usage_counter_names[TS_USAGE_COUNTER_COUNT] = {
    "inputTokenCount",      "outputTokenCount",    "totalTokenCount",
    "cachedInputTokenCount", "reasoningTokenCount", "inputAudioTokenCount",
    "inputTextTokenCount",  "outputAudioTokenCount", "outputTextTokenCount",
};

static bool fail_at(ts_error *err, const char *prefix, const char *field, const char *fmt, const char *detail) {
    if (!err) return false;
    int line = err->line;
    ts_error_clear(err);
    err->line = line;
    snprintf(err->path, sizeof err->path, "%s%s%s", prefix, (prefix[0] && field[0] && field[0] != '[') ? "." : "", field);
    ts_error_set(err, TS_ERR_INPUT, fmt, detail);
    return false;
}

static bool wrong_type(ts_error *err, const char *prefix, const char *field, const char *expected, const ts_json *got) {
    char msg[96];
    snprintf(msg, sizeof msg, "expected %s, got %s", expected, ts_json_kind_name(got->kind));
    return fail_at(err, prefix, field, "%s", msg);
}

/* --------------------------------------------------------------------------- usage ------ */

void ts_usage_init(ts_usage *usage, ts_arena *arena) {
    memset(usage, 0, sizeof *usage);
    ts_json_builder_init(&usage->additional_counts, arena);
    ts_json_builder_init(&usage->extras, arena);
}

bool ts_usage_counter_value(const ts_json *value, bool *is_null, int64_t *out) {
    *is_null = false;
    if (value->kind == TS_JSON_NULL) {
        *is_null = true;
        return true;
    }
    if (value->kind == TS_JSON_INT) {
        *out = value->u.i;
        return true;
    }
    if (value->kind == TS_JSON_STRING) {
        /* AllowReadingFromString: an optional '-' and 1..19 digits, nothing else. */
        const char *s = value->u.s.ptr;
        size_t n = value->u.s.len, i = 0;
        bool negative = n > 0 && s[0] == '-';
        if (negative) i++;
        if (i == n || n - i > 19) return false;
        uint64_t v = 0;
        for (; i < n; i++) {
            if (s[i] < '0' || s[i] > '9') return false;
            v = v * 10 + (uint64_t)(s[i] - '0');
        }
        if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return false;
        *out = negative ? (int64_t)(0 - v) : (int64_t)v;
        return true;
    }
    return false;
}

static bool validate_usage_details(const ts_json *details, const char *path, ts_error *err) {
    if (details->kind != TS_JSON_OBJECT) return wrong_type(err, path, "", "an object", details);
    for (size_t i = 0; i < details->u.o.count; i++) {
        const ts_member *m = &details->u.o.members[i];
        bool is_null;
        int64_t v;
        bool known = false;
        for (int c = 0; c < TS_USAGE_COUNTER_COUNT; c++) {
            if (ts_str_eq_cstr(m->key, ts_usage_counter_names[c])) {
                known = true;
                if (!ts_usage_counter_value(&m->value, &is_null, &v))
                    return fail_at(err, path, ts_usage_counter_names[c], "%s",
                                   "expected an integer within int64 (or its string), or null");
            }
        }
        if (!known && ts_str_eq_cstr(m->key, "additionalCounts")) {
            if (m->value.kind == TS_JSON_NULL) continue;
            if (m->value.kind != TS_JSON_OBJECT) return wrong_type(err, path, "additionalCounts", "an object", &m->value);
            for (size_t j = 0; j < m->value.u.o.count; j++) {
                const ts_member *a = &m->value.u.o.members[j];
                if (!ts_usage_counter_value(&a->value, &is_null, &v) || is_null) {
                    char field[128];
                    snprintf(field, sizeof field, "additionalCounts.%.*s", (int)(a->key.len > 80 ? 80 : a->key.len), a->key.ptr);
                    return fail_at(err, path, field, "%s", "expected an integer within int64");
                }
            }
        }
    }
    return true;
}

static bool add_checked(int64_t *acc, int64_t v) { return !__builtin_add_overflow(*acc, v, acc); }

bool ts_usage_add(ts_usage *sum, const ts_json *details, ts_error *err) {
    sum->present = true;
    if (!details || details->kind != TS_JSON_OBJECT) return true;
    for (size_t i = 0; i < details->u.o.count; i++) {
        const ts_member *m = &details->u.o.members[i];
        bool is_null, handled = false;
        int64_t v = 0;
        for (int c = 0; c < TS_USAGE_COUNTER_COUNT; c++) {
            if (!ts_str_eq_cstr(m->key, ts_usage_counter_names[c])) continue;
            handled = true;
            if (!ts_usage_counter_value(&m->value, &is_null, &v) || is_null) break;
            if (!sum->has[c]) {
                sum->has[c] = true;
                sum->value[c] = v;
            } else if (!add_checked(&sum->value[c], v)) {
                ts_error_clear(err);
                snprintf(err->path, sizeof err->path, "usage.%s", ts_usage_counter_names[c]);
                ts_error_set(err, TS_ERR_INPUT, "the sum of this counter overflows a 64-bit integer");
                return false;
            }
        }
        if (handled) continue;
        if (ts_str_eq_cstr(m->key, "additionalCounts")) {
            if (m->value.kind != TS_JSON_OBJECT) continue;
            sum->has_additional_counts = true;
            for (size_t j = 0; j < m->value.u.o.count; j++) {
                const ts_member *a = &m->value.u.o.members[j];
                if (!ts_usage_counter_value(&a->value, &is_null, &v) || is_null) continue;
                ts_json_builder *b = &sum->additional_counts;
                bool found = false;
                for (size_t k = 0; k < b->count; k++) {
                    if (!ts_str_eq(b->members[k].key, a->key)) continue;
                    found = true;
                    if (!add_checked(&b->members[k].value.u.i, v)) {
                        ts_error_clear(err);
                        snprintf(err->path, sizeof err->path, "usage.additionalCounts.%.*s",
                                 (int)(a->key.len > 80 ? 80 : a->key.len), a->key.ptr);
                        ts_error_set(err, TS_ERR_INPUT, "the sum of this counter overflows a 64-bit integer");
                        return false;
                    }
                }
                if (!found) ts_json_builder_add_key(b, a->key, ts_json_make_int(v));
            }
            continue;
        }
        ts_json_builder_set(&sum->extras, m->key, m->value);
    }
    if (sum->additional_counts.failed || sum->extras.failed) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

bool ts_usage_to_json(const ts_usage *usage, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    for (int c = 0; c < TS_USAGE_COUNTER_COUNT; c++)
        if (usage->has[c]) ts_json_builder_add(&b, ts_usage_counter_names[c], ts_json_make_int(usage->value[c]));
    if (usage->has_additional_counts) {
        ts_json counts;
        ts_json_builder copy = usage->additional_counts;
        if (!ts_json_builder_finish(&copy, &counts)) return false;
        ts_json_builder_add(&b, "additionalCounts", counts);
    }
    for (size_t i = 0; i < usage->extras.count; i++)
        ts_json_builder_add_key(&b, usage->extras.members[i].key, usage->extras.members[i].value);
    return ts_json_builder_finish(&b, out);
}

/* ------------------------------------------------------------------------- contents ----- */

ts_str ts_content_type(const ts_json *content) { return ts_json_string(ts_json_get(content, "$type")); }

/* Checks that `key` of object is absent, null, or of the given kind(s). */
static bool optional_field(const ts_json *object, const char *key, const char *path, bool allow_string,
                           bool allow_object, bool allow_bool, bool allow_array, ts_error *err) {
    const ts_json *v = ts_json_get(object, key);
    if (!v || v->kind == TS_JSON_NULL) return true;
    if (allow_string && v->kind == TS_JSON_STRING) return true;
    if (allow_object && v->kind == TS_JSON_OBJECT) return true;
    if (allow_bool && (v->kind == TS_JSON_TRUE || v->kind == TS_JSON_FALSE)) return true;
    if (allow_array && v->kind == TS_JSON_ARRAY) return true;
    const char *expected = allow_string ? "a string" : allow_object ? "an object" : allow_bool ? "a boolean" : "an array";
    return wrong_type(err, path, key, expected, v);
}

static bool required_string(const ts_json *object, const char *key, const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, key);
    if (!v) return fail_at(err, path, key, "%s", "is required (a string)");
    if (v->kind != TS_JSON_STRING) return wrong_type(err, path, key, "a string", v);
    return true;
}

bool ts_content_validate(const ts_json *content, const char *path, ts_error *err) {
    if (content->kind != TS_JSON_OBJECT) return wrong_type(err, path, "", "an object", content);
    const ts_json *type = ts_json_get(content, "$type");
    if (type && type->kind != TS_JSON_STRING) return wrong_type(err, path, "$type", "a string", type);
    if (!optional_field(content, "annotations", path, false, false, false, true, err)) return false;
    if (!optional_field(content, "additionalProperties", path, false, true, false, false, err)) return false;
    ts_str t = ts_json_string(type);
    if (TYPE_IS(t, "text")) return optional_field(content, "text", path, true, false, false, false, err);
    if (TYPE_IS(t, "reasoning"))
        return optional_field(content, "text", path, true, false, false, false, err) &&
               optional_field(content, "protectedData", path, true, false, false, false, err);
    if (TYPE_IS(t, "functionCall"))
        return required_string(content, "callId", path, err) && required_string(content, "name", path, err) &&
               optional_field(content, "arguments", path, false, true, false, false, err) &&
               optional_field(content, "informationalOnly", path, false, false, true, false, err);
    if (TYPE_IS(t, "functionResult")) return required_string(content, "callId", path, err);
    if (TYPE_IS(t, "usage")) {
        const ts_json *details = ts_json_get(content, "details");
        if (!details || details->kind == TS_JSON_NULL) return true;
        char sub[160];
        snprintf(sub, sizeof sub, "%s.details", path);
        return validate_usage_details(details, sub, err);
    }
    if (TYPE_IS(t, "error"))
        return optional_field(content, "message", path, true, false, false, false, err) &&
               optional_field(content, "errorCode", path, true, false, false, false, err) &&
               optional_field(content, "details", path, true, false, false, false, err);
    return true; /* any other content type is kept verbatim */
}

/* ---------------------------------------------------------------------------- updates --- */

typedef enum field_kind { F_STRING, F_CREATED_AT, F_CONTENTS, F_ADDITIONAL } field_kind;

typedef struct known_field {
    const char *name;
    size_t len;
    field_kind kind;
    size_t offset; /* of the ts_str in ts_update, for F_STRING */
} known_field;

#define FIELD(name, kind, offset) {name, sizeof name - 1, kind, offset}
static const known_field update_fields[] = {
    FIELD("authorName", F_STRING, offsetof(ts_update, author_name)),
    FIELD("role", F_STRING, offsetof(ts_update, role)),
    FIELD("contents", F_CONTENTS, 0),
    FIELD("additionalProperties", F_ADDITIONAL, 0),
    FIELD("agentId", F_STRING, offsetof(ts_update, agent_id)),
    FIELD("responseId", F_STRING, offsetof(ts_update, response_id)),
    FIELD("messageId", F_STRING, offsetof(ts_update, message_id)),
    FIELD("conversationId", F_STRING, offsetof(ts_update, conversation_id)),
    FIELD("createdAt", F_CREATED_AT, offsetof(ts_update, created_at)),
    FIELD("finishReason", F_STRING, offsetof(ts_update, finish_reason)),
    FIELD("modelId", F_STRING, offsetof(ts_update, model_id)),
    FIELD("continuationToken", F_STRING, offsetof(ts_update, continuation_token)),
};
#undef FIELD
enum { UPDATE_FIELD_COUNT = sizeof update_fields / sizeof update_fields[0] };

/* update_fields' index + 1 of each key id (0: not a field of updates). */
static const unsigned char update_field_of_key[TS_KEY_COUNT + 1] = {
    [TS_KEY_AUTHOR_NAME] = 1, [TS_KEY_ROLE] = 2, [TS_KEY_CONTENTS] = 3, [TS_KEY_ADDITIONAL_PROPERTIES] = 4,
    [TS_KEY_AGENT_ID] = 5, [TS_KEY_RESPONSE_ID] = 6, [TS_KEY_MESSAGE_ID] = 7, [TS_KEY_CONVERSATION_ID] = 8,
    [TS_KEY_CREATED_AT] = 9, [TS_KEY_FINISH_REASON] = 10, [TS_KEY_MODEL_ID] = 11, [TS_KEY_CONTINUATION_TOKEN] = 12,
};

static const known_field *find_update_field(ts_str key) {
    unsigned char k = update_field_of_key[ts_json_key_id(key)];
    return k ? &update_fields[k - 1] : NULL;
}

static bool is_nothing_or(const ts_json *v, ts_json_kind kind) { return !v || v->kind == TS_JSON_NULL || v->kind == kind; }

/* True only when ts_content_validate accepts the content, found in one pass over its members;
 * false means "ask ts_content_validate" (an invalid content, or a type checked only there). */
static bool content_surely_valid(const ts_json *c) {
    if (c->kind != TS_JSON_OBJECT) return false;
    const ts_json *type = NULL, *annotations = NULL, *additional = NULL, *text = NULL, *protected_data = NULL,
                  *call_id = NULL, *name = NULL, *arguments = NULL, *informational = NULL;
    for (size_t i = 0; i < c->u.o.count; i++) {
        const ts_json *v = &c->u.o.members[i].value;
        const ts_json **slot = NULL;
        switch (ts_json_key_id(c->u.o.members[i].key)) {
        case TS_KEY_TYPE: slot = &type; break;
        case TS_KEY_ANNOTATIONS: slot = &annotations; break;
        case TS_KEY_ADDITIONAL_PROPERTIES: slot = &additional; break;
        case TS_KEY_TEXT: slot = &text; break;
        case TS_KEY_PROTECTED_DATA: slot = &protected_data; break;
        case TS_KEY_CALL_ID: slot = &call_id; break;
        case TS_KEY_NAME: slot = &name; break;
        case TS_KEY_ARGUMENTS: slot = &arguments; break;
        case TS_KEY_INFORMATIONAL_ONLY: slot = &informational; break;
        default: break;
        }
        if (slot && !*slot) *slot = v; /* the first of a name, as ts_json_get finds it */
    }
    if (type && type->kind != TS_JSON_STRING) return false;
    if (!is_nothing_or(annotations, TS_JSON_ARRAY) || !is_nothing_or(additional, TS_JSON_OBJECT)) return false;
    ts_str t = ts_json_string(type);
    if (TYPE_IS(t, "text")) return is_nothing_or(text, TS_JSON_STRING);
    if (TYPE_IS(t, "reasoning")) return is_nothing_or(text, TS_JSON_STRING) && is_nothing_or(protected_data, TS_JSON_STRING);
    if (TYPE_IS(t, "functionCall"))
        return call_id && call_id->kind == TS_JSON_STRING && name && name->kind == TS_JSON_STRING &&
               is_nothing_or(arguments, TS_JSON_OBJECT) &&
               (!informational || informational->kind == TS_JSON_NULL || informational->kind == TS_JSON_TRUE ||
                informational->kind == TS_JSON_FALSE);
    if (TYPE_IS(t, "functionResult")) return call_id && call_id->kind == TS_JSON_STRING;
    return false; /* usage, error and the rest: ts_content_validate decides */
}

static const ts_json empty_array = {TS_JSON_ARRAY, {.a = {NULL, 0}}};

bool ts_update_from_json(ts_arena *arena, const ts_json *object, size_t index, int line,
                         const char *path_prefix, ts_update *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    out->index = index;
    out->line = line;
    out->contents = &empty_array;
    if (err) err->line = line;
    if (object->kind != TS_JSON_OBJECT)
        return wrong_type(err, path_prefix, "", "an update object", object);
    ts_json_builder extras;
    ts_json_builder_init(&extras, arena);
    for (size_t i = 0; i < object->u.o.count; i++) {
        const ts_member *m = &object->u.o.members[i];
        const known_field *f = find_update_field(m->key);
        if (!f) {
            ts_json_builder_add_key(&extras, m->key, m->value);
            continue;
        }
        const ts_json *v = &m->value;
        if (v->kind == TS_JSON_NULL) continue; /* null is the same as absent */
        switch (f->kind) {
        case F_STRING:
        case F_CREATED_AT:
            if (v->kind != TS_JSON_STRING) return wrong_type(err, path_prefix, f->name, "a string or null", v);
            *(ts_str *)((char *)out + f->offset) = v->u.s;
            if (f->kind == F_CREATED_AT) {
                const char *why = NULL;
                if (!ts_instant_parse(v->u.s.ptr, v->u.s.len, &out->created_at_instant, &why))
                    return fail_at(err, path_prefix, f->name, "not a valid timestamp: %s", why);
                out->has_created_at = true;
            }
            break;
        case F_CONTENTS:
            if (v->kind != TS_JSON_ARRAY) return wrong_type(err, path_prefix, f->name, "an array or null", v);
            for (size_t c = 0; c < v->u.a.count; c++) {
                if (content_surely_valid(&v->u.a.items[c]) || ts_content_validate(&v->u.a.items[c], "", NULL)) continue;
                char path[160]; /* formatted only to name the field that is wrong */
                snprintf(path, sizeof path, "%s%scontents[%zu]", path_prefix, path_prefix[0] ? "." : "", c);
                ts_content_validate(&v->u.a.items[c], path, err);
                if (err) err->line = line;
                return false;
            }
            out->contents = v;
            break;
        case F_ADDITIONAL:
            if (v->kind != TS_JSON_OBJECT) return wrong_type(err, path_prefix, f->name, "an object or null", v);
            out->additional_properties = v;
            break;
        }
    }
    if (!ts_json_builder_finish(&extras, &out->extras)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

bool ts_stream_from_array(ts_arena *arena, const ts_json *array, const char *path_prefix, ts_stream *out,
                          ts_error *err) {
    out->updates = NULL;
    out->count = 0;
    if (array->kind != TS_JSON_ARRAY) return wrong_type(err, path_prefix, "", "an array of updates", array);
    ts_update *updates = ts_arena_calloc(arena, array->u.a.count ? array->u.a.count : 1, sizeof *updates);
    if (!updates) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    for (size_t i = 0; i < array->u.a.count; i++) {
        char prefix[160];
        snprintf(prefix, sizeof prefix, "%s[%zu]", path_prefix, i);
        if (!ts_update_from_json(arena, &array->u.a.items[i], i, 0, prefix, &updates[i], err)) return false;
    }
    out->updates = updates;
    out->count = array->u.a.count;
    return true;
}

bool ts_update_to_json(const ts_update *u, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    for (size_t k = 0; k < UPDATE_FIELD_COUNT; k++) {
        const known_field *f = &update_fields[k];
        if (f->kind == F_CONTENTS) {
            ts_json_builder_add(&b, f->name, *u->contents);
        } else if (f->kind == F_ADDITIONAL) {
            if (u->additional_properties) ts_json_builder_add(&b, f->name, *u->additional_properties);
        } else {
            ts_json_builder_add_str(&b, f->name, *(const ts_str *)((const char *)u + f->offset));
        }
    }
    for (size_t i = 0; i < u->extras.u.o.count; i++)
        ts_json_builder_add_key(&b, u->extras.u.o.members[i].key, u->extras.u.o.members[i].value);
    return ts_json_builder_finish(&b, out);
}

/* ---------------------------------------------------------------------------- response -- */

bool ts_message_to_json(const ts_message *m, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add_str(&b, "role", m->role);
    ts_json_builder_add_str(&b, "authorName", m->author_name);
    ts_json_builder_add_str(&b, "messageId", m->message_id);
    if (m->has_created_at) ts_json_builder_add_str(&b, "createdAt", m->created_at);
    ts_json_builder_add_str(&b, "agentId", m->agent_id);
    ts_json contents = ts_json_make_null();
    contents.kind = TS_JSON_ARRAY;
    contents.u.a.items = m->contents;
    contents.u.a.count = m->content_count;
    ts_json_builder_add(&b, "contents", contents);
    if (m->additional_properties.kind == TS_JSON_OBJECT)
        ts_json_builder_add(&b, "additionalProperties", m->additional_properties);
    if (m->extras.kind == TS_JSON_OBJECT)
        for (size_t i = 0; i < m->extras.u.o.count; i++)
            ts_json_builder_add_key(&b, m->extras.u.o.members[i].key, m->extras.u.o.members[i].value);
    return ts_json_builder_finish(&b, out);
}

bool ts_response_to_json(const ts_response *r, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add_str(&b, "responseId", r->response_id);
    ts_json_builder_add_str(&b, "agentId", r->agent_id);
    ts_json_builder_add_str(&b, "createdAt", r->created_at);
    ts_json_builder_add_str(&b, "finishReason", r->finish_reason);
    if (r->usage.present) {
        ts_json usage;
        if (!ts_usage_to_json(&r->usage, arena, &usage)) return false;
        ts_json_builder_add(&b, "usage", usage);
    }
    ts_json_builder_add_str(&b, "continuationToken", r->continuation_token);
    ts_json_builder_add_str(&b, "conversationId", r->conversation_id);
    ts_json_builder_add_str(&b, "modelId", r->model_id);
    ts_json *messages = ts_arena_alloc(arena, (r->message_count ? r->message_count : 1) * sizeof *messages);
    if (!messages) return false;
    for (size_t i = 0; i < r->message_count; i++)
        if (!ts_message_to_json(&r->messages[i], arena, &messages[i])) return false;
    ts_json array = ts_json_make_null();
    array.kind = TS_JSON_ARRAY;
    array.u.a.items = messages;
    array.u.a.count = r->message_count;
    ts_json_builder_add(&b, "messages", array);
    return ts_json_builder_finish(&b, out);
}
