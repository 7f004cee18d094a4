/* golden_merge_test.c — replays conformance/cases/merge/ through the reference merger.
 *
 * For every case of cases/merge and cases/merge-generated (their MANIFEST.json): the reference's answer equals the expected file (as JSON
 * values: key order and number spelling aside); the expected file satisfies the case's
 * hand-written check (message order, fields), so a golden never just records what the
 * reference said; merging twice gives the same bytes (D1). And the manifest itself is linted:
 * ids unique and of the form Merge.<Rule>.<name>, every file present, every rule it cites
 * defined in SPEC.md, every MUST/SHOULD rule of SPEC.md §3 covered by at least one case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "core/testing/unit.h"

static const char *const case_dirs[] = {"conformance/cases/merge/", "conformance/cases/merge-generated/"};
enum { CASE_DIRS = sizeof case_dirs / sizeof case_dirs[0] };

/* The order key of a message as the authoring tool writes it: messageId, else "text:<text>". */
static void message_key(const ts_json *m, char *out, size_t size) {
    ts_str id = ts_json_string(ts_json_get(m, "messageId"));
    if (id.ptr) {
        snprintf(out, size, "%.*s", (int)id.len, id.ptr);
        return;
    }
    const ts_json *contents = ts_json_get(m, "contents");
    for (size_t i = 0; contents && i < contents->u.a.count; i++) {
        const ts_json *c = &contents->u.a.items[i];
        if (ts_str_eq_cstr(ts_content_type(c), "text")) {
            ts_str t = ts_json_string(ts_json_get(c, "text"));
            snprintf(out, size, "text:%.*s", (int)t.len, t.ptr ? t.ptr : "");
            return;
        }
    }
    snprintf(out, size, "text:");
}

static int case_failures;

static void fail_case(const char *id, const char *what) {
    fprintf(stderr, "case %s: %s\n", id, what);
    case_failures++;
}

static void verify_check(const char *id, const ts_json *expected, const ts_json *check) {
    const ts_json *order = ts_json_get(check, "order");
    const ts_json *messages = ts_json_get(expected, "messages");
    if (!order || !messages || order->u.a.count != messages->u.a.count) {
        fail_case(id, "expected file's message count differs from the hand-written order");
        return;
    }
    for (size_t i = 0; i < order->u.a.count; i++) {
        char key[256];
        message_key(&messages->u.a.items[i], key, sizeof key);
        ts_str want = ts_json_string(&order->u.a.items[i]);
        if (!ts_str_eq_cstr(want, key)) fail_case(id, "expected file's message order differs from the hand-written order");
    }
    const ts_json *fields = ts_json_get(check, "fields");
    for (size_t i = 0; fields && i < fields->u.o.count; i++) {
        const ts_member *f = &fields->u.o.members[i];
        const ts_json *got = ts_json_at_path(expected, f->key.ptr);
        ts_str want = ts_json_string(&f->value);
        bool ok;
        if (ts_str_eq_cstr(want, "@absent")) {
            ok = got == NULL;
        } else if (ts_str_eq_cstr(want, "@derived")) {
            ts_str s = ts_json_string(got);
            ok = s.ptr && s.len == 42 && strncmp(s.ptr, "turnstile-", 10) == 0;
        } else {
            ok = got && ts_json_equal(got, &f->value);
        }
        if (!ok) {
            char what[300];
            snprintf(what, sizeof what, "expected file fails the hand-written check of %s", f->key.ptr);
            fail_case(id, what);
        }
    }
}

static bool merge_to_text(const char *input, size_t len, ts_buf *out, ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_stream stream;
    ts_response response;
    ts_json json;
    bool ok = ts_stream_read(&arena, input, len, &stream, err) &&
              ts_merge(&arena, stream.updates, stream.count, NULL, &response, err) &&
              ts_response_to_json(&response, &arena, &json) && ts_codec_write(out, &json, TS_WRITE_COMPACT);
    ts_arena_free(&arena);
    return ok;
}

static void run_case(const char *dir, const ts_json *c) {
    ts_str id = ts_json_string(ts_json_get(c, "id"));
    char path[512];
    size_t input_len = 0, expected_len = 0;
    snprintf(path, sizeof path, "%s%s", dir, ts_json_string(ts_json_get(c, "input")).ptr);
    char *input = ts_unit_read_file(path, &input_len);
    snprintf(path, sizeof path, "%s%s", dir, ts_json_string(ts_json_get(c, "expected")).ptr);
    char *expected_text = ts_unit_read_file(path, &expected_len);
    if (!input || !expected_text) {
        fail_case(id.ptr, "input or expected file missing");
        free(input);
        free(expected_text);
        return;
    }
    ts_buf first, second;
    ts_buf_init(&first);
    ts_buf_init(&second);
    ts_error err;
    ts_error_clear(&err);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json expected, actual;
    if (!merge_to_text(input, input_len, &first, &err)) {
        fail_case(id.ptr, err.message);
    } else if (!merge_to_text(input, input_len, &second, &err) || first.len != second.len ||
               memcmp(first.data, second.data, first.len) != 0) {
        fail_case(id.ptr, "D1: merging twice gave different bytes");
    } else if (!ts_codec_parse(&arena, expected_text, expected_len, &expected, &err) ||
               !ts_codec_parse(&arena, first.data, first.len, &actual, &err)) {
        fail_case(id.ptr, err.message);
    } else {
        if (!ts_json_equal(&expected, &actual)) {
            fail_case(id.ptr, "the reference's answer differs from the expected file");
            fprintf(stderr, "  got: %s\n", first.data);
        }
        verify_check(id.ptr, &expected, ts_json_get(c, "check"));
    }
    ts_arena_free(&arena);
    ts_buf_free(&first);
    ts_buf_free(&second);
    free(input);
    free(expected_text);
}

/* Rule ids SPEC.md defines: "**ID (MUST|SHOULD|MAY)". */
static size_t spec_rules(const char *spec, char rules[][8], char levels[][8], size_t max) {
    size_t n = 0;
    for (const char *p = strstr(spec, "**"); p && n < max; p = strstr(p + 2, "**")) {
        char id[8], level[8];
        if (sscanf(p + 2, "%7[A-Z0-9] (%7[A-Z])", id, level) == 2 &&
            (!strcmp(level, "MUST") || !strcmp(level, "SHOULD") || !strcmp(level, "MAY"))) {
            strcpy(rules[n], id);
            strcpy(levels[n], level);
            n++;
        }
    }
    return n;
}

static ts_arena manifest_arena;
static ts_json manifests[CASE_DIRS];
static char *spec_text;

static void test_every_case_matches_its_golden(void) {
    size_t total = 0;
    for (size_t d = 0; d < CASE_DIRS; d++) {
        const ts_json *cases = ts_json_get(&manifests[d], "cases");
        for (size_t i = 0; cases && i < cases->u.a.count; i++) run_case(case_dirs[d], &cases->u.a.items[i]);
        total += cases ? cases->u.a.count : 0;
    }
    printf("%zu golden merge cases replayed\n", total);
    CHECK(total >= 150);
    CHECK(case_failures == 0);
}

static void test_manifest_is_well_formed(void) {
    char rules[64][8], levels[64][8];
    size_t rule_count = spec_rules(spec_text, rules, levels, 64);
    CHECK(rule_count >= 25);
    bool covered[64] = {false};
    for (size_t d = 0; d < CASE_DIRS; d++) {
    const ts_json *cases = ts_json_get(&manifests[d], "cases");
    for (size_t i = 0; cases && i < cases->u.a.count; i++) {
        const ts_json *c = &cases->u.a.items[i];
        ts_str id = ts_json_string(ts_json_get(c, "id"));
        CHECK(id.ptr && strncmp(id.ptr, "Merge.", 6) == 0);
        for (size_t k = 0; id.ptr && k < id.len; k++)
            CHECK((id.ptr[k] >= 'A' && id.ptr[k] <= 'Z') || (id.ptr[k] >= 'a' && id.ptr[k] <= 'z') ||
                  (id.ptr[k] >= '0' && id.ptr[k] <= '9') || id.ptr[k] == '_' || id.ptr[k] == '.');
        for (size_t e = 0; e <= d; e++) { /* unique across every directory */
            const ts_json *others = ts_json_get(&manifests[e], "cases");
            for (size_t j = 0; others && j < (e == d ? i : others->u.a.count); j++)
                CHECK(!ts_str_eq(id, ts_json_string(ts_json_get(&others->u.a.items[j], "id"))));
        }
        ts_str description = ts_json_string(ts_json_get(c, "description"));
        CHECK(description.len >= 20);
        const ts_json *case_rules = ts_json_get(c, "rules");
        CHECK(case_rules && case_rules->kind == TS_JSON_ARRAY && case_rules->u.a.count > 0);
        for (size_t r = 0; case_rules && r < case_rules->u.a.count; r++) {
            ts_str rule = ts_json_string(&case_rules->u.a.items[r]);
            bool known = false;
            for (size_t s = 0; s < rule_count; s++) {
                if (ts_str_eq_cstr(rule, rules[s])) {
                    known = true;
                    covered[s] = true;
                }
            }
            if (!known) fprintf(stderr, "case %s cites a rule SPEC.md does not define: %s\n", id.ptr, rule.ptr);
            CHECK(known);
        }
        /* The id's second segment is the case's main rule, and the case must cite it. */
        char main_rule[8] = "";
        sscanf(id.ptr + 6, "%7[A-Z0-9]", main_rule);
        bool cites_main = false;
        for (size_t r = 0; case_rules && r < case_rules->u.a.count; r++)
            cites_main |= ts_str_eq_cstr(ts_json_string(&case_rules->u.a.items[r]), main_rule);
        CHECK(cites_main);
    }
    }
    for (size_t s = 0; s < rule_count; s++) {
        if (strcmp(levels[s], "MAY") == 0 || rules[s][0] == 'J') continue; /* J: golden_journal_test */
        if (!covered[s]) fprintf(stderr, "SPEC rule %s (%s) has no case\n", rules[s], levels[s]);
        /* W2, W6 are about rejecting input: covered by conformance/cli/cli_test.sh. */
        CHECK(covered[s] || !strcmp(rules[s], "W2") || !strcmp(rules[s], "W6"));
    }
}

int main(void) {
    size_t spec_len = 0;
    spec_text = ts_unit_read_file("conformance/SPEC.md", &spec_len);
    ts_arena_init(&manifest_arena);
    char *texts[CASE_DIRS] = {NULL};
    for (size_t d = 0; d < CASE_DIRS; d++) {
        char path[256];
        size_t len = 0;
        snprintf(path, sizeof path, "%sMANIFEST.json", case_dirs[d]);
        texts[d] = ts_unit_read_file(path, &len);
        ts_error err;
        if (!texts[d] || !spec_text || !ts_codec_parse(&manifest_arena, texts[d], len, &manifests[d], &err)) {
            fprintf(stderr, "cannot read %s or SPEC.md (run under bazel test)\n", path);
            return 1;
        }
    }
    TS_RUN(test_manifest_is_well_formed);
    TS_RUN(test_every_case_matches_its_golden);
    ts_arena_free(&manifest_arena);
    for (size_t d = 0; d < CASE_DIRS; d++) free(texts[d]);
    free(spec_text);
    return ts_unit_finish();
}
