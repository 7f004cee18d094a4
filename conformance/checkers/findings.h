/* findings.h — the rule catalogue the checkers decide, the findings they report, and the one
 * policy that reads findings as a verdict.
 *
 * Owns: rule ids, levels and titles (mirroring conformance/SPEC.md and PROTOCOL.md); a
 * growable list of findings: (rule, message); the policy every judge shares (the certifier's
 * runs, the gate, `turnstile check`, the fuzzers' oracles): a finding of a Required rule, or of
 * a rule the catalogue does not hold, fails (SPEC.md §4), and a case's own rule is its first
 * Required one; and the excerpt of a JSON value a finding's message quotes. A checker appends
 * one finding per violation it sees (a few per rule at most); an answer passes a rule when no
 * finding names it. The merge, journal and resume checkers (merge/, journal/, resume/) sit on
 * this module and never on each other.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_FINDINGS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/json.h"

typedef enum ts_level { TS_LEVEL_REQUIRED, TS_LEVEL_RECOMMENDED } ts_level;

typedef struct ts_rule_info {
    const char *id;     /* "I2", "M", "H1", ... */
    ts_level level;
    const char *title;
} ts_rule_info;

/* Every rule a checker can report, in report order. "M" covers message formation, M1-M6. */
extern const ts_rule_info ts_rules[];
extern const size_t ts_rule_count;

/* The rule with that id, or NULL. */
const ts_rule_info *ts_rule_find(const char *id);

enum { TS_FINDINGS_PER_RULE = 3 };

typedef struct ts_finding {
    const char *rule;   /* static string from ts_rules */
    const char *named;  /* the rule the violation breaks: rule itself, or for a finding that
                           reports another rule's breach (U9 after a kill) that rule */
    char *message;      /* heap; what was expected, what came back */
} ts_finding;

typedef struct ts_findings {
    ts_finding *items;
    size_t count, cap;
    size_t suppressed;  /* findings beyond TS_FINDINGS_PER_RULE for their rule */
    bool out_of_memory; /* a finding could not be kept: the list is incomplete, so no verdict */
} ts_findings;

void ts_findings_init(ts_findings *f);
void ts_findings_free(ts_findings *f); /* accepts NULL */
void ts_findings_clear(ts_findings *f);
/* Appends a finding (printf-style message, truncated at 1 KiB). rule must be a ts_rules id. */
void ts_findings_add(ts_findings *f, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same for a finding of rule that reports a breach of named (U9 naming U4): ts_finding.named. */
void ts_findings_add_named(ts_findings *f, const char *rule, const char *named, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* True when some finding names rule. */
bool ts_findings_has(const ts_findings *f, const char *rule);

/* The policy, held here once. A finding of rule fails its case when the rule is Required, or
 * unknown to the catalogue (a rule no one can grade is never waved through as Recommended). */
bool ts_rule_fails(const char *rule);
/* How many findings fail (ts_rule_fails); true when some does. */
size_t ts_findings_failing(const ts_findings *f);
bool ts_findings_fail(const ts_findings *f);
/* A case's own rule: the first of its rules (in the manifest's order) that is Required, as the
 * catalogue's static string; `otherwise` when none is. */
const char *ts_rules_first_required(const char *const *rules, size_t count, const char *otherwise);

/* Writes a compact JSON excerpt of value (at most max bytes, "..." when cut at a character
 * boundary; "(absent)" for NULL) into out, for a finding's message. */
void ts_check_excerpt(const ts_json *value, char *out, size_t max);
/* The same for a string member's value; "(absent)" when it has none. */
void ts_check_excerpt_str(ts_str s, char *out, size_t max);
/* The same, with the text absent (e.g. "null": the journal rules' messages) when it has none. */
void ts_check_excerpt_str_or(ts_str s, const char *absent, char *out, size_t max);

#endif
