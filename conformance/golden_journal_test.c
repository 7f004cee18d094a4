/* golden_journal_test.c — the resume engine's golden cases (conformance/cases/journal/):
 * the manifest is well formed (ids Journal.<Rule>.<name> citing that rule, every rule defined
 * in SPEC.md §6, every J MUST/SHOULD rule covered), and each case, replayed through the
 * reference engine (with its crash, if it has one), gives its hand-written expectation (roles
 * of the transcript, entry and task counts), equals its golden journal with entry ids numbered
 * by position, and passes every journal checker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/journal/journal_checks.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_memory.h"
#include "core/testing/unit.h"

static const char *const dir = "conformance/cases/journal/";
static ts_arena arena;
static ts_json manifest;
static char *spec_text;

static char *read_case_file(ts_str name, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s%.*s", dir, (int)name.len, name.ptr);
    return ts_unit_read_file(path, len);
}

static void roles_of(const ts_json *journal, char *out, size_t size) {
    const ts_json *transcript = ts_json_get(journal, "transcript");
    size_t n = 0;
    for (size_t i = 0; transcript && i < transcript->u.a.count && n + 1 < size; i++)
        out[n++] = ts_json_string(ts_json_get(&transcript->u.a.items[i], "role")).ptr[0] == 'u'   ? 'u'
                   : ts_json_string(ts_json_get(&transcript->u.a.items[i], "role")).ptr[0] == 'a' ? 'a'
                                                                                                   : 't';
    out[n] = '\0';
}

static void replay(const ts_json *c) {
    ts_str id = ts_json_string(ts_json_get(c, "id"));
    size_t len;
    char *text = read_case_file(ts_json_string(ts_json_get(c, "input")), &len);
    char *golden_text = read_case_file(ts_json_string(ts_json_get(c, "expected")), &len);
    CHECK(text && golden_text);
    if (!text || !golden_text) return;
    ts_json doc, golden, journal_json, got, want;
    ts_scenario scenario;
    ts_error err;
    ts_error_clear(&err);
    CHECK(ts_codec_parse(&arena, text, strlen(text), &doc, &err) && ts_scenario_from_json(&doc, &arena, &scenario, &err));
    CHECK(ts_codec_parse(&arena, golden_text, strlen(golden_text), &golden, &err));
    const ts_json *crash = ts_json_get(c, "crashBeforeCommit");
    ts_engine_options options = {.crash_before_commit = crash ? (uint64_t)crash->u.i : 0};
    ts_store *store = ts_memory_store_new();
    ts_engine_state state;
    ts_journal journal;
    ts_journal_init(&journal);
    bool ran = ts_engine_drive(store, &scenario, &options, &state, NULL, &err) &&
               ts_store_load(store, &arena, &journal, &err) && ts_journal_to_json(&journal, &arena, &journal_json, &err);
    if (!ran) fprintf(stderr, "%s: %s\n", id.ptr, err.message);
    CHECK(ran);
    if (ran) {
        const ts_json *check = ts_json_get(c, "check");
        char roles[128];
        roles_of(&journal_json, roles, sizeof roles);
        CHECK_STR_EQ(roles, ts_json_string(ts_json_get(check, "roles")).ptr);
        CHECK((int64_t)journal.entry_count == ts_json_get(check, "entries")->u.i);
        CHECK((int64_t)journal.task_count == ts_json_get(check, "tasks")->u.i);
        CHECK(ts_journal_json_without_ids(&journal_json, &arena, &got) && ts_journal_json_without_ids(&golden, &arena, &want));
        if (!ts_json_equal(&got, &want)) fprintf(stderr, "%s: the reference no longer gives the golden journal\n", id.ptr);
        CHECK(ts_json_equal(&got, &want));
        ts_findings findings;
        ts_findings_init(&findings);
        ts_check_journal(&scenario, &journal_json, &findings);
        for (size_t i = 0; i < findings.count; i++)
            fprintf(stderr, "%s: [%s] %s\n", id.ptr, findings.items[i].rule, findings.items[i].message);
        CHECK(findings.count == 0);
        ts_findings_free(&findings);
    }
    ts_journal_free(&journal);
    ts_store_close(store);
    free(text);
    free(golden_text);
}

static void test_every_case_gives_its_golden_journal(void) {
    const ts_json *cases = ts_json_get(&manifest, "cases");
    CHECK(cases && cases->u.a.count >= 20);
    for (size_t i = 0; cases && i < cases->u.a.count; i++) replay(&cases->u.a.items[i]);
}

static void test_manifest_covers_every_journal_rule(void) {
    const ts_json *cases = ts_json_get(&manifest, "cases");
    char rules[32][8];
    size_t rule_count = 0;
    for (const char *p = strstr(spec_text, "**J"); p && rule_count < 32; p = strstr(p + 2, "**J")) {
        char id[8], level[8];
        if (sscanf(p + 2, "%7[A-Z0-9] (%7[A-Z])", id, level) == 2 && strcmp(level, "MAY") != 0) strcpy(rules[rule_count++], id);
    }
    CHECK(rule_count >= 13);
    for (size_t s = 0; s < rule_count; s++) {
        bool covered = false;
        for (size_t i = 0; cases && i < cases->u.a.count && !covered; i++) {
            const ts_json *cited = ts_json_get(&cases->u.a.items[i], "rules");
            for (size_t r = 0; cited && r < cited->u.a.count; r++) covered |= ts_str_eq_cstr(ts_json_string(&cited->u.a.items[r]), rules[s]);
        }
        if (!covered) fprintf(stderr, "SPEC rule %s has no journal case\n", rules[s]);
        CHECK(covered);
    }
    for (size_t i = 0; cases && i < cases->u.a.count; i++) {
        const ts_json *c = &cases->u.a.items[i];
        ts_str id = ts_json_string(ts_json_get(c, "id"));
        CHECK(id.ptr && strncmp(id.ptr, "Journal.J", 9) == 0);
        char main_rule[8] = "";
        if (id.ptr) sscanf(id.ptr + 8, "%7[A-Z0-9]", main_rule);
        const ts_json *cited = ts_json_get(c, "rules");
        bool cites_main = false, all_known = true;
        for (size_t r = 0; cited && r < cited->u.a.count; r++) {
            ts_str rule = ts_json_string(&cited->u.a.items[r]);
            cites_main |= ts_str_eq_cstr(rule, main_rule);
            bool known = false;
            for (size_t s = 0; s < rule_count; s++) known |= ts_str_eq_cstr(rule, rules[s]);
            all_known &= known;
        }
        CHECK(cites_main && all_known);
        CHECK(ts_json_string(ts_json_get(c, "description")).len >= 20);
        CHECK(ts_str_eq_cstr(ts_json_string(ts_json_get(c, "op")), "journal"));
    }
}

int main(void) {
    size_t len = 0;
    ts_arena_init(&arena);
    spec_text = ts_unit_read_file("conformance/SPEC.md", &len);
    char *text = ts_unit_read_file("conformance/cases/journal/MANIFEST.json", &len);
    ts_error err;
    if (!spec_text || !text || !ts_codec_parse(&arena, text, len, &manifest, &err)) {
        fprintf(stderr, "cannot read conformance/cases/journal/MANIFEST.json or SPEC.md (run under bazel test)\n");
        return 1;
    }
    TS_RUN(test_manifest_covers_every_journal_rule);
    TS_RUN(test_every_case_gives_its_golden_journal);
    free(text);
    free(spec_text);
    ts_arena_free(&arena);
    return ts_unit_finish();
}
