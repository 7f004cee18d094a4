#!/usr/bin/env bash
# ci/bench/certify_bench.sh — how fast the whole conformance suite certifies.
#
# usage: ci/bench/certify_bench.sh [RUNS]     (default 5 runs per configuration; best is shown)
#
# Measures `turnstile certify` over the full suite (every case, plus the D1 repeat of each):
#   in-process    the reference answering inside the certifier (checkers + reports only)
#   pipe          the reference as a child process over the PROTOCOL.md pipe (`turnstile testee`):
#                 what a third-party testee costs the certifier, less the testee's own work
#   pipe, no D1   the same with --no-repeat (each case sent once)
# The target is the whole suite in under 2 s over the pipe. A benchmark, not a test.
set -euo pipefail
runs="${1:-5}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
ci/setup.sh
bazel build //:turnstile >/dev/null 2>&1
bin="$(bazel info bazel-bin 2>/dev/null)/turnstile"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/turnstile"
cases=$("$work/turnstile" certify --reference --no-repeat --report-json "$work/r.json" >/dev/null 2>&1; \
        python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['cases'])" "$work/r.json")

best() { # best wall seconds of $runs runs of the command
    local best=""
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || [ $? -eq 1 ]
        end=$(date +%s.%N)
        best=$(python3 -c "import sys; a=float(sys.argv[1])-float(sys.argv[2]); b=sys.argv[3]; print(a if not b or a<float(b) else b)" "$end" "$start" "$best")
    done
    echo "$best"
}
printf '%s cases (each sent twice unless --no-repeat); best of %s runs\n\n' "$cases" "$runs"
printf '%-22s %10s %12s\n' configuration seconds 'cases/s'
for config in in-process pipe pipe-no-D1; do
    case $config in
        in-process) t=$(best "$work/turnstile" certify --reference) ;;
        pipe) t=$(best "$work/turnstile" certify -- "$work/turnstile" testee) ;;
        pipe-no-D1) t=$(best "$work/turnstile" certify --no-repeat -- "$work/turnstile" testee) ;;
    esac
    printf '%-22s %10.3f %12.0f\n' "$config" "$t" "$(python3 -c "print($cases/$t)")"
done
