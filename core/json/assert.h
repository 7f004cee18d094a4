/* assert.h — executable invariants, in SQLite's manner (its assert, ALWAYS and NEVER).
 *
 * Owns: three macros for what a module's design says must hold, and the one switch that turns
 * them on (TS_DEBUG). It lives in core/json, the lowest layer, because every module of core
 * states invariants and none may depend on a layer above it (core/testing is test support).
 *
 *   TS_ASSERT(x)  x holds here, whatever the input: a broken one is a bug of this code, never of
 *                 its input (bad input gets an error, never an assertion). Checked when TS_DEBUG
 *                 is on: a failure prints file, line, function and the expression to stderr and
 *                 aborts (a crash the fuzzers and ASan tests report). Off: not evaluated at all,
 *                 so x must have no side effects; helpers that only assertions call go inside
 *                 `#if TS_DEBUG`.
 *   TS_ALWAYS(x)  x is believed always true, but the code still handles it being false:
 *   TS_NEVER(x)   x is believed never true, handled all the same:
 *                     if (TS_NEVER(task == NULL)) return error(...);
 *                 On: a belief proved wrong aborts as TS_ASSERT does. Off: the value of x, and
 *                 the defensive branch stays in the product.
 *
 * When TS_DEBUG is on (one decision, here):
 *   - any build that defines it: --config=asan (and so --config=libfuzzer) and --config=afl in
 *     .bazelrc pass -DTS_DEBUG=1, and so can anyone (`bazel test --copt=-DTS_DEBUG=1 ...`);
 *   - any build with AddressSanitizer or FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (OSS-Fuzz's
 *     and ClusterFuzzLite's own builds, which do not read .bazelrc's configs);
 *   - -DTS_DEBUG=0 turns it off even there.
 * Off in the default build, on purpose: the default build is the release (ci/release.sh builds
 * //:turnstile with it) and what the benchmarks measure, and some checks here cost a pass over a
 * merge's messages or a digest per task. `bazel test //...` runs the tests both ways in CI:
 * default (the code as shipped) and --config=asan (the invariants checked).
 */
#ifndef TURNSTILE_CORE_JSON_ASSERT_H
#define TURNSTILE_CORE_JSON_ASSERT_H

#ifndef TS_DEBUG
#if defined(__SANITIZE_ADDRESS__) || defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
#define TS_DEBUG 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_DEBUG 1
#endif
#endif
#endif
#ifndef TS_DEBUG
#define TS_DEBUG 0
#endif

#if TS_DEBUG
#include <stdio.h>
#include <stdlib.h>

/* Reports a broken invariant and aborts. */
static inline _Noreturn void ts_assert_failed(const char *expression, const char *file, int line, const char *function) {
    fprintf(stderr, "%s:%d: %s: invariant broken: %s\n", file, line, function, expression);
    fflush(stderr);
    abort();
}

#define TS_ASSERT(x) ((x) ? (void)0 : ts_assert_failed(#x, __FILE__, __LINE__, __func__))
#define TS_ALWAYS(x) ((x) ? 1 : (ts_assert_failed("ALWAYS(" #x ")", __FILE__, __LINE__, __func__), 0))
#define TS_NEVER(x) ((x) ? (ts_assert_failed("NEVER(" #x ")", __FILE__, __LINE__, __func__), 1) : 0)
#else
#define TS_ASSERT(x) ((void)0)
#define TS_ALWAYS(x) (!!(x))
#define TS_NEVER(x) (!!(x))
#endif

#endif
