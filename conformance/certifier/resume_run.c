/* resume_run.c — a resume case's sweep and verdict; see resume_run.h. The world the runs play is
 * world.h's, where and how they are killed nemesis.h's; this file plans the kill runs from the
 * uninterrupted one, judges every run (conformance/checkers/resume/resume_checks.h) and keeps the
 * history. */
#define _DEFAULT_SOURCE /* realpath */
#include "conformance/certifier/resume_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/nemesis.h"
#include "conformance/certifier/resume_stores.h"
#include "conformance/certifier/world.h"
#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/resume/resume_checks.h"
#include "core/json/codec.h"

enum { KEPT_FAILING_RUNS = 3 };

static void keep_selected(const ts_findings *all, const ts_run_options *options, ts_findings *out) {
    for (size_t i = 0; i < all->count; i++)
        if (ts_run_rule_selected(options, all->items[i].rule))
            ts_findings_add_named(out, all->items[i].rule, all->items[i].named, "%s", all->items[i].message);
    out->suppressed += all->suppressed;
}

static bool judge_text(ts_resume_judge *judge, const ts_buf *run, ts_findings *findings) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    ts_error err;
    bool ok = ts_codec_parse(&arena, run->data, run->len, &value, &err) && ts_resume_judge_run(judge, &value, findings);
    ts_arena_free(&arena);
    return ok;
}

/* One case in flight: its world, nemesis and judge, and the history as it is recorded. */
typedef struct sweep {
    const ts_case *c;
    ts_testee *testee;
    const ts_run_options *options;
    ts_case_world *world;
    ts_nemesis *nemesis;
    ts_resume_judge *judge;
    ts_case_run_outcome run;        /* how the last run ended */
    ts_buf text;             /* the history: {"format"..., "runs":[ so far */
    ts_buf failing;          /* [{"point":P,...,"rules":[...]}...]: every failing kill run */
    long kept, omitted, passing, runs, unreached;
    long unmade;             /* power-loss runs whose crash state could not be made */
    long unsettled;          /* kill runs of a pipelining case whose kill was not settled first */
    char unmade_why[300];
    ts_findings all;
} sweep;

/* One failing kill run in the history's summary: its point (and crash state) and the rules its
 * findings break (a U9 or U11 finding's named rule rather than U9 itself). */
static void append_failing(ts_buf *out, const ts_kill_plan *plan, const ts_findings *local) {
    ts_buf_appendf(out, "%s{\"point\":%ld", out->len ? "," : "", plan->point);
    if (plan->crash_state[0]) {
        ts_buf_append_str(out, ",\"crashState\":");
        ts_codec_write_string(out, ts_str_from(plan->crash_state));
    }
    ts_buf_append_str(out, ",\"rules\":[");
    for (size_t k = 0, written = 0; k < local->count; k++) {
        bool seen = false;
        for (size_t i = 0; i < k; i++) seen |= local->items[i].named == local->items[k].named;
        if (!seen) ts_buf_appendf(out, "%s\"%s\"", written++ ? "," : "", local->items[k].named);
    }
    ts_buf_append_str(out, "]}");
}

/* One run: its store made (name), played, judged into local. False when it could not start. */
static bool play(sweep *s, const char *name, const ts_kill_plan *plan, ts_buf *run, ts_findings *local, char *why,
                 size_t why_size) {
    char store[2048];
    if (!ts_nemesis_begin_run(s->nemesis, name, plan, store, sizeof store, why, why_size)) return false;
    ts_case_world_run_case(s->world, s->testee, s->nemesis, store, run, &s->run);
    const char *unmade = ts_nemesis_unmade(s->nemesis);
    if (unmade) { /* a power loss that could not be made proves nothing: counted, not judged */
        if (!s->unmade++) snprintf(s->unmade_why, sizeof s->unmade_why, "%s", unmade);
        return true;
    }
    if (!s->run.unsupported && !s->run.limit) judge_text(s->judge, run, local);
    return true;
}

/* The kill runs of plans (each from an empty store of its own), judged into s->all; the failing
 * ones kept in the history (the first KEPT_FAILING_RUNS). Stops at a bound of the case, whose run
 * is neither judged nor kept: the case ends there. */
static void kill_sweep(sweep *s, const ts_kill_plan *plans, size_t count, ts_case_result *r) {
    ts_buf run;
    ts_buf_init(&run);
    char name[64], why[300];
    for (size_t i = 0; i < count && !s->run.limit; i++) {
        ts_findings local;
        ts_findings_init(&local);
        snprintf(name, sizeof name, "kill-%zu", i + 1);
        if (!play(s, name, &plans[i], &run, &local, why, sizeof why)) {
            r->verdict = TS_VERDICT_ERROR;
            r->outcome = "unavailable";
            snprintf(r->detail, sizeof r->detail, "%s", why);
            ts_findings_free(&local);
            break;
        }
        if (s->run.limit) {
            ts_findings_free(&local);
            break;
        }
        s->runs++;
        s->unreached += ts_nemesis_kill_point(s->nemesis) == 0;
        if (local.count && s->kept < KEPT_FAILING_RUNS) {
            ts_buf_append_char(&s->text, ',');
            ts_buf_append(&s->text, run.data, run.len);
            s->kept++;
        } else if (local.count) {
            s->omitted++;
        } else {
            s->passing++;
        }
        if (local.count) append_failing(&s->failing, &plans[i], &local);
        ts_case_pipelining pipelining;
        ts_case_world_pipelining(s->world, &pipelining);
        bool unsettled = pipelining.lines && ts_case_world_unsettled_kill(s->world);
        s->unsettled += unsettled;
        char note[200] = "";
        if (unsettled)
            snprintf(note, sizeof note, " (the testee pipelines its world calls and this kill was not settled first: the "
                     "redo may be the kill's timing; certify with --kill-settle %ld)", pipelining.kill_settle_ms);
        for (size_t k = 0; k < local.count; k++) {
            bool u7 = !strcmp(local.items[k].rule, "U7") || !strcmp(local.items[k].named, "U7");
            ts_findings_add_named(&s->all, local.items[k].rule, local.items[k].named, "%s%s", local.items[k].message,
                                  u7 ? note : "");
        }
        s->all.suppressed += local.suppressed;
        ts_findings_free(&local);
    }
    ts_buf_free(&run);
}

/* The kill runs to make after the uninterrupted run: one point (--kill-at, with a crash state or
 * not), or every planned experiment, the first --kill-points points only. false when --kill-at
 * names a point or state the case does not have (detail says so). */
static bool choose_plans(sweep *s, ts_kill_plan **plans, size_t *count, size_t *merged, char *detail, size_t size) {
    const ts_run_options *o = s->options;
    *plans = NULL;
    *count = *merged = 0;
    long protocol, store;
    uint64_t operations;
    ts_nemesis_counts(s->nemesis, &protocol, &store, &operations);
    long points = protocol + store;
    if (o->kill_at > 0) {
        ts_kill_plan plan;
        if (!ts_nemesis_plan_for(s->nemesis, o->kill_at, o->crash_state, &plan)) {
            snprintf(detail, size, "--kill-at %ld%s%s: the uninterrupted run has %ld point%s (world calls, commit notices "
                     "and store changes, numbered from 1)%s; no kill run was made", o->kill_at, o->crash_state ? " --crash-state " : "",
                     o->crash_state ? o->crash_state : "", points, points == 1 ? "" : "s",
                     o->crash_state && o->kill_at <= points ? ", and no such crash state there" : "");
            return false;
        }
        if (!(*plans = malloc(sizeof **plans))) return true;
        **plans = plan;
        *count = 1;
        return true;
    }
    if (o->kill_points < 0) return true;
    *count = ts_nemesis_plans(s->nemesis, o->exact_points, plans, merged);
    if (o->kill_points > 0)
        while (*count && (*plans)[*count - 1].point > o->kill_points) (*count)--;
    return true;
}

/* The case's own rule, charged with an error answer: its first Required one (U9 when none). */
static const char *case_rule_of(const ts_case *c) { return ts_rules_first_required(c->rules, c->rule_count, "U9"); }

static void verdict_from_findings(ts_case_result *r) {
    if (r->verdict == TS_VERDICT_ERROR) return;
    r->verdict = TS_VERDICT_PASS;
    if (ts_findings_fail(&r->findings)) r->verdict = TS_VERDICT_FAIL;
}

/* The history's summary after its runs: the sweep's size and the faults it used. */
static void close_history(sweep *s, size_t planned, size_t merged) {
    long protocol, store;
    uint64_t operations;
    ts_nemesis_counts(s->nemesis, &protocol, &store, &operations);
    ts_buf *h = &s->text;
    ts_buf_appendf(h, "],\"killPoints\":%ld,\"passingRunsOmitted\":%ld,\"failingRunsOmitted\":%ld,", s->runs, s->passing,
                   s->omitted);
    ts_buf_appendf(h, "\"points\":{\"protocol\":%ld,\"store\":%ld,\"storeOperations\":%lu,\"killRuns\":%zu,\"merged\":%zu,"
                      "\"notReached\":%ld,\"powerLossNotMade\":%ld},", protocol, store, (unsigned long)operations, planned, merged,
                   s->unreached, s->unmade);
    if (s->unmade) {
        ts_buf_append_str(h, "\"powerLossNotMadeBecause\":");
        ts_codec_write_string(h, ts_str_from(s->unmade_why));
        ts_buf_append_char(h, ',');
    }
    ts_buf_appendf(h, "\"nemesis\":\"%s\",", ts_nemesis_power_loss(s->nemesis) ? "power-loss"
                                            : ts_nemesis_observing(s->nemesis) ? "store" : "protocol");
    if (s->options->durability) {
        ts_buf_append_str(h, "\"durability\":");
        ts_codec_write_string(h, ts_str_from(s->options->durability));
        ts_buf_append_char(h, ',');
    }
    if (*ts_nemesis_warnings(s->nemesis)) {
        ts_buf_append_str(h, "\"observerWarnings\":");
        ts_codec_write_string(h, ts_str_from(ts_nemesis_warnings(s->nemesis)));
        ts_buf_append_char(h, ',');
    }
    ts_case_pipelining p;
    ts_case_world_pipelining(s->world, &p);
    if (p.lines)
        ts_buf_appendf(h, "\"pipelining\":{\"lines\":%ld,\"slowestStepMs\":%.1f,\"killSettleMs\":%ld,\"settledKillRuns\":%ld,"
                          "\"unsettledKillRuns\":%ld},", p.lines, p.slowest_step_seconds * 1000, p.kill_settle_ms, p.settled_kills,
                       s->unsettled);
    ts_buf_append_str(h, "\"failingKillPoints\":[");
    ts_buf_append(h, s->failing.data, s->failing.len);
    ts_buf_append_str(h, "]}");
}

/* The uninterrupted run, then the kill sweep, judged into r; the history kept as r->answer. */
static void run_and_sweep(sweep *s, ts_case_result *r) {
    ts_buf run;
    ts_buf_init(&run);
    ts_findings_init(&s->all);
    char why[300];
    ts_kill_plan *plans = NULL;
    size_t count = 0, merged = 0;
    if (!play(s, "run", NULL, &run, &s->all, why, sizeof why)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "%s", why);
        goto done;
    }
    if (s->run.unsupported) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the testee does not implement op \"resume\"");
        goto done;
    }
    ts_buf_append_str(&s->text, "{\"format\":\"turnstile-resume-history\",\"version\":1,\"case\":");
    ts_codec_write_string(&s->text, ts_str_from(s->c->id));
    ts_buf_append_str(&s->text, ",\"runs\":[");
    ts_buf_append(&s->text, run.data, run.len);
    if (s->run.aborted) { /* the uninterrupted run drew a harness verdict: an error of the case */
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = s->run.outcome;
        snprintf(r->detail, sizeof r->detail, "in the uninterrupted run: %.360s", s->run.detail);
    } else if (!choose_plans(s, &plans, &count, &merged, r->detail, sizeof r->detail)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "no-such-kill-point";
    } else {
        kill_sweep(s, plans, count, r);
    }
    if (s->run.limit && r->verdict != TS_VERDICT_ERROR) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = s->run.limit;
        snprintf(r->detail, sizeof r->detail, "in kill run %ld (of %zu): %.300s", s->runs + 1, count, s->run.detail);
    }
    close_history(s, count, merged);
    r->answer = s->text.failed ? NULL : strdup(s->text.data);
    keep_selected(&s->all, s->options, &r->findings);
    verdict_from_findings(r);
done:
    free(plans);
    ts_findings_free(&s->all);
    ts_buf_free(&run);
}

/* The nemesis the options ask for; without the observer when it cannot be used here (an
 * in-process testee, another system), which the history then says. */
static ts_nemesis *make_nemesis(ts_testee *testee, const ts_run_options *options, const char *dir) {
    char resolved[1024], why[300];
    if (!realpath(dir, resolved)) snprintf(resolved, sizeof resolved, "%s", dir);
    ts_nemesis_options wanted = {.observe = options->nemesis >= TS_NEMESIS_STORE, .power_loss = options->nemesis >= TS_NEMESIS_POWER_LOSS};
    ts_nemesis *n = wanted.observe ? ts_nemesis_new(testee, resolved, &wanted, why, sizeof why) : NULL;
    if (!n) n = ts_nemesis_new(testee, resolved, &(ts_nemesis_options){0}, why, sizeof why);
    return n;
}

void ts_resume_run_case(const ts_case *c, ts_testee *testee, const ts_run_options *options, bool async,
                        ts_case_result *r) {
    r->outcome = "answered";
    r->equivalent = -1; /* no golden answer: the scenario is the expectation */
    char why[300];
    ts_resume_stores stores = {.made = false};
    sweep s = {.c = c, .testee = testee, .options = options};
    ts_buf_init(&s.text);
    ts_buf_init(&s.failing);
    double own_deadline = ts_testee_deadline(testee) > 0 || ts_run_case_timeout(options) <= 0
                              ? 0 : ts_testee_clock() + ts_run_case_timeout(options); /* called on its own */
    if (own_deadline > 0) ts_testee_set_deadline(testee, own_deadline);
    if (!(s.world = ts_case_world_new(c, why, sizeof why)) ||
        !(s.judge = ts_resume_judge_new(&c->scenario, case_rule_of(c), why, sizeof why))) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "bad-case";
        snprintf(r->detail, sizeof r->detail, "the scenario is no resume case: %s", why);
    } else if (!async && ts_case_world_needs_async(s.world)) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the case needs an asynchronous tool; the testee's hello says \"async\": false");
    } else if (ts_case_world_needs_branch(s.world) & ~options->branch) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the case needs %s; the testee's hello does not list it in \"branch\"",
                 ts_case_world_needs_branch(s.world) & ~options->branch & TS_BRANCH_EDIT ? "an edit" : "a fork");
    } else if (!ts_resume_stores_make(&stores) || !(s.nemesis = make_nemesis(testee, options, stores.dir))) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "cannot create a store directory: %s", strerror(errno));
    } else {
        ts_case_world_set_bounds(s.world, options->max_points_per_action > 0 ? options->max_points_per_action : TS_RUN_MAX_POINTS,
                            ts_testee_deadline(testee));
        ts_resume_judge_claim(s.judge, options->durability);
        ts_case_world_set_branch(s.world, options->branch);
        run_and_sweep(&s, r);
    }
    ts_resume_stores_remove(&stores, testee, r); /* the testee stopped and its tree gone first */
    ts_nemesis_free(s.nemesis);
    if (own_deadline > 0) ts_testee_set_deadline(testee, 0);
    ts_resume_judge_free(s.judge);
    ts_case_world_free(s.world);
    ts_buf_free(&s.text);
    ts_buf_free(&s.failing);
}
