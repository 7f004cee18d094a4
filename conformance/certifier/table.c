/* table.c — the cross-implementation compliance table; see table.h. */
#include "conformance/certifier/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/suite.h"
#include "core/json/codec.h"

enum { REASON_MAX = 180 };

/* "PATH:LINE:COLUMN: field: what" in the message (the position of `field` in text, or `at`'s
 * when it has one), so that every report error names where it is. */
static bool fail_at(ts_error *err, ts_error_code code, const char *path, const char *text, size_t len, const ts_error *at,
                    const char *field, const char *what) {
    ts_error where;
    ts_error_clear(&where);
    if (at && at->line) where = *at;
    else if (text) ts_codec_locate(text, len, field, &where);
    char position[40] = "";
    if (where.line) snprintf(position, sizeof position, ":%d:%d", where.line, where.column);
    ts_error_clear(err);
    ts_error_set(err, code, "%s%s: %s%s%s", path, position, field, field[0] ? ": " : "", what);
    return false;
}

static bool fail(ts_error *err, ts_error_code code, const char *path, const char *field, const char *what) {
    return fail_at(err, code, path, NULL, 0, NULL, field, what);
}

bool ts_table_load(ts_table *table, const char *const *paths, const char *const *class_paths, size_t count, ts_error *err) {
    memset(table, 0, sizeof *table);
    ts_arena_init(&table->arena);
    table->columns = ts_arena_calloc(&table->arena, count + 1, sizeof *table->columns);
    if (!table->columns) return fail(err, TS_ERR_NOMEM, "", "", "out of memory");
    for (size_t i = 0; i < count; i++) {
        size_t len;
        errno = 0;
        char *text = ts_suite_read_file(paths[i], &len);
        if (!text) return fail(err, TS_ERR_IO, paths[i], "", errno ? strerror(errno) : "cannot read the report");
        ts_json *report = ts_arena_alloc(&table->arena, sizeof *report);
        ts_error inner;
        ts_error_clear(&inner);
        bool ok = report && ts_codec_parse(&table->arena, text, len, report, &inner);
        const char *problem = NULL, *field = "";
        if (!ok) {
            problem = inner.message[0] ? inner.message : "out of memory";
        } else if (!ts_str_eq_cstr(ts_json_string(ts_json_get(report, "format")), "turnstile-certification")) {
            problem = "not a turnstile certification report (turnstile certify --report-json)", field = "format";
        } else {
            const ts_json *rules = ts_json_get(report, "rules"), *cases = ts_json_get(report, "cases");
            if (!rules || rules->kind != TS_JSON_ARRAY) problem = "must be an array", field = "rules";
            else if (!cases || cases->kind != TS_JSON_ARRAY) problem = "must be an array", field = "cases";
        }
        if (problem) {
            fail_at(err, ok || inner.code == TS_ERR_INPUT ? TS_ERR_INPUT : TS_ERR_NOMEM, paths[i], text, len, ok ? NULL : &inner, field, problem);
            free(text);
            return false;
        }
        free(text);
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        size_t base_len = strlen(base);
        if (base_len > 5 && strcmp(base + base_len - 5, ".json") == 0) base_len -= 5;
        ts_table_column *c = &table->columns[table->count++];
        c->name = ts_arena_strndup(&table->arena, base, base_len);
        const ts_json *testee = ts_json_get(report, "testee");
        ts_str name = ts_json_string(ts_json_get(testee, "name"));
        if (!ts_str_nonempty(name)) name = ts_json_string(ts_json_get(testee, "command"));
        ts_str version = ts_json_string(ts_json_get(testee, "version"));
        c->testee = name.ptr ? name.ptr : "";
        if (ts_str_nonempty(version) && name.ptr && ts_json_string(ts_json_get(testee, "name")).ptr == name.ptr) {
            char *both = ts_arena_alloc(&table->arena, name.len + version.len + 2);
            if (both) {
                snprintf(both, name.len + version.len + 2, "%.*s %.*s", (int)name.len, name.ptr, (int)version.len, version.ptr);
                c->testee = both;
            }
        }
        c->report = report;
        char why[400];
        if (class_paths && class_paths[i] && !ts_expected_failures_load(class_paths[i], &c->classes, why, sizeof why)) {
            ts_error_clear(err);
            ts_error_set(err, TS_ERR_INPUT, "%s", why);
            return false;
        }
    }
    return true;
}

void ts_table_free(ts_table *table) {
    if (!table) return;
    for (size_t i = 0; i < table->count; i++) ts_expected_failures_free(&table->columns[i].classes);
    ts_arena_free(&table->arena);
    table->columns = NULL;
    table->count = 0;
}

/* ------------------------------------------------------------------------- the model ---- */

typedef enum cell_kind { CELL_NOT_RUN, CELL_SKIPPED, CELL_PASS, CELL_FAIL } cell_kind;

typedef struct cell {
    cell_kind kind;
    int64_t failed, passed;
    const char *first_case;    /* a failing case, for the link */
    ts_str first_message;
} cell;

static const ts_json *rule_entry(const ts_json *report, ts_str rule) {
    const ts_json *rules = ts_json_get(report, "rules");
    for (size_t i = 0; i < rules->u.a.count; i++)
        if (ts_str_eq(ts_json_string(ts_json_get(&rules->u.a.items[i], "id")), rule)) return &rules->u.a.items[i];
    return NULL;
}

static int64_t count_of(const ts_json *entry, const char *key) {
    const ts_json *v = ts_json_get(entry, key);
    return v && v->kind == TS_JSON_INT ? v->u.i : 0;
}

static cell cell_of(const ts_table_column *column, ts_str rule) {
    cell c = {CELL_NOT_RUN, 0, 0, NULL, {NULL, 0}};
    const ts_json *entry = rule_entry(column->report, rule);
    if (!entry) return c;
    c.failed = count_of(entry, "failed");
    c.passed = count_of(entry, "passed");
    c.kind = c.failed ? CELL_FAIL : c.passed ? CELL_PASS : CELL_SKIPPED;
    const ts_json *cases = ts_json_get(column->report, "cases");
    for (size_t i = 0; c.kind == CELL_FAIL && !c.first_case && i < cases->u.a.count; i++) {
        const ts_json *findings = ts_json_get(&cases->u.a.items[i], "findings");
        for (size_t k = 0; findings && findings->kind == TS_JSON_ARRAY && k < findings->u.a.count; k++)
            if (ts_str_eq(ts_json_string(ts_json_get(&findings->u.a.items[k], "rule")), rule)) {
                c.first_case = ts_json_string(ts_json_get(&cases->u.a.items[i], "id")).ptr;
                c.first_message = ts_json_string(ts_json_get(&findings->u.a.items[k], "message"));
                break;
            }
    }
    return c;
}

/* ---------------------------------------------------------------------- classes ---- */

enum { UNCLASSIFIED = TS_FAILURE_KIND_COUNT, CLASS_SLOTS };
static const char *const class_labels[CLASS_SLOTS] = {"library defect", "documented semantics", "integration choice",
                                                      "unclassified"};
static const char *const class_short[CLASS_SLOTS] = {"lib", "doc", "int", "?"};

/* The kinds (a bit per ts_failure_kind, or UNCLASSIFIED's) of a failure of key (a rule or a harness
 * outcome) in case: the finding's own "class", else the column's list. */
static unsigned kinds_of(const ts_table_column *column, const ts_json *kase, const ts_json *finding, ts_str key) {
    unsigned kinds = 0;
    const ts_json *own = ts_json_get(finding, "class");
    for (size_t i = 0; own && own->kind == TS_JSON_ARRAY && i < own->u.a.count; i++)
        for (int k = 0; k < TS_FAILURE_KIND_COUNT; k++)
            if (ts_str_eq_cstr(ts_json_string(ts_json_get(&own->u.a.items[i], "kind")), ts_failure_kind_name(k))) kinds |= 1u << k;
    ts_str id = ts_json_string(ts_json_get(kase, "id"));
    char case_id[512], rule[64];
    snprintf(case_id, sizeof case_id, "%.*s", (int)(id.len < 500 ? id.len : 500), id.ptr ? id.ptr : "");
    snprintf(rule, sizeof rule, "%.*s", (int)(key.len < 60 ? key.len : 60), key.ptr ? key.ptr : "");
    const ts_failure_classes *listed = kinds ? NULL : ts_expected_failures_classes(&column->classes, case_id, rule);
    for (size_t i = 0; listed && i < listed->count; i++) kinds |= 1u << listed->items[i].kind;
    return kinds ? kinds : 1u << UNCLASSIFIED;
}

static bool has_classes(const ts_table_column *column) {
    if (column->classes.count) return true;
    const ts_json *cases = ts_json_get(column->report, "cases");
    for (size_t i = 0; i < cases->u.a.count; i++) {
        const ts_json *findings = ts_json_get(&cases->u.a.items[i], "findings");
        for (size_t k = 0; findings && findings->kind == TS_JSON_ARRAY && k < findings->u.a.count; k++)
            if (ts_json_get(&findings->u.a.items[k], "class")) return true;
    }
    return false;
}

/* Per class, the cases with a finding of rule (rule.ptr NULL: the failing cases, by every failure
 * of theirs, a harness error by its outcome). */
static void class_counts(const ts_table_column *column, ts_str rule, int64_t counts[CLASS_SLOTS], int64_t only[CLASS_SLOTS]) {
    memset(counts, 0, CLASS_SLOTS * sizeof *counts);
    memset(only, 0, CLASS_SLOTS * sizeof *only);
    const ts_json *cases = ts_json_get(column->report, "cases");
    for (size_t i = 0; i < cases->u.a.count; i++) {
        const ts_json *kase = &cases->u.a.items[i], *findings = ts_json_get(kase, "findings");
        ts_str verdict = ts_json_string(ts_json_get(kase, "verdict"));
        unsigned kinds = 0;
        if (!rule.ptr && ts_str_eq_cstr(verdict, "error"))
            kinds = kinds_of(column, kase, NULL, ts_json_string(ts_json_get(kase, "outcome")));
        bool counted = rule.ptr || ts_str_eq_cstr(verdict, "fail");
        for (size_t k = 0; counted && findings && findings->kind == TS_JSON_ARRAY && k < findings->u.a.count; k++) {
            const ts_json *f = &findings->u.a.items[k];
            ts_str id = ts_json_string(ts_json_get(f, "rule"));
            bool required = ts_str_eq_cstr(ts_json_string(ts_json_get(f, "level")), "Required");
            if (rule.ptr ? ts_str_eq(id, rule) : required) kinds |= kinds_of(column, kase, f, id);
        }
        for (int k = 0; k < CLASS_SLOTS; k++) {
            counts[k] += (kinds >> k) & 1u;
            only[k] += kinds == 1u << k; /* every failure of the case is of this class */
        }
    }
}

/* "lib 3 · int 2" (markdown) into out: the classes a cell's cases fall in. */
static void class_brief(const int64_t counts[CLASS_SLOTS], char *out, size_t size) {
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < CLASS_SLOTS && n < size; k++)
        if (counts[k]) n += (size_t)snprintf(out + n, size - n, "%s%s %lld", n ? " · " : "", class_short[k], (long long)counts[k]);
}

/* A failing cell's classes, " lib 3 · int 2" (static storage: used before the next call), or "". */
static const char *cell_classes(const ts_table_column *column, ts_str rule) {
    static char text[120];
    int64_t counts[CLASS_SLOTS], only[CLASS_SLOTS];
    text[0] = ' ';
    text[1] = '\0';
    if (!has_classes(column)) return "";
    class_counts(column, rule, counts, only);
    class_brief(counts, text + 1, sizeof text - 1);
    return text;
}

/* "Failing cases by class: ..." for a column whose classes are known (Markdown, or an HTML <p>). */
static void by_class_line(FILE *out, const ts_table_column *column, bool html) {
    if (!has_classes(column)) return;
    int64_t counts[CLASS_SLOTS], only[CLASS_SLOTS];
    class_counts(column, (ts_str){NULL, 0}, counts, only);
    fputs(html ? "<p>Failing cases by class: " : "\nFailing cases by class: ", out);
    for (int k = 0; k < CLASS_SLOTS; k++) fprintf(out, "%s%s %lld", k ? ", " : "", class_labels[k], (long long)counts[k]);
    fputs(" (a case with failures of two classes counts in both); by that class alone: ", out);
    for (int k = 0; k < CLASS_SLOTS; k++) fprintf(out, "%s%s %lld", k ? ", " : "", class_short[k], (long long)only[k]);
    fputs(html ? ".</p>\n" : ".\n", out);
}

/* Every rule any report judged, in the order the first report that has it lists it. */
static size_t rule_ids(const ts_table *t, ts_str *out, const ts_json **entries, size_t max) {
    size_t n = 0;
    for (size_t col = 0; col < t->count; col++) {
        const ts_json *rules = ts_json_get(t->columns[col].report, "rules");
        for (size_t i = 0; i < rules->u.a.count && n < max; i++) {
            ts_str id = ts_json_string(ts_json_get(&rules->u.a.items[i], "id"));
            bool seen = !id.ptr;
            for (size_t k = 0; k < n && !seen; k++) seen = ts_str_eq(out[k], id);
            if (seen) continue;
            entries[n] = &rules->u.a.items[i];
            out[n++] = id;
        }
    }
    return n;
}

/* One line of at most REASON_MAX bytes (cut at a UTF-8 boundary, then "..."), newlines and
 * tabs as spaces. size must exceed REASON_MAX + 3. */
static void one_line(ts_str s, char *out, size_t size) {
    size_t n = s.ptr ? (s.len < REASON_MAX ? s.len : REASON_MAX) : 0;
    if (n >= size - 3) n = size - 4;
    bool cut = s.ptr && s.len > n;
    while (cut && n > 0 && ((unsigned char)s.ptr[n] & 0xC0) == 0x80) n--; /* s.ptr[n] starts a character */
    for (size_t i = 0; i < n; i++) out[i] = s.ptr[i] == '\n' || s.ptr[i] == '\r' || s.ptr[i] == '\t' ? ' ' : s.ptr[i];
    if (cut) memcpy(out + n, "...", 3);
    out[n + (cut ? 3 : 0)] = '\0';
}

/* An anchor: the column's name and the rule, lowercase letters, digits and '-'. */
static char anchor_char(char ch) {
    return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) ? ch : '-';
}

static void anchor(const char *column, ts_str rule, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = column; *p && n + 1 < size; p++) out[n++] = anchor_char(*p);
    if (n + 1 < size) out[n++] = '-';
    for (size_t i = 0; i < rule.len && n + 1 < size; i++) out[n++] = anchor_char(rule.ptr[i]);
    out[n] = '\0';
}

static void summary_counts(const ts_table_column *c, int64_t *passed, int64_t *failed, int64_t *skipped, int64_t *errors) {
    const ts_json *s = ts_json_get(c->report, "summary");
    *passed = count_of(s, "passed");
    *failed = count_of(s, "failed");
    *skipped = count_of(s, "skipped");
    *errors = count_of(s, "errors");
}

/* ----------------------------------------------------------------------- Markdown ------- */

/* Text from a report file, safe in a Markdown table cell: every character Markdown or a table
 * would read escaped, line breaks and other control characters as spaces. */
static void md_str(FILE *out, ts_str s) {
    for (size_t i = 0; s.ptr && i < s.len; i++) {
        char ch = s.ptr[i];
        if ((unsigned char)ch < 0x20 || ch == 0x7f) ch = ' '; /* line breaks, and escapes a terminal would obey */
        if (strchr("|*_`<>[]()#!\\&~", ch) && ch != '\0') fputc('\\', out);
        fputc(ch, out);
    }
}

static void md_text(FILE *out, const char *s) { md_str(out, ts_str_from(s ? s : "")); }

bool ts_table_markdown(FILE *out, const ts_table *t) {
    ts_str ids[256];
    const ts_json *entries[256];
    size_t n = rule_ids(t, ids, entries, 256);
    fputs("| rule | level |", out);
    for (size_t col = 0; col < t->count; col++) {
        fputc(' ', out);
        md_text(out, t->columns[col].name);
        fputs(" |", out);
    }
    fputs("\n|---|---|", out);
    for (size_t col = 0; col < t->count; col++) fputs("---|", out);
    fputc('\n', out);
    for (size_t r = 0; r < n; r++) {
        fputs("| ", out);
        md_str(out, ids[r]);
        fputs(" | ", out);
        md_str(out, ts_json_string(ts_json_get(entries[r], "level")));
        fputs(" |", out);
        for (size_t col = 0; col < t->count; col++) {
            cell c = cell_of(&t->columns[col], ids[r]);
            char a[160];
            anchor(t->columns[col].name, ids[r], a, sizeof a);
            switch (c.kind) {
            case CELL_PASS: fputs(" pass |", out); break;
            case CELL_FAIL: fprintf(out, " [**fail** (%lld)](#%s)%s |", (long long)c.failed, a, cell_classes(&t->columns[col], ids[r])); break;
            case CELL_SKIPPED: fputs(" skipped |", out); break;
            case CELL_NOT_RUN: fputs(" — |", out); break;
            }
        }
        fputc('\n', out);
    }
    fputs("\npass: every case of the rule passed; fail (N): N cases failed it; skipped: its cases were "
          "skipped or unsupported; —: not judged for this implementation.\n",
          out);
    bool classes = false;
    for (size_t col = 0; col < t->count; col++) classes |= has_classes(&t->columns[col]);
    if (classes)
        fputs("Whose failure: lib N: N of the cases are a library defect, doc N: the library's documented semantics, int N: "
              "an integration choice of the adapter, ? N: not classified (a case may be in two).\n", out);
    for (size_t col = 0; col < t->count; col++) {
        const ts_table_column *column = &t->columns[col];
        int64_t p, f, s, e;
        summary_counts(column, &p, &f, &s, &e);
        fputs("\n### ", out);
        md_text(out, column->name);
        fputs("\n\n", out);
        fputs("Testee: ", out);
        md_text(out, column->testee);
        fprintf(out, ". %lld passed, %lld failed, %lld skipped, %lld harness errors.\n", (long long)p, (long long)f,
                (long long)s, (long long)e);
        by_class_line(out, column, false);
        bool any = false;
        for (size_t r = 0; r < n; r++) {
            cell c = cell_of(column, ids[r]);
            if (c.kind != CELL_FAIL) continue;
            if (!any) fputc('\n', out);
            any = true;
            char a[160], reason[REASON_MAX + 8];
            anchor(column->name, ids[r], a, sizeof a);
            one_line(c.first_message, reason, sizeof reason);
            fprintf(out, "- <a id=\"%s\"></a>**", a);
            md_str(out, ids[r]);
            fprintf(out, "** (%lld cases), e.g. ", (long long)c.failed);
            md_text(out, c.first_case ? c.first_case : "?");
            fputs(": ", out);
            md_text(out, reason);
            fputc('\n', out);
        }
    }
    return !ferror(out);
}

/* --------------------------------------------------------------------------- HTML ------- */

static void html_str(FILE *out, ts_str s) {
    for (size_t i = 0; s.ptr && i < s.len; i++) {
        switch (s.ptr[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\0': fputs("&#xFFFD;", out); break;
        default: /* control characters other than white space are not allowed in HTML */
            if (((unsigned char)s.ptr[i] < 0x20 && !strchr("\t\n\r", s.ptr[i])) || s.ptr[i] == 0x7f) fputs("&#xFFFD;", out);
            else fputc(s.ptr[i], out);
        }
    }
}

static void html_text(FILE *out, const char *s) { html_str(out, ts_str_from(s ? s : "")); }

bool ts_table_html(FILE *out, const ts_table *t) {
    ts_str ids[256];
    const ts_json *entries[256];
    size_t n = rule_ids(t, ids, entries, 256);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>turnstile compliance</title>\n"
          "<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
          "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
          "td.pass{background:#e3f6e3}td.fail{background:#fbe3e3}td.skipped,td.none{background:#f2f2f2;color:#777}"
          "th.rule{white-space:nowrap}code{font-size:90%}li{margin:.2em 0}</style></head><body>\n"
          "<h1>turnstile compliance</h1>\n<table>\n<tr><th>rule</th><th>level</th><th>what</th>",
          out);
    for (size_t col = 0; col < t->count; col++) {
        fputs("<th>", out);
        html_text(out, t->columns[col].name);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (size_t r = 0; r < n; r++) {
        ts_str level = ts_json_string(ts_json_get(entries[r], "level")), title = ts_json_string(ts_json_get(entries[r], "title"));
        fputs("<tr><th class=\"rule\">", out);
        html_str(out, ids[r]);
        fputs("</th><td>", out);
        html_str(out, level);
        fputs("</td><td>", out);
        html_text(out, title.ptr ? title.ptr : "");
        fputs("</td>", out);
        for (size_t col = 0; col < t->count; col++) {
            cell c = cell_of(&t->columns[col], ids[r]);
            char a[160];
            anchor(t->columns[col].name, ids[r], a, sizeof a);
            switch (c.kind) {
            case CELL_PASS: fputs("<td class=\"pass\">pass</td>", out); break;
            case CELL_FAIL:
                fprintf(out, "<td class=\"fail\"><a href=\"#%s\">fail (%lld)</a>%s</td>", a, (long long)c.failed,
                        cell_classes(&t->columns[col], ids[r]));
                break;
            case CELL_SKIPPED: fputs("<td class=\"skipped\">skipped</td>", out); break;
            case CELL_NOT_RUN: fputs("<td class=\"none\">&mdash;</td>", out); break;
            }
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
    for (size_t col = 0; col < t->count; col++) {
        const ts_table_column *column = &t->columns[col];
        int64_t p, f, s, e;
        summary_counts(column, &p, &f, &s, &e);
        fputs("<h2>", out);
        html_text(out, column->name);
        fputs("</h2>\n<p>Testee: ", out);
        html_text(out, column->testee);
        fprintf(out, ". %lld passed, %lld failed, %lld skipped, %lld harness errors.</p>\n", (long long)p,
                (long long)f, (long long)s, (long long)e);
        by_class_line(out, column, true);
        fputs("<ul>\n", out);
        for (size_t r = 0; r < n; r++) {
            cell c = cell_of(column, ids[r]);
            if (c.kind != CELL_FAIL) continue;
            char a[160], reason[REASON_MAX + 8];
            anchor(column->name, ids[r], a, sizeof a);
            one_line(c.first_message, reason, sizeof reason);
            fprintf(out, "<li id=\"%s\"><b>", a);
            html_str(out, ids[r]);
            fprintf(out, "</b> (%lld cases), e.g. <code>", (long long)c.failed);
            html_text(out, c.first_case ? c.first_case : "?");
            fputs("</code>: ", out);
            html_text(out, reason);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    fputs("</body></html>\n", out);
    return !ferror(out);
}
