#!/usr/bin/env bash
# ci/fuzz_mutants.sh — detection power: time to first crash of the differential fuzz target
# against each mutant (a historic bug of the seeds), from an empty corpus, over three seeds.
#
# usage: ci/fuzz_mutants.sh [MAX_SECONDS]     (default 120 per run)
# Uses libFuzzer without sanitizers (--config=libfuzzer-fast: semantic bugs need no ASan) on one
# core, the mutant in-process ($TURNSTILE_TESTEE_MUTANT). Prints a table: mutant, the rule of
# the finding, seconds per seed, median. A benchmark, not a test: the target is a median < 60 s.
set -euo pipefail
max="${1:-120}"
cd "$(dirname "$0")/.."
ci/setup.sh fuzz
bazel build --config=libfuzzer-fast //fuzz:differential_bin >/dev/null 2>&1
bin="$(bazel info --config=libfuzzer-fast bazel-bin 2>/dev/null)/fuzz/differential_bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bazel build //:turnstile >/dev/null 2>&1
mutants=$("$(bazel info bazel-bin 2>/dev/null)/turnstile" testee --list-mutants | awk '{print $1}')
printf '%-28s %-6s %8s %8s %8s %8s\n' mutant rule seed1 seed2 seed3 median
for m in $mutants; do
    times=() rule="-"
    for seed in 1 2 3; do
        rm -rf "$work/corpus" "$work/findings"
        mkdir -p "$work/corpus" "$work/findings"
        start=$(date +%s.%N)
        TURNSTILE_TESTEE_MUTANT=$m TURNSTILE_FINDINGS_DIR="$work/findings" \
            "$bin" -seed=$seed -max_total_time="$max" -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1 || true
        end=$(date +%s.%N)
        if grep -q '==turnstile== the testee fails' "$work/log"; then
            rule=$(grep -m1 -oE 'the testee fails [A-Z0-9]+' "$work/log" | awk '{print $4}')
            times+=("$(python3 -c "print(round($end - $start, 1))")")
        else
            times+=("none")
        fi
    done
    median=$(python3 -c "import sys; t=sorted(float(x) if x!='none' else float('inf') for x in sys.argv[1:]); print(t[1] if t[1]!=float('inf') else 'none')" "${times[@]}")
    printf '%-28s %-6s %8s %8s %8s %8s\n' "$m" "$rule" "${times[@]}" "$median"
done
