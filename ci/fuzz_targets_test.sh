#!/usr/bin/env bash
# ci/fuzz_targets_test.sh — one list of fuzz targets (fuzz/targets.txt), and everything that names
# targets agrees with it: fuzz/BUILD.bazel's turnstile_fuzz_test rules, corpora/<target>/ (seeds
# and regressions), no script of ci/ or .clusterfuzzlite/ keeping a list of its own (each reads
# fuzz/targets.txt), the workflows naming no target the list lacks, and README's count. Also: the
# ClusterFuzzLite image installs every library the build links (ci/setup.sh's certify packages).
# Run by ci/test.sh; ends "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
check() { # NAME CONDITION...
    local name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt)
list=$(printf '%s\n' "${targets[@]}" | sort)
check list_is_not_empty [ "${#targets[@]}" -ge 5 ]
check list_has_no_duplicates [ "$(printf '%s\n' "${targets[@]}" | sort -u | wc -l)" -eq "${#targets[@]}" ]
build=$(awk '/^turnstile_fuzz_test\(/ { inside = 1 } inside && /name = "/ { sub(/.*name = "/, ""); sub(/".*/, ""); print; inside = 0 }' fuzz/BUILD.bazel | sort)
check build_rules_match_the_list [ "$build" = "$list" ]
[ "$build" = "$list" ] || diff <(echo "$list") <(echo "$build") | sed 's/^/    (< list, > fuzz\/BUILD.bazel) /'
corpora=$(find corpora -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
check corpora_match_the_list [ "$corpora" = "$list" ]
for t in "${targets[@]}"; do
    check "corpus_$t" [ -d "corpora/$t/regressions" ] && check "seeds_$t" [ -n "$(find "corpora/$t/seeds" -type f | head -1)" ]
done
# No script keeps its own list: none names three targets on one line (as a list would), and each
# script that fuzzes reads fuzz/targets.txt.
own_lists=$(grep -nE "($(IFS='|'; echo "${targets[*]}")).*($(IFS='|'; echo "${targets[*]}")).*($(IFS='|'; echo "${targets[*]}"))" \
    ci/*.sh ci/bench/*.sh .clusterfuzzlite/build.sh .github/workflows/*.yml 2>/dev/null)
check no_script_keeps_its_own_list [ -z "$own_lists" ]
[ -z "$own_lists" ] || printf '    %s\n' "$own_lists"
for script in ci/fuzz_smoke.sh ci/fuzz_launchers.sh ci/clusterfuzzlite_local.sh ci/bench/fuzz_bench.sh .clusterfuzzlite/build.sh; do
    check "reads_the_list_$script" grep -q 'fuzz/targets.txt' "$script"
done
# The workflows let ClusterFuzzLite find the targets in $OUT; any target they do name is listed.
named=$(grep -ohE '\b[a-z]+(_[a-z]+)+\b' .github/workflows/cflite_*.yml | sort -u | while read -r w; do
    [ -d "corpora/$w" ] || [ -f "fuzz/$w.c" ] && echo "$w"; done)
for w in $named; do check "workflow_names_listed_target_$w" grep -qx "$w" fuzz/targets.txt; done
words=(zero one two three four five six seven eight nine ten eleven twelve)
check readme_counts_the_targets grep -qi "^${words[${#targets[@]}]} targets in \`fuzz/\`" README.md
# The image builds what fuzz/BUILD.bazel links: every library package of ci/setup.sh's certify
# group is installed by the Dockerfile, or built there (simdjson: Ubuntu 20.04's is too old).
mapfile -t libs < <(sed -n '/^packages=(/,/^)/p' ci/setup.sh | grep -oE '^\s+lib[a-z0-9+-]*-dev|^\s+uuid-dev' | tr -d ' ')
for p in "${libs[@]}"; do
    case "$p" in
        libsimdjson-dev) check "image_builds_simdjson" grep -q 'github.com/simdjson/simdjson' .clusterfuzzlite/Dockerfile ;;
        *) check "image_installs_$p" grep -qE "(^|\s)$p(\s|$)" .clusterfuzzlite/Dockerfile ;;
    esac
done
check image_needs_at_least_five_libraries [ "${#libs[@]}" -ge 5 ]
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
