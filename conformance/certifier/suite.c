/* suite.c — loading conformance cases; see suite.h. */
#include "conformance/certifier/suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/digest.h"
#include "core/json/json_writer.h"

const char *ts_suite_default_root(void) {
    const char *env = getenv("TURNSTILE_SUITE");
    return env && *env ? env : NULL;
}

bool ts_case_has_tag(const ts_case *c, const char *tag) {
    for (size_t i = 0; i < c->tag_count; i++)
        if (strcmp(c->tags[i], tag) == 0) return true;
    return false;
}

/* Where the suite's files come from: a directory, or files compiled in. */
typedef struct source {
    const char *root;            /* directory; NULL for files */
    const ts_suite_files *files;
} source;

/* The file at rel (relative to the suite root), malloc'd and NUL-terminated, or NULL. */
static char *source_read(const source *s, const char *rel, size_t *len) {
    errno = 0;
    if (s->root) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", s->root, rel);
        return ts_suite_read_file(path, len);
    }
    for (size_t i = 0; i < s->files->count; i++) {
        const ts_suite_file *f = &s->files->files[i];
        if (strcmp(f->path, rel) != 0) continue;
        char *copy = malloc(f->len + 1);
        if (!copy) return NULL;
        memcpy(copy, f->data, f->len);
        copy[f->len] = '\0';
        *len = f->len;
        return copy;
    }
    return NULL;
}

char *ts_suite_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    ts_buf buf;
    ts_buf_init(&buf);
    char chunk[65536];
    size_t n;
    bool too_large = false;
    int read_errno = 0;
    errno = 0;
    while (!too_large && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        too_large = buf.len + n > TS_SUITE_MAX_FILE_BYTES; /* /dev/zero, a FIFO that never ends */
        if (!too_large) ts_buf_append(&buf, chunk, n);
        errno = 0;
    }
    read_errno = errno; /* fread's own reason (EISDIR for a directory), kept before fclose */
    bool failed = too_large || ferror(f) || buf.failed;
    int error = too_large ? EFBIG : ferror(f) ? (read_errno ? read_errno : EIO) : ENOMEM;
    fclose(f);
    if (failed) {
        ts_buf_free(&buf);
        errno = error;
        return NULL;
    }
    if (!buf.data) ts_buf_append(&buf, "", 0);
    *len = buf.len;
    return buf.data;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Why source_read gave nothing: larger than the bound, or `cannot` ("cannot read ..."). */
static const char *unread(const char *cannot) { return errno == EFBIG ? "larger than 256 MiB: refused" : cannot; }

static bool fail(ts_error *err, const char *path, const char *message) {
    ts_error_clear(err);
    size_t n = strlen(path);
    if (n >= sizeof err->path) n = sizeof err->path - 1; /* keep the end: it names the file */
    memcpy(err->path, path + strlen(path) - n, n);
    err->path[n] = '\0';
    ts_error_set(err, TS_ERR_INPUT, "%s", message);
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

/* ------------------------------------------------------------------ platform tags ------- */

/* The content "$type"s .NET's AIContent polymorphism knows (Microsoft.Extensions.AI 10): any
 * other makes System.Text.Json throw before a .NET merger sees the stream (MEAI-WIRE.md). */
static const char *const dotnet_content_types[] = {
    "text", "reasoning", "data", "uri", "error", "usage", "functionCall", "functionResult", "hostedFile",
    "hostedVectorStore", "codeInterpreterToolCall", "codeInterpreterToolResult", "imageGenerationToolCall",
    "imageGenerationToolResult", "mcpServerToolCall", "mcpServerToolResult", "mcpServerToolApprovalRequest",
    "mcpServerToolApprovalResponse", "functionApprovalRequest", "functionApprovalResponse", "userInputRequest",
    "userInputResponse", "webSearchToolCall", "webSearchToolResult",
};

/* An offset beyond ±14:00 at the end of a timestamp ("...+23:59"): .NET's DateTimeOffset holds
 * at most ±14 hours. */
static bool offset_beyond_14h(ts_str t) {
    if (t.len < 6) return false;
    const char *o = t.ptr + t.len - 6;
    if ((o[0] != '+' && o[0] != '-') || o[3] != ':') return false;
    for (int i = 1; i < 6; i++)
        if (i != 3 && (o[i] < '0' || o[i] > '9')) return false;
    int hours = (o[1] - '0') * 10 + (o[2] - '0'), minutes = (o[4] - '0') * 10 + (o[5] - '0');
    return hours * 60 + minutes > 14 * 60;
}

static void add_tag(ts_case *c, const char *tag) {
    if (!ts_case_has_tag(c, tag) && c->tag_count < TS_CASE_MAX_TAGS) c->tags[c->tag_count++] = tag;
}

/* Tags a merge or host case from its input values (updates or emissions). */
static void tag_case(ts_case *c, const ts_json *values) {
    for (size_t i = 0; i < values->u.a.count; i++) {
        const ts_json *update = &values->u.a.items[i];
        if (offset_beyond_14h(ts_json_string(ts_json_get(update, "createdAt")))) add_tag(c, TS_TAG_OFFSET_BEYOND_14H);
        const ts_json *contents = ts_json_get(update, "contents");
        for (size_t k = 0; contents && contents->kind == TS_JSON_ARRAY && k < contents->u.a.count; k++) {
            ts_str type = ts_json_string(ts_json_get(&contents->u.a.items[k], "$type"));
            if (!type.ptr) continue;
            bool known = false;
            for (size_t t = 0; t < sizeof dotnet_content_types / sizeof *dotnet_content_types && !known; t++)
                known = ts_str_eq_cstr(type, dotnet_content_types[t]);
            if (!known) add_tag(c, TS_TAG_UNKNOWN_CONTENT_TYPE);
        }
    }
}

/* A resume case's request is many lines (conformance/certifier/resume_run.h); c->request is
 * the first, with "$STORE" for the directory the certifier makes, and the tool catalogue is the
 * scenario's. Its scenario must play as a resume case (ts_scenario_check_resume). */
static bool resume_request(ts_suite *suite, ts_case *c, const char *path, ts_error *err) {
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_error why;
    ts_error_clear(&why);
    char message[400];
    bool ok = ts_scenario_check_resume(&c->scenario, &scratch, &why);
    ts_arena_free(&scratch);
    ts_buf request;
    ts_buf_init(&request);
    if (ok) {
        ts_json_writer w;
        ts_jw_init_buf(&w, &request, 0);
        ts_jw_begin_object(&w);
        ts_jw_field_string(&w, "id", c->id);
        ts_jw_field_string(&w, "op", "resume");
        ts_jw_field_string(&w, "store", "$STORE");
        ts_jw_field_string(&w, "thread", c->scenario.execution_id);
        ts_jw_key(&w, "tools");
        ts_jw_begin_array(&w);
        for (size_t i = 0; i < c->scenario.tool_count; i++) {
            ts_jw_begin_object(&w);
            ts_jw_key(&w, "name");
            ts_jw_string_len(&w, c->scenario.tools[i].name.ptr, c->scenario.tools[i].name.len);
            ts_jw_end_object(&w);
        }
        ts_jw_end_array(&w);
        ts_jw_key(&w, "action");
        ts_jw_begin_object(&w);
        ts_jw_key(&w, "user");
        ts_jw_string_len(&w, c->scenario.input.ptr, c->scenario.input.len);
        ts_jw_end_object(&w);
        ts_jw_end_object(&w);
        c->request = ts_jw_finish(&w) ? ts_arena_strndup(&suite->arena, request.data, request.len) : NULL;
        c->request_len = request.len;
    }
    ts_buf_free(&request);
    if (ok && !c->request) return fail(err, path, "out of memory");
    if (!ok) snprintf(message, sizeof message, "not a resume case: %s", why.message);
    return ok || fail(err, path, message);
}

/* ------------------------------------------------------------------------ loading ------- */

/* Why id cannot be a case's id (PROTOCOL.md: ids of [A-Za-z0-9_.], for globs, XML and replay),
 * or NULL. */
static const char *case_id_error(ts_str id) {
    if (id.len == 0) return "a case id may not be empty";
    for (size_t k = 0; k < id.len; k++) {
        char ch = id.ptr[k];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'))
            return "a case id may hold only A-Z, a-z, 0-9, '_' and '.'";
    }
    return NULL;
}

/* The one-line request of a merge, host or journal case (its input values: the updates, the
 * emissions or the scenario) into c->request, in arena. False out of memory. */
static bool one_line_request(ts_arena *arena, ts_case *c, const ts_json *values, bool journal) {
    ts_buf request;
    ts_buf_init(&request);
    ts_json_writer w;
    ts_jw_init_buf(&w, &request, 0);
    ts_jw_begin_object(&w);
    ts_jw_field_string(&w, "id", c->id);
    ts_jw_field_string(&w, "op", c->op);
    ts_jw_key(&w, journal ? "scenario" : strcmp(c->op, "host") == 0 ? "emissions" : "updates");
    ts_jw_json(&w, values);
    if (c->crash_before_commit) ts_jw_field_int(&w, "crashBeforeCommit", c->crash_before_commit);
    ts_jw_end_object(&w);
    bool ok = ts_jw_finish(&w);
    c->request = ok ? ts_arena_strndup(arena, request.data, request.len) : NULL;
    c->request_len = request.len;
    ts_buf_free(&request);
    return c->request != NULL;
}

/* Feeds a manifest entry, as compact JSON in its own member order, into digest: its id, op,
 * rules, check, files and description are all part of what the suite is. False out of memory. */
static bool digest_entry(ts_sha256 *digest, const ts_json *entry) {
    ts_buf text;
    ts_buf_init(&text);
    ts_codec_write(&text, entry, TS_WRITE_COMPACT);
    bool ok = !text.failed;
    if (ok) ts_sha256_update(digest, text.data, text.len + 1);
    ts_buf_free(&text);
    return ok;
}

/* Loads one manifest entry of the case directory dir (relative to the suite root, "" for the
 * root itself) into c, and feeds the case's identity into digest: the entry, the input file's
 * bytes and the expected answer's bytes, for every kind of case (resume cases too). */
static bool load_case(ts_suite *suite, const source *src, const char *dir, const ts_json *entry, ts_case *c,
                      ts_sha256 *digest, ts_error *err) {
    ts_arena *arena = &suite->arena;
    ts_str id = ts_json_string(ts_json_get(entry, "id"));
    ts_str input = ts_json_string(ts_json_get(entry, "input"));
    ts_str expected = ts_json_string(ts_json_get(entry, "expected"));
    ts_str op = ts_json_string(ts_json_get(entry, "op"));
    const ts_json *rules = ts_json_get(entry, "rules");
    const char *slash = dir[0] ? "/" : "";
    char path[1024];
    snprintf(path, sizeof path, "%s%sMANIFEST.json", dir, slash);
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
    const char *bad_id = case_id_error(id);
    if (bad_id) return fail(err, path, bad_id);
    if (!digest_entry(digest, entry)) return fail(err, path, "out of memory");
    snprintf(path, sizeof path, "%s%s%.*s", dir, slash, (int)input.len, input.ptr);
    c->source = ts_str_dup(arena, ts_str_from(path)).ptr;
    size_t len;
    char *data = source_read(src, path, &len);
    if (!data) return fail(err, path, unread("cannot read the case's input"));
    ts_sha256_update(digest, data, len + 1);
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
    if (!journal) tag_case(c, &values);
    if (resume && !resume_request(suite, c, path, err)) return false;
    const ts_json *crash = ts_json_get(entry, "crashBeforeCommit");
    if (crash && (crash->kind != TS_JSON_INT || crash->u.i < 1 || !journal || resume))
        return fail(err, path, "\"crashBeforeCommit\" is a positive integer, for journal cases only");
    c->crash_before_commit = crash ? (long)crash->u.i : 0;
    if (resume) return true;
    if (!one_line_request(arena, c, &values, journal)) return fail(err, path, "out of memory");
    if (expected.ptr) {
        snprintf(path, sizeof path, "%s%s%.*s", dir, slash, (int)expected.len, expected.ptr);
        data = source_read(src, path, &len);
        if (!data) return fail(err, path, unread("cannot read the case's expected answer"));
        ts_sha256_update(digest, data, len + 1);
        ok = ts_codec_parse(arena, data, len, &c->expected, &inner);
        free(data);
        if (!ok) return fail(err, path, inner.message);
        c->has_expected = true;
    }
    return true;
}

/* The case directories of src, relative to its root ("" when the root holds a MANIFEST.json
 * itself), sorted: a stable order whatever the file system. Returns how many (malloc'd names). */
static size_t case_dirs(const source *src, char **names, size_t max) {
    size_t n = 0;
    if (src->root) {
        char path[1024];
        snprintf(path, sizeof path, "%s/MANIFEST.json", src->root);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            names[n++] = strdup("");
        }
        DIR *d = opendir(src->root);
        struct dirent *entry;
        while (d && (entry = readdir(d)) && n < max) {
            if (entry->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s/MANIFEST.json", src->root, entry->d_name);
            if ((f = fopen(path, "rb"))) {
                fclose(f);
                names[n++] = strdup(entry->d_name);
            }
        }
        if (d) closedir(d);
    } else {
        for (size_t i = 0; i < src->files->count && n < max; i++) {
            const char *p = src->files->files[i].path, *slash = strrchr(p, '/');
            if (strcmp(slash ? slash + 1 : p, "MANIFEST.json") != 0) continue;
            names[n++] = slash ? strndup(p, (size_t)(slash - p)) : strdup("");
        }
    }
    qsort(names, n, sizeof *names, compare_names);
    return n;
}

static bool load(ts_suite *suite, const source *src, ts_error *err) {
    char *names[256];
    size_t n_names = case_dirs(src, names, 256);
    size_t cap = 0;
    bool ok = true;
    ts_sha256 digest;
    ts_sha256_init(&digest);
    for (size_t k = 0; k < n_names && ok; k++) {
        char path[1024];
        if (!names[k]) {
            ok = fail(err, "MANIFEST.json", "out of memory");
            break;
        }
        snprintf(path, sizeof path, "%s%sMANIFEST.json", names[k], names[k][0] ? "/" : "");
        size_t len;
        char *text = source_read(src, path, &len);
        if (!text) {
            ok = fail(err, path, unread("cannot read the manifest"));
            break;
        }
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
            ok = load_case(suite, src, names[k], &cases->u.a.items[i], &suite->cases[suite->count], &digest, err);
            if (!ok) break;
            for (size_t j = 0; j < suite->count && ok; j++)
                if (strcmp(suite->cases[j].id, suite->cases[suite->count].id) == 0)
                    ok = fail(err, path, "a case id appears twice in the suite");
            suite->count += ok;
        }
    }
    for (size_t k = 0; k < n_names; k++) free(names[k]);
    unsigned char sum[TS_SHA256_LEN];
    if (ts_sha256_final(&digest, sum))
        for (size_t i = 0; i < TS_SHA256_LEN; i++) snprintf(suite->hash + 2 * i, 3, "%02x", sum[i]);
    if (ok && suite->count == 0)
        ok = fail(err, src->root ? src->root : "built-in", "the suite holds no case (no MANIFEST.json in it or in a directory in it)");
    return ok;
}

bool ts_suite_load(ts_suite *suite, const char *root, ts_error *err) {
    memset(suite, 0, sizeof *suite);
    ts_arena_init(&suite->arena);
    snprintf(suite->root, sizeof suite->root, "%s", root);
    snprintf(suite->version, sizeof suite->version, "unversioned");
    DIR *d = opendir(root);
    if (!d) return fail(err, root, "no such suite directory (give --suite DIR or set TURNSTILE_SUITE)");
    closedir(d);
    size_t len;
    char path[1024];
    snprintf(path, sizeof path, "%s/VERSION", root);
    char *version = ts_suite_read_file(path, &len);
    if (version) {
        size_t n = strcspn(version, "\r\n");
        if (n > 0 && n < sizeof suite->version) snprintf(suite->version, sizeof suite->version, "%.*s", (int)n, version);
        free(version);
    }
    source src = {root, NULL};
    return load(suite, &src, err);
}

bool ts_suite_load_files(ts_suite *suite, const ts_suite_files *files, ts_error *err) {
    memset(suite, 0, sizeof *suite);
    ts_arena_init(&suite->arena);
    snprintf(suite->root, sizeof suite->root, "built-in");
    snprintf(suite->version, sizeof suite->version, "%s", files->version && *files->version ? files->version : "unversioned");
    source src = {NULL, files};
    return load(suite, &src, err);
}

void ts_suite_free(ts_suite *suite) {
    if (!suite) return;
    ts_arena_free(&suite->arena);
    suite->cases = NULL;
    suite->count = 0;
}
