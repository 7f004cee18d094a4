/* resume_play.c — runs of one resume case on one testee; see resume_play.h. */
#define _DEFAULT_SOURCE /* realpath */
#include "conformance/certifier/resume_play.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/resume_stores.h"

static const double overloaded_retry_scale = 4; /* the timeout of a run played again after the host starved it */

struct ts_resume_player {
    const ts_case *c;
    ts_testee *testee;
    const ts_run_options *options;
    ts_case_world *world;
    ts_nemesis *nemesis;
    ts_resume_stores stores;
};

void ts_resume_run_init(ts_resume_run *run) {
    memset(run, 0, sizeof *run);
    ts_buf_init(&run->text);
    ts_buf_init(&run->warnings);
}

void ts_resume_run_free(ts_resume_run *run) {
    ts_buf_free(&run->text);
    ts_buf_free(&run->warnings);
}

void ts_resume_plans_free(ts_resume_plans *p) {
    free(p->plans);
    p->plans = NULL;
    p->count = 0;
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

ts_resume_player *ts_resume_player_new(const ts_case *c, ts_testee *testee, const ts_run_options *options, double deadline,
                                       char *why, size_t why_size) {
    ts_resume_player *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    p->c = c;
    p->testee = testee;
    p->options = options;
    if (!(p->world = ts_case_world_new(c, why, why_size))) {
        free(p);
        return NULL;
    }
    if (!ts_resume_stores_make(&p->stores) || !(p->nemesis = make_nemesis(testee, options, p->stores.dir))) {
        snprintf(why, why_size, "cannot create a store directory: %s", strerror(errno));
        char left[400];
        ts_resume_player_free(p, false, left, sizeof left);
        return NULL;
    }
    ts_case_world_set_bounds(p->world, options->max_points_per_action > 0 ? options->max_points_per_action : TS_RUN_MAX_POINTS,
                             deadline);
    ts_case_world_set_branch(p->world, options->branch);
    return p;
}

/* One attempt at a run. Every run starts with a fresh process of the testee: what a process
 * that served another run keeps in memory (an engine's cache of the thread, which every run of
 * the case names alike) must not reach this one, and a run must not depend on which run came
 * before it on this testee (jobs.h deals them to several). */
static void attempt(ts_resume_player *p, const char *name, const ts_kill_plan *plan, ts_resume_run *out) {
    char store[2048];
    ts_testee_stop(p->testee);
    memset(&out->outcome, 0, sizeof out->outcome);
    out->kill_point = 0;
    out->unmade[0] = '\0';
    ts_buf_reset(&out->text);
    ts_buf_reset(&out->warnings);
    out->settled_kill = out->unsettled_kill = false;
    out->started = ts_nemesis_begin_run(p->nemesis, name, plan, store, sizeof store, out->why, sizeof out->why);
    if (!out->started) return;
    ts_case_pipelining before;
    ts_case_world_pipelining(p->world, &before);
    ts_case_world_run_case(p->world, p->testee, p->nemesis, store, &out->text, &out->outcome);
    ts_case_world_pipelining(p->world, &out->pipelining);
    out->settled_kill = out->pipelining.settled_kills > before.settled_kills;
    out->unsettled_kill = out->pipelining.lines && ts_case_world_unsettled_kill(p->world);
    out->kill_point = ts_nemesis_kill_point(p->nemesis);
    const char *unmade = ts_nemesis_unmade(p->nemesis);
    snprintf(out->unmade, sizeof out->unmade, "%s", unmade ? unmade : "");
    const ts_buf *offered = ts_nemesis_run_warnings(p->nemesis);
    if (offered->len) ts_buf_append(&out->warnings, offered->data, offered->len);
}

void ts_resume_player_play(ts_resume_player *p, const char *name, const ts_kill_plan *plan, ts_resume_run *out) {
    double start = ts_testee_clock();
    attempt(p, name, plan, out);
    if (out->started && out->outcome.limit && strcmp(out->outcome.limit, "overloaded") == 0) {
        char again[80]; /* the same run, once more, with room, in a store of its own */
        snprintf(again, sizeof again, "%s-again", name);
        ts_testee_scale_timeout(p->testee, overloaded_retry_scale);
        attempt(p, again, plan, out);
        ts_testee_scale_timeout(p->testee, 1);
    }
    out->seconds = ts_testee_clock() - start;
}

void ts_resume_player_plans(const ts_resume_player *p, bool plan, ts_resume_plans *out) {
    const ts_run_options *o = p->options;
    memset(out, 0, sizeof *out);
    ts_nemesis_counts(p->nemesis, &out->protocol, &out->store, &out->operations);
    out->observing = ts_nemesis_observing(p->nemesis);
    out->power_loss = ts_nemesis_power_loss(p->nemesis);
    long points = out->protocol + out->store;
    if (!plan) return;
    if (o->kill_at > 0) {
        ts_kill_plan plan;
        if (!ts_nemesis_plan_for(p->nemesis, o->kill_at, o->crash_state, &plan)) {
            out->refused = true;
            snprintf(out->detail, sizeof out->detail, "--kill-at %ld%s%s: the uninterrupted run has %ld point%s (world calls, "
                     "commit notices and store changes, numbered from 1)%s; no kill run was made", o->kill_at,
                     o->crash_state ? " --crash-state " : "", o->crash_state ? o->crash_state : "", points, points == 1 ? "" : "s",
                     o->crash_state && o->kill_at <= points ? ", and no such crash state there" : "");
            return;
        }
        if (!(out->plans = malloc(sizeof *out->plans))) return;
        out->plans[0] = plan;
        out->count = 1;
        return;
    }
    if (o->kill_points < 0) return;
    out->count = ts_nemesis_plans(p->nemesis, o->exact_points, &out->plans, &out->merged);
    if (o->kill_points > 0)
        while (out->count && out->plans[out->count - 1].point > o->kill_points) out->count--;
}

bool ts_resume_player_free(ts_resume_player *p, bool used, char *left, size_t left_size) {
    if (left_size) left[0] = '\0';
    if (!p) return true;
    bool ok = ts_resume_stores_remove(&p->stores, p->testee, used, left, left_size); /* the testee's tree gone first */
    ts_nemesis_free(p->nemesis);
    ts_case_world_free(p->world);
    free(p);
    return ok;
}
