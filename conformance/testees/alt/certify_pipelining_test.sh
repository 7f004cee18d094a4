#!/usr/bin/env bash
# certify_pipelining_test.sh — a pipelined engine is graded as it is (issue 24). resume-alt-eventlog
# writes an answer's tool calls (and its commit notices) before it reads the replies, which
# PROTOCOL.md allows; a kill that lands before it acted on the replies it already had sees a tool
# run again and grades it at-least-once (U7). The certifier sees the pipelining and settles its
# kills on its own. Certified without --kill-settle on two cases that run tools, this requires:
#   - the text report's "pipelining:" line names both cases and the --kill-settle the testee needs,
#     and the JSON report's testee object says the same ("pipelining");
#   - every kill waited for the testee to settle, and no U7 finding (the engine is exactly-once);
#   - with --kill-settle 0 (never settle) the report says the kills were not settled, and every U7
#     finding says that its kill was not settled and which --kill-settle to use;
#   - a testee that waits for each reply (python-resume) is never said to pipeline.
#
#   usage: certify_pipelining_test.sh TURNSTILE EVENTLOG_TESTEE_PY PYTHON_RESUME_TESTEE_PY
set -u
TURNSTILE=$(realpath "${1:?usage: certify_pipelining_test.sh TURNSTILE EVENTLOG_PY PYTHON_RESUME_PY}")
EVENTLOG=$(realpath "$2")
PLAIN=$(realpath "$3")
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export TMPDIR=$TMP
CASES=(--cases Resume.U2.turn_with_two_tools --cases Resume.U9.tools_and_signals_across_turns --nemesis protocol)
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$TURNSTILE" certify "${CASES[@]}" --report-json "$TMP/auto.json" -- python3 "$EVENTLOG" >"$TMP/auto.txt" 2>&1
status=$?
[ "$status" = 0 ] || fail "certify (settling on its own) exited $status"
line=$(grep '^pipelining: ' "$TMP/auto.txt")
for want in Resume.U2.turn_with_two_tools Resume.U9.tools_and_signals_across_turns "it needs --kill-settle [0-9]"; do
    grep -q -- "$want" <<<"$line" || fail "the pipelining line lacks '$want': $line"
done
grep -q 'did not' <<<"$line" && fail "a kill was not settled although pipelining was seen first: $line"
python3 - "$TMP/auto.json" <<'PY' || failed=1
import json, sys
report = json.load(open(sys.argv[1]))
p = report["testee"].get("pipelining")
problems = []
if not p or sorted(p["cases"]) != ["Resume.U2.turn_with_two_tools", "Resume.U9.tools_and_signals_across_turns"]:
    problems.append("testee.pipelining should name both cases: %r" % (p,))
elif p["killSettleMs"] < 200 or p["settledKillRuns"] == 0 or p["unsettledKillRuns"] != 0:
    problems.append("testee.pipelining: every kill settled, --kill-settle at least 200: %r" % (p,))
for case in report["cases"]:
    if not case["history"].get("pipelining", {}).get("lines"):
        problems.append("%s: its history says nothing of pipelining" % case["id"])
    problems += ["%s: settled, yet %s: %s" % (case["id"], f["rule"], f["message"]) for f in case["findings"] if f["rule"] == "U7"]
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

"$TURNSTILE" certify "${CASES[@]}" --kill-settle 0 --report-json "$TMP/off.json" -- python3 "$EVENTLOG" >"$TMP/off.txt" 2>&1
status=$?
[ "$status" = 0 ] || fail "certify --kill-settle 0 exited $status"
grep -q '^pipelining: .*did not (killed before pipelining was seen, or --kill-settle 0)' "$TMP/off.txt" ||
    fail "--kill-settle 0: the report should say the kills were not settled: $(grep '^pipelining' "$TMP/off.txt")"
python3 - "$TMP/off.json" <<'PY' || failed=1
import json, sys
report = json.load(open(sys.argv[1]))
p = report["testee"].get("pipelining") or {}
bad = [] if p.get("unsettledKillRuns") and not p.get("settledKillRuns") else ["--kill-settle 0 settled kills: %r" % (p,)]
bad += ["%s: a U7 finding that does not say its kill was unsettled: %s" % (c["id"], f["message"])
        for c in report["cases"] for f in c["findings"]
        if f["rule"] == "U7" and "was not settled first" not in f["message"]]
for b in bad:
    print("FAIL:", b)
print("--kill-settle 0: %d U7 findings, each saying its kill was not settled" %
      sum(f["rule"] == "U7" for c in report["cases"] for f in c["findings"]))
sys.exit(1 if bad else 0)
PY

"$TURNSTILE" certify "${CASES[@]}" --kill-points 3 --report-json "$TMP/plain.json" -- python3 "$PLAIN" >"$TMP/plain.txt" 2>&1
status=$?
[ "$status" = 0 ] || fail "certify python-resume exited $status"
grep -q '^pipelining' "$TMP/plain.txt" && fail "python-resume waits for each reply, yet: $(grep '^pipelining' "$TMP/plain.txt")"
grep -q '"pipelining"' "$TMP/plain.json" && fail "python-resume's JSON report speaks of pipelining"

if [ "$failed" != 0 ]; then
    echo "--- reports"; cat "$TMP/auto.txt" "$TMP/off.txt" "$TMP/plain.txt"
    exit 1
fi
echo "PASS: pipelining seen and settled ($(grep -o 'it needs --kill-settle [0-9]*' "$TMP/auto.txt")), said when unsettled, not seen where absent"
