#!/usr/bin/env bash
# ci/bench/merge_bench.sh — throughput benchmark of `turnstile merge` against a parse-only peer.
#
# usage: ci/bench/merge_bench.sh [UPDATES]      (default 1000000)
#        BENCH_RUNS=5 ci/bench/merge_bench.sh    (runs per tool, default 3; on a busy machine)
#
# What is measured: one turn's stream of UPDATES AgentResponseUpdates (JSON Lines, written by
# ci/bench/gen_stream.py with a fixed seed, so every run sees the same bytes) is given to
#   turnstile merge FILE        read, parse, validate the model, merge, write the response
#                               (stdout to /dev/null)
#   jansson_parse FILE          read, json_loadb + json_decref every line, count; nothing else
# Each is run 3 times (BENCH_RUNS); the table shows the best wall time, updates/s and MB/s (input bytes /
# best time; MB = 10^6 bytes) and the highest peak RSS (ru_maxrss from wait4, as GNU time's %M;
# MiB = 2^20 bytes). The last line is the ratio merge / parse-only.
#
# Why this peer: turnstile's codec parses with jansson, under the same flags, before anything
# else happens, so the merger cannot be faster than its parser. jansson_parse is that floor;
# the ratio says what the model, the merge and the output cost on top of it. Both read the whole
# file into memory first, as `turnstile merge` does.
#
# This is a benchmark, not a test: there is no pass/fail threshold. It exits non-zero when any
# step fails (setup, build, generation, a run, or a sanity check of the outputs).
# Builds use the default configuration of .bazelrc (clang, -O2).
set -euo pipefail

updates="${1:-1000000}"
if ! [[ "$updates" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [UPDATES]   (a positive integer, default 1000000)" >&2
  exit 2
fi
runs="${BENCH_RUNS:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "merge_bench.sh: BENCH_RUNS must be a positive integer" >&2
  exit 2
fi

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$bench_dir/../.." && pwd)"
cd "$repo"

bash ci/setup.sh
command -v python3 >/dev/null || { echo "merge_bench.sh: python3 is required" >&2; exit 1; }

bazel build //:turnstile //ci/bench:jansson_parse
bin="$(bazel info bazel-bin 2>/dev/null)"

work="$(mktemp -d "${TMPDIR:-/tmp}/turnstile-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Private copies, so that another build finishing meanwhile cannot swap the binaries under us.
cp "$bin/turnstile" "$work/turnstile"
cp "$bin/ci/bench/jansson_parse" "$work/jansson_parse"
for b in "$work/turnstile" "$work/jansson_parse"; do
  if grep -qaE '__asan_init|__sanitizer_cov|__afl_area_ptr' "$b"; then
    echo "merge_bench.sh: $b is instrumented (sanitizer/fuzzer build); rebuild with the default config" >&2
    exit 1
  fi
done

stream="$work/stream.jsonl"
python3 "$bench_dir/gen_stream.py" --count "$updates" --output "$stream"
bytes="$(stat -c %s "$stream")"

# Sanity checks (also warm the page cache): both succeed, the peer counts every update, and
# the merge gives one JSON object with messages.
parsed="$("$work/jansson_parse" "$stream")"
if [ "$parsed" != "$updates" ]; then
  echo "merge_bench.sh: jansson_parse counted $parsed updates, expected $updates" >&2
  exit 1
fi
"$work/turnstile" merge "$stream" >"$work/merged.json"
python3 - "$work/merged.json" <<'EOF'
import json, sys
response = json.load(open(sys.argv[1], encoding="utf-8"))
if not isinstance(response, dict) or not response.get("messages") or response.get("finishReason") != "stop":
    sys.exit("merge_bench.sh: turnstile merge output is not the expected response")
EOF

merge_m="$(python3 "$bench_dir/measure.py" "$runs" "$work/turnstile" merge "$stream")"
parse_m="$(python3 "$bench_dir/measure.py" "$runs" "$work/jansson_parse" "$stream")"
read -r merge_s merge_kib <<<"$merge_m"
read -r parse_s parse_kib <<<"$parse_m"

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
jansson="$(dpkg-query -W -f='${Version}' libjansson-dev 2>/dev/null || echo '?')"

awk -v n="$updates" -v bytes="$bytes" -v runs="$runs" -v cpu="${cpu:-?}" -v cpus="$(nproc)" \
    -v jansson="$jansson" -v ms="$merge_s" -v mk="$merge_kib" -v ps="$parse_s" -v pk="$parse_kib" '
function row(name, s, kib) {
  printf "%-15s %9d %8.1f %9.3f %11.0f %7.1f %14.1f\n", name, n, mb, s, n / s, mb / s, kib / 1024
}
BEGIN {
  mb = bytes / 1e6
  printf "input: %d updates, %d bytes (%.1f MB, %.1f bytes/update); best of %d runs\n", n, bytes, mb, bytes / n, runs
  printf "host: %s, %d CPUs; jansson %s; bazel default config (clang -O2)\n\n", cpu, cpus, jansson
  printf "%-15s %9s %8s %9s %11s %7s %14s\n", "tool", "updates", "MB", "seconds", "updates/s", "MB/s", "peak RSS MiB"
  row("turnstile merge", ms, mk)
  row("jansson_parse", ps, pk)
  printf "\nratio merge/parse-only: %.2fx the time (%.2fx the throughput), %.2fx the peak RSS\n", ms / ps, ps / ms, mk / pk
}'
