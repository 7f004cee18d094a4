/* resume_judge.h — one run of a resume case being judged, shared by the modules of the universal
 * rules: the events, statuses and invocations in resume_checks.c, the observed conversations
 * (sightings, U4, U9's form, and the branch rules U12-U15) in resume_observe.c. Nothing outside
 * them includes it.
 *
 * Items are followed by their identity across the branches of the case (resume_expect.h): an
 * assistant item by the model answer llm[g] it stands for, a user item by the action that sent
 * it, a result by its call (answer g, call p).
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_RESUME_JUDGE_H
#define TURNSTILE_CONFORMANCE_CHECKERS_RESUME_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/resume/resume_expect.h"
#include "conformance/checkers/resume/resume_match.h"
#include "core/json/buf.h"
#include "core/json/strmap.h"

enum { MAX_INVOCATIONS = 8, MAX_TENTATIVE = 16 };

/* An item's identity: an answer g (and its call p, for a result), or a user message's action. */
typedef struct ident {
    enum { IDENT_NONE, IDENT_ASSISTANT, IDENT_USER, IDENT_RESULT } kind;
    size_t id;      /* answer g, or action */
    size_t call;    /* result: the call's position in answer g */
} ident;

/* What was last seen of one identity: its message's id and timestamp, and when. */
typedef struct sighting {
    bool seen;
    ts_str message_id, created_at;
    size_t event;
    size_t made;        /* the last event that produced it again (a model or tool call, a re-sent action) */
} sighting;

typedef struct invocations {
    size_t count;
    long points[MAX_INVOCATIONS];
    long window_end[MAX_INVOCATIONS]; /* the first protocol point after it (0: none yet) */
} invocations;

typedef struct run_judge {
    const ts_scenario *scenario;
    const ts_expected *x;
    ts_arena *arena;
    ts_findings *f;            /* this run's findings */
    long kill_point;           /* 0: an uninterrupted run */
    sighting *assistants, *users, **results; /* per answer; per action; per answer, per call */
    invocations **calls;       /* per answer, per call */
    size_t *model_asks;        /* per answer */
    bool *held;                /* per answer: the last read holds its assistant message */
    long max_reply;            /* the highest llm index answered so far */
    long in_flight;            /* the scenario action sent and not answered, or -1 */
    long interrupted;          /* the scenario action a kill interrupted, or -1 */
    long effective;            /* the last scenario action known to have taken effect, or -1 */
    bool reading, history_read, recovering, judge_recover_status;
    char action[160];          /* the last action sent, for findings */
    ts_str recover_status;
    ts_buf final_form;         /* the last read's conversation as U9 compares it (conversation_form) */
    char kill_what[160];
    char crash[200];           /* a power-loss run: its crash state and what it lost ("" a killed process) */
    bool power_loss_claimed;   /* the testee claims power-loss durability: U11 findings are U9's */
    long killed_as;            /* a power-loss run: the killed-process run that is its kill ("killedAs"), or 0 */
    struct ts_resume_judge *owner; /* the case's judge: what earlier runs of the case re-ran */
    bool stopped;
    /* branches */
    long last_branch;          /* the last edit or fork (not refused) sent, or -1 */
    ts_strmap ids;             /* U13: a messageId seen on a user or assistant item -> its identity code */
    ident tentative[MAX_TENTATIVE]; /* calls run while an interrupted branch was undecided */
    long tentative_points[MAX_TENTATIVE];
    size_t tentative_count;
} run_judge;

/* resume_observe.c */
sighting *rj_sighting(run_judge *j, ident id);
void rj_made(run_judge *j, ident id, size_t event);
/* The epoch the conversation is known to be in: the one the last effective action left. */
size_t rj_epoch_done(const run_judge *j);
/* The branch (edit or fork, not refused) sent and not yet known to have taken effect, or -1. */
long rj_branch_undecided(const run_judge *j);
/* A conversation the testee showed (a model view or a read): judged against its epoch's X, then
 * sighted. *asked (may be NULL): for a view, the answer llm[g] the model is asked for by the
 * judge's own count (the epoch's next assistant item), or -1 past its X. false: out of memory or
 * no ChatMessage JSON (a finding). */
bool rj_observe_conversation(run_judge *j, const ts_json *messages, ts_match_mode mode, size_t event, const char *where,
                             long *asked);
/* U13: the answer to a history read holds every message of an abandoned branch as it was seen. */
void rj_judge_history(run_judge *j, const ts_json *answer, const char *where);
/* The branch took effect or did not (decided by the read after a recovery): the calls run while it
 * was undecided are judged (U14) or counted as any other run. */
void rj_settle_tentative(run_judge *j, bool branch_took);
void rj_count_invocation(run_judge *j, ident call, long point);

#endif
