#!/usr/bin/env bash
# ci/scripts_test.sh — the scripts that judge, judged like code: a gate that cannot fail is no gate.
#
# Runs the real scripts of ci/ and .ci/ (copied into a scratch tree, so nothing of the checkout is
# touched) with stand-ins first on PATH — `bazel` (ci/testdata/stubs/bazel), the `turnstile`
# binary it "builds", dpkg-query / apt-get / sudo, `dotnet` — that fail or pass as each case
# asks: a failing test, a failing build in each stage, a crashing fuzz target, a testee that
# cannot start, a failing step of .ci/run. Every failure must give a non-zero exit, every pass
# zero. It also proves that a deliberately failing test makes ci/test.sh and .ci/run exit
# non-zero, and that .ci/run's table names the step. Run by ci/test.sh; ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-scripts-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
stubs=$work/stubs bin=$work/bazel-bin
mkdir -p "$stubs" "$bin/fuzz" "$bin/ci/bench"
cp "$root/ci/testdata/stubs/bazel" "$stubs/bazel"
cp "$root/ci/testdata/stubs/turnstile" "$bin/turnstile"
# dpkg-query: every package installed unless named in $STUB_MISSING; apt-get fails when
# $STUB_APT_FAIL is set; sudo runs its command.
cat >"$stubs/dpkg-query" <<'EOF'
#!/usr/bin/env bash
pkg=${!#}
case " ${STUB_MISSING:-} " in *" $pkg "*) exit 1 ;; esac
printf 'install ok installed'
EOF
cat >"$stubs/apt-get" <<'EOF'
#!/usr/bin/env bash
[ -z "${STUB_APT_FAIL:-}" ] || { echo "E: stub: unable to locate package" >&2; exit 100; }
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$stubs/sudo"
# A fuzz binary: replays its inputs and prints what libFuzzer prints, or crashes when its name is
# in $STUB_CRASH. Compiled, not a script: the ClusterFuzzLite check reads its ELF header.
cat >"$work/fuzzer.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *crash = getenv("STUB_CRASH"), *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    if (crash && *crash && strstr(name, crash)) { fprintf(stderr, "==1==ERROR: AddressSanitizer: stub\n"); abort(); }
    (void)argc;
    printf("INFO: stub fuzzer\nDone 3 runs in 0 second(s)\nstat::number_of_executed_units: 3\nstat::average_exec_per_sec: 3\n");
    return 0;
}
EOF
cc -o "$work/fuzzer" "$work/fuzzer.c" || { echo "FAIL cannot compile the stub fuzzer"; exit 1; }
while read -r t; do cp "$work/fuzzer" "$bin/fuzz/${t}_bin"; done < <(grep -v '^#' "$root/fuzz/targets.txt")
chmod +x "$stubs"/* "$bin/turnstile"
# The system's tools, without the runtimes whose presence the scripts test (dotnet, node, npm): a
# case that wants one adds a stand-in to $stubs.
mkdir -p "$work/system"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    for f in "$d"/*; do
        n=${f##*/}
        case "$n" in dotnet|node|nodejs|npm|npx|bazel|bazelisk) continue ;; esac
        [ -x "$f" ] && [ ! -e "$work/system/$n" ] && ln -s "$f" "$work/system/$n"
    done
done
# TMPDIR: what the scripts keep after a failure (fuzz_smoke.sh keeps its directory) goes with $work.
mkdir -p "$work/tmp"
export PATH="$stubs:$work/system" STUB_BIN=$bin STUB_LOG=$work/calls.log TMPDIR=$work/tmp
# runtime NAME: a stand-in for NAME (dotnet, node, npm) that says what it was asked and succeeds
runtime() { printf '#!/usr/bin/env bash\necho "stub %s $*"\n' "$1" >"$stubs/$1"; chmod +x "$stubs/$1"; }

# A fresh scratch tree: the checkout's scripts and what they read, nothing built.
tree=$work/tree
new_tree() {
    rm -rf "$tree" && mkdir -p "$tree"
    (cd "$root" && cp -r --parents ci .ci .clusterfuzzlite fuzz/targets.txt corpora README.md conformance/testees "$tree/") || exit 1
    # As a clean checkout has it: no installs left by an earlier run on this machine.
    find "$tree/conformance/testees" \( -name node_modules -o -name .installed-lock.json -o -name bin -o -name obj \) -prune -exec rm -rf {} + || exit 1
}
# step_stub SCRIPT: replace a script of the tree by one that fails when its name is in $STUB_STEP_FAIL.
step_stub() {
    printf '#!/usr/bin/env bash\necho "stub step %s"\ncase " ${STUB_STEP_FAIL:-} " in *" %s "*) exit 1 ;; esac\n' "$1" "$1" >"$tree/$1"
    chmod +x "$tree/$1"
}
# expect WANT NAME [ENV=VALUE...] -- COMMAND...: runs COMMAND in the tree; WANT is an exit status or
# "non-zero". Leaves the output in $work/out.
expect() {
    local want=$1 name=$2 code=0
    shift 2
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    : >"$STUB_LOG"
    # a bound: a script that hangs fails here (timeout exits 124)
    (cd "$tree" && timeout -k 10 300 env "${env[@]}" "$@") >"$work/out" 2>&1 </dev/null || code=$?
    if { [ "$want" = non-zero ] && [ "$code" -ne 0 ]; } || [ "$want" = "$code" ]; then
        passed=$((passed + 1))
        return 0
    fi
    echo "FAIL $name: exit $code, want $want"
    tail -8 "$work/out" | sed 's/^/    /'
    failed=$((failed + 1))
    return 1
}
# check NAME CONDITION...: one more assertion about the last run.
check() {
    local name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else echo "FAIL $name"; tail -8 "$work/out" | sed 's/^/    /'; failed=$((failed + 1)); fi
}
last_line() { [ "$(tail -1 "$work/out")" = "$1" ]; }

# ---------------------------------------------------------------- ci/test.sh
# The script checks ci/test.sh runs, read from it (a check it gains is stubbed here too).
read -r -a script_checks <<<"$(sed -n 's/^checks=(\(.*\))$/\1/p' "$root/ci/test.sh")"
check test_sh_names_its_script_checks [ "${#script_checks[@]}" -ge 6 ]
new_tree
for s in "${script_checks[@]}"; do step_stub "$s"; done
expect 0 test_sh_all_pass -- ci/test.sh
check test_sh_counts_targets_and_script_checks last_line "$((2 + ${#script_checks[@]})) passed, 0 failed"
expect non-zero test_sh_failing_test 'STUB_FAIL=test --test_summary=short //...' -- ci/test.sh
check test_sh_failing_test_counted last_line "$((1 + ${#script_checks[@]})) passed, 1 failed"
expect non-zero test_sh_failing_asan_test 'STUB_FAIL=test *--config=asan*' -- ci/test.sh
expect non-zero test_sh_timeout STUB_OUTCOME=TIMEOUT 'STUB_FAIL=test *--config=asan*' -- ci/test.sh
check test_sh_timeout_counted last_line "$((1 + ${#script_checks[@]})) passed, 1 failed"
expect non-zero test_sh_gcc_build_failure 'STUB_FAIL=build --config=gcc*' -- ci/test.sh
check test_sh_build_failure_counted last_line "$((2 + ${#script_checks[@]})) passed, 1 failed"
# bazel test exits 1 when a target does not build: no test result line, the failure still counts.
expect non-zero test_sh_build_failure_in_test_stage 'STUB_BROKEN=test --test_summary=short //...' -- ci/test.sh
expect non-zero test_sh_build_failure_in_asan_stage 'STUB_BROKEN=test *--config=asan*' -- ci/test.sh
check test_sh_build_failure_in_asan_counted grep -q ' [1-9][0-9]* failed$' "$work/out"
# The checks run side by side: each failing one still fails the run and is named, in order.
for s in lint scripts_test install_test action_test fuzz_targets_test layering_test; do
    expect non-zero "test_sh_failing_$s" STUB_STEP_FAIL="ci/$s.sh" -- ci/test.sh
    check "test_sh_names_failing_$s" grep -q "^ci/$s.sh FAILED (exit 1)$" "$work/out"
done
expect non-zero test_sh_two_failing_checks "STUB_STEP_FAIL=ci/lint.sh ci/layering_test.sh" -- ci/test.sh
check test_sh_two_failing_checks_in_order python3 -c 'import sys; t=open(sys.argv[1]).read(); a=t.find("ci/lint.sh FAILED"); b=t.find("ci/scripts_test.sh PASSED"); c=t.find("ci/layering_test.sh FAILED"); sys.exit(not (0 <= a < b < c))' "$work/out"
expect non-zero test_sh_setup_fails STUB_MISSING=clang STUB_APT_FAIL=1 -- ci/test.sh

# ---------------------------------------------------------------- .ci/run
# Its own logic, each later step a stand-in: any failing step fails the run, named in the table.
new_tree
for s in "${script_checks[@]}" ci/fuzz_smoke.sh ci/clusterfuzzlite_local.sh ci/release_test.sh ci/docs_test.sh \
    ci/certify_dotnet.sh ci/certify_engines.sh; do step_stub "$s"; done
expect 0 ci_run_all_pass -- .ci/run
check ci_run_table_lists_every_step grep -qE '^certify_engines +passed +[0-9.]+ +([0-9.]+|\?)$' "$work/out"
check ci_run_table_times_steps grep -qE '^readme_certify +passed +[0-9.]+ +[0-9.]+$' "$work/out"
# The CPU column counts the step's own processes, not only the Bazel server's: a step that burns
# a second of CPU in a child process shows at least half of it.
printf '#!/usr/bin/env bash\npython3 -c "import time\nwhile time.process_time() < 1: pass"\n' >"$tree/ci/docs_test.sh"
expect 0 ci_run_counts_a_steps_cpu -- .ci/run
check ci_run_cpu_column_counts_the_step awk '$1 == "docs" && $2 == "passed" && $4 >= 0.5 { found = 1 } END { exit !found }' "$work/out"
step_stub ci/docs_test.sh
# README's two certify commands ran, with this build's turnstile
check ci_run_readme_certify_ran grep -q 'testee.js$' "$STUB_LOG"
# The proof the issue asks for: a deliberately failing test makes .ci/run exit non-zero, with the
# real ci/test.sh in between.
expect non-zero ci_run_failing_test 'STUB_FAIL=test *' -- .ci/run
check ci_run_failing_test_in_table grep -qE '^test +FAILED \(exit 1\)' "$work/out"
check ci_run_later_steps_not_run grep -qE '^certify_engines +not run' "$work/out"
expect non-zero ci_run_failing_long_tests 'STUB_FAIL=test --config=asan --test_summary=short //ci:long_tests' -- .ci/run
check ci_run_failing_long_tests_in_table grep -qE '^long_tests +FAILED' "$work/out"
expect non-zero ci_run_readme_certify_testee_cannot_start 'STUB_CERTIFY_FAIL=*node-minimal*' -- .ci/run
check ci_run_readme_certify_in_table grep -qE '^readme_certify +FAILED' "$work/out"
for s in fuzz_smoke clusterfuzzlite_local release_test docs_test certify_engines; do
    expect non-zero "ci_run_failing_$s" STUB_STEP_FAIL="ci/$s.sh" -- .ci/run
done
runtime dotnet
expect non-zero ci_run_failing_certify_dotnet STUB_STEP_FAIL=ci/certify_dotnet.sh -- .ci/run
rm "$stubs/dotnet"
expect 0 ci_run_without_dotnet_skips STUB_STEP_FAIL=ci/certify_dotnet.sh -- .ci/run

# ---------------------------------------------------------------- ci/setup.sh, ci/turnstile.sh
new_tree
expect 0 setup_quiet_when_installed -- ci/setup.sh fuzz
check setup_prints_nothing test ! -s "$work/out"
expect non-zero setup_install_fails STUB_MISSING=afl++ STUB_APT_FAIL=1 -- ci/setup.sh fuzz
expect 2 setup_unknown_group -- ci/setup.sh everything
expect 0 turnstile_sh_runs_the_build -- ci/turnstile.sh --version
expect non-zero turnstile_sh_build_fails 'STUB_FAIL=build *' -- ci/turnstile.sh --version
expect 1 turnstile_sh_passes_the_status_on -- ci/turnstile.sh certify --mutant x

# ---------------------------------------------------------------- fuzzing scripts
new_tree
step_stub ci/fuzz_launchers.sh
expect 0 fuzz_smoke_passes -- ci/fuzz_smoke.sh 1
expect non-zero fuzz_smoke_libfuzzer_build_fails 'STUB_FAIL=build --config=libfuzzer *' -- ci/fuzz_smoke.sh 1
expect non-zero fuzz_smoke_afl_build_fails 'STUB_FAIL=build --config=afl *' -- ci/fuzz_smoke.sh 1
expect non-zero fuzz_smoke_target_crashes STUB_CRASH=acceptance -- ci/fuzz_smoke.sh 1
check fuzz_smoke_names_the_target grep -q '^FAIL acceptance' "$work/out"
expect non-zero fuzz_smoke_launchers_fail STUB_STEP_FAIL=ci/fuzz_launchers.sh -- ci/fuzz_smoke.sh 1
new_tree
expect 0 fuzz_launchers_pass STUB_FINDINGS=M -- ci/fuzz_launchers.sh 1
expect non-zero fuzz_launchers_a_launcher_fails STUB_FINDINGS=M 'STUB_FAIL=run --config=afl //fuzz:codec_roundtrip_run*' -- ci/fuzz_launchers.sh 1
expect non-zero fuzz_launchers_no_finding -- ci/fuzz_launchers.sh 1
expect non-zero fuzz_launchers_setup_fails STUB_FINDINGS=M STUB_MISSING=afl++ STUB_APT_FAIL=1 -- ci/fuzz_launchers.sh 1
expect non-zero fuzz_mutants_build_fails 'STUB_FAIL=build *' -- ci/fuzz_mutants.sh 1
expect 0 fuzz_mutants_runs -- ci/fuzz_mutants.sh 1
expect non-zero fuzz_mutants_broken_fuzzer STUB_CRASH=differential -- ci/fuzz_mutants.sh 1
expect 0 clusterfuzzlite_passes -- ci/clusterfuzzlite_local.sh
expect non-zero clusterfuzzlite_build_fails 'STUB_FAIL=build *' -- ci/clusterfuzzlite_local.sh
expect non-zero clusterfuzzlite_target_crashes STUB_CRASH=differential_resume -- ci/clusterfuzzlite_local.sh
# A fuzz binary needing a library the base-runner image lacks, not bundled: refused.
cc -o "$work/needs_sqlite" "$work/fuzzer.c" -Wl,--no-as-needed -lsqlite3 || exit 1
cp "$work/needs_sqlite" "$bin/fuzz/merge_bytes_bin"
expect non-zero clusterfuzzlite_refuses_unbundled_library -- ci/clusterfuzzlite_local.sh
check clusterfuzzlite_names_the_library grep -q 'libsqlite3.so.0' "$work/out"
cp "$work/fuzzer" "$bin/fuzz/merge_bytes_bin"
# ci/fuzz_out_check.sh on made-up $OUT directories: a library bundled and found through
# $ORIGIN/lib passes; unbundled, or bundled without the rpath, it is refused.
mkdir -p "$work/out-ok/lib" "$work/out-none" "$work/out-norpath/lib"
cc -o "$work/out-ok/target" "$work/fuzzer.c" -Wl,--no-as-needed -lsqlite3 '-Wl,-rpath,$ORIGIN/lib' || exit 1
cp "$(realpath "$(ldd "$work/out-ok/target" | awk '$1 == "libsqlite3.so.0" { print $3 }')")" "$work/out-ok/lib/libsqlite3.so.0"
cp "$work/needs_sqlite" "$work/out-none/target"
cp "$work/needs_sqlite" "$work/out-norpath/target" && cp "$work/out-ok/lib/libsqlite3.so.0" "$work/out-norpath/lib/"
expect 0 fuzz_out_check_accepts_a_bundled_library -- "$root/ci/fuzz_out_check.sh" "$work/out-ok"
check fuzz_out_check_names_the_bundled_library grep -q '^target: .*from \$OUT/lib, libsqlite3.so.0' "$work/out"
expect non-zero fuzz_out_check_refuses_an_unbundled_library -- "$root/ci/fuzz_out_check.sh" "$work/out-none"
check fuzz_out_check_says_neither grep -q 'needs libsqlite3.so.0, which is neither bundled' "$work/out"
expect non-zero fuzz_out_check_refuses_a_missing_rpath -- "$root/ci/fuzz_out_check.sh" "$work/out-norpath"
check fuzz_out_check_names_the_rpath grep -q 'RUNPATH is' "$work/out"
expect non-zero fuzz_out_check_refuses_an_empty_out -- "$root/ci/fuzz_out_check.sh" "$work/out-empty-none"

# ---------------------------------------------------------------- certification scripts
new_tree
expect 0 certify_engines_pass -- ci/certify_engines.sh "$work/engines"
check certify_engines_skips_langgraph_without_node grep -q '^skipped: node-langgraph (node not installed)' "$work/out"
runtime node
runtime npm
expect 0 certify_engines_with_node -- ci/certify_engines.sh "$work/engines"
check certify_engines_certifies_langgraph grep -q '^node-langgraph-careful ' "$work/out"
# the power-loss gate: each run against ci/power-loss/NAME.expected, its failures and its level
check certify_engines_gates_power_loss grep -q '^node-langgraph-careful-syncfull-power-loss .*durability power-loss' "$work/out"
check certify_engines_passes_the_list grep -q -- '--expected-failures ci/power-loss/node-langgraph-careful-power-loss.expected' "$STUB_LOG"
expect non-zero certify_engines_power_loss_new_failure 'STUB_GATE_FAIL=*node-langgraph-careful-power-loss*' -- ci/certify_engines.sh "$work/engines"
check certify_engines_names_the_list grep -q "node-langgraph-careful-power-loss's failures are not" "$work/out"
expect non-zero certify_engines_durability_changes STUB_DURABILITY=none -- ci/certify_engines.sh "$work/engines"
check certify_engines_names_the_level grep -q 'reaches durability none, ci/power-loss/reference-power-loss.expected says power-loss' "$work/out"
printf '#!/usr/bin/env bash\nexit 1\n' >"$stubs/npm"
expect non-zero certify_engines_npm_fails -- ci/certify_engines.sh "$work/engines"
rm "$stubs/node" "$stubs/npm"
expect non-zero certify_engines_build_fails 'STUB_FAIL=build *' -- ci/certify_engines.sh "$work/engines"
expect non-zero certify_engines_reference_fails 'STUB_CERTIFY_FAIL=*turnstile testee*' -- ci/certify_engines.sh "$work/engines"
expect non-zero certify_engines_kit_cannot_start 'STUB_CERTIFY_FAIL=*python-resume*' -- ci/certify_engines.sh "$work/engines"
runtime dotnet
printf '#!/usr/bin/env bash\nmkdir -p "$1"\nprintf "dotnet-meai\\tdotnet %%s/meai.dll\\n" "$1"\nprintf "dotnet-af-workflow\\tdotnet %%s/af-workflow.dll\\n" "$1"\n[ -z "${STUB_DOTNET_BUILD_FAIL:-}" ]\n' \
    >"$tree/conformance/testees/dotnet-build.sh"
expect 0 certify_dotnet_passes -- ci/certify_dotnet.sh "$work/dotnet"
# the branching gate: dotnet-af-workflow's one edit case must run and pass
check certify_dotnet_gates_branching grep -q '^branching: dotnet-af-workflow Resume.U12.edit_in_the_middle' "$work/out"
expect non-zero certify_dotnet_branching_fails 'STUB_CERTIFY_FAIL=*Resume.U12.edit_in_the_middle*' -- ci/certify_dotnet.sh "$work/dotnet"
expect non-zero certify_dotnet_branching_skipped 'STUB_CERTIFY_SKIP=*Resume.U12.edit_in_the_middle*' -- ci/certify_dotnet.sh "$work/dotnet"
check certify_dotnet_names_the_branching_case grep -q 'no longer passes Resume.U12.edit_in_the_middle' "$work/out"
expect non-zero certify_dotnet_build_fails STUB_DOTNET_BUILD_FAIL=1 -- ci/certify_dotnet.sh "$work/dotnet"
expect non-zero certify_dotnet_adapter_cannot_start 'STUB_CERTIFY_FAIL=*meai.dll*' -- ci/certify_dotnet.sh "$work/dotnet"
rm "$stubs/dotnet"
expect 3 certify_dotnet_without_dotnet -- ci/certify_dotnet.sh "$work/dotnet"
# conformance/testees/dotnet-build.sh with TURNSTILE_DOTNET_CACHE: built once, again only when a
# project's sources change (a stand-in dotnet that logs each publish and writes the dll).
new_tree
cat >"$stubs/dotnet" <<'STUB'
#!/usr/bin/env bash
case "$1" in
    --version) echo 10.0.0-stub ;;
    restore) ;;
    publish) echo "publish $2" >>"$STUB_DOTNET_LOG"
        while [ $# -gt 0 ]; do [ "$1" = -o ] && { mkdir -p "$2"; touch "$2/$(basename "$2").dll"; }; shift; done ;;
esac
STUB
chmod +x "$stubs/dotnet"
publishes() { grep -c '^publish' "$work/dotnet.log" 2>/dev/null || true; }
projects=$(find "$tree/conformance/testees" -maxdepth 2 -name 'dotnet-*.csproj' | wc -l)
expect 0 dotnet_build_fills_the_cache STUB_DOTNET_LOG="$work/dotnet.log" TURNSTILE_DOTNET_CACHE="$work/dncache" -- conformance/testees/dotnet-build.sh "$work/dn1"
check dotnet_build_publishes_each_project [ "$(publishes)" -eq "$projects" ] && [ "$projects" -ge 5 ]
check dotnet_build_prints_the_cached_dll grep -q "dotnet $work/dncache/dotnet-meai/dotnet-meai.dll" "$work/out"
expect 0 dotnet_build_reuses_the_cache STUB_DOTNET_LOG="$work/dotnet.log" TURNSTILE_DOTNET_CACHE="$work/dncache" -- conformance/testees/dotnet-build.sh "$work/dn2"
check dotnet_build_publishes_nothing_again [ "$(publishes)" -eq "$projects" ]
echo '// changed' >>"$tree/conformance/testees/dotnet-meai/Program.cs"
expect 0 dotnet_build_rebuilds_a_changed_project STUB_DOTNET_LOG="$work/dotnet.log" TURNSTILE_DOTNET_CACHE="$work/dncache" -- conformance/testees/dotnet-build.sh "$work/dn3"
check dotnet_build_publishes_only_the_changed_one [ "$(publishes)" -eq $((projects + 1)) ] && [ "$(tail -1 "$work/dotnet.log")" = "publish $tree/conformance/testees/dotnet-meai/dotnet-meai.csproj" ]
rm "$stubs/dotnet"

expect non-zero release_build_fails 'STUB_FAIL=build *' -- ci/release.sh "$work/dist"
expect non-zero release_test_build_fails 'STUB_FAIL=build *' -- ci/release_test.sh
expect non-zero docs_test_build_fails 'STUB_FAIL=build *' -- ci/docs_test.sh

# ci/docs_paths_check.py --repository (docs_test's path check): a dangling link or backticked path
# in a tracked markdown file fails it; upstream paths and placeholders do not.
fixture="$work/docs_paths"
rm -rf "$fixture" && mkdir -p "$fixture/ci" "$fixture/conformance/kit" && touch "$fixture/ci/real.sh"
printf 'run `ci/real.sh`, `./kit` and [k](kit/); upstream `dotnet/src/X.cs`, `@scope/pkg`, `<yours>/x`\n' >"$fixture/conformance/README.md"
git -C "$fixture" init -q && git -C "$fixture" add -A
expect 0 docs_paths_check_passes_what_exists -- python3 "$root/ci/docs_paths_check.py" --repository "$fixture"
printf 'see `ci/gone.sh:12` and [old](../old.md)\n' >>"$fixture/conformance/README.md"
expect 1 docs_paths_check_fails_a_dangling_path -- python3 "$root/ci/docs_paths_check.py" --repository "$fixture"
check docs_paths_check_names_line_and_path grep -q '^conformance/README.md:2: ci/gone.sh does not exist$' "$work/out"

# ci/function_lengths.py (layering_test's function gate): a long function in the project's sources
# is listed; one in a testee's npm packages (node_modules, which a checkout has after npm ci) is not.
fixture="$work/lengths"
rm -rf "$fixture" && mkdir -p "$fixture/core" "$fixture/conformance/testees/x/node_modules/y"
{ echo 'static int long_one(void) {'; for i in $(seq 90); do echo "    int v$i = $i;"; done; echo '    return 0;'; echo '}'; } >"$fixture/core/a.c"
cp "$fixture/core/a.c" "$fixture/conformance/testees/x/node_modules/y/b.c"
expect 0 function_lengths_lists_the_projects -- python3 "$root/ci/function_lengths.py" "$fixture/core" "$fixture/conformance"
check function_lengths_skips_node_modules [ "$(tail -1 "$work/out")" = "1 functions over 80 lines" ]

# ci/include_circles.py (layering_test's circle gate, which allows none): two modules that include
# each other are a circle, named; a module's private header (no .c of its own) is followed through
# and makes none.
fixture="$work/circles"
rm -rf "$fixture" && mkdir -p "$fixture/core"
printf '#include "core/b.h"\n' >"$fixture/core/a.h" && printf '#include "core/a.h"\n' >"$fixture/core/b.c"
printf '#include "core/c_internal.h"\n' >"$fixture/core/c.c" && printf '#include "core/c.h"\n' >"$fixture/core/c_internal.h"
touch "$fixture/core/a.c" "$fixture/core/b.h" "$fixture/core/c.h"
expect 0 include_circles_names_a_circle -- bash -c 'cd "$1" && python3 "$2/ci/include_circles.py" core' _ "$fixture" "$root"
check include_circles_names_the_two_modules grep -qx 'circle: core/a <-> core/b' "$work/out"
check include_circles_counts_one last_line "1 circles among 3 modules"

# ---------------------------------------------------------------- benchmarks: a failing step fails them
new_tree
for b in certify_bench check_bench fuzz_bench journal_bench merge_bench resume_bench; do
    expect non-zero "bench_${b}_build_fails" 'STUB_FAIL=build *' -- "ci/bench/$b.sh"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
