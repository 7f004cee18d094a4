/* report.h — a certification's results for people and for CI: text, JSON, JUnit XML, a
 * per-rule table, and the expected-failures list that gates CI.
 *
 * Owns: presentation only; verdicts come from run.h. The text report ends with one line
 * "N passed, N failed, N skipped". Every failure carries a one-line replay command.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "conformance/certifier/run.h"

/* `replay` is the command prefix for one case ("turnstile certify --reference"). */
void ts_report_text(FILE *out, const ts_certification *c, const char *replay, bool verbose);
bool ts_report_json(const char *path, const ts_certification *c, const char *suite_root);
bool ts_report_junit(const char *path, const ts_certification *c);

/* Expected failures: one case id or fnmatch pattern per line, '#' starts a comment. */
typedef struct ts_expected_failures {
    char **patterns;
    size_t count;
} ts_expected_failures;

/* Returns false (with a message on stderr) when the file cannot be read. */
bool ts_expected_failures_load(const char *path, ts_expected_failures *out);
void ts_expected_failures_free(ts_expected_failures *e);

/* Compares the run with the list; prints every new failure, unexpected pass and stale entry
 * to out, and the command that rewrites the list. Returns true when they match exactly. */
bool ts_expected_failures_match(const ts_expected_failures *e, const ts_certification *c, FILE *out,
                                const char *rewrite_command);

/* Writes the run's failing case ids as an expected-failures file. */
bool ts_expected_failures_write(const char *path, const ts_certification *c);

#endif
