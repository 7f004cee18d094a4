#!/bin/bash
# certify --shard K/N and turnstile report --merge (issue 23): the shards' reports merge into the
# certificate a single run gives — the same JSON report, JUnit and text report (normalised for
# times, dates, minted ids, and the replay commands' paths), so the same verdict, counts and rule
# table — over the merge kit (merge cases, D1 repeats) and the reference's resume cases; and the
# merge refuses reports that are not the shards of one run.
set -u
TURNSTILE=$1
KIT=$2
NORMALIZE=$(dirname "$0")/testdata/normalize_report.py
TMP=$(mktemp -d "${TEST_TMPDIR:-/tmp}/shard.XXXXXX")
export TMPDIR=$TMP
trap 'rm -rf "$TMP"' EXIT
failed=0
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }

normal() { # RUN: its JSON, JUnit and text in normal form
    python3 "$NORMALIZE" "$TMP/$1.json" >"$TMP/$1.norm.json"
    sed -E 's/ time="[^"]*"| timestamp="[^"]*"//g' "$TMP/$1.xml" >"$TMP/$1.norm.xml"
    sed -E -e '1,2d' -e '/^[0-9]+ cases in /d' -e '/^testee processes: /d' -e '/^      replay/d' \
        -e 's/ \([0-9]+ merged as the same experiment\)//' "$TMP/$1.txt" >"$TMP/$1.norm.txt"
}

# check NAME N OPTIONS... -- TESTEE...: one run, N shards, their merge; all the same certificate.
check() {
    local t=$1 n=$2 k
    shift 2
    "$TURNSTILE" certify --report-json "$TMP/$t.json" --junit "$TMP/$t.xml" "$@" >"$TMP/$t.txt" 2>"$TMP/$t.err"
    local status=$?
    local shards=()
    for k in $(seq "$n"); do
        "$TURNSTILE" certify --shard "$k/$n" --report-json "$TMP/$t.$k.json" "$@" >/dev/null 2>&1
        shards+=("$TMP/$t.$k.json")
    done
    "$TURNSTILE" report --merge "${shards[@]}" --report-json "$TMP/$t.merged.json" --junit "$TMP/$t.merged.xml" \
        >"$TMP/$t.merged.txt" 2>"$TMP/$t.merged.err"
    local merged=$?
    [ "$merged" -eq "$status" ] || fail "$t: the merge exits $merged, the single run $status: $(head -3 "$TMP/$t.merged.err")"
    normal "$t"
    normal "$t.merged"
    for part in norm.json norm.xml norm.txt; do
        cmp -s "$TMP/$t.$part" "$TMP/$t.merged.$part" ||
            fail "$t: the merge differs from one run in $part: $(diff "$TMP/$t.$part" "$TMP/$t.merged.$part" | head -c 3000)"
    done
}

name=merge_equals_one_run
check kit 3 -- python3 "$KIT"
check resume 2 --cases 'Resume.U2.*' --kill-points 3 -- "$TURNSTILE" testee
[ "$failed" -eq 0 ] && echo "ok $name"

# refuse EXPECTED-TEXT SHARD.json...: the merge exits 2 and says why.
refuse() {
    local text=$1
    shift
    "$TURNSTILE" report --merge "$@" >/dev/null 2>"$TMP/refused.err"
    local status=$?
    [ "$status" -eq 2 ] && grep -qF -- "$text" "$TMP/refused.err" || fail "exit $status, $(cat "$TMP/refused.err")"
}
name=merge_refuses_other_runs
before=$failed
refuse "shard 1 given twice" "$TMP/kit.1.json" "$TMP/kit.1.json" "$TMP/kit.2.json"
refuse "but 2 reports were given" "$TMP/kit.1.json" "$TMP/kit.2.json"
refuse "not a shard of the same run" "$TMP/kit.1.json" "$TMP/kit.2.json" "$TMP/resume.1.json"
"$TURNSTILE" certify --shard 3/3 --no-repeat --report-json "$TMP/norepeat.3.json" -- python3 "$KIT" >/dev/null 2>&1
refuse "another case selection or options" "$TMP/kit.1.json" "$TMP/kit.2.json" "$TMP/norepeat.3.json"
python3 - "$TMP/kit.3.json" "$TMP/other-version.3.json" "$TMP/incomplete.3.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["turnstile"]["version"] = "0.0.1"
json.dump(r, open(sys.argv[2], "w"))
r = json.load(open(sys.argv[1]))
r["incomplete"] = True
json.dump(r, open(sys.argv[3], "w"))
PY
refuse "another turnstile version" "$TMP/kit.1.json" "$TMP/kit.2.json" "$TMP/other-version.3.json"
refuse "an incomplete (interrupted) run" "$TMP/kit.1.json" "$TMP/kit.2.json" "$TMP/incomplete.3.json"
refuse "not a shard's report" "$TMP/kit.json"
[ "$failed" -eq "$before" ] && echo "ok $name"

# Two suites that differ only in a resume case's scenario (or only in its manifest entry) are two
# suites: their hashes differ and their shards do not merge. The hash once covered no resume case.
name=suite_hash_covers_resume_cases
before=$failed
resume_suite() { # DIR TEXT RULE: a suite of two resume cases, the first answering TEXT, judged on RULE
    mkdir -p "$1"
    for k in 1 2; do
        printf '{"executionId":"00000000-0000-4000-8000-00000000090%s","input":"hi","llm":[{"text":"%s"}]}\n' "$k" "$2" >"$1/s$k.json"
    done
    printf '{"cases":[{"id":"Resume.U2.one","op":"resume","rules":["%s"],"input":"s1.json"},{"id":"Resume.U2.two","op":"resume","rules":["U2"],"input":"s2.json"}]}\n' "$3" >"$1/MANIFEST.json"
}
resume_suite "$TMP/suite-a" "hello" U2
resume_suite "$TMP/suite-b" "hello " U2
resume_suite "$TMP/suite-c" "hello" U1
for s in a b c; do
    for k in 1 2; do
        "$TURNSTILE" certify --suite "$TMP/suite-$s" --reference --shard $k/2 --report-json "$TMP/suite-$s.$k.json" >/dev/null 2>&1 ||
            fail "certify --suite suite-$s --shard $k/2 exited $?"
    done
done
hash() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suite"]["sha256"])' "$1"; }
[ "$(hash "$TMP/suite-a.1.json")" != "$(hash "$TMP/suite-b.1.json")" ] || fail "a changed scenario left the suite's hash as it was"
[ "$(hash "$TMP/suite-a.1.json")" != "$(hash "$TMP/suite-c.1.json")" ] || fail "a changed rule left the suite's hash as it was"
[ "$(hash "$TMP/suite-a.1.json")" = "$(hash "$TMP/suite-a.2.json")" ] || fail "one suite, two hashes"
refuse "another suite (SHA-256)" --suite "$TMP/suite-a" "$TMP/suite-a.1.json" "$TMP/suite-b.2.json"
refuse "another suite (SHA-256)" --suite "$TMP/suite-a" "$TMP/suite-a.1.json" "$TMP/suite-c.2.json"
"$TURNSTILE" report --merge --suite "$TMP/suite-a" "$TMP/suite-a.1.json" "$TMP/suite-a.2.json" >/dev/null 2>"$TMP/merge-a.err" ||
    fail "the shards of one suite do not merge: $(cat "$TMP/merge-a.err")"
[ "$failed" -eq "$before" ] && echo "ok $name"

echo "$failed failed"
[ "$failed" -eq 0 ]
