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

#include "conformance/testee/mutants.h"
#include "core/json/buf.h"

/* How the `resume` op's world calls reach the certifier: writes `line` (one JSON object, no
 * newline) and reads the reply line into reply. false: no reply comes (the input ended, or the
 * certifier ended the case); the action must stop at once. */
typedef bool (*ts_world_exchange)(void *context, const char *line, size_t len, ts_buf *reply);

typedef struct ts_testee_config {
    const ts_mutant *mutant;  /* NULL: the reference */
    char now[40];             /* "now" for the created-at-overwritten mutant, fixed per process */
    ts_world_exchange exchange; /* NULL: the resume op is answered with an error */
    void *exchange_context;
} ts_testee_config;

/* Initialises config for the reference, or for a mutant (NULL name: the reference). */
void ts_testee_config_init(ts_testee_config *config, const ts_mutant *mutant);

/* Appends exactly one answer (a JSON object, no newline) for the request line to answer. */
void ts_testee_answer(const ts_testee_config *config, const char *line, size_t len, ts_buf *answer);

#endif
