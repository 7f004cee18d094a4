#!/usr/bin/env bash
# ci/fuzz_launchers.sh [SECONDS] — runs every README launcher as a user would, for a few seconds
# each (default 2): `bazel run //fuzz:<t>_run` (replay, no engine), then with --config=libfuzzer
# (-max_total_time) and --config=afl (afl-fuzz -V), each in its own temporary corpus. A launcher
# that fails to start, shifts its arguments or cannot write its corpus fails here. Then the
# README's differential run against a team's merger (the Python kit) with its expected-failures
# list less one rule (M): it keeps going past the listed rules, finds M and no listed rule, and
# `turnstile certify --suite FINDINGS` replays every finding as written (failing the kit on that
# rule, passing the reference). And README's differential_resume run, against the Python resume
# kit (no finding) and a resume mutant (findings past a skipped rule, replayed as a suite).
# Ends "N passed, N failed".
set -uo pipefail
seconds="${1:-2}"
cd "$(dirname "$0")/.." || exit 1
ci/setup.sh fuzz || exit 1
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
passed=0 failed=0
for config in default libfuzzer afl; do
    flags=(); [ "$config" = default ] || flags=(--config="$config")
    case "$config" in
        default) engine_args=(); done_pattern='inputs replayed, 0 unreadable' ;;
        libfuzzer) engine_args=(-max_total_time="$seconds" -seed=1); done_pattern='^Done [0-9]+ runs' ;;
        afl) engine_args=(-V "$seconds"); done_pattern="We're done here" ;;
    esac
    for t in "${targets[@]}"; do
        mkdir -p "$work/$config-$t"
        log="$work/$config-$t.log"
        if TURNSTILE_CORPUS="$work/$config-$t" bazel run "${flags[@]}" "//fuzz:${t}_run" -- "${engine_args[@]}" >"$log" 2>&1 \
            && grep -qE "$done_pattern" "$log"; then
            echo "PASS bazel run ${flags[*]} //fuzz:${t}_run"
            passed=$((passed + 1))
        else
            echo "FAIL bazel run ${flags[*]} //fuzz:${t}_run -- ${engine_args[*]}"
            tail -5 "$log"
            failed=$((failed + 1))
        fi
    done
done
name="differential against a team's merger, known rules skipped, findings a suite"
kit="python3 $PWD/conformance/testees/python-minimal/testee.py"
grep -v ' M ' conformance/testees/python-minimal/expected-failures.txt >"$work/known.txt"
mkdir -p "$work/findings"
TURNSTILE_TESTEE="$kit" TURNSTILE_EXPECTED_FAILURES="$work/known.txt" TURNSTILE_KEEP_GOING=1 TURNSTILE_FINDINGS_DIR="$work/findings" \
    TURNSTILE_CORPUS="$work/team" bazel run --config=libfuzzer //fuzz:differential_run -- -max_total_time=$((seconds + 3)) -seed=1 \
    >"$work/team.log" 2>&1
bazel build //:turnstile >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
turnstile="$(bazel info bazel-bin 2>/dev/null)/turnstile"
[ -x "$turnstile" ] || { echo "ci/fuzz_launchers.sh: no $turnstile" >&2; exit 1; }
rules=$(sed -n 's/.*"rules":\["\([A-Z0-9]*\)"\].*/\1/p' "$work/findings/MANIFEST.json" 2>/dev/null | sort -u | paste -sd' ')
listed=$(for r in $rules; do grep -v '^#' "$work/known.txt" | awk -v r="$r" '$2 == r' | head -1; done)
# shellcheck disable=SC2086
if grep -q '^Done [0-9]* runs' "$work/team.log" && [[ " $rules " == *" M "* ]] && [ -z "$listed" ] \
    && "$turnstile" certify --suite "$work/findings" --reference >/dev/null 2>&1 \
    && ! "$turnstile" certify --suite "$work/findings" --no-repeat -- $kit >"$work/replay.log" 2>&1 \
    && tail -1 "$work/replay.log" | grep -qE '^0 passed, [1-9][0-9]* failed, 0 skipped$'; then
    echo "PASS $name ($(grep -c '"id"' "$work/findings/MANIFEST.json") findings)"
    passed=$((passed + 1))
else
    echo "FAIL $name: rules found {$rules}"; tail -3 "$work/team.log"; tail -3 "$work/replay.log" 2>/dev/null
    failed=$((failed + 1))
fi

# README's differential run against a resume engine: the Python kit passes every rule, so it runs
# to the end with no finding; the mutant whose resumed loop restarts (a resume engine with a known
# defect) is found, past a skipped rule, and its findings are a suite the reference and the kit pass.
name="differential_resume against resume engines, a rule skipped, findings a suite"
resume_kit="python3 $PWD/conformance/testees/python-resume/testee.py"
mkdir -p "$work/rfindings-kit" "$work/rfindings"
TURNSTILE_TESTEE="$resume_kit" TURNSTILE_FINDINGS_DIR="$work/rfindings-kit" TURNSTILE_KILL_POINTS=4 TURNSTILE_KEEP_GOING=1 \
    TURNSTILE_CORPUS="$work/rkit" bazel run --config=libfuzzer //fuzz:differential_resume_run -- -max_total_time=$((seconds + 3)) -seed=1 \
    >"$work/rkit.log" 2>&1
TURNSTILE_TESTEE_MUTANT=resume-restarts-loop TURNSTILE_SKIP_RULES=U8 TURNSTILE_KEEP_GOING=1 TURNSTILE_FINDINGS_DIR="$work/rfindings" \
    TURNSTILE_KILL_POINTS=none TURNSTILE_CORPUS="$work/rmutant" bazel run --config=libfuzzer //fuzz:differential_resume_run -- \
    -max_total_time=$((seconds + 3)) -seed=1 >"$work/rmutant.log" 2>&1
bazel build //:turnstile >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
rules=$(sed -n 's/.*"rules":\["\([A-Z0-9]*\)"\].*/\1/p' "$work/rfindings/MANIFEST.json" 2>/dev/null | sort -u | paste -sd' ')
# shellcheck disable=SC2086
if grep -q '^Done [0-9]* runs' "$work/rkit.log" && [ ! -e "$work/rfindings-kit/MANIFEST.json" ] \
    && grep -q '^Done [0-9]* runs' "$work/rmutant.log" && [ -n "$rules" ] && [[ " $rules " != *" U8 "* ]] \
    && "$turnstile" certify --suite "$work/rfindings" --reference >/dev/null 2>&1 \
    && "$turnstile" certify --suite "$work/rfindings" -- $resume_kit >/dev/null 2>&1 \
    && ! "$turnstile" certify --suite "$work/rfindings" --mutant resume-restarts-loop >"$work/rreplay.log" 2>&1 \
    && tail -1 "$work/rreplay.log" | grep -qE '^0 passed, [1-9][0-9]* failed, 0 skipped$'; then
    echo "PASS $name ($(grep -c '"id"' "$work/rfindings/MANIFEST.json") findings, rules $rules)"
    passed=$((passed + 1))
else
    echo "FAIL $name: rules found {$rules}"; tail -3 "$work/rkit.log"; tail -3 "$work/rmutant.log"; tail -3 "$work/rreplay.log" 2>/dev/null
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
