/* signature.c — message signatures for matching; see signature.h. */
#include "conformance/checkers/merge/signature.h"

#include <stdint.h>
#include <stdlib.h>

#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/message.h"
#include "core/json/strmap.h"

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

ts_signature ts_signature_answer(const ts_json *got, const ts_created_at *created) {
    ts_message_fields fields;
    ts_message_fields_of(got, &fields);
    uint64_t created_hash = !created->present ? NO_CREATED_AT : created->valid ? hash_instant(created->at) : BAD_CREATED_AT;
    const ts_json *contents = fields.contents, *additional = fields.additional;
    uint64_t coarse = coarse_of(fields.message_id, hash_folded(fields.role), fields.author_name, created_hash,
                                ts_hash_contents(contents ? contents->u.a.items : NULL, contents ? contents->u.a.count : 0),
                                additional ? ts_hash_json(additional) : NO_ADDITIONAL);
    uint64_t sum = 0; /* the kept fields: the members that are no message field */
    for (size_t i = 0; fields.kept && i < got->u.o.count; i++)
        if (!ts_message_field(got->u.o.members[i].key)) sum += ts_hash_member(&got->u.o.members[i]);
    return (ts_signature){coarse, exact_of(coarse, fields.agent_id, ts_hash_object(sum, fields.kept))};
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

/* Everything ts_judge_message reads but the agentId and the kept fields. */
static bool same_coarse_fields(const ts_expected_message *a, const ts_expected_message *b) {
    if (!ts_str_eq(named_or_absent(a->message_id), named_or_absent(b->message_id)) ||
        !ts_str_eq_nocase(a->role.ptr ? a->role : ts_str_from("assistant"), b->role.ptr ? b->role : ts_str_from("assistant")) ||
        !ts_str_eq(named_or_absent(a->author_name), named_or_absent(b->author_name)) ||
        a->has_created_at != b->has_created_at || (a->has_created_at && ts_instant_compare(a->created_at, b->created_at) != 0) ||
        has_additional(a) != has_additional(b))
        return false;
    if (has_additional(a) &&
        !same_members(a->additional.members, a->additional.count, b->additional.members, b->additional.count))
        return false;
    return ts_same_contents(a->contents, a->content_count, b->contents, b->content_count);
}

bool ts_signature_same_fit(const ts_expected_message *a, const ts_expected_message *b) {
    return ts_str_eq(named_or_absent(a->agent_id), named_or_absent(b->agent_id)) &&
           same_members(a->extras.members, a->extras.count, b->extras.members, b->extras.count) &&
           same_coarse_fields(a, b);
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

/* ------------------------------------------------------------------- a cheap refusal --- */

enum { PRECHECK_SCAN = 64 };

bool ts_signature_some_answer_fits_nothing(const ts_expectation *e, const ts_signature *esig, const ts_json *messages,
                                           const ts_signature *asig) {
    ts_strmap by_exact, by_coarse; /* signature -> first representative; reps chained */
    ts_strmap_init(&by_exact);
    ts_strmap_init(&by_coarse);
    size_t *exact_next = malloc((e->message_count + 1) * sizeof *exact_next);
    size_t *coarse_next = malloc((e->message_count + 1) * sizeof *coarse_next);
    bool ok = exact_next && coarse_next, bad = false;
    for (size_t k = 0; k < e->message_count && ok; k++) {
        if (e->messages[k].omitted) continue;
        size_t head = SIZE_MAX, last = SIZE_MAX;
        bool known = false;
        if (ts_strmap_get(&by_exact, esig[k].exact, ts_str_from(""), &head))
            for (size_t r = head; r != SIZE_MAX && !known; r = exact_next[r]) {
                known = ts_signature_same_fit(&e->messages[r], &e->messages[k]);
                last = r;
            }
        if (known) continue;
        exact_next[k] = SIZE_MAX;
        if (last == SIZE_MAX) ok = ts_strmap_put(&by_exact, esig[k].exact, ts_str_from(""), k);
        else exact_next[last] = k;
        head = SIZE_MAX;
        ts_strmap_get(&by_coarse, esig[k].coarse, ts_str_from(""), &head);
        coarse_next[k] = head;
        ok = ok && ts_strmap_put(&by_coarse, esig[k].coarse, ts_str_from(""), k);
    }
    for (size_t i = 0; i < messages->u.a.count && ok && !bad; i++) {
        const ts_json *got = &messages->u.a.items[i];
        size_t head, scanned = 0;
        bool fits = false;
        if (ts_strmap_get(&by_exact, asig[i].exact, ts_str_from(""), &head))
            for (size_t r = head; r != SIZE_MAX && !fits; r = exact_next[r])
                fits = ts_judge_message(NULL, &e->messages[r], got, NULL);
        if (!fits && ts_strmap_get(&by_coarse, asig[i].coarse, ts_str_from(""), &head))
            for (size_t r = head; r != SIZE_MAX && !fits; r = coarse_next[r])
                fits = ++scanned > PRECHECK_SCAN || ts_judge_message(NULL, &e->messages[r], got, NULL);
        bad = !fits;
    }
    ts_strmap_free(&by_exact);
    ts_strmap_free(&by_coarse);
    free(exact_next);
    free(coarse_next);
    return ok && bad;
}

/* ------------------------------------------------------------------------------ view --- */

typedef struct bucket_info {
    const ts_json *first; /* the first answer message with this coarse signature */
    bool uniform;         /* every one of them holds exactly first's kept fields */
} bucket_info;

struct ts_view {
    ts_strmap agents;     /* (coarse signature, agentId): some answer message shows that agent */
    ts_strmap buckets;    /* (coarse signature, ""): index into info */
    bucket_info *info;
    size_t count;
};

static size_t kept_fields(const ts_json *got) {
    size_t n = 0;
    for (size_t i = 0; i < got->u.o.count; i++) n += !ts_message_field(got->u.o.members[i].key);
    return n;
}

/* The answer message holds the kept field (a kept null may be left out), as X1 reads it. */
static bool holds(const ts_json *got, const ts_member *x) {
    const ts_json *have = NULL;
    for (size_t k = 0; k < got->u.o.count && !have; k++)
        if (ts_str_eq(got->u.o.members[k].key, x->key)) have = &got->u.o.members[k].value;
    return have ? ts_json_equal(have, &x->value) : x->value.kind == TS_JSON_NULL;
}

static bool same_kept_fields(const ts_json *a, const ts_json *b) {
    if (kept_fields(a) != kept_fields(b)) return false;
    for (size_t i = 0; i < a->u.o.count; i++) {
        const ts_member *x = &a->u.o.members[i];
        if (ts_message_field(x->key)) continue;
        bool found = false;
        for (size_t k = 0; k < b->u.o.count && !found; k++)
            found = ts_str_eq(b->u.o.members[k].key, x->key) && ts_json_equal(&b->u.o.members[k].value, &x->value);
        if (!found) return false;
    }
    return true;
}

ts_view *ts_view_new(const ts_json *messages, const ts_signature *sig, bool kept_fields) {
    ts_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    ts_strmap_init(&v->agents);
    ts_strmap_init(&v->buckets);
    size_t m = messages->u.a.count;
    v->info = malloc(((kept_fields ? m : 0) + 1) * sizeof *v->info);
    bool ok = v->info != NULL;
    for (size_t i = 0; i < m && ok; i++) {
        const ts_json *got = &messages->u.a.items[i];
        ts_str agent = ts_message_agent_of(got);
        if (agent.ptr) ok = ts_strmap_put(&v->agents, sig[i].coarse, agent, 1);
        if (!kept_fields) continue; /* fields_seen is never asked: no message has kept fields */
        size_t at;
        if (!ts_strmap_get(&v->buckets, sig[i].coarse, ts_str_from(""), &at)) {
            v->info[v->count] = (bucket_info){got, true};
            ok = ok && ts_strmap_put(&v->buckets, sig[i].coarse, ts_str_from(""), v->count++);
        } else if (v->info[at].uniform) {
            v->info[at].uniform = same_kept_fields(v->info[at].first, got);
        }
    }
    if (!ok) {
        ts_view_free(v);
        return NULL;
    }
    return v;
}

void ts_view_free(ts_view *v) {
    if (!v) return;
    ts_strmap_free(&v->agents);
    ts_strmap_free(&v->buckets);
    free(v->info);
    free(v);
}

/* The agent the answer can see: m's own when some answer message of its signature names it. */
static ts_str seen_agent(const ts_view *v, uint64_t sig, const ts_expected_message *m) {
    size_t ignored;
    ts_str agent = named_or_absent(m->agent_id);
    return agent.ptr && ts_strmap_get(&v->agents, sig, agent, &ignored) ? agent : (ts_str){NULL, 0};
}

/* m's kept fields matter to this answer: some answer message of its signature may lack one.
 * (The buckets are filled whenever some expected message has kept fields: ts_view_new.) */
static bool fields_seen(const ts_view *v, uint64_t sig, const ts_expected_message *m) {
    size_t at;
    if (m->extras.count == 0 || !ts_strmap_get(&v->buckets, sig, ts_str_from(""), &at)) return false;
    if (!v->info[at].uniform) return true;
    for (size_t i = 0; i < m->extras.count; i++)
        if (!holds(v->info[at].first, &m->extras.members[i])) return true;
    return false;
}

bool ts_view_same(const ts_view *v, uint64_t sig, const ts_expected_message *a, const ts_expected_message *b) {
    if (!ts_str_eq(seen_agent(v, sig, a), seen_agent(v, sig, b))) return false;
    bool fa = fields_seen(v, sig, a), fb = fields_seen(v, sig, b);
    if (fa != fb || (fa && !same_members(a->extras.members, a->extras.count, b->extras.members, b->extras.count)))
        return false;
    return same_coarse_fields(a, b);
}

uint64_t ts_view_hash(const ts_view *v, uint64_t sig, const ts_expected_message *m) {
    uint64_t h = ts_hash_then(sig, hash_opt(seen_agent(v, sig, m)));
    return ts_hash_then(h, fields_seen(v, sig, m) ? hash_members(m->extras.members, m->extras.count) : 0x5EE4);
}
