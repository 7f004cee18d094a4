#!/usr/bin/env bash
# ci/bench/journal_bench.sh — the journal against its peers, in one run: commits/s beside raw
# SQLite one-insert transactions and LangGraph's SqliteSaver (synchronous NORMAL and FULL),
# storage per simple turn and CPU for 10^3 turns beside LangGraph's (same turns), and the
# resume time of a 10^5-entry journal beside the codec's parse-only floor. Prints issue 15's
# journal rows as a Markdown table (ci/bench/journal_bench.py says how each is measured).
#
# usage: ci/bench/journal_bench.sh                       (5 runs each; LangGraph's 10^3 turns 3)
#        BENCH_RUNS=3 LANGGRAPH_RUNS=1 ci/bench/journal_bench.sh     (quicker)
#        BENCH_DIR=/mnt/disk ci/bench/journal_bench.sh   (where the databases go: the disk you
#            care about; default a temporary directory under $TMPDIR or /tmp)
#
# The peer: LangGraph JS, pinned by ci/bench/peers/langgraph/package-lock.json (@langchain/
# langgraph 1.7.3, @langchain/langgraph-checkpoint-sqlite 1.0.4, better-sqlite3 12.11.1, which
# compiles from source: a few minutes, once). It is installed with `npm ci` into a cache keyed
# by the lock file's hash: $TURNSTILE_BENCH_CACHE, default ~/.cache/turnstile-bench.
#
# This is a benchmark, not a test: there is no pass/fail threshold. It exits non-zero when a
# step fails. Builds use the default configuration of .bazelrc (clang, -O2). The machine may be
# shared and noisy: every figure is a median, CPU time stands beside wall time, and each row's
# peers run in the same minute.
set -euo pipefail

runs="${BENCH_RUNS:-5}"
lg_runs="${LANGGRAPH_RUNS:-3}"
for n in "$runs" "$lg_runs"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "journal_bench.sh: BENCH_RUNS and LANGGRAPH_RUNS are positive integers" >&2; exit 2; }
done

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$bench_dir/../.." && pwd)"
cd "$repo"

bash ci/setup.sh
for tool in python3 node npm; do
  command -v "$tool" >/dev/null || { echo "journal_bench.sh: $tool is required (ci/setup.sh installs nodejs; npm too)" >&2; exit 1; }
done

bazel build //:turnstile //ci/bench:journal_bench
bin="$(bazel info bazel-bin 2>/dev/null)"

base="${BENCH_DIR:-${TMPDIR:-/tmp}}"
work="$(mktemp -d "$base/turnstile-journal-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Private copies, so that another build finishing meanwhile cannot swap the binaries under us.
cp "$bin/turnstile" "$work/turnstile"
cp "$bin/ci/bench/journal_bench" "$work/journal_bench"
for b in "$work/turnstile" "$work/journal_bench"; do
  if grep -qaE '__asan_init|__sanitizer_cov|__afl_area_ptr' "$b"; then
    echo "journal_bench.sh: $b is instrumented (sanitizer/fuzzer build); rebuild with the default config" >&2
    exit 1
  fi
done

# The LangGraph peer, installed once per lock file.
peer="$bench_dir/peers/langgraph"
lock_hash="$(sha256sum "$peer/package-lock.json" | cut -c1-16)"
cache="${TURNSTILE_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnstile-bench}/langgraph-$lock_hash"
if [ ! -e "$cache/.installed" ]; then
  echo "journal_bench.sh: installing the LangGraph peer into $cache (better-sqlite3 compiles: minutes, once)" >&2
  mkdir -p "$cache"
  cp "$peer/package.json" "$peer/package-lock.json" "$cache/"
  (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$cache/.installed"
fi
cp "$peer/bench.mjs" "$cache/bench.mjs"

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
fs="$(df -PT "$work" | awk 'NR == 2 { print $1 " (" $2 ")" }')"
echo "host: ${cpu:-?}, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); databases in $work on $fs"
echo "turnstile $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'); SQLite $(python3 -c 'import sqlite3; print(sqlite3.sqlite_version)'); node $(node --version)"
python3 "$bench_dir/journal_bench.py" "$work/turnstile" "$work/journal_bench" "$cache" "$work" "$runs" "$lg_runs"
