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
        if (!ts_rule_fails(r->findings.items[i].rule)) continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++) seen = strcmp(keys[k], r->findings.items[i].rule) == 0;
        if (!seen) keys[n++] = r->findings.items[i].rule;
    }
    return n;
}

static bool out_of_memory(const char *path, char *why, size_t why_size) {
    snprintf(why, why_size, "%s: out of memory", path);
    return false;
}

/* Appends one line (len bytes, its newline gone) to out, and its entry when it holds one. */
static bool add_line(ts_expected_failures *out, size_t *line_cap, size_t *entry_cap, const char *path, int number,
                     const char *text, size_t len, char *why, size_t why_size) {
    if (out->line_count == *line_cap) {
        size_t cap = *line_cap ? *line_cap * 2 : 64;
        char **grown = realloc(out->lines, cap * sizeof *grown);
        if (!grown) return out_of_memory(path, why, why_size);
        out->lines = grown;
        *line_cap = cap;
    }
    char *raw = malloc(len + 1), *work = malloc(len + 1);
    if (!raw || !work) {
        free(raw);
        free(work);
        return out_of_memory(path, why, why_size);
    }
    memcpy(raw, text, len);
    raw[len] = '\0';
    out->lines[out->line_count++] = raw;
    memcpy(work, text, len);
    work[len] = '\0';
    char *hash = strchr(work, '#');
    if (hash) *hash = '\0';
    char *fields[3] = {NULL, NULL, NULL};
    size_t n = 0;
    for (char *tok = strtok(work, " \t\r"); tok && n < 3; tok = strtok(NULL, " \t\r")) fields[n++] = tok;
    bool ok = true;
    if (n != 0 && n != 2) {
        snprintf(why, why_size,
                 "%s:%d: expected 'CASE RULE' (RULE may be a pattern such as '*'), got %s field%s; "
                 "turnstile certify --write-expected-failures FILE writes such a list",
                 path, number, n == 1 ? "one" : "more than two", n == 1 ? "" : "s");
        ok = false;
    } else if (n == 2 && out->count == *entry_cap) {
        size_t cap = *entry_cap ? *entry_cap * 2 : 32;
        ts_expected_entry *grown = realloc(out->entries, cap * sizeof *grown);
        if (grown) out->entries = grown, *entry_cap = cap;
        else ok = false, snprintf(why, why_size, "%s: out of memory", path);
    }
    if (ok && n == 2) {
        ts_expected_entry *e = &out->entries[out->count++];
        memset(e, 0, sizeof *e);
        e->case_pattern = strdup(fields[0]);
        e->rule_pattern = strdup(fields[1]);
        e->line = number;
        char where[300];
        if (!e->case_pattern || !e->rule_pattern) ok = false, snprintf(why, why_size, "%s: out of memory", path);
        else if (hash && !ts_failure_classes_parse(raw, (size_t)(hash - work), number, &e->classes, where, sizeof where))
            ok = false, snprintf(why, why_size, "%s:%s", path, where);
    }
    free(work);
    return ok;
}

bool ts_expected_failures_load(const char *path, ts_expected_failures *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s: cannot read the expected-failures file", path);
        return false;
    }
    char chunk[65536], line[TS_EXPECTED_MAX_LINE + 1];
    size_t len = 0, total = 0, line_cap = 0, entry_cap = 0, n;
    int number = 1;
    bool ok = true, pending = false;
    while (ok && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if ((total += n) > TS_EXPECTED_MAX_BYTES) {
            snprintf(why, why_size, "%s: longer than %d bytes: not an expected-failures list", path, TS_EXPECTED_MAX_BYTES);
            ok = false;
        }
        for (size_t i = 0; ok && i < n; i++) {
            char ch = chunk[i];
            if (ch == '\n') {
                ok = add_line(out, &line_cap, &entry_cap, path, number++, line, len, why, why_size);
                len = 0;
                pending = false;
            } else if (ch == '\0') {
                snprintf(why, why_size, "%s:%d: a NUL byte: not an expected-failures list", path, number);
                ok = false;
            } else if (len == TS_EXPECTED_MAX_LINE) {
                snprintf(why, why_size, "%s:%d: a line longer than %d bytes", path, number, TS_EXPECTED_MAX_LINE);
                ok = false;
            } else {
                line[len++] = ch;
                pending = true;
            }
        }
    }
    if (ok && ferror(f)) {
        snprintf(why, why_size, "%s: read error", path);
        ok = false;
    }
    if (ok && pending) ok = add_line(out, &line_cap, &entry_cap, path, number, line, len, why, why_size);
    fclose(f);
    if (!ok) ts_expected_failures_free(out);
    return ok;
}

void ts_expected_failures_free(ts_expected_failures *e) {
    if (!e) return;
    for (size_t i = 0; i < e->count; i++) {
        free(e->entries[i].case_pattern);
        free(e->entries[i].rule_pattern);
        ts_failure_classes_free(&e->entries[i].classes);
    }
    free(e->entries);
    for (size_t i = 0; i < e->line_count; i++) free(e->lines[i]);
    free(e->lines);
    memset(e, 0, sizeof *e);
}

/* Every harness outcome a case can end with (run.c, resume_run.c, testee.c): keys of a list. */
static const char *const harness_outcomes[] = {"timeout",      "crashed",      "exited",        "protocol-error",
                                               "unavailable",  "case-timeout", "point-limit",   "history-limit",
                                               "store-limit",  "bad-case",     "no-such-kill-point", "overloaded"};

/* Does the entry's rule pattern name some rule or harness outcome at all? */
static bool names_a_key(const ts_expected_entry *e) {
    for (size_t k = 0; k < ts_rule_count; k++)
        if (fnmatch(e->rule_pattern, ts_rules[k].id, 0) == 0) return true;
    for (size_t k = 0; k < sizeof harness_outcomes / sizeof *harness_outcomes; k++)
        if (fnmatch(e->rule_pattern, harness_outcomes[k], 0) == 0) return true;
    return false;
}

/* Does the entry name some case of the suite? */
static bool names_a_case(const ts_expected_entry *e, const ts_certification *c) {
    for (size_t i = 0; c->suite && i < c->suite->count; i++)
        if (fnmatch(e->case_pattern, c->suite->cases[i].id, 0) == 0) return true;
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

const ts_failure_classes *ts_expected_failures_classes(const ts_expected_failures *e, const char *case_id, const char *rule) {
    for (size_t i = 0; e && i < e->count; i++)
        if (e->entries[i].classes.count && covers(&e->entries[i], case_id, rule)) return &e->entries[i].classes;
    return NULL;
}

void ts_gate_class_json(ts_json_writer *w, const ts_expected_failures *e, const char *case_id, const char *rule) {
    const ts_failure_classes *classes = ts_expected_failures_classes(e, case_id, rule);
    if (!classes) return;
    ts_jw_key(w, "class");
    ts_failure_classes_json(w, classes);
}

enum { MAX_KEYS = 64 };

/* The run's verdict on an entry that is not stale: how many of its cases were judged (ran, not
 * set apart nor skipped), how many of those fail a key it names, and the first judged one. */
static void judge_entry(const ts_expected_entry *e, const ts_certification *c, size_t *judged, size_t *failing,
                        const char **first) {
    *judged = *failing = 0;
    *first = NULL;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart || r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_UNDECIDED ||
            fnmatch(e->case_pattern, r->c->id, 0) != 0)
            continue;
        if (!(*judged)++) *first = r->c->id;
        const char *keys[MAX_KEYS];
        size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS);
        bool fails = false;
        for (size_t k = 0; k < n && !fails; k++) fails = fnmatch(e->rule_pattern, keys[k], 0) == 0;
        *failing += fails;
    }
}

bool ts_gate_case_expected(const ts_expected_failures *e, const ts_case_result *r) {
    if (!e || r->apart) return false;
    const char *keys[MAX_KEYS];
    size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS), listed = 0;
    for (size_t k = 0; k < n; k++) {
        bool covered = false;
        for (size_t x = 0; x < e->count && !covered; x++) covered = covers(&e->entries[x], r->c->id, keys[k]);
        listed += covered;
    }
    return n && listed == n;
}

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
        bool in_suite = names_a_case(entry, c);
        if (!in_suite || !names_a_key(entry)) {
            fprintf(out, "STALE ENTRY     %s %s (line %d: names no %s of the suite)\n", entry->case_pattern,
                    entry->rule_pattern, entry->line, in_suite ? "rule" : "case");
            counts->stale++;
            continue;
        }
        if (!fully_judged(entry, c->options)) continue;
        size_t judged, failing;
        const char *first;
        judge_entry(entry, c, &judged, &failing, &first);
        if (!judged || failing) continue;
        if (judged == 1)
            fprintf(out, "UNEXPECTED PASS %s %s (line %d lists it as failing: remove or narrow the entry)\n", first,
                    entry->rule_pattern, entry->line);
        else
            fprintf(out, "UNEXPECTED PASS %s %s (line %d: none of the %zu cases it names fails: remove or narrow the entry)\n",
                    entry->case_pattern, entry->rule_pattern, entry->line, judged);
        counts->unexpected_passes++;
    }
    bool ok = counts->new_failures == 0 && counts->unexpected_passes == 0 && counts->stale == 0;
    if (!ok) fprintf(out, "to accept the current failures: %s\n", rewrite_command);
    else fprintf(out, "expected failures: the run matches the list (%zu entries, %zu cases fail as expected)\n", e->count,
                 counts->expected);
    return ok;
}

/* Does the rewrite keep this entry? Stale ones and those whose judged cases all pass go. */
static bool keeps(const ts_expected_entry *e, const ts_certification *c) {
    if (!names_a_case(e, c) || !names_a_key(e)) return false;
    if (!fully_judged(e, c->options)) return true;
    size_t judged, failing;
    const char *first;
    judge_entry(e, c, &judged, &failing, &first);
    return !judged || failing;
}

/* Text the testee chose (its hello name), in a comment: control characters become spaces, so
 * that it stays one comment line. */
static void put_one_line(FILE *f, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
}

/* "CASE KEY  # what failed" for every failing key that no kept entry covers. */
static void write_new_failures(FILE *f, const ts_certification *c, const ts_expected_failures *base, const bool *kept) {
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart) continue;
        const char *keys[MAX_KEYS];
        size_t n = ts_gate_failing_keys(r, keys, MAX_KEYS);
        for (size_t k = 0; k < n; k++) {
            bool covered = false;
            for (size_t x = 0; base && x < base->count && !covered; x++)
                covered = kept[x] && covers(&base->entries[x], r->c->id, keys[k]);
            if (covered) continue;
            char brief[110] = "";
            if (r->verdict == TS_VERDICT_ERROR) snprintf(brief, sizeof brief, "%.100s", r->detail);
            for (size_t m = 0; m < r->findings.count && !brief[0]; m++)
                if (strcmp(r->findings.items[m].rule, keys[k]) == 0) snprintf(brief, sizeof brief, "%s", r->findings.items[m].message);
            for (char *p = brief; *p; p++) /* one line, no control characters */
                if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
            fprintf(f, "%s %s  # %s\n", r->c->id, keys[k], brief);
        }
    }
}

bool ts_expected_failures_write(FILE *f, const ts_certification *c, const ts_expected_failures *base) {
    if (base && !base->line_count) base = NULL;
    bool *kept = calloc(base && base->count ? base->count : 1, sizeof *kept);
    if (!kept) return false;
    if (!base) {
        fputs("# turnstile certify expected failures: CASE RULE per line (fnmatch patterns; RULE '*' is any rule,\n"
              "# a harness outcome such as 'timeout' is a rule here). Testee: ", f);
        put_one_line(f, c->testee_name ? c->testee_name : c->testee);
        if (c->testee_version) {
            fputc(' ', f);
            put_one_line(f, c->testee_version);
        }
        if (c->suite) {
            fputs(", suite ", f);
            put_one_line(f, c->suite->version);
        }
        fputc('\n', f);
    } else {
        for (size_t x = 0; x < base->count; x++) kept[x] = keeps(&base->entries[x], c);
        for (size_t i = 0, x = 0; i < base->line_count; i++) { /* entries are in line order */
            bool entry = x < base->count && base->entries[x].line == (int)i + 1;
            if (!entry || kept[x]) fprintf(f, "%s\n", base->lines[i]);
            x += entry;
        }
    }
    write_new_failures(f, c, base, kept);
    free(kept);
    return fflush(f) == 0 && !ferror(f);
}
