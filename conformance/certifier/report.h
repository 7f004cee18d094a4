/* report.h — a certification's results for people and for CI: text, JSON (a certificate:
 * verdict, per-level counts, turnstile's and the suite's identity, the date, the testee's name
 * and version) and JUnit XML.
 *
 * Owns: presentation only; verdicts come from run.h, the gate's marks from gate.h. The text
 * report ends with one line "N passed, N failed, N skipped". Every new failure carries a
 * replay command; expected failures and cases set apart are reported as such (JUnit <skipped>).
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "conformance/certifier/gate.h"
#include "conformance/certifier/run.h"
#include "core/json/buf.h"

typedef struct ts_report_context {
    /* A failure's replay command is replay_before + " --cases ID" + replay_after: options
     * come before the case selection, the testee command (" -- COMMAND ...") after it. Both
     * are already quoted for the shell. */
    const char *replay_before;
    const char *replay_after;
    const ts_gate_counts *gate;           /* NULL without --expected-failures */
    const char *gate_text;                /* what ts_gate_apply printed, shown before the summary */
    const char *expected_failures_path;
    const ts_expected_failures *expected; /* the list, for each finding's class (gate.h); NULL: none */
} ts_report_context;

void ts_report_text(FILE *out, const ts_certification *c, const ts_report_context *ctx, bool verbose);
/* Write the report to out (flushed, not closed); false when a write failed. */
bool ts_report_json(FILE *out, const ts_certification *c, const ts_report_context *ctx);
bool ts_report_junit(FILE *out, const ts_certification *c, const ts_report_context *ctx);

/* Appends text (len bytes, from a testee or quoting one) to out as a terminal may show it: valid
 * UTF-8 (U+FFFD for other bytes), every control character but tab (and newline when
 * keep_newlines) as \xHH, C1 controls and bidirectional overrides as \uHHHH. */
void ts_report_clean_text(ts_buf *out, const char *text, size_t len, bool keep_newlines);

/* The certificate's verdict: no case failed or erred (ignoring any expected-failures list),
 * no harness failure. Cases set apart count in no verdict. */
bool ts_report_conformant(const ts_certification *c);

#endif
