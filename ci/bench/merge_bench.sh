#!/usr/bin/env bash
# ci/bench/merge_bench.sh — `turnstile merge` beside its peers, measured in the same run.
#
# usage: ci/bench/merge_bench.sh [UPDATES]        (default 1000000: ~134 MB)
#        BENCH_RUNS=5 ci/bench/merge_bench.sh      (runs per measurement, default 3; medians)
#        SCALE_N=200000 ci/bench/merge_bench.sh    (the scaling table's n, default 100000)
#        BENCH_NODE=0 ci/bench/merge_bench.sh      (leave out LangChain, e.g. without Node.js)
#
# What is measured, on one turn of UPDATES AgentResponseUpdates (JSON Lines written by
# ci/bench/gen_stream.py with a fixed seed: every run sees the same bytes):
#
#   turnstile merge FILE     read, parse, validate the model, merge, write the response
#   simdjson parse-only      ci/bench/simdjson_parse: simdjson's document stream over the whole
#                            file, every value checked to be an object: the parser turnstile's
#                            codec runs on its fast path, and nothing else — the floor
#   cJSON parse-only         ci/bench/cjson_parse: cJSON_ParseWithLength per line
#   jansson parse-only       ci/bench/jansson_parse: json_loadb per line (the codec's strict path)
#   LangChain merge          node ci/bench/peers/langchain_merge.mjs: LangChain.js folding each
#                            message's chunks with `concat` (@langchain/core, versions pinned by
#                            ci/bench/peers/package-lock.json, installed with `npm ci`)
#
# then parse + model (ci/bench/parse_model: each parser's values read into turnstile's update
# model; "codec" is the codec's reader, turnstile's own scanner), then a scaling table:
# turnstile merge on the adversarial
# shapes of gen_stream.py --shape at n and 10n updates.
#
# Every figure is the median of BENCH_RUNS runs, taken in rounds (every tool once per round; n
# and 10n in turn for the scaling table), so that a ratio compares runs made under the same load;
# CPU time (user + system, from wait4) stands beside wall time because this machine is shared
# and noisy; peak RSS is the highest ru_maxrss
# seen (MiB = 2^20 bytes; MB = 10^6 bytes). The goals printed at the end (issue 26): merge within
# 2x simdjson parse-only CPU; peak RSS within 2x the input, on the realistic stream and at 10n
# on the shapes with a message per 1-5 updates (one-message-per-update, many-response-ids,
# mixed-timestamps, identical-messages); growth within 10.5x per 10x on every shape.
#
# This is a benchmark, not a test: it exits non-zero only when a step fails (setup, build,
# generation, a run, or a sanity check of the outputs), never because a goal is missed.
# Builds use the default configuration of .bazelrc (clang, -O2).
set -euo pipefail

updates="${1:-1000000}"
runs="${BENCH_RUNS:-3}"
scale_n="${SCALE_N:-100000}"
with_node="${BENCH_NODE:-1}"
for v in "$updates" "$runs" "$scale_n"; do
  if ! [[ "$v" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [UPDATES]   (UPDATES, BENCH_RUNS and SCALE_N are positive integers)" >&2
    exit 2
  fi
done

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$bench_dir/../.." && pwd)"
cd "$repo"

bash ci/setup.sh
command -v python3 >/dev/null || { echo "merge_bench.sh: python3 is required" >&2; exit 1; }

peers=(simdjson_parse cjson_parse jansson_parse parse_model)
bazel build //:turnstile "${peers[@]/#///ci/bench:}"
bin="$(bazel info bazel-bin 2>/dev/null)"

work="$(mktemp -d "${TMPDIR:-/tmp}/turnstile-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Private copies, so that another build finishing meanwhile cannot swap the binaries under us.
cp "$bin/turnstile" "$work/turnstile"
for p in "${peers[@]}"; do cp "$bin/ci/bench/$p" "$work/$p"; done
for b in "$work/turnstile" "$work/simdjson_parse" "$work/cjson_parse" "$work/jansson_parse"; do
  if grep -qaE '__asan_init|__sanitizer_cov|__afl_area_ptr' "$b"; then
    echo "merge_bench.sh: $b is instrumented (sanitizer/fuzzer build); rebuild with the default config" >&2
    exit 1
  fi
done

langchain=""
if [ "$with_node" != 0 ]; then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "merge_bench.sh: node and npm are needed for the LangChain peer (BENCH_NODE=0 leaves it out)" >&2
    exit 1
  fi
  (cd "$bench_dir/peers" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  langchain="$(node -p 'require("./ci/bench/peers/node_modules/@langchain/core/package.json").version')"
fi

stream="$work/stream.jsonl"
python3 "$bench_dir/gen_stream.py" --count "$updates" --output "$stream"
bytes="$(stat -c %s "$stream")"

# Sanity checks (also warm the page cache): every peer counts every update, and the merge gives
# one JSON object with messages.
for p in simdjson_parse cjson_parse jansson_parse; do
  counted="$("$work/$p" "$stream")"
  if [ "$counted" != "$updates" ]; then
    echo "merge_bench.sh: $p counted $counted updates, expected $updates" >&2
    exit 1
  fi
done
"$work/turnstile" merge "$stream" >"$work/merged.json"
python3 - "$work/merged.json" <<'EOF'
import json, sys
response = json.load(open(sys.argv[1], encoding="utf-8"))
if not isinstance(response, dict) or not response.get("messages") or response.get("finishReason") != "stop":
    sys.exit("merge_bench.sh: turnstile merge output is not the expected response")
EOF
if [ -n "$langchain" ]; then
  read -r lc_updates _ <<<"$(node "$bench_dir/peers/langchain_merge.mjs" "$stream")"
  if [ "$lc_updates" != "$updates" ]; then
    echo "merge_bench.sh: the LangChain peer folded $lc_updates updates, expected $updates" >&2
    exit 1
  fi
fi

# Every tool once per round, BENCH_RUNS rounds, then each tool's medians: the ratios compare runs
# made in the same minutes of a shared machine's load.
medians() { # FILE of "wall cpu kib" lines -> "median_wall median_cpu max_kib"
  python3 -c 'import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
print("%.6f %.6f %d" % (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows), max(r[2] for r in rows)))' "$1"
}
names=(turnstile_merge simdjson_parse-only cJSON_parse-only jansson_parse-only)
commands=("$work/turnstile merge $stream" "$work/simdjson_parse $stream" "$work/cjson_parse $stream"
          "$work/jansson_parse $stream")
if [ -n "$langchain" ]; then
  names+=("LangChain_merge_(node)")
  commands+=("node $bench_dir/peers/langchain_merge.mjs $stream")
fi
names+=(model_codec model_cjson model_jansson) # codec: the reader, turnstile's scanner
commands+=("$work/parse_model simdjson $stream" "$work/parse_model cjson $stream" "$work/parse_model jansson $stream")
for ((r = 0; r < runs; r++)); do
  for i in "${!names[@]}"; do
    # shellcheck disable=SC2086 # each command is a word list without spaces inside words
    python3 "$bench_dir/measure.py" 1 ${commands[$i]} >>"$work/runs.$i"
  done
done
rows="$work/rows" model_rows="$work/model_rows"
: >"$rows"
: >"$model_rows"
for i in "${!names[@]}"; do
  case "${names[$i]}" in
  model_*) echo "${names[$i]#model_} $(medians "$work/runs.$i")" >>"$model_rows" ;;
  *) echo "${names[$i]} $(medians "$work/runs.$i")" >>"$rows" ;;
  esac
done

# Scaling: every shape at n and 10n. The two sizes are run in turn (n, 10n, n, 10n, ...), so that
# both medians come from the same minutes of a shared machine's load.
shapes=(realistic one-message-per-update many-response-ids mixed-timestamps identical-messages long-delta-runs)
scale_rows="$work/scale_rows"
: >"$scale_rows"
for shape in "${shapes[@]}"; do
  python3 "$bench_dir/gen_stream.py" --count "$scale_n" --shape "$shape" --output "$work/small.jsonl"
  python3 "$bench_dir/gen_stream.py" --count "$((scale_n * 10))" --shape "$shape" --output "$work/large.jsonl"
  : >"$work/pairs"
  for ((r = 0; r < runs; r++)); do
    echo "$(python3 "$bench_dir/measure.py" 1 "$work/turnstile" merge "$work/small.jsonl") $(python3 "$bench_dir/measure.py" 1 "$work/turnstile" merge "$work/large.jsonl")" >>"$work/pairs"
  done
  echo "$shape $(stat -c %s "$work/small.jsonl") $(stat -c %s "$work/large.jsonl") $(python3 - "$work/pairs" <<'EOF2'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
col = lambda i: [row[i] for row in rows]
print("%.6f %.6f %d %.6f %.6f %d" % (statistics.median(col(0)), statistics.median(col(1)), max(col(2)),
                                      statistics.median(col(3)), statistics.median(col(4)), max(col(5))))
EOF2
)" >>"$scale_rows"
  rm -f "$work/small.jsonl" "$work/large.jsonl"
done

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
echo "input: $updates updates, $bytes bytes ($(awk -v b="$bytes" 'BEGIN{printf "%.1f MB", b/1e6}')); medians of $runs runs"
echo "host: ${cpu:-?}, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); simdjson $(version libsimdjson-dev), cJSON $(version libcjson-dev), jansson $(version libjansson-dev)${langchain:+, node $(node --version), @langchain/core $langchain}"
echo
awk -v n="$updates" -v bytes="$bytes" '
function show(name, wall, cpu, kib) {
  gsub("_", " ", name)
  printf "%-24s %8.3f %8.3f %12.0f %8.1f %10.1f %9.2f\n", name, wall, cpu, n / cpu, bytes / 1e6 / cpu, kib / 1024, kib * 1024 / bytes
}
BEGIN {
  printf "%-24s %8s %8s %12s %8s %10s %9s\n", "tool", "wall s", "CPU s", "updates/s", "MB/s", "peak MiB", "RSS/input"
}
{ show($1, $2, $3, $4); wall[NR] = $2; cpu[NR] = $3; kib[NR] = $4 }
END {
  printf "\nmerge / simdjson parse-only: %.2fx the CPU time, %.2fx the wall time (goal: at most 2x)\n", cpu[1] / cpu[2], wall[1] / wall[2]
  printf "merge peak RSS / input: %.2fx (goal: at most 2x); merge / jansson parse-only: %.2fx the CPU time\n", kib[1] * 1024 / bytes, cpu[1] / cpu[4]
  printf "goal merge <= 2x simdjson parse-only CPU: %s\n", cpu[1] / cpu[2] <= 2 ? "met" : "not met"
  if (NR >= 5) printf "LangChain merge / turnstile merge: %.1fx the CPU time, %.2fx the peak RSS\n", cpu[5] / cpu[1], kib[5] / kib[1]
}' "$rows"
echo
echo "parse + model (each parser's values read into turnstile's update model; ci/bench/parse_model):"
awk -v n="$updates" '
{ printf "  %-10s %8.3f s CPU %8.3f s wall %10.0f updates/s  %7.1f MiB\n", $1, $3, $2, n / $3, $4 / 1024; cpu[$1] = $3 }
END { printf "  cJSON / codec: %.1fx the CPU time; jansson / codec: %.1fx\n", cpu["cjson"] / cpu["codec"], cpu["jansson"] / cpu["codec"] }' "$model_rows"
echo
echo "scaling: turnstile merge at n = $scale_n and 10n (CPU s, median of $runs; goals: growth at most 10.5x,"
echo "RSS at most 2x the input on the shapes with a message per 1-5 updates)"
awk '
BEGIN { printf "  %-24s %10s %10s %8s %12s %12s\n", "shape", "CPU n", "CPU 10n", "growth", "MiB at 10n", "RSS/input" }
{
  growth = $8 / $5; rss = $9 * 1024 / $3
  printf "  %-24s %10.3f %10.3f %7.1fx %12.1f %12.2f\n", $1, $5, $8, growth, $9 / 1024, rss
  if (growth > worst_growth) { worst_growth = growth; worst_shape = $1 }
  if ($1 ~ /^(one-message-per-update|many-response-ids|mixed-timestamps|identical-messages)$/ && rss > worst_rss) {
    worst_rss = rss; rss_shape = $1
  }
}
END {
  printf "worst growth: %.1fx (%s): goal at most 10.5x: %s\n", worst_growth, worst_shape, worst_growth <= 10.5 ? "met" : "not met"
  printf "worst RSS/input of the message-heavy shapes at 10n: %.2fx (%s): goal at most 2x: %s\n", worst_rss, rss_shape,
         worst_rss <= 2 ? "met" : "not met"
}' "$scale_rows"
