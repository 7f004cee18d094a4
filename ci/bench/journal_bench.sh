#!/usr/bin/env bash
# ci/bench/journal_bench.sh — commit throughput and resume time of the journal stores.
#
# usage: ci/bench/journal_bench.sh [COMMITS_FULL] [COMMITS_NORMAL] [RESUME_ENTRIES]
#            (defaults 2000, 20000, 100000)
#        BENCH_DIR=/mnt/disk ci/bench/journal_bench.sh   (where the databases go; default: a
#            temporary directory under $TMPDIR or /tmp — put it on the disk you care about)
#
# What is measured (ci/bench/journal_bench.c): committed entries/s of the SQLite store at
# synchronous=FULL and NORMAL — each commit one entry plus a checkpoint, the engine's smallest
# durable step, one transaction each — with the memory store as the peer (the commit rules and
# the copy without any I/O); then the resume time of a RESUME_ENTRIES-entry journal: open +
# load, best of 3, beside its floor (the codec parsing the content JSON alone) and the memory
# store's load. Wall and CPU seconds are both shown: FULL waits for fsync, and on a busy machine
# the CPU column is the steadier one.
#
# This is a benchmark, not a test: there is no pass/fail threshold. It exits non-zero when a
# step fails. Builds use the default configuration of .bazelrc (clang, -O2).
set -euo pipefail

full="${1:-2000}"
normal="${2:-20000}"
entries="${3:-100000}"
for n in "$full" "$normal" "$entries"; do
  if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [COMMITS_FULL] [COMMITS_NORMAL] [RESUME_ENTRIES]   (positive integers)" >&2
    exit 2
  fi
done

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$bench_dir/../.." && pwd)"
cd "$repo"

bash ci/setup.sh

bazel build //ci/bench:journal_bench
bin="$(bazel info bazel-bin 2>/dev/null)"

base="${BENCH_DIR:-${TMPDIR:-/tmp}}"
work="$(mktemp -d "$base/turnstile-journal-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# A private copy, so that another build finishing meanwhile cannot swap the binary under us.
cp "$bin/ci/bench/journal_bench" "$work/journal_bench"
if grep -qaE '__asan_init|__sanitizer_cov|__afl_area_ptr' "$work/journal_bench"; then
  echo "journal_bench.sh: the binary is instrumented (sanitizer/fuzzer build); rebuild with the default config" >&2
  exit 1
fi

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
fs="$(df -PT "$work" | awk 'NR == 2 { print $1 " (" $2 ")" }')"
echo "host: ${cpu:-?}, $(nproc) CPUs; databases in $work on $fs"
"$work/journal_bench" "$work" "$full" "$normal" "$entries"
