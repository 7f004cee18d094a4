/* resume_match_scale_test.c — one observed conversation of 300,000 messages (a testee's read, as
 * a hostile testee writes it) is judged in time linear in its length (issue 20): the U1 id check
 * and the U3 count check were quadratic, 40,000 messages took 40 s of CPU in every kill run, and
 * these would take hours. Asserted by findings, not by a clock: a quadratic check fails this test
 * by its Bazel timeout, a linear one passes in well under a second (seconds under ASan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/resume/resume_match.h"
#include "core/json/codec.h"
#include "core/testing/unit.h"

enum { MESSAGES = 300000 };

static const char scenario_text[] =
    "{\"executionId\":\"00000000-0000-4000-8000-000000000001\",\"input\":\"hello\",\"llm\":[{\"text\":\"hi\"}]}";

typedef struct fixture {
    ts_arena arena;
    ts_scenario scenario;
    ts_expected x;
    ts_item *items;
    char *texts; /* "t0\0t1\0..." and "m0\0m1\0...": the messages' texts and ids */
} fixture;

static bool fixture_init(fixture *f) {
    memset(f, 0, sizeof *f);
    ts_arena_init(&f->arena);
    ts_json doc;
    ts_error err;
    char why[300];
    if (!ts_codec_parse(&f->arena, scenario_text, sizeof scenario_text - 1, &doc, &err) ||
        !ts_scenario_from_json(&doc, &f->arena, &f->scenario, &err) ||
        !ts_expect_resume(&f->scenario, &f->arena, &f->x, why, sizeof why))
        return false;
    f->items = calloc(MESSAGES, sizeof *f->items);
    f->texts = malloc((size_t)MESSAGES * 2 * 12);
    if (!f->items || !f->texts) return false;
    char *p = f->texts;
    for (size_t i = 0; i < MESSAGES; i++) { /* every message a user message of its own text and id */
        int n = sprintf(p, "t%zu", i);
        f->items[i].kind = TS_ITEM_USER;
        f->items[i].text = (ts_str){p, (size_t)n};
        p += n + 1;
        n = sprintf(p, "m%zu", i);
        f->items[i].message_id = (ts_str){p, (size_t)n};
        f->items[i].message = i;
        p += n + 1;
    }
    return true;
}

static void fixture_free(fixture *f) {
    free(f->items);
    free(f->texts);
    ts_arena_free(&f->arena);
}

static bool has_rule(const ts_findings *findings, const char *rule) { return ts_findings_has(findings, rule); }

static void distinct_ids_and_texts(void) {
    fixture f;
    CHECK(fixture_init(&f));
    ts_findings findings;
    ts_findings_init(&findings);
    CHECK(ts_match_conversation(ts_expected_epoch(&f.x, f.x.epoch_count - 1), f.items, MESSAGES, TS_MATCH_FINAL, "the read", NULL, &f.arena, &findings));
    CHECK(!has_rule(&findings, "U1"));
    CHECK(has_rule(&findings, "U2") || has_rule(&findings, "U3")); /* 300,000 user messages are not the scenario's */
    ts_findings_free(&findings);
    fixture_free(&f);
}

static void one_shared_id_at_the_ends(void) {
    fixture f;
    CHECK(fixture_init(&f));
    f.items[MESSAGES - 1].message_id = f.items[0].message_id;
    ts_findings findings;
    ts_findings_init(&findings);
    CHECK(ts_match_conversation(ts_expected_epoch(&f.x, f.x.epoch_count - 1), f.items, MESSAGES, TS_MATCH_FINAL, "the read", NULL, &f.arena, &findings));
    char expected[120];
    snprintf(expected, sizeof expected, "the read: messages 0 and %d share messageId \"m0\"", MESSAGES - 1);
    bool found = false;
    for (size_t i = 0; i < findings.count; i++)
        found |= strcmp(findings.items[i].rule, "U1") == 0 && strcmp(findings.items[i].message, expected) == 0;
    CHECK(found);
    ts_findings_free(&findings);
    fixture_free(&f);
}

static void one_text_many_times(void) {
    fixture f;
    CHECK(fixture_init(&f));
    for (size_t i = 0; i < MESSAGES; i++) f.items[i].text = (ts_str){"hello", 5};
    ts_findings findings;
    ts_findings_init(&findings);
    CHECK(ts_match_conversation(ts_expected_epoch(&f.x, f.x.epoch_count - 1), f.items, MESSAGES, TS_MATCH_FINAL, "the read", NULL, &f.arena, &findings));
    char expected[160];
    snprintf(expected, sizeof expected, "the read: user \"hello\" appears %d times; it was sent 1 time", MESSAGES);
    bool found = false;
    for (size_t i = 0; i < findings.count; i++)
        found |= strcmp(findings.items[i].rule, "U3") == 0 && strcmp(findings.items[i].message, expected) == 0;
    CHECK(found);
    ts_findings_free(&findings);
    fixture_free(&f);
}

int main(void) {
    TS_RUN(distinct_ids_and_texts);
    TS_RUN(one_shared_id_at_the_ends);
    TS_RUN(one_text_many_times);
    return ts_unit_finish();
}
