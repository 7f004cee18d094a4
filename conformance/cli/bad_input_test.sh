#!/usr/bin/env bash
# bad_input_test.sh — runs conformance/cli/bad_inputs.txt: each bad input must give exactly the
# error line the table names, its exit status and nothing on stdout (issue 13.5, 13.14).
#
# usage: bad_input_test.sh path/to/turnstile path/to/bad_inputs.txt
set -u
TURNSTILE=$(cd "$(dirname "${1:?usage: bad_input_test.sh TURNSTILE TABLE}")" && pwd)/$(basename "$1")
TABLE=${2:?usage: bad_input_test.sh TURNSTILE TABLE}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

run_case() {
    [ -n "$command" ] || return 0 # the header, or a block that runs nothing
    local dir="$TMP/case$((passed + failed))"
    mkdir -p "$dir"
    if [ -n "$repeat" ]; then
        for ((k = 0; k < ${repeat%% *}; k++)); do printf '%s' "${repeat#* }"; done >"$dir/input"
    elif [ -n "$format" ]; then
        # shellcheck disable=SC2059  # the table's FORMAT is a printf format (escapes, repeats)
        printf -- "$format" >"$dir/input"
    fi
    local -a args
    read -r -a args <<<"$command"
    (cd "$dir" && "$TURNSTILE" "${args[@]}" >out 2>err </dev/null)
    local status=$?
    local got
    got=$(cat "$dir/err")
    if [ "$status" != "$want_status" ] || [ "$got" != "$want_error" ] || [ -s "$dir/out" ]; then
        echo "FAIL $name" >&2
        echo "  turnstile $command -> exit $status (want $want_status)" >&2
        echo "  got:  $got" >&2
        echo "  want: $want_error" >&2
        [ -s "$dir/out" ] && echo "  stdout: $(head -c 200 "$dir/out")" >&2
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

name="" format="" repeat="" command="" want_status="" want_error=""
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
    "# "*) name=${line#\# } ;;
    "< "*) format=${line#< } ;;
    "<* "*) repeat=${line#<\* } ;;
    '$ '*) command=${line#\$ } ;;
    "? "*) want_status=${line#\? } ;;
    "! "*) want_error=${line#! } ;;
    "")
        run_case
        name="" format="" repeat="" command="" want_status="" want_error=""
        ;;
    esac
done <"$TABLE"
run_case
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 20 ]
