/* findings_test.c — the one policy that reads findings as a verdict (findings.h), held here
 * once for every judge: a Required rule's finding fails, a Recommended one's does not, and an
 * unknown rule's fails (SPEC.md §4; journal_checks.c once counted it the other way, so that a
 * reading with an unknown finding looked better than one without); a case's own rule is its
 * first Required one. And the excerpt a finding quotes. */
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/testing/unit.h"

static void test_required_and_unknown_fail(void) {
    CHECK(ts_rule_fails("J3"));
    CHECK(ts_rule_fails("U9"));
    CHECK(!ts_rule_fails("H2")); /* Recommended */
    CHECK(ts_rule_fails("Z99")); /* not in the catalogue */
    ts_findings f;
    ts_findings_init(&f);
    CHECK(!ts_findings_fail(&f));
    ts_findings_add(&f, "H2", "recommended only");
    CHECK(!ts_findings_fail(&f));
    CHECK(ts_findings_failing(&f) == 0);
    ts_findings_add(&f, "Z99", "a rule no one can grade");
    CHECK(ts_findings_fail(&f));
    CHECK(ts_findings_failing(&f) == 1);
    ts_findings_add(&f, "J3", "required");
    CHECK(ts_findings_failing(&f) == 2);
    ts_findings_free(&f);
}

static void test_first_required(void) {
    const char *rules[] = {"H2", "J4", "J3"};
    CHECK_STR_EQ(ts_rules_first_required(rules, 3, "U9"), "J4");
    CHECK_STR_EQ(ts_rules_first_required(rules, 1, "U9"), "U9");
    CHECK_STR_EQ(ts_rules_first_required(NULL, 0, "J3"), "J3");
    const char *unknown_first[] = {"Z99", "U2"};
    CHECK_STR_EQ(ts_rules_first_required(unknown_first, 2, "U9"), "U2"); /* a case names catalogued rules */
}

static void test_excerpt(void) {
    char out[16];
    ts_check_excerpt(NULL, out, sizeof out);
    CHECK_STR_EQ(out, "(absent)");
    ts_json v = ts_json_make_string(ts_str_from("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"));
    ts_check_excerpt(&v, out, sizeof out);
    CHECK(strlen(out) < sizeof out);
    CHECK(strcmp(out + strlen(out) - 3, "...") == 0);
    CHECK((((unsigned char)out[strlen(out) - 4]) & 0xC0) != 0xC0); /* never half a character */
}

/* A string member's excerpt: its JSON when present; the caller's text when absent ("(absent)" by
 * default, "null" in the journal rules' messages). */
static void test_excerpt_str(void) {
    char out[16];
    ts_check_excerpt_str((ts_str){NULL, 0}, out, sizeof out);
    CHECK_STR_EQ(out, "(absent)");
    ts_check_excerpt_str_or((ts_str){NULL, 0}, "null", out, sizeof out);
    CHECK_STR_EQ(out, "null");
    ts_check_excerpt_str_or(ts_str_from("a\"b"), "null", out, sizeof out);
    CHECK_STR_EQ(out, "\"a\\\"b\"");
    ts_check_excerpt_str(ts_str_from(""), out, sizeof out);
    CHECK_STR_EQ(out, "\"\"");
}

int main(void) {
    TS_RUN(test_required_and_unknown_fail);
    TS_RUN(test_first_required);
    TS_RUN(test_excerpt);
    TS_RUN(test_excerpt_str);
    return ts_unit_finish();
}
