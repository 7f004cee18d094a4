#!/usr/bin/env bash
# ci/bench/resume_bench.sh — how fast the resume suite certifies under the full kill sweep.
#
# usage: ci/bench/resume_bench.sh [RUNS]     (default 3 runs per configuration; the median is shown)
#
# Measures `turnstile certify --cases 'Resume.*'` (every case uninterrupted, then once per kill
# point: a fresh store, a kill, a restart, recovery) for the reference:
#   in-process    the reference answering inside the certifier: a kill stops it at the world call
#   pipe          `turnstile testee` over the PROTOCOL.md pipe: every kill a real SIGKILL of its
#                 process group and a new process
#   no kills      the same over the pipe with --kill-points none (the peer: what the sweep costs)
# and prints cases/s and runs/s (runs = cases + kill runs), wall and CPU (user + sys) seconds:
# the machine is shared, so compare ratios. A benchmark, not a test.
set -euo pipefail
runs="${1:-3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bazel build //:turnstile >/dev/null 2>&1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$(bazel info bazel-bin 2>/dev/null)/turnstile" "$work/turnstile"
t="$work/turnstile"
"$t" certify --reference --cases 'Resume.*' --report-json "$work/r.json" >/dev/null
read -r cases kills < <(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(len(r['cases']), sum(c['history']['killPoints'] for c in r['cases']))" "$work/r.json")

# median wall and CPU seconds of $runs runs of the command
measure() {
    python3 - "$runs" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, command = int(sys.argv[1]), sys.argv[2:]
walls, cpus = [], []
for _ in range(runs):
    before = os.times()
    start = time.perf_counter()
    code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    walls.append(time.perf_counter() - start)
    after = os.times()
    cpus.append(after.children_user - before.children_user + after.children_system - before.children_system)
    if code not in (0, 1):
        sys.exit("resume_bench.sh: %s exited %d" % (command, code))
print("%.3f %.3f" % (statistics.median(walls), statistics.median(cpus)))
PY
}
printf '%s resume cases, %s kill points in all; median of %s runs\n\n' "$cases" "$kills" "$runs"
printf '%-12s %9s %9s %9s %9s\n' configuration wall-s cpu-s cases/s runs/s
for config in in-process pipe no-kills; do
    case $config in
        in-process) read -r wall cpu < <(measure "$t" certify --reference --cases 'Resume.*') ; n=$((cases + kills)) ;;
        pipe) read -r wall cpu < <(measure "$t" certify --cases 'Resume.*' -- "$t" testee) ; n=$((cases + kills)) ;;
        no-kills) read -r wall cpu < <(measure "$t" certify --cases 'Resume.*' --kill-points none -- "$t" testee) ; n=$cases ;;
    esac
    printf '%-12s %9.2f %9.2f %9.1f %9.1f\n' "$config" "$wall" "$cpu" "$(python3 -c "print($cases/$wall)")" \
        "$(python3 -c "print($n/$wall)")"
done
