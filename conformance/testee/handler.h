/* handler.h — the reference (or one of its mutants) as a testee: one protocol request in, one
 * answer line out (conformance/PROTOCOL.md).
 *
 * Owns: reading requests and writing answers for the ops merge, host, journal, resume (in
 * resume_handler.h) and hello. Used by
 * `turnstile testee` over stdin/stdout and by the certifier's in-process testee, so both paths
 * answer identically.
 */
#ifndef TURNSTILE_CONFORMANCE_TESTEE_HANDLER_H
#define TURNSTILE_CONFORMANCE_TESTEE_HANDLER_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/testee/testee_config.h"
#include "core/json/buf.h"

/* Appends exactly one answer (a JSON object, no newline) for the request line to answer. */
void ts_testee_answer(const ts_testee_config *config, const char *line, size_t len, ts_buf *answer);

#endif
