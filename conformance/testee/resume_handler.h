/* resume_handler.h — the reference resume engine (or one of its mutants) answering the
 * protocol's `resume` op (conformance/PROTOCOL.md): the certifier plays its model and tools.
 *
 * Owns: the reference's adapter. Each request opens the journal in the case's store directory
 * (SQLite, `<store>/journal.db`, synchronous=OFF: it survives a killed process, the fault
 * the certifier injects, though not a power loss), carries out
 * one action (user, recover, complete, read) and closes it again, so a testee process may be
 * killed and restarted between any two lines. The engine's world (core/resume/world.h) is the
 * certifier: model and tool calls become `call` lines, every commit a pair of `commit` notices
 * (also the writes this adapter makes itself: a user message into the inbox, a tool result
 * that arrived); the clock is the wall clock. Conversations are written as
 * Microsoft.Extensions.AI ChatMessage JSON, entry ids as messageIds and entry timestamps as
 * createdAt; a read lists the user messages still waiting in the inbox after the transcript.
 */
#ifndef TURNSTILE_CONFORMANCE_TESTEE_RESUME_HANDLER_H
#define TURNSTILE_CONFORMANCE_TESTEE_RESUME_HANDLER_H

#include "conformance/testee/testee_config.h"
#include "core/json/arena.h"
#include "core/json/json.h"

/* Carries out one `resume` request (parsed; its id given) and appends the answer line (no
 * newline) to out. World calls go through config->exchange; without one the answer is an
 * error. When an exchange fails (the certifier killed the case), the action stops at once,
 * writing nothing more to the store, and the answer says so. */
void ts_testee_resume(const ts_testee_config *config, ts_arena *arena, const ts_json *request, ts_str id, ts_buf *out);

/* The durability the configuration claims in hello ("power-loss": every acknowledged action
 * survives a power loss; "process-crash": a killed process only): what the store is meant to
 * give, which a mutant's bug does not change. */
const char *ts_testee_durability(const ts_testee_config *config);

/* After the answer to a request is written and flushed: the write a mutant left for then, if
 * any (its failure is the mutant's own and is not reported). */
void ts_testee_after_answer(const ts_testee_config *config);

#endif
