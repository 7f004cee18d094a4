#!/usr/bin/env bash
# ci/test.sh — turnstile's test command (README's, and what .ci/run runs).
#
# Installs what is missing (ci/setup.sh), then:
#   1. bazel test //...                  (clang, -Wall -Wextra -Werror)
#   2. bazel test --config=asan //...    (ASan + UBSan, halting on the first report)
#   3. bazel build --config=gcc //...    (the same code warning-clean under gcc)
#   4. the checks of the scripts themselves: ci/lint.sh (shellcheck), ci/scripts_test.sh (every
#      script fails when a step fails), ci/install_test.sh, ci/action_test.sh,
#      ci/fuzz_targets_test.sh, ci/layering_test.sh (no include line turns the data flow around)
# and ends with one line "N passed, N failed" counting Bazel test targets over both runs and the
# script checks. Exits non-zero when anything failed: a test, a build, a check, or the setup.
# Extra arguments are passed to both `bazel test` runs (e.g. a target pattern's --test_filter).
set -euo pipefail
trap 'echo "ci/test.sh: failed at line $LINENO (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
ci/setup.sh
# The tests write and fsync stores thousands of times (every kill run of every case). On tmpfs an
# fsync costs nothing, and nothing is lost: the file-system nemesis judges durability from the calls
# it observes, not from a disk. TURNSTILE_TEST_TMPDIR chooses another directory; without /dev/shm
# TMPDIR stays as it is. (Bazel hands the client's TMPDIR to every test.)
if [ -n "${TURNSTILE_TEST_TMPDIR:-}" ]; then
    export TMPDIR=$TURNSTILE_TEST_TMPDIR
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for config in default asan; do
    flags=(--test_summary=short)
    [ "$config" = default ] || flags+=(--config="$config")
    echo "== bazel test ${flags[*]} //..." >&2
    # bazel's own status decides (a failing test exits 3, a failing build 1): with pipefail the
    # pipeline's status is bazel's, or tee's should the log be unwritable; grep only filters.
    code=0
    bazel test "${flags[@]}" "$@" //... 2>&1 | tee -a "$log" | { grep -E '^//|^Executed|^ERROR|^FAIL' || true; } || code=$?
    if [ "$code" -ne 0 ]; then
        echo "== bazel test ${flags[*]}: exit $code" >&2
        status=1
    fi
done
echo "== bazel build --config=gcc //..." >&2
if ! bazel build --config=gcc //... >>"$log" 2>&1; then
    grep -E 'error|ERROR' "$log" | tail -20 >&2
    status=1
fi
# The script checks are single processes: $(nproc) of them run side by side, each into its own
# files, and their results are reported in this order.
checks=(ci/lint.sh ci/scripts_test.sh ci/install_test.sh ci/action_test.sh ci/fuzz_targets_test.sh ci/layering_test.sh)
check_dir=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$check_dir"' EXIT
running=0
for i in "${!checks[@]}"; do
    if [ "$running" -ge "$(nproc)" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    echo "== ${checks[$i]}" >&2
    { code=0; "${checks[$i]}" >"$check_dir/$i.out" 2>&1 || code=$?; echo "$code" >"$check_dir/$i.code"; } &
    running=$((running + 1))
done
wait || true
for i in "${!checks[@]}"; do
    check=${checks[$i]}
    code=$(cat "$check_dir/$i.code" 2>/dev/null || echo "none")
    if [ "$code" = 0 ]; then
        echo "$check PASSED ($(tail -1 "$check_dir/$i.out"))" | tee -a "$log"
    else
        echo "$check FAILED (exit $code)" | tee -a "$log"
        tail -20 "$check_dir/$i.out"
        status=1
    fi
done
passed=$(grep -cE '^(//|ci/)\S+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^(//|ci/)\S+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log" || true)
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1  # a build failure counts as a failure
echo "$passed passed, $failed failed"
exit $status
