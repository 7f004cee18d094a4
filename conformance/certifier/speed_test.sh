#!/bin/bash
# certify --jobs, --warm and partial certificates (issue 23).
#   1. Equivalence: the same cases certified at --jobs 1 --warm off (one testee, a new process per
#      start) and at --jobs 2, --warm pool, --warm fork, and the default (--jobs 2, --warm auto:
#      the fork server, all three say "fork": true) give the same JSON report, JUnit and text
#      (normalised for times, dates and the ids a testee mints), over the reference over the
#      pipe, a resume mutant and the Python kit. A warm run must really be warm (the report counts
#      pooled and forked processes), so a silent fall back to cold starts fails.
#   2. A certify run killed by SIGTERM mid-sweep (--jobs 2) leaves a partial certificate: exit 143,
#      JSON that parses and says incomplete with the cases in flight, JUnit that parses with an
#      'incomplete' error, a text report whose verdict is INCOMPLETE, the FAIL blocks of the cases
#      decided before it, and no store directory left; its progress line (--progress) counted
#      passed and failed cases, the time elapsed and an estimate of the time left.
set -u
TURNSTILE=$1
KIT=$2
HERE=$(dirname "$0")
NORMALIZE=$HERE/testdata/normalize_report.py
TMP=$(mktemp -d "${TEST_TMPDIR:-/tmp}/speed.XXXXXX")
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMP"' EXIT
failed=0
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }
CASES='Resume.U2.*,Resume.U3.signal_*'
POINTS=3

# certify_to NAME OPTIONS... -- TESTEE...: the run's JSON, JUnit and text, and their normal forms.
certify_to() {
    local out=$TMP/$1
    shift
    "$TURNSTILE" certify --cases "$CASES" --kill-points "$POINTS" --report-json "$out.json" --junit "$out.xml" "$@" >"$out.txt" 2>"$out.err"
    echo $? >"$out.status"
    python3 "$NORMALIZE" "$out.json" >"$out.norm.json" 2>>"$out.err"
    sed -E 's/ time="[^"]*"| timestamp="[^"]*"//g' "$out.xml" >"$out.norm.xml"
    sed -E -e '2d' -e '/^[0-9]+ cases in /d' -e '/^testee processes: /d' -e 's/ --(warm|jobs) [a-z0-9]+//g' \
        -e 's/tid [0-9]+/tid N/g' -e 's/#[0-9]+: \[/#N: [/g' \
        -e 's/, [0-9]+ power losses not made//' -e 's/ \([0-9]+ merged as the same experiment\)//' \
        -e '/^      \([0-9]+ more findings\)$/d' "$out.txt" >"$out.norm.txt"
}

# same BASE OTHER: the two runs' reports are one certificate.
same() {
    for part in status norm.json norm.xml norm.txt; do
        cmp -s "$TMP/$1.$part" "$TMP/$2.$part" ||
            fail "$2 differs from $1 in $part: $(diff "$TMP/$1.$part" "$TMP/$2.$part" | head -c 3000)"
    done
}

processes() { # RUN KIND: started, pooled or forked
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["testee"]["processes"][sys.argv[2]])' "$TMP/$1.json" "$2"
}

check_testee() { # NAME [fork] -- TESTEE...
    local t=$1 fork=$2
    shift 3
    certify_to "$t.cold" --jobs 1 --warm off -- "$@"
    [ "$(cat "$TMP/$t.cold.status")" -le 1 ] || { fail "$t: exit $(cat "$TMP/$t.cold.status"): $(tail -3 "$TMP/$t.cold.err")"; return; }
    certify_to "$t.jobs2" --jobs 2 --warm off -- "$@"
    certify_to "$t.pool" --jobs 1 --warm pool -- "$@"
    certify_to "$t.default" --jobs 2 -- "$@" # the default warm start (auto), two workers
    local runs="jobs2 pool default"
    if [ "$fork" = fork ]; then
        certify_to "$t.fork" --jobs 2 --warm fork -- "$@"
        runs="$runs fork"
        [ "$(processes "$t.fork" forked)" -gt 0 ] || fail "$t: --warm fork forked no instance (cold starts)"
    fi
    if [ "$fork" = fork ]; then # auto: the fork server for a testee whose hello says "fork": true
        [ "$(processes "$t.default" forked)" -gt 0 ] || fail "$t: --warm auto forked no instance of a fork server"
    else
        [ "$(processes "$t.default" pooled)" -gt 0 ] || fail "$t: --warm auto took no process from the pool"
    fi
    for run in $runs; do same "$t.cold" "$t.$run"; done
    [ "$(processes "$t.cold" forked)" -eq 0 ] && [ "$(processes "$t.cold" pooled)" -eq 0 ] || fail "$t: --warm off was warm"
    [ "$(processes "$t.pool" pooled)" -gt 0 ] || fail "$t: --warm pool took no process from the pool (cold starts)"
}

name=equivalent_reference
check_testee reference fork -- "$TURNSTILE" testee
grep -q '^verdict: CONFORMANT' "$TMP/reference.cold.txt" || fail "the reference is not conformant: $(grep verdict "$TMP/reference.cold.txt")"
[ "$failed" -eq 0 ] && echo "ok $name"

name=equivalent_mutants
before=$failed
mutant=resume-restarts-loop
check_testee "$mutant" fork -- "$TURNSTILE" testee --mutant "$mutant"
grep -q '^FAIL ' "$TMP/$mutant.cold.txt" || fail "$mutant: no failure found, so the comparison proves little"
[ "$failed" -eq "$before" ] && echo "ok $name"

name=equivalent_python_kit
before=$failed
check_testee python-kit fork -- python3 "$KIT"
[ "$failed" -eq "$before" ] && echo "ok $name"

name=partial_certificate_after_sigterm
before=$failed
rm -rf "$TMPDIR" && mkdir "$TMPDIR"
P=$TMP/partial
"$TURNSTILE" certify --progress --jobs 2 --warm off --cases 'Resume.*' --kill-points 12 --report-json "$P.json" --junit "$P.xml" \
    -- "$TURNSTILE" testee --mutant resume-restarts-loop >"$P.txt" 2>"$P.err" &
pid=$!
for _ in $(seq 1200); do grep -q '^FAIL ' "$P.txt" && break; sleep 0.1; done # a failure streamed before the end
grep -q '^FAIL ' "$P.txt" || fail "no FAIL block streamed within 120 s"
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 143 ] || fail "exit $status, not 143 (SIGTERM): $(tail -3 "$P.err")"
python3 - "$P.json" "$P.xml" <<'PY' || fail "the partial reports: $(head -c 400 "$P.json")"
import json, sys, xml.etree.ElementTree as ET
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "incomplete" and r["incomplete"] is True and r["interruptedBy"] == 15, r["verdict"]
assert r["inFlight"], "no case in flight"
decided = [c["id"] for c in r["cases"]]
assert not set(decided) & set(r["inFlight"]), "a case both decided and in flight"
assert any(c["verdict"] == "fail" for c in r["cases"]), "the failure decided before the signal is not in the report"
suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
assert props["verdict"] == "incomplete", props["verdict"]
errors = [t for t in suite.findall("testcase") if t.find("error") is not None and t.find("error").get("type") == "incomplete"]
assert sorted(t.get("name") for t in errors) == sorted(r["inFlight"]), (errors, r["inFlight"])
assert all(t.get("time") is not None for t in suite.findall("testcase"))
PY
grep -q '^verdict: INCOMPLETE' "$P.txt" || fail "no INCOMPLETE verdict in the text: $(tail -3 "$P.txt")"
grep -q '^interrupted by signal 15: ' "$P.txt" || fail "the text does not say what was in flight"
grep -qE '\[[0-9]+/[0-9]+\] [0-9]+ passed, [0-9]+ failed \| [0-9hms]+ elapsed, (~[0-9hms]+|estimating) left' "$P.err" ||
    fail "no progress line with counts, elapsed time and an estimate: $(tail -c 300 "$P.err")"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
[ "$failed" -eq "$before" ] && echo "ok $name"

echo "$failed failed"
[ "$failed" -eq 0 ]
