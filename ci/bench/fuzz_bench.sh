#!/usr/bin/env bash
# ci/bench/fuzz_bench.sh — exec/s of every fuzz target with and without sanitizers, beside the
# peer measured in the same run: an empty target with the same libraries (libFuzzer's own
# per-run cost on this machine).
#
# usage: ci/bench/fuzz_bench.sh [SECONDS]          (per target and build, default 20)
#        BENCH_RUNS=3 ci/bench/fuzz_bench.sh        (runs per measurement, default 1; medians)
#
# Each run: `-seed=1 -max_total_time=SECONDS` on a fresh copy of the target's seeds and
# regressions, single process (early: the corpus still grows), then `-seed=2` for as long again
# on the corpus the first left (steady: the corpus has settled); the rate is libFuzzer's "Done N
# runs" over the CPU seconds of that run (user + system, /usr/bin/time), exec/CPU-s, since this
# machine is shared and wall seconds mean little. Builds: --config=libfuzzer (ASan + UBSan, what
# the smoke and soak runs use) and --config=libfuzzer-fast (no sanitizer: the speed ceiling).
# The goals printed at the end (issue 26), without sanitizers, at steady state: merge_structured
# at least 20k exec/CPU-s, acceptance and differential at least 10k.
# A benchmark, not a test: exits non-zero only when a build or a run fails.
set -euo pipefail
seconds="${1:-20}"
runs="${BENCH_RUNS:-1}"
cd "$(dirname "$0")/../.."
ci/setup.sh fuzz >/dev/null
# Every target of fuzz/targets.txt but differential_resume, whose runs are mostly process kills and
# restarts: its speed is the kill sweep's (ci/bench/resume_bench.sh), not a fuzzer's.
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt | grep -vx differential_resume)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binaries=("${targets[@]/#///fuzz:}")
binaries=("${binaries[@]/%/_bin}")
declare -A bins
for config in libfuzzer libfuzzer-fast; do
    bazel build --config="$config" "${binaries[@]}" //ci/bench:fuzz_empty \
        >"$work/build-$config.log" 2>&1 || { tail -20 "$work/build-$config.log" >&2; exit 1; }
    bins[$config]="$(bazel info --config="$config" bazel-bin 2>/dev/null)"
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# one_run BIN CORPUS SEED: appends runs / CPU seconds of one run to $work/rates.$SEED
one_run() {
    /usr/bin/time -o "$work/time" -f '%U %S' "$1" -seed="$3" -max_total_time="$seconds" "$2" >"$work/log" 2>&1 || true
    grep -q 'Done [0-9]* runs' "$work/log" || { echo "fuzz_bench.sh: $1 did not finish:" >&2; tail -5 "$work/log" >&2; exit 1; }
    local done_runs
    done_runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$work/log")
    tail -1 "$work/time" | awk -v n="$done_runs" '{ c = $1 + $2; print (c > 0 ? n / c : n) }' >>"$work/rates.$3"
}
# measure CONFIG TARGET: prints "early steady" exec/CPU-s (medians)
measure() {
    local config=$1 target=$2 bin corpus
    if [ "$target" = empty ]; then bin="${bins[$config]}/ci/bench/fuzz_empty"; else bin="${bins[$config]}/fuzz/${target}_bin"; fi
    : >"$work/rates.1" ; : >"$work/rates.2"
    for _ in $(seq "$runs"); do
        corpus="$work/corpus-$config-$target"
        rm -rf "$corpus" && mkdir -p "$corpus"
        if [ "$target" != empty ]; then
            find -L corpora/"$target"/seeds corpora/"$target"/regressions -type f ! -name 'README*' -exec cp {} "$corpus"/ \;
        else
            printf 'x' >"$corpus/x"
        fi
        one_run "$bin" "$corpus" 1
        one_run "$bin" "$corpus" 2
    done
    echo "$(median <"$work/rates.1") $(median <"$work/rates.2")"
}
printf 'host: %s, %s CPUs, load %s; %s s per run, medians of %s run(s)\n' \
    "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$seconds" "$runs"
printf 'exec per CPU second       ASan+UBSan             no sanitizer\n'
printf '%-20s %10s %10s %12s %10s %10s\n' target early steady early steady "vs empty"
declare -A fast
for target in empty "${targets[@]}"; do
    read -r slow slow_steady < <(measure libfuzzer "$target")
    read -r quick quick_steady < <(measure libfuzzer-fast "$target")
    fast[$target]=$quick_steady
    ratio=$(awk -v a="${fast[empty]}" -v b="$quick_steady" 'BEGIN { printf "%.0fx", (b > 0 ? a / b : 0) }')
    name=$target; [ "$target" = empty ] && name="(empty: the peer)"
    printf '%-20s %10.0f %10.0f %12.0f %10.0f %10s\n' "$name" "$slow" "$slow_steady" "$quick" "$quick_steady" "$ratio"
done
# Issue 26's goals, exec per CPU second without sanitizers (one per line: a goal is not a target list).
goals=(
    merge_structured:20000
    acceptance:10000
    differential:10000
)
for goal in "${goals[@]}"; do
    t=${goal%%:*} want=${goal##*:}
    awk -v t="$t" -v r="${fast[$t]}" -v want="$want" 'BEGIN { printf "%s without sanitizers, steady: %.0f exec/CPU-s (goal: at least %d): %s\n", t, r, want, (r >= want ? "met" : "not met") }'
done
