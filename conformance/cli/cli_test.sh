#!/usr/bin/env bash
# cli_test.sh — the turnstile command line on good and bad input (SPEC W2, W6).
#
# Every bad input must give exit status 2, nothing on stdout, and one error line on stderr that
# names the line (and, for syntax errors, the column where the parser stopped) and the field path. Nothing may crash: under
# --config=asan a sanitizer report aborts the binary and fails the case.
set -u
TURNSTILE=${1:?usage: cli_test.sh path/to/turnstile}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }

# expect_error NAME STATUS PATTERN [ARGS...] < input
expect_error() {
    name=$1 want_status=$2 pattern=$3
    shift 3
    "$TURNSTILE" "$@" >"$TMP/out" 2>"$TMP/err"
    local status=$?
    if [ "$status" -ne "$want_status" ]; then fail "exit $status, want $want_status; stderr: $(head -c 300 "$TMP/err")"; return; fi
    if [ -s "$TMP/out" ]; then fail "stdout not empty: $(head -c 200 "$TMP/out")"; return; fi
    if ! grep -qE -- "$pattern" "$TMP/err"; then fail "stderr does not match /$pattern/: $(head -c 300 "$TMP/err")"; return; fi
    passed=$((passed + 1))
}

# expect_ok NAME PATTERN [ARGS...] < input : exit 0 and stdout matching PATTERN
expect_ok() {
    name=$1 pattern=$2
    shift 2
    "$TURNSTILE" "$@" >"$TMP/out" 2>"$TMP/err"
    local status=$?
    if [ "$status" -ne 0 ]; then fail "exit $status; stderr: $(head -c 300 "$TMP/err")"; return; fi
    if ! grep -qE -- "$pattern" "$TMP/out"; then fail "stdout does not match /$pattern/: $(head -c 300 "$TMP/out")"; return; fi
    passed=$((passed + 1))
}

ok_line='{"responseId":"r","messageId":"m","contents":[{"$type":"text","text":"hi"}]}'

printf '%s\n{"responseId": "r",, }\n' "$ok_line" >"$TMP/in"; expect_error malformed_json_names_line 2 '^turnstile merge: stdin:2:[0-9]+: invalid JSON' merge <"$TMP/in"
printf '%s\n%s\n%s\n{"responseId": 5}\n' "$ok_line" "$ok_line" "$ok_line" >"$TMP/in"; expect_error wrong_type_names_line_and_field 2 'stdin:4:16: responseId: expected a string or null, got number' merge <"$TMP/in"
printf '{"contents":[{"$type":"text","text":"a"},{"$type":"functionCall","name":"f"}]}\n' >"$TMP/in"; expect_error missing_call_id_names_path 2 'stdin:1:42: contents\[1\]\.callId: is required' merge <"$TMP/in"
printf '{"contents":[{"$type":"functionCall","callId":"c","name":"f","arguments":"{}"}]}\n' >"$TMP/in"; expect_error arguments_must_be_object 2 'contents\[0\]\.arguments: expected an object' merge <"$TMP/in"
printf '{"contents":{"$type":"text"}}\n' >"$TMP/in"; expect_error contents_must_be_array 2 'stdin:1:13: contents: expected an array or null, got object' merge <"$TMP/in"
printf '{"createdAt":"2026-01-01t00:00:00Z","contents":[]}\n' >"$TMP/in"; expect_error bad_created_at 2 'stdin:1:14: createdAt: not a valid timestamp' merge <"$TMP/in"
printf '{"createdAt":"2026-02-30T00:00:00Z","contents":[]}\n' >"$TMP/in"; expect_error impossible_date 2 'createdAt: not a valid timestamp: a date or time field is out of range' merge <"$TMP/in"
printf '{"contents":[{"$type":"usage","details":{"inputTokenCount":"12x"}}]}\n' >"$TMP/in"; expect_error bad_usage_counter 2 'contents\[0\]\.details\.inputTokenCount' merge <"$TMP/in"
printf '{"contents":[{"$type":"usage","details":{"inputTokenCount":9223372036854775807}}]}\n{"contents":[{"$type":"usage","details":{"inputTokenCount":1}}]}\n' >"$TMP/in"; expect_error usage_sum_overflow 2 'stdin:2:1: usage\.inputTokenCount: the sum of this counter overflows' merge <"$TMP/in"
printf '{"text":"a\xff"}\n' >"$TMP/in"; expect_error invalid_utf8 2 'stdin:1:[0-9]+: invalid JSON' merge <"$TMP/in"
printf '{"text":"\\ud800"}\n' >"$TMP/in"; expect_error lone_surrogate 2 'invalid JSON' merge <"$TMP/in"
printf '{"a":1,"a":2}\n' >"$TMP/in"; expect_error duplicate_key 2 'invalid JSON.*duplicate' merge <"$TMP/in"
printf '{"a":99999999999999999999}\n' >"$TMP/in"; expect_error integer_beyond_int64 2 'invalid JSON' merge <"$TMP/in"
printf '42\n' >"$TMP/in"; expect_error top_level_scalar 2 'stdin:1:[0-9]+: invalid JSON' merge <"$TMP/in"
printf '[1]\n' >"$TMP/in"; expect_error array_item_not_object 2 'stdin:1:2: \[0\]: expected an update object, got number' merge <"$TMP/in"
printf '%s\n{"a":1} x\n' "$ok_line" >"$TMP/in"; expect_error trailing_garbage 2 'stdin:2:[0-9]+: invalid JSON' merge <"$TMP/in"
printf '%s\n\0\n' "$ok_line" >"$TMP/in"; expect_error nul_byte 2 'stdin:2:[0-9]+: invalid JSON' merge <"$TMP/in"
printf '' >"$TMP/in"; expect_error empty_stream 2 'holds no update' merge <"$TMP/in"
printf '  \n\n\t\n' >"$TMP/in"; expect_error whitespace_only 2 'holds no update' merge <"$TMP/in"
printf '[]\n[]\n' >"$TMP/in"; expect_error only_empty_arrays 2 'holds no update' merge <"$TMP/in"
head -c 100000 /dev/zero | tr '\0' '[' >"$TMP/in"; expect_error deep_nesting 2 'invalid JSON.*depth' merge <"$TMP/in"
{ printf '{"contents":[{"$type":"text","text":"'; head -c 1048576 /dev/zero | tr '\0' 'x'; printf '"}]}\n'; } >"$TMP/big.jsonl"
expect_ok one_megabyte_string '"text":"xxxxxxxx' merge "$TMP/big.jsonl" </dev/null
name=one_megabyte_string_intact
[ "$(sed 's/.*"text":"\(x*\)".*/\1/' "$TMP/out" | tr -d '\n' | wc -c)" -eq 1048576 ] && passed=$((passed + 1)) || fail "the string did not survive whole"
# Exits are chosen by the error's code, never by its text (issue 21): bad input whose own text
# reads "out of memory" is still bad input (exit 2), for every command that reads a stream.
printf '{"role":"out of memory\n' >"$TMP/oom_token"
echo '{"responseId":"r","messages":[]}' >"$TMP/empty_response"
expect_error oom_text_merge 2 "^turnstile merge: stdin:1:9: invalid JSON: unexpected newline near '\"out of memory'" merge <"$TMP/oom_token"
expect_error oom_text_canon 2 "^turnstile canon: stdin:1:9: invalid JSON: unexpected newline near '\"out of memory'" canon <"$TMP/oom_token"
expect_error oom_text_check 2 "^turnstile check: .*oom_token:1:9: invalid JSON: unexpected newline near '\"out of memory'" check --stream "$TMP/oom_token" --response "$TMP/empty_response" </dev/null
expect_error missing_file 2 'turnstile: /nonexistent/x.jsonl: No such file' merge /nonexistent/x.jsonl </dev/null
expect_error unknown_option 2 "unknown option '--bogus'" merge --bogus </dev/null
expect_error two_files 2 'one input file at most' merge a b </dev/null
expect_error response_id_needs_value 2 'needs a non-empty value' merge --response-id </dev/null
expect_error no_command 2 'usage: turnstile COMMAND' </dev/null
expect_error unknown_command 2 "unknown command 'frobnicate'" frobnicate </dev/null
expect_ok merge_help '^usage: turnstile merge' merge --help </dev/null
expect_ok top_help 'merge +fold a stream' --help </dev/null
expect_ok example '"responseId":"resp_triage"' merge --example </dev/null
printf '{"contents":[{"$type":"text","text":"a"}]}\n' >"$TMP/in"; expect_ok response_id_option '^\{"responseId":"turn-7"' merge --response-id turn-7 <"$TMP/in"
printf '\xef\xbb\xbf%s\r\n%s\r\n' "$ok_line" "$ok_line" >"$TMP/in"; expect_ok bom_and_crlf '"text":"hihi"' merge <"$TMP/in"

# turnstile gen: deterministic streams that the reference merges.
name=gen_is_deterministic_and_mergeable
"$TURNSTILE" gen --seed 7 >"$TMP/g1" && "$TURNSTILE" gen --seed 7 >"$TMP/g2" && cmp -s "$TMP/g1" "$TMP/g2" \
    && "$TURNSTILE" merge "$TMP/g1" >/dev/null && passed=$((passed + 1)) || fail "gen --seed 7 not deterministic or not mergeable"
name=gen_count_to_directory
"$TURNSTILE" gen --seed 3 --count 20 --out "$TMP/gen" && [ "$(find "$TMP/gen" -type f | wc -l)" -eq 20 ] \
    && for f in "$TMP/gen"/*; do "$TURNSTILE" merge "$f" >/dev/null || exit 1; done && passed=$((passed + 1)) || fail "gen --count 20 --out"
expect_error gen_count_needs_out 2 'needs --out' gen --count 3 </dev/null

# turnstile canon: RFC 8785 canonical form, one newline after it (none with --no-newline).
printf '{\n  "b": [1E30, 4.50, 2e-3, 1e20, -0],\n  "a": "\\u20ac\\u000F"\n}\n' >"$TMP/in"; expect_ok canon_rfc8785 '^\{"a":"€\\u000f","b":\[1e\+30,4\.5,0\.002,100000000000000000000,0\]\}$' canon <"$TMP/in"
printf '{"a\\":1,\\"b": 2}' >"$TMP/in"; expect_ok canon_escapes_keys '^\{"a\\":1,\\"b":2\}$' canon "$TMP/in" </dev/null
name=canon_utf16_key_order  # U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FB33
printf '{"\\ufb33":1,"\\ud83d\\ude00":2}' | "$TURNSTILE" canon >"$TMP/out" && printf '{"\360\237\230\200":2,"\357\254\263":1}\n' >"$TMP/want" \
    && cmp -s "$TMP/out" "$TMP/want" && passed=$((passed + 1)) || fail "got $(cat "$TMP/out")"
name=canon_no_newline
[ "$(printf '[1.0]' | "$TURNSTILE" canon --no-newline | od -An -c | tr -d ' \n')" = '[1]' ] && passed=$((passed + 1)) || fail "--no-newline output is not exactly [1]"
printf '{"a":1,\n "a":2}\n' >"$TMP/in"; expect_error canon_duplicate_key 2 '^turnstile canon: stdin:2:2: invalid JSON: duplicate object key' canon <"$TMP/in"
printf '["\\ud800"]' >"$TMP/in"; expect_error canon_lone_surrogate 2 '^turnstile canon: .*in:1:2: invalid JSON: invalid Unicode' canon "$TMP/in" </dev/null
printf '[1,\n  1e400]' >"$TMP/in"; expect_error canon_double_overflow 2 'stdin:2:3: invalid JSON: real number overflow' canon <"$TMP/in"
printf '[NaN]' >"$TMP/in"; expect_error canon_nan 2 'stdin:1:2: invalid JSON' canon <"$TMP/in"
expect_error canon_unknown_option 2 "unknown option '--pretty'" canon --pretty </dev/null
expect_ok canon_help '^usage: turnstile canon' canon --help </dev/null

# turnstile taskkey: the seed-compatible vector (issue 5), any spelling of the same input.
exec_id=00000000-0000-4000-8000-000000000001
expect_ok taskkey_vector_key '^key: task:259e82886765f20fcc4d108dfffa1857$' taskkey "$exec_id" echo '{"a":1}' </dev/null
expect_ok taskkey_vector_id '^id: 574e3dc9-30ad-5b51-8223-9e95bfe2d871$' taskkey "$exec_id" echo '{ "a" : 1.0 }' </dev/null
printf '{"a":10e-1}' >"$TMP/in"; expect_ok taskkey_stdin '^key: task:259e82886765f20fcc4d108dfffa1857$' taskkey "$exec_id" echo - <"$TMP/in"
name=taskkey_escaped_key_is_another_task
[ "$("$TURNSTILE" taskkey "$exec_id" echo '{"a\":1,\"b": 2}')" != "$("$TURNSTILE" taskkey "$exec_id" echo '{"a":1,"b":2}')" ] \
    && passed=$((passed + 1)) || fail "the seed's collision is back"
expect_error taskkey_bad_json 2 '^turnstile taskkey: JSON:1:8: invalid JSON: duplicate object key' taskkey "$exec_id" echo '{"a":1,"a":2}' </dev/null
expect_error taskkey_bad_exec_id 2 "EXEC_ID 'not-a-uuid' is not a UUID" taskkey not-a-uuid echo '{}' </dev/null
expect_error taskkey_missing_args 2 'needs EXEC_ID KIND JSON' taskkey "$exec_id" echo </dev/null

# turnstile run / journal: a scenario against a SQLite journal, a simulated crash, a resume.
cat >"$TMP/scenario.json" <<'JSON'
{"executionId":"00000000-0000-4000-8000-000000000001","clock":{"start":"2026-05-13T10:00:00Z","stepMs":1000},
 "input":"hello","llm":[{"text":"calling","toolCalls":[{"callId":"c1","name":"add","arguments":{"a":1}}]},{"text":"1"},{"text":"again"}],
 "tools":{"add":{"result":1}},"events":[{"restart":true},{"signal":"more"}]}
JSON
expect_ok run_crash 'after 2 commits' run "$TMP/scenario.json" --db "$TMP/j.db" --crash-before-commit 3 </dev/null
expect_ok run_resume 'suspended, waiting for a signal after 4 commits' run "$TMP/scenario.json" --db "$TMP/j.db" </dev/null
expect_ok run_again_is_idempotent 'after 0 commits' run "$TMP/scenario.json" --db "$TMP/j.db" </dev/null
expect_ok journal_transcript '"role":"user".*"role":"assistant".*"role":"tool".*"role":"assistant".*"role":"user".*"role":"assistant"' \
    journal --db "$TMP/j.db" --transcript </dev/null
expect_ok journal_keeps_timestamps '"timestamp":"2026-05-13T10:00:05.0000000\+00:00"' journal --db "$TMP/j.db" </dev/null
name=journal_has_six_entries
[ "$("$TURNSTILE" journal --db "$TMP/j.db" --transcript | grep -o '"entryId"' | wc -l)" -eq 6 ] \
    && passed=$((passed + 1)) || fail "the crash and resume did not give 6 entries"
expect_error journal_missing_db 2 'no such journal' journal --db "$TMP/none.db" </dev/null
printf '{"executionId":"x","input":"a","llm":[]}' >"$TMP/bad.json"
expect_error run_bad_scenario 2 'executionId: .*canonical UUID' run "$TMP/bad.json" --db "$TMP/k.db" </dev/null
printf 'not a database, not at all, certainly not SQLite' >"$TMP/junk.db"
expect_error run_foreign_file 1 'junk.db: .*not a database' run "$TMP/scenario.json" --db "$TMP/junk.db" </dev/null
other='{"executionId":"00000000-0000-4000-8000-000000000002","input":"a","llm":[{"text":"b"}]}'
printf '%s' "$other" >"$TMP/other.json"
expect_error run_other_execution 1 'holds execution 00000000-0000-4000-8000-000000000001' run "$TMP/other.json" --db "$TMP/j.db" </dev/null
expect_error run_needs_db 2 'are required' run "$TMP/scenario.json" </dev/null

# turnstile report: a compliance table from certify reports.
"$TURNSTILE" certify --reference --cases 'Merge.O3.*,Journal.J9.*' --report-json "$TMP/reference.json" >/dev/null 2>&1
"$TURNSTILE" certify --mutant comparer-5825 --cases 'Merge.O3.*,Journal.J9.*' --report-json "$TMP/comparer.json" >/dev/null 2>&1
expect_ok report_markdown_header '^\| rule \| level \| reference \| comparer \|$' report "$TMP/reference.json" "$TMP/comparer.json" </dev/null
expect_ok report_markdown_fail_links '^\| O3 \| Required \| pass \| \[\*\*fail\*\* \([0-9]+\)\]\(#comparer-o3\) \|$' \
    report "$TMP/reference.json" "$TMP/comparer.json" </dev/null
expect_ok report_markdown_reason '<a id="comparer-o3"></a>\*\*O3\*\*' report "$TMP/reference.json" "$TMP/comparer.json" </dev/null
expect_ok report_html '<td class="fail"><a href="#comparer-o3">' report --html "$TMP/reference.json" "$TMP/comparer.json" </dev/null
# A hostile report: markup and table syntax in a rule id, a level and a case id stay text.
python3 - "$TMP/reference.json" "$TMP/hostile.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["rules"][0]["id"] = "<script>alert(1)</script>|x"
r["rules"][0]["level"] = "Req|uired<b>"
r["rules"][0]["failed"] = 1
r["cases"][0]["findings"] = [{"rule": r["rules"][0]["id"], "level": "Required", "message": "a | b <i>"}]
r["cases"][0]["id"] = "Merge.|<x>"
json.dump(r, open(sys.argv[2], "w"))
PY
name=report_html_escapes_everything
"$TURNSTILE" report --html "$TMP/hostile.json" >"$TMP/out" 2>&1 && ! grep -q '<script>\|uired<b>\|<i>\|<x>' "$TMP/out" \
    && grep -q '&lt;script&gt;' "$TMP/out" && passed=$((passed + 1)) || fail "markup from a report reached the page"
name=report_markdown_pipes_escaped
"$TURNSTILE" report "$TMP/hostile.json" >"$TMP/out" 2>&1 \
    && [ "$(grep -c '^| ' "$TMP/out")" -eq "$(grep '^| ' "$TMP/out" | awk -F'(^|[^\\\\])[|]' '{print NF}' | grep -c '^5$')" ] \
    && ! grep -q '<script>' "$TMP/out" && passed=$((passed + 1)) || fail "a | or markup broke the Markdown table: $(grep script "$TMP/out" | head -2)"
expect_error report_not_a_report 2 'not a turnstile certification report' report "$TMP/scenario.json" </dev/null
expect_error report_nothing 2 'at least one certify report' report </dev/null

# D1: the same input gives the same bytes.
name=deterministic_output
"$TURNSTILE" merge --example >"$TMP/a" && "$TURNSTILE" merge --example >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b" \
    && passed=$((passed + 1)) || fail "two runs differ"

# `turnstile testee` reads each request line within a bound (issue 20): a line longer than it
# draws an error answer as soon as the bound is passed, not unbounded memory.
name=testee_line_that_never_ends
head -c 300000000 /dev/zero | timeout 120 "$TURNSTILE" testee >"$TMP/out" 2>"$TMP/err"
grep -qx '{"id":null,"error":"a request line longer than 268435456 bytes"}' "$TMP/out" \
    && passed=$((passed + 1)) || fail "$(head -c 200 "$TMP/out") $(head -c 200 "$TMP/err")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
