#!/usr/bin/env bash
# ci/bench/speed_bench.sh — resume certification speed by --jobs and --warm (issue 23).
#
# usage: ci/bench/speed_bench.sh [RUNS] [CASES] [KILL_POINTS]
#        (defaults: 3 runs, 'Resume.U2.*', the first 20 kill points of each case)
#
# Certifies the same resume cases with the reference over the pipe (`turnstile testee`, a fork
# server) and with the Python kit (conformance/testees/python-resume), in each configuration:
#   jobs1-cold   --jobs 1 --warm off   one testee, a new process per start (the peer)
#   jobs2-cold   --jobs 2 --warm off
#   jobs1-pool   --jobs 1 --warm pool  the next process started while the current one works
#   jobs2-pool   --jobs 2 --warm pool  (the default for a testee that cannot fork)
#   jobs1-fork   --jobs 1 --warm fork  a fork server forks each start
#   jobs2-fork   --jobs 2 --warm fork  (the default for one that can: both here)
# and prints, from RUNS runs each (medians; ci/bench/measure.py: wall clock, and CPU seconds of
# the certifier and every process it started), kill runs per wall second and per CPU second, and
# the speed-up in wall time over jobs1-cold measured in the same run. On a shared machine the CPU
# figure is the steadier one. A benchmark, not a test: nothing here fails on a figure.
set -euo pipefail
runs="${1:-3}"
cases="${2:-Resume.U2.*}"
points="${3:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bazel build //:turnstile >/dev/null 2>&1
work="$(mktemp -d "${TMPDIR:-/tmp}/speed_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$(bazel info bazel-bin 2>/dev/null)/turnstile" "$work/turnstile"
export TMPDIR="$work"

options() {
    case $1 in
        jobs1-cold) echo "--jobs 1 --warm off" ;;
        jobs2-cold) echo "--jobs 2 --warm off" ;;
        jobs1-pool) echo "--jobs 1 --warm pool" ;;
        jobs2-pool) echo "--jobs 2 --warm pool" ;;
        jobs1-fork) echo "--jobs 1 --warm fork" ;;
        jobs2-fork) echo "--jobs 2 --warm fork" ;;
    esac
}

printf 'cases %s, first %s kill points each; medians of %s runs; CPU: certifier + every testee process\n\n' "$cases" "$points" "$runs"
printf '%-10s %-11s %9s %9s %8s %11s %11s %9s\n' testee config 'kill runs' 'wall s' 'CPU s' 'runs/wall-s' 'runs/CPU-s' 'wall gain'
for testee in reference python-kit; do
    case $testee in
        reference) command=("$work/turnstile" testee) ;;
        python-kit) command=(python3 "$root/conformance/testees/python-resume/testee.py") ;;
    esac
    peer=""
    for config in jobs1-cold jobs2-cold jobs1-pool jobs2-pool jobs1-fork jobs2-fork; do
        # shellcheck disable=SC2046 # the options are words
        read -r wall cpu _ < <(python3 ci/bench/measure.py "$runs" "$work/turnstile" certify --cases "$cases" \
            --kill-points "$points" --report-json "$work/r.json" $(options "$config") -- "${command[@]}")
        kills=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["durability"]["killRuns"])' "$work/r.json")
        [ -n "$peer" ] || peer=$wall
        python3 - "$testee" "$config" "$kills" "$wall" "$cpu" "$peer" <<'PY'
import sys
testee, config, kills, wall, cpu, peer = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:])
print("%-10s %-11s %9d %9.2f %8.2f %11.1f %11.1f %8.2fx" % (testee, config, kills, wall, cpu, kills / wall, kills / cpu, peer / wall))
PY
    done
done
