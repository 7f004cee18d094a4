/* oracle.h — what the fuzz targets assert, in one place: the conformance checkers on a
 * reference answer, and the metamorphic relations of the merger.
 *
 * Owns: the failure policy of fuzzing. A violated Required rule, a rejected input without an
 * error message, an answer that differs between two runs, or a broken metamorphic relation is
 * printed and turned into a crash (abort), which is how a fuzzing engine records a finding.
 */
#ifndef TURNSTILE_FUZZ_ORACLE_H
#define TURNSTILE_FUZZ_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/findings.h"
#include "core/json/buf.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"

/* Prints what went wrong (and the stream, when given) and aborts. */
_Noreturn void ts_oracle_fail(const char *what, const char *stream, size_t stream_len);

/* True when findings hold a violation of a Required rule. */
bool ts_oracle_has_required(const ts_findings *findings);

/* Merges updates with options and writes the response compactly into out. Returns false (err
 * set) when the merge rejects the stream. */
bool ts_oracle_merge_text(const ts_update *updates, size_t count, const ts_merge_options *options, ts_buf *out,
                          ts_error *err);

/* Merges updates into a response JSON value in arena (no text round trip). */
bool ts_oracle_merge_json(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
                          ts_json *out, ts_error *err);

/* Runs every checker on answer (a response value). On a Required finding prints the findings
 * and the answer and returns false: the caller then fails with the stream. */
bool ts_oracle_check_json(const ts_update *updates, size_t count, const ts_json *answer);

/* True when a and b are the same value with members in the same order and numbers of the same
 * kind and bits: the writer is a function of the value, so they would be written as the same
 * bytes (what D1 asks) without writing either. */
bool ts_oracle_identical(const ts_json *a, const ts_json *b);

/* Runs every checker on response_text as the merge of updates; aborts on a Required finding. */
void ts_oracle_check(const ts_update *updates, size_t count, const char *response_text, size_t response_len,
                     const char *stream, size_t stream_len);

#endif
