#!/usr/bin/env bash
# ci/layering_test.sh — data flows one way (issue 21): the include lines that would turn an arrow
# around. core includes nothing of conformance/ or fuzz/; the certifier's world (world.c, and the
# suite loader that builds its requests) never includes a checker, so a mistake in the judge
# cannot steer the run judged against it; the checkers' rooms (merge/, journal/, resume/) include
# the findings module and never each other; no checker includes the reference merger, engine or
# stores. Reads the checkout it lives in; ends "N violations" and fails on any.
set -u
cd "$(dirname "$0")/.." || exit 1
failed=0
violation() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# forbid WHAT FILES... : no file includes a header matching the regular expression WHAT
forbid() {
    local what=$1
    shift
    local hits
    hits=$(grep -nE "^#include \"($what)" "$@" 2>/dev/null)
    [ -z "$hits" ] || violation "$hits"
}

mapfile -t core_files < <(find core -name '*.[ch]' ! -path '*/tests/*')
[ "${#core_files[@]}" -gt 50 ] || violation "core's sources are not where this test looks (${#core_files[@]} files)"
forbid 'conformance/|fuzz/' "${core_files[@]}"
forbid 'conformance/checkers/' conformance/certifier/world.c conformance/certifier/world.h \
    conformance/certifier/suite.c conformance/certifier/suite.h
for room in merge journal resume; do
    mapfile -t files < <(find "conformance/checkers/$room" -name '*.[ch]' ! -name '*_test.c')
    [ "${#files[@]}" -gt 2 ] || violation "the $room room holds no sources"
    others=$(printf '%s\n' merge journal resume | grep -vx "$room" | paste -sd'|')
    forbid "conformance/checkers/($others)/" "${files[@]}"
    forbid 'core/merge/merger|core/resume/(engine|store)' "${files[@]}"
done
forbid 'conformance/checkers/(merge|journal|resume)/' conformance/checkers/findings.[ch] conformance/checkers/budget.[ch]
echo "$failed violations"
[ "$failed" -eq 0 ]
