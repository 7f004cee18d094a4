/* world.h — the world of a resume case (PROTOCOL.md `resume`): what the certifier plays and the
 * record of what it saw, decided from the scenario and from the testee's own lines — never from
 * the expectation the judge holds (conformance/checkers), so a mistake there cannot steer the
 * run it judges.
 *
 * Owns: the client's side of a run — the requests (the case's id, the run's store, the thread, the
 * tool catalogue, each action as JSON: a user message, a result, an edit or a fork), sending the
 * scenario's actions in order, a clean restart where the scenario has one, and after a kill the
 * client's retry: recover, read, and send the interrupted action again when its effect is not in
 * the stored conversation; the reply to each world call (llm[k] for a view holding k assistant
 * messages — after a branch, counted from the branch's first answer —, an error past the script; a tool's
 * scripted result, error or pending; an ack to a commit notice); and the run's events — every
 * action sent, line read with its reply, kill, restart, store operation and harness outcome —
 * which are the history the judge reads. Where and how to kill is the nemesis' (nemesis.h),
 * which the run asks at every line and after every death, showing it what it observed (the
 * action in flight, whether its answer came) and where the nemesis' events go: the world
 * includes the nemesis, never the reverse.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_WORLD_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_WORLD_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"
#include "core/json/buf.h"
#include "core/resume/scenario.h"

typedef struct ts_case_world ts_case_world;
typedef struct ts_nemesis ts_nemesis;

/* A world for case c (borrowed; it must outlive the world). NULL with a reason when the
 * scenario gives no actions a client can send (or out of memory). */
ts_case_world *ts_case_world_new(const ts_case *c, char *why, size_t why_size);
void ts_case_world_free(ts_case_world *w); /* accepts NULL */

/* Does some action need an asynchronous tool (a `complete`)? */
bool ts_case_world_needs_async(const ts_case_world *w);

/* What a testee's hello says it can do to a conversation (PROTOCOL.md `resume`, "branch"):
 * edit a user message, fork at an earlier point, and show every branch it keeps (a history read). */
enum { TS_BRANCH_EDIT = 1, TS_BRANCH_FORK = 2, TS_BRANCH_HISTORY = 4 };

/* The branch kinds the case's actions need (TS_BRANCH_EDIT | TS_BRANCH_FORK), 0 for none. */
unsigned ts_case_world_needs_branch(const ts_case_world *w);

/* What the testee supports (hello): with TS_BRANCH_HISTORY, a run that branches ends with a
 * history read ({"read": true, "history": true}) after its last read. */
void ts_case_world_set_branch(ts_case_world *w, unsigned supported);

/* The case's bounds: world calls and commit notices per action, the case's deadline
 * (ts_testee_clock seconds, 0 none), and the history's size. Each, when reached, ends the run
 * and the case with a harness outcome ("point-limit", "case-timeout", "history-limit"); so does
 * a timeout the host's load caused ("overloaded": testee.h, ts_call_result.loaded). */
void ts_case_world_set_bounds(ts_case_world *w, long max_points_per_action, double deadline);

/* How a run ended. */
typedef struct ts_case_run_outcome {
    bool unsupported;       /* the testee answered the first action `unsupported` */
    bool aborted;           /* a harness outcome ended it (outcome, detail) */
    const char *outcome;
    char detail[400];
    const char *limit;      /* a bound of the case was reached (then aborted too) */
} ts_case_run_outcome;

/* One run from an empty store (store: its path, which the testee is told), the nemesis asked at
 * every line and death. Writes the run's JSON ({"kill": the point the nemesis killed at or null,
 * its faults, "events": [...]}) into out (reset first). */
void ts_case_world_run_case(ts_case_world *w, ts_testee *testee, ts_nemesis *nemesis, const char *store, ts_buf *out,
                       ts_case_run_outcome *run);

/* Pipelined world calls (PROTOCOL.md: a line written before the reply to the one before was sent),
 * over every run of the case so far. Once seen, a kill waits for the testee to settle first (unless
 * --kill-settle says otherwise): three times its slowest step of silence, 0.2 to 5 s, within the
 * case's deadline. */
typedef struct ts_case_pipelining {
    long lines;                 /* pipelined lines seen; 0: none */
    double slowest_step_seconds;/* the longest the testee was silent after a reply, before its next line */
    long settled_kills;         /* kills at a point that waited for silence first */
    long kill_settle_ms;        /* the --kill-settle the testee needs (what automatic settling waits); 0 when none seen */
} ts_case_pipelining;
void ts_case_world_pipelining(const ts_case_world *w, ts_case_pipelining *out);

/* Did the run just played end its kill at a point without settling first? */
bool ts_case_world_unsettled_kill(const ts_case_world *w);

#endif
