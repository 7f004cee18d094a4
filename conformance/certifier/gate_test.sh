#!/usr/bin/env bash
# gate_test.sh — the expected-failures list and the certifier's bounds on a user's files (issue 20):
#
#   * --write-expected-failures edits an existing list in place (comments, blank lines, order and
#     patterns kept; a pattern stays while it matches a failure; entries that pass now and stale
#     ones removed; new failures added at the end), after which the gate passes; a new list is
#     written whole; a file that is no list is refused, not overwritten;
#   * a list is read within bounds, every error naming FILE:LINE: /dev/zero, a line over 4096
#     bytes; a 3000-byte line is read whole, not split;
#   * a suite file that never ends is refused;
#   * --kill-at beyond a case's points is that case's error, naming how many it has.
set -u
TURNSTILE=$(realpath "${1:?usage: gate_test.sh TURNSTILE}")
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# A merge mutant's failures (its resume cases pass, run once each without a kill sweep).
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --write-expected-failures "$TMP/xfail" >/dev/null 2>&1

# The rewrite edits the list in place (issue 20): comments, blank lines, order and patterns stay;
# a pattern stays while it matches a failure; entries that pass now and stale ones go; new failures
# are added at the end; the gate then passes.
name=expected_failures_rewrite_in_place
first_fail=$(grep -v '^#' "$TMP/xfail" | grep -v '^Merge.M3.* I2 ' | head -1) # left out below: a new failure
{ echo "# our list: keep this comment"; echo; echo "Merge.M3.* I2  # a pattern that still matches failures"
  echo "# the case below passes now"; echo "Merge.I1.single_id_preserved I1"; echo "Merge.No.such_case O1  # stale"
  grep -v '^#' "$TMP/xfail" | grep -v '^Merge.M3.* I2 ' | tail -n +2; echo "# trailing comment"; } >"$TMP/xfail.edit"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --write-expected-failures "$TMP/xfail.edit" >/dev/null 2>&1
python3 - "$TMP/xfail.edit" "$first_fail" <<'PY' && "$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none \
    --expected-failures "$TMP/xfail.edit" >"$TMP/out" 2>&1 && ok || fail "$(head -12 "$TMP/xfail.edit"; grep -E 'NEW|UNEXP|STALE' "$TMP/out" | head -3)"
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[:4] == ["# our list: keep this comment", "", "Merge.M3.* I2  # a pattern that still matches failures",
                     "# the case below passes now"], lines[:4]
assert not any(l.startswith(("Merge.I1.single_id_preserved", "Merge.No.such_case")) for l in lines), lines
i = lines.index("# trailing comment")
assert lines[i + 1].startswith(sys.argv[2].split("  #")[0] + "  # "), (lines[i:], sys.argv[2])  # the new failure, at the end
assert not any(l.startswith("Merge.M3.") and " I2 " in l for l in lines[i:]), "a failure the pattern covers was added"
PY
name=expected_failures_rewrite_creates_a_new_list
rm -f "$TMP/xfail.new"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --write-expected-failures "$TMP/xfail.new" >/dev/null 2>&1
cmp -s <(grep -v '^#' "$TMP/xfail.new") <(grep -v '^#' "$TMP/xfail") && ok || fail "$(diff "$TMP/xfail.new" "$TMP/xfail" | head -5)"
name=expected_failures_rewrite_refuses_a_file_that_is_no_list
echo '{"format": "not a list"}' >"$TMP/report-not-a-list.json"
"$TURNSTILE" certify --reference --cases 'Merge.I1.*' --write-expected-failures "$TMP/report-not-a-list.json" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'edits the list in place: .*report-not-a-list.json:1: expected' "$TMP/out" \
    && grep -q 'not a list' "$TMP/report-not-a-list.json" && ok || fail "$(tail -2 "$TMP/out")"

# A list is a user's file: bounded, every error naming FILE:LINE; nothing hangs or is split.
name=expected_failures_dev_zero
timeout 60 "$TURNSTILE" certify --reference --expected-failures /dev/zero >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q '/dev/zero:1: a NUL byte' "$TMP/out" && ok || fail "$(tail -2 "$TMP/out")"
name=expected_failures_long_line_named
{ echo "# x"; printf 'Merge.I1.single_id_preserved I1  # %05000d\n' 0; } >"$TMP/xfail.long"
"$TURNSTILE" certify --reference --expected-failures "$TMP/xfail.long" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "xfail.long:2: a line longer than 4096 bytes" "$TMP/out" && ok || fail "$(tail -2 "$TMP/out")"
name=expected_failures_3000_byte_line_not_split
{ cat "$TMP/xfail"; printf 'Merge.I1.single_id_preserved I1  # %03000d\n' 0; } >"$TMP/xfail.3000"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.3000" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^UNEXPECTED PASS Merge.I1.single_id_preserved I1 (line' "$TMP/out" && ! grep -q 'STALE' "$TMP/out" \
    && ok || fail "$(grep -E 'NEW|UNEXP|STALE' "$TMP/out" | head -3)"

# A suite is a user's files too: one that never ends is refused, not read until memory runs out.
name=suite_file_that_never_ends
mkdir -p "$TMP/endless/merge"
ln -sf /dev/zero "$TMP/endless/merge/MANIFEST.json"
timeout 120 "$TURNSTILE" certify --reference --suite "$TMP/endless" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'MANIFEST.json: larger than 256 MiB: refused' "$TMP/out" && ok || fail "$(tail -2 "$TMP/out")"

# --kill-at beyond the case's points is the case's error, naming how many points it has.
name=kill_at_beyond_the_points
"$TURNSTILE" certify --reference --cases Resume.U2.three_simple_turns --kill-at 100000 --report-json "$TMP/k.json" >"$TMP/out" 2>&1
[ $? -eq 1 ] && [ "$(json "$TMP/k.json" "(lambda c: c['verdict'] + ' ' + c['outcome'] + ' ' + str('--kill-at 100000: the uninterrupted run has ' in c['detail']))(r['cases'][0])")" = "error no-such-kill-point True" ] \
    && ok || fail "$(grep -E '^(ERROR|PASS|FAIL)' "$TMP/out")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
