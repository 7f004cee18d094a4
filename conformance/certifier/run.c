/* run.c — certification runs; see run.h. */
#include "conformance/certifier/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance/certifier/jobs.h"
#include "conformance/certifier/resume_run.h"
#include "conformance/certifier/supervise.h"
#include "conformance/checkers/journal/journal_checks.h"
#include "conformance/certifier/world.h"
#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/merge/host.h"
#include "core/json/codec.h"
#include "core/resume/journal.h"

static void path_append(char *path, size_t size, const char *fmt, const char *key, size_t index) {
    size_t len = strlen(path);
    if (len + 2 >= size) return;
    if (key) snprintf(path + len, size - len, len ? ".%s" : "%s", key);
    else snprintf(path + len, size - len, fmt, index);
}

static bool first_difference(const ts_json *a, const ts_json *b, char *path, size_t size) {
    if (ts_json_equal(a, b)) return false;
    if (a->kind == TS_JSON_OBJECT && b->kind == TS_JSON_OBJECT) {
        size_t len = strlen(path);
        for (size_t i = 0; i < a->u.o.count; i++) {
            const ts_member *m = &a->u.o.members[i];
            const ts_json *other = NULL;
            for (size_t j = 0; j < b->u.o.count; j++)
                if (ts_str_eq(m->key, b->u.o.members[j].key)) other = &b->u.o.members[j].value;
            path_append(path, size, NULL, m->key.ptr, 0);
            if (!other) return true;
            if (first_difference(&m->value, other, path, size)) return true;
            path[len] = '\0';
        }
        for (size_t j = 0; j < b->u.o.count; j++) {
            if (ts_json_get(a, b->u.o.members[j].key.ptr)) continue;
            path_append(path, size, NULL, b->u.o.members[j].key.ptr, 0);
            return true;
        }
        return true;
    }
    if (a->kind == TS_JSON_ARRAY && b->kind == TS_JSON_ARRAY) {
        size_t len = strlen(path);
        size_t n = a->u.a.count < b->u.a.count ? a->u.a.count : b->u.a.count;
        for (size_t i = 0; i < n; i++) {
            path_append(path, size, "[%zu]", NULL, i);
            if (first_difference(&a->u.a.items[i], &b->u.a.items[i], path, size)) return true;
            path[len] = '\0';
        }
        path_append(path, size, "[%zu]", NULL, n);
        return true;
    }
    return true;
}

void ts_json_first_difference(const ts_json *expected, const ts_json *got, char *out, size_t size) {
    char path[400] = "";
    if (!first_difference(expected, got, path, sizeof path)) {
        snprintf(out, size, "(equal)");
        return;
    }
    char a[140], b[140];
    ts_check_excerpt(ts_json_at_path(expected, path), a, sizeof a);
    ts_check_excerpt(ts_json_at_path(got, path), b, sizeof b);
    snprintf(out, size, "at %s: expected %s, got %s", path[0] ? path : "(top)", a, b);
}

static char *copy_text(const char *s, size_t len) {
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

static void keep_only_selected(ts_findings *all, const ts_run_options *options, ts_findings *out) {
    for (size_t i = 0; i < all->count; i++)
        if (ts_run_rule_selected(options, all->items[i].rule)) ts_findings_add(out, all->items[i].rule, "%s", all->items[i].message);
}

static bool has_required(const ts_findings *f) {
    for (size_t i = 0; i < f->count; i++) {
        const ts_rule_info *info = ts_rule_find(f->items[i].rule);
        if (!info || info->level == TS_LEVEL_REQUIRED) return true;
    }
    return false;
}

/* Some selected rule is one the arrangement of the messages decides (checks.h). */
static bool arrangement_selected(const ts_run_options *options) {
    for (size_t k = 0; k < ts_rule_count; k++)
        if (ts_check_rule_needs_arrangement(ts_rules[k].id) && ts_run_rule_selected(options, ts_rules[k].id)) return true;
    return false;
}

/* The answer's envelope: a JSON object (into answer) for this case's id that does not say
 * "unsupported". False when there is nothing to judge: r then holds the protocol error or the
 * skip. */
static bool read_envelope(const ts_case *c, ts_arena *arena, const char *line, size_t len, ts_json *answer,
                          ts_case_result *r) {
    ts_error err;
    if (!ts_codec_parse(arena, line, len, answer, &err)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "protocol-error";
        snprintf(r->detail, sizeof r->detail, "the answer is not a JSON object: %s", err.message);
        return false;
    }
    ts_str id = ts_json_string(ts_json_get(answer, "id"));
    if (answer->kind != TS_JSON_OBJECT || !id.ptr) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "protocol-error";
        snprintf(r->detail, sizeof r->detail, "the answer has no string \"id\"");
        return false;
    }
    if (!ts_str_eq_cstr(id, c->id)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "protocol-error";
        snprintf(r->detail, sizeof r->detail, "the answer is for id \"%.*s\", not for this case",
                 (int)(id.len > 100 ? 100 : id.len), id.ptr);
        return false;
    }
    const ts_json *unsupported = ts_json_get(answer, "unsupported");
    if (unsupported && unsupported->kind == TS_JSON_TRUE) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the testee does not implement op \"%s\"", c->op);
        return false;
    }
    return true;
}

/* The checkers' findings on an answer into all: on its response, or on its rejection of the
 * case (r->outcome "rejected", the text as r->detail). */
static ts_check_status check_answer(const ts_case *c, const ts_json *answer, const ts_json *response, ts_str rejection,
                                    const ts_run_options *options, ts_case_result *r, ts_findings *all) {
    bool host = strcmp(c->op, "host") == 0, journal = strcmp(c->op, "journal") == 0;
    if (rejection.ptr) {
        r->outcome = "rejected";
        snprintf(r->detail, sizeof r->detail, "%.*s", (int)(rejection.len > 380 ? 380 : rejection.len), rejection.ptr);
        if (host) ts_check_host(c->updates.updates, c->updates.count, NULL, NULL, true, &options->budget, all);
        else if (journal) { /* the case's own (first Required) rule, and no other: nothing else was answered */
            const char *rule = "J3";
            for (size_t i = c->rule_count; i-- > 0;)
                if (ts_rule_find(c->rules[i]) && ts_rule_find(c->rules[i])->level == TS_LEVEL_REQUIRED) rule = c->rules[i];
            ts_findings_add(all, rule, "the testee could not run a valid scenario: %s", r->detail);
        }
        else ts_findings_add(all, "W3", "the testee rejected a valid stream: %s", r->detail);
        return TS_CHECK_DECIDED;
    }
    if (host)
        return ts_check_host(c->updates.updates, c->updates.count, ts_json_get(answer, "stream"), response, false,
                             &options->budget, all);
    if (journal && c->crash_before_commit) ts_check_journal_after_crash(&c->scenario, response, c->crash_before_commit, all);
    else if (journal) ts_check_journal(&c->scenario, response, all);
    else return ts_check_merge(c->updates.updates, c->updates.count, (ts_str){NULL, 0}, response, &options->budget, all);
    return TS_CHECK_DECIDED;
}

/* Reference equivalence: the response (a host case's {stream, response}; a journal's without
 * the ids it mints) against the golden answer, into r->equivalent and r->diff. */
static void compare_golden(const ts_case *c, const ts_json *answer, const ts_json *response, ts_arena *arena,
                           ts_case_result *r) {
    bool host = strcmp(c->op, "host") == 0, journal = strcmp(c->op, "journal") == 0;
    ts_json got = *response;
    if (host) { /* the golden answer of a host case is {stream, response} */
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        const ts_json *stream = ts_json_get(answer, "stream");
        if (stream) ts_json_builder_add(&b, "stream", *stream);
        ts_json_builder_add(&b, "response", *response);
        ts_json_builder_finish(&b, &got);
    }
    ts_json expected = c->expected;
    if (journal && !(ts_journal_json_without_ids(&c->expected, arena, &expected) &&
                    ts_journal_json_without_ids(response, arena, &got)))
        got = ts_json_make_null();
    r->equivalent = ts_json_equal(&expected, &got);
    if (!r->equivalent) ts_json_first_difference(&expected, &got, r->diff, sizeof r->diff);
}

/* Judges one answer line for case c into r (verdict, findings, equivalence). */
static void judge(const ts_case *c, const char *line, size_t len, const ts_run_options *options, ts_case_result *r) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json answer;
    r->outcome = "answered";
    r->equivalent = -1;
    if (!read_envelope(c, &arena, line, len, &answer, r)) goto done;
    bool journal = strcmp(c->op, "journal") == 0;
    ts_str rejection = ts_json_string(ts_json_get(&answer, "error"));
    const ts_json *response = ts_json_get(&answer, journal ? "journal" : "response");
    if (!rejection.ptr && !response) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "protocol-error";
        snprintf(r->detail, sizeof r->detail, "the answer has none of \"%s\", \"error\", \"unsupported\"",
                 journal ? "journal" : "response");
        goto done;
    }
    ts_findings all;
    ts_findings_init(&all);
    ts_check_status checked = check_answer(c, &answer, response, rejection, options, r, &all);
    if (all.out_of_memory) checked = TS_CHECK_OUT_OF_MEMORY; /* a finding was lost */
    keep_only_selected(&all, options, &r->findings);
    r->findings.suppressed = all.suppressed;
    ts_findings_free(&all);
    r->verdict = has_required(&r->findings) ? TS_VERDICT_FAIL : TS_VERDICT_PASS;
    if (checked == TS_CHECK_OUT_OF_MEMORY || r->findings.out_of_memory) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "out-of-memory";
        snprintf(r->detail, sizeof r->detail, "the checkers ran out of memory judging this answer");
    } else if (checked == TS_CHECK_UNDECIDED && r->verdict == TS_VERDICT_PASS && arrangement_selected(options)) {
        r->verdict = TS_VERDICT_UNDECIDED;
        r->outcome = "undecided";
        ts_judge_budget_describe(&options->budget, r->detail, sizeof r->detail);
    }
    if (c->has_expected && !rejection.ptr && (!journal || c->scenario.has_clock)) /* else it means nothing */
        compare_golden(c, &answer, response, &arena, r);
done:
    ts_arena_free(&arena);
}

static void record_error(ts_case_result *r, ts_testee *testee, const ts_call_result *call) {
    r->verdict = TS_VERDICT_ERROR;
    r->outcome = ts_call_status_name(call->status);
    snprintf(r->detail, sizeof r->detail, "%s", call->detail);
    if (call->status != TS_CALL_UNAVAILABLE)
        fprintf(stderr, "turnstile certify: %s on %s (%s); restarting the testee for the next case\n",
                r->outcome, r->c->id, call->detail);
    size_t tail_len = 0;
    const char *tail = ts_testee_stderr_tail(testee, &tail_len);
    if (tail && tail_len && (r->stderr_tail = copy_text(tail, tail_len)))
        for (size_t i = 0; i < tail_len; i++) /* keep what follows a NUL: reports are C strings */
            if (r->stderr_tail[i] == '\0') r->stderr_tail[i] = ' ';
    ts_testee_clear_stderr_tail(testee); /* the next error gets only what follows */
}

static void blame_double_answer(ts_case_result *previous) {
    if (!previous || previous->verdict == TS_VERDICT_ERROR) return;
    previous->verdict = TS_VERDICT_ERROR;
    previous->outcome = "protocol-error";
    snprintf(previous->detail, sizeof previous->detail, "the testee answered this request more than once");
}

bool ts_run_hello(ts_testee *testee, ts_certification *out) {
    static const char hello[] = "{\"id\":\"$hello\",\"op\":\"hello\"}";
    ts_buf answer;
    ts_buf_init(&answer);
    ts_call_result call;
    ts_testee_call(testee, hello, sizeof hello - 1, &answer, &call);
    bool async = true;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json h;
    ts_error err;
    if (call.status == TS_CALL_ANSWERED && answer.data && ts_codec_parse(&arena, answer.data, answer.len, &h, &err)) {
        const ts_json *info = ts_json_get(&h, "hello");
        async = !ts_json_get(info, "async") || ts_json_get(info, "async")->kind != TS_JSON_FALSE;
        ts_str name = ts_json_string(ts_json_get(info, "name")), version = ts_json_string(ts_json_get(info, "version"));
        if (out && ts_str_nonempty(name)) out->testee_name = copy_text(name.ptr, name.len);
        if (out && ts_str_nonempty(version)) out->testee_version = copy_text(version.ptr, version.len);
        ts_str durability = ts_json_string(ts_json_get(info, "durability"));
        if (out && ts_str_nonempty(durability)) out->testee_durability = copy_text(durability.ptr, durability.len);
        const ts_json *forks = ts_json_get(info, "fork");
        if (out) out->testee_forks = forks && forks->kind == TS_JSON_TRUE;
        const ts_json *branch = ts_json_get(info, "branch"); /* resume: ["edit", "fork", "history"] */
        for (size_t i = 0; out && branch && branch->kind == TS_JSON_ARRAY && i < branch->u.a.count; i++) {
            ts_str kind = ts_json_string(&branch->u.a.items[i]);
            out->testee_branch |= ts_str_eq_cstr(kind, "edit") ? TS_BRANCH_EDIT : ts_str_eq_cstr(kind, "fork") ? TS_BRANCH_FORK
                                  : ts_str_eq_cstr(kind, "history") ? TS_BRANCH_HISTORY : 0;
        }
    }
    ts_arena_free(&arena);
    ts_buf_free(&answer);
    return async;
}

/* One case through the testee: the request, the answer (or the harness outcome), judged.
 * Second answers are counted by the testee for the request whose id they carry (testee.h). A
 * timeout while the host starved the testee is tried once more with four times the time; a
 * second is "overloaded", no verdict on the case. */
static void run_case(ts_testee *testee, const ts_case *c, const ts_run_options *options, ts_case_result *r,
                     ts_buf *answer) {
    ts_call_result call;
    ts_testee_call(testee, c->request, c->request_len, answer, &call);
    if (call.status == TS_CALL_EXITED && call.code == 0) {
        /* A clean exit before answering is most likely a testee that ended after its last
         * answer, before it read this request: send it once more to the restarted one. */
        ts_testee_call(testee, c->request, c->request_len, answer, &call);
    }
    if (call.status == TS_CALL_TIMEOUT && call.loaded) {
        ts_testee_scale_timeout(testee, 4);
        ts_testee_call(testee, c->request, c->request_len, answer, &call);
        ts_testee_scale_timeout(testee, 1);
    }
    if (call.status != TS_CALL_ANSWERED) {
        record_error(r, testee, &call);
        if (call.status == TS_CALL_TIMEOUT && call.loaded) r->outcome = "overloaded";
    } else {
        judge(c, answer->data ? answer->data : "", answer->len, options, r);
        r->answer = copy_text(answer->data ? answer->data : "", answer->len);
    }
}

/* One run in progress: what ts_certify's steps share. */
typedef struct run_state {
    ts_certification *out;
    const ts_run_options *options;
    ts_run_options resume_options; /* the testee's claim goes with its resume cases' histories */
    ts_testee *testee;
    ts_jobs *jobs;
    bool async, warm_set;
    ts_testee_warm warm;
    ts_buf answer;
} run_state;

static void progress(const run_state *st) {
    if (st->options->progress) st->options->progress(st->options->progress_context, st->out);
}

/* A case is final: said, and a case the testee could not be started for stops the run. */
static void decide(run_state *st, ts_case_result *r) {
    r->state = TS_CASE_DECIDED;
    if (r->verdict == TS_VERDICT_ERROR && strcmp(r->outcome, "unavailable") == 0 && !st->out->harness_failure[0])
        snprintf(st->out->harness_failure, sizeof st->out->harness_failure, "the testee could not be started: %.250s",
                 ts_testee_failure(st->testee) ? ts_testee_failure(st->testee) : r->detail);
    if (st->options->decided) st->options->decided(st->options->progress_context, st->out, r);
}

static void on_job_decided(void *context, ts_case_result *r) {
    run_state *st = context;
    decide(st, r);
    progress(st);
}

static bool stopping(const run_state *st) { return st->out->harness_failure[0] || ts_child_interrupted(); }

/* Between two cases the caller runs itself: the workers get new runs and give records. */
static void serve_jobs(run_state *st, double seconds) {
    if (!st->jobs) return;
    ts_jobs_service(st->jobs, seconds);
    const char *failure = ts_jobs_failure(st->jobs);
    if (failure && !st->out->harness_failure[0])
        snprintf(st->out->harness_failure, sizeof st->out->harness_failure, "%.290s", failure);
}

/* auto is the fork server for a testee whose hello says "fork": true, the pool otherwise.
 * speed_test.sh proves both equivalent to a cold start on the reference, a mutant and the
 * Python kit; the forked reference's missing crash states under the power-loss nemesis
 * (DESIGN.md, warm starts) were an instance armed one operation late, fixed in the observer. */
static ts_testee_warm warm_for(const ts_run_options *options, const ts_certification *out) {
    if (options->warm != TS_RUN_WARM_AUTO) return (ts_testee_warm)options->warm;
    return out->testee_forks ? TS_WARM_FORK : TS_WARM_POOL;
}

/* One case, on this process's testee. */
static void run_one(run_state *st, ts_case_result *r) {
    const ts_case *c = r->c;
    double case_timeout = ts_run_case_timeout(st->options), start = ts_testee_clock();
    r->state = TS_CASE_STARTED;
    ts_testee_set_deadline(st->testee, case_timeout > 0 ? ts_testee_clock() + case_timeout : 0);
    bool resume = strcmp(c->op, "resume") == 0;
    if (resume) { /* the certifier plays the world and kills the testee */
        if (!st->warm_set) ts_testee_set_warm(st->testee, st->warm), st->warm_set = true;
        ts_resume_run_case(c, st->testee, &st->resume_options, st->async, r);
    } else {
        run_case(st->testee, c, st->options, r, &st->answer);
    }
    ts_testee_set_deadline(st->testee, 0);
    r->seconds += ts_testee_clock() - start;
    if (ts_child_interrupted()) return; /* no verdict: in flight */
    bool repeated = st->options->repeat && ts_run_rule_selected(st->options, "D1") && !resume;
    if (repeated && r->verdict != TS_VERDICT_ERROR && r->verdict != TS_VERDICT_SKIPPED) r->state = TS_CASE_ANSWERED;
    else decide(st, r);
}

/* D1: every answered case again, in reverse order, after all others. */
static void repeat_cases(run_state *st) {
    ts_certification *out = st->out;
    double case_timeout = ts_run_case_timeout(st->options);
    ts_call_result call;
    for (size_t k = out->count; k-- > 0 && !stopping(st);) {
        ts_case_result *r = &out->results[k];
        if (r->state != TS_CASE_ANSWERED || !r->answer) continue;
        serve_jobs(st, 0);
        double start = ts_testee_clock();
        ts_testee_set_deadline(st->testee, case_timeout > 0 ? ts_testee_clock() + case_timeout : 0);
        ts_testee_call(st->testee, r->c->request, r->c->request_len, &st->answer, &call);
        ts_testee_set_deadline(st->testee, 0);
        r->seconds += ts_testee_clock() - start;
        if (ts_child_interrupted()) break;
        bool same = false;
        if (call.status == TS_CALL_ANSWERED) {
            ts_arena arena;
            ts_arena_init(&arena);
            ts_json first = ts_json_make_null(), second = ts_json_make_null();
            ts_error err;
            bool first_ok = ts_codec_parse(&arena, r->answer, strlen(r->answer), &first, &err);
            bool second_ok = first_ok && ts_codec_parse(&arena, st->answer.data ? st->answer.data : "", st->answer.len, &second, &err);
            const ts_json *first_journal = ts_json_get(&first, "journal"), *second_journal = ts_json_get(&second, "journal");
            if (second_ok && strcmp(r->c->op, "journal") == 0 && first_journal && second_journal) {
                /* ids are the engine's (J1): the journals are compared with entry and task ids numbered */
                ts_json a, b;
                second_ok = ts_journal_json_renumbered(first_journal, &arena, &a) &&
                            ts_journal_json_renumbered(second_journal, &arena, &b);
                if (second_ok) {
                    *(ts_json *)first_journal = a;
                    *(ts_json *)second_journal = b;
                }
            }
            same = second_ok && ts_json_equal(&first, &second);
            if (!same) {
                char where[500] = "the second answer is not JSON";
                if (second_ok && first.kind == TS_JSON_OBJECT && second.kind == TS_JSON_OBJECT)
                    ts_json_first_difference(&first, &second, where, sizeof where);
                ts_findings_add(&r->findings, "D1", "the same request, sent again later, drew another answer: %s", where);
            }
            ts_arena_free(&arena);
        } else {
            ts_findings_add(&r->findings, "D1", "sent again later, the request drew no answer: %s %s",
                            ts_call_status_name(call.status), call.detail);
        }
        if (!same) r->verdict = TS_VERDICT_FAIL;
    }
    for (size_t k = 0; k < out->count && !ts_child_interrupted(); k++)
        if (out->results[k].state == TS_CASE_ANSWERED) decide(st, &out->results[k]);
}

static void blame_id(void *run, const char *id) {
    ts_certification *out = run;
    for (size_t k = 0; k < out->count; k++)
        if (strcmp(out->results[k].c->id, id) == 0) blame_double_answer(&out->results[k]);
}

static void free_result(ts_case_result *r) {
    ts_findings_free(&r->findings);
    free(r->stderr_tail);
    free(r->answer);
}

/* After the run: only decided cases stay, in order; the others are named in flight, or not run.
 * A case answered and judged whose determinism repeat (D1) the interruption prevented is
 * decided as far as the run got: its answer was judged against every other rule. */
static void keep_decided(ts_certification *out) {
    size_t kept = 0;
    out->in_flight = calloc(out->count ? out->count : 1, sizeof *out->in_flight);
    for (size_t k = 0; k < out->count; k++) {
        ts_case_result *r = &out->results[k];
        if (r->state == TS_CASE_ANSWERED) r->state = TS_CASE_DECIDED;
        if (r->state == TS_CASE_DECIDED) {
            if (kept != k) out->results[kept] = *r;
            kept++;
            continue;
        }
        if (r->state == TS_CASE_PENDING) out->not_run++;
        else if (out->in_flight) out->in_flight[out->in_flight_count++] = r->c;
        free_result(r);
    }
    out->count = kept;
}

/* Starts the workers when the options ask for them and some selected case is a resume case. */
static void start_jobs(run_state *st) {
    bool any = false;
    for (size_t k = 0; k < st->out->count && !any; k++) any = strcmp(st->out->results[k].c->op, "resume") == 0;
    if (st->options->jobs <= 1 || !any || ts_child_interrupted()) return;
    char why[300];
    st->jobs = ts_jobs_start(st->options->jobs, st->out->suite, st->testee, &st->resume_options, st->async, st->warm,
                             on_job_decided, st, why, sizeof why);
    if (!st->jobs) fprintf(stderr, "turnstile certify: %s; resume runs on one testee\n", why);
}

bool ts_certify(const ts_suite *suite, ts_testee *testee, const ts_run_options *options, ts_certification *out) {
    const char *version = out->turnstile_version, *commit = out->turnstile_commit; /* the caller's, for the report */
    memset(out, 0, sizeof *out);
    out->turnstile_version = version;
    out->turnstile_commit = commit;
    out->options = options;
    out->suite = suite;
    time_t started = time(NULL);
    struct tm utc;
    if (gmtime_r(&started, &utc)) strftime(out->date, sizeof out->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(out->testee, sizeof out->testee, "%s", ts_testee_description(testee));
    out->results = calloc(suite->count ? suite->count : 1, sizeof *out->results);
    const ts_case **chosen = calloc(suite->count ? suite->count : 1, sizeof *chosen);
    if (!out->results || !chosen) {
        free(chosen);
        return false;
    }
    out->count = ts_run_shard_cases(suite, options, chosen, &out->selected);
    for (size_t k = 0; k < out->count; k++) {
        out->results[k].c = chosen[k];
        out->results[k].apart = ts_run_case_apart(options, chosen[k]);
        ts_findings_init(&out->results[k].findings);
    }
    free(chosen);
    double start = ts_testee_clock();
    run_state st = {.out = out, .options = options, .resume_options = *options, .testee = testee};
    ts_buf_init(&st.answer);
    st.async = ts_run_hello(testee, out); /* resume: tools may answer later unless "async": false */
    st.resume_options.durability = out->testee_durability;
    st.resume_options.branch = out->testee_branch;
    st.warm = warm_for(options, out);
    start_jobs(&st);
    progress(&st);
    for (size_t k = 0; k < out->count && !stopping(&st); k++) {
        ts_case_result *r = &out->results[k];
        serve_jobs(&st, 0);
        if (st.jobs && strcmp(r->c->op, "resume") == 0) {
            if (!ts_jobs_add(st.jobs, r->c, r)) snprintf(out->harness_failure, sizeof out->harness_failure, "out of memory");
            continue;
        }
        run_one(&st, r);
        progress(&st);
    }
    if (options->repeat && ts_run_rule_selected(options, "D1") && !stopping(&st)) repeat_cases(&st);
    while (st.jobs && !ts_jobs_idle(st.jobs) && !stopping(&st)) {
        serve_jobs(&st, 0.5);
        progress(&st);
    }
    /* Second answers are counted by the testee for the request whose id they carry, up to its
     * exit at end of input (testee.h): blame those cases. */
    ts_testee_finish(testee);
    const char *id;
    int extra;
    for (size_t i = 0; ts_testee_extra_at(testee, i, &id, &extra); i++)
        if (extra > 0) blame_id(out, id);
    ts_jobs_totals workers = {0};
    ts_jobs_finish(st.jobs, &workers, blame_id, out);
    out->restarts += workers.restarts;
    out->execs += workers.execs, out->pooled += workers.pooled, out->forked += workers.forked;
    ts_buf_free(&st.answer);
    out->restarts += ts_testee_restarts(testee);
    long execs, pooled, forked;
    ts_testee_starts(testee, &execs, &pooled, &forked);
    out->execs += execs, out->pooled += pooled, out->forked += forked;
    out->interrupted = ts_child_interrupted();
    keep_decided(out);
    out->seconds = ts_testee_clock() - start;
    return true;
}

void ts_certification_counts(const ts_certification *c, size_t *passed, size_t *failed, size_t *skipped, size_t *errors) {
    *passed = *failed = *skipped = *errors = 0;
    for (size_t i = 0; i < c->count; i++) {
        if (c->results[i].apart) continue;
        switch (c->results[i].verdict) {
        case TS_VERDICT_PASS: (*passed)++; break;
        case TS_VERDICT_FAIL: (*failed)++; break;
        case TS_VERDICT_SKIPPED: (*skipped)++; break;
        case TS_VERDICT_ERROR: (*failed)++; (*errors)++; break;
        case TS_VERDICT_UNDECIDED: break;
        }
    }
}

size_t ts_certification_undecided(const ts_certification *c) {
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++) n += !c->results[i].apart && c->results[i].verdict == TS_VERDICT_UNDECIDED;
    return n;
}

void ts_certification_free(ts_certification *c) {
    if (!c) return;
    for (size_t i = 0; i < c->count; i++) free_result(&c->results[i]);
    free(c->results);
    free(c->in_flight);
    free(c->testee_name);
    free(c->testee_version);
    free(c->testee_durability);
    memset(c, 0, sizeof *c);
}
