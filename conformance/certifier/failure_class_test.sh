#!/usr/bin/env bash
# failure_class_test.sh — whose failure it is (issue 24): the class annotation of an
# expected-failures entry (failure_class.h), from the list through certify's JSON report to
# `turnstile report`:
#   * an annotated entry is kept verbatim by --write-expected-failures, and the gate still passes;
#   * certify --expected-failures carries each covered finding's class into the JSON report;
#   * a malformed annotation is refused (exit 2) naming FILE:LINE:COLUMN, the field and what is wrong,
#     for certify and for report --classes alike;
#   * report --classes counts a failing cell's cases by class and each implementation's failing
#     cases by class, in Markdown and HTML; without classes nothing of it is printed.
set -u
TURNSTILE=$(realpath "${1:?usage: failure_class_test.sh TURNSTILE}")
export TURNSTILE_SUITE=conformance/cases
unset XML_OUTPUT_FILE
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }
run() { "$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none "$@"; }

run --write-expected-failures "$TMP/base" >/dev/null 2>&1
lib='# class: library-defect lib/merge.js:412 F4'
doc='# the order is the library'"'"'s; class: documented https://example.org/docs/merge#order F2; integration adapter/testee.js:88-90 F1'
{ echo "# a list whose entries say whose failure it is"
  echo "Merge.M3.unkeyed_first_then_keyed I2  $lib"
  echo "Merge.M3.unkeyed_first_then_keyed O3  $doc"
  grep -v '^#' "$TMP/base" | grep -v '^Merge.M3.unkeyed_first_then_keyed '; } >"$TMP/list"

name=annotation_kept_by_the_rewrite
cp "$TMP/list" "$TMP/rewritten"
run --write-expected-failures "$TMP/rewritten" >/dev/null 2>&1
cmp -s "$TMP/list" "$TMP/rewritten" && ok || fail "$(diff "$TMP/list" "$TMP/rewritten" | head -6)"

name=gate_passes_and_json_carries_the_class
run --expected-failures "$TMP/list" --report-json "$TMP/report.json" >"$TMP/out" 2>&1
status=$?
python3 - "$TMP/report.json" <<'PY' && [ "$status" = 0 ] && ok || fail "exit $status; $(tail -3 "$TMP/out")"
import json, sys
cases = {c["id"]: c for c in json.load(open(sys.argv[1]))["cases"]}
f = {x["rule"]: x for x in cases["Merge.M3.unkeyed_first_then_keyed"]["findings"]}
assert f["I2"]["class"] == [{"kind": "library-defect", "where": "lib/merge.js:412", "finding": "F4"}], f["I2"]
assert f["O3"]["class"] == [{"kind": "documented", "where": "https://example.org/docs/merge#order", "finding": "F2"},
                            {"kind": "integration", "where": "adapter/testee.js:88-90", "finding": "F1"}], f["O3"]
others = [x for c in cases.values() if c["id"] != "Merge.M3.unkeyed_first_then_keyed" for x in c["findings"] if "class" in x]
assert not others, others  # no annotation, no class
PY

# bad LINE_SUFFIX EXPECTED: the list with its first entry's comment replaced, refused as EXPECTED says.
bad() {
    name=$1
    { echo "# bad"; echo "Merge.M3.unkeyed_first_then_keyed I2  $2"; } >"$TMP/bad"
    run --expected-failures "$TMP/bad" >"$TMP/out" 2>&1
    local status=$?
    [ "$status" = 2 ] && grep -qF -- "$TMP/bad:$3" "$TMP/out" && ok || fail "exit $status: $(tail -2 "$TMP/out")"
    "$TURNSTILE" report "$TMP/report.json" --classes "$TMP/bad" >"$TMP/out" 2>&1
    status=$?
    [ "$status" = 2 ] && grep -qF -- "$TMP/bad:$3" "$TMP/out" || fail "report --classes: exit $status: $(tail -2 "$TMP/out")"
}
#                                                    column counted from 1 on the whole line ("#" is column 39)
bad bad_kind '# class: libary-defect x.js:1' "2:48: class: the kind must be library-defect, documented or integration, not 'libary-defect'"
bad library_defect_without_line '# class: library-defect lib/merge.js F4' "2:63: class: library-defect needs the library's source as PATH:LINE, got 'lib/merge.js'"
bad documented_without_link '# class: documented the README F2' "2:59: class: documented needs a link (http(s)://...) or the documented declaration as PATH:LINE, got 'the'"
bad integration_without_where '# class: integration' "2:59: class: integration needs the adapter's line (PATH:LINE)"
bad extra_token '# class: integration a.js:3 F1 and more' "2:70: class: unexpected 'and'"
bad empty_annotation '# note; class:' "2:53: class: expected a kind"
bad bad_second_item '# class: integration a.js:3; documented nolink' "2:79: class: documented needs a link (http(s)://...) or the documented declaration as PATH:LINE, got 'nolink'"

name=class_word_in_prose_is_no_annotation
{ echo "Merge.M3.unkeyed_first_then_keyed I2  # a first-class failure: this class: is prose"; grep -v '^#' "$TMP/base" | grep -v '^Merge.M3.unkeyed_first_then_keyed I2'; } >"$TMP/prose"
run --expected-failures "$TMP/prose" >"$TMP/out" 2>&1 && ok || fail "$(tail -2 "$TMP/out")"

name=report_counts_classes
"$TURNSTILE" certify --mutant keyed-before-unkeyed --kill-points none --report-json "$TMP/plain.json" >/dev/null 2>&1
"$TURNSTILE" report "$TMP/plain.json" --classes "$TMP/list" "$TMP/report.json" >"$TMP/md" 2>&1 &&
    python3 - "$TMP/md" <<'PY' && ok || fail "$(head -20 "$TMP/md")"
import re, sys
md = open(sys.argv[1]).read()
rows = {l.split("|")[1].strip(): l for l in md.splitlines() if l.startswith("| I2 ") or l.startswith("| O3 ")}
# plain.json's classes come from --classes, report.json's from its findings: the same in both columns
for rule, want in (("I2", "lib 1 · ? "), ("O3", "doc 1 · int 1 · ? ")):
    cells = rows[rule].split("|")[3:5]
    assert all(want in c for c in cells), (rule, cells)
lines = [l for l in md.splitlines() if l.startswith("Failing cases by class: ")]
assert len(lines) == 2, lines
assert re.match(r"Failing cases by class: library defect 1, documented semantics 1, integration choice 1, unclassified \d+ \(a case with failures of two classes counts in both\); by that class alone: lib 0, doc 0, int 0, \? \d+\.$", lines[0]), lines[0]
assert lines[0] == lines[1], lines
assert "Whose failure: lib N" in md
PY

name=report_html_counts_classes
"$TURNSTILE" report --html "$TMP/plain.json" --classes "$TMP/list" >"$TMP/html" 2>&1 &&
    grep -q '<p>Failing cases by class: library defect 1, documented semantics 1, integration choice 1, unclassified' "$TMP/html" &&
    grep -q 'fail ([0-9]*)</a> lib 1 · ? ' "$TMP/html" && ok || fail "$(grep -i 'class\|fail (' "$TMP/html" | head -5)"

name=report_without_classes_says_nothing_of_them
"$TURNSTILE" report "$TMP/plain.json" >"$TMP/md" 2>&1 && ! grep -q 'class\|lib [0-9]' "$TMP/md" && ok || fail "$(grep -i class "$TMP/md" | head -3)"

name=report_classes_before_any_report_is_a_usage_error
"$TURNSTILE" report --classes "$TMP/list" "$TMP/plain.json" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "not after a report of its own" "$TMP/out" && ok || fail "$(cat "$TMP/out")"

echo "failure_class_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
