/* parse_model.c — parse + model, three ways, for ci/bench/merge_bench.sh: what each JSON parser
 * costs once its values are turnstile's (ts_json in an arena, read into ts_update by the model).
 *
 *   parse_model simdjson FILE   ts_update_reader: the codec's fast path, windows, one pass (the
 *                               mode keeps its name: that path was simdjson's DOM until issue
 *                               26, and is turnstile's own scanner, core/json/scan.h, since)
 *   parse_model jansson FILE    the whole file, ts_value_reader (jansson, tree copied into the
 *                               arena, freed), ts_update_from_json: the codec before simdjson
 *   parse_model cjson FILE      the whole file, cJSON per line, its tree copied into the arena,
 *                               ts_update_from_json: what a cJSON codec would cost
 *
 * Each value is dropped once read (the arena is reset per update). Prints "<updates>\n".
 * cJSON reads duplicate keys and lone surrogates without a word: its row is an upper bound on
 * its speed as a codec, before the checks W2 would add.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/json/codec.h"
#include "core/merge/model.h"
#include "core/merge/reader.h"
#include "ci/bench/read_all.h"

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    int failed = !f || bench_read_all(f, &data, len);
    if (f) fclose(f);
    return failed ? NULL : data;
}

/* cJSON's tree into arena values (as the codec's strict path copies jansson's). */
static bool from_cjson(ts_arena *arena, const cJSON *src, ts_json *out) {
    *out = ts_json_make_null();
    if (cJSON_IsNull(src)) return true;
    if (cJSON_IsBool(src)) {
        *out = ts_json_make_bool(cJSON_IsTrue(src));
        return true;
    }
    if (cJSON_IsNumber(src)) {
        double d = src->valuedouble;
        if (d == (double)(int64_t)d && d > -9.2e18 && d < 9.2e18) {
            *out = ts_json_make_int((int64_t)d);
        } else {
            out->kind = TS_JSON_REAL;
            out->u.r = d;
        }
        return true;
    }
    if (cJSON_IsString(src)) {
        ts_str s = ts_str_dup(arena, ts_str_from(src->valuestring));
        *out = ts_json_make_string(s);
        return s.ptr != NULL;
    }
    size_t n = 0;
    for (const cJSON *c = src->child; c; c = c->next) n++;
    if (cJSON_IsArray(src)) {
        ts_json *items = ts_arena_alloc(arena, n * sizeof *items);
        if (!items) return false;
        size_t i = 0;
        for (const cJSON *c = src->child; c; c = c->next)
            if (!from_cjson(arena, c, &items[i++])) return false;
        out->kind = TS_JSON_ARRAY;
        out->u.a.items = items;
        out->u.a.count = n;
        return true;
    }
    ts_member *members = ts_arena_alloc(arena, n * sizeof *members);
    if (!members) return false;
    size_t i = 0;
    for (const cJSON *c = src->child; c; c = c->next, i++) {
        size_t key_len = strlen(c->string);
        const char *common = ts_json_common_key(c->string, key_len);
        members[i].key = common ? (ts_str){common, key_len} : ts_str_dup(arena, (ts_str){c->string, key_len});
        if (!members[i].key.ptr || !from_cjson(arena, c, &members[i].value)) return false;
    }
    out->kind = TS_JSON_OBJECT;
    out->u.o.members = members;
    out->u.o.count = n;
    return true;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: parse_model simdjson|jansson|cjson FILE\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_update update;
    unsigned long long updates = 0;
    int status = 0;
    if (strcmp(mode, "simdjson") == 0) {
        FILE *f = fopen(path, "rb");
        ts_update_reader *reader = f ? ts_update_reader_open_file(f, 0) : NULL;
        int got;
        while (reader && (got = ts_update_reader_next(reader, NULL, &update, &err)) == 1) updates++;
        status = !reader || got < 0 ? 2 : 0;
        ts_update_reader_close(reader);
        if (f) fclose(f);
    } else {
        size_t len = 0;
        char *data = read_all(path, &len);
        if (!data) {
            fprintf(stderr, "parse_model: cannot read %s\n", path);
            return 1;
        }
        if (strcmp(mode, "jansson") == 0) {
            ts_value_reader reader;
            ts_value_reader_init(&reader, data, len);
            ts_json value;
            int line, got;
            while ((got = ts_value_reader_next(&reader, &arena, &value, &line, &err)) == 1) {
                if (!ts_update_from_json(&arena, &value, updates, line, "", &update, &err)) break;
                updates++;
                ts_arena_reset(&arena);
            }
            status = got != 0 ? 2 : 0;
        } else if (strcmp(mode, "cjson") == 0) {
            for (size_t pos = 0; pos < len && status == 0;) {
                const char *start = data + pos;
                const char *nl = memchr(start, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - start) : len - pos;
                pos += n + (nl ? 1 : 0);
                if (n == 0) continue;
                cJSON *root = cJSON_ParseWithLength(start, n);
                ts_json value;
                if (!root || !from_cjson(&arena, root, &value) ||
                    !ts_update_from_json(&arena, &value, updates, (int)updates + 1, "", &update, &err))
                    status = 2;
                cJSON_Delete(root);
                updates++;
                ts_arena_reset(&arena);
            }
        } else {
            fprintf(stderr, "parse_model: unknown parser '%s'\n", mode);
            status = 2;
        }
        free(data);
    }
    ts_arena_free(&arena);
    if (status) {
        fprintf(stderr, "parse_model %s: %s: %s\n", mode, path, err.message[0] ? err.message : "cannot read");
        return status;
    }
    printf("%llu\n", updates);
    return fflush(stdout) == 0 ? 0 : 1;
}
