/* report_junit.c — the JUnit XML report; see report.h (report.c holds the text and JSON ones).
 * Written with the streaming XML writer (xml_writer.h), which escapes every text and value. */
#include <stdio.h>
#include <string.h>

#include "conformance/certifier/report.h"
#include "conformance/certifier/report_internal.h"
#include "conformance/certifier/xml_writer.h"
#include "core/json/buf.h"

/* The suite's counts. Expected failures (with a gate) and cases set apart are <skipped>: a
 * passing gate is green in every JUnit viewer; only new failures are <failure> or <error>. A case
 * in flight when the run was interrupted is an error. */
typedef struct junit_counts {
    size_t tests, failures, errors, skipped;
} junit_counts;

static junit_counts count_cases(const ts_certification *c) {
    junit_counts n = {c->count + c->in_flight_count, 0, c->in_flight_count, 0};
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart || r->expected || r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_UNDECIDED) n.skipped++;
        else if (r->verdict == TS_VERDICT_ERROR) n.errors++;
        else if (r->verdict == TS_VERDICT_FAIL) n.failures++;
    }
    return n;
}

static void property(ts_xml_writer *w, const char *name, const char *value) {
    ts_xw_begin(w, "property");
    ts_xw_attr(w, "name", name);
    ts_xw_attr(w, "value", value);
    ts_xw_end(w);
}

static void properties(ts_xml_writer *w, const ts_certification *c) {
    ts_xw_begin(w, "properties");
    ts_buf command;
    ts_buf_init(&command);
    ts_report_portable_command(&command, c->testee);
    property(w, "testee", command.data ? command.data : "");
    ts_buf_free(&command);
    property(w, "testee.name", c->testee_name);
    property(w, "testee.version", c->testee_version);
    property(w, "turnstile.version", c->turnstile_version);
    property(w, "turnstile.commit", c->turnstile_commit);
    property(w, "suite.version", c->suite ? c->suite->version : "");
    property(w, "suite.sha256", c->suite ? c->suite->hash : "");
    property(w, "verdict", ts_report_verdict(c));
    if (c->options->platform) property(w, "platform", c->options->platform);
    ts_xw_end(w);
    ts_xw_newline(w);
}

/* <testcase classname= name= time=, left open: classname is the case id without its last
 * segment (Merge.I2), so CI groups by rule. */
static void begin_testcase(ts_xml_writer *w, const char *id, double seconds) {
    const char *last = strrchr(id, '.');
    char classname[256];
    snprintf(classname, sizeof classname, "%.*s", (int)(last ? (size_t)(last - id) : strlen(id)), id);
    ts_xw_begin(w, "testcase");
    ts_xw_attr(w, "classname", classname);
    ts_xw_attr(w, "name", id);
    ts_xw_attrf(w, "time", "%.3f", seconds);
    ts_xw_text(w, ""); /* a testcase with nothing in it still ends as </testcase> */
}

/* <skipped message="expected failure (LIST): ..."/>: what the gate expected of the case. */
static void expected_failure(ts_xml_writer *w, const ts_case_result *r, const ts_report_context *ctx) {
    ts_xw_begin(w, "skipped");
    ts_xw_attr_begin(w, "message");
    ts_xw_attr_part(w, "expected failure");
    if (ctx && ctx->expected_failures_path) {
        ts_xw_attr_part(w, " (");
        ts_xw_attr_part(w, ctx->expected_failures_path);
        ts_xw_attr_part(w, ")");
    }
    ts_xw_attr_part(w, ": ");
    if (r->verdict == TS_VERDICT_ERROR) {
        ts_xw_attr_part(w, r->outcome);
        ts_xw_attr_part(w, ": ");
        ts_xw_attr_part(w, r->detail);
    }
    for (size_t k = 0; k < r->findings.count; k++) {
        ts_xw_attr_part(w, k ? "; [" : "[");
        ts_xw_attr_part(w, r->findings.items[k].rule);
        ts_xw_attr_part(w, "] ");
        ts_xw_attr_part(w, r->findings.items[k].message);
    }
    ts_xw_attr_end(w);
    ts_xw_end(w);
}

/* <skipped>, <error> or <failure> as the case's verdict says (nothing for a pass). */
static void outcome(ts_xml_writer *w, const ts_certification *c, const ts_case_result *r, const ts_report_context *ctx) {
    if (r->apart) {
        ts_xw_begin(w, "skipped");
        ts_xw_attr_begin(w, "message");
        ts_xw_attr_part(w, "set apart (--platform ");
        ts_xw_attr_part(w, c->options->platform);
        ts_xw_attr_part(w, "): ");
        ts_xw_attr_part(w, r->apart);
        ts_xw_attr_part(w, "; verdict ");
        ts_xw_attr_part(w, ts_verdict_name(r->verdict));
        ts_xw_attr_end(w);
        ts_xw_end(w);
    } else if (r->expected) {
        expected_failure(w, r, ctx);
    } else if (r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_UNDECIDED) { /* neither a pass nor a failure */
        ts_xw_begin(w, "skipped");
        if (r->verdict == TS_VERDICT_UNDECIDED) ts_xw_attr(w, "type", "undecided");
        ts_xw_attr(w, "message", r->detail);
        ts_xw_end(w);
    } else if (r->verdict == TS_VERDICT_ERROR) {
        ts_xw_begin(w, "error");
        ts_xw_attr(w, "type", r->outcome);
        ts_xw_attr(w, "message", r->detail);
        ts_xw_text(w, r->stderr_tail);
        ts_xw_end(w);
    } else if (r->verdict == TS_VERDICT_FAIL) {
        ts_xw_begin(w, "failure");
        ts_xw_attr(w, "type", r->findings.count ? r->findings.items[0].rule : "");
        ts_xw_attr(w, "message", r->findings.count ? r->findings.items[0].message : "");
        ts_xw_text(w, "");
        for (size_t k = 0; k < r->findings.count; k++) {
            ts_xw_text(w, "[");
            ts_xw_text(w, r->findings.items[k].rule);
            ts_xw_text(w, "] ");
            ts_xw_text(w, r->findings.items[k].message);
            ts_xw_newline(w);
        }
        ts_xw_end(w);
    }
}

static void testcase(ts_xml_writer *w, const ts_certification *c, const ts_case_result *r, const ts_report_context *ctx) {
    begin_testcase(w, r->c->id, r->seconds);
    outcome(w, c, r, ctx);
    if (r->equivalent == 0) {
        ts_xw_begin(w, "system-out");
        ts_xw_text(w, "reference equivalence: ");
        ts_xw_text(w, r->diff);
        ts_xw_end(w);
    }
    ts_xw_end(w);
    ts_xw_newline(w);
}

bool ts_report_junit(FILE *out, const ts_certification *c, const ts_report_context *ctx) {
    ts_xml_writer w;
    ts_xw_init_file(&w, out);
    junit_counts n = count_cases(c);
    ts_xw_declaration(&w);
    ts_xw_begin(&w, "testsuites");
    ts_xw_attrf(&w, "tests", "%zu", n.tests);
    ts_xw_attrf(&w, "failures", "%zu", n.failures);
    ts_xw_attrf(&w, "errors", "%zu", n.errors);
    ts_xw_attrf(&w, "skipped", "%zu", n.skipped);
    ts_xw_attrf(&w, "time", "%.3f", c->seconds);
    ts_xw_newline(&w);
    ts_xw_begin(&w, "testsuite");
    ts_xw_attr(&w, "name", "turnstile.conformance");
    ts_xw_attrf(&w, "tests", "%zu", n.tests);
    ts_xw_attrf(&w, "failures", "%zu", n.failures);
    ts_xw_attrf(&w, "errors", "%zu", n.errors);
    ts_xw_attrf(&w, "skipped", "%zu", n.skipped);
    ts_xw_attr(&w, "timestamp", c->date);
    ts_xw_newline(&w);
    properties(&w, c);
    for (size_t i = 0; i < c->count; i++) testcase(&w, c, &c->results[i], ctx);
    for (size_t i = 0; i < c->in_flight_count; i++) { /* interrupted: never green */
        begin_testcase(&w, c->in_flight[i]->id, 0.0);
        ts_xw_begin(&w, "error");
        ts_xw_attr(&w, "type", "incomplete");
        ts_xw_attrf(&w, "message", "the run was interrupted (signal %d) while this case ran", c->interrupted);
        ts_xw_end(&w);
        ts_xw_end(&w);
        ts_xw_newline(&w);
    }
    ts_xw_end(&w);
    ts_xw_newline(&w);
    ts_xw_end(&w);
    ts_xw_newline(&w);
    return ts_xw_finish(&w);
}
