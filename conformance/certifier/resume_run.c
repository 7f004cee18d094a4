/* resume_run.c — a resume case's sweep and verdict; see resume_run.h. The runs are played by
 * resume_play.h (world.h's world, nemesis.h's faults); this file consumes them in order, judges
 * every run (conformance/checkers/resume/resume_checks.h) and keeps the history. */
#include "conformance/certifier/resume_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/resume_stores.h"
#include "conformance/certifier/supervise.h"
#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/resume/resume_checks.h"
#include "core/json/codec.h"
#include "core/json/json_writer.h"

enum { KEPT_FAILING_RUNS = 3 };

struct ts_resume_sweep {
    const ts_case *c;
    const ts_run_options *options;
    ts_resume_judge *judge;
    ts_resume_plans facts;   /* of the uninterrupted run (its plans not kept) */
    ts_buf text;             /* the history: {"format"..., "runs":[ so far */
    ts_json_writer history_writer; /* writes text */
    ts_buf failing;          /* [{"point":P,...,"rules":[...]}...]: every failing kill run */
    ts_json_writer failing_writer; /* writes failing, its array open until the history closes */
    ts_buf warnings;         /* the observer's, merged run after run */
    long kept, omitted, passing, runs, unreached;
    long unmade;             /* power-loss runs whose crash state could not be made */
    char unmade_why[300];
    const char *limit;       /* the bound that ended the case in a kill run, or NULL */
    char limit_detail[400];
    bool history;            /* the uninterrupted run is in the history */
    ts_case_pipelining pipelining; /* what the runs saw of it (the most any player saw; kills summed) */
    long unsettled;          /* kill runs of a pipelining case whose kill was not settled first */
    ts_findings all;
};

/* A run's view of the case's pipelining, folded into the sweep's. */
static void note_pipelining(ts_resume_sweep *s, const ts_resume_run *run) {
    ts_case_pipelining *p = &s->pipelining;
    if (run->pipelining.lines > p->lines) p->lines = run->pipelining.lines;
    if (run->pipelining.slowest_step_seconds > p->slowest_step_seconds) p->slowest_step_seconds = run->pipelining.slowest_step_seconds;
    if (run->pipelining.kill_settle_ms > p->kill_settle_ms) p->kill_settle_ms = run->pipelining.kill_settle_ms;
    p->settled_kills += run->settled_kill;
    s->unsettled += run->unsettled_kill;
}

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
    bool ok = ts_codec_parse(&arena, run->data ? run->data : "", run->len, &value, &err) &&
              ts_resume_judge_run(judge, &value, findings);
    ts_arena_free(&arena);
    return ok;
}

/* The case's own rule, charged with an error answer: its first Required one (U9 when none). */
static const char *case_rule_of(const ts_case *c) { return ts_rules_first_required(c->rules, c->rule_count, "U9"); }

ts_resume_sweep *ts_resume_sweep_new(const ts_case *c, const ts_run_options *options, bool async, ts_case_result *r) {
    r->outcome = "answered";
    r->equivalent = -1; /* no golden answer: the scenario is the expectation */
    char why[300];
    ts_resume_sweep *s = calloc(1, sizeof *s);
    ts_case_world *world = s ? ts_case_world_new(c, why, sizeof why) : NULL;
    if (!s) snprintf(why, sizeof why, "out of memory");
    else s->judge = world ? ts_resume_judge_new(&c->scenario, case_rule_of(c), why, sizeof why) : NULL;
    bool needs_async = world && ts_case_world_needs_async(world);
    unsigned missing_branch = world ? ts_case_world_needs_branch(world) & ~options->branch : 0;
    ts_case_world_free(world);
    if (!s || !s->judge) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "bad-case";
        snprintf(r->detail, sizeof r->detail, "the scenario is no resume case: %s", why);
    } else if (!async && needs_async) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the case needs an asynchronous tool; the testee's hello says \"async\": false");
    } else if (missing_branch) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the case needs %s; the testee's hello does not list it in \"branch\"",
                 missing_branch & TS_BRANCH_EDIT ? "an edit" : "a fork");
    } else {
        s->c = c;
        s->options = options;
        ts_resume_judge_claim(s->judge, options->durability);
        ts_buf_init(&s->text);
        ts_jw_init_buf(&s->history_writer, &s->text, 0);
        ts_buf_init(&s->failing);
        ts_jw_init_buf(&s->failing_writer, &s->failing, 0);
        ts_jw_begin_array(&s->failing_writer);
        ts_buf_init(&s->warnings);
        ts_findings_init(&s->all);
        return s;
    }
    if (s) ts_resume_judge_free(s->judge);
    free(s);
    return NULL;
}

/* A run's warnings, merged into the case's. */
static void merge_warnings(ts_resume_sweep *s, const ts_resume_run *run) {
    for (size_t at = 0; at < run->warnings.len;) {
        const char *piece = run->warnings.data + at;
        ts_nemesis_merge_warning(&s->warnings, piece);
        at += strlen(piece) + 1;
    }
}

bool ts_resume_run_wants_plans(const ts_resume_run *run) {
    return run->started && !run->outcome.unsupported && !run->outcome.aborted;
}

bool ts_resume_sweep_first(ts_resume_sweep *s, const ts_resume_run *run, const ts_resume_plans *plans, ts_case_result *r) {
    if (!run->started) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "%s", run->why);
        return false;
    }
    if (run->outcome.unsupported) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the testee does not implement op \"resume\"");
        return false;
    }
    merge_warnings(s, run);
    note_pipelining(s, run);
    if (!run->outcome.limit) judge_text(s->judge, &run->text, &s->all);
    s->facts = *plans;
    s->facts.plans = NULL;
    s->history = true;
    ts_json_writer *h = &s->history_writer;
    ts_jw_begin_object(h);
    ts_jw_field_string(h, "format", "turnstile-resume-history");
    ts_jw_field_int(h, "version", 1);
    ts_jw_field_string(h, "case", s->c->id);
    ts_jw_key(h, "runs");
    ts_jw_begin_array(h);
    ts_jw_raw(h, run->text.data ? run->text.data : "", run->text.len); /* a run's record: JSON already */
    if (run->outcome.aborted) { /* the uninterrupted run drew a harness verdict: an error of the case */
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = run->outcome.outcome;
        snprintf(r->detail, sizeof r->detail, "in the uninterrupted run: %.360s", run->outcome.detail);
        s->facts.count = s->facts.merged = 0;
        return false;
    }
    if (plans->refused) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "no-such-kill-point";
        snprintf(r->detail, sizeof r->detail, "%s", plans->detail);
        s->facts.count = s->facts.merged = 0;
        return false;
    }
    return plans->count > 0;
}

/* One failing kill run in the history's summary: its point (and crash state) and the rules its
 * findings break (a U9 or U11 finding's named rule rather than U9 itself). */
static void append_failing(ts_json_writer *w, const ts_kill_plan *plan, const ts_findings *local) {
    ts_jw_begin_object(w);
    ts_jw_field_int(w, "point", plan->point);
    if (plan->crash_state[0]) ts_jw_field_string(w, "crashState", plan->crash_state);
    ts_jw_key(w, "rules");
    ts_jw_begin_array(w);
    for (size_t k = 0; k < local->count; k++) {
        bool seen = false;
        for (size_t i = 0; i < k; i++) seen |= local->items[i].named == local->items[k].named;
        if (!seen) ts_jw_string(w, local->items[k].named);
    }
    ts_jw_end_array(w);
    ts_jw_end_object(w);
}

bool ts_resume_sweep_kill(ts_resume_sweep *s, size_t index, const ts_kill_plan *plan, const ts_resume_run *run,
                          ts_case_result *r) {
    (void)index;
    if (!run->started) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "%s", run->why);
        return false;
    }
    merge_warnings(s, run);
    if (run->outcome.limit) { /* the case ends here; this run is neither judged nor kept */
        s->limit = run->outcome.limit;
        snprintf(s->limit_detail, sizeof s->limit_detail, "%s", run->outcome.detail);
        return false;
    }
    ts_findings local;
    ts_findings_init(&local);
    if (run->unmade[0]) { /* a power loss that could not be made proves nothing: counted, not judged */
        if (!s->unmade++) snprintf(s->unmade_why, sizeof s->unmade_why, "%s", run->unmade);
    } else if (!run->outcome.unsupported) {
        judge_text(s->judge, &run->text, &local);
    }
    s->runs++;
    s->unreached += run->kill_point == 0;
    if (local.count && s->kept < KEPT_FAILING_RUNS) {
        ts_jw_raw(&s->history_writer, run->text.data ? run->text.data : "", run->text.len);
        s->kept++;
    } else if (local.count) {
        s->omitted++;
    } else {
        s->passing++;
    }
    if (local.count) append_failing(&s->failing_writer, plan, &local);
    note_pipelining(s, run);
    char note[200] = "";
    if (run->unsettled_kill)
        snprintf(note, sizeof note, " (the testee pipelines its world calls and this kill was not settled first: the "
                 "redo may be the kill's timing; certify with --kill-settle %ld)", s->pipelining.kill_settle_ms);
    for (size_t k = 0; k < local.count; k++) {
        bool u7 = !strcmp(local.items[k].rule, "U7") || !strcmp(local.items[k].named, "U7");
        ts_findings_add_named(&s->all, local.items[k].rule, local.items[k].named, "%s%s", local.items[k].message,
                              u7 ? note : "");
    }
    s->all.suppressed += local.suppressed;
    ts_findings_free(&local);
    return true;
}

/* The history's summary after its runs: the sweep's size and the faults it used. False when the
 * history could not be written (out of memory). */
static bool close_history(ts_resume_sweep *s) {
    const ts_resume_plans *f = &s->facts;
    ts_json_writer *h = &s->history_writer;
    ts_jw_end_array(h); /* the runs */
    ts_jw_field_int(h, "killPoints", s->runs);
    ts_jw_field_int(h, "passingRunsOmitted", s->passing);
    ts_jw_field_int(h, "failingRunsOmitted", s->omitted);
    ts_jw_key(h, "points");
    ts_jw_begin_object(h);
    ts_jw_field_int(h, "protocol", f->protocol);
    ts_jw_field_int(h, "store", f->store);
    ts_jw_field_uint(h, "storeOperations", (unsigned long)f->operations);
    ts_jw_field_uint(h, "killRuns", f->count);
    ts_jw_field_uint(h, "merged", f->merged);
    ts_jw_field_int(h, "notReached", s->unreached);
    ts_jw_field_int(h, "powerLossNotMade", s->unmade);
    ts_jw_end_object(h);
    if (s->unmade) ts_jw_field_string(h, "powerLossNotMadeBecause", s->unmade_why);
    ts_jw_field_string(h, "nemesis", f->power_loss ? "power-loss" : f->observing ? "store" : "protocol");
    if (s->options->durability) ts_jw_field_string(h, "durability", s->options->durability);
    if (s->warnings.len) {
        ts_jw_key(h, "observerWarnings");
        ts_jw_string_len(h, s->warnings.data, s->warnings.len);
    }
    const ts_case_pipelining *p = &s->pipelining;
    if (p->lines) {
        ts_jw_key(h, "pipelining");
        ts_jw_begin_object(h);
        ts_jw_field_int(h, "lines", p->lines);
        ts_jw_field_fixed(h, "slowestStepMs", p->slowest_step_seconds * 1000, 1);
        ts_jw_field_int(h, "killSettleMs", p->kill_settle_ms);
        ts_jw_field_int(h, "settledKillRuns", p->settled_kills);
        ts_jw_field_int(h, "unsettledKillRuns", s->unsettled);
        ts_jw_end_object(h);
    }
    ts_jw_end_array(&s->failing_writer);
    if (!ts_jw_finish(&s->failing_writer)) ts_jw_fail(h);
    ts_jw_key(h, "failingKillPoints");
    ts_jw_raw(h, s->failing.data ? s->failing.data : "[]", s->failing.data ? s->failing.len : 2);
    ts_jw_end_object(h);
    return ts_jw_finish(h);
}

static void verdict_from_findings(ts_case_result *r) {
    if (r->verdict == TS_VERDICT_ERROR) return;
    r->verdict = TS_VERDICT_PASS;
    if (ts_findings_fail(&r->findings)) r->verdict = TS_VERDICT_FAIL;
}

void ts_resume_sweep_finish(ts_resume_sweep *s, ts_case_result *r) {
    if (!s) return;
    if (s->history) {
        if (s->limit && r->verdict != TS_VERDICT_ERROR) {
            r->verdict = TS_VERDICT_ERROR;
            r->outcome = s->limit;
            snprintf(r->detail, sizeof r->detail, "in kill run %ld (of %zu): %.300s", s->runs + 1, s->facts.count,
                     s->limit_detail);
        }
        r->answer = close_history(s) ? strdup(s->text.data) : NULL;
        keep_selected(&s->all, s->options, &r->findings);
        verdict_from_findings(r);
    }
    ts_resume_judge_free(s->judge);
    ts_findings_free(&s->all);
    ts_buf_free(&s->text);
    ts_buf_free(&s->failing);
    ts_buf_free(&s->warnings);
    free(s);
}

/* ---- inline: every run on this testee, in order ---- */

/* The kill runs of plans, each from an empty store of its own, until the case ends. */
static void kill_sweep(ts_resume_sweep *s, ts_resume_player *player, const ts_resume_plans *plans, ts_resume_run *run,
                       ts_case_result *r) {
    char name[64];
    for (size_t i = 0; i < plans->count && !ts_child_interrupted(); i++) {
        snprintf(name, sizeof name, "kill-%zu", i + 1);
        ts_resume_player_play(player, name, &plans->plans[i], run);
        if (!ts_resume_sweep_kill(s, i, &plans->plans[i], run, r)) break;
    }
}

void ts_resume_run_case(const ts_case *c, ts_testee *testee, const ts_run_options *options, bool async,
                        ts_case_result *r) {
    ts_resume_sweep *s = ts_resume_sweep_new(c, options, async, r);
    if (!s) return;
    double deadline = ts_testee_deadline(testee);
    bool own_deadline = deadline <= 0 && ts_run_case_timeout(options) > 0; /* called on its own */
    if (own_deadline) ts_testee_set_deadline(testee, deadline = ts_testee_clock() + ts_run_case_timeout(options));
    char why[300], left[400] = "";
    ts_resume_player *player = ts_resume_player_new(c, testee, options, deadline, why, sizeof why);
    bool used = false;
    if (!player) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "%s", why);
    } else {
        ts_resume_run run;
        ts_resume_run_init(&run);
        ts_resume_plans plans;
        ts_resume_player_play(player, "run", NULL, &run);
        used = !run.outcome.unsupported; /* else it never touched its store, and keeps running */
        ts_resume_player_plans(player, ts_resume_run_wants_plans(&run), &plans);
        if (ts_resume_sweep_first(s, &run, &plans, r)) kill_sweep(s, player, &plans, &run, r);
        ts_resume_plans_free(&plans);
        ts_resume_run_free(&run);
    }
    ts_resume_sweep_finish(s, r);
    if (!ts_resume_player_free(player, used, left, sizeof left)) ts_resume_stores_blame(r, left);
    if (own_deadline) ts_testee_set_deadline(testee, 0);
}
