#!/usr/bin/env bash
# certify_resume_alternatives_test.sh — the resume checkers are right only when every valid engine
# passes (issue 24). Certifies each resume engine written apart from the reference
# (../resume-alt-eventlog in Python, ../resume-alt-files in Node.js) over every resume case with
# every kill point, and requires of each: certify exits 0, every case is judged and passes (none
# skipped: both engines suspend on a pending tool — but for the cases that branch, which an engine
# whose hello lists no "branch" kinds has skipped), every kill point of every case was run, no
# finding of a Required rule, and the durability it claims reached. U7 (at-least-once,
# Recommended) is allowed; for resume-alt-files,
# which persists at the end of each action and so redoes a turn after a kill, it is required: a
# sweep that never saw a tool run again did not kill where it says. Before that, the same judge is
# shown to fail a broken engine (the reference's resume-restarts-loop mutant), so it can fail.
#
# With CASES (a comma-separated list of --cases globs) only those cases are swept: the short twin
# in `bazel test //...` takes four cases that hold tools, signals and restarts and one that edits
# (skipped by both: the count of cases judged includes it, the pass/kill-point checks do not); the full sweep
# (about 9 minutes, run before a release) is certify_resume_alternatives_long_test. The four cases
# include Resume.U2.turn_with_two_tools, where resume-alt-files redoes a tool after a kill (U7).
#
#   usage: certify_resume_alternatives_test.sh TURNSTILE EVENTLOG_TESTEE_PY FILES_TESTEE_JS [CASES]
set -u
TURNSTILE=$(realpath "${1:?usage: certify_resume_alternatives_test.sh TURNSTILE EVENTLOG_PY FILES_JS}")
EVENTLOG=$(realpath "$2")
FILES=$(realpath "$3")
CASES=${4:-Resume.*}
case_args=()
IFS=, read -r -a globs <<<"$CASES"
for glob in "${globs[@]}"; do case_args+=(--cases "$glob"); done
export CASES
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE  # each certify run would overwrite this test's own XML
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0

# judge REPORT STATUS NEED_AT_LEAST_ONCE: the assertions above, on a certify report.
judge() {
    python3 - "$@" <<'PY'
import fnmatch, json, os, sys
report, status, need_u7 = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] == "yes"
globs = os.environ["CASES"].split(",")
full = globs == ["Resume.*"]
cases = [c for c in report["cases"] if c["id"].startswith("Resume.")]
manifest = [c for c in json.load(open("conformance/cases/resume/MANIFEST.json"))["cases"]
            if any(fnmatch.fnmatchcase(c["id"], g) for g in globs)]
problems = []
if len(cases) != len(manifest) or len(cases) < (20 if full else len(globs)):
    problems.append("%d resume cases judged, the suite has %d" % (len(cases), len(manifest)))
def branches(case_id):
    events = json.load(open("conformance/cases/resume/%s.scenario.json" % case_id)).get("events", [])
    return any("edit" in e or "fork" in e for e in events)
for c in [c for c in cases if branches(c["id"])]:
    if c["verdict"] != "skipped":  # these engines' hello lists no branch kinds
        problems.append("%s: %s, not skipped (the engine cannot edit or fork)" % (c["id"], c["verdict"]))
cases = [c for c in cases if not branches(c["id"])]
for c in cases:
    required = [f for f in c.get("findings", []) if f["level"] == "Required"]
    if c["verdict"] != "pass" or required:
        problems.append("%s: %s %s" % (c["id"], c["verdict"], "; ".join(f["rule"] + " " + f["message"][:300] for f in required[:3])))
    h = c.get("history") or {}
    points = sum(1 for e in (h.get("runs") or [{}])[0].get("events", []) if "point" in e)
    p = h.get("points") or {}
    # every point of the uninterrupted run planned (as a killed process, and as each power-loss
    # crash state there), every planned kill run made and reached (issue 22's nemesis)
    if points == 0 or p.get("protocol", 0) + p.get("store", 0) != points or h.get("killPoints") != p.get("killRuns") \
            or p.get("notReached") or p.get("powerLossNotMade") or h.get("nemesis") != "power-loss":
        problems.append("%s: %s of its %s planned kill runs made (%d points; %s)" % (c["id"], h.get("killPoints"),
                                                                                   p.get("killRuns"), points, p))
u7 = sorted({c["id"] for c in cases for f in c.get("findings", []) if f["rule"] == "U7"})
print("%d resume cases: %d passed; at-least-once (U7) in %d: %s; %.0f s" % (
    len(cases), sum(c["verdict"] == "pass" for c in cases), len(u7), ", ".join(u7) or "none", report["summary"]["seconds"]))
if need_u7 and not u7:
    problems.append("no tool ran again after any kill: the sweep did not kill inside an action")
# The durability the engine claims in its hello is the one it reaches (resume-alt-eventlog claims
# power-loss: a pipelined engine was once denied it by U7's window closing at a pipelined line).
claimed, reached = (report.get("testee") or {}).get("durability"), (report.get("durability") or {}).get("level")
if claimed and reached != claimed:
    problems.append("claims %s durability, reached %s" % (claimed, reached))
if status != "0":
    problems.append("certify exited " + status)
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY
}

certify() { # NAME NEED_AT_LEAST_ONCE COMMAND...
    local name=$1 need=$2
    shift 2
    "$TURNSTILE" certify "${case_args[@]}" --kill-points all --report-json "$TMP/$name.json" -- "$@" >"$TMP/$name.out" 2>&1
    local status=$?
    if [ -s "$TMP/$name.json" ] && judge "$TMP/$name.json" "$status" "$need"; then
        echo "PASS $name"
    else
        echo "FAIL $name"
        grep -B1 -A4 '^FAIL' "$TMP/$name.out" | head -40
        tail -3 "$TMP/$name.out"
        failed=$((failed + 1))
    fi
}

# The judge can fail: a mutant that restarts its loop on resume is not passed, for its Required findings.
# (Its fault is in the protocol: killed processes show it, power losses would only take longer.)
"$TURNSTILE" certify --mutant resume-restarts-loop "${case_args[@]}" --kill-points all --nemesis protocol \
    --report-json "$TMP/mutant.json" >/dev/null 2>&1
if ! judge "$TMP/mutant.json" $? no >"$TMP/mutant.out" && grep -qE '^  Resume\.\S+: fail U[0-9]' "$TMP/mutant.out"; then
    echo "PASS judge_fails_a_broken_engine"
else
    echo "FAIL judge_fails_a_broken_engine: the resume-restarts-loop mutant was not failed for a Required finding"
    head -5 "$TMP/mutant.out"
    failed=$((failed + 1))
fi

certify resume-alt-eventlog no "$PYTHON" "$EVENTLOG"
certify resume-alt-files yes node "$FILES"
[ "$failed" -eq 0 ]
