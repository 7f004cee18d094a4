/* resume_expect_test.c — the expectation of resume cases that branch (SPEC.md §6.4): its epochs
 * for edits and forks, what it refuses to call a case, and its agreement with what the client
 * counts (core/resume/scenario.h, ts_scenario_actions: the world's side, derived apart) on every
 * resume case of the suite: the users on the branch before each user message, the answers used
 * before each edit or fork, and which edits and forks are refused. */
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/resume/resume_expect.h"
#include "core/json/codec.h"
#include "core/testing/unit.h"

static bool load(ts_arena *arena, const char *text, ts_scenario *out) {
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    if (ts_codec_parse(arena, text, strlen(text), &doc, &err) && ts_scenario_from_json(&doc, arena, out, &err)) return true;
    fprintf(stderr, "scenario: %s: %s\n", err.path, err.message);
    return false;
}

/* The client's counts and the expectation's agree, action by action. */
static void check_agreement(const ts_scenario *s, const char *name) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_expected x;
    char why[300];
    ts_scenario_action *actions;
    size_t count;
    ts_error err;
    ts_error_clear(&err);
    bool expected = ts_expect_resume(s, &arena, &x, why, sizeof why);
    if (!expected) fprintf(stderr, "%s: %s\n", name, why);
    CHECK(expected);
    CHECK(ts_scenario_actions(s, &arena, &actions, &count, &err));
    CHECK(!expected || count == x.action_count);
    for (size_t i = 0; expected && i < count && i < x.action_count; i++) {
        const ts_action *a = &x.actions[i];
        bool same = true;
        if (actions[i].kind == TS_SCENARIO_USER) same = actions[i].users_before + 1 == a->users_after;
        if (actions[i].kind == TS_SCENARIO_EDIT || actions[i].kind == TS_SCENARIO_FORK)
            same = actions[i].refused == a->refused && actions[i].answers_before == a->answers_before;
        if (!same) fprintf(stderr, "%s: action %zu: the client counts otherwise than the expectation\n", name, i);
        CHECK(same);
    }
    ts_arena_free(&arena);
}

static void test_suite_cases_agree(void) {
    const char *dir = "conformance/cases/resume";
    char path[600];
    size_t len;
    snprintf(path, sizeof path, "%s/MANIFEST.json", dir);
    char *text = ts_unit_read_file(path, &len);
    CHECK(text != NULL);
    if (!text) return;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json manifest;
    ts_error err;
    CHECK(ts_codec_parse(&arena, text, len, &manifest, &err));
    const ts_json *cases = ts_json_get(&manifest, "cases");
    size_t branching = 0;
    for (size_t i = 0; cases && i < cases->u.a.count; i++) {
        ts_str input = ts_json_string(ts_json_get(&cases->u.a.items[i], "input"));
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)input.len, input.ptr);
        size_t scenario_len;
        char *scenario_text = ts_unit_read_file(path, &scenario_len);
        ts_scenario s;
        CHECK(scenario_text && load(&arena, scenario_text, &s));
        if (scenario_text) check_agreement(&s, path);
        for (size_t e = 0; scenario_text && e < s.event_count; e++)
            branching += s.events[e].kind == TS_EVENT_EDIT || s.events[e].kind == TS_EVENT_FORK;
        free(scenario_text);
    }
    CHECK(branching >= 8); /* the suite's branching cases are among them */
    free(text);
    ts_arena_free(&arena);
}

#define CASE_HEAD "{\"executionId\":\"00000000-0000-4000-8000-000000000301\",\"input\":\"q0\","
#define TOOLS "\"tools\":{\"add\":{\"result\":5},\"fetch\":{\"result\":1,\"async\":true}},"

/* Epochs: a fork keeps the blocks up to its answer (a tool result among them), an edit the turns
 * before its message; what they abandon is recorded, pending calls apart. */
static void test_epochs(void) {
    static const char *const text =
        CASE_HEAD TOOLS "\"llm\":[{\"text\":\"a0\"},{\"text\":\"a1\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{}}]},"
        "{\"text\":\"a2\"},{\"text\":\"a3\",\"toolCalls\":[{\"callId\":\"c2\",\"name\":\"fetch\",\"arguments\":{}}]},"
        "{\"text\":\"a4\"},{\"text\":\"a5\"}],"
        "\"events\":[{\"signal\":\"q1\"},{\"signal\":\"q2\"},{\"fork\":2,\"text\":\"f\"},{\"edit\":1,\"text\":\"e\"},"
        "{\"complete\":\"c2\"},{\"edit\":9,\"text\":\"beyond\"}]}";
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load(&arena, text, &s));
    ts_expected x;
    char why[300] = "";
    bool ok = ts_expect_resume(&s, &arena, &x, why, sizeof why);
    if (!ok) fprintf(stderr, "%s\n", why);
    CHECK(ok);
    if (ok) {
        /* q0 a0 | q1 a1 r1 a2 | q2 a3 (c2 pending); fork 2: q0 a0 q1 a1 r1 f a4; edit 1: q0 a0 e a5 */
        CHECK(x.epoch_count == 3 && x.epochs[1].kept_assistants == 2 && x.epochs[2].kept_assistants == 1);
        CHECK(x.epochs[1].blocks[2].count == 2); /* c1's result, kept, and f */
        CHECK(x.answer_abandoned_by[2] == 3 && x.answer_abandoned_by[3] == 3 && x.pending_abandoned[3][0]);
        CHECK(x.answer_abandoned_by[4] == 4 && x.answer_abandoned_by[1] == 4 && x.answer_abandoned_by[0] == TS_NOT_ABANDONED);
        CHECK(x.user_abandoned_by[2] == 3 && x.user_abandoned_by[1] == 4 && x.user_abandoned_by[3] == 4);
        CHECK(x.assistant_count == 2 && x.epochs[2].answer_of[1] == 5 && x.epochs[2].user_of[1] == 4);
        CHECK(x.actions[5].abandoned && x.actions[6].refused && x.actions[6].epoch_after == 2);
        CHECK(x.actions[3].answers_before == 4 && x.actions[4].answers_before == 5);
    }
    check_agreement(&s, "epochs");
    ts_arena_free(&arena);
}

/* What is no resume case when it branches: an edit of a message that arrived behind tool calls,
 * user texts, answers or call ids that repeat, the reference profile's branch events. */
static void test_refused_scenarios(void) {
    static const char *const bad[] = {
        /* an edit of the message a fork put behind a tool result */
        CASE_HEAD TOOLS "\"llm\":[{\"text\":\"a0\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{}}]},"
        "{\"text\":\"a1\"},{\"text\":\"a2\"},{\"text\":\"a3\"}],\"events\":[{\"fork\":1,\"text\":\"f\"},{\"edit\":1,\"text\":\"e\"}]}",
        /* the same text twice */
        CASE_HEAD "\"llm\":[{\"text\":\"a0\"},{\"text\":\"a1\"},{\"text\":\"a2\"}],\"events\":[{\"signal\":\"q0\"},{\"edit\":0,\"text\":\"e\"}]}",
        /* alike answers */
        CASE_HEAD "\"llm\":[{\"text\":\"a0\"},{\"text\":\"a0\"}],\"events\":[{\"edit\":0,\"text\":\"e\"}]}",
        /* a call id twice */
        CASE_HEAD TOOLS "\"llm\":[{\"text\":\"a0\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{}}]},{\"text\":\"a1\"},"
        "{\"text\":\"a2\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"add\",\"arguments\":{}}]},{\"text\":\"a3\"}],"
        "\"events\":[{\"edit\":0,\"text\":\"e\"}]}",
        /* the reference profile's branch */
        CASE_HEAD "\"llm\":[{\"text\":\"a0\"},{\"text\":\"a1\"}],\"events\":[{\"branch\":0,\"text\":\"e\"}]}",
    };
    static const char *const reasons[] = {"arrived behind the tool calls", "same user message", "are alike",
                                          "share a call id", "reference profile"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_scenario s;
        ts_expected x;
        char why[300] = "";
        CHECK(load(&arena, bad[i], &s));
        CHECK(!ts_expect_resume(&s, &arena, &x, why, sizeof why));
        if (!strstr(why, reasons[i])) fprintf(stderr, "scenario %zu: %s\n", i, why);
        CHECK(strstr(why, reasons[i]) != NULL);
        ts_arena_free(&arena);
    }
}

/* Refusals and a late result: an edit past the users, a fork past the answers, a fork at the end
 * while a call is pending are refused and change nothing; the result of a call a branch abandoned
 * while it was pending is an action with no effect. */
static void test_refusals_and_abandoned_results(void) {
    static const char *const text =
        CASE_HEAD TOOLS "\"llm\":[{\"text\":\"a0\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"fetch\",\"arguments\":{}}]},"
        "{\"text\":\"a1\"},{\"text\":\"a2\"}],"
        "\"events\":[{\"fork\":1,\"text\":\"at the end\"},{\"edit\":1,\"text\":\"no user 1\"},{\"fork\":2,\"text\":\"no answer 2\"},"
        "{\"edit\":0,\"text\":\"e\"},{\"complete\":\"c1\"},{\"signal\":\"q1\"}]}";
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario s;
    CHECK(load(&arena, text, &s));
    ts_expected x;
    char why[300] = "";
    bool ok = ts_expect_resume(&s, &arena, &x, why, sizeof why);
    if (!ok) fprintf(stderr, "%s\n", why);
    CHECK(ok && x.action_count == 7);
    if (ok) {
        CHECK(x.actions[1].refused && x.actions[2].refused && x.actions[3].refused && !x.actions[4].refused);
        CHECK(x.actions[1].waiting_after && x.actions[3].waiting_after); /* nothing changed: c1 pending */
        CHECK(!x.actions[4].waiting_after && x.actions[5].abandoned && !x.actions[5].waiting_after);
        CHECK(x.pending_abandoned[0][0] && x.answer_abandoned_by[0] == 4 && x.answer_abandoned_by[1] == TS_NOT_ABANDONED);
        CHECK(x.epoch_count == 2 && x.assistant_count == 2); /* e a1 q1 a2 */
        CHECK(x.epochs[1].opened_by == 4 && x.epochs[1].kept_assistants == 0);
    }
    check_agreement(&s, "refusals");
    ts_arena_free(&arena);
}

int main(void) {
    TS_RUN(test_suite_cases_agree);
    TS_RUN(test_epochs);
    TS_RUN(test_refused_scenarios);
    TS_RUN(test_refusals_and_abandoned_results);
    return ts_unit_finish();
}
