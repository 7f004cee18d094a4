#!/usr/bin/env bash
# ci/bench/check_bench.sh — the merge checkers' cost beside the reference merge's (issue 12).
#
# usage: ci/bench/check_bench.sh [SIZES] [PARTITION_SIZES]     (defaults: 100000,1000000 and 16,32,64,96 groups)
#        BENCH_RUNS=5 ci/bench/check_bench.sh                   (runs per measurement, default 5)
#
# Builds the in-process driver //ci/bench:check_bench (default config: clang -O2, no sanitizer)
# and runs ci/bench/check_bench.py over its shapes: for each, a stream and a valid answer,
# then the reference merge and the checkers on the same parsed stream, medians of CPU and wall
# time, the ratio check/merge (CPU) and the decider's search states. The shapes, what they
# stress and how to skip the merge on the many-group ones for a quick run are in
# check_bench.py's header; what the numbers mean is conformance/checkers/DESIGN.md §4.
# A benchmark, not a test: no threshold. It exits non-zero when a step fails or a valid answer
# is rejected.
set -euo pipefail
sizes="${1:-100000,1000000}"
partition_sizes="${2:-16,32,64,96}"
runs="${BENCH_RUNS:-5}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "check_bench.sh: BENCH_RUNS must be a positive integer" >&2; exit 2; }
[[ "$sizes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "usage: $0 [SIZES] [PARTITION_SIZES] (comma-separated positive integers)" >&2; exit 2; }
[[ "$partition_sizes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "usage: $0 [SIZES] [PARTITION_SIZES]" >&2; exit 2; }
bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$bench_dir/../.."
bash ci/setup.sh
bazel build //ci/bench:check_bench
work="$(mktemp -d "${TMPDIR:-/tmp}/turnstile-check-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$(bazel info bazel-bin 2>/dev/null)/ci/bench/check_bench" "$work/check_bench" # a private copy: builds may swap the original
if grep -qaE '__asan_init|__sanitizer_cov|__afl_area_ptr' "$work/check_bench"; then
  echo "check_bench.sh: the driver is instrumented; rebuild with the default config" >&2
  exit 1
fi
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "host: ${cpu:-?}, $(nproc) CPUs; medians of $runs runs; bazel default config (clang -O2)"
python3 "$bench_dir/check_bench.py" --driver "$work/check_bench" --sizes "$sizes" --partition-sizes "$partition_sizes" --runs "$runs"
