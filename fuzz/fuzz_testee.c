/* fuzz_testee.c — the testee of the differential fuzz targets; see fuzz_testee.h. */
#include "fuzz/fuzz_testee.h"

#include <stdlib.h>

#include "conformance/certifier/reference_testee.h"
#include "conformance/testee/mutants.h"
#include "fuzz/oracle.h"

static ts_testee *testee; /* the fuzzer's entry point needs it across calls */

ts_testee *ts_fuzz_testee(double default_timeout) {
    if (testee) return testee;
    const char *command = getenv("TURNSTILE_TESTEE"), *mutant = getenv("TURNSTILE_TESTEE_MUTANT");
    const char *timeout = getenv("TURNSTILE_TESTEE_TIMEOUT"), *settle = getenv("TURNSTILE_KILL_SETTLE_MS");
    if (command && *command) {
        char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
        ts_testee_options options = {timeout ? atof(timeout) : default_timeout, (size_t)16 << 20, 1000000,
                                     settle ? atof(settle) / 1000.0 : 0, 0};
        char why[300];
        testee = ts_testee_spawn(argv, &options, why, sizeof why);
        if (!testee) ts_oracle_fail(why, NULL, 0);
    } else {
        const ts_mutant *m = mutant && *mutant ? ts_mutant_find(mutant) : NULL;
        if (mutant && *mutant && !m) ts_oracle_fail("TURNSTILE_TESTEE_MUTANT names no mutant", NULL, 0);
        testee = ts_testee_in_process(m);
    }
    return testee;
}
