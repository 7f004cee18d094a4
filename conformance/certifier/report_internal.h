/* report_internal.h — private to report.c, report_json.c and report_junit.c: what the reports
 * share. Not part of the certifier's interface (that is report.h). */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_INTERNAL_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_INTERNAL_H

#include <stddef.h>

#include "conformance/certifier/run.h"
#include "core/json/buf.h"

/* Appends the testee's command as certificates carry it: absolute paths (build and temp
 * directories) cut to their last component, so a certificate and a merge of shards agree. */
void ts_report_portable_command(ts_buf *b, const char *command);

/* A rule's counts over the cases it applies to (not those set apart): passed, failed (a finding
 * of it), skipped (the case skipped, erred or undecided). */
void ts_report_rule_counts(const ts_certification *c, const char *rule, size_t *passed, size_t *failed, size_t *skipped);

/* Of the selected rules of one level that some case judged, how many pass (none failed them). */
void ts_report_level_counts(const ts_certification *c, ts_level level, size_t *passed, size_t *judged);

/* The durability the resume cases show (SPEC §6.4: "none", "process-crash" or "power-loss"), or
 * NULL when no resume case was judged; *nemesis the nemesis they ran under (a static string, or
 * NULL), and counts[] the sum of their protocol points, store points, kill runs, runs merged as
 * the same experiment and power losses not made. */
const char *ts_report_durability(const ts_certification *c, const char **nemesis, long counts[5]);

#endif
