#!/usr/bin/env bash
# hostile_test.sh — the certifier against hostile testees (issue 13 items 2, 4, 12, 13; issue 14
# harness failures). For each testee the exact verdict of every case is asserted, and that no
# process it started is left: every run carries a marker in its environment, and /proc is
# searched for live processes that carry it (zombies are dead and not counted).
#
#   * hang, crash, die between two requests (while something it started holds stdout), crash
#     between two requests, close stdout and keep running, answer twice (at once, late, after
#     the last request), answer for the wrong case, answer hello twice, setsid a grandchild,
#     ignore SIGTERM, flood stderr, a 100 MB line, fork a child into another process group;
#   * a testee that cannot start (no such command, exits at once, never answers) is a harness
#     failure: exit status 3, in a few starts, with its stderr;
#   * the certifier killed by SIGTERM, SIGHUP, SIGINT (to its process group, as Ctrl-C does),
#     SIGKILL (to it, and to its process group as a CI timeout does), SIGSEGV (a crash), and
#     its testee's supervisor killed: nothing it started survives;
#   * resume testees (issue 20) that build a directory chain 1950 deep in their store, flood or
#     trickle commit notices, write into their store after the case, answer a read with 40,000
#     messages: each bound is the case's own harness outcome, no store is left in $TMPDIR (also
#     when the certifier is killed by SIGTERM, SIGHUP or SIGINT mid-case), nothing hangs;
#   * a hello name with terminal escapes reaches no report raw; reports and lists are never
#     truncated by a run that is killed or whose testee cannot start.
set -u
TURNSTILE=$(realpath "${1:?usage: hostile_test.sh TURNSTILE [merge|resume]}")
PART=${2:-all} # merge: the testees of merge cases and the certifier killed; resume: issue 20's
HOSTILE=$(realpath conformance/certifier/hostile/hostile_testee.py)
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE
TMP=$(mktemp -d)
MARK="TS_HOSTILE_$$_$RANDOM"
trap 'kill_marked; rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }

# Live processes (not zombies) whose environment carries this run's marker.
marked() {
    local f pid state
    for f in /proc/[0-9]*/environ; do
        pid=${f#/proc/}; pid=${pid%/environ}
        [ "$pid" = $$ ] && continue
        grep -qa "$MARK=" "$f" 2>/dev/null || continue
        state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
        [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ] && echo "$pid:$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-60)"
    done
}
kill_marked() { local p; for p in $(marked | cut -d: -f1); do kill -9 "$p" 2>/dev/null; done; }
# Asserts that no marked process is alive now, or (with a number) within that many seconds.
none_left() {
    local wait=${1:-0} left
    for _ in $(seq 0 $((wait * 10))); do
        left=$(marked)
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "left behind: $left"
    kill_marked
    return 1
}

# run_hostile MODE TARGET [certify options...]: certifies the hostile testee on Merge.I2.*
# (10 cases); sets $status, $elapsed (s) and $TMP/r.json.
run_hostile() {
    local mode=$1 target=$2 start
    shift 2
    rm -f "$TMP/r.json"
    start=$(date +%s%N)
    env "$MARK=1" "$TURNSTILE" certify --cases 'Merge.I2.*' --report-json "$TMP/r.json" "$@" \
        -- python3 "$HOSTILE" "$TURNSTILE" "$mode" "$target" >"$TMP/out" 2>"$TMP/err"
    status=$?
    elapsed=$((($(date +%s%N) - start) / 1000000000))
}

# verdicts EXIT 'CASE VERDICT OUTCOME DETAIL-SUBSTRING' ...: exactly these cases are not
# "pass", each as given (DETAIL-SUBSTRING may be empty); the run exits EXIT.
verdicts() {
    local want_status=$1
    shift
    python3 - "$TMP/r.json" "$status" "$want_status" "$@" <<'PY' || { fail "see above"; tail -5 "$TMP/err" >&2; }
import json, sys
report, status, want_status, wanted = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
r = json.load(open(report))
got = {c["id"]: c for c in r["cases"] if c["verdict"] != "pass"}
problems = []
if status != want_status:
    problems.append("exit status %s, not %s" % (status, want_status))
if len(r["cases"]) != 10:
    problems.append("%d cases, not 10" % len(r["cases"]))
expected = {}
for w in wanted:
    case, verdict, outcome, detail = (w.split(" ", 3) + [""])[:4]
    expected[case] = (verdict, outcome, detail)
for case, (verdict, outcome, detail) in expected.items():
    c = got.get(case)
    text = c and (c.get("detail", "") + " " + " ".join(f["message"] for f in c.get("findings", [])))
    if not c or c["verdict"] != verdict or c.get("outcome") != outcome or detail not in text:
        problems.append("%s: %s, not %s %s '%s'" % (case, c and (c["verdict"], c.get("outcome"), text), verdict, outcome, detail))
for case in set(got) - set(expected):
    problems.append("%s: %s %s %s (should pass)" % (case, got[case]["verdict"], got[case].get("outcome"), got[case].get("detail")))
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
}

T=Merge.I2.call_result_assistant    # the target: third of the ten
if [ "$PART" != resume ]; then
NEXT=Merge.I2.timestamps_go_backwards # sent after it
PREV=Merge.I2.mixed_untimestamped_keep_order # sent after it in the reverse (D1) pass
LAST=Merge.I2.gen_ts_untimed_05

name=hang
run_hostile hang "$T" --timeout 2
verdicts 1 "$T error timeout no answer within 2 s" && none_left && ok
name=crash
run_hostile crash "$T"
verdicts 1 "$T error crashed killed by signal 11" && none_left && ok
name=die_between_requests_while_a_helper_holds_stdout
run_hostile die-between "$T" --timeout 60
verdicts 1 "$NEXT error exited exited with status 3" "$PREV fail answered exited with status 3" && none_left && ok
[ "$elapsed" -lt 30 ] || fail "took ${elapsed}s: the death was not seen at once"
name=crash_between_requests
run_hostile crash-between "$T" --timeout 60
verdicts 1 "$NEXT error crashed killed by signal 9" "$PREV fail answered killed by signal 9" && none_left && ok
[ "$elapsed" -lt 30 ] || fail "took ${elapsed}s: the death was not seen at once"
name=close_stdout_and_keep_running
run_hostile close-stdout "$T" --timeout 60
verdicts 1 "$T error protocol-error closed its stdout and kept running" && none_left && ok
grep -q 'signal 9' "$TMP/out" && fail "the certifier's own SIGKILL was reported"
name=answer_twice
run_hostile answer-twice "$T"
verdicts 1 "$T error protocol-error answered this request more than once" && none_left && ok
name=answer_twice_late
run_hostile answer-twice-late "$T"
verdicts 1 "$T error protocol-error answered this request more than once" && none_left && ok
name=answer_the_last_request_twice
run_hostile answer-twice-late "$LAST"
verdicts 1 "$LAST error protocol-error answered this request more than once" && none_left && ok
name=answer_the_last_request_twice_no_repeat
run_hostile answer-twice-late "$LAST" --no-repeat
verdicts 1 "$LAST error protocol-error answered this request more than once" && none_left && ok
name=answer_for_the_wrong_case
run_hostile wrong-case "$T"
verdicts 1 "$T error protocol-error the answer is for id \"Merge.No.such_case\"" && none_left && ok
name=answer_hello_twice
run_hostile hello-twice "$T"
verdicts 0 && none_left && ok
name=setsid_grandchild
run_hostile setsid-grandchild "$T"
verdicts 0 && none_left && ok
name=ignore_sigterm
run_hostile ignore-sigterm "$T" --timeout 2
verdicts 1 "$T error timeout no answer within 2 s" && none_left && ok
name=flood_stderr
run_hostile flood-stderr "$T"
verdicts 0 && none_left && ok
name=line_of_100_MB
run_hostile huge-line "$T"
verdicts 1 "$T error protocol-error the answer exceeds 16777216 bytes" && none_left && ok
name=child_in_another_process_group
run_hostile fork-and-hang "$T" --timeout 2
verdicts 1 "$T error timeout no answer within 2 s" && none_left && ok

# A testee that cannot start: exit status 3 (harness failure, no verdict), in 3 starts.
harness_failure() { # EXPECTED-TEXT COMMAND...
    local text=$1 start
    shift
    start=$(date +%s)
    env "$MARK=1" "$TURNSTILE" certify --timeout 2 --start-timeout 2 -- "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
    elapsed=$(($(date +%s) - start))
    [ "$status" -eq 3 ] && grep -qF "$text" "$TMP/err" && grep -qF 'no verdict (exit 3)' "$TMP/err" && none_left && ok \
        || fail "exit $status after ${elapsed}s: $(tail -3 "$TMP/err")"
}
name=no_such_command
harness_failure "cannot run /no/such/testee: No such file or directory" /no/such/testee
name=exits_at_once
harness_failure "could not be started: it never answered" python3 "$HOSTILE" "$TURNSTILE" exit-at-once
[ "$elapsed" -lt 20 ] || fail "took ${elapsed}s"
name=exits_at_once_shows_its_stderr
harness_failure "can't open file" python3 /no/such/testee.py
name=exits_at_once_status_0
harness_failure "(the last exited with status 0 before answering)" true
name=never_answers
harness_failure "(the last did not read its first request within 2 s of its start (--start-timeout))" sleep 100000

# The certifier killed mid-run. The testee has a grandchild in a session of its own and
# ignores SIGTERM, SIGHUP and SIGINT; the run hangs on its third case.
kill_certifier() { # SIGNAL pid|group SECONDS-ALLOWED
    local sig=$1 how=$2 allowed=$3 pid
    set -m # the certifier gets a process group of its own and SIGINT not ignored, as in a shell
    env "$MARK=1" "$TURNSTILE" certify --timeout 60 --cases 'Merge.I2.*' \
        -- python3 "$HOSTILE" "$TURNSTILE" setsid-grandchild,ignore-sigterm "$T" >"$TMP/out" 2>&1 &
    pid=$!
    set +m
    for _ in $(seq 100); do # until the grandchild runs (then the third case is soon in flight)
        marked | grep -q 'sleep 100000' && break
        sleep 0.1
    done
    sleep 0.5
    if [ "$how" = group ]; then kill -s "$sig" -- "-$pid"; else kill -s "$sig" "$pid"; fi
    wait "$pid"
    status=$?
    local want=$((128 + $(kill -l "$sig")))
    # Under a sanitizer a SIGSEGV is its report and an abort (134): a crash either way.
    [ "$status" -eq "$want" ] || { [ "$sig" = SEGV ] && [ "$status" -gt 128 ]; } || fail "exit status $status, not $want"
    none_left "$allowed" && ok
}
name=certifier_sigterm; kill_certifier TERM pid 0
name=certifier_sighup; kill_certifier HUP pid 0
name=certifier_sigint_to_its_group; kill_certifier INT group 0
name=certifier_sigquit; kill_certifier QUIT pid 0
# Without a handler (or a sanitizer's): the supervisor notices (parent-death signal) and
# clears the tree.
name=certifier_sigkill; kill_certifier KILL pid 5
name=certifier_sigkill_to_its_group; kill_certifier KILL group 5
name=certifier_sigsegv; kill_certifier SEGV pid 5

name=supervisor_killed
env "$MARK=1" "$TURNSTILE" certify --timeout 5 --no-repeat --cases 'Merge.I2.*' --report-json "$TMP/r.json" \
    -- python3 "$HOSTILE" "$TURNSTILE" setsid-grandchild,hang "$T" >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do marked | grep -q 'sleep 100000' && break; sleep 0.1; done
sleep 0.5
supervisor=$(pgrep -P "$pid" | head -1)
[ -n "$supervisor" ] && kill -9 "$supervisor"
wait "$pid"
status=$?
python3 -c "
import json, sys; r = json.load(open('$TMP/r.json')); c = {c['id']: c for c in r['cases']}['$T']
sys.exit(0 if (c['verdict'], c['outcome']) == ('error', 'crashed') else 1)" && [ "$status" -eq 1 ] && none_left && ok \
    || fail "exit $status; $(tail -3 "$TMP/out")"

fi # merge
if [ "$PART" != merge ]; then

# ---- resume testees (issue 20): bounds on what a testee controls, stores removed ----------------
RESUME_TARGET=Resume.U2.three_simple_turns
RESUME_OTHER=Resume.U2.turn_with_two_tools
# run_resume MODE [certify options...]: the two resume cases, the hostile mode on the first; a
# TMPDIR of its own (checked for stores left behind); sets $status, $elapsed and $TMP/r.json.
run_resume() {
    local mode=$1 start
    shift
    rm -rf "$TMP/r.json" "$TMP/tmpdir"
    mkdir "$TMP/tmpdir"
    start=$(date +%s%N)
    env "$MARK=1" TMPDIR="$TMP/tmpdir" "$TURNSTILE" certify --cases "$RESUME_TARGET,$RESUME_OTHER" --report-json "$TMP/r.json" \
        "$@" -- python3 "$HOSTILE" "$TURNSTILE" "$mode" "$RESUME_TARGET" >"$TMP/out" 2>"$TMP/err"
    status=$?
    elapsed=$((($(date +%s%N) - start) / 1000000000))
}
# resume_verdict EXIT VERDICT OUTCOME DETAIL: the target case ends so, the other passes.
resume_verdict() {
    python3 - "$TMP/r.json" "$status" "$@" "$RESUME_TARGET" "$RESUME_OTHER" <<'PY' || { fail "see above"; tail -5 "$TMP/err" >&2; }
import json, sys
report, status, want_status, verdict, outcome, detail, target, other = sys.argv[1:]
r = {c["id"]: c for c in json.load(open(report))["cases"]}
problems = []
if status != want_status:
    problems.append("exit status %s, not %s" % (status, want_status))
c = r[target]
if (c["verdict"], c["outcome"]) != (verdict, outcome) or detail not in c.get("detail", ""):
    problems.append("%s: %s %s %r, not %s %s %r" % (target, c["verdict"], c["outcome"], c.get("detail"), verdict, outcome, detail))
if r[other]["verdict"] != "pass":
    problems.append("%s: %s %s" % (other, r[other]["verdict"], r[other].get("detail")))
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
}
no_store_left() {
    local left
    left=$(find "$TMP/tmpdir" -mindepth 1 -maxdepth 1 -name 'turnstile-resume-*' 2>/dev/null)
    [ -z "$left" ] || { fail "stores left in \$TMPDIR: $left"; rm -rf "$TMP/tmpdir"; mkdir "$TMP/tmpdir"; return 1; }
}

name=resume_store_chain_1950_deep
# Under the file-system observer every mkdir of the chain stops the testee and the kernel walks the
# whole chain to name it: seconds on a loaded machine, so the answer gets 30 s, not 5.
run_resume deep-store --kill-points 2 --timeout 30
resume_verdict 1 error store-limit "deeper than 64 levels" && none_left && ok
# With --jobs (default: the cores) each worker that played the case has a store directory of its
# own, so one or two are left: each is named.
left=$(find "$TMP/tmpdir" -mindepth 1 -maxdepth 1 -name 'turnstile-resume-*')
[ -n "$left" ] || fail "no store left"
for dir in $left; do grep -q "left in $dir" "$TMP/out" || fail "the store left ($dir) is not named: $(grep -m1 ERROR "$TMP/out")"; done
rm -rf "$TMP/tmpdir"
name=resume_commit_notices_without_end
run_resume commit-flood --kill-points 2
resume_verdict 1 error point-limit "more than 1000 world calls and commit notices during one action" && none_left && no_store_left && ok
[ "$elapsed" -lt 60 ] || fail "took ${elapsed}s"
name=resume_commit_notices_lower_cap
run_resume commit-flood --kill-points 2 --max-points-per-action 50
resume_verdict 1 error point-limit "more than 50 world calls" && none_left && no_store_left && ok
name=resume_commit_notices_trickle_case_timeout
run_resume commit-trickle --kill-points 2 --case-timeout 4
resume_verdict 1 error case-timeout "deadline" && none_left && no_store_left && ok
[ "$elapsed" -lt 40 ] || fail "took ${elapsed}s: the case deadline did not end it"
grep -qE '^ERROR +Resume.U2.three_simple_turns +case-timeout: ' "$TMP/out" || fail "no case-timeout line in the text report"
name=resume_writes_after_the_case
run_resume write-after-cleanup --kill-points 1
resume_verdict 0 pass answered "" && none_left && no_store_left && ok
name=resume_read_of_40000_messages
run_resume long-read --kill-points 1
resume_verdict 1 fail answered "" && none_left && no_store_left && ok
[ "$elapsed" -lt 120 ] || fail "took ${elapsed}s"
grep -q 'U3\|U2' "$TMP/out" || fail "no finding on the read: $(grep -A2 FAIL "$TMP/out" | head -3)"
name=resume_line_quoted_cut_inside_a_character
# The outcome's detail quotes 200 bytes of the testee's line, here cut inside a character: the run's
# history and the report stay valid UTF-8 (U+FFFD, the JSON writer's), so the report loads and the
# run is judged (main wrote the broken byte: a history the judge could not parse).
run_resume cut-utf8 --kill-points 1
python3 -c "open('$TMP/r.json', encoding='utf-8', errors='strict').read()" 2>/dev/null || fail "the report is not valid UTF-8"
grep -q "$(printf 'line without this case.*a\357\277\275')" "$TMP/r.json" || fail "no U+FFFD where the line was cut"
resume_verdict 1 error protocol-error "a line without this case" && none_left && no_store_left && ok

# The certifier killed while a resume case is in flight (its testee hangs, a writer it started
# keeps writing into the store): no store is left, nor any process.
kill_certifier_in_resume() { # SIGNAL
    local pid
    rm -rf "$TMP/tmpdir"
    mkdir "$TMP/tmpdir"
    set -m
    env "$MARK=1" TMPDIR="$TMP/tmpdir" "$TURNSTILE" certify --timeout 60 --cases "$RESUME_TARGET" \
        -- python3 "$HOSTILE" "$TURNSTILE" hang-resume "$RESUME_TARGET" >"$TMP/out" 2>&1 &
    pid=$!
    set +m
    for _ in $(seq 100); do # until the writer has written
        [ -n "$(find "$TMP/tmpdir" -name late 2>/dev/null)" ] && break
        sleep 0.1
    done
    kill -s "$1" "$pid"
    wait "$pid"
    status=$?
    [ "$status" -eq $((128 + $(kill -l "$1"))) ] || fail "exit status $status"
    none_left 5 && no_store_left && ok
}
name=resume_certifier_sigterm_removes_stores; kill_certifier_in_resume TERM
name=resume_certifier_sighup_removes_stores; kill_certifier_in_resume HUP
name=resume_certifier_sigint_removes_stores; kill_certifier_in_resume INT

# ---- what the testee says reaches no terminal raw; outputs never truncated -------------------------
name=hello_with_terminal_escapes
rm -f "$TMP/list.new"
run_hostile escape-hello "$T" --junit "$TMP/r.xml" --write-expected-failures "$TMP/list.new"
before=$failed
verdicts 0
if grep -qaP '\x1b|\x07' "$TMP/out" "$TMP/err"; then fail "a terminal escape reached the text report"; fi
grep -qF 'evil\x1b]0;owned\x07' "$TMP/out" || fail "the name is not shown escaped: $(head -1 "$TMP/out" | cat -v)"
python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$TMP/r.xml" || fail "the JUnit report is not XML"
[ "$(grep -c . "$TMP/list.new")" -eq 2 ] && ! grep -q '^Merge' "$TMP/list.new" || fail "the name broke the list's comment: $(cat -v "$TMP/list.new")"
for form in --markdown --html; do # the compliance table of that report
    "$TURNSTILE" report "$TMP/r.json" "$form" >"$TMP/table" 2>&1 || fail "report $form: $(tail -2 "$TMP/table")"
    if grep -qaP '\x1b|\x07' "$TMP/table"; then fail "a terminal escape reached report $form"; fi
done
[ "$failed" -eq "$before" ] && ok

# A certifier killed by SIGTERM mid-run (a CI step's timeout) leaves a partial certificate: the JSON
# report marked incomplete, with what was decided and the case in flight, and JUnit that is never
# green; the expected-failures list stays as it was (no verdict), and so does every output of a
# certifier killed by SIGKILL, or whose testee cannot start.
name=outputs_partial_after_sigterm
for f in r.json r.xml list; do printf 'OLD %s\n' "$f" >"$TMP/keep.$f"; done
env "$MARK=1" "$TURNSTILE" certify --timeout 60 --cases 'Merge.I2.*' --report-json "$TMP/keep.r.json" --junit "$TMP/keep.r.xml" \
    --write-expected-failures "$TMP/keep.list" -- python3 "$HOSTILE" "$TURNSTILE" hang "$T" >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do marked | grep -q ':python3 ' && break; sleep 0.1; done
sleep 2 # the third case (the hang) is in flight
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 143 ] || fail "exit $status, not 143 (SIGTERM)"
python3 - "$TMP/keep.r.json" "$T" <<'PY' || fail "r.json: $(head -c 300 "$TMP/keep.r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "incomplete" and r["incomplete"] is True and r["interruptedBy"] == 15, r["verdict"]
assert r["inFlight"] == [sys.argv[2]], r["inFlight"]
assert len(r["cases"]) == 2 and all(c["verdict"] == "pass" for c in r["cases"]), [c["id"] for c in r["cases"]]
assert r["notRun"] > 0
PY
grep -q '<error type="incomplete"' "$TMP/keep.r.xml" || fail "r.xml: $(head -c 300 "$TMP/keep.r.xml")"
[ "$(cat "$TMP/keep.list")" = "OLD list" ] || fail "list: $(head -c 100 "$TMP/keep.list")"
grep -q 'verdict: INCOMPLETE' "$TMP/out" || fail "no INCOMPLETE verdict in the text: $(tail -3 "$TMP/out")"
[ -z "$(find "$TMP" -maxdepth 1 -name '.keep.*')" ] || fail "temporary files left: $(ls -a "$TMP")"
none_left 5 && ok
name=outputs_survive_sigkill
for f in r.json r.xml list; do printf 'OLD %s\n' "$f" >"$TMP/keep.$f"; done
env "$MARK=1" "$TURNSTILE" certify --timeout 60 --cases 'Merge.I2.*' --report-json "$TMP/keep.r.json" --junit "$TMP/keep.r.xml" \
    --write-expected-failures "$TMP/keep.list" -- python3 "$HOSTILE" "$TURNSTILE" hang "$T" >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do marked | grep -q ':python3 ' && break; sleep 0.1; done
sleep 2
kill -KILL "$pid"
wait "$pid"
for f in r.json r.xml list; do [ "$(cat "$TMP/keep.$f")" = "OLD $f" ] || fail "$f: $(head -c 100 "$TMP/keep.$f")"; done
none_left 10 && ok
rm -f "$TMP"/.keep.* # a SIGKILL leaves its temporary files: nothing runs to remove them
name=outputs_survive_a_testee_that_cannot_start
env "$MARK=1" "$TURNSTILE" certify --report-json "$TMP/keep.r.json" --junit "$TMP/keep.r.xml" \
    --write-expected-failures "$TMP/keep.list" -- /no/such/testee >"$TMP/out" 2>&1
status=$?
for f in r.json r.xml list; do [ "$(cat "$TMP/keep.$f")" = "OLD $f" ] || fail "$f: $(head -c 100 "$TMP/keep.$f")"; done
[ "$status" -eq 3 ] && [ -z "$(find "$TMP" -maxdepth 1 -name '.keep.*')" ] && ok || fail "exit $status"

fi # resume

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
