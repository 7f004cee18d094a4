/* resume_play.h — playing runs of one resume case on one testee (PROTOCOL.md `resume`).
 *
 * Owns: a case's world (world.h), nemesis (nemesis.h) and store directories (resume_stores.h) on
 * one testee, and the runs a sweep (resume_run.h) asks of them: the uninterrupted run, then kill
 * runs by plan, each from an empty store of its own and a fresh process of the testee (a warm
 * start where testee.h gives one). Every run of a case may be played by
 * another player (a worker process, jobs.h): a run depends only on the case, its plan and its
 * store's name, so two players give what one would. After the uninterrupted run it gives the
 * sweep its kill plans and the facts of its points. A run the host starved (a timeout while the
 * testee waited for a CPU: load_probe.h) is played once more with four times the timeout; a
 * second such run ends the case ("overloaded"), since load must not decide a verdict.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_PLAY_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/certifier/nemesis.h"
#include "conformance/certifier/run_options.h"
#include "conformance/certifier/testee.h"
#include "conformance/certifier/world.h"
#include "core/json/buf.h"

/* One run as a sweep consumes it. */
typedef struct ts_resume_run {
    bool started;                 /* false: the run could not begin (why: its store, the observer) */
    char why[300];
    ts_case_run_outcome outcome;  /* world.h */
    long kill_point;              /* where the plan's kill fell (0: it did not happen) */
    char unmade[300];             /* why the plan's power loss could not be made ("": it was, or none) */
    ts_buf text;                  /* the run's JSON (world.h) */
    ts_buf warnings;              /* the observer's warnings it offered (nemesis.h ts_nemesis_run_warnings) */
    double seconds;               /* its wall time, a retry included */
    ts_case_pipelining pipelining;/* the world's, over this player's runs of the case so far (world.h) */
    bool settled_kill;            /* its kill waited for the testee's silence first */
    bool unsettled_kill;          /* the case pipelines and its kill did not wait */
} ts_resume_run;

void ts_resume_run_init(ts_resume_run *run);
void ts_resume_run_free(ts_resume_run *run);

/* What the uninterrupted run gives the sweep. */
typedef struct ts_resume_plans {
    ts_kill_plan *plans;          /* the kill runs to make, in order (heap; ts_resume_plans_free) */
    size_t count, merged;         /* and the points merged as the same experiment */
    bool refused;                 /* --kill-at names a point or state the case lacks (detail) */
    char detail[400];
    long protocol, store;         /* points by kind (nemesis.h ts_nemesis_counts) */
    uint64_t operations;
    bool observing, power_loss;   /* the nemesis the case got */
} ts_resume_plans;

void ts_resume_plans_free(ts_resume_plans *p);

typedef struct ts_resume_player ts_resume_player;

/* A player of case c (borrowed, as testee and options) on testee; `deadline` the case's
 * (ts_testee_clock seconds, 0 none), which bounds every run. NULL with why when the case's store
 * directory cannot be made, or out of memory. */
ts_resume_player *ts_resume_player_new(const ts_case *c, ts_testee *testee, const ts_run_options *options, double deadline,
                                       char *why, size_t why_size);

/* Plays one run: `name` its store's ("run", "kill-N"), plan NULL for the uninterrupted one. */
void ts_resume_player_play(ts_resume_player *p, const char *name, const ts_kill_plan *plan, ts_resume_run *out);

/* After the uninterrupted run: its points, and with `plan` its kill plans (--kill-at,
 * --kill-points, --exact-points). */
void ts_resume_player_plans(const ts_resume_player *p, bool plan, ts_resume_plans *out);

/* Ends the player: its testee finished (its whole tree gone, unless `used` is false: it answered
 * the case unsupported) and its stores removed. False when a bound stopped the removal: `left`
 * says which directory was left and why. Accepts NULL. */
bool ts_resume_player_free(ts_resume_player *p, bool used, char *left, size_t left_size);

#endif
