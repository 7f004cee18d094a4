#!/usr/bin/env bash
# ci/action/certify.sh — the certify step of the turnstile GitHub Action (action.yml), also
# runnable by hand or from any other CI. Reads:
#   TURNSTILE_COMMAND              the testee's command line (run with bash -c)
#   TURNSTILE_EXPECTED_FAILURES    optional expected-failures list to gate on
#   TURNSTILE_PLATFORM             optional --platform
#   TURNSTILE_SHARD                optional --shard K/N (digits/digits, else bad usage: exit 2)
#   TURNSTILE_ARGS                 optional further certify options: split into words like a shell
#                                  splits them (blanks; '...', "..." and \ quote), nothing expanded
#                                  ($, `...`, globs and ; stay as written); an unmatched quote is
#                                  bad usage (exit 2)
#   TURNSTILE_JUNIT, TURNSTILE_REPORT_JSON   outputs (defaults turnstile-junit.xml, turnstile-report.json)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT       when set: the summary (verdict, gate, compliance
#                                            table) and the `verdict` output are written there
# Exits with certify's status: 0 pass, 1 failures, 2 bad usage, 3 testee could not start.
set -uo pipefail
: "${TURNSTILE_COMMAND:?TURNSTILE_COMMAND is the testee command}"
junit="${TURNSTILE_JUNIT:-turnstile-junit.xml}"
report="${TURNSTILE_REPORT_JSON:-turnstile-report.json}"
options=(--junit "$junit" --report-json "$report")
[ -n "${TURNSTILE_EXPECTED_FAILURES:-}" ] && options+=(--expected-failures "$TURNSTILE_EXPECTED_FAILURES")
[ -n "${TURNSTILE_PLATFORM:-}" ] && options+=(--platform "$TURNSTILE_PLATFORM")
if [ -n "${TURNSTILE_SHARD:-}" ]; then
    if ! [[ "$TURNSTILE_SHARD" =~ ^[0-9]+/[0-9]+$ ]]; then
        echo "turnstile action: shard must be K/N (e.g. 2/4), not: $TURNSTILE_SHARD" >&2
        exit 2
    fi
    options+=(--shard "$TURNSTILE_SHARD")
fi
out=$(mktemp)
words=$(mktemp)
trap 'rm -f "$out" "$words"' EXIT
if [ -n "${TURNSTILE_ARGS:-}" ]; then
    # xargs splits words the way a shell quotes them, and runs nothing but printf: no input is code.
    if ! printf '%s' "$TURNSTILE_ARGS" | xargs -r printf '%s\0' >"$words"; then
        echo "turnstile action: cannot split the args input (an unmatched quote?): $TURNSTILE_ARGS" >&2
        exit 2
    fi
    mapfile -d '' -t extra <"$words"
    options+=("${extra[@]}")
fi
turnstile certify "${options[@]}" -- bash -c "$TURNSTILE_COMMAND" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
verdict=$(sed -n 's/^verdict: \([A-Z ]*\):.*/\1/p' "$out" | tr '[:upper:]' '[:lower:]')
[ -n "${GITHUB_OUTPUT:-}" ] && echo "verdict=${verdict:-not certified}" >>"$GITHUB_OUTPUT"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    {
        echo "## turnstile certify: $( [ "$status" -eq 0 ] && echo passed || echo "failed (exit $status)")"
        echo
        echo '```'
        grep -E '^(turnstile |verdict:|gate:|NEW FAILURE|UNEXPECTED PASS|STALE ENTRY|to accept|set apart|[0-9]+ passed, )' "$out"
        echo '```'
        echo
        [ -s "$report" ] && turnstile report "$report" --markdown
    } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
