#!/usr/bin/env bash
# ci/layering_test.sh — data flows one way (issue 21): the include lines that would turn an arrow
# around. core includes nothing of conformance/ or fuzz/; the certifier's world (world.c, and the
# suite loader that builds its requests) never includes a checker, so a mistake in the judge
# cannot steer the run judged against it; the checkers' rooms (merge/, journal/, resume/) include
# the findings module and never each other; no checker includes the reference merger, engine or
# stores. The certifier is built without the reference: none of its sources but
# reference_testee.[ch] (the in-process testee, a target of its own) includes conformance/testee/,
# the merger, the engine or a store, and where Bazel is at hand, //conformance/certifier:certifier
# depends on none of their targets. No circle in the include graph between modules
# (ci/include_circles.py) but the ones named below, each argued; and no product function over 80
# lines but the ones ci/long_functions.txt argues (ci/function_lengths.py).
# Reads the checkout it lives in; ends "N violations" and fails on any.
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

# The certifier without the reference (issue 21): the testee seam (testee.h) has the in-process
# reference as one implementation, in //conformance/certifier:reference_testee.
reference='conformance/testee/|core/merge/(merger|host)|core/resume/(engine|store)'
mapfile -t certifier_files < <(find conformance/certifier -name '*.[ch]' ! -name 'reference_testee.[ch]' ! -path '*/hostile/*')
[ "${#certifier_files[@]}" -gt 20 ] || violation "the certifier's sources are not where this test looks"
forbid "$reference" "${certifier_files[@]}"
if [ "${TURNSTILE_LAYERING_BAZEL:-1}" != 0 ] && command -v bazel >/dev/null; then
    reference_targets='//conformance/testee:testee + //conformance/testee:mutants + //core/merge:merger + //core/merge:host + //core/resume:engine + //core/resume:store + //core/resume:store_file + //core/resume:store_sqlite'
    if ! path=$(bazel query --noshow_progress "somepath(//conformance/certifier:certifier, $reference_targets)" 2>/dev/null); then
        violation "bazel query could not read the certifier's dependencies"
    elif [ -n "$path" ]; then
        violation "//conformance/certifier:certifier depends on the reference: $(echo "$path" | paste -sd' ')"
    fi
fi

# Circles between modules. None is allowed: the last one (the world and its nemesis) went when the
# nemesis was shown what the world observed (nemesis.h, ts_nemesis_observed) instead of the world.
# An argued circle would be named here, one a line; any circle not named fails.
allowed_circles=''
if ! circles=$(python3 ci/include_circles.py) || ! grep -q 'circles among' <<<"$circles"; then
    violation "ci/include_circles.py failed"
fi
while IFS= read -r line; do
    case "$line" in
    'circle: '*) grep -qxF "${line#circle: }" <<<"$allowed_circles" || violation "include $line" ;;
    esac
done <<<"$circles"

# Long functions: split, or argued in ci/long_functions.txt.
python3 ci/function_lengths.py --allowed ci/long_functions.txt >/dev/null || violation "function lengths (ci/function_lengths.py --allowed ci/long_functions.txt)"
echo "$failed violations"
[ "$failed" -eq 0 ]
