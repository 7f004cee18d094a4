/* budget.h — how much a merge check may spend deciding an answer's messages.
 *
 * Owns: the judging budget and its clock, and how a check judged within it ended. Deciding whether an answer's messages are an
 * arrangement of the response groups is NP-complete (DESIGN.md §4), so the one step that can
 * grow beyond polynomial — the decider's search — runs under a budget set in advance: a number
 * of search states beyond the straight path (one per response group, plus the root) and CPU
 * seconds. The states count is a function of the input and the answer alone (the search is
 * canonical: shuffling the arrival of the groups changes nothing), so a budget of states gives
 * the same outcome on every machine; the seconds are a last guard against a slow machine.
 * When either runs out the decision is `undecided`: never a pass, never a failure.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_BUDGET_H
#define TURNSTILE_CONFORMANCE_CHECKERS_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

/* How a check judged within a budget ended. OUT_OF_MEMORY is 0, so `!status` reads "memory ran
 * out". */
typedef enum ts_check_status {
    TS_CHECK_OUT_OF_MEMORY = 0, /* the findings are incomplete */
    TS_CHECK_DECIDED,           /* every rule decided: the findings are the verdict */
    TS_CHECK_UNDECIDED,         /* the messages' arrangement was not decided within the budget */
} ts_check_status;

/* Zero in a field means its default; TS_JUDGE_UNLIMITED_STATES / TS_JUDGE_UNLIMITED_SECONDS
 * mean no limit. */
typedef struct ts_judge_budget {
    unsigned long long states; /* search states beyond one per response group */
    double seconds;            /* CPU seconds of the search */
} ts_judge_budget;

#define TS_JUDGE_DEFAULT_STATES 1000000ULL
#define TS_JUDGE_DEFAULT_SECONDS 10.0
#define TS_JUDGE_UNLIMITED_STATES (~0ULL)
#define TS_JUDGE_UNLIMITED_SECONDS 1e300

/* The budget with defaults filled in (budget may be NULL: every default). */
ts_judge_budget ts_judge_budget_resolve(const ts_judge_budget *budget);

/* Writes one line saying that judging ran out of budget (the budget's figures, and the
 * options that raise it) into out. */
void ts_judge_budget_describe(const ts_judge_budget *budget, char *out, size_t size);

/* A running search's account: states spent against the budget, and its CPU clock. */
typedef struct ts_judge_meter {
    unsigned long long limit;  /* states allowed in all (straight path included) */
    unsigned long long spent;
    double deadline;           /* on the process CPU clock */
    unsigned ticks;            /* work since the clock was last read */
    bool exhausted;
} ts_judge_meter;

/* Starts an account for a search whose straight path has `straight` states. */
void ts_judge_meter_start(ts_judge_meter *meter, const ts_judge_budget *budget, size_t straight);

/* Counts one state (or, with state false, one unit of other work); returns false once the
 * budget is exhausted (and from then on). The clock is read every 1024 calls. */
bool ts_judge_meter_spend(ts_judge_meter *meter, bool state);

#endif
