/* gate.c — expected failures per (case, rule); see gate.h. */
#include "conformance/certifier/gate.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/findings.h"

size_t ts_gate_failing_keys(const ts_case_result *r, const char **keys, size_t max) {
    size_t n = 0;
    if (r->verdict == TS_VERDICT_ERROR) {
        if (max) keys[n++] = r->outcome;
        return n;
    }
    if (r->verdict != TS_VERDICT_FAIL) return 0;
    for (size_t i = 0; i < r->findings.count && n < max; i++) {
        const ts_rule_info *info = ts_rule_find(r->findings.items[i].rule);
        if (info && info->level != TS_LEVEL_REQUIRED) continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++) seen = strcmp(keys[k], r->findings.items[i].rule) == 0;
        if (!seen) keys[n++] = r->findings.items[i].rule;
    }
    return n;
}

bool ts_expected_failures_load(const char *path, ts_expected_failures *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_size, "%s: cannot read the expected-failures file", path);
        return false;
    }
    char line[2048];
    size_t cap = 0;
    int number = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *fields[3] = {NULL, NULL, NULL};
        size_t n = 0;
        for (char *tok = strtok(line, " \t\r\n"); tok && n < 3; tok = strtok(NULL, " \t\r\n")) fields[n++] = tok;
        if (n == 0) continue;
        if (n != 2) {
            snprintf(why, why_size,
                     "%s:%d: expected 'CASE RULE' (RULE may be a pattern such as '*'), got %s field%s; "
                     "turnstile certify --write-expected-failures FILE writes such a list",
                     path, number, n == 1 ? "one" : "more than two", n == 1 ? "" : "s");
            ok = false;
            break;
        }
        if (out->count == cap) {
            cap = cap ? cap * 2 : 32;
            ts_expected_entry *grown = realloc(out->entries, cap * sizeof *grown);
            if (!grown) {
                snprintf(why, why_size, "%s: out of memory", path);
                ok = false;
                break;
            }
            out->entries = grown;
        }
        ts_expected_entry *e = &out->entries[out->count++];
        e->case_pattern = strdup(fields[0]);
        e->rule_pattern = strdup(fields[1]);
        e->line = number;
        if (!e->case_pattern || !e->rule_pattern) {
            snprintf(why, why_size, "%s: out of memory", path);
            ok = false;
        }
    }
    if (ok && ferror(f)) {
        snprintf(why, why_size, "%s: read error", path);
        ok = false;
    }
    fclose(f);
    if (!ok) ts_expected_failures_free(out);
    return ok;
}

void ts_expected_failures_free(ts_expected_failures *e) {
    if (!e) return;
    for (size_t i = 0; i < e->count; i++) {
        free(e->entries[i].case_pattern);
        free(e->entries[i].rule_pattern);
    }
    free(e->entries);
    memset(e, 0, sizeof *e);
}

static const char *const harness_outcomes[] = {"timeout", "crashed", "exited", "protocol-error", "unavailable"};

/* Does the entry's rule pattern name some rule or harness outcome at all? */
static bool names_a_key(const ts_expected_entry *e) {
    for (size_t k = 0; k < ts_rule_count; k++)
        if (fnmatch(e->rule_pattern, ts_rules[k].id, 0) == 0) return true;
    for (size_t k = 0; k < sizeof harness_outcomes / sizeof *harness_outcomes; k++)
        if (fnmatch(e->rule_pattern, harness_outcomes[k], 0) == 0) return true;
    return false;
}

/* Was every rule the entry names judged in this run (--rules may have left some out)? */
static bool fully_judged(const ts_expected_entry *e, const ts_run_options *options) {
    for (size_t k = 0; k < ts_rule_count; k++)
        if (fnmatch(e->rule_pattern, ts_rules[k].id, 0) == 0 && !ts_run_rule_selected(options, ts_rules[k].id)) return false;
    return true;
}

static bool covers(const ts_expected_entry *e, const char *case_id, const char *key) {
    return fnmatch(e->case_pattern, case_id, 0) == 0 && fnmatch(e->rule_pattern, key, 0) == 0;
}

enum { MAX_KEYS = 64 };

bool ts_gate_apply(const ts_expected_failures *e, ts_certification *c, FILE *out, const char *rewrite_command,
                   ts_gate_counts *counts) {
    memset(counts, 0, sizeof *counts);
    for (size_t i = 0; i < c->count; i++) {
        ts_case_result *r = &c->results[i];
        r->expected = false;
        if (r->apart) continue;
        const char *keys[MAX_KEYS];
        size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS);
        size_t listed = 0;
        for (size_t k = 0; k < n; k++) {
            bool covered = false;
            for (size_t x = 0; x < e->count && !covered; x++) covered = covers(&e->entries[x], r->c->id, keys[k]);
            if (covered) listed++;
            else fprintf(out, "NEW FAILURE     %s %s (not in the expected-failures list)\n", r->c->id, keys[k]);
        }
        if (n && listed == n) {
            r->expected = true;
            counts->expected++;
        } else if (n) {
            counts->new_failures++;
        }
    }
    for (size_t x = 0; x < e->count; x++) {
        const ts_expected_entry *entry = &e->entries[x];
        bool in_suite = false;
        for (size_t i = 0; c->suite && i < c->suite->count && !in_suite; i++)
            in_suite = fnmatch(entry->case_pattern, c->suite->cases[i].id, 0) == 0;
        if (!in_suite || !names_a_key(entry)) {
            fprintf(out, "STALE ENTRY     %s %s (line %d: names no %s of the suite)\n", entry->case_pattern,
                    entry->rule_pattern, entry->line, in_suite ? "rule" : "case");
            counts->stale++;
            continue;
        }
        if (!fully_judged(entry, c->options)) continue;
        for (size_t i = 0; i < c->count; i++) {
            const ts_case_result *r = &c->results[i];
            if (r->apart || r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_UNDECIDED ||
                fnmatch(entry->case_pattern, r->c->id, 0) != 0)
                continue;
            const char *keys[MAX_KEYS];
            size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS);
            bool fails = false;
            for (size_t k = 0; k < n && !fails; k++) fails = fnmatch(entry->rule_pattern, keys[k], 0) == 0;
            if (fails) continue;
            fprintf(out, "UNEXPECTED PASS %s %s (line %d lists it as failing: remove or narrow the entry)\n", r->c->id,
                    entry->rule_pattern, entry->line);
            counts->unexpected_passes++;
        }
    }
    bool ok = counts->new_failures == 0 && counts->unexpected_passes == 0 && counts->stale == 0;
    if (!ok) fprintf(out, "to accept the current failures: %s\n", rewrite_command);
    else fprintf(out, "expected failures: the run matches the list (%zu entries, %zu cases fail as expected)\n", e->count,
                 counts->expected);
    return ok;
}

bool ts_expected_failures_write(FILE *f, const ts_certification *c) {
    fprintf(f, "# turnstile certify expected failures: CASE RULE per line (fnmatch patterns; RULE '*' is any rule,\n"
               "# a harness outcome such as 'timeout' is a rule here). Testee: %s%s%s%s%s\n",
            c->testee_name ? c->testee_name : c->testee, c->testee_version ? " " : "",
            c->testee_version ? c->testee_version : "", c->suite ? ", suite " : "", c->suite ? c->suite->version : "");
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart) continue;
        const char *keys[MAX_KEYS];
        size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS);
        for (size_t k = 0; k < n; k++) {
            char brief[110] = "";
            if (r->verdict == TS_VERDICT_ERROR) snprintf(brief, sizeof brief, "%.100s", r->detail);
            for (size_t m = 0; m < r->findings.count && !brief[0]; m++)
                if (strcmp(r->findings.items[m].rule, keys[k]) == 0) snprintf(brief, sizeof brief, "%s", r->findings.items[m].message);
            for (char *p = brief; *p; p++)
                if (*p == '\n' || *p == '\r') *p = ' ';
            fprintf(f, "%s %s  # %s\n", r->c->id, keys[k], brief);
        }
    }
    return fflush(f) == 0 && !ferror(f);
}
