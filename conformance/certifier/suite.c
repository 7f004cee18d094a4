/* suite.c — loading conformance cases; see suite.h. */
#include "conformance/certifier/suite.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/resume_expect.h"
#include "core/json/buf.h"
#include "core/json/codec.h"

const char *ts_suite_default_root(void) {
    const char *env = getenv("TURNSTILE_SUITE");
    return env && *env ? env : "conformance/cases";
}

char *ts_suite_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    ts_buf buf;
    ts_buf_init(&buf);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) ts_buf_append(&buf, chunk, n);
    bool failed = ferror(f) || buf.failed;
    fclose(f);
    if (failed) {
        ts_buf_free(&buf);
        return NULL;
    }
    if (!buf.data) ts_buf_append(&buf, "", 0);
    *len = buf.len;
    return buf.data;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool fail(ts_error *err, const char *path, const char *message) {
    ts_error_clear(err);
    size_t n = strlen(path);
    if (n >= sizeof err->path) n = sizeof err->path - 1; /* keep the end: it names the file */
    memcpy(err->path, path + strlen(path) - n, n);
    err->path[n] = '\0';
    ts_error_set(err, "%s", message);
    return false;
}

/* The input's JSON values (objects, or arrays of them) as one array, for the request. */
static bool input_values(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err) {
    ts_value_reader reader;
    ts_value_reader_init(&reader, data, len);
    size_t count = 0, cap = 16;
    ts_json *items = ts_arena_alloc(arena, cap * sizeof *items);
    ts_json value;
    int got;
    while (items && (got = ts_value_reader_next(&reader, arena, &value, NULL, err)) == 1) {
        size_t n = value.kind == TS_JSON_ARRAY ? value.u.a.count : 1;
        while (count + n > cap) {
            items = ts_arena_grow(arena, items, cap * sizeof *items, cap * 2 * sizeof *items);
            cap *= 2;
            if (!items) return false;
        }
        for (size_t i = 0; i < n; i++) items[count++] = value.kind == TS_JSON_ARRAY ? value.u.a.items[i] : value;
    }
    if (!items || got < 0) return false;
    *out = (ts_json){TS_JSON_ARRAY, {.a = {items, count}}};
    return true;
}

/* A resume case's request is many lines (conformance/certifier/resume_run.h); c->request is
 * the first, with "$STORE" for the directory the certifier makes. Its scenario must be one. */
static bool resume_request(ts_suite *suite, ts_case *c, const char *path, ts_error *err) {
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_expected x;
    char why[300], message[400];
    bool ok = ts_expect_resume(&c->scenario, &scratch, &x, why, sizeof why);
    ts_buf request;
    ts_buf_init(&request);
    if (ok) {
        ts_buf_append_str(&request, "{\"id\":");
        ts_codec_write_string(&request, ts_str_from(c->id));
        ts_buf_appendf(&request, ",\"op\":\"resume\",\"store\":\"$STORE\",\"thread\":\"%s\",\"tools\":[",
                       c->scenario.execution_id);
        for (size_t i = 0; i < x.tool_count; i++) {
            ts_buf_append_str(&request, i ? ",{\"name\":" : "{\"name\":");
            ts_codec_write_string(&request, ts_str_from(x.tools[i]));
            ts_buf_append_char(&request, '}');
        }
        ts_buf_append_str(&request, "],\"action\":{\"user\":");
        ts_codec_write_string(&request, c->scenario.input);
        ts_buf_append_str(&request, "}}");
        c->request = ts_arena_strndup(&suite->arena, request.data, request.len);
        c->request_len = request.len;
    }
    ts_buf_free(&request);
    ts_arena_free(&scratch);
    if (!ok) snprintf(message, sizeof message, "not a resume case: %s", why);
    return ok || fail(err, path, message);
}

static bool load_case(ts_suite *suite, const char *dir, const ts_json *entry, ts_case *c, ts_error *err) {
    ts_arena *arena = &suite->arena;
    ts_str id = ts_json_string(ts_json_get(entry, "id"));
    ts_str input = ts_json_string(ts_json_get(entry, "input"));
    ts_str expected = ts_json_string(ts_json_get(entry, "expected"));
    ts_str op = ts_json_string(ts_json_get(entry, "op"));
    const ts_json *rules = ts_json_get(entry, "rules");
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.json", dir);
    if (!id.ptr || !input.ptr || !rules || rules->kind != TS_JSON_ARRAY)
        return fail(err, path, "a case needs a string \"id\", \"input\" and an array \"rules\"");
    memset(c, 0, sizeof *c);
    c->id = ts_str_dup(arena, id).ptr;
    c->op = op.ptr ? ts_str_dup(arena, op).ptr : "merge";
    c->description = ts_str_dup(arena, ts_json_string(ts_json_get(entry, "description"))).ptr;
    c->rules = ts_arena_calloc(arena, rules->u.a.count + 1, sizeof *c->rules);
    if (!c->id || !c->rules) return fail(err, path, "out of memory");
    for (size_t i = 0; i < rules->u.a.count; i++) {
        ts_str rule = ts_json_string(&rules->u.a.items[i]);
        if (!rule.ptr) return fail(err, path, "a case's \"rules\" must be strings");
        c->rules[c->rule_count++] = rule.ptr;
    }
    for (size_t k = 0; k < id.len; k++) { /* PROTOCOL.md: ids of [A-Za-z0-9_.] (globs, XML, replay) */
        char ch = id.ptr[k];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'))
            return fail(err, path, "a case id may hold only A-Z, a-z, 0-9, '_' and '.'");
    }
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)input.len, input.ptr);
    c->source = ts_str_dup(arena, ts_str_from(path)).ptr;
    size_t len;
    char *data = ts_suite_read_file(path, &len);
    if (!data) return fail(err, path, "cannot read the case's input");
    bool resume = strcmp(c->op, "resume") == 0, journal = resume || strcmp(c->op, "journal") == 0;
    ts_json values;
    ts_error inner;
    ts_error_clear(&inner);
    bool ok = journal ? ts_codec_parse(arena, data, len, &values, &inner) &&
                            ts_scenario_from_json(&values, arena, &c->scenario, &inner)
                      : input_values(arena, data, len, &values, &inner) &&
                            ts_stream_from_array(arena, &values, "", &c->updates, &inner);
    free(data);
    if (!ok) {
        char message[600];
        ts_error_format(&inner, path, message, sizeof message);
        return fail(err, path, message);
    }
    if (resume && !resume_request(suite, c, path, err)) return false;
    const ts_json *crash = ts_json_get(entry, "crashBeforeCommit");
    if (crash && (crash->kind != TS_JSON_INT || crash->u.i < 1 || !journal || resume))
        return fail(err, path, "\"crashBeforeCommit\" is a positive integer, for journal cases only");
    c->crash_before_commit = crash ? (long)crash->u.i : 0;
    if (resume) return true;
    ts_buf request;
    ts_buf_init(&request);
    ts_buf_append_str(&request, "{\"id\":");
    ts_codec_write_string(&request, id);
    ts_buf_appendf(&request, ",\"op\":\"%s\",\"%s\":", c->op,
                   journal ? "scenario" : strcmp(c->op, "host") == 0 ? "emissions" : "updates");
    ts_codec_write(&request, &values, TS_WRITE_COMPACT);
    if (c->crash_before_commit) ts_buf_appendf(&request, ",\"crashBeforeCommit\":%ld", c->crash_before_commit);
    ts_buf_append_char(&request, '}');
    c->request = ts_arena_strndup(arena, request.data, request.len);
    c->request_len = request.len;
    ts_buf_free(&request);
    if (!c->request) return fail(err, path, "out of memory");
    if (expected.ptr) {
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)expected.len, expected.ptr);
        data = ts_suite_read_file(path, &len);
        if (!data) return fail(err, path, "cannot read the case's expected answer");
        ok = ts_codec_parse(arena, data, len, &c->expected, &inner);
        free(data);
        if (!ok) return fail(err, path, inner.message);
        c->has_expected = true;
    }
    return true;
}

bool ts_suite_load(ts_suite *suite, const char *root, ts_error *err) {
    memset(suite, 0, sizeof *suite);
    ts_arena_init(&suite->arena);
    snprintf(suite->root, sizeof suite->root, "%s", root);
    DIR *d = opendir(root);
    if (!d) return fail(err, root, "no such suite directory (give --suite DIR or set TURNSTILE_SUITE)");
    char *names[256];
    size_t n_names = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) && n_names < 256) {
        if (entry->d_name[0] == '.') continue;
        names[n_names++] = strdup(entry->d_name);
    }
    closedir(d);
    qsort(names, n_names, sizeof *names, compare_names); /* a stable order, whatever the file system */
    size_t cap = 0;
    bool ok = true;
    for (size_t k = 0; k < n_names && ok; k++) {
        char dir[800], path[1024];
        snprintf(dir, sizeof dir, "%s/%s", root, names[k]);
        snprintf(path, sizeof path, "%s/MANIFEST.json", dir);
        size_t len;
        char *text = ts_suite_read_file(path, &len);
        if (!text) continue; /* not a case directory */
        ts_json manifest;
        ts_error inner;
        if (!ts_codec_parse(&suite->arena, text, len, &manifest, &inner)) {
            free(text);
            ok = fail(err, path, inner.message);
            break;
        }
        free(text);
        const ts_json *cases = ts_json_get(&manifest, "cases");
        if (!cases || cases->kind != TS_JSON_ARRAY) {
            ok = fail(err, path, "the manifest has no \"cases\" array");
            break;
        }
        for (size_t i = 0; i < cases->u.a.count && ok; i++) {
            if (suite->count == cap) {
                size_t new_cap = cap ? cap * 2 : 256;
                ts_case *grown = ts_arena_grow(&suite->arena, suite->cases, cap * sizeof *grown, new_cap * sizeof *grown);
                if (!grown) {
                    ok = fail(err, path, "out of memory");
                    break;
                }
                suite->cases = grown;
                cap = new_cap;
            }
            ok = load_case(suite, dir, &cases->u.a.items[i], &suite->cases[suite->count], err);
            if (!ok) break;
            for (size_t j = 0; j < suite->count && ok; j++)
                if (strcmp(suite->cases[j].id, suite->cases[suite->count].id) == 0)
                    ok = fail(err, path, "a case id appears twice in the suite");
            suite->count += ok;
        }
    }
    for (size_t k = 0; k < n_names; k++) free(names[k]);
    if (ok && suite->count == 0) ok = fail(err, root, "the suite holds no case (no */MANIFEST.json)");
    return ok;
}

void ts_suite_free(ts_suite *suite) {
    if (!suite) return;
    ts_arena_free(&suite->arena);
    suite->cases = NULL;
    suite->count = 0;
}
