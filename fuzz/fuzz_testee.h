/* fuzz_testee.h — the testee a differential fuzz target drives (differential, differential_resume).
 *
 * Owns: choosing it from the environment, once per process: the command in $TURNSTILE_TESTEE
 * (run with /bin/sh -c, kept running across inputs, restarted whenever it dies, with
 * $TURNSTILE_TESTEE_TIMEOUT seconds per answer and $TURNSTILE_KILL_SETTLE_MS before a kill), or
 * the built-in mutant named by $TURNSTILE_TESTEE_MUTANT, or by default the reference itself,
 * in-process. The fuzzer's entry point keeps it for the life of the process (never freed).
 */
#ifndef TURNSTILE_FUZZ_FUZZ_TESTEE_H
#define TURNSTILE_FUZZ_FUZZ_TESTEE_H

#include "conformance/certifier/testee.h"

/* The testee (the same one on every call); aborts through ts_oracle_fail when it cannot start.
 * default_timeout: seconds per answer when $TURNSTILE_TESTEE_TIMEOUT is not set. */
ts_testee *ts_fuzz_testee(double default_timeout);

#endif
