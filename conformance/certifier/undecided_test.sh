#!/usr/bin/env bash
# undecided_test.sh — certify judges every case within a budget (issue 24).
#
# A one-case suite whose stream is DESIGN.md §4's 3-PARTITION shape (80 response groups of
# identical messages, shuffled) kept `certify` silent for minutes: judging had no deadline. Now
# the case is `undecided` once the judging budget runs out: its own entry in the text, JSON and
# JUnit reports (never a pass, never a failure), counted on the verdict line and on the last
# line, exit status 4, and a replay command that carries the budget. A budget large enough
# decides it; an expected-failures gate neither lists it nor calls it an unexpected pass.
set -u
TURNSTILE=$(realpath "${1:?usage: undecided_test.sh TURNSTILE CHECK_BENCH_PY}")
SHAPES=$(realpath "${2:?usage: undecided_test.sh TURNSTILE CHECK_BENCH_PY}")
unset XML_OUTPUT_FILE TURNSTILE_SUITE
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# suite DIR SHAPE GROUPS: a one-case suite
suite() {
    mkdir -p "$1"
    python3 "$SHAPES" --write-case "$2" "$3" "$1" >/dev/null || exit 1
    mv "$1/$2_$3.jsonl" "$1/Merge.I3.partition.input.jsonl"
    rm -f "$1/$2_$3.answer.json"
    printf '{"suite":"partition","version":1,"cases":[{"id":"Merge.I3.partition","rules":["I3"],"description":"DESIGN.md section 4 reduction, shuffled","input":"Merge.I3.partition.input.jsonl"}]}\n' >"$1/MANIFEST.json"
}
suite "$TMP/hard" partition_wide_shuffled 80
suite "$TMP/easy" partition_shuffled 32

name=undecided_within_the_budget
"$TURNSTILE" certify --suite "$TMP/hard" --no-repeat --judge-states 20000 --report-json "$TMP/r.json" --junit "$TMP/r.xml" \
    --reference >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 4 ] && tail -1 "$TMP/out" | grep -qx '0 passed, 0 failed, 0 skipped, 1 undecided' \
    && grep -q '^UNDECIDED Merge.I3.partition  undecided: the search for an allowed arrangement .* (20000 states beyond one per group' "$TMP/out" \
    && grep -q '^verdict: UNDECIDED: .* cases 0 of 1 pass, 1 undecided within the judging budget' "$TMP/out" \
    && ok || fail "exit $status: $(tail -4 "$TMP/out") $(head -c 300 "$TMP/err")"

name=replay_carries_the_budget
grep -q "replay: .* certify --suite .* --no-repeat --judge-states 20000 --reference --cases Merge.I3.partition" "$TMP/out" \
    && ok || fail "$(grep replay "$TMP/out")"

name=json_report_entry
[ "$(json "$TMP/r.json" "(r['verdict'], r['summary']['undecided'], r['summary']['passed'], r['summary']['failed'], r['cases'][0]['verdict'], r['cases'][0]['outcome'], r['cases'][0]['findings'])")" \
    = "('undecided', 1, 0, 0, 'undecided', 'undecided', [])" ] && ok || fail "$(head -c 600 "$TMP/r.json")"

name=junit_neither_pass_nor_failure
python3 - "$TMP/r.xml" <<'PY' && ok || fail "$(head -c 800 "$TMP/r.xml")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("failures") == "0" and root.get("errors") == "0" and root.get("skipped") == "1", root.attrib
case = root.find(".//testcase")
skipped = case.find("skipped")
assert skipped is not None and skipped.get("type") == "undecided" and "ran out of its budget" in skipped.get("message")
assert case.find("failure") is None and case.find("error") is None
verdict = [p.get("value") for p in root.iter("property") if p.get("name") == "verdict"]
assert verdict == ["undecided"], verdict
PY

name=gate_neither_new_failure_nor_unexpected_pass
printf 'Merge.I3.partition I3\n' >"$TMP/listed.txt"
: >"$TMP/empty.txt"
"$TURNSTILE" certify --suite "$TMP/hard" --no-repeat --judge-states 20000 --expected-failures "$TMP/empty.txt" --reference \
    >"$TMP/out" 2>&1
a=$?
"$TURNSTILE" certify --suite "$TMP/hard" --no-repeat --judge-states 20000 --expected-failures "$TMP/listed.txt" --reference \
    >"$TMP/out2" 2>&1
b=$?
[ $a -eq 4 ] && grep -q 'gate: 0 expected failures, 0 new failures, 0 unexpected passes, 0 stale entries' "$TMP/out" \
    && [ $b -eq 4 ] && ! grep -q 'UNEXPECTED PASS' "$TMP/out2" && ok \
    || fail "exit $a: $(tail -3 "$TMP/out") / exit $b: $(grep -E 'UNEXPECTED|gate:' "$TMP/out2")"

name=a_budget_large_enough_decides
"$TURNSTILE" certify --suite "$TMP/easy" --no-repeat --judge-states 0 --reference >"$TMP/out" 2>&1 \
    && tail -1 "$TMP/out" | grep -qx '1 passed, 0 failed, 0 skipped' && grep -q '^verdict: CONFORMANT' "$TMP/out" \
    && ok || fail "$(tail -3 "$TMP/out")"

name=default_budget_ends
"$TURNSTILE" certify --suite "$TMP/hard" --no-repeat --reference >"$TMP/out" 2>&1
status=$?
[ $status -eq 4 ] || [ $status -eq 0 ] && ok || fail "exit $status: $(tail -3 "$TMP/out")"

name=bad_budget_is_usage
"$TURNSTILE" certify --suite "$TMP/easy" --judge-seconds -1 --reference >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--judge-seconds needs a number' "$TMP/out" && ok || fail "$(cat "$TMP/out")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
