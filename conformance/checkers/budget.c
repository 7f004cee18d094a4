/* budget.c — the judging budget and its meter; see budget.h. */
#include "conformance/checkers/budget.h"

#include <stdio.h>
#include <time.h>

enum { CLOCK_EVERY = 1024 };

static double cpu_seconds(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

ts_judge_budget ts_judge_budget_resolve(const ts_judge_budget *budget) {
    ts_judge_budget b = budget ? *budget : (ts_judge_budget){0, 0};
    if (b.states == 0) b.states = TS_JUDGE_DEFAULT_STATES;
    if (!(b.seconds > 0)) b.seconds = TS_JUDGE_DEFAULT_SECONDS;
    return b;
}

void ts_judge_meter_start(ts_judge_meter *meter, const ts_judge_budget *budget, size_t straight) {
    ts_judge_budget b = ts_judge_budget_resolve(budget);
    unsigned long long base = (unsigned long long)straight;
    meter->limit = b.states > TS_JUDGE_UNLIMITED_STATES - base ? TS_JUDGE_UNLIMITED_STATES : base + b.states;
    meter->spent = 0;
    meter->deadline = b.seconds >= TS_JUDGE_UNLIMITED_SECONDS ? b.seconds : cpu_seconds() + b.seconds;
    meter->ticks = 0;
    meter->exhausted = false;
}

bool ts_judge_meter_spend(ts_judge_meter *meter, bool state) {
    if (meter->exhausted) return false;
    if (state && ++meter->spent > meter->limit) meter->exhausted = true;
    if (++meter->ticks >= CLOCK_EVERY) {
        meter->ticks = 0;
        if (meter->deadline < TS_JUDGE_UNLIMITED_SECONDS && cpu_seconds() > meter->deadline) meter->exhausted = true;
    }
    return !meter->exhausted;
}

void ts_judge_budget_describe(const ts_judge_budget *budget, char *out, size_t size) {
    ts_judge_budget b = ts_judge_budget_resolve(budget);
    char states[40], seconds[40];
    if (b.states == TS_JUDGE_UNLIMITED_STATES) snprintf(states, sizeof states, "no limit on states");
    else snprintf(states, sizeof states, "%llu states", b.states);
    if (b.seconds >= TS_JUDGE_UNLIMITED_SECONDS) snprintf(seconds, sizeof seconds, "no limit on time");
    else snprintf(seconds, sizeof seconds, "%g CPU s", b.seconds);
    snprintf(out, size,
             "undecided: the search for an allowed arrangement of the response groups ran out of its budget "
             "(%s beyond one per group, %s; --judge-states, --judge-seconds raise it)",
             states, seconds);
}
