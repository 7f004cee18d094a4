/* differential_resume.c — fuzz target: scenario generator -> a resume engine driven through the
 * certifier's `resume` protocol (it plays the model and the tools, kills the testee at every
 * point) -> the universal resume rules (U1-U15) as oracle.
 *
 * The testee is the command in $TURNSTILE_TESTEE (run with /bin/sh -c, kept running across
 * inputs, restarted when it dies or is killed), or the built-in mutant named by
 * $TURNSTILE_TESTEE_MUTANT, or by default the reference itself, in-process.
 * $TURNSTILE_KILL_POINTS (all, none or N; default all) bounds the kill sweep per input, and
 * $TURNSTILE_KILL_SETTLE_MS lets a testee whose world calls run concurrently settle before a kill.
 * Generated scenarios (ts_gen_universal_scenario: with edits and forks) are made resume cases
 * first: an event is dropped when the case would be no resume case with it (a complete of a call
 * not pending then, or completed before an earlier async call of its answer; an edit of a message
 * queued behind calls), and so are the edits and forks of a testee whose hello lists no such
 * branch kind (certify skips such a case). A violated Required rule — or a harness error (crash, hang, garbage) —
 * is a finding: the scenario is minimised (events dropped, then model answers' tool calls,
 * while the same rule still fails), written as a ready-to-add conformance case
 * (<id>.scenario.json and its entry of op "resume" in MANIFEST.json) into
 * $TURNSTILE_FINDINGS_DIR (default "."), so `turnstile certify --suite DIR -- COMMAND` replays
 * every finding as written, and the target aborts so the engine records it.
 * A testee whose hello says "async": false gets scenarios whose tools all answer at once.
 * Against an engine with known defects: $TURNSTILE_RULES (only these rules are findings) and
 * $TURNSTILE_SKIP_RULES (never these; a U9 finding counts only when the rule it names does too),
 * and $TURNSTILE_KEEP_GOING=1 (write each finding's case and go on instead of aborting).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/resume_run.h"
#include "conformance/certifier/run.h"
#include "conformance/certifier/world.h"
#include "conformance/checkers/resume/resume_expect.h"
#include "core/json/codec.h"
#include "fuzz/finding_case.h"
#include "fuzz/fuzz_testee.h"
#include "fuzz/oracle.h"
#include "fuzz/scenario_gen.h"

static long kill_points(void) {
    const char *v = getenv("TURNSTILE_KILL_POINTS");
    if (!v || !*v || !strcmp(v, "all")) return 0;
    if (!strcmp(v, "none")) return -1;
    long n = strtol(v, NULL, 10);
    return n > 0 ? n : 0;
}

/* The scenario document with only the events in keep[] (and its llm array as given). */
static ts_json with_events(ts_arena *arena, const ts_json *doc, const ts_json *events, size_t count) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    for (size_t i = 0; i < doc->u.o.count; i++) {
        const ts_member *m = &doc->u.o.members[i];
        if (ts_str_eq_cstr(m->key, "events")) continue;
        ts_json_builder_add_key(&b, m->key, m->value);
    }
    ts_json *copy = ts_arena_alloc(arena, (count + 1) * sizeof *copy);
    if (copy && count) memcpy(copy, events, count * sizeof *copy);
    ts_json_builder_add(&b, "events", (ts_json){TS_JSON_ARRAY, {.a = {copy, count}}});
    ts_json out = ts_json_make_null();
    if (!copy || !ts_json_builder_finish(&b, &out)) ts_oracle_fail("out of memory", NULL, 0);
    return out;
}

/* True when doc is a resume case (resume_expect.h); *scenario filled. */
static bool resume_case(ts_arena *arena, const ts_json *doc, ts_scenario *scenario) {
    ts_error err;
    ts_expected x;
    char why[300];
    return ts_scenario_from_json(doc, arena, scenario, &err) && ts_expect_resume(scenario, arena, &x, why, sizeof why);
}

/* What the testee can do to a conversation (hello's "branch": world.h TS_BRANCH_*), asked once. */
static unsigned testee_branch(ts_testee *testee) {
    static int known = -1; /* the fuzzer's entry point keeps it across inputs */
    if (known < 0) {
        ts_certification hello;
        memset(&hello, 0, sizeof hello);
        ts_run_hello(testee, &hello);
        known = (int)hello.testee_branch;
        ts_certification_free(&hello);
    }
    return (unsigned)known;
}

/* The generated scenario made a resume case: each event kept only when the case stays one. */
static ts_json resume_scenario(ts_arena *arena, const ts_json *doc, unsigned branch) {
    const ts_json *events = ts_json_get(doc, "events");
    size_t n = events ? events->u.a.count : 0, kept = 0;
    ts_json *keep = ts_arena_alloc(arena, (n + 1) * sizeof *keep);
    ts_scenario scenario;
    if (!keep) ts_oracle_fail("out of memory", NULL, 0);
    for (size_t i = 0; i < n; i++) {
        const ts_json *ev = &events->u.a.items[i];
        if (ts_json_get(ev, "branch")) continue;
        if (ts_json_get(ev, "edit") && !(branch & TS_BRANCH_EDIT)) continue;
        if (ts_json_get(ev, "fork") && !(branch & TS_BRANCH_FORK)) continue;
        keep[kept] = events->u.a.items[i];
        ts_json candidate = with_events(arena, doc, keep, kept + 1);
        if (resume_case(arena, &candidate, &scenario)) kept++;
    }
    return with_events(arena, doc, keep, kept);
}

/* Is a finding one this run looks for? A U9 finding counts only when the rule it names does too. */
static bool rule_selected(const char *rule) {
    const char *only = getenv("TURNSTILE_RULES");
    if (only && *only && !ts_finding_rule_listed(only, rule, strlen(rule))) return false;
    return !ts_finding_rule_listed(getenv("TURNSTILE_SKIP_RULES"), rule, strlen(rule));
}

typedef struct verdict {
    char rule[16];          /* the first Required rule violated, or "harness"; "" when fine */
    char message[700];
} verdict;

/* Whether the testee's tools may answer later: its hello (ts_run_hello), asked once; a scenario
 * that needs an asynchronous tool is then skipped, as certify does. */
static bool testee_async(ts_testee *testee) {
    static int known = -1; /* the fuzzer's entry point keeps it across inputs */
    if (known < 0) known = ts_run_hello(testee, NULL);
    return known;
}

/* For a testee without asynchronous tools: every tool answers at once (the generated scenario's
 * complete events for them then fall away as no resume case's), so its inputs are not skipped. */
static void tools_synchronous(ts_json *doc) {
    ts_json *tools = (ts_json *)ts_json_get(doc, "tools");
    for (size_t i = 0; tools && tools->kind == TS_JSON_OBJECT && i < tools->u.o.count; i++) {
        ts_json *tool = &tools->u.o.members[i].value;
        for (size_t m = 0; tool->kind == TS_JSON_OBJECT && m < tool->u.o.count; m++)
            if (ts_str_eq_cstr(tool->u.o.members[m].key, "async")) tool->u.o.members[m].value = ts_json_make_bool(false);
    }
}

/* Runs the scenario through the testee as a resume case and judges it. */
static void ask(ts_arena *arena, const ts_json *doc, verdict *v) {
    v->rule[0] = v->message[0] = '\0';
    ts_case c;
    memset(&c, 0, sizeof c);
    static const char *rules[] = {"U2"};
    c.id = "Fuzz.resume";
    c.op = "resume";
    c.rules = rules;
    c.rule_count = 1;
    if (!resume_case(arena, doc, &c.scenario)) ts_oracle_fail("the scenario is no resume case", NULL, 0);
    ts_testee *testee = ts_fuzz_testee(10.0);
    ts_run_options options = {.kill_points = kill_points(), .branch = testee_branch(testee)};
    ts_case_result r;
    memset(&r, 0, sizeof r);
    r.c = &c;
    ts_findings_init(&r.findings);
    ts_resume_run_case(&c, testee, &options, testee_async(testee), &r);
    if (r.verdict == TS_VERDICT_ERROR) {
        snprintf(v->rule, sizeof v->rule, "harness");
        snprintf(v->message, sizeof v->message, "%s: %s", r.outcome, r.detail);
    }
    for (size_t i = 0; i < r.findings.count && !v->rule[0]; i++) {
        if (!ts_rule_fails(r.findings.items[i].rule)) continue;
        if (!rule_selected(r.findings.items[i].rule) || !rule_selected(r.findings.items[i].named)) continue;
        snprintf(v->rule, sizeof v->rule, "%s", r.findings.items[i].rule);
        snprintf(v->message, sizeof v->message, "%s", r.findings.items[i].message);
    }
    ts_findings_free(&r.findings);
    free(r.answer);
    free(r.stderr_tail);
}

static bool same_failure(ts_arena *arena, const ts_json *doc, const char *rule) {
    ts_scenario scenario;
    if (!resume_case(arena, doc, &scenario)) return false;
    verdict v;
    ask(arena, doc, &v);
    return strcmp(v.rule, rule) == 0;
}

/* Drops the model answers the case never reaches (a branch also asks on the branch it abandons:
 * those are used, and stay). */
static void trim_answers(ts_arena *arena, ts_json *doc) {
    ts_scenario scenario;
    ts_expected x;
    ts_error err;
    char why[300];
    ts_json *llm = (ts_json *)ts_json_get(doc, "llm");
    if (llm && ts_scenario_from_json(doc, arena, &scenario, &err) && ts_expect_resume(&scenario, arena, &x, why, sizeof why))
        llm->u.a.count = x.answers_used;
}

/* Delta reduction: drop events, then tool calls of model answers, while the same rule fails;
 * then the model answers never reached. */
static ts_json minimise(ts_arena *arena, ts_json doc, const char *rule) {
    const ts_json *events = ts_json_get(&doc, "events");
    size_t n = events ? events->u.a.count : 0;
    ts_json *list = ts_arena_alloc(arena, (n + 1) * sizeof *list);
    if (!list) return doc;
    if (n) memcpy(list, events->u.a.items, n * sizeof *list);
    for (size_t i = n; i-- > 0;) {
        ts_json removed = list[i];
        memmove(list + i, list + i + 1, (n - i - 1) * sizeof *list);
        ts_json candidate = with_events(arena, &doc, list, n - 1);
        if (same_failure(arena, &candidate, rule)) {
            n--;
            doc = candidate;
        } else {
            memmove(list + i + 1, list + i, (n - i - 1) * sizeof *list);
            list[i] = removed;
        }
    }
    ts_json *llm = (ts_json *)ts_json_get(&doc, "llm");
    for (size_t k = 0; llm && k < llm->u.a.count; k++) { /* answers without their calls */
        ts_json *answer = &llm->u.a.items[k];
        for (size_t m = 0; answer->kind == TS_JSON_OBJECT && m < answer->u.o.count; m++) {
            if (!ts_str_eq_cstr(answer->u.o.members[m].key, "toolCalls")) continue;
            ts_json calls = answer->u.o.members[m].value;
            answer->u.o.members[m].value = (ts_json){TS_JSON_ARRAY, {.a = {NULL, 0}}};
            if (!same_failure(arena, &doc, rule)) answer->u.o.members[m].value = calls;
        }
    }
    trim_answers(arena, &doc);
    return doc;
}

static void write_case(const ts_json *doc, const verdict *v) {
    const char *dir = getenv("TURNSTILE_FINDINGS_DIR");
    if (!dir || !*dir) dir = ".";
    const char *rule = strcmp(v->rule, "harness") == 0 ? "U9" : v->rule;
    ts_buf text;
    ts_buf_init(&text);
    ts_codec_write(&text, doc, TS_WRITE_PRETTY);
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < text.len; i++) hash = (hash ^ (unsigned char)text.data[i]) * 16777619u;
    char id[96], path[1024];
    snprintf(id, sizeof id, "Resume.%s.fuzz_%08x", rule, hash);
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.scenario.json", dir, id);
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%s\n", text.data ? text.data : "{}");
        fclose(f);
    }
    ts_buf entry;
    ts_buf_init(&entry);
    ts_buf_appendf(&entry, "{\"id\":\"%s\",\"op\":\"resume\",\"rules\":[\"%s\"],\"description\":", id, rule);
    char description[900];
    snprintf(description, sizeof description, "Found by the differential resume fuzzer: %s", v->message);
    ts_codec_write_string(&entry, ts_str_from(description));
    ts_buf_appendf(&entry, ",\"input\":\"%s.scenario.json\"}", id);
    if (!ts_finding_manifest_add(dir, id, &entry)) fprintf(stderr, "==turnstile== could not update %s/MANIFEST.json\n", dir);
    ts_buf_free(&entry);
    fprintf(stderr, "==turnstile== conformance case written: %s/%s.scenario.json (in %s/MANIFEST.json)\n", dir, id, dir);
    ts_buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json generated;
    if (!ts_gen_universal_scenario(&arena, data, size, &generated)) ts_oracle_fail("out of memory", NULL, 0);
    if (!testee_async(ts_fuzz_testee(10.0))) tools_synchronous(&generated);
    ts_json doc = resume_scenario(&arena, &generated, testee_branch(ts_fuzz_testee(10.0)));
    verdict v;
    ask(&arena, &doc, &v);
    if (v.rule[0]) {
        fprintf(stderr, "\n==turnstile== the testee fails %s: %s\n", v.rule, v.message);
        doc = minimise(&arena, doc, v.rule);
        /* The case's description is what the minimised case fails, asked once more: minimising
         * keeps a smaller scenario that fails the same rule, which may be by another failure,
         * and the unreached answers were trimmed after the last check. */
        verdict again;
        ask(&arena, &doc, &again);
        if (again.rule[0]) {
            v = again;
        } else {
            size_t used = strlen(v.message);
            snprintf(v.message + used, sizeof v.message - used, " (before minimising; the minimised case passed when asked again)");
        }
        fprintf(stderr, "==turnstile== minimised, it fails %s: %s\n", v.rule, v.message);
        write_case(&doc, &v);
        const char *keep_going = getenv("TURNSTILE_KEEP_GOING");
        if (keep_going && *keep_going && strcmp(keep_going, "0") != 0) {
            ts_arena_free(&arena);
            return 0;
        }
        ts_buf text;
        ts_buf_init(&text);
        ts_codec_write(&text, &doc, TS_WRITE_COMPACT);
        ts_oracle_fail("the testee breaks a universal resume rule", text.data, text.len);
    }
    ts_arena_free(&arena);
    return 0;
}
