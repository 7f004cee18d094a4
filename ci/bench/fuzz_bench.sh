#!/usr/bin/env bash
# ci/bench/fuzz_bench.sh — exec/s of every fuzz target with and without sanitizers, beside the
# peer measured in the same run: an empty target with the same libraries (libFuzzer's own
# per-run cost on this machine).
#
# usage: ci/bench/fuzz_bench.sh [SECONDS]          (per target and build, default 20)
#        BENCH_RUNS=3 ci/bench/fuzz_bench.sh        (runs per measurement, default 1; medians)
#
# Each run: `-seed=1 -max_total_time=SECONDS` on a fresh copy of the target's seeds and
# regressions, single process; exec/s is libFuzzer's final "DONE" figure (runs / seconds), and
# CPU seconds (user + system of the fuzzer, from bash's `times`) stand beside wall seconds,
# since this machine is shared. Builds: --config=libfuzzer (ASan + UBSan, what the smoke and soak
# runs use) and --config=libfuzzer-fast (no sanitizer: the speed ceiling). The goal printed at
# the end (issue 15): merge_structured at least 20k exec/s without sanitizers.
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
# measure CONFIG TARGET: prints "exec/s cpu_seconds" (medians)
measure() {
    local config=$1 target=$2 bin corpus
    if [ "$target" = empty ]; then bin="${bins[$config]}/ci/bench/fuzz_empty"; else bin="${bins[$config]}/fuzz/${target}_bin"; fi
    : >"$work/rates" ; : >"$work/cpus"
    for _ in $(seq "$runs"); do
        corpus="$work/corpus-$config-$target"
        rm -rf "$corpus" && mkdir -p "$corpus"
        if [ "$target" != empty ]; then
            find -L corpora/"$target"/seeds corpora/"$target"/regressions -type f ! -name 'README*' -exec cp {} "$corpus"/ \;
        else
            printf 'x' >"$corpus/x"
        fi
        /usr/bin/time -o "$work/time" -f '%U %S' "$bin" -seed=1 -max_total_time="$seconds" "$corpus" >"$work/log" 2>&1 || true
        grep -q 'Done [0-9]* runs' "$work/log" || { echo "fuzz_bench.sh: $config $target did not finish:" >&2; tail -5 "$work/log" >&2; exit 1; }
        sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$work/log" | awk '{ print ($2 > 0 ? $1 / $2 : $1) }' >>"$work/rates"
        tail -1 "$work/time" | awk '{ print $1 + $2 }' >>"$work/cpus"
    done
    echo "$(median <"$work/rates") $(median <"$work/cpus")"
}
printf 'host: %s, %s CPUs, load %s; %s s per run, medians of %s run(s)\n' \
    "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$seconds" "$runs"
printf '%-20s %14s %9s %16s %9s %10s\n' target "ASan+UBSan/s" "CPU s" "no sanitizer/s" "CPU s" "vs empty"
declare -A fast
for target in empty "${targets[@]}"; do
    read -r slow slow_cpu < <(measure libfuzzer "$target")
    read -r quick quick_cpu < <(measure libfuzzer-fast "$target")
    fast[$target]=$quick
    ratio=$(awk -v a="${fast[empty]}" -v b="$quick" 'BEGIN { printf "%.0fx", (b > 0 ? a / b : 0) }')
    name=$target; [ "$target" = empty ] && name="(empty: the peer)"
    printf '%-20s %14.0f %9.1f %16.0f %9.1f %10s\n' "$name" "$slow" "$slow_cpu" "$quick" "$quick_cpu" "$ratio"
done
awk -v r="${fast[merge_structured]}" 'BEGIN { printf "merge_structured without sanitizers: %.0f exec/s (goal: at least 20000): %s\n", r, (r >= 20000 ? "met" : "not met") }'
