#!/usr/bin/env bash
# check_verdict_test.sh — `turnstile check`'s exit status always agrees with its last line, and
# judging is bounded (issue 24).
#
# On DESIGN.md §4's 3-PARTITION shape (response groups of identical messages whose arrangement
# only a search can decide): PASS exits 0, FAIL 1, UNDECIDED 4 when the judging budget runs out
# first (never a pass, never a failure), and NO VERDICT 3 with a message on stderr when memory
# runs out (it printed PASS and exited 1 with nothing on stderr). The budget is the same
# whatever order the groups arrived in: a shuffled stream gets the verdict the sorted one gets,
# at every budget. A hard instance that ran for minutes and gigabytes ends within its budget.
set -u
TURNSTILE=${1:?usage: check_verdict_test.sh path/to/turnstile path/to/check_bench.py}
SHAPES=${2:?usage: check_verdict_test.sh path/to/turnstile path/to/check_bench.py}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }

# partition NAME SHAPE GROUPS: $TMP/NAME.jsonl and $TMP/NAME.answer.json, from the benchmark's shapes
partition() {
    python3 "$SHAPES" --write-case "$2" "$3" "$TMP" >/dev/null || { echo "cannot write $2" >&2; exit 1; }
    mv "$TMP/$2_$3.jsonl" "$TMP/$1.jsonl" && mv "$TMP/$2_$3.answer.json" "$TMP/$1.answer.json"
}

# verdict NAME WANT_STATUS WANT_LAST_LINE_PREFIX CASE [OPTIONS...]
verdict() {
    name=$1 want=$2 prefix=$3 case=$4
    shift 4
    "$TURNSTILE" check --stream "$TMP/$case.jsonl" --response "$TMP/$case.answer.json" "$@" >"$TMP/out" 2>"$TMP/err"
    local status=$?
    local last
    last=$(tail -n 1 "$TMP/out")
    if [ "$status" -ne "$want" ]; then fail "exit $status, want $want; last line: $last; stderr: $(head -c 300 "$TMP/err")"; return 1; fi
    case "$last" in "$prefix"*) ;; *) fail "last line '$last' does not start with '$prefix'"; return 1 ;; esac
    passed=$((passed + 1))
}

partition yes_sorted partition_sorted 32
partition yes_shuffled partition_shuffled 32
partition no_sorted partition_no_sorted 32
partition no_shuffled partition_no_shuffled 32
partition hard partition_wide_no_shuffled 64

verdict yes_passes 0 "PASS:" yes_shuffled
verdict no_fails 1 "FAIL:" no_shuffled --judge-states 0
verdict no_fails_unlimited_seconds 1 "FAIL:" no_sorted --judge-states 0 --judge-seconds 0
verdict no_undecided_within_small_budget 4 "UNDECIDED:" no_shuffled --judge-states 20 \
    && { grep -q '^undecided: the search .* ran out of its budget (20 states beyond one per group' "$TMP/out" \
    && passed=$((passed + 1)) || fail "no line saying why: $(cat "$TMP/out")"; }
verdict yes_undecided_within_tiny_budget 4 "UNDECIDED:" yes_sorted --judge-states 1

# The budget does not depend on arrival order: sorted and shuffled get the same verdict at
# every budget (the search is canonical).
for budget in 1 5 10 20 40 80 160 320 640 1280 2560; do
    for pair in yes no; do
        name="same_verdict_${pair}_$budget"
        "$TURNSTILE" check --stream "$TMP/${pair}_sorted.jsonl" --response "$TMP/${pair}_sorted.answer.json" --judge-states $budget >"$TMP/a" 2>&1
        a=$?
        "$TURNSTILE" check --stream "$TMP/${pair}_shuffled.jsonl" --response "$TMP/${pair}_shuffled.answer.json" --judge-states $budget >"$TMP/b" 2>&1
        b=$?
        [ $a -eq $b ] && [ "$(tail -1 "$TMP/a")" = "$(tail -1 "$TMP/b")" ] && passed=$((passed + 1)) \
            || fail "sorted exits $a ($(tail -1 "$TMP/a")), shuffled $b ($(tail -1 "$TMP/b"))"
    done
done

# An instance that ran for minutes and gigabytes ends within its budget: undecided.
verdict hard_instance_bounded 4 "UNDECIDED:" hard --judge-states 200000

# turnstile gen's tagged shapes reveal their groups: the reference's answer to each is decided
# on the straight path, with no state to spare.
for shape in lookalike-tagged partition-tagged; do
    name="gen_${shape}_straight"
    bad=0
    for seed in 1 2 3 4 5 6 7 8; do
        "$TURNSTILE" gen --shape "$shape" --seed $seed >"$TMP/g.jsonl" && "$TURNSTILE" merge "$TMP/g.jsonl" >"$TMP/g.json" \
            && "$TURNSTILE" check --stream "$TMP/g.jsonl" --response "$TMP/g.json" --judge-states 1 >"$TMP/out" 2>&1 \
            || { bad=1; fail "seed $seed: $(tail -2 "$TMP/out")"; }
    done
    [ $bad -eq 0 ] && passed=$((passed + 1))
done

expect_usage() {
    name=$1
    shift
    "$TURNSTILE" check --stream "$TMP/yes_sorted.jsonl" --response "$TMP/yes_sorted.answer.json" "$@" >"$TMP/out" 2>"$TMP/err"
    [ $? -eq 2 ] && [ ! -s "$TMP/out" ] && grep -q "turnstile check: --judge-" "$TMP/err" && passed=$((passed + 1)) \
        || fail "want exit 2 and an error naming the option: $(cat "$TMP/err")"
}
expect_usage judge_states_negative --judge-states -1
expect_usage judge_states_not_a_number --judge-states lots
expect_usage judge_seconds_nan --judge-seconds nan
expect_usage judge_seconds_negative --judge-seconds -3

# Out of memory: an error with a message, exit 3, and a last line that says so — never PASS.
# (Not under a sanitizer: ASan reserves more address space than any such limit.)
if grep -qaE '__asan_init|__msan_init' "$TURNSTILE"; then
    echo "skipping the out-of-memory case: $TURNSTILE is built with a sanitizer"
else
    name=out_of_memory_is_no_verdict
    (ulimit -v 300000; exec "$TURNSTILE" check --stream "$TMP/hard.jsonl" --response "$TMP/hard.answer.json" \
        --judge-states 0 --judge-seconds 0) >"$TMP/out" 2>"$TMP/err"
    status=$?
    [ $status -eq 3 ] && [ "$(tail -1 "$TMP/out")" = "NO VERDICT: the checkers ran out of memory" ] \
        && grep -q '^turnstile check: out of memory' "$TMP/err" && passed=$((passed + 1)) \
        || fail "exit $status, last line $(tail -1 "$TMP/out"), stderr $(head -c 300 "$TMP/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
