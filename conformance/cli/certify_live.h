/* certify_live.h — what `turnstile certify` shows while it runs.
 *
 * Owns: the progress line on a terminal (cases done of all, passed and failed so far, the time
 * elapsed and an estimate of what is left, from what the decided cases cost), and the text
 * report streamed: its header once the testee has said hello, then each case's block as soon as
 * every case before it is decided (so the blocks come in the suite's order whatever --jobs
 * does), then at the end the blocks that changed since (second answers found last) and the
 * summary. A run killed by a CI timeout has already shown every failure it decided.
 */
#ifndef TURNSTILE_CONFORMANCE_CLI_CERTIFY_LIVE_H
#define TURNSTILE_CONFORMANCE_CLI_CERTIFY_LIVE_H

#include <stdbool.h>
#include <stdio.h>

#include "conformance/certifier/gate.h"
#include "conformance/certifier/report.h"
#include "conformance/certifier/run.h"

typedef struct ts_certify_live {
    FILE *text;                         /* the text report's stream */
    bool progress;                      /* draw the progress line on stderr */
    bool verbose;
    const ts_report_context *ctx;       /* replay commands (its gate is not used while streaming) */
    const ts_expected_failures *expected; /* the list the gate reads, or NULL */
    /* private */
    bool header, shown;
    double start, drawn;
    size_t frontier;                    /* results before it are shown or passed over */
    unsigned char *printed;             /* per suite case: 0, or 1 + the state its block showed */
} ts_certify_live;

/* For ts_run_options.progress and .decided (progress_context: the ts_certify_live). */
void ts_certify_live_progress(void *context, const ts_certification *run);
void ts_certify_live_decided(void *context, const ts_certification *run, const ts_case_result *r);

/* After the run (results final: gate applied): the blocks not shown or changed, then the summary
 * with ctx's gate. Frees what the live view holds. */
void ts_certify_live_finish(ts_certify_live *l, const ts_certification *run, const ts_report_context *ctx);

#endif
