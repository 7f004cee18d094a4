/* shard_merge.c — shard reports joined into one certification; see shard_merge.h. */
#include "conformance/certifier/shard_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/json/codec.h"

enum { REPORT_MAX = 1 << 30 }; /* bytes of one shard's report */

/* The report at path, parsed into arena. */
static bool load(const char *path, ts_arena *arena, ts_json *out, char *why, size_t why_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return false;
    }
    ts_buf text;
    ts_buf_init(&text);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && text.len <= REPORT_MAX) ts_buf_append(&text, chunk, n);
    bool read_ok = !ferror(f) && !text.failed && text.len <= REPORT_MAX;
    fclose(f);
    ts_error err;
    ts_error_clear(&err);
    bool ok = read_ok && ts_codec_parse(arena, text.data ? text.data : "", text.len, out, &err);
    if (!ok) snprintf(why, why_size, "%s: %s", path, read_ok ? err.message : "cannot be read whole");
    ts_buf_free(&text);
    if (ok && !ts_str_eq_cstr(ts_json_string(ts_json_get(out, "format")), "turnstile-certification")) {
        snprintf(why, why_size, "%s: not a certify report (--report-json)", path);
        return false;
    }
    return ok;
}

/* What must be the same in every shard of one run: a path in the report and its name. */
static const struct {
    const char *path, *what;
} identity[] = {
    {"turnstile.version", "turnstile version"}, {"turnstile.commit", "turnstile commit"},
    {"suite.version", "suite version"},         {"suite.sha256", "suite (SHA-256)"},
    {"testee.name", "testee name"},             {"testee.version", "testee version"},
    {"testee.command", "testee command"},       {"platform", "platform"},
    {"rules", "rule selection"},                {"shard.count", "shard count"},
    {"shard.options", "case selection or options (--cases, --no-repeat, kill points, nemesis)"},
};

/* Is report a shard of the same run as first? why names what differs. */
static bool same_run(const ts_json *first, const ts_json *report, const char *path, char *why, size_t why_size) {
    for (size_t i = 0; i < sizeof identity / sizeof *identity; i++) {
        const ts_json *a = ts_json_at_path(first, identity[i].path), *b = ts_json_at_path(report, identity[i].path);
        bool same = (!a && !b) || (a && b && ts_json_equal(a, b));
        if (strcmp(identity[i].path, "rules") == 0 && a && b && a->kind == TS_JSON_ARRAY && b->kind == TS_JSON_ARRAY) {
            same = a->u.a.count == b->u.a.count; /* the ids selected (counts differ by shard) */
            for (size_t k = 0; same && k < a->u.a.count; k++)
                same = ts_json_equal(ts_json_get(&a->u.a.items[k], "id"), ts_json_get(&b->u.a.items[k], "id"));
        }
        if (!same) {
            snprintf(why, why_size, "%s: another %s than the first shard's: not a shard of the same run", path, identity[i].what);
            return false;
        }
    }
    return true;
}

static long get_int(const ts_json *v, const char *path) {
    const ts_json *x = ts_json_at_path(v, path);
    return x && x->kind == TS_JSON_INT ? (long)x->u.i : 0;
}

static double get_real(const ts_json *v, const char *key) {
    const ts_json *x = ts_json_get(v, key);
    return !x ? 0 : x->kind == TS_JSON_REAL ? x->u.r : x->kind == TS_JSON_INT ? (double)x->u.i : 0;
}

static char *copy_str(ts_str s) {
    char *out = malloc(s.len + 1);
    if (out) memcpy(out, s.ptr ? s.ptr : "", s.len), out[s.len] = '\0';
    return out;
}

static ts_verdict verdict_named(ts_str name) {
    static const ts_verdict all[] = {TS_VERDICT_PASS, TS_VERDICT_FAIL, TS_VERDICT_SKIPPED, TS_VERDICT_ERROR, TS_VERDICT_UNDECIDED};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (ts_str_eq_cstr(name, ts_verdict_name(all[i]))) return all[i];
    return TS_VERDICT_ERROR;
}

/* One case of a shard's report into r (its ts_case: c). */
static void rebuild_case(const ts_json *j, const ts_case *c, ts_case_result *r) {
    char text[700];
    r->c = c;
    r->state = TS_CASE_DECIDED;
    r->verdict = verdict_named(ts_json_string(ts_json_get(j, "verdict")));
    ts_str outcome = ts_json_string(ts_json_get(j, "outcome"));
    snprintf(text, sizeof text, "%.*s", (int)outcome.len, outcome.ptr ? outcome.ptr : "");
    r->outcome = ts_run_outcome_static(text);
    ts_str detail = ts_json_string(ts_json_get(j, "detail"));
    snprintf(r->detail, sizeof r->detail, "%.*s", (int)detail.len, detail.ptr ? detail.ptr : "");
    ts_findings_init(&r->findings);
    const ts_json *findings = ts_json_get(j, "findings");
    for (size_t k = 0; findings && findings->kind == TS_JSON_ARRAY && k < findings->u.a.count; k++) {
        ts_str rule = ts_json_string(ts_json_get(&findings->u.a.items[k], "rule"));
        ts_str message = ts_json_string(ts_json_get(&findings->u.a.items[k], "message"));
        snprintf(text, sizeof text, "%.*s", (int)rule.len, rule.ptr ? rule.ptr : "");
        ts_findings_add(&r->findings, text, "%.*s", (int)message.len, message.ptr ? message.ptr : "");
    }
    r->findings.suppressed = (size_t)get_int(j, "moreFindings");
    r->seconds = get_real(j, "seconds");
    const ts_json *equivalent = ts_json_get(j, "equivalent");
    r->equivalent = !equivalent ? -1 : equivalent->kind == TS_JSON_TRUE;
    ts_str diff = ts_json_string(ts_json_get(j, "difference"));
    snprintf(r->diff, sizeof r->diff, "%.*s", (int)diff.len, diff.ptr ? diff.ptr : "");
    const ts_json *expected = ts_json_get(j, "expectedFailure");
    r->expected = expected && expected->kind == TS_JSON_TRUE;
    ts_str apart = ts_json_string(ts_json_get(j, "apart"));
    for (size_t k = 0; apart.ptr && k < c->tag_count; k++)
        if (ts_str_eq_cstr(apart, c->tags[k])) r->apart = c->tags[k];
    ts_str tail = ts_json_string(ts_json_get(j, "stderr"));
    if (tail.ptr) r->stderr_tail = copy_str(tail);
    const ts_json *history = ts_json_get(j, "history");
    ts_buf b;
    ts_buf_init(&b);
    if (history && ts_codec_write(&b, history, TS_WRITE_COMPACT) && !b.failed) r->answer = copy_str((ts_str){b.data, b.len});
    ts_buf_free(&b);
}

/* A shard's cases into slots (by suite index); false when a case is unknown or twice. */
static bool add_cases(const ts_suite *suite, const ts_json *report, const char *path, ts_case_result *slots, bool *filled,
                      char *why, size_t why_size) {
    const ts_json *cases = ts_json_get(report, "cases");
    for (size_t i = 0; cases && cases->kind == TS_JSON_ARRAY && i < cases->u.a.count; i++) {
        ts_str id = ts_json_string(ts_json_get(&cases->u.a.items[i], "id"));
        size_t at = suite->count;
        for (size_t k = 0; k < suite->count && at == suite->count; k++)
            if (ts_str_eq_cstr(id, suite->cases[k].id)) at = k;
        if (at == suite->count || filled[at]) {
            snprintf(why, why_size, "%s: case %.*s is %s", path, (int)(id.len > 200 ? 200 : id.len), id.ptr ? id.ptr : "",
                     at == suite->count ? "not in the suite" : "in two shards");
            return false;
        }
        rebuild_case(&cases->u.a.items[i], &suite->cases[at], &slots[at]);
        filled[at] = true;
    }
    return true;
}

/* The run's facts that shard 1 (first) gives: testee, turnstile, options. */
static void take_identity(const ts_json *first, ts_shard_merge *m, ts_certification *out) {
    ts_str s = ts_json_string(ts_json_at_path(first, "testee.command"));
    snprintf(out->testee, sizeof out->testee, "%.*s", (int)s.len, s.ptr ? s.ptr : "");
    s = ts_json_string(ts_json_at_path(first, "testee.name"));
    if (s.len) out->testee_name = copy_str(s);
    s = ts_json_string(ts_json_at_path(first, "testee.version"));
    if (s.len) out->testee_version = copy_str(s);
    s = ts_json_string(ts_json_at_path(first, "testee.durability"));
    if (s.len) out->testee_durability = copy_str(s);
    s = ts_json_string(ts_json_at_path(first, "turnstile.version"));
    snprintf(m->version, sizeof m->version, "%.*s", (int)s.len, s.ptr ? s.ptr : "");
    s = ts_json_string(ts_json_at_path(first, "turnstile.commit"));
    snprintf(m->commit, sizeof m->commit, "%.*s", (int)s.len, s.ptr ? s.ptr : "");
    out->turnstile_version = m->version;
    out->turnstile_commit = m->commit;
    s = ts_json_string(ts_json_get(first, "platform"));
    snprintf(m->platform, sizeof m->platform, "%.*s", (int)s.len, s.ptr ? s.ptr : "");
    m->options.platform = s.ptr ? m->platform : NULL;
    const ts_json *rules = ts_json_get(first, "rules");
    size_t n = 0;
    for (size_t k = 0; rules && rules->kind == TS_JSON_ARRAY && k < rules->u.a.count; k++)
        for (size_t r = 0; r < ts_rule_count && n < sizeof m->rules / sizeof *m->rules; r++)
            if (ts_str_eq_cstr(ts_json_string(ts_json_get(&rules->u.a.items[k], "id")), ts_rules[r].id)) m->rules[n++] = ts_rules[r].id;
    m->options.rules = n == ts_rule_count ? NULL : m->rules;
    m->options.rule_count = n == ts_rule_count ? 0 : n;
    out->options = &m->options;
}

/* A shard's run facts added into out: times, restarts, processes, the earliest date, a harness failure. */
static void add_run(const ts_json *report, ts_certification *out) {
    out->seconds += get_real(ts_json_get(report, "summary"), "seconds");
    out->restarts += (int)get_int(report, "testee.restarts");
    out->execs += get_int(report, "testee.processes.started");
    out->pooled += get_int(report, "testee.processes.pooled");
    out->forked += get_int(report, "testee.processes.forked");
    ts_str date = ts_json_string(ts_json_get(report, "date"));
    char text[32];
    snprintf(text, sizeof text, "%.*s", (int)date.len, date.ptr ? date.ptr : "");
    if (!out->date[0] || strcmp(text, out->date) < 0) snprintf(out->date, sizeof out->date, "%s", text);
    ts_str failure = ts_json_string(ts_json_get(report, "harnessFailure"));
    if (failure.ptr && !out->harness_failure[0])
        snprintf(out->harness_failure, sizeof out->harness_failure, "%.*s", (int)failure.len, failure.ptr);
}

/* Checks shard k's own facts (index, count, complete) against the merge so far. */
static bool check_shard(const ts_json *report, const char *path, size_t count, bool *indices, size_t *selected, char *why,
                        size_t why_size) {
    long index = get_int(report, "shard.index"), of = get_int(report, "shard.count");
    const ts_json *incomplete = ts_json_get(report, "incomplete");
    if (incomplete && incomplete->kind == TS_JSON_TRUE)
        snprintf(why, why_size, "%s: an incomplete (interrupted) run: certify that shard again", path);
    else if (!ts_json_get(report, "shard"))
        snprintf(why, why_size, "%s: not a shard's report (certify --shard K/N)", path);
    else if (of != (long)count)
        snprintf(why, why_size, "%s: shard %ld of %ld, but %zu reports were given", path, index, of, count);
    else if (index < 1 || index > of || indices[index - 1])
        snprintf(why, why_size, "%s: shard %ld given twice", path, index);
    else {
        indices[index - 1] = true;
        *selected = (size_t)get_int(report, "shard.selected");
        return true;
    }
    return false;
}

bool ts_shard_merge_reports(const ts_suite *suite, const char *const *paths, size_t count, ts_shard_merge *m,
                            ts_certification *out, char *why, size_t why_size) {
    memset(m, 0, sizeof *m);
    memset(out, 0, sizeof *out);
    out->suite = suite;
    ts_case_result *slots = calloc(suite->count ? suite->count : 1, sizeof *slots);
    bool *filled = calloc(suite->count ? suite->count : 1, sizeof *filled);
    bool *indices = calloc(count ? count : 1, sizeof *indices);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json *reports = ts_arena_alloc(&arena, (count ? count : 1) * sizeof *reports);
    bool ok = slots && filled && indices && reports;
    if (!ok) snprintf(why, why_size, "out of memory");
    size_t selected = 0;
    for (size_t i = 0; ok && i < count; i++) {
        ok = load(paths[i], &arena, &reports[i], why, why_size) && (i == 0 || same_run(&reports[0], &reports[i], paths[i], why, why_size)) &&
             check_shard(&reports[i], paths[i], count, indices, &selected, why, why_size) &&
             add_cases(suite, &reports[i], paths[i], slots, filled, why, why_size);
        if (ok) add_run(&reports[i], out);
    }
    ts_str hash = ok ? ts_json_string(ts_json_at_path(&reports[0], "suite.sha256")) : (ts_str){0};
    if (ok && !ts_str_eq_cstr(hash, suite->hash)) {
        snprintf(why, why_size, "%s: certified with another suite than this one (sha256 %.16s): give it with --suite", paths[0],
                 suite->hash);
        ok = false;
    }
    if (ok) take_identity(&reports[0], m, out);
    if (ok && !(out->results = calloc(suite->count ? suite->count : 1, sizeof *out->results))) {
        snprintf(why, why_size, "out of memory");
        ok = false;
    }
    for (size_t k = 0; slots && filled && k < suite->count; k++) { /* in the suite's order, as one run has them */
        if (!filled[k]) continue;
        if (ok) out->results[out->count++] = slots[k];
        else ts_findings_free(&slots[k].findings), free(slots[k].stderr_tail), free(slots[k].answer);
    }
    if (ok && out->count != selected && !out->harness_failure[0]) {
        snprintf(why, why_size, "the shards hold %zu cases, their selection %zu: a shard is missing cases", out->count, selected);
        ok = false;
    }
    free(slots);
    free(filled);
    free(indices);
    ts_arena_free(&arena);
    if (!ok) ts_certification_free(out), memset(out, 0, sizeof *out);
    return ok;
}
