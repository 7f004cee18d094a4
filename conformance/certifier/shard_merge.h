/* shard_merge.h — N shard reports (certify --shard K/N --report-json) joined into one
 * certification, which report.h then writes as text, JSON and JUnit.
 *
 * Owns: reading the shards' JSON reports and checking that they are the N shards of one run —
 * the same format, turnstile version and commit, suite (version and SHA-256, which must be the
 * suite given), testee (name, version, command), platform, rule selection and shard count N;
 * each index 1..N exactly once; none interrupted; together the cases the selection holds — and
 * rebuilding every case's result (verdict, outcome, detail, findings, expected failure, set
 * apart, equivalence, stderr, history, time) in the suite's order. The verdict, counts, per-rule
 * table and JUnit written from it are a single run's. A shard that stopped on a harness failure
 * makes the merge's harness failure.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_SHARD_MERGE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_SHARD_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/run.h"
#include "conformance/certifier/suite.h"

/* What a merged certification points at (its options and their rule list): owned by the caller,
 * alive as long as the certification. */
typedef struct ts_shard_merge {
    ts_run_options options;
    const char *rules[64];
    char platform[32];
    char version[64], commit[64];
} ts_shard_merge;

/* Joins the shard reports at paths (count of them) over suite (borrowed) into out (freed with
 * ts_certification_free), whose options point into m. False with why (naming the file and
 * what differs) when they are not the shards of one run, or cannot be read. */
bool ts_shard_merge_reports(const ts_suite *suite, const char *const *paths, size_t count, ts_shard_merge *m,
                            ts_certification *out, char *why, size_t why_size);

#endif
