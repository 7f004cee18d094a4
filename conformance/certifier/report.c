/* report.c — text, JSON and JUnit reports; expected failures; see report.h. */
#include "conformance/certifier/report.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"

static bool failing(const ts_case_result *r) { return r->verdict == TS_VERDICT_FAIL || r->verdict == TS_VERDICT_ERROR; }

/* Which cases a rule is judged on: host rules (H) on host cases, the resume engine's (J) on
 * journal cases, D1 on every case, the merge rules on merge and host cases (a host's answer
 * holds a merged response). */
static bool rule_applies(const char *rule, const char *op) {
    if (rule[0] == 'H') return strcmp(op, "host") == 0;
    if (rule[0] == 'J') return strcmp(op, "journal") == 0;
    if (rule[0] == 'U') return strcmp(op, "resume") == 0;
    if (strcmp(op, "resume") == 0) return false; /* the certifier's own runs: no D1, no merge rules */
    if (strcmp(rule, "D1") == 0) return true;
    return strcmp(op, "journal") != 0;
}

static void rule_counts(const ts_certification *c, const char *rule, size_t *passed, size_t *failed, size_t *skipped) {
    *passed = *failed = *skipped = 0;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (!rule_applies(rule, r->c->op)) continue;
        if (r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_ERROR) (*skipped)++;
        else if (ts_findings_has(&r->findings, rule)) (*failed)++;
        else (*passed)++;
    }
}

void ts_report_text(FILE *out, const ts_certification *c, const char *replay, bool verbose) {
    fprintf(out, "turnstile certify: %s%s%s%s\n", c->testee, c->testee_name[0] ? " (" : "", c->testee_name,
            c->testee_name[0] ? ")" : "");
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        bool warn = r->verdict == TS_VERDICT_PASS && r->findings.count > 0;
        if (r->verdict == TS_VERDICT_PASS && !warn && !verbose) continue;
        if (r->verdict == TS_VERDICT_SKIPPED && !verbose) continue;
        fprintf(out, "%-5s %s", warn ? "WARN" : r->verdict == TS_VERDICT_FAIL ? "FAIL" : r->verdict == TS_VERDICT_ERROR ? "ERROR"
                : r->verdict == TS_VERDICT_SKIPPED ? "SKIP" : "PASS", r->c->id);
        if (r->verdict == TS_VERDICT_ERROR || r->verdict == TS_VERDICT_SKIPPED) fprintf(out, "  %s: %s", r->outcome, r->detail);
        fputc('\n', out);
        for (size_t k = 0; k < r->findings.count; k++) {
            const ts_rule_info *info = ts_rule_find(r->findings.items[k].rule);
            fprintf(out, "      [%s%s] %s\n", r->findings.items[k].rule,
                    info && info->level == TS_LEVEL_RECOMMENDED ? ", recommended" : "", r->findings.items[k].message);
        }
        if (r->findings.suppressed) fprintf(out, "      (%zu more findings)\n", r->findings.suppressed);
        if (r->stderr_tail && *r->stderr_tail) {
            const char *tail = r->stderr_tail;
            size_t len = strlen(tail);
            if (len > 600) tail += len - 600;
            fprintf(out, "      testee stderr (end): %s%s", tail, tail[strlen(tail) - 1] == '\n' ? "" : "\n");
        }
        if (failing(r)) fprintf(out, "      replay: %s --cases '%s'\n", replay, r->c->id);
    }
    fprintf(out, "\nrule  level        passed  failed  skipped  what\n");
    for (size_t k = 0; k < ts_rule_count; k++) {
        const ts_rule_info *info = &ts_rules[k];
        if (!ts_run_rule_selected(c->options, info->id)) continue;
        size_t p, f, s;
        rule_counts(c, info->id, &p, &f, &s);
        bool applies = false; /* only rules some case that ran is judged on */
        for (size_t i = 0; i < c->count && !applies; i++) applies = rule_applies(info->id, c->results[i].c->op);
        if (!applies) continue;
        fprintf(out, "%-5s %-12s %6zu  %6zu  %7zu  %s\n", info->id,
                info->level == TS_LEVEL_REQUIRED ? "Required" : "Recommended", p, f, s, info->title);
    }
    size_t equal = 0, judged = 0;
    for (size_t i = 0; i < c->count; i++) {
        if (c->results[i].equivalent < 0) continue;
        judged++;
        equal += c->results[i].equivalent == 1;
    }
    if (judged) /* only where a golden answer can mean something */
        fprintf(out, "\nreference equivalence: %zu of %zu answers equal the golden answer\n", equal, judged);
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    fprintf(out, "%zu cases in %.2f s (%.0f cases/s), %d testee restarts, %zu harness errors\n", c->count, c->seconds,
            c->seconds > 0 ? (double)c->count / c->seconds : 0.0, c->restarts, errors);
    fprintf(out, "%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
}

/* ------------------------------------------------------------------------------ JSON ------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the byte there starts none. */
static size_t utf8_sequence(const unsigned char *s, size_t left) {
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || n > left) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (n == 2 && c < 0xC2) return 0;                                /* overlong */
    if (n == 3 && c == 0xE0 && s[1] < 0xA0) return 0;                /* overlong */
    if (n == 3 && c == 0xED && s[1] >= 0xA0) return 0;               /* a surrogate */
    if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || c > 0xF4 || (c == 0xF4 && s[1] >= 0x90))) return 0;
    return n;
}

/* Testee output and excerpts may hold anything: reports carry it as valid UTF-8, each byte
 * that starts no valid character replaced by U+FFFD. */
static void valid_utf8(const char *s, size_t len, ts_buf *out) {
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence((const unsigned char *)s + i, len - i);
        if (n) {
            ts_buf_append(out, s + i, n);
            i += n;
        } else {
            ts_buf_append(out, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
}

static void json_str(ts_buf *b, const char *s) {
    ts_buf clean;
    ts_buf_init(&clean);
    valid_utf8(s ? s : "", s ? strlen(s) : 0, &clean);
    ts_codec_write_string(b, (ts_str){clean.data ? clean.data : "", clean.len});
    ts_buf_free(&clean);
}

bool ts_report_json(const char *path, const ts_certification *c, const char *suite_root) {
    ts_buf b;
    ts_buf_init(&b);
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    ts_buf_append_str(&b, "{\"format\":\"turnstile-certification\",\"version\":1,\"testee\":{\"command\":");
    json_str(&b, c->testee);
    ts_buf_append_str(&b, ",\"name\":");
    json_str(&b, c->testee_name);
    ts_buf_appendf(&b, ",\"restarts\":%d},\"suite\":", c->restarts);
    json_str(&b, suite_root);
    ts_buf_append_str(&b, ",\"rules\":[");
    bool first = true;
    for (size_t k = 0; k < ts_rule_count; k++) {
        if (!ts_run_rule_selected(c->options, ts_rules[k].id)) continue;
        size_t p, f, s;
        rule_counts(c, ts_rules[k].id, &p, &f, &s);
        ts_buf_append_str(&b, first ? "{\"id\":" : ",{\"id\":");
        first = false;
        json_str(&b, ts_rules[k].id);
        ts_buf_appendf(&b, ",\"level\":\"%s\",\"title\":", ts_rules[k].level == TS_LEVEL_REQUIRED ? "Required" : "Recommended");
        json_str(&b, ts_rules[k].title);
        ts_buf_appendf(&b, ",\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu}", p, f, s);
    }
    ts_buf_append_str(&b, "],\"cases\":[");
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        ts_buf_append_str(&b, i ? ",{\"id\":" : "{\"id\":");
        json_str(&b, r->c->id);
        ts_buf_append_str(&b, ",\"op\":");
        json_str(&b, r->c->op);
        ts_buf_append_str(&b, ",\"rules\":[");
        for (size_t k = 0; k < r->c->rule_count; k++) {
            if (k) ts_buf_append_char(&b, ',');
            json_str(&b, r->c->rules[k]);
        }
        ts_buf_appendf(&b, "],\"verdict\":\"%s\",\"outcome\":", ts_verdict_name(r->verdict));
        json_str(&b, r->outcome);
        if (r->detail[0]) {
            ts_buf_append_str(&b, ",\"detail\":");
            json_str(&b, r->detail);
        }
        ts_buf_append_str(&b, ",\"findings\":[");
        for (size_t k = 0; k < r->findings.count; k++) {
            const ts_rule_info *info = ts_rule_find(r->findings.items[k].rule);
            ts_buf_append_str(&b, k ? ",{\"rule\":" : "{\"rule\":");
            json_str(&b, r->findings.items[k].rule);
            ts_buf_appendf(&b, ",\"level\":\"%s\",\"message\":",
                           info && info->level == TS_LEVEL_RECOMMENDED ? "Recommended" : "Required");
            json_str(&b, r->findings.items[k].message);
            ts_buf_append_char(&b, '}');
        }
        ts_buf_append_char(&b, ']');
        if (r->equivalent >= 0) ts_buf_appendf(&b, ",\"equivalent\":%s", r->equivalent ? "true" : "false");
        if (r->equivalent == 0) {
            ts_buf_append_str(&b, ",\"difference\":");
            json_str(&b, r->diff);
        }
        if (r->stderr_tail) {
            ts_buf_append_str(&b, ",\"stderr\":");
            json_str(&b, r->stderr_tail);
        }
        if (r->answer && strcmp(r->c->op, "resume") == 0) { /* the recorded history (JSON), which replays */
            ts_buf_append_str(&b, ",\"history\":");
            ts_buf_append_str(&b, r->answer);
        }
        ts_buf_append_char(&b, '}');
    }
    ts_buf_appendf(&b, "],\"summary\":{\"cases\":%zu,\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu,\"errors\":%zu,"
                       "\"seconds\":%.3f}}\n",
                   c->count, passed, failed, skipped, errors, c->seconds);
    FILE *f = fopen(path, "w");
    bool ok = f && !b.failed && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0) ok = false;
    ts_buf_free(&b);
    return ok;
}

/* ----------------------------------------------------------------------------- JUnit ------- */

static void xml_escaped(ts_buf *b, const char *raw) {
    ts_buf clean;
    ts_buf_init(&clean);
    valid_utf8(raw ? raw : "", raw ? strlen(raw) : 0, &clean);
    for (const char *s = clean.data; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '<') ts_buf_append_str(b, "&lt;");
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

bool ts_report_junit(const char *path, const ts_certification *c) {
    ts_buf b;
    ts_buf_init(&b);
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    ts_buf_appendf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\" "
                       "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                   c->count, failed - errors, errors, skipped, c->seconds);
    ts_buf_append_str(&b, "<testsuite name=\"turnstile.conformance\" ");
    ts_buf_appendf(&b, "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", c->count, failed - errors,
                   errors, skipped);
    ts_buf_append_str(&b, "<properties><property name=\"testee\" value=\"");
    xml_escaped(&b, c->testee);
    ts_buf_append_str(&b, "\"/></properties>\n");
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
        ts_buf_append_str(&b, "\">");
        if (r->verdict == TS_VERDICT_SKIPPED) {
            ts_buf_append_str(&b, "<skipped message=\"");
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
    ts_buf_append_str(&b, "</testsuite>\n</testsuites>\n");
    FILE *f = fopen(path, "w");
    bool ok = f && !b.failed && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0) ok = false;
    ts_buf_free(&b);
    return ok;
}

/* ----------------------------------------------------------------- expected failures ------- */

bool ts_expected_failures_load(const char *path, ts_expected_failures *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "turnstile certify: %s: cannot read the expected-failures file\n", path);
        return false;
    }
    char line[1024];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *start = line;
        while (*start == ' ' || *start == '\t') start++;
        size_t len = strcspn(start, " \t\r\n");
        if (!len) continue;
        start[len] = '\0';
        if (out->count == cap) {
            cap = cap ? cap * 2 : 32;
            char **grown = realloc(out->patterns, cap * sizeof *grown);
            if (!grown) break;
            out->patterns = grown;
        }
        out->patterns[out->count++] = strdup(start);
    }
    fclose(f);
    return true;
}

void ts_expected_failures_free(ts_expected_failures *e) {
    if (!e) return;
    for (size_t i = 0; i < e->count; i++) free(e->patterns[i]);
    free(e->patterns);
    memset(e, 0, sizeof *e);
}

bool ts_expected_failures_match(const ts_expected_failures *e, const ts_certification *c, FILE *out,
                                const char *rewrite_command) {
    bool ok = true;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        bool listed = false;
        for (size_t k = 0; k < e->count && !listed; k++) listed = fnmatch(e->patterns[k], r->c->id, 0) == 0;
        if (failing(r) && !listed) {
            fprintf(out, "NEW FAILURE     %s (not in the expected-failures list)\n", r->c->id);
            ok = false;
        } else if (!failing(r) && listed && r->verdict != TS_VERDICT_SKIPPED) {
            fprintf(out, "UNEXPECTED PASS %s (listed as an expected failure: remove it)\n", r->c->id);
            ok = false;
        }
    }
    for (size_t k = 0; k < e->count; k++) {
        bool used = false;
        for (size_t i = 0; i < c->count && !used; i++) used = fnmatch(e->patterns[k], c->results[i].c->id, 0) == 0;
        if (!used) {
            fprintf(out, "STALE ENTRY     %s (matches no case that ran)\n", e->patterns[k]);
            ok = false;
        }
    }
    if (!ok) fprintf(out, "to accept the current failures: %s\n", rewrite_command);
    else fprintf(out, "expected failures: the run matches the list (%zu entries)\n", e->count);
    return ok;
}

bool ts_expected_failures_write(const char *path, const ts_certification *c) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# turnstile certify expected failures: one case id (or fnmatch pattern) per line.\n"
               "# Testee: %s\n", c->testee);
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (!failing(r)) continue;
        fprintf(f, "%s  # %s", r->c->id, r->verdict == TS_VERDICT_ERROR ? r->outcome : r->findings.count ? r->findings.items[0].rule : "");
        if (r->verdict == TS_VERDICT_FAIL && r->findings.count) {
            char brief[100];
            snprintf(brief, sizeof brief, "%s", r->findings.items[0].message);
            fprintf(f, ": %s", brief);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0;
}
