/* report_junit.c — the JUnit XML report; see report.h (report.c holds the text and JSON ones). */
#include <stdio.h>
#include <string.h>

#include "conformance/certifier/report.h"
#include "conformance/certifier/report_internal.h"
#include "core/json/buf.h"

static bool write_out(FILE *out, ts_buf *b) {
    bool ok = !b->failed && fwrite(b->data, 1, b->len, out) == b->len && fflush(out) == 0;
    ts_buf_free(b);
    return ok;
}

/* ----------------------------------------------------------------------------- JUnit ------- */

static void xml_escaped(ts_buf *b, const char *raw) {
    ts_buf clean;
    ts_buf_init(&clean);
    ts_report_valid_utf8(raw ? raw : "", raw ? strlen(raw) : 0, &clean);
    for (const char *s = clean.data; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == 0xEF && (unsigned char)s[1] == 0xBF && ((unsigned char)s[2] == 0xBE || (unsigned char)s[2] == 0xBF)) {
            ts_buf_append_str(b, "&#xfffd;"); /* U+FFFE, U+FFFF: not characters in XML 1.0 */
            s += 2;
        } else if (ch == '<') ts_buf_append_str(b, "&lt;");
        else if (ch == '>') ts_buf_append_str(b, "&gt;");
        else if (ch == '&') ts_buf_append_str(b, "&amp;");
        else if (ch == '"') ts_buf_append_str(b, "&quot;");
        else if (ch == '\n') ts_buf_append_str(b, "&#10;");
        else if (ch == '\t') ts_buf_append_str(b, "&#9;");
        else if (ch < 0x20) ts_buf_appendf(b, "&#x%x;", 0xfffd); /* not allowed in XML 1.0 */
        else ts_buf_append_char(b, (char)ch);
    }
    ts_buf_free(&clean);
}

static void xml_property(ts_buf *b, const char *name, const char *value) {
    ts_buf_appendf(b, "<property name=\"%s\" value=\"", name);
    xml_escaped(b, value ? value : "");
    ts_buf_append_str(b, "\"/>");
}

bool ts_report_junit(FILE *out, const ts_certification *c, const ts_report_context *ctx) {
    ts_buf b;
    ts_buf_init(&b);
    /* Expected failures (with a gate) and cases set apart are <skipped>: a passing gate is green
     * in every JUnit viewer; only new failures are <failure> or <error>. */
    size_t tests = c->count + c->in_flight_count, failures = 0, errors = c->in_flight_count, skipped = 0;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart || r->expected || r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_UNDECIDED) skipped++;
        else if (r->verdict == TS_VERDICT_ERROR) errors++;
        else if (r->verdict == TS_VERDICT_FAIL) failures++;
    }
    ts_buf_appendf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\" "
                       "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                   tests, failures, errors, skipped, c->seconds);
    ts_buf_append_str(&b, "<testsuite name=\"turnstile.conformance\" ");
    ts_buf_appendf(&b, "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" timestamp=\"%s\">\n", tests, failures,
                   errors, skipped, c->date);
    ts_buf_append_str(&b, "<properties>");
    ts_buf command;
    ts_buf_init(&command);
    ts_report_portable_command(&command, c->testee);
    xml_property(&b, "testee", command.data ? command.data : "");
    ts_buf_free(&command);
    xml_property(&b, "testee.name", c->testee_name);
    xml_property(&b, "testee.version", c->testee_version);
    xml_property(&b, "turnstile.version", c->turnstile_version);
    xml_property(&b, "turnstile.commit", c->turnstile_commit);
    xml_property(&b, "suite.version", c->suite ? c->suite->version : "");
    xml_property(&b, "suite.sha256", c->suite ? c->suite->hash : "");
    xml_property(&b, "verdict", ts_report_verdict(c));
    if (c->options->platform) xml_property(&b, "platform", c->options->platform);
    ts_buf_append_str(&b, "</properties>\n");
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        /* classname: the case id without its last segment (Merge.I2), so CI groups by rule. */
        const char *last = strrchr(r->c->id, '.');
        ts_buf_append_str(&b, "<testcase classname=\"");
        char classname[256];
        snprintf(classname, sizeof classname, "%.*s", (int)(last ? (size_t)(last - r->c->id) : strlen(r->c->id)), r->c->id);
        xml_escaped(&b, classname);
        ts_buf_append_str(&b, "\" name=\"");
        xml_escaped(&b, r->c->id);
        ts_buf_appendf(&b, "\" time=\"%.3f\">", r->seconds);
        if (r->apart) {
            ts_buf_append_str(&b, "<skipped message=\"set apart (--platform ");
            xml_escaped(&b, c->options->platform);
            ts_buf_append_str(&b, "): ");
            xml_escaped(&b, r->apart);
            ts_buf_appendf(&b, "; verdict %s\"/>", ts_verdict_name(r->verdict));
        } else if (r->expected) {
            ts_buf_append_str(&b, "<skipped message=\"expected failure");
            if (ctx && ctx->expected_failures_path) {
                ts_buf_append_str(&b, " (");
                xml_escaped(&b, ctx->expected_failures_path);
                ts_buf_append_char(&b, ')');
            }
            ts_buf_append_str(&b, ": ");
            if (r->verdict == TS_VERDICT_ERROR) {
                xml_escaped(&b, r->outcome);
                ts_buf_append_str(&b, ": ");
                xml_escaped(&b, r->detail);
            }
            for (size_t k = 0; k < r->findings.count; k++) {
                ts_buf_appendf(&b, "%s[%s] ", k ? "; " : "", r->findings.items[k].rule);
                xml_escaped(&b, r->findings.items[k].message);
            }
            ts_buf_append_str(&b, "\"/>");
        } else if (r->verdict == TS_VERDICT_SKIPPED) {
            ts_buf_append_str(&b, "<skipped message=\"");
            xml_escaped(&b, r->detail);
            ts_buf_append_str(&b, "\"/>");
        } else if (r->verdict == TS_VERDICT_UNDECIDED) { /* neither a pass nor a failure */
            ts_buf_append_str(&b, "<skipped type=\"undecided\" message=\"");
            xml_escaped(&b, r->detail);
            ts_buf_append_str(&b, "\"/>");
        } else if (r->verdict == TS_VERDICT_ERROR) {
            ts_buf_append_str(&b, "<error type=\"");
            xml_escaped(&b, r->outcome);
            ts_buf_append_str(&b, "\" message=\"");
            xml_escaped(&b, r->detail);
            ts_buf_append_str(&b, "\">");
            xml_escaped(&b, r->stderr_tail ? r->stderr_tail : "");
            ts_buf_append_str(&b, "</error>");
        } else if (r->verdict == TS_VERDICT_FAIL) {
            ts_buf_append_str(&b, "<failure type=\"");
            xml_escaped(&b, r->findings.count ? r->findings.items[0].rule : "");
            ts_buf_append_str(&b, "\" message=\"");
            xml_escaped(&b, r->findings.count ? r->findings.items[0].message : "");
            ts_buf_append_str(&b, "\">");
            for (size_t k = 0; k < r->findings.count; k++) {
                ts_buf_appendf(&b, "[%s] ", r->findings.items[k].rule);
                xml_escaped(&b, r->findings.items[k].message);
                ts_buf_append_char(&b, '\n');
            }
            ts_buf_append_str(&b, "</failure>");
        }
        if (r->equivalent == 0) {
            ts_buf_append_str(&b, "<system-out>reference equivalence: ");
            xml_escaped(&b, r->diff);
            ts_buf_append_str(&b, "</system-out>");
        }
        ts_buf_append_str(&b, "</testcase>\n");
    }
    for (size_t i = 0; i < c->in_flight_count; i++) { /* interrupted: never green */
        const char *id = c->in_flight[i]->id, *last = strrchr(id, '.');
        char classname[256];
        snprintf(classname, sizeof classname, "%.*s", (int)(last ? (size_t)(last - id) : strlen(id)), id);
        ts_buf_append_str(&b, "<testcase classname=\"");
        xml_escaped(&b, classname);
        ts_buf_append_str(&b, "\" name=\"");
        xml_escaped(&b, id);
        ts_buf_appendf(&b, "\" time=\"0.000\"><error type=\"incomplete\" message=\"the run was interrupted (signal %d) while this case "
                           "ran\"/></testcase>\n", c->interrupted);
    }
    ts_buf_append_str(&b, "</testsuite>\n</testsuites>\n");
    return write_out(out, &b);
}
