/* scenario_gen_test.c — the universal generator (ts_gen_universal_scenario) feeds the differential
 * resume fuzzer branching cases: after the filter that target applies (an event kept only when the
 * scenario stays a resume case, resume_expect.h), many generated scenarios still hold an edit or a
 * fork that is carried out, and some hold one that must be refused; the reference profile's
 * generator makes no edit or fork (the journal op has none). */
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/resume/resume_expect.h"
#include "core/resume/scenario.h"
#include "core/testing/gen.h"
#include "core/testing/unit.h"
#include "fuzz/scenario_gen.h"

/* The scenario with only the first `count` events of `kept` (its other members as generated). */
static ts_json with_events(ts_arena *arena, const ts_json *doc, const ts_json *kept, size_t count) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    for (size_t i = 0; i < doc->u.o.count; i++)
        if (!ts_str_eq_cstr(doc->u.o.members[i].key, "events"))
            ts_json_builder_add_key(&b, doc->u.o.members[i].key, doc->u.o.members[i].value);
    ts_json_builder_add(&b, "events", (ts_json){TS_JSON_ARRAY, {.a = {(ts_json *)kept, count}}});
    ts_json out = ts_json_make_null();
    ts_json_builder_finish(&b, &out);
    return out;
}

typedef struct branch_counts {
    size_t scenarios, carried_out, refused, generated;
} branch_counts;

/* Filters one generated scenario as differential_resume does and counts its branches. */
static void count_branches(ts_arena *arena, const ts_json *doc, branch_counts *c) {
    const ts_json *events = ts_json_get(doc, "events");
    size_t n = events ? events->u.a.count : 0, kept = 0;
    ts_json *keep = ts_arena_alloc(arena, (n + 1) * sizeof *keep);
    ts_scenario scenario;
    ts_expected x;
    ts_error err;
    char why[300];
    for (size_t i = 0; keep && i < n; i++) {
        const ts_json *ev = &events->u.a.items[i];
        c->generated += ts_json_get(ev, "edit") || ts_json_get(ev, "fork");
        keep[kept] = *ev;
        ts_json candidate = with_events(arena, doc, keep, kept + 1);
        if (ts_scenario_from_json(&candidate, arena, &scenario, &err) && ts_expect_resume(&scenario, arena, &x, why, sizeof why))
            kept++;
    }
    ts_json filtered = with_events(arena, doc, keep, kept);
    if (!ts_scenario_from_json(&filtered, arena, &scenario, &err) || !ts_expect_resume(&scenario, arena, &x, why, sizeof why))
        return;
    c->scenarios++;
    for (size_t a = 0; a < x.action_count; a++) {
        bool branch = x.actions[a].kind == TS_ACTION_EDIT || x.actions[a].kind == TS_ACTION_FORK;
        c->carried_out += branch && !x.actions[a].refused;
        c->refused += branch && x.actions[a].refused;
    }
}

static void test_universal_scenarios_branch(void) {
    branch_counts c = {0};
    for (uint64_t i = 0; i < 400; i++) {
        uint8_t bytes[256];
        ts_gen_seed_bytes(27, i, bytes, sizeof bytes);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json doc;
        CHECK(ts_gen_universal_scenario(&arena, bytes, sizeof bytes, &doc));
        count_branches(&arena, &doc, &c);
        ts_arena_free(&arena);
    }
    printf("universal: %zu resume cases of 400; edits and forks generated %zu, carried out %zu, refused %zu\n",
           c.scenarios, c.generated, c.carried_out, c.refused);
    CHECK(c.scenarios == 400); /* filtering keeps every scenario a resume case */
    CHECK(c.carried_out >= 100);
    CHECK(c.refused >= 10);
}

static void test_reference_profile_scenarios_do_not_edit_or_fork(void) {
    for (uint64_t i = 0; i < 200; i++) {
        uint8_t bytes[256];
        ts_gen_seed_bytes(27, i, bytes, sizeof bytes);
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json doc;
        CHECK(ts_gen_scenario(&arena, bytes, sizeof bytes, &doc));
        const ts_json *events = ts_json_get(&doc, "events");
        for (size_t e = 0; events && e < events->u.a.count; e++)
            CHECK(!ts_json_get(&events->u.a.items[e], "edit") && !ts_json_get(&events->u.a.items[e], "fork"));
        ts_arena_free(&arena);
    }
}

int main(void) {
    TS_RUN(test_universal_scenarios_branch);
    TS_RUN(test_reference_profile_scenarios_do_not_edit_or_fork);
    return ts_unit_finish();
}
