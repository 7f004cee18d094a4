/* gate.h — gating CI on a certification: the expected-failures list, per (case, rule).
 *
 * Owns: reading, matching and writing expected-failures files. A line is
 *     CASE RULE    # optional comment
 * with fnmatch patterns in both fields: `Merge.O3.seed_A10_Bnull_C5 O3`, `Merge.I2.* I2`,
 * `Merge.X2.big *` (any rule of that case). A failing case fails one or more *keys*: each
 * Required rule it violates (its id), or, when the testee misbehaved, the harness outcome
 * ("timeout", "crashed", "exited", "protocol-error"). A key the list does not cover is a new
 * failure; an entry none of whose judged cases fails a key it names is an unexpected pass (a
 * pattern stays expected while it matches a failure); an entry naming no case of the suite (or no
 * rule) is stale. Entries about cases outside the run's selection (--cases, --rules) or set apart
 * by --platform are neither. A list is a user's file: at most TS_EXPECTED_MAX_BYTES, lines of at
 * most TS_EXPECTED_MAX_LINE bytes, no NUL byte; anything else is refused naming FILE:LINE. An
 * entry's comment may say whose failure it is (failure_class.h: `# class: library-defect PATH:LINE
 * F4`), refused naming FILE:LINE:COLUMN when malformed; certify's JSON report carries the class on
 * each finding the entry covers, and `turnstile report --classes` counts failing cases by class.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_GATE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conformance/certifier/failure_class.h"
#include "conformance/certifier/run.h"

typedef struct ts_expected_entry {
    char *case_pattern;
    char *rule_pattern;
    int line;
    ts_failure_classes classes; /* the comment's class annotation (failure_class.h), if any */
} ts_expected_entry;

typedef struct ts_expected_failures {
    ts_expected_entry *entries; /* heap */
    size_t count;
    char **lines;               /* every line as it was, without its newline (heap): for a rewrite */
    size_t line_count;
} ts_expected_failures;

enum { TS_EXPECTED_MAX_LINE = 4096, TS_EXPECTED_MAX_BYTES = 16 << 20 };

/* Reads path. Returns false with a reason (naming FILE:LINE) in why when it cannot be read, is
 * too long, has a line too long or holding a NUL byte, or a line is not "CASE RULE"; and naming
 * FILE:LINE:COLUMN when an entry's class annotation (failure_class.h) is malformed. */
bool ts_expected_failures_load(const char *path, ts_expected_failures *out, char *why, size_t why_size);
void ts_expected_failures_free(ts_expected_failures *e); /* accepts NULL */

typedef struct ts_gate_counts {
    size_t expected;            /* cases whose every failure is listed */
    size_t new_failures;        /* cases with a failure the list does not cover */
    size_t unexpected_passes;   /* entries none of whose judged cases fails as listed */
    size_t stale;               /* entries naming nothing in the suite */
} ts_gate_counts;

/* Compares the run with the list: marks every case whose failures are all listed (result
 * ->expected), prints each new failure, unexpected pass and stale entry to out, and, unless
 * the run matches the list, the command that rewrites it. Returns true when it matches. */
bool ts_gate_apply(const ts_expected_failures *e, ts_certification *c, FILE *out, const char *rewrite_command,
                   ts_gate_counts *counts);

/* Does the list cover every failure of r (what ts_gate_apply marks r->expected), before the run
 * is over? false without a list. */
bool ts_gate_case_expected(const ts_expected_failures *e, const ts_case_result *r);

/* Writes the run's failures as an expected-failures list. With no base (NULL, or no lines): a
 * new list, one "CASE RULE  # what failed" line per failing key. With a base (the list as it
 * is), edits it in place, as protobuf's update_failure_list.py does: every comment, blank line
 * and entry is kept, in its order and as written (patterns included), except entries that are
 * stale or whose judged cases all pass now; failing keys no kept entry covers are added at the
 * end. Entries the run could not judge (outside --cases/--rules, set apart, skipped) are kept.
 * Flushes f (the caller closes it); false when a write failed. */
bool ts_expected_failures_write(FILE *f, const ts_certification *c, const ts_expected_failures *base);

/* The class annotation of the first entry that covers (case_id, rule) and has one, or NULL. e may
 * be NULL. Borrowed from e. */
const ts_failure_classes *ts_expected_failures_classes(const ts_expected_failures *e, const char *case_id, const char *rule);

/* Writes the member "class":[...] (ts_failure_classes_json) into the object w is writing when an
 * entry of e covering (case_id, rule) has a class annotation; nothing otherwise (e may be NULL). */
void ts_gate_class_json(ts_json_writer *w, const ts_expected_failures *e, const char *case_id, const char *rule);

/* The failing keys of r (rule ids of Required findings, or the harness outcome), at most max;
 * returns how many. The strings are borrowed from r. */
size_t ts_gate_failing_keys(const ts_case_result *r, const char **keys, size_t max);

#endif
