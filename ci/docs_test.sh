#!/usr/bin/env bash
# ci/docs_test.sh [--installed PREFIX] — every command the docs print works as printed.
#
# Extracts every command line from the ```sh blocks of README.md, the kit READMEs
# (conformance/testees/README.md, conformance/testees/*/README.md) and the certificates' READMEs
# (conformance/certified/README.md, conformance/certified/resume/README.md) and compares them with the
# curated list ci/docs_commands.txt: a command in the docs and not in the list (or the other way
# round) fails, so the docs cannot change without the list. Each entry says how it is proven:
#   run STATUS      run here, in an empty temp directory that sees the checkout's conformance/ and
#                   has `turnstile` (this checkout's build) on PATH; must exit STATUS
#   repo STATUS     run from the checkout's root (a checkout's own scripts and Bazel targets)
#   example STATUS  run like `run`, with the placeholder files it names (a file of yours:
#                   stream.jsonl, s.json, scenario.json, doc.json) made from golden cases
#   kit STATUS      run in a fresh copy of that README's kit directory (outside the checkout), in
#                   order; must exit STATUS (dotnet kits are skipped, and said so, without dotnet)
#   covered WHAT    not run here (too long, too heavy, or it runs this script): WHAT runs it as
#                   printed, or with a shorter budget; each such line is printed with its reason
# Entries run in the list's order, each status checked.
#
# With --installed PREFIX (ci/release_test.sh passes the release it installed), the `run` entries
# of README.md run again from a copy of PREFIX/share/turnstile — an install's copy of conformance/
# — with only PREFIX/bin before /usr/bin:/bin on PATH and a fresh HOME: README's certify commands
# work from an install as from a checkout.
# Without --installed, every path the checkout's markdown files name must exist
# (ci/docs_paths_check.py --repository).
# Ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
installed=""
if [ "${1:-}" = --installed ]; then installed=$(cd "${2:?usage: ci/docs_test.sh [--installed PREFIX]}" && pwd) || exit 2; fi
list=ci/docs_commands.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 not_run=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# FILE<TAB>COMMAND for every command line of every ```sh block (continuations joined).
extract() {
    for f in README.md conformance/testees/README.md conformance/testees/*/README.md conformance/certified/README.md \
        conformance/certified/resume/README.md; do
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
# A fresh machine that followed README's two commands has no AFL++ (ci/setup.sh test): the first
# command that builds with a fuzzing config must come after the one that installs the toolchain,
# or Bazel's C++ autoconfiguration fails on the missing afl-clang-fast with a traceback.
name=fuzz_toolchain_installed_before_it_is_used
first_fuzz=$(grep -nE -- 'bazel [a-z]+ .*--config=(afl|libfuzzer)' "$tmp/docs" | head -1 | cut -d: -f1)
setup=$(grep -nE $'\tci/setup.sh fuzz( |$)' "$tmp/docs" | head -1 | cut -d: -f1)
if [ -n "$setup" ] && [ -n "$first_fuzz" ] && [ "$setup" -lt "$first_fuzz" ]; then ok; else
    fail "$name: the docs run a fuzzing config (line ${first_fuzz:-?} of the commands) before ci/setup.sh fuzz (${setup:-nowhere})"
fi
# README's one-line install names this version's archive.
version=$(sed -n 's/^const char ts_cli_version\[\] = "\(.*\)";/\1/p' conformance/cli/options.c)
name=readme_installs_this_version
if grep -q "^tar -xzf turnstile-$version-linux-x86_64.tar.gz " README.md; then ok; else fail "$name: README.md's tar line does not name turnstile-$version"; fi

# Every path the checkout's markdown names exists (a checkout only: an install has no .git).
name=docs_name_only_files_that_exist
if [ -z "$installed" ]; then
    if python3 ci/docs_paths_check.py --repository "$root" >"$tmp/paths" 2>&1; then ok; else fail "$name:"; cat "$tmp/paths"; fi
fi

if [ -n "$installed" ]; then
    # From an install: only the release's own files and the system's tools.
    mkdir -p "$tmp/home"
    cp -r "$installed/share/turnstile" "$tmp/install-run"
    run_env=(env -i "HOME=$tmp/home" "PATH=$installed/bin:/usr/bin:/bin" "LANG=C.UTF-8")
else
    bazel build //:turnstile //conformance/testees/c-minimal:testee >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; exit 1; }
    bin=$(bazel info bazel-bin 2>/dev/null) && [ -x "$bin/turnstile" ] || { echo "ci/docs_test.sh: no turnstile in bazel-bin" >&2; exit 1; }
    mkdir -p "$tmp/bin"
    ln -s "$bin/turnstile" "$tmp/bin/turnstile"
    export PATH="$tmp/bin:$PATH" TURNSTILE_PROGRAM=turnstile
    run_env=(env)
    # The placeholders of the `example` entries: a stream, a scenario, a document.
    mkdir -p "$tmp/run" && ln -s "$root/conformance" "$tmp/run/conformance"
    cp conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.input.jsonl "$tmp/run/stream.jsonl"
    cp conformance/cases/merge/Merge.O3.seed_A10_Bnull_C5.input.jsonl "$tmp/run/s.json"
    cp conformance/cases/journal/Journal.J1.signal_after_suspend_and_restart.scenario.json "$tmp/run/scenario.json"
    echo '{"b":1,"a":[1.0,2e0,"x"]}' >"$tmp/run/doc.json"
fi
declare -A kit_dirs
while IFS=$'\t' read -r how file command; do
    [ -n "$how" ] || continue
    tag=${how%% *} want=${how#* }
    if [ -n "$installed" ]; then
        [ "$tag" = run ] && [ "$file" = README.md ] || continue
        dir="$tmp/install-run"
    else
        case "$tag" in
            run|example) dir="$tmp/run" ;;
            repo) dir="$root" ;;
            kit)
                kit=$(dirname "$file")
                if [[ "$kit" == */dotnet-* ]] && ! command -v dotnet >/dev/null; then
                    echo "not run (dotnet is not installed): [$file] $command"; not_run=$((not_run + 1)); continue
                fi
                if [ -z "${kit_dirs[$kit]:-}" ]; then
                    kit_dirs[$kit]="$tmp/kits/$(basename "$kit")"
                    mkdir -p "$tmp/kits" && cp -r "$kit" "${kit_dirs[$kit]}"
                    rm -rf "${kit_dirs[$kit]:?}"/{bin,obj,out,node_modules,dist}
                fi
                dir=${kit_dirs[$kit]} ;;
            covered) echo "not run here: [$file] $command  -- $want"; not_run=$((not_run + 1)); continue ;;
            *) fail "$list: unknown tag '$tag'"; continue ;;
        esac
    fi
    (cd "$dir" && "${run_env[@]}" bash -c "$command") >"$tmp/out" 2>&1 </dev/null
    status=$?
    if [ "$status" -eq "$want" ]; then ok; else fail "[$file] $command: exit $status, want $want${installed:+ (from the install $installed)}"; tail -5 "$tmp/out"; fi
done < <(grep -v '^#' "$list")
[ "$not_run" -eq 0 ] || echo "($not_run listed commands not run here, each named above with its reason)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
