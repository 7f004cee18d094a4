#!/usr/bin/env bash
# ci/certify_dotnet.sh OUTDIR — certify real .NET code: build every adapter in
# conformance/testees/dotnet-*/ (Microsoft.Extensions.AI's ToChatResponse, the Agent
# Framework's ToAgentResponse and MessageMerger, the C# kit) against the NuGet versions their
# lock files pin, certify each with `turnstile certify` over the pipe, and write per
# implementation OUTDIR/<name>.json, .xml and .txt, plus one combined table
# (OUTDIR/table.md, OUTDIR/table.html; `turnstile report`).
#
# Exit 0 when every certification ran, whatever the libraries scored; non-zero with a clear
# message when it could not: 3 when dotnet is not installed, 1 when a restore or build failed
# or an adapter could not be certified (crashed at start, no answer at all).
set -euo pipefail
trap 'echo "ci/certify_dotnet.sh: failed at line $LINENO" >&2' ERR
outdir="${1:?usage: ci/certify_dotnet.sh OUTDIR}"
cd "$(dirname "$0")/.."
if ! command -v dotnet >/dev/null 2>&1; then
    echo "skipped: dotnet not installed" >&2
    exit 3
fi
ci/setup.sh
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
bazel build //:turnstile >"$outdir/bazel.log" 2>&1 || { tail -20 "$outdir/bazel.log" >&2; exit 1; }
turnstile="$(bazel info bazel-bin 2>/dev/null)/turnstile"
if ! conformance/testees/dotnet-build.sh "$outdir/build" >"$outdir/adapters.tsv" 2>"$outdir/build.log"; then
    tail -30 "$outdir/build.log" >&2
    echo "ci/certify_dotnet.sh: building the .NET adapters failed (log: $outdir/build.log)" >&2
    exit 1
fi
reports=()
status=0
while IFS=$'\t' read -r name command; do
    [ -n "$name" ] || continue
    [ "$name" = dotnet-echo ] && continue # the round-trip adapter merges nothing: see below
    # resume engines (the Agent Framework's session and workflow adapters) merge nothing either:
    # ci/certify_engines.sh certifies them under the resume protocol
    grep -qs '<TurnstileOp>resume</TurnstileOp>' conformance/testees/"$name"/"$name".csproj && continue
    start=$(date +%s.%N)
    code=0
    # shellcheck disable=SC2086  # COMMAND is a command line: dotnet PATH.dll
    "$turnstile" certify --platform dotnet --report-json "$outdir/$name.json" --junit "$outdir/$name.xml" -- $command \
        >"$outdir/$name.txt" 2>&1 || code=$?
    end=$(date +%s.%N)
    if [ "$code" -gt 1 ] || [ ! -s "$outdir/$name.json" ]; then
        echo "ci/certify_dotnet.sh: could not certify $name (exit $code):" >&2
        tail -5 "$outdir/$name.txt" >&2
        status=1
        continue
    fi
    printf '%-36s %s   (%.1f s)\n' "$name" "$(tail -1 "$outdir/$name.txt")" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
    reports+=("$outdir/$name.json")
done <"$outdir/adapters.tsv"
# The wire round trip: every merge case through .NET's own deserializer and back.
echo_command=$(awk -F'\t' '$1 == "dotnet-echo" { print $2 }' "$outdir/adapters.tsv")
if [ -n "$echo_command" ]; then
    # shellcheck disable=SC2086
    if python3 ci/dotnet_roundtrip.py "$turnstile" $echo_command >"$outdir/roundtrip.txt" 2>&1; then
        echo "round trip: $(head -1 "$outdir/roundtrip.txt"); $(tail -1 "$outdir/roundtrip.txt")"
    else
        cat "$outdir/roundtrip.txt" >&2
        echo "ci/certify_dotnet.sh: the round trip through .NET lost or changed values" >&2
        status=1
    fi
fi
# One branching case as a gate (issue 27): dotnet-af-workflow edits through the library's checkpoint
# tree (conformance/certified/resume/dotnet-af-FINDINGS.md, "Branching"). Uninterrupted, a few
# seconds; it must run and pass (a hello that stops listing "edit" skips it, and that fails too).
branch_command=$(awk -F'\t' '$1 == "dotnet-af-workflow" { print $2 }' "$outdir/adapters.tsv")
if [ -n "$branch_command" ]; then
    code=0
    # shellcheck disable=SC2086
    "$turnstile" certify --cases Resume.U12.edit_in_the_middle --kill-points none --timeout 60 -- $branch_command \
        >"$outdir/dotnet-af-workflow-branching.txt" 2>&1 || code=$?
    if [ "$code" -eq 0 ] && tail -1 "$outdir/dotnet-af-workflow-branching.txt" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped$'; then
        echo "branching: dotnet-af-workflow Resume.U12.edit_in_the_middle: $(tail -1 "$outdir/dotnet-af-workflow-branching.txt")"
    else
        tail -5 "$outdir/dotnet-af-workflow-branching.txt" >&2
        echo "ci/certify_dotnet.sh: dotnet-af-workflow no longer passes Resume.U12.edit_in_the_middle (exit $code; $outdir/dotnet-af-workflow-branching.txt)" >&2
        status=1
    fi
fi
if [ "${#reports[@]}" -gt 0 ]; then
    "$turnstile" report "${reports[@]}" --markdown --out "$outdir/table.md"
    "$turnstile" report "${reports[@]}" --html --out "$outdir/table.html"
    echo "table: $outdir/table.md, $outdir/table.html"
fi
exit "$status"
