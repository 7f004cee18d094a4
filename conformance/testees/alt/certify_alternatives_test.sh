#!/usr/bin/env bash
# certify_alternatives_test.sh — the checkers are right only when every valid implementation
# passes (issue 12). Certifies each merger written apart from the reference (alt-node in
# Node.js, alt-python in Python) over the whole suite and requires: no failed case, and every
# case other than a Journal or Resume one (mergers only) answered and judged (none skipped), so a testee that answers
# `unsupported` to everything cannot pass.
#
#   usage: certify_alternatives_test.sh TURNSTILE ALT_NODE_MERGER ALT_PYTHON_MERGER
set -u
TURNSTILE=$(realpath "${1:?usage: certify_alternatives_test.sh TURNSTILE ALT_NODE ALT_PYTHON}")
ALT_NODE=$(realpath "$2")
ALT_PYTHON=$(realpath "$3")
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE  # each certify run would overwrite this test's own XML
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0

certify() { # NAME COMMAND...
    local name=$1
    shift
    "$TURNSTILE" certify --report-json "$TMP/$name.json" -- "$@" >"$TMP/$name.out" 2>&1
    local status=$?
    if python3 - "$TMP/$name.json" "$status" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
s = report["summary"]
bad = [c["id"] for c in report["cases"] if c["verdict"] != "pass" and not
       (c["verdict"] == "skipped" and c["id"].startswith(("Journal.", "Resume.")))]
print(f"{s['cases']} cases: {s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped")
assert s["passed"] >= 150, "fewer than 150 cases judged"
assert not bad, "not passed: " + ", ".join(bad)
assert sys.argv[2] == "0", "certify exited " + sys.argv[2]
PY
    then
        echo "PASS $name"
    else
        echo "FAIL $name"
        grep -A4 '^FAIL' "$TMP/$name.out" | head -60
        failed=$((failed + 1))
    fi
}

certify alt-node node "$ALT_NODE"
certify alt-python python3 "$ALT_PYTHON"
[ "$failed" -eq 0 ]
