/* failure_class.c — the class annotation of an expected-failures entry; see failure_class.h. */
#include "conformance/certifier/failure_class.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TS_FAILURE_KIND_COUNT] = {"library-defect", "documented", "integration"};

const char *ts_failure_kind_name(ts_failure_kind kind) { return kind < TS_FAILURE_KIND_COUNT ? kind_names[kind] : "?"; }

void ts_failure_classes_free(ts_failure_classes *c) {
    for (size_t i = 0; i < c->count; i++) {
        free(c->items[i].where);
        free(c->items[i].finding);
    }
    c->count = 0;
}

/* A cursor over the annotation, for tokens and the column of each. */
typedef struct cursor {
    const char *line;
    size_t at, end;
    int line_number;
    char *why;
    size_t why_size;
} cursor;

static bool fail(cursor *c, size_t column_at, const char *what, const char *token, size_t token_len) {
    snprintf(c->why, c->why_size, "%d:%zu: class: %s%s%.*s%s", c->line_number, column_at + 1, what, token ? " '" : "",
             (int)(token_len > 200 ? 200 : token_len), token ? token : "", token ? "'" : "");
    return false;
}

/* The next token (up to white space or a semicolon) into start and len; false at ';' or the end. */
static bool next_token(cursor *c, size_t *start, size_t *len) {
    while (c->at < c->end && isspace((unsigned char)c->line[c->at])) c->at++;
    *start = c->at;
    while (c->at < c->end && !isspace((unsigned char)c->line[c->at]) && c->line[c->at] != ';') c->at++;
    *len = c->at - *start;
    return *len > 0;
}

/* PATH:LINE or PATH:LINE-LINE, PATH non-empty. */
static bool source_line(const char *s, size_t len) {
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':') colon = s + i;
    if (!colon || colon == s) return false;
    size_t i = (size_t)(colon - s) + 1, digits = 0;
    while (i < len && isdigit((unsigned char)s[i])) i++, digits++;
    if (!digits) return false;
    if (i < len && s[i] == '-') {
        size_t more = 0;
        for (i++; i < len && isdigit((unsigned char)s[i]); i++) more++;
        if (!more) return false;
    }
    return i == len;
}

static bool finding_name(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i])) return false;
    return true;
}

/* One item: KIND WHERE [FINDING], up to ';' or the end. */
static bool parse_item(cursor *c, ts_failure_class *item) {
    size_t start, len;
    if (!next_token(c, &start, &len)) return fail(c, start, "expected a kind (library-defect, documented or integration)", NULL, 0);
    int kind = -1;
    for (int k = 0; k < TS_FAILURE_KIND_COUNT; k++)
        if (strlen(kind_names[k]) == len && !memcmp(c->line + start, kind_names[k], len)) kind = k;
    if (kind < 0) return fail(c, start, "the kind must be library-defect, documented or integration, not", c->line + start, len);
    item->kind = (ts_failure_kind)kind;
    if (!next_token(c, &start, &len))
        return fail(c, start, kind == TS_FAILURE_DOCUMENTED ? "documented needs a link (http(s)://...) or PATH:LINE"
                              : kind == TS_FAILURE_LIBRARY_DEFECT ? "library-defect needs the library's source line (PATH:LINE)"
                                                                   : "integration needs the adapter's line (PATH:LINE)", NULL, 0);
    const char *w = c->line + start;
    bool link = (len > 8 && !strncmp(w, "https://", 8)) || (len > 7 && !strncmp(w, "http://", 7));
    if (kind == TS_FAILURE_DOCUMENTED && !link && !source_line(w, len))
        return fail(c, start, "documented needs a link (http(s)://...) or the documented declaration as PATH:LINE, got", w, len);
    if (kind != TS_FAILURE_DOCUMENTED && !source_line(w, len))
        return fail(c, start, kind == TS_FAILURE_LIBRARY_DEFECT ? "library-defect needs the library's source as PATH:LINE, got"
                                                                 : "integration needs the adapter's line as PATH:LINE, got", w, len);
    if (!(item->where = strndup(w, len))) return fail(c, start, "out of memory", NULL, 0);
    if (next_token(c, &start, &len)) {
        if (!finding_name(c->line + start, len)) return fail(c, start, "a finding is named by letters, digits, '_', '.', '-', not", c->line + start, len);
        if (!(item->finding = strndup(c->line + start, len))) return fail(c, start, "out of memory", NULL, 0);
    }
    if (next_token(c, &start, &len)) return fail(c, start, "unexpected", c->line + start, len);
    return true;
}

/* Where the annotation's "class:" is in the comment (at its start or after "; "), or 0. */
static size_t annotation_start(const char *line, size_t hash, size_t end) {
    for (size_t i = hash + 1; i + 6 <= end; i++) {
        if (strncmp(line + i, "class:", 6) != 0) continue;
        size_t k = i;
        while (k > hash + 1 && (line[k - 1] == ' ' || line[k - 1] == '\t')) k--;
        if (k == hash + 1 || (line[k - 1] == ';' && k < i)) return i;
    }
    return 0;
}

bool ts_failure_classes_parse(const char *line, size_t hash, int line_number, ts_failure_classes *out, char *why,
                              size_t why_size) {
    memset(out, 0, sizeof *out);
    size_t end = strlen(line);
    size_t at = annotation_start(line, hash, end);
    if (!at) return true;
    cursor c = {line, at + 6, end, line_number, why, why_size};
    for (;;) {
        if (out->count == TS_FAILURE_CLASSES_MAX) {
            ts_failure_classes_free(out);
            return fail(&c, c.at, "more than 8 classes in one entry", NULL, 0);
        }
        ts_failure_class *item = &out->items[out->count++];
        memset(item, 0, sizeof *item);
        if (!parse_item(&c, item)) {
            ts_failure_classes_free(out);
            return false;
        }
        if (c.at >= c.end) return true;
        c.at++; /* past ';' */
    }
}

void ts_failure_classes_json(ts_json_writer *w, const ts_failure_classes *c) {
    ts_jw_begin_array(w);
    for (size_t i = 0; i < c->count; i++) {
        ts_jw_begin_object(w);
        ts_jw_field_string(w, "kind", ts_failure_kind_name(c->items[i].kind));
        ts_jw_field_string(w, "where", c->items[i].where);
        ts_jw_key(w, "finding");
        if (c->items[i].finding) ts_jw_string(w, c->items[i].finding);
        else ts_jw_null(w);
        ts_jw_end_object(w);
    }
    ts_jw_end_array(w);
}
