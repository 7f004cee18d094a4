#!/usr/bin/env bash
# ci/bench/start_floor.sh — how fast can a resume sweep of each engine get on this machine's cores
# (issue 23)? Parallel runs and a pool of pre-started processes hide a testee's start behind other
# work, but they do not remove its CPU: a sweep's CPU seconds divided by the cores is the shortest
# wall time any --jobs and --warm pool can reach. Only a start that is not paid again (a fork
# server: C, Python) lowers it.
#
# usage: ci/bench/start_floor.sh [RUNS] [CASE] [KILL_POINTS]
#        (defaults: 3 runs, Resume.U2.three_simple_turns, its first 12 kill points)
#
# For each engine present — the reference over the pipe (the peer, always there), the Python kit,
# LangGraph JS (when conformance/testees/node-langgraph has its node_modules) and the Agent
# Framework's session adapter (when $TURNSTILE_DOTNET_CACHE or the default cache holds its build,
# conformance/testees/dotnet-build.sh) — it certifies the case cold (--jobs 1 --warm off,
# --nemesis protocol) and prints, medians of RUNS (ci/bench/measure.py: CPU of the certifier and
# every testee process): runs (uninterrupted + kill runs), processes started, wall s, CPU s, CPU
# per run, and the ceiling: the cold wall time over CPU / cores, the most any warm start without
# a fork can gain on this machine. A benchmark: nothing here fails on a figure.
set -euo pipefail
runs="${1:-3}"
case_id="${2:-Resume.U2.three_simple_turns}"
points="${3:-12}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bazel build //:turnstile >/dev/null 2>&1
work="$(mktemp -d "${TMPDIR:-/tmp}/start_floor.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$(bazel info bazel-bin 2>/dev/null)/turnstile" "$work/turnstile"
cores=$(nproc)
dotnet_cache="${TURNSTILE_DOTNET_CACHE:-${TMPDIR:-/tmp}/turnstile-dotnet-cache}"

engines=("reference|$work/turnstile testee" "python-kit|python3 $root/conformance/testees/python-resume/testee.py")
[ -d conformance/testees/node-langgraph/node_modules ] && command -v node >/dev/null &&
    engines+=("langgraph-js|node $root/conformance/testees/node-langgraph/testee.js")
[ -f "$dotnet_cache/dotnet-af-session/dotnet-af-session.dll" ] && command -v dotnet >/dev/null &&
    engines+=("af-session|dotnet $dotnet_cache/dotnet-af-session/dotnet-af-session.dll")

printf 'case %s, first %s kill points, cold (--jobs 1 --warm off); medians of %s runs; %s cores\n\n' "$case_id" "$points" "$runs" "$cores"
printf '%-13s %5s %6s %8s %8s %10s %9s\n' engine runs starts 'wall s' 'CPU s' 'CPU/run' ceiling
for entry in "${engines[@]}"; do
    name=${entry%%|*} command=${entry#*|}
    # certify exits 1 on a failing case: the figures count all the same, so the shell ends 0.
    read -r wall cpu _ < <(python3 ci/bench/measure.py "$runs" sh -c "\"$work/turnstile\" certify --cases $case_id \
        --kill-points $points --kill-settle 100 --timeout 60 --nemesis protocol --jobs 1 --warm off \
        --report-json \"$work/r.json\" -- $command >\"$work/r.txt\" 2>&1; true")
    read -r kills started < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["durability"]["killRuns"], d["testee"]["processes"]["started"])' "$work/r.json")
    python3 - "$name" "$((kills + 1))" "$started" "$wall" "$cpu" "$cores" <<'PY'
import sys
name, total, started, wall, cpu, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
print("%-13s %5d %6d %8.2f %8.2f %10.3f %8.2fx" % (name, total, started, wall, cpu, cpu / total, wall / (cpu / cores)))
PY
done
