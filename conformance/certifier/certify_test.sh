#!/usr/bin/env bash
# certify_test.sh — the certifier end to end (issue: conformance suite and certifier).
#
#   * the reference passes every case, in-process and over the pipe;
#   * every mutant (a historic bug) fails cases of its rule and of no unrelated rule;
#   * a misbehaving testee is reported per case (timeout, crash, garbage, wrong id, double
#     answer, exit, oversized answer, unsupported, rejection) and never stops the run;
#   * expected-failure lists: exact match passes; new failure, unexpected pass, stale entry fail;
#   * JSON and JUnit reports are well-formed and agree with the summary;
#   * --cases/--rules select; `turnstile check` judges a recorded pair;
#   * the three testee kits (C, Python, Node.js) certify with their committed failure lists.
# With --long (//conformance/certifier:certify_long_test, run by //ci:long_tests) also the resume
# engine's six mutants, each over every kill point of every Journal and Resume case, and the
# reference over the pipe on more resume cases: minutes of CPU under ASan, too long for a unit
# test on a loaded machine (ci/certify_engines.sh certifies those mutants in CI as well).
set -u
TURNSTILE=$(realpath "${1:?usage: certify_test.sh TURNSTILE C_KIT [--long]}")
C_KIT=$(realpath "$2")
long=""; [ "${3:-}" != --long ] || long=1
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE  # the certify runs below must not overwrite this test's own XML
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

name=reference_in_process
"$TURNSTILE" certify --reference --report-json "$TMP/ref.json" --junit "$TMP/ref.xml" >"$TMP/out" 2>&1 \
    && tail -1 "$TMP/out" | grep -qE '^[0-9]+ passed, 0 failed, 0 skipped$' && ok || fail "$(tail -3 "$TMP/out")"
name=reference_cases_at_least_150
[ "$(json "$TMP/ref.json" "r['summary']['cases']")" -ge 150 ] && ok || fail "fewer than 150 cases"
name=reference_equivalent_everywhere
[ "$(json "$TMP/ref.json" "sum(1 for c in r['cases'] if c.get('equivalent') is False)")" -eq 0 ] && ok || fail "differs from a golden answer"
name=junit_well_formed
python3 - "$TMP/ref.xml" "$TMP/ref.json" <<'PY' && ok || fail "JUnit XML does not parse or disagrees"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
report = json.load(open(sys.argv[2]))
assert len(cases) == report["summary"]["cases"], (len(cases), report["summary"])
assert root.get("failures") == "0" and root.get("errors") == "0"
PY

name=reference_over_the_pipe
# (one kill point per resume case here: every point of a few cases is swept over the pipe below)
"$TURNSTILE" certify --kill-points 1 -- "$TURNSTILE" testee >"$TMP/out" 2>&1 && grep -q '0 failed, 0 skipped' "$TMP/out" \
    && grep -q '(turnstile-reference 1)' "$TMP/out" && ok || fail "$(tail -3 "$TMP/out")"

# Each mutant: the rules it must fail (each), then every rule it may fail. Stated here, apart
# from the mutant table in conformance/testee/mutants.c. The resume engine's mutants fail their
# journal-profile rule (J) on the journal op and their universal rule (U) on the resume op,
# where the certifier plays the model and the tools and kills the testee at every point. The
# branching cases (U12-U15) replay a conversation on a new branch: a mutant that breaks how a
# conversation is stored or resumed may break them too.
while read -r mutant must rules; do
    name="mutant_$mutant"
    # A merge mutant's engine is the reference's, a resume mutant's merger: the other half's
    # cases would only cost time.
    case "$must" in J*) cases='Journal.*,Resume.*'; [ -n "$long" ] || continue ;; *) cases='Merge.*,Host.*' ;; esac
    "$TURNSTILE" certify --mutant "$mutant" --cases "$cases" --report-json "$TMP/m.json" >"$TMP/out" 2>&1
    status=$?
    got=$(json "$TMP/m.json" "','.join(sorted({f['rule'] for c in r['cases'] for f in c['findings']}))")
    python3 - "$must" "$rules" "$got" "$status" <<'PY' && ok || fail "exit $status, failed rules {$got}, must {$must}, allowed {$rules}"
import sys
must = set(sys.argv[1].split(","))
allowed = set(sys.argv[2].split(","))
got = set(filter(None, sys.argv[3].split(",")))
assert sys.argv[4] == "1"
assert must <= got, "the mutant's own rules did not fail: %s" % (must - got)
assert got <= allowed, "unrelated rules failed: %s" % (got - allowed)
PY
done <<'LIST'
null-created-at-last O3 O3,I2,O1,O2
comparer-5825 O1 O1,O2,I2,O3
timestamps-across-responses I3 I3,I2,O3
dangling-metadata-dropped R1 R1,R2,R3
created-at-overwritten K1 K1
keyed-before-unkeyed I2 I2,O1,O2,O3
no-host-response-id H1 H1
counter-entry-ids J1,U3 J1,J2,J3,J4,J6,J7,J8,J9,J10,J11,J12,J13,U1,U2,U3,U4,U5,U6,U8,U9,U10,U12,U13,U14,U15
timestamps-regenerated-on-load J7,U4 J7,J3,J4,J6,J8,J13,U4,U9,U13
resume-restarts-loop J9,U5 J9,J3,J4,J6,J7,J8,J10,J11,J12,J13,U2,U3,U5,U6,U8,U9,U10
both-layers-persist J4,U2 J4,J3,J6,J7,J8,J9,J11,J12,J13,U2,U3,U4,U6,U8,U9,U10,U12,U13,U14,U15
unescaped-canonical-keys J5,U6 J5,J6,J7,U6,U9
signal-consumed-outside-commit J13,U9 J13,J10,J3,J4,J6,J7,J8,J11,J12,U9
LIST
# A crash case's findings are reported under J13, naming their rule and the commit: the signal
# "more", lost by a cursor committed apart from its user entry, is missing after the crash.
name=mutant_signal_outside_commit_under_J13
"$TURNSTILE" certify --mutant signal-consumed-outside-commit --cases 'Journal.J13.crash_before_commit_*' \
    --report-json "$TMP/m.json" >/dev/null 2>&1
[ "$(json "$TMP/m.json" "any(f['rule'] == 'J13' and f['message'].startswith('after a crash before commit') and '{\"text\":\"more\"}' in f['message'] for c in r['cases'] for f in c['findings'])")" = True ] \
    && ok || fail "no J13 finding names the lost signal"
# A killed run's findings are reported under U9, naming the rule they break: the signal lost
# by a cursor committed apart from its user message is a lost user message (U3).
if [ -n "$long" ]; then
name=mutant_signal_outside_commit_names_U3
"$TURNSTILE" certify --mutant signal-consumed-outside-commit --cases 'Resume.*' --report-json "$TMP/m.json" >/dev/null 2>&1
[ "$(json "$TMP/m.json" "all(f['message'].split('] ')[0].endswith('[U3') for c in r['cases'] for f in c['findings'])")" = True ] \
    && ok || fail "U9 findings name another rule than U3"
fi

# The resume op over the pipe: the reference passes every universal rule with a kill at every
# point (a real SIGKILL of its process group, a restart, recovery). A few cases: each kill
# starts a process, and the in-process run above has certified every case (--long: more).
name=resume_reference_over_the_pipe
over_the_pipe='Resume.U3.signal_while_tool_pending'
[ -z "$long" ] || over_the_pipe='Resume.U3.signal_while_tool_pending,Resume.U5.sync_tool_beside_async,Resume.U9.*'
"$TURNSTILE" certify --cases "$over_the_pipe" --report-json "$TMP/resume.json" -- "$TURNSTILE" testee >"$TMP/out" 2>&1 \
    && tail -1 "$TMP/out" | grep -qE '^[0-9]+ passed, 0 failed, 0 skipped$' && ok || fail "$(tail -5 "$TMP/out")"
name=resume_every_point_killed
[ "$(json "$TMP/resume.json" "all(c['history']['killPoints'] > 0 and c['history']['killPoints'] == c['history']['passingRunsOmitted'] for c in r['cases'])")" = True ] \
    && ok || fail "a case was not swept over every point"

name=mutant_over_the_pipe
# .NET sorts 2 and 3 elements with a compare-and-swap network, which happens to order the
# seed's A, B, C right; the comparer's flaw shows from 4 messages on (insertion sort).
"$TURNSTILE" certify --cases 'Merge.I2.*,Merge.O3.*' -- "$TURNSTILE" testee --mutant comparer-5825 >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'FAIL  Merge.I2.deterministic_long_mix' "$TMP/out" && ok || fail "$(tail -5 "$TMP/out")"

# A misbehaving testee: each problem is that case's error; the others pass.
name=misbehaving_testee
"$TURNSTILE" certify --timeout 2 --max-answer-bytes 100000 --no-repeat --report-json "$TMP/bad.json" \
    --cases 'Merge.I2.*,Merge.O1.out_of_order_timestamps,Merge.O2.*,Merge.M5.*,Merge.M6.*,Merge.R1.*,Merge.C2.text_deltas_coalesced,Merge.X1.*,Merge.X2.*,Merge.I3.*' \
    -- python3 conformance/certifier/testdata/misbehaving_testee.py "$TURNSTILE" >"$TMP/out" 2>&1
status=$?
python3 - "$TMP/bad.json" "$status" <<'PY' && ok || { fail "see below"; cat "$TMP/out" >&2; }
import json, sys
r = json.load(open(sys.argv[1]))
by = {c["id"]: c for c in r["cases"]}
def outcome(case, verdict, outcome):
    c = by[case]
    assert (c["verdict"], c["outcome"]) == (verdict, outcome), (case, c["verdict"], c["outcome"], c.get("detail"))
outcome("Merge.I2.no_timestamps_arrival_order", "error", "timeout")
outcome("Merge.O1.out_of_order_timestamps", "error", "crashed")
outcome("Merge.O2.equal_instants_arrival", "error", "protocol-error")
outcome("Merge.M5.default_role_assistant", "error", "protocol-error")
outcome("Merge.M6.announced_empty_message_kept", "error", "protocol-error")
assert "more than once" in by["Merge.M6.announced_empty_message_kept"]["detail"]
outcome("Merge.R1.latest_finish_reason_wins", "error", "exited")
outcome("Merge.C2.text_deltas_coalesced", "error", "protocol-error")
outcome("Merge.X1.unknown_fields_kept", "skipped", "unsupported")
outcome("Merge.X2.additional_properties_merged", "fail", "rejected")
assert "handling Merge.O1.out_of_order_timestamps" in by["Merge.O1.out_of_order_timestamps"].get("stderr", "")
others = [c for c in r["cases"] if c["id"].startswith(("Merge.I2.", "Merge.I3.")) and c["id"] != "Merge.I2.no_timestamps_arrival_order"]
assert others and all(c["verdict"] == "pass" for c in others), [c["id"] for c in others if c["verdict"] != "pass"]
assert r["testee"]["restarts"] >= 4, r["testee"]
assert sys.argv[2] == "1"
PY

# Expected failures, per (case, rule): exact, new failure, unexpected pass, stale entry (a merge
# mutant: its resume cases pass, and run once each, without a kill sweep).
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --write-expected-failures "$TMP/xfail" >/dev/null 2>&1
name=expected_failures_exact
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail" --junit "$TMP/x.xml" >"$TMP/out" 2>&1 \
    && tail -1 "$TMP/out" | grep -qE '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' && ! grep -qE '^(FAIL|ERROR) ' "$TMP/out" \
    && ok || fail "$(tail -3 "$TMP/out")"
name=expected_failures_junit_green
python3 - "$TMP/x.xml" <<'PY' && ok || fail "known failures are not <skipped> in JUnit"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("failures") == "0" and root.get("errors") == "0", root.attrib
assert not root.findall(".//failure") and not root.findall(".//error")
skipped = [s.get("message") for s in root.findall(".//skipped")]
assert any(m.startswith("expected failure") and "[O" in m for m in skipped), skipped[:3]
PY
name=expected_failures_lines_are_case_and_rule
[ "$(grep -v '^#' "$TMP/xfail" | awk '{print (NF >= 2 && $2 ~ /^([A-Z][A-Z0-9]*|timeout|crashed|exited|protocol-error)$/)}' | sort -u)" = 1 ] \
    && ok || fail "$(head -5 "$TMP/xfail")"
name=expected_failures_regression_in_a_listed_case
# The case keeps failing its listed rule; a second rule it now also fails is a new failure.
case_with_two=$(grep -v '^#' "$TMP/xfail" | awk '{print $1}' | uniq -d | head -1)
rule_dropped=$(grep "^$case_with_two " "$TMP/xfail" | tail -1 | awk '{print $2}')
grep -v "^$case_with_two $rule_dropped " "$TMP/xfail" >"$TMP/xfail.fewer"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.fewer" --junit "$TMP/x.xml" >"$TMP/out" 2>&1
[ $? -eq 1 ] && [ -n "$case_with_two" ] && grep -q "^NEW FAILURE     $case_with_two $rule_dropped " "$TMP/out" \
    && grep -q "^FAIL  $case_with_two" "$TMP/out" && [ "$(grep -c '^FAIL  ' "$TMP/out")" -eq 1 ] \
    && python3 -c "import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.get('failures')=='1', r.attrib" "$TMP/x.xml" \
    && ok || fail "[$case_with_two $rule_dropped] $(grep -E 'NEW|FAIL' "$TMP/out" | head -3)"
name=expected_failures_rule_wildcard
{ grep -v "^$case_with_two " "$TMP/xfail"; echo "$case_with_two *"; } >"$TMP/xfail.star"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.star" >"$TMP/out" 2>&1 && ok || fail "$(grep -E 'NEW|UNEXP|STALE' "$TMP/out" | head -3)"
name=expected_failures_unexpected_pass
{ cat "$TMP/xfail"; echo "Merge.I1.single_id_preserved I1  # passes"; } >"$TMP/xfail.more"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.more" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^UNEXPECTED PASS Merge.I1.single_id_preserved I1' "$TMP/out" && ok || fail "$(tail -3 "$TMP/out")"
name=expected_failures_stale_entry
{ cat "$TMP/xfail"; echo "Merge.No.such_case O1"; } >"$TMP/xfail.stale"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.stale" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^STALE ENTRY     Merge.No.such_case O1' "$TMP/out" && tail -1 "$TMP/out" | grep -qE ' 1 failed,' && ok || fail "$(tail -3 "$TMP/out")"
name=expected_failures_stale_rule
{ cat "$TMP/xfail"; echo "Merge.I1.single_id_preserved Q9"; } >"$TMP/xfail.rule"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.rule" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^STALE ENTRY     Merge.I1.single_id_preserved Q9 .*names no rule' "$TMP/out" && ok || fail "$(tail -3 "$TMP/out")"
name=expected_failures_wildcard_too_wide
{ cat "$TMP/xfail"; echo "Merge.I1.* *"; } >"$TMP/xfail.wide"
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --expected-failures "$TMP/xfail.wide" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^UNEXPECTED PASS Merge.I1.' "$TMP/out" && ok || fail "$(tail -3 "$TMP/out")"
name=expected_failures_outside_cases_not_stale
"$TURNSTILE" certify --mutant keyed-before-unkeyed --cases 'Merge.I1.*' --expected-failures "$TMP/xfail" >"$TMP/out" 2>&1 \
    && ! grep -q STALE "$TMP/out" && ok || fail "$(grep -E 'STALE|NEW|UNEXP' "$TMP/out" | head -3)"
name=expected_failures_outside_rules_not_unexpected
"$TURNSTILE" certify --mutant keyed-before-unkeyed --rules I2 --expected-failures "$TMP/xfail" >"$TMP/out" 2>&1 \
    && ! grep -qE 'STALE|UNEXPECTED' "$TMP/out" && ok || fail "$(grep -E 'STALE|NEW|UNEXP' "$TMP/out" | head -3)"
name=expected_failures_one_field_is_an_error
printf 'Merge.I1.single_id_preserved\n' >"$TMP/xfail.old"
"$TURNSTILE" certify --reference --expected-failures "$TMP/xfail.old" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "xfail.old:1: expected 'CASE RULE'" "$TMP/out" && ok || fail "$(tail -2 "$TMP/out")"

# Every printed command works as printed: each replay line reruns its one case with the same
# options; the "to accept" line rewrites the list so that the gate then passes. (A merge mutant:
# --kill-points none spares the resume cases' kill sweep, a new process at each point.)
name=printed_replay_commands_run
mkdir -p "$TMP/with space"
cp "$TMP/xfail.fewer" "$TMP/with space/known list.txt"
"$TURNSTILE" certify --timeout=4 --no-repeat --kill-points none --expected-failures "$TMP/with space/known list.txt" \
    -- "$TURNSTILE" testee --mutant keyed-before-unkeyed >"$TMP/out" 2>&1
replays=$(sed -n 's/^ *replay: //p' "$TMP/out")
[ -n "$replays" ] && while IFS= read -r line; do
    bash -c "$line" >"$TMP/replay" 2>&1
    status=$?
    id=$(printf '%s' "$line" | sed 's/.* --cases \([^ ]*\) .*/\1/')
    [ $status -eq 1 ] && tail -1 "$TMP/replay" | grep -qE '^0 passed, 1 failed, 0 skipped$' && grep -q "^FAIL  $id" "$TMP/replay" \
        && grep -q ' --timeout 4 --no-repeat --kill-points none' <<<"$line" || { echo "$line"; tail -3 "$TMP/replay"; exit 1; }
done <<<"$replays" >"$TMP/replay.log" && ok || fail "$(cat "$TMP/replay.log")"
name=printed_accept_command_runs
accept=$(sed -n 's/^to accept the current failures: //p' "$TMP/out")
[ -n "$accept" ] && bash -c "$accept" >/dev/null 2>&1; [ $? -eq 1 ] \
    && "$TURNSTILE" certify --no-repeat --timeout 4 --kill-points none --expected-failures "$TMP/with space/known list.txt" \
        -- "$TURNSTILE" testee --mutant keyed-before-unkeyed >"$TMP/out2" 2>&1 \
    && ok || fail "[$accept] $(tail -3 "$TMP/out2" 2>/dev/null)"

# Usage errors are found before any testee starts; harness failures have their own status.
name=cases_matching_nothing_is_an_error
"$TURNSTILE" certify --reference --cases 'Merge.No.*' >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "matches no case" "$TMP/out" && ok || fail "$(tail -2 "$TMP/out")"
name=unwritable_outputs_found_before_the_run
for option in --junit --report-json --write-expected-failures; do
    rm -f "$TMP/started"
    "$TURNSTILE" certify "$option" "$TMP/no/such/dir/r" -- sh -c "touch '$TMP/started'; exec '$TURNSTILE' testee" >"$TMP/out" 2>&1
    [ $? -eq 2 ] && [ ! -e "$TMP/started" ] && grep -q -- "$option .*cannot write" "$TMP/out" || { echo "$option"; cat "$TMP/out"; }
done >"$TMP/unwritable.log" 2>&1
[ ! -s "$TMP/unwritable.log" ] && ok || fail "$(cat "$TMP/unwritable.log")"
name=testee_that_cannot_start_is_exit_3
"$TURNSTILE" certify -- "$TMP/no-such-testee" >"$TMP/out" 2>&1
[ $? -eq 3 ] && ok || fail "$(tail -2 "$TMP/out")"
name=report_json_dash_is_stdout
"$TURNSTILE" certify --reference --cases 'Merge.I1.*' --report-json - >"$TMP/stdout.json" 2>"$TMP/err" \
    && [ ! -e ./- ] && json "$TMP/stdout.json" "r['summary']['cases']" >/dev/null && grep -q ' passed, 0 failed' "$TMP/err" \
    && ok || fail "stdout is not the JSON report"
name=option_equals_value
"$TURNSTILE" certify --reference --cases=Merge.I1.single_id_preserved --report-json="$TMP/eq.json" >"$TMP/out" 2>&1 \
    && [ "$(json "$TMP/eq.json" "r['summary']['cases']")" -eq 1 ] && ok || fail "$(tail -2 "$TMP/out")"

# The report stands as a certificate.
name=report_is_a_certificate
"$TURNSTILE" certify --kill-points none --report-json "$TMP/cert.json" -- "$TURNSTILE" testee --mutant keyed-before-unkeyed >/dev/null 2>&1
python3 - "$TMP/cert.json" "$TURNSTILE" <<'PY' && ok || fail "see above"
import json, re, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "not conformant", r["verdict"]
assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", r["date"]), r["date"]
assert r["turnstile"]["version"] and r["turnstile"]["commit"], r["turnstile"]
assert r["suite"]["version"] and re.match("^[0-9a-f]{64}$", r["suite"]["sha256"]), r["suite"]
assert r["testee"]["name"] == "turnstile-mutant-keyed-before-unkeyed" and r["testee"]["version"] == "1", r["testee"]
assert "/" not in r["testee"]["command"], r["testee"]["command"]  # no build or temp paths
req = r["levels"]["Required"]
assert 0 < req["rulesPassed"] < req["rulesJudged"], req
assert sys.argv[2] not in json.dumps(r)
PY
name=platform_dotnet_sets_cases_apart
"$TURNSTILE" certify --reference --platform dotnet --cases 'Merge.*' --report-json "$TMP/apart.json" --junit "$TMP/apart.xml" >"$TMP/out" 2>&1 \
    && [ "$(json "$TMP/apart.json" "r['summary']['apart']")" -eq 46 ] && grep -q '^set apart (--platform dotnet): 46 cases' "$TMP/out" \
    && [ "$(json "$TMP/apart.json" "sum(1 for c in r['cases'] if c.get('apart'))")" -eq 46 ] \
    && grep -q 'set apart (--platform dotnet): offset-beyond-14h' "$TMP/apart.xml" && ok || fail "$(tail -4 "$TMP/out")"
name=builtin_suite_from_anywhere
(cd "$TMP" && env -u TURNSTILE_SUITE "$TURNSTILE" certify --reference >"$TMP/out" 2>&1) \
    && tail -1 "$TMP/out" | grep -qE '^2[0-9]{2} passed, 0 failed, 0 skipped$' && ok || fail "$(tail -2 "$TMP/out")"
name=suite_hash_same_built_in_and_directory
[ "$(json "$TMP/ref.json" "r['suite']['sha256']")" = "$(env -u TURNSTILE_SUITE "$TURNSTILE" --version | sed -n 's/.*sha256 \([0-9a-f]*\).*/\1/p')" ] \
    && ok || fail "the directory suite and the built-in one differ"
name=progress_only_when_asked_or_on_a_terminal
"$TURNSTILE" certify --reference --cases 'Merge.I1.*' >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ] \
    && "$TURNSTILE" certify --reference --cases 'Merge.I1.*' --progress >/dev/null 2>"$TMP/err" && grep -qE "\[([0-9]+)/\\1\]" "$TMP/err" \
    && ok || fail "progress shown when not asked, or not shown when asked"

name=select_by_rules_and_cases
"$TURNSTILE" certify --reference --rules I3 --report-json "$TMP/sel.json" >/dev/null 2>&1
[ "$(json "$TMP/sel.json" "all('I3' in c['rules'] for c in r['cases']) and [x['id'] for x in r['rules']] == ['I3']")" = True ] && ok || fail "--rules"
"$TURNSTILE" certify --reference --cases 'Host.*' --report-json "$TMP/sel.json" >/dev/null 2>&1
[ "$(json "$TMP/sel.json" "len(r['cases']) == 11 and all(c['op'] == 'host' for c in r['cases'])")" = True ] && ok || fail "--cases"

name=check_recorded_pair
"$TURNSTILE" check --stream conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.input.jsonl \
    --response conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.expected.json >"$TMP/out" 2>&1 && grep -q '^PASS' "$TMP/out" && ok || fail "$(cat "$TMP/out")"
python3 -c "
import json; r = json.load(open('conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.expected.json'))
r['messages'] = [r['messages'][1], r['messages'][2], r['messages'][0]]; json.dump(r, open('$TMP/bad.json', 'w'))"
"$TURNSTILE" check --stream conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.input.jsonl --response "$TMP/bad.json" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q '^\[O1\]' "$TMP/out" && ok || fail "broken pair not caught: $(cat "$TMP/out")"

# The Python resume kit: an engine of another design (parallel tools, a flat message list saved
# after every step) passes every universal rule at every kill point. A few cases: each kill
# starts a Python process.
name=kit_python_resume
"$TURNSTILE" certify --cases 'Resume.U3.signal_while_tool_pending,Resume.U5.sync_tool_beside_async,Resume.U6.failing_and_unknown_tools' \
    -- "$(python3 -c 'import sys; print(sys.executable)')" conformance/testees/python-resume/testee.py >"$TMP/out" 2>&1 \
    && tail -1 "$TMP/out" | grep -qE '^3 passed, 0 failed, 0 skipped$' && ok || fail "$(tail -5 "$TMP/out")"

for kit in "c-minimal:$C_KIT" "python-minimal:python3 conformance/testees/python-minimal/testee.py" \
           "node-minimal:node conformance/testees/node-minimal/testee.js"; do
    name="kit_${kit%%:*}"
    # shellcheck disable=SC2086
    "$TURNSTILE" certify --expected-failures "conformance/testees/${kit%%:*}/expected-failures.txt" -- ${kit#*:} >"$TMP/out" 2>&1 \
        && ok || fail "$(grep -E 'NEW|UNEXPECTED|STALE' "$TMP/out" | head -5; tail -2 "$TMP/out")"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
