#!/usr/bin/env bash
# ci/fuzz_smoke.sh — every fuzz target for a bounded time under libFuzzer + ASan + UBSan.
#
# usage: ci/fuzz_smoke.sh [SECONDS_PER_TARGET]     (default 60; .ci/run uses a short budget)
# Each target starts from a writable copy of corpora/<t>/seeds and regressions, with its
# dictionary, with a fixed seed ($FUZZ_SEED, default 1) so that a CI result reproduces; long
# exploratory runs belong to the launchers and ClusterFuzzLite. A crash fails the job and
# leaves the reproducer in $FUZZ_OUT (default: a new temporary directory, kept only when
# something failed) with the command that replays it. Ends with "N passed, N failed".
# Also builds every target for AFL++ (afl-clang-fast, persistent mode) so that config stays
# green, and then runs every README launcher for a few seconds (ci/fuzz_launchers.sh).
# The targets run side by side, FUZZ_JOBS at a time (default: the cores), each for SECONDS.
# Safe for two jobs on one machine: no fixed paths, binaries found through `bazel info`.
set -euo pipefail
trap 'echo "ci/fuzz_smoke.sh: failed at line $LINENO (exit $?)" >&2' ERR
seconds="${1:-60}"
cd "$(dirname "$0")/.."
ci/setup.sh fuzz
if [ -n "${FUZZ_OUT:-}" ]; then
    out=$FUZZ_OUT
    mkdir -p "$out"
else
    out=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-fuzz.XXXXXX")
fi
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt)
binaries=("${targets[@]/#///fuzz:}")
binaries=("${binaries[@]/%/_bin}")
bazel build --config=libfuzzer "${binaries[@]}" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
bazel build --config=afl "${binaries[@]}" >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
bin="$(bazel info --config=libfuzzer bazel-bin 2>/dev/null)/fuzz"
[ -x "$bin/merge_bytes_bin" ] || { echo "ci/fuzz_smoke.sh: no libFuzzer binaries in $bin" >&2; exit 1; }
# fuzz_target T: one target's run; writes its PASS/FAIL lines to $out/T/result (exit 0 on PASS).
fuzz_target() {
    local t=$1 dict=() stats cov crash
    mkdir -p "$out/$t/corpus"
    find "corpora/$t/seeds" "corpora/$t/regressions" -type f ! -name 'README*' -exec cp {} "$out/$t/corpus/" \;
    [ ! -f "fuzz/$t.dict" ] || dict=(-dict="fuzz/$t.dict")
    if TURNSTILE_FINDINGS_DIR="$out/$t" "$bin/${t}_bin" "${dict[@]}" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$out/$t/" "$out/$t/corpus" >"$out/$t/log" 2>&1; then
        stats=$({ grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$out/$t/log" || true; } | awk '{print $2}' | paste -sd' ')
        cov=$({ grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$out/$t/log" || true; } | tail -1)
        echo "PASS $t: $stats executions, exec/s; $cov" >"$out/$t/result"
    else
        crash=$(find "$out/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -1)
        { echo "FAIL $t: $(grep -m1 -E '==turnstile==|ERROR: libFuzzer|SUMMARY' "$out/$t/log")"
          echo "     reproduce: $bin/${t}_bin $crash   (then add it to corpora/$t/regressions/)"; } >"$out/$t/result"
        return 1
    fi
}
# Each target is one process on one core: FUZZ_JOBS of them (default: the cores) run side by
# side, each for its own SECONDS, and their lines are printed in targets.txt's order.
jobs="${FUZZ_JOBS:-$(nproc)}"
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    mkdir -p "$out/$t"
    fuzz_target "$t" &
    running=$((running + 1))
done
wait || true
passed=0 failed=0
for t in "${targets[@]}"; do
    cat "$out/$t/result" 2>/dev/null || echo "FAIL $t: no result (see $out/$t/log)"
    if grep -q '^PASS' "$out/$t/result" 2>/dev/null; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
launchers=0
ci/fuzz_launchers.sh >"$out/launchers.log" 2>&1 || launchers=$?
grep -E '^(PASS|FAIL)' "$out/launchers.log" || true
if [ "$launchers" -eq 0 ]; then
    passed=$((passed + 1))
else
    echo "FAIL ci/fuzz_launchers.sh (exit $launchers):"; tail -5 "$out/launchers.log"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then exit 1; fi
[ -n "${FUZZ_OUT:-}" ] || rm -rf "$out"
