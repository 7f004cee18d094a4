#!/usr/bin/env bash
# output_and_numbers_test.sh — nothing silently lost, nothing silently accepted (issue 13 items
# 3, 7, 10):
#   * every command whose standard output is /dev/full, or closed, exits non-zero with a
#     message on stderr (the output was lost), instead of 0;
#   * every numeric option refuses what is not a finite number in its range (nan, inf,
#     negative, overflowing, empty, trailing junk) with exit status 2 and a message naming
#     the option; gen refuses bad counts and seeds, and accepts the whole seed range.
set -u
TURNSTILE=$(realpath "${1:?usage: output_and_numbers_test.sh TURNSTILE}")
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }

PAIR=conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5
SCENARIO=$(find conformance/cases/journal -name '*.scenario.json' | sort | head -1)
"$TURNSTILE" certify --reference --cases 'Merge.I2.*' --report-json "$TMP/report.json" >/dev/null 2>&1
"$TURNSTILE" run "$SCENARIO" --db "$TMP/journal.db" >/dev/null 2>&1

# Each command as it is run: all of them write something on stdout.
commands=(
    "--help"
    "gen --seed 7"
    "check --stream $PAIR.input.jsonl --response $PAIR.expected.json"
    "certify --reference --cases Merge.I2.*"
    "certify --print-requests --cases Merge.I2.*"
    "testee --list-mutants"
    "testee --help"
    "merge $PAIR.input.jsonl"
    "canon $PAIR.expected.json"
    "taskkey 8f14e45f-ceea-467f-a0e6-4a8e3b2b7d11 search {\"q\":1}"
    "run $SCENARIO --db $TMP/run.db"
    "journal --db $TMP/journal.db"
    "report $TMP/report.json"
)
for command in "${commands[@]}"; do
    name="works: $command"
    # shellcheck disable=SC2086  # COMMAND is a word list
    "$TURNSTILE" $command >"$TMP/out" 2>"$TMP/err" && [ -s "$TMP/out" ] && ok || fail "$(head -3 "$TMP/err")"
    rm -f "$TMP/run.db"*
    name="/dev/full: $command"
    # shellcheck disable=SC2086  # COMMAND is a word list
    "$TURNSTILE" $command >/dev/full 2>"$TMP/err"
    status=$?
    [ "$status" -ne 0 ] && [ -s "$TMP/err" ] && ok || fail "exit $status, stderr: $(head -1 "$TMP/err")"
    rm -f "$TMP/run.db"*
    name="closed stdout: $command"
    # shellcheck disable=SC2086  # COMMAND is a word list
    "$TURNSTILE" $command >&- 2>"$TMP/err"
    status=$?
    [ "$status" -ne 0 ] && [ -s "$TMP/err" ] && ok || fail "exit $status, stderr: $(head -1 "$TMP/err")"
    rm -f "$TMP/run.db"*
done
name="testee answering into /dev/full"
echo '{"id":"$hello","op":"hello"}' | "$TURNSTILE" testee >/dev/full 2>"$TMP/err"
status=$?
[ "$status" -ne 0 ] && grep -q 'standard output' "$TMP/err" && ok || fail "exit $status"

# refuses COMMAND-AND-OPTIONS... : exit status 2, a message naming the option.
refuses() {
    local option=$1
    shift
    name="refuses: $*"
    "$TURNSTILE" "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    [ "$status" -eq 2 ] && grep -q -- "$option needs" "$TMP/err" && ok || fail "exit $status: $(head -2 "$TMP/err")"
}
for value in nan NaN inf -inf -1 0 "" 5s 1e400 86401 0x; do
    refuses --timeout certify --timeout "$value" --reference
done
for value in -1 abc 0 "" 99999999999999999999 4294967297 1e3 " 1"; do
    refuses --max-answer-bytes certify --max-answer-bytes "$value" --reference
done
for value in -1 0 abc "" 1.5 1000001 99999999999999999999 18446744073709551615 +3; do
    refuses --count gen --count "$value" --out "$TMP/gen"
done
for value in -1 abc "" 18446744073709551616 " 1" +1 1e3; do
    refuses --seed gen --seed "$value"
done
for value in -1 0 abc 99999999999999999999 ""; do
    refuses --crash-before-commit run "$SCENARIO" --db "$TMP/x.db" --crash-before-commit "$value"
done
[ ! -e "$TMP/gen" ] || [ -z "$(ls "$TMP/gen")" ] || fail "gen wrote files for a refused count"

name="gen: the whole seed range, and --count within its range"
"$TURNSTILE" gen --seed 18446744073709551615 >"$TMP/a" && "$TURNSTILE" gen --seed 18446744073709551615 >"$TMP/b" \
    && cmp -s "$TMP/a" "$TMP/b" && [ -s "$TMP/a" ] && "$TURNSTILE" gen --seed 0 >/dev/null \
    && "$TURNSTILE" gen --seed 3 --count 4 --out "$TMP/gen4" && [ "$(find "$TMP/gen4" -type f | wc -l)" -eq 4 ] && ok || fail "see above"
name="gen: an --out file that cannot be written names it"
mkdir -p "$TMP/ro/stream-1-0.jsonl" # a directory where the file should go
"$TURNSTILE" gen --out "$TMP/ro" 2>"$TMP/err"
status=$?
[ "$status" -eq 1 ] && grep -q "stream-1-0.jsonl" "$TMP/err" && ok || fail "exit $status: $(cat "$TMP/err")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
