/* finding_case.h — where the differential fuzz targets put what they find: each finding is a
 * ready-to-add conformance case in $TURNSTILE_FINDINGS_DIR, listed in that directory's
 * MANIFEST.json, so `turnstile certify --suite DIR -- COMMAND` replays them all as written.
 * Also which rules a run looks for ($TURNSTILE_RULES, $TURNSTILE_SKIP_RULES).
 * (The case's own files are the target's: an input and expected answer for a merge, a
 * scenario for a resume case.) */
#ifndef TURNSTILE_FUZZ_FINDING_CASE_H
#define TURNSTILE_FUZZ_FINDING_CASE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/buf.h"

/* Adds entry (one manifest case object, JSON text) to dir/MANIFEST.json unless a case of that id
 * is there; under an fcntl lock, replaced by rename, so parallel fuzzing jobs (-fork, -jobs) and
 * a crash mid-write never leave a broken manifest. True when the case is listed. */
bool ts_finding_manifest_add(const char *dir, const char *id, const ts_buf *entry);

/* Whether the first n bytes of rule are one of list's rules (comma- or space-separated, as
 * $TURNSTILE_RULES and $TURNSTILE_SKIP_RULES are written); a NULL list holds none. */
bool ts_finding_rule_listed(const char *list, const char *rule, size_t n);

#endif
