/* findings.h — the rule catalogue the checkers decide, and the findings they report.
 *
 * Owns: rule ids, levels and titles (mirroring conformance/SPEC.md and PROTOCOL.md), and a
 * growable list of findings: (rule, message). A checker appends one finding per violation it
 * sees (a few per rule at most); an answer passes a rule when no finding names it.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_FINDINGS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
