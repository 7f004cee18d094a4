#!/usr/bin/env bash
# ci/fuzz_mutants.sh — detection power: time to the first finding against each of the thirteen
# mutants (historic bugs of the seeds), from an empty corpus, over three seeds.
#
# usage: ci/fuzz_mutants.sh [MAX_SECONDS [MUTANT...]]     (default 60 per run; all mutants)
# The seven merge mutants are fuzzed by the differential target, the six resume-engine mutants
# by resume_scenarios (the scenario generator, the reference engine built as that mutant, the
# journal checkers and the crash / I/O-error relations as oracle); both in-process
# ($TURNSTILE_TESTEE_MUTANT), with libFuzzer and no sanitizers (--config=libfuzzer-fast:
# semantic bugs need no ASan), on one core. Prints a table: mutant, target, the rule of the
# finding, CPU seconds (user + system of the fuzzer, which stops at its first finding) per seed
# ("none": not found within MAX_SECONDS of wall time), their median, and the median wall
# seconds beside (the machine may be shared: CPU time is the figure). A benchmark, not a test:
# the goal is a median under 10 CPU-s for every mutant.
set -euo pipefail
max="${1:-60}"
[[ "$max" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [MAX_SECONDS]" >&2; exit 2; }
cd "$(dirname "$0")/.."
ci/setup.sh fuzz
bazel build --config=libfuzzer-fast //fuzz:differential_bin //fuzz:resume_scenarios_bin >/dev/null 2>&1
fuzz_bin="$(bazel info --config=libfuzzer-fast bazel-bin 2>/dev/null)/fuzz"
bazel build //:turnstile >/dev/null 2>&1
turnstile="$(bazel info bazel-bin 2>/dev/null)/turnstile"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$fuzz_bin/differential_bin" "$fuzz_bin/resume_scenarios_bin" "$work/"

# The resume engine's mutants (its hooks: conformance/testee/mutants.h); every other listed mutant is a merger's.
engine_mutants=" counter-entry-ids timestamps-regenerated-on-load resume-restarts-loop both-layers-persist \
unescaped-canonical-keys signal-consumed-outside-commit "
# The store's crash-consistency mutants (issue 22) need a real disk and the file-system nemesis,
# which no in-process fuzz target has: ci/certify_engines.sh catches them under certify.
durability_mutants=" resume-acks-before-write resume-never-fsyncs resume-index-before-record \
resume-unchecked-torn-record resume-rename-without-dir-sync "
# The resume adapter's branch mutant (issue 27) is the protocol adapter's, not the engine's: the
# differential_resume target (ts_gen_universal_scenario's edits and forks) and resume_branch_test catch it.
adapter_mutants=" resume-branch-keeps-suffix "
mutants=$("$turnstile" testee --list-mutants | awk '{print $1}' | while read -r m; do
    case "$durability_mutants$adapter_mutants" in *" $m "*) ;; *) echo "$m" ;; esac
done)
[ "$(echo "$mutants" | wc -l)" -eq 13 ] || echo "fuzz_mutants.sh: note: $(echo "$mutants" | wc -l) mutants listed, not 13" >&2
shift || true
[ $# -eq 0 ] || mutants="$*"

printf '%-32s %-17s %-6s %8s %8s %8s %8s %8s\n' mutant target rule cpu1 cpu2 cpu3 "median" "wall"
for m in $mutants; do
    target=differential_bin
    case "$engine_mutants" in *" $m "*) target=resume_scenarios_bin ;; esac
    times=() walls=() rule="-"
    for seed in 1 2 3; do
        rm -rf "$work/corpus" "$work/findings"
        mkdir -p "$work/corpus" "$work/findings"
        start=$(date +%s.%N)
        # a finding ends the fuzzer with a non-zero status: that is the measurement, not a failure
        TURNSTILE_TESTEE_MUTANT=$m TURNSTILE_FINDINGS_DIR="$work/findings" /usr/bin/time -o "$work/cpu" -f '%U %S' \
            "$work/$target" -seed=$seed -max_total_time="$max" -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1 || true
        end=$(date +%s.%N)
        if ! grep -qE '==turnstile== the testee fails|^Done [0-9]+ runs' "$work/log"; then
            echo "fuzz_mutants.sh: $target for $m neither found the bug nor ran to its time limit:" >&2
            tail -5 "$work/log" >&2
            exit 1
        fi
        if grep -q '==turnstile== the testee fails' "$work/log"; then
            rule=$(grep -m1 -oE 'the testee fails [A-Za-z0-9()]+' "$work/log" | awk '{print $4}')
            times+=("$(tail -1 "$work/cpu" | awk '{ printf "%.1f", $1 + $2 }')")
            walls+=("$(python3 -c "print(round($end - $start, 1))")")
        else
            times+=("none")
            walls+=("none")
        fi
    done
    median_of() { python3 -c "import sys; t=sorted(float(x) if x!='none' else float('inf') for x in sys.argv[1:]); print(t[1] if t[1]!=float('inf') else 'none')" "$@"; }
    printf '%-32s %-17s %-6s %8s %8s %8s %8s %8s\n' "$m" "${target%_bin}" "$rule" "${times[@]}" "$(median_of "${times[@]}")" \
        "$(median_of "${walls[@]}")"
done
