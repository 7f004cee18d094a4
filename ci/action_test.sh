#!/usr/bin/env bash
# ci/action_test.sh — the GitHub Action (ci/action/action.yml) run as GitHub runs it
# (ci/testdata/run_action.py), against a local release site, with a stand-in release (the stub
# turnstile of ci/testdata/stubs, which records its arguments):
#   * it installs from its own repository, read from its path (uses: acme/turnstile-fork/ci/
#     action@v0.4.0), or from the repository input, or, used as ./ci/action, from the workflow's;
#   * every input reaches the steps through env: (run_action.py refuses `${{` in a run: script,
#     shown on a copy that does it), and no input but `command` runs as code: hostile values —
#     $(...), backticks, ;, quotes, newlines — in version, repository, args, expected-failures,
#     platform, junit, report-json and working-directory touch no file, and args arrive as the
#     literal words;
#   * a failing certification fails the step, and its status is certify's.
# Run by ci/test.sh; ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-action-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*"; sed 's/^/    /' "$work/out" | tail -8; failed=$((failed + 1)); }
python3 -c 'import yaml' 2>/dev/null || { echo "FAIL python3 has no yaml module (ci/setup.sh test installs python3-yaml)"; exit 1; }

# The action as `uses: acme/turnstile-fork/ci/action@v0.4.0` checks it out.
action_dir=$work/runner/_actions/acme/turnstile-fork/v0.4.0/ci/action
mkdir -p "$action_dir"
cp "$root/ci/install.sh" "$action_dir/.."
cp "$root"/ci/action/* "$action_dir/"
# The release site, per repository; curl answers github.com's release URLs from it (and logs them).
for repo in acme/turnstile-fork other/repo acme/workflow-repo; do
    top=$work/build/turnstile-0.4.0-linux-x86_64
    rm -rf "$work/build" && mkdir -p "$top/bin" "$top/share/turnstile/suite" "$top/share/doc/turnstile"
    cp "$root/ci/testdata/stubs/turnstile" "$top/bin/turnstile"
    mkdir -p "$work/site/$repo/v0.4.0"
    tar -C "$work/build" -czf "$work/site/$repo/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz" turnstile-0.4.0-linux-x86_64
    (cd "$work/site/$repo/v0.4.0" && sha256sum turnstile-0.4.0-linux-x86_64.tar.gz >turnstile-0.4.0-linux-x86_64.tar.gz.sha256)
done
mkdir -p "$work/stubs"
cat >"$work/stubs/curl" <<EOF
#!/usr/bin/env bash
args=()
for a in "\$@"; do
    case "\$a" in https://github.com/*/releases/download/*)
        echo "\$a" >>"$work/urls"; a="file://$work/site/\${a#https://github.com/}"; a="\${a/\/releases\/download/}" ;;
    esac
    args+=("\$a")
done
exec $(command -v curl) "\${args[@]}"
EOF
chmod +x "$work/stubs/curl"

# act NAME INPUTS_JSON [ENV=VALUE...]: runs the action from a fresh workspace; output in $work/out.
act() {
    name=$1
    local inputs=$2 code=0
    shift 2
    rm -rf "$work/ws" "$work/temp" "$work/urls" "$work/calls" "$work"/github_* "$work"/pwned*
    mkdir -p "$work/ws/team" "$work/temp"
    : >"$work/calls"
    printf '%s' "$inputs" >"$work/inputs.json"
    (cd "$work/ws" && env PATH="$work/stubs:$PATH" GITHUB_ACTION_PATH="$action_dir" GITHUB_WORKSPACE="$work/ws" \
        GITHUB_REPOSITORY=acme/workflow-repo RUNNER_TEMP="$work/temp" GITHUB_PATH="$work/github_path" \
        GITHUB_OUTPUT="$work/github_output" GITHUB_STEP_SUMMARY="$work/github_summary" STUB_LOG="$work/calls" "$@" \
        python3 "$root/ci/testdata/run_action.py" "$action_dir/action.yml" "$work/inputs.json") >"$work/out" 2>&1 || code=$?
    return "$code"
}
nothing_ran() { ! compgen -G "$work/pwned*" >/dev/null && ! compgen -G "$work/ws/pwned*" >/dev/null && ! compgen -G "$work/ws/team/pwned*" >/dev/null; }

act installs_from_the_actions_own_repository '{"version": "0.4.0", "command": "python3 testee.py", "working-directory": "team"}'
code=$?
[ "$code" -eq 0 ] && grep -qx 'https://github.com/acme/turnstile-fork/releases/download/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz' "$work/urls" \
    && grep -qx "$work/temp/turnstile/bin" "$work/github_path" \
    && grep -qx 'turnstile certify --junit turnstile-junit.xml --report-json turnstile-report.json -- bash -c python3 testee.py' "$work/calls" \
    && [ -f "$work/ws/team/turnstile-junit.xml" ] && grep -qx 'output verdict=conformant' "$work/out" \
    && grep -q '^## turnstile certify: passed' "$work/github_summary" && ok || fail "exit $code"
act shard_reaches_certify '{"version": "0.4.0", "command": "python3 testee.py", "shard": "2/3", "report-json": "r2.json"}'
code=$?
[ "$code" -eq 0 ] && grep -qx 'turnstile certify --junit turnstile-junit.xml --report-json r2.json --shard 2/3 -- bash -c python3 testee.py' "$work/calls" \
    && ok || fail "exit $code: $(tail -2 "$work/calls")"
act shard_not_k_of_n_is_bad_usage '{"version": "0.4.0", "command": "true", "shard": "1/2 --cases x"}'
code=$?
[ "$code" -ne 0 ] && grep -q 'shard must be K/N' "$work/out" && ! grep -q -- '--cases x' "$work/calls" && ok || fail "exit $code"
act installs_from_the_repository_input '{"version": "v0.4.0", "repository": "other/repo", "command": "true"}'
code=$?
[ "$code" -eq 0 ] && grep -q '^https://github.com/other/repo/releases/download/v0.4.0/' "$work/urls" && ok || fail "not from other/repo"
action_dir_remote=$action_dir
action_dir=$work/ws-local/ci/action
mkdir -p "$work/ws-local" && cp -r "$(dirname "$action_dir_remote")" "$work/ws-local/ci"
act local_action_installs_from_the_workflows_repository '{"version": "0.4.0", "command": "true"}' GITHUB_WORKSPACE="$work/ws-local"
code=$?
[ "$code" -eq 0 ] && grep -q '^https://github.com/acme/workflow-repo/releases/download/' "$work/urls" && ok || fail "not from the workflow's repository"
action_dir=$action_dir_remote

act failing_certification_fails_the_step '{"version": "0.4.0", "command": "true", "args": "--mutant regression"}'
code=$?
[ "$code" -eq 1 ] && grep -q '^## turnstile certify: failed (exit 1)' "$work/github_summary" && ok || fail "exit $code"
act testee_that_cannot_start_is_exit_3 '{"version": "0.4.0", "command": "true"}' 'STUB_CERTIFY_FAIL=*'
code=$?
[ "$code" -eq 3 ] && ok || fail "exit $code"

# Hostile inputs: each would touch a pwned file if any shell evaluated it.
hostile() { # a value carrying every way into code, tagged
    printf '%s' "x\$(touch $work/pwned-$1-subst)\`touch $work/pwned-$1-backtick\`;touch $work/pwned-$1-semicolon '\"\$(touch $work/pwned-$1-quoted)\"'
touch $work/pwned-$1-newline"
}
json() { python3 -c 'import json, sys; print(json.dumps(dict(zip(sys.argv[1::2], sys.argv[2::2]))))' "$@"; }
act hostile_version "$(json version "0.4.0$(hostile version)" command true)"
code=$?
[ "$code" -ne 0 ] && grep -q 'is not a version' "$work/out" && nothing_ran && ok || fail "exit $code; ran: $(compgen -G "$work/pwned*")"
act hostile_repository "$(json version 0.4.0 repository "acme/x$(hostile repository)" command true)"
code=$?
[ "$code" -ne 0 ] && grep -q 'cannot tell the repository' "$work/out" && nothing_ran && ok || fail "exit $code"
act hostile_args "$(json version 0.4.0 command true args "--cases 'Merge.*' $(hostile args)")"
code=$?
[ "$code" -eq 0 ] && nothing_ran && grep -qF -- "--cases Merge.* x\$(touch $work/pwned-args-subst)\`touch $work/pwned-args-backtick\`;touch" "$work/calls" \
    && ok || fail "exit $code; $(cat "$work/calls")"
act unmatched_quote_in_args "$(json version 0.4.0 command true args "--cases 'Merge.*")"
code=$?
[ "$code" -eq 2 ] && grep -q 'cannot split the args input' "$work/out" && ok || fail "exit $code"
act hostile_paths_and_options "$(json version 0.4.0 command true expected-failures "known$(hostile xfail)" platform "$(hostile platform)" \
    junit "j$(hostile junit).xml" report-json "r$(hostile report).json")"
code=$?
nothing_ran && grep -qF -- "--expected-failures knownx\$(touch $work/pwned-xfail-subst)" "$work/calls" && ok || fail "exit $code"
mkdir -p "$work/wd"
name_dir="wd\$(touch $work/pwned-wd)\`touch $work/pwned-wd2\`"
act hostile_working_directory "$(json version 0.4.0 command true working-directory "$name_dir")"
code=$?
[ "$code" -ne 0 ] && nothing_ran && ok || fail "exit $code (the directory does not exist: the step must fail, running nothing)"

# The runner's own check can fail: a copy of the action that interpolates an input into run:.
cp -r "$(dirname "$action_dir_remote")" "$work/careless"
sed -i 's|run: '"'"'"$GITHUB_ACTION_PATH/install_step.sh"'"'"'|run: echo ${{ inputs.version }}|' "$work/careless/action/action.yml"
action_dir=$work/careless/action
act runner_refuses_inputs_in_run_scripts '{"version": "0.4.0", "command": "true"}'
code=$?
[ "$code" -eq 90 ] && grep -q 'interpolates an expression' "$work/out" && ok || fail "exit $code"
action_dir=$action_dir_remote

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
