#!/usr/bin/env bash
# ci/docs_test.sh — every command the docs print works as printed.
#
# Extracts every command line from the ```sh blocks of README.md and the kit READMEs
# (conformance/testees/README.md, conformance/testees/*/README.md) and compares them with the
# curated list ci/docs_commands.txt: a command in the docs and not in the list (or the other way
# round) fails, so the docs cannot change without the list. Each entry says how it is proven:
#   run STATUS    run here, in an empty temp directory that sees the checkout's conformance/ and
#                 has `turnstile` (this checkout's build) on PATH; must exit STATUS
#   kit STATUS    run in a fresh copy of that README's kit directory (outside the checkout), in
#                 order; must exit STATUS (dotnet kits are skipped, and said so, without dotnet)
#   covered WHAT  too long or too heavy for here, run as printed (or with a shorter budget) by WHAT
#   example       a placeholder (a file of yours: stream.jsonl, scenario.json) with no meaning here
# Ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
list=ci/docs_commands.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# FILE<TAB>COMMAND for every command line of every ```sh block (continuations joined).
extract() {
    for f in README.md conformance/testees/README.md conformance/testees/*/README.md; do
        awk -v f="$f" '
            /^```sh/ { inside = 1; next }
            /^```/ { inside = 0; next }
            inside {
                line = $0
                if (cont != "") { line = cont " " line; cont = "" }
                if (line ~ /\\$/) { sub(/ *\\$/, "", line); cont = line; next }
                if (line ~ /^[ \t]*(#|$)/) next
                print f "\t" line
            }' "$f"
    done
}
extract >"$tmp/docs"
grep -v '^#' "$list" | grep -v '^$' | cut -f2,3 >"$tmp/listed"
name=docs_and_list_agree
if diff <(sort -u "$tmp/docs") <(sort -u "$tmp/listed") >"$tmp/diff"; then ok; else
    fail "$name: ci/docs_commands.txt and the docs differ (< docs only, > list only):"; cat "$tmp/diff"
fi

bazel build //:turnstile >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; exit 1; }
mkdir -p "$tmp/bin"
ln -s "$(bazel info bazel-bin 2>/dev/null)/turnstile" "$tmp/bin/turnstile"
export PATH="$tmp/bin:$PATH" TURNSTILE_PROGRAM=turnstile
mkdir -p "$tmp/run" && ln -s "$root/conformance" "$tmp/run/conformance"
declare -A kit_dirs
while IFS=$'\t' read -r how file command; do
    [ -n "$how" ] || continue
    case "$how" in \#*) continue ;; esac
    tag=${how%% *} want=${how#* }
    case "$tag" in
        run) dir="$tmp/run" ;;
        kit)
            kit=$(dirname "$file")
            if [[ "$kit" == */dotnet-* ]] && ! command -v dotnet >/dev/null; then echo "skipped (no dotnet): $command"; continue; fi
            if [ -z "${kit_dirs[$kit]:-}" ]; then
                kit_dirs[$kit]="$tmp/kits/$(basename "$kit")"
                mkdir -p "$tmp/kits" && cp -r "$kit" "${kit_dirs[$kit]}"
                rm -rf "${kit_dirs[$kit]}"/{bin,obj,out,node_modules,dist}
            fi
            dir=${kit_dirs[$kit]} ;;
        covered|example) ok; continue ;;
        *) fail "$list: unknown tag '$tag'"; continue ;;
    esac
    (cd "$dir" && bash -c "$command") >"$tmp/out" 2>&1 </dev/null
    status=$?
    if [ "$status" -eq "$want" ]; then ok; else fail "[$file] $command: exit $status, want $want"; tail -5 "$tmp/out"; fi
done < <(grep -v '^#' "$list")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
