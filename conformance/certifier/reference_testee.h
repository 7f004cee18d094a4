/* reference_testee.h — the reference (or one of its mutants) as a testee in-process: the second
 * implementation of the testee seam (testee.h), turnstile certifying itself.
 *
 * Owns: answering each request with conformance/testee's handler in this process, and playing
 * a `resume` request's world calls straight to the caller's line handler (a kill stops the
 * reference at that world call). It starts no process: every process call of testee.h has its
 * neutral answer. In a Bazel target of its own (//conformance/certifier:reference_testee), so
 * that the certifier proper links neither the merger, nor the engine, nor a store.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REFERENCE_TESTEE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REFERENCE_TESTEE_H

#include "conformance/certifier/testee.h"
#include "conformance/testee/mutants.h"

/* The reference (mutant NULL) or a mutant (borrowed: one of ts_mutants) answering in-process.
 * NULL when out of memory. The caller frees it with ts_testee_close. */
ts_testee *ts_testee_in_process(const ts_mutant *mutant);

#endif
