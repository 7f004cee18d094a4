/* signature.c — message signatures for matching; see signature.h. */
#include "conformance/checkers/signature.h"

#include "conformance/checkers/contents.h"
#include "conformance/checkers/message.h"

enum { NO_ADDITIONAL = 0x41424E, NO_CREATED_AT = 0x4E4F5449, BAD_CREATED_AT = 0x424144 };

static ts_str named_or_absent(ts_str s) { return ts_str_nonempty(s) ? s : (ts_str){NULL, 0}; }

static uint64_t hash_opt(ts_str s) { return s.ptr ? ts_hash_bytes(s.ptr, s.len, 0x49) : 0x4E4F4E45ULL; }

static uint64_t hash_folded(ts_str s) { /* ASCII case folded, as ts_str_eq_nocase compares */
    if (!s.ptr) return 0x524F4C45ULL;
    uint64_t h = 0xF01D + s.len;
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        h = ts_hash_then(h, c >= 'A' && c <= 'Z' ? c + 32u : c);
    }
    return h;
}

static uint64_t hash_instant(ts_instant at) { return ts_hash_then(ts_hash_mix((uint64_t)at.seconds), (uint64_t)at.fraction); }

static uint64_t hash_members(const ts_member *members, size_t count) {
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) sum += ts_hash_member(&members[i]);
    return ts_hash_object(sum, count);
}

static uint64_t coarse_of(ts_str id, uint64_t role, ts_str author, uint64_t created, uint64_t contents,
                          uint64_t additional) {
    uint64_t h = ts_hash_then(hash_opt(id), role);
    h = ts_hash_then(h, hash_opt(author));
    h = ts_hash_then(h, created);
    h = ts_hash_then(h, contents);
    return ts_hash_then(h, additional);
}

static uint64_t exact_of(uint64_t coarse, ts_str agent, uint64_t extras) {
    return ts_hash_then(ts_hash_then(coarse, hash_opt(agent)), extras);
}

static bool has_additional(const ts_expected_message *m) { return m->has_additional && m->additional.count > 0; }

ts_signature ts_signature_expected(const ts_expected_message *m) {
    uint64_t coarse = coarse_of(named_or_absent(m->message_id),
                                hash_folded(m->role.ptr ? m->role : ts_str_from("assistant")),
                                named_or_absent(m->author_name),
                                m->has_created_at ? hash_instant(m->created_at) : NO_CREATED_AT,
                                ts_hash_contents(m->contents, m->content_count),
                                has_additional(m) ? hash_members(m->additional.members, m->additional.count)
                                                  : NO_ADDITIONAL);
    return (ts_signature){coarse, exact_of(coarse, named_or_absent(m->agent_id),
                                           hash_members(m->extras.members, m->extras.count))};
}

ts_signature ts_signature_answer(const ts_json *got) {
    ts_str created = ts_json_string(ts_json_get(got, "createdAt"));
    ts_instant at;
    uint64_t created_hash = NO_CREATED_AT;
    if (created.ptr) created_hash = ts_instant_parse(created.ptr, created.len, &at, NULL) ? hash_instant(at) : BAD_CREATED_AT;
    const ts_json *contents = ts_json_get(got, "contents"), *additional = ts_message_additional_of(got);
    bool array = contents && contents->kind == TS_JSON_ARRAY;
    uint64_t coarse = coarse_of(ts_message_id_of(got), hash_folded(ts_json_string(ts_json_get(got, "role"))),
                                ts_message_author_of(got), created_hash,
                                ts_hash_contents(array ? contents->u.a.items : NULL, array ? contents->u.a.count : 0),
                                additional ? ts_hash_json(additional) : NO_ADDITIONAL);
    uint64_t sum = 0; /* the kept fields: the members that are no message field */
    size_t n = 0;
    for (size_t i = 0; i < got->u.o.count; i++) {
        if (ts_message_field(got->u.o.members[i].key)) continue;
        sum += ts_hash_member(&got->u.o.members[i]);
        n++;
    }
    return (ts_signature){coarse, exact_of(coarse, ts_message_agent_of(got), ts_hash_object(sum, n))};
}

/* The same members with equal values (keys are unique on both sides). */
static bool same_members(const ts_member *a, size_t a_count, const ts_member *b, size_t b_count) {
    if (a_count != b_count) return false;
    for (size_t i = 0; i < a_count; i++) {
        bool found = false;
        for (size_t k = 0; k < b_count && !found; k++)
            found = ts_str_eq(a[i].key, b[k].key) && ts_json_equal(&a[i].value, &b[k].value);
        if (!found) return false;
    }
    return true;
}

bool ts_signature_same_fit(const ts_expected_message *a, const ts_expected_message *b) {
    if (!ts_str_eq(named_or_absent(a->message_id), named_or_absent(b->message_id)) ||
        !ts_str_eq_nocase(a->role.ptr ? a->role : ts_str_from("assistant"), b->role.ptr ? b->role : ts_str_from("assistant")) ||
        !ts_str_eq(named_or_absent(a->author_name), named_or_absent(b->author_name)) ||
        !ts_str_eq(named_or_absent(a->agent_id), named_or_absent(b->agent_id)) || a->has_created_at != b->has_created_at ||
        (a->has_created_at && ts_instant_compare(a->created_at, b->created_at) != 0) ||
        has_additional(a) != has_additional(b))
        return false;
    if (has_additional(a) &&
        !same_members(a->additional.members, a->additional.count, b->additional.members, b->additional.count))
        return false;
    return same_members(a->extras.members, a->extras.count, b->extras.members, b->extras.count) &&
           ts_same_contents(a->contents, a->content_count, b->contents, b->content_count);
}

bool ts_signature_renders_exactly(const ts_expected_message *m, const ts_json *got) {
    if (!ts_str_eq(ts_message_agent_of(got), named_or_absent(m->agent_id))) return false;
    size_t n = 0;
    for (size_t i = 0; i < got->u.o.count; i++) {
        const ts_member *x = &got->u.o.members[i];
        if (ts_message_field(x->key)) continue;
        n++;
        bool found = false;
        for (size_t k = 0; k < m->extras.count && !found; k++)
            found = ts_str_eq(m->extras.members[k].key, x->key) && ts_json_equal(&m->extras.members[k].value, &x->value);
        if (!found) return false;
    }
    return n == m->extras.count;
}
