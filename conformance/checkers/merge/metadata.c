/* metadata.c — response-level rules; see metadata.h. */
#include "conformance/checkers/merge/metadata.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/json/strmap.h"

static ts_str answer_string(const ts_json *object, const char *key) { return ts_json_string(ts_json_get(object, key)); }


/* I1: the host's id when the request named one; else one of the turn's ids; else any. */
static void check_response_id(ts_str host_id, const ts_expectation *e, const ts_json *answer, ts_findings *f) {
    ts_str got = answer_string(answer, "responseId");
    char shown[120], want[120];
    ts_check_excerpt_str(got, shown, sizeof shown);
    if (!ts_str_nonempty(got)) {
        ts_findings_add(f, "I1", "the response carries no responseId");
    } else if (ts_str_nonempty(host_id)) {
        ts_check_excerpt_str(host_id, want, sizeof want);
        if (!ts_str_eq(got, host_id))
            ts_findings_add(f, "I1", "responseId %s, but the request named the turn's id %s", shown, want);
    } else if (e->input_has_response_id && !e->probe_response_id_seen) {
        ts_findings_add(f, "I1", "responseId %s is not one of the turn's ids", shown);
    }
}

static void check_last_value(const char *rule, const char *field, ts_str want, const ts_json *answer, ts_findings *f) {
    ts_str got = answer_string(answer, field);
    if (ts_str_eq(got, want)) return;
    char a[160], b[160];
    ts_check_excerpt_str(want, a, sizeof a);
    ts_check_excerpt_str(got, b, sizeof b);
    ts_findings_add(f, rule, "response.%s: expected %s, got %s", field, a, b);
}

/* R2 for one counter: `name` is its path below usage. */
static void check_counter(const char *name, bool want_has, int64_t want, const ts_json *v, ts_findings *f) {
    bool is_null = true;
    int64_t value = 0;
    if (v && !ts_usage_counter_value(v, &is_null, &value)) {
        char shown[120];
        if (v->kind == TS_JSON_REAL) /* as a real, so that 10.0 does not read "10" */
            snprintf(shown, sizeof shown, "%.17g%s", v->u.r, fabs(v->u.r) < 1e16 && v->u.r == floor(v->u.r) ? ".0" : "");
        else
            ts_check_excerpt(v, shown, sizeof shown);
        ts_findings_add(f, "R2", "usage.%s: %s is not an integer (counters are int64, or the string of one)", name, shown);
        return;
    }
    if (want_has == !is_null && (!want_has || want == value)) return;
    char w[32] = "(absent)", h[32] = "(absent)";
    if (want_has) snprintf(w, sizeof w, "%lld", (long long)want);
    if (!is_null) snprintf(h, sizeof h, "%lld", (long long)value);
    ts_findings_add(f, "R2", "usage.%s: expected %s, got %s", name, w, h);
}

static bool check_additional_counts(const ts_usage *want, const ts_json *have, ts_findings *f) {
    if (have && have->kind == TS_JSON_NULL) have = NULL;
    if (have && have->kind != TS_JSON_OBJECT) {
        ts_findings_add(f, "R2", "usage.additionalCounts is not an object");
        return true;
    }
    const ts_json_builder *counts = &want->additional_counts;
    if (!want->has_additional_counts && have && have->u.o.count) {
        ts_findings_add(f, "R2", "usage.additionalCounts given, but no update carries additional counts");
        return true;
    }
    ts_strmap keys; /* tag 0: the expected keys; tag 1: the answer's */
    ts_strmap_init(&keys);
    bool ok = true;
    char name[120];
    size_t at;
    for (size_t i = 0; i < counts->count && ok; i++) ok = ts_strmap_put(&keys, 0, counts->members[i].key, i);
    for (size_t k = 0; have && k < have->u.o.count && ok; k++) ok = ts_strmap_put(&keys, 1, have->u.o.members[k].key, k);
    for (size_t i = 0; i < counts->count && ok; i++) {
        const ts_member *m = &counts->members[i];
        snprintf(name, sizeof name, "additionalCounts.%.*s", (int)(m->key.len > 80 ? 80 : m->key.len), m->key.ptr);
        const ts_json *v = ts_strmap_get(&keys, 1, m->key, &at) ? &have->u.o.members[at].value : NULL;
        check_counter(name, true, m->value.u.i, v, f);
    }
    for (size_t k = 0; have && k < have->u.o.count && ok; k++) {
        const ts_member *m = &have->u.o.members[k];
        if (ts_strmap_get(&keys, 0, m->key, &at)) continue;
        snprintf(name, sizeof name, "additionalCounts.%.*s", (int)(m->key.len > 80 ? 80 : m->key.len), m->key.ptr);
        check_counter(name, false, 0, &m->value, f);
    }
    ts_strmap_free(&keys);
    return ok;
}

static bool check_usage(const ts_expectation *e, const ts_json *answer, ts_findings *f) {
    const ts_json *got = ts_json_get(answer, "usage");
    if (got && got->kind == TS_JSON_NULL) got = NULL;
    if (got && got->kind != TS_JSON_OBJECT) return true; /* W7 reported it */
    if (e->usage_overflows) {
        ts_findings_add(f, "R2", "the usage sum overflows int64: the input should have been rejected");
        return true;
    }
    if (!e->usage.present) {
        if (got && got->u.o.count > 0) ts_findings_add(f, "R2", "response.usage given, but no update carries usage");
        return true;
    }
    if (!got) {
        ts_findings_add(f, "R2", "response.usage is missing; the updates carry usage");
        return true;
    }
    for (int c = 0; c < TS_USAGE_COUNTER_COUNT; c++)
        check_counter(ts_usage_counter_names[c], e->usage.has[c], e->usage.value[c],
                      ts_json_get(got, ts_usage_counter_names[c]), f);
    return check_additional_counts(&e->usage, ts_json_get(got, "additionalCounts"), f);
}

ts_expect_probe ts_check_response_probe(const ts_json *answer) {
    ts_expect_probe probe;
    memset(&probe, 0, sizeof probe);
    if (!answer || answer->kind != TS_JSON_OBJECT) return probe;
    ts_str id = answer_string(answer, "responseId"), agent = answer_string(answer, "agentId");
    ts_str created = answer_string(answer, "createdAt");
    if (ts_str_nonempty(id)) probe.response_id = id;
    if (ts_str_nonempty(agent)) probe.agent_id = agent;
    probe.has_created_at = created.ptr && ts_instant_parse(created.ptr, created.len, &probe.created_at, NULL);
    return probe;
}

bool ts_check_response_fields(ts_str host_id, const ts_expectation *e, const ts_json *answer, ts_findings *f) {
    char a[200];
    check_response_id(host_id, e, answer, f);
    check_last_value("R1", "finishReason", e->finish_reason, answer, f);
    if (!check_usage(e, answer, f)) return false;
    ts_str agent = answer_string(answer, "agentId");
    if (e->input_has_agent_id && !ts_str_nonempty(agent)) {
        ts_findings_add(f, "R3", "response.agentId is missing; the updates name an agent");
    } else if (ts_str_nonempty(agent) && !e->probe_agent_id_seen) {
        ts_check_excerpt_str(agent, a, sizeof a);
        ts_findings_add(f, "R3", "response.agentId %s is not an agent of the turn", a);
    }
    ts_str created = answer_string(answer, "createdAt");
    ts_instant at;
    bool parsed = created.ptr && ts_instant_parse(created.ptr, created.len, &at, NULL);
    ts_check_excerpt_str(created, a, sizeof a);
    if (e->input_has_created_at && !parsed)
        ts_findings_add(f, "R4", "response.createdAt is %s; the updates carry createdAt values", a);
    else if (!e->input_has_created_at && created.ptr)
        ts_findings_add(f, "R4", "response.createdAt %s, but no update carries one (the clock?)", a);
    else if (parsed && !e->probe_created_at_seen)
        ts_findings_add(f, "R4", "response.createdAt %s is none of the updates' createdAt values", a);
    check_last_value("R6", "continuationToken", e->continuation_token, answer, f);
    check_last_value("R6", "conversationId", e->conversation_id, answer, f);
    check_last_value("R6", "modelId", e->model_id, answer, f);
    return true;
}
