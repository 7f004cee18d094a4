/* nemesis.h — the faults of a resume case (PROTOCOL.md `resume`; conformance/nemesis/DESIGN.md):
 * where a run is killed, and what of its store a crash leaves.
 *
 * Owns: the points of a run — each world call and commit notice the testee writes (a protocol
 * point: killed before its reply), and, with the file-system observer, each store operation
 * that changes the store (a point after it: armed in the observer, which kills the testee as the
 * operation returns) — numbered in the order they happen, the store's operations recorded in the
 * run's events; the plan of one kill run carried out (a point, and a power-loss crash state or
 * none: the state is written into the store once the testee and everything it started are
 * gone); and the points of the uninterrupted run, with the crash states a power loss there would
 * leave, from which the sweep (resume_run.c) plans its kill runs. The world (world.h) asks it at
 * every line and after every death; it never judges.
 *
 * It decides from what was observed, not from the world itself: each call carries a
 * ts_nemesis_observed (the action in flight, whether its answer came, and where the run's events
 * go), which the world fills in. So the world includes the nemesis and the nemesis knows nothing
 * of the world (no include circle: the file-system nemesis extends this room alone).
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_NEMESIS_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_NEMESIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/certifier/testee.h"
#include "core/json/buf.h"
#include "core/json/json_writer.h"

typedef struct ts_nemesis ts_nemesis;

/* What the nemesis sees of the run in flight at a call, filled in by the world (borrowed for
 * the call): the action in flight (or the last sent), whether its answer came, and the sink of
 * the run's record, to which each event (a JSON object's text) the nemesis adds is appended. */
typedef struct ts_nemesis_observed {
    size_t action;
    bool answered;
    void (*record_event)(void *context, const char *json, size_t len);
    void *context;
} ts_nemesis_observed;

typedef struct ts_nemesis_options {
    bool observe;        /* the file-system observer: points at store operations */
    bool power_loss;     /* and power-loss crash states (needs observe) */
} ts_nemesis_options;

/* A nemesis for one case whose stores live under case_dir (an existing, resolved directory),
 * killing testee. With options->observe the testee is observed from its next start on; NULL
 * with a reason when the observer cannot be used (then the case runs without it: the caller
 * says so). */
ts_nemesis *ts_nemesis_new(ts_testee *testee, const char *case_dir, const ts_nemesis_options *options, char *why,
                           size_t why_size);
void ts_nemesis_free(ts_nemesis *n); /* accepts NULL; the testee is no longer observed */

/* Is the file-system observer on, and power loss? */
bool ts_nemesis_observing(const ts_nemesis *n);
bool ts_nemesis_power_loss(const ts_nemesis *n);

/* One kill run's plan. */
typedef struct ts_kill_plan {
    long point;              /* the point, as the uninterrupted run numbered it; 0: no kill */
    uint64_t store_op;       /* > 0: the point follows this store operation of the run (armed) */
    char crash_state[48];    /* "": the process is killed; else the power-loss state written then */
    long killed_as;          /* with a crash state: the point of the killed-process run that is this kill
                              * (the point itself, or the one its kill was merged into); 0: none made */
} ts_kill_plan;

/* A run begins with plan (NULL: none), its store the directory `name` under the case's, made
 * empty; its path into store. False with a reason when it cannot be made. */
bool ts_nemesis_begin_run(ts_nemesis *n, const char *name, const ts_kill_plan *plan, char *store, size_t store_size,
                          char *why, size_t why_size);

/* At a line the testee wrote (a world call when is_call, else an answer): the store operations
 * that came before it are recorded as events (each change a point); a world call is then point
 * *point. True when the plan kills the testee there, before its reply. */
bool ts_nemesis_at_line(ts_nemesis *n, const ts_nemesis_observed *observed, bool is_call, long *point);

/* The testee died during an action (killed_at_line: the world killed it at a point this
 * nemesis chose). Records the rest of the store's operations; when the death is the plan's kill
 * (at a line, or at an armed store operation), records it and, for a power loss, writes the
 * crash state into the store. True when the death was the nemesis' (then the world restarts
 * the testee and recovers); false when the testee died on its own. */
bool ts_nemesis_after_death(ts_nemesis *n, const ts_nemesis_observed *observed, bool killed_at_line);

/* A clean restart (the world stopped the testee): what the store holds is what the next start finds. */
void ts_nemesis_restarted(ts_nemesis *n, const ts_nemesis_observed *observed);

/* The point the plan's kill fell at in this run (0: it did not happen). */
long ts_nemesis_kill_point(const ts_nemesis *n);

/* Why the plan's power loss could not be made in this run (the run took another course than
 * the uninterrupted one, or the state could not be written), or NULL: such a run is not judged. */
const char *ts_nemesis_unmade(const ts_nemesis *n);

/* The run is over: the store's last operations recorded. */
void ts_nemesis_end_run(ts_nemesis *n, const ts_nemesis_observed *observed);

/* Writes the run's faults as members of its JSON object, after its "kill" member: "crash"
 * ({"state", "description", "killedAs"}) for a power loss, and with the observer the run's
 * "storeOperations". */
void ts_nemesis_describe_run(const ts_nemesis *n, ts_json_writer *out);

/* The points of the last run, and for each the kill plans to try there: a killed process, and
 * each power-loss crash state (when observing). Experiments that are the same — the same
 * action, lines and answer seen, the same store changes or crash state — are planned once:
 * *merged counts the rest. Plans come in point order; returns how many (out: malloc'd, freed by
 * the caller). */
size_t ts_nemesis_plans(const ts_nemesis *n, bool exact, ts_kill_plan **out, size_t *merged);

/* Points of the last run by kind (protocol lines, store operations) and its store operations. */
void ts_nemesis_counts(const ts_nemesis *n, long *protocol_points, long *store_points, uint64_t *store_operations);

/* The plan for point p (and crash state, or NULL) of the last run; false when it has no such. */
bool ts_nemesis_plan_for(const ts_nemesis *n, long point, const char *crash_state, ts_kill_plan *out);

/* What the observer saw and could not follow in any run of the case ("" nothing; borrowed). */
const char *ts_nemesis_warnings(const ts_nemesis *n);

/* What the last run offered to those warnings, each piece NUL-terminated, in order (borrowed):
 * merged into a case's warnings with ts_nemesis_merge_warning, run after run, they give what
 * ts_nemesis_warnings gives when one nemesis plays every run (for runs played apart). */
const ts_buf *ts_nemesis_run_warnings(const ts_nemesis *n);
void ts_nemesis_merge_warning(ts_buf *warnings, const char *piece);

#endif
