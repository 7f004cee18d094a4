/* run_options.c — a run's selection, a case's bounds, the names of verdicts and outcomes; see
 * run_options.h. */
#include "conformance/certifier/run_options.h"

#include <fnmatch.h>
#include <string.h>

const char *ts_verdict_name(ts_verdict verdict) {
    switch (verdict) {
    case TS_VERDICT_PASS: return "pass";
    case TS_VERDICT_FAIL: return "fail";
    case TS_VERDICT_SKIPPED: return "skipped";
    case TS_VERDICT_ERROR: return "error";
    case TS_VERDICT_UNDECIDED: return "undecided";
    }
    return "?";
}

const char *const ts_run_platforms[] = {"dotnet", NULL};

bool ts_run_platform_known(const char *name) {
    for (size_t i = 0; ts_run_platforms[i]; i++)
        if (strcmp(ts_run_platforms[i], name) == 0) return true;
    return false;
}

const char *ts_run_case_apart(const ts_run_options *options, const ts_case *c) {
    if (!options || !options->platform || strcmp(options->platform, "dotnet") != 0) return NULL;
    /* .NET's System.Text.Json: DateTimeOffset holds ±14:00 at most; AIContent's polymorphism
     * throws on an unknown "$type". */
    return c->tag_count ? c->tags[0] : NULL;
}

double ts_run_case_timeout(const ts_run_options *options) {
    if (!options || options->case_timeout == 0) return TS_RUN_CASE_TIMEOUT;
    return options->case_timeout < 0 ? 0 : options->case_timeout;
}

bool ts_run_rule_selected(const ts_run_options *options, const char *rule) {
    if (!options || !options->rules) return true;
    for (size_t i = 0; i < options->rule_count; i++)
        if (strcmp(options->rules[i], rule) == 0) return true;
    return false;
}

bool ts_run_case_selected(const ts_run_options *options, const ts_case *c) {
    if (options->case_globs) {
        bool any = false;
        for (size_t i = 0; i < options->glob_count && !any; i++) any = fnmatch(options->case_globs[i], c->id, 0) == 0;
        if (!any) return false;
    }
    if (options->rules) { /* a case is selected when it exercises one of the selected rules */
        for (size_t r = 0; r < c->rule_count; r++)
            if (ts_run_rule_selected(options, c->rules[r])) return true;
        return false;
    }
    return true;
}

const char *ts_run_outcome_static(const char *name) {
    static const char *const known[] = {"answered", "unsupported", "rejected", "timeout", "crashed", "exited",
                                        "protocol-error", "unavailable", "case-timeout", "point-limit", "history-limit",
                                        "store-limit", "bad-case", "no-such-kill-point", "overloaded",
                                        "undecided", "out-of-memory"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(known[i], name) == 0) return known[i];
    return "error";
}

size_t ts_run_shard_cases(const ts_suite *suite, const ts_run_options *options, const ts_case **out, size_t *selected) {
    size_t n = 0, resume = 0, other = 0, all = 0;
    for (size_t i = 0; i < suite->count; i++) {
        const ts_case *c = &suite->cases[i];
        if (!ts_run_case_selected(options, c)) continue;
        all++;
        size_t *k = strcmp(c->op, "resume") == 0 ? &resume : &other;
        bool mine = options->shard_count <= 1 || (int)(*k % (size_t)options->shard_count) == options->shard_index - 1;
        (*k)++;
        if (!mine) continue;
        if (out) out[n] = c;
        n++;
    }
    if (selected) *selected = all;
    return n;
}
