/* report_json.c — the JSON report (a certificate); see report.h. Written with the streaming JSON
 * writer (core/json/json_writer.h), in the certificate's field order. */
#include <string.h>

#include "conformance/certifier/gate.h"
#include "conformance/certifier/pipelining_report.h"
#include "conformance/certifier/report.h"
#include "conformance/certifier/report_internal.h"
#include "core/json/buf.h"
#include "core/json/json_writer.h"

/* An array of strings, the value of `key`. */
static void json_strings(ts_json_writer *w, const char *key, const char *const *items, size_t count) {
    ts_jw_key(w, key);
    ts_jw_begin_array(w);
    for (size_t i = 0; i < count; i++) ts_jw_string(w, items[i]);
    ts_jw_end_array(w);
}

/* A partial certificate: what was decided, and what was in flight. */
static void json_incomplete(ts_json_writer *w, const ts_certification *c) {
    ts_jw_field_bool(w, "incomplete", true);
    ts_jw_field_int(w, "interruptedBy", c->interrupted);
    ts_jw_key(w, "inFlight");
    ts_jw_begin_array(w);
    for (size_t i = 0; i < c->in_flight_count; i++) ts_jw_string(w, c->in_flight[i]->id);
    ts_jw_end_array(w);
    ts_jw_field_uint(w, "notRun", c->not_run);
}

/* A shard's place, and the options that must be the same in every shard of one run (the merge
 * compares them: shard_merge.h). */
static void json_shard(ts_json_writer *w, const ts_certification *c) {
    const ts_run_options *o = c->options;
    ts_jw_key(w, "shard");
    ts_jw_begin_object(w);
    ts_jw_field_int(w, "index", o->shard_index);
    ts_jw_field_int(w, "count", o->shard_count);
    ts_jw_field_uint(w, "selected", c->selected);
    ts_jw_key(w, "options");
    ts_jw_begin_object(w);
    json_strings(w, "cases", o->case_globs, o->glob_count);
    ts_jw_field_bool(w, "repeat", o->repeat);
    ts_jw_field_int(w, "killPoints", o->kill_points);
    ts_jw_field_int(w, "killAt", o->kill_at);
    ts_jw_field_int(w, "nemesis", (int)o->nemesis);
    ts_jw_field_bool(w, "exactPoints", o->exact_points);
    ts_jw_field_string(w, "crashState", o->crash_state ? o->crash_state : "");
    ts_jw_end_object(w);
    ts_jw_end_object(w);
}

/* Which turnstile and which testee (its command as certificates carry it: portable). */
static void json_testee(ts_json_writer *w, const ts_certification *c) {
    ts_jw_key(w, "turnstile");
    ts_jw_begin_object(w);
    ts_jw_field_string(w, "version", c->turnstile_version ? c->turnstile_version : "");
    ts_jw_field_string(w, "commit", c->turnstile_commit ? c->turnstile_commit : "unknown");
    ts_jw_end_object(w);
    ts_jw_key(w, "testee");
    ts_jw_begin_object(w);
    ts_jw_field_string(w, "name", c->testee_name ? c->testee_name : "");
    ts_jw_field_string(w, "version", c->testee_version ? c->testee_version : "");
    ts_buf command;
    ts_buf_init(&command);
    ts_report_portable_command(&command, c->testee);
    if (command.failed) ts_jw_fail(w);
    ts_jw_field_string(w, "command", command.data ? command.data : "");
    ts_buf_free(&command);
    if (c->testee_durability) ts_jw_field_string(w, "durability", c->testee_durability);
    ts_pipelining_report_json(w, c);
    ts_jw_field_int(w, "restarts", c->restarts);
    ts_jw_key(w, "processes");
    ts_jw_begin_object(w);
    ts_jw_field_int(w, "started", c->execs);
    ts_jw_field_int(w, "pooled", c->pooled);
    ts_jw_field_int(w, "forked", c->forked);
    ts_jw_end_object(w);
    ts_jw_end_object(w);
}

/* The durability the resume cases show (none without one), the suite, the platform. */
static void json_durability_and_suite(ts_json_writer *w, const ts_certification *c) {
    const char *nemesis;
    long points[5];
    const char *level = ts_report_durability(c, &nemesis, points);
    if (level) {
        ts_jw_key(w, "durability");
        ts_jw_begin_object(w);
        ts_jw_field_string(w, "level", level);
        ts_jw_field_string(w, "nemesis", nemesis);
        static const char *const names[5] = {"protocolPoints", "storePoints", "killRuns", "merged", "powerLossNotMade"};
        for (int k = 0; k < 5; k++) ts_jw_field_int(w, names[k], points[k]);
        ts_jw_end_object(w);
    }
    ts_jw_key(w, "suite");
    ts_jw_begin_object(w);
    ts_jw_field_string(w, "version", c->suite ? c->suite->version : "");
    ts_jw_field_string(w, "sha256", c->suite ? c->suite->hash : "");
    ts_jw_field_string(w, "source", c->suite && strcmp(c->suite->root, "built-in") == 0 ? "built-in" : "directory");
    ts_jw_field_uint(w, "cases", c->suite ? c->suite->count : 0);
    ts_jw_end_object(w);
    ts_jw_key(w, "platform");
    if (c->options->platform) ts_jw_string(w, c->options->platform);
    else ts_jw_null(w);
}

static const char *level_name(ts_level level) { return level == TS_LEVEL_RECOMMENDED ? "Recommended" : "Required"; }

/* Per level, the rules that pass of those judged; per selected rule, its counts. */
static void json_rules(ts_json_writer *w, const ts_certification *c) {
    ts_jw_key(w, "levels");
    ts_jw_begin_object(w);
    for (int level = 0; level < 2; level++) {
        size_t p, all;
        ts_report_level_counts(c, level ? TS_LEVEL_RECOMMENDED : TS_LEVEL_REQUIRED, &p, &all);
        ts_jw_key(w, level ? "Recommended" : "Required");
        ts_jw_begin_object(w);
        ts_jw_field_uint(w, "rulesPassed", p);
        ts_jw_field_uint(w, "rulesJudged", all);
        ts_jw_end_object(w);
    }
    ts_jw_end_object(w);
    ts_jw_key(w, "rules");
    ts_jw_begin_array(w);
    for (size_t k = 0; k < ts_rule_count; k++) {
        if (!ts_run_rule_selected(c->options, ts_rules[k].id)) continue;
        size_t p, f, s;
        ts_report_rule_counts(c, ts_rules[k].id, &p, &f, &s);
        ts_jw_begin_object(w);
        ts_jw_field_string(w, "id", ts_rules[k].id);
        ts_jw_field_string(w, "level", ts_rules[k].level == TS_LEVEL_REQUIRED ? "Required" : "Recommended");
        ts_jw_field_string(w, "title", ts_rules[k].title);
        ts_jw_field_uint(w, "passed", p);
        ts_jw_field_uint(w, "failed", f);
        ts_jw_field_uint(w, "skipped", s);
        ts_jw_end_object(w);
    }
    ts_jw_end_array(w);
}

/* A case's findings, each with its rule's level and (from the expected-failures list) class. */
static void json_findings(ts_json_writer *w, const ts_case_result *r, const ts_report_context *ctx) {
    ts_jw_key(w, "findings");
    ts_jw_begin_array(w);
    for (size_t k = 0; k < r->findings.count; k++) {
        const ts_finding *f = &r->findings.items[k];
        const ts_rule_info *info = ts_rule_find(f->rule);
        ts_jw_begin_object(w);
        ts_jw_field_string(w, "rule", f->rule);
        ts_jw_field_string(w, "level", level_name(info ? info->level : TS_LEVEL_REQUIRED));
        ts_jw_field_string(w, "message", f->message);
        ts_gate_class_json(w, ctx ? ctx->expected : NULL, r->c->id, f->rule);
        ts_jw_end_object(w);
    }
    ts_jw_end_array(w);
}

static void json_case(ts_json_writer *w, const ts_case_result *r, const ts_report_context *ctx) {
    ts_jw_begin_object(w);
    ts_jw_field_string(w, "id", r->c->id);
    ts_jw_field_string(w, "op", r->c->op);
    json_strings(w, "rules", r->c->rules, r->c->rule_count);
    ts_jw_field_string(w, "verdict", ts_verdict_name(r->verdict));
    ts_jw_field_string(w, "outcome", r->outcome);
    if (r->detail[0]) ts_jw_field_string(w, "detail", r->detail);
    json_findings(w, r, ctx);
    if (r->findings.suppressed) ts_jw_field_uint(w, "moreFindings", r->findings.suppressed);
    ts_jw_field_fixed(w, "seconds", r->seconds, 3);
    if (r->equivalent >= 0) ts_jw_field_bool(w, "equivalent", r->equivalent);
    if (r->expected) ts_jw_field_bool(w, "expectedFailure", true);
    if (r->apart) ts_jw_field_string(w, "apart", r->apart);
    if (r->c->tag_count) json_strings(w, "tags", r->c->tags, r->c->tag_count);
    if (r->equivalent == 0) ts_jw_field_string(w, "difference", r->diff);
    if (r->stderr_tail) ts_jw_field_string(w, "stderr", r->stderr_tail);
    if (r->answer && strcmp(r->c->op, "resume") == 0) { /* the recorded history (JSON), which replays */
        ts_jw_key(w, "history");
        ts_jw_raw(w, r->answer, strlen(r->answer));
    }
    ts_jw_end_object(w);
}

/* The summary's counts, and the gate's when there is one. */
static void json_summary(ts_json_writer *w, const ts_certification *c, const ts_report_context *ctx) {
    size_t passed, failed, skipped, errors, apart = 0;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    for (size_t i = 0; i < c->count; i++) apart += c->results[i].apart != NULL;
    ts_jw_key(w, "summary");
    ts_jw_begin_object(w);
    ts_jw_field_uint(w, "cases", c->count);
    ts_jw_field_uint(w, "passed", passed);
    ts_jw_field_uint(w, "failed", failed);
    ts_jw_field_uint(w, "skipped", skipped);
    ts_jw_field_uint(w, "errors", errors);
    ts_jw_field_uint(w, "undecided", ts_certification_undecided(c));
    ts_jw_field_uint(w, "apart", apart);
    ts_jw_field_fixed(w, "seconds", c->seconds, 3);
    ts_jw_end_object(w);
    if (!ctx || !ctx->gate) return;
    const ts_gate_counts *g = ctx->gate;
    ts_jw_key(w, "gate");
    ts_jw_begin_object(w);
    ts_jw_field_bool(w, "passed", g->new_failures + g->unexpected_passes + g->stale == 0);
    ts_jw_field_uint(w, "expectedFailures", g->expected);
    ts_jw_field_uint(w, "newFailures", g->new_failures);
    ts_jw_field_uint(w, "unexpectedPasses", g->unexpected_passes);
    ts_jw_field_uint(w, "staleEntries", g->stale);
    ts_jw_end_object(w);
}

bool ts_report_json(FILE *out, const ts_certification *c, const ts_report_context *ctx) {
    ts_json_writer w;
    ts_jw_init_file(&w, out, 0);
    ts_jw_begin_object(&w);
    ts_jw_field_string(&w, "format", "turnstile-certification");
    ts_jw_field_int(&w, "version", 1);
    ts_jw_field_string(&w, "verdict", ts_report_verdict(c));
    if (c->harness_failure[0]) ts_jw_field_string(&w, "harnessFailure", c->harness_failure);
    if (c->interrupted) json_incomplete(&w, c);
    if (c->options->shard_count > 1) json_shard(&w, c);
    ts_jw_field_string(&w, "date", c->date);
    json_testee(&w, c);
    json_durability_and_suite(&w, c);
    json_rules(&w, c);
    ts_jw_key(&w, "cases");
    ts_jw_begin_array(&w);
    for (size_t i = 0; i < c->count; i++) json_case(&w, &c->results[i], ctx);
    ts_jw_end_array(&w);
    json_summary(&w, c, ctx);
    ts_jw_end_object(&w);
    ts_jw_end_line(&w);
    return ts_jw_finish(&w);
}
