#!/usr/bin/env bash
# ci/test.sh — turnstile's test command (README's, and what .ci/run runs).
#
# Installs what is missing (ci/setup.sh), then:
#   1. bazel test //...                  (clang, -Wall -Wextra -Werror)
#   2. bazel test --config=asan //...    (ASan + UBSan, halting on the first report)
#   3. bazel build --config=gcc //...    (the same code warning-clean under gcc)
# and ends with one line "N passed, N failed" counting Bazel test targets over both runs.
# Extra arguments are passed to both `bazel test` runs (e.g. a target pattern's --test_filter).
set -euo pipefail
trap 'echo "ci/test.sh: failed at line $LINENO (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
ci/setup.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for config in default asan; do
    flags=(--test_summary=short)
    [ "$config" = default ] || flags+=(--config="$config")
    echo "== bazel test ${flags[*]} //..." >&2
    if ! bazel test "${flags[@]}" "$@" //... 2>&1 | tee -a "$log" | grep -E '^//|^Executed|^ERROR|^FAIL' ; then :; fi
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
echo "== bazel build --config=gcc //..." >&2
if ! bazel build --config=gcc //... >>"$log" 2>&1; then
    grep -E 'error|ERROR' "$log" | tail -20 >&2
    status=1
fi

passed=$(grep -cE '^//\S+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//\S+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log" || true)
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1  # a build failure counts as a failure
echo "$passed passed, $failed failed"
exit $status
