#!/usr/bin/env bash
# ci/certify_engines.sh OUTDIR — certify resume engines under the resume protocol: the certifier
# plays their model and tools and kills their process at every point of every case
# (conformance/PROTOCOL.md, op resume; SPEC.md §6.4). Certified:
#   * the reference, over the pipe (`turnstile testee`), and its six resume mutants;
#   * the Python resume kit (conformance/testees/python-resume), an engine of another design;
#   * the real engines, where their adapters and runtimes exist: LangGraph JS
#     (conformance/testees/node-langgraph, needs node and its npm install) and the Agent
#     Framework (conformance/testees/dotnet-af-*, built by dotnet-build.sh, needs dotnet) —
#     each one not certified is named with the reason.
# Writes OUTDIR/<name>.json (with each case's history), .txt, and the compliance table
# OUTDIR/table.md and table.html (`turnstile report`).
#
# Exit 0 when the reference passes every case, every mutant fails, and every testee that could
# run was certified; 1 otherwise. KILL_POINTS (all, none or N) bounds the sweep; CASES the cases.
set -euo pipefail
trap 'echo "ci/certify_engines.sh: failed at line $LINENO" >&2' ERR
outdir="${1:?usage: ci/certify_engines.sh OUTDIR}"
cd "$(dirname "$0")/.."
kill_points="${KILL_POINTS:-all}"
cases="${CASES:-Resume.*}"
rules=U1,U2,U3,U4,U5,U6,U7,U8,U9,U10 # the universal tier: the table shows only its rules
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
bazel build //:turnstile >"$outdir/bazel.log" 2>&1 || { tail -20 "$outdir/bazel.log" >&2; exit 1; }
turnstile="$(bazel info bazel-bin 2>/dev/null)/turnstile" # the default configuration's, whatever was built last
status=0
reports=()

# certify NAME EXPECT [turnstile certify arguments...]: EXPECT is pass (every case must pass),
# fail (some case must fail: a mutant) or any (a real engine: whatever it scores).
certify() {
    local name=$1 expect=$2 code=0 start end
    shift 2
    start=$(date +%s.%N)
    "$turnstile" certify --cases "$cases" --rules "$rules" --kill-points "$kill_points" \
        --report-json "$outdir/$name.json" "$@" >"$outdir/$name.txt" 2>&1 || code=$?
    end=$(date +%s.%N)
    if [ "$code" -gt 1 ] || [ ! -s "$outdir/$name.json" ]; then
        echo "ci/certify_engines.sh: could not certify $name (exit $code):" >&2
        tail -5 "$outdir/$name.txt" >&2
        status=1
        return
    fi
    reports+=("$outdir/$name.json")
    printf '%-44s %s   (%.1f s)\n' "$name" "$(tail -1 "$outdir/$name.txt")" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
    if [ "$expect" = pass ] && [ "$code" -ne 0 ]; then
        echo "ci/certify_engines.sh: $name fails cases it must pass (see $outdir/$name.txt)" >&2
        status=1
    elif [ "$expect" = fail ] && [ "$code" -ne 1 ]; then
        echo "ci/certify_engines.sh: the mutant $name passes every case: the rules miss its bug" >&2
        status=1
    fi
}

certify reference pass -- "$turnstile" testee
for mutant in counter-entry-ids timestamps-regenerated-on-load resume-restarts-loop both-layers-persist \
    unescaped-canonical-keys signal-consumed-outside-commit; do
    certify "mutant-$mutant" fail --mutant "$mutant"
done
if command -v python3 >/dev/null 2>&1; then
    python="$(python3 -c 'import sys; print(sys.executable)')" # not a version manager's shim: one start per kill
    certify python-resume pass -- "$python" conformance/testees/python-resume/testee.py
else
    echo "skipped: python-resume (python3 not installed)"
fi

# The real engines: certified where their adapters and runtimes exist, named where not.
# lg_install LOG: the LangGraph adapter's packages, exactly as package-lock.json pins them;
# better-sqlite3 compiles against the Node headers of Debian's nodejs package (nodedir).
lg_install() {
    local dir=conformance/testees/node-langgraph
    if [ -f "$dir/node_modules/.package-lock.json" ] && cmp -s "$dir/package-lock.json" "$dir/.installed-lock.json"; then
        return 0
    fi
    if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
        export npm_config_nodedir=/usr
    fi
    (cd "$dir" && npm ci --no-audit --no-fund) >"$1" 2>&1 && cp "$dir/package-lock.json" "$dir/.installed-lock.json"
}
if [ ! -f conformance/testees/node-langgraph/testee.js ]; then
    echo "skipped: node-langgraph (no adapter in conformance/testees/node-langgraph yet)"
elif ! command -v node >/dev/null 2>&1; then
    echo "skipped: node-langgraph (node not installed)"
elif ! command -v npm >/dev/null 2>&1; then
    echo "skipped: node-langgraph (npm not installed)"
elif ! lg_install "$outdir/node-langgraph-npm.log"; then
    tail -20 "$outdir/node-langgraph-npm.log" >&2
    echo "ci/certify_engines.sh: npm ci in conformance/testees/node-langgraph failed (log: $outdir/node-langgraph-npm.log)" >&2
    status=1
else
    # --kill-settle: LangGraph writes several lines before it reads a reply (async checkpoints,
    # parallel tools), so a kill at point i first lets it act on the replies it already has.
    certify node-langgraph any --kill-settle 100 --timeout 60 -- node conformance/testees/node-langgraph/testee.js
    # The most careful application that leaves the engine's results alone: one task per call,
    # synchronous checkpoints, no invoke(null) over a pending interrupt, resume maps
    # (conformance/certified/resume/node-langgraph-FINDINGS.md).
    certify node-langgraph-careful any --kill-settle 100 --timeout 60 -- env TURNSTILE_LG_TOOLS=send \
        TURNSTILE_LG_DURABILITY=sync TURNSTILE_LG_RECOVER=unless-waiting TURNSTILE_LG_RESUME=map \
        node conformance/testees/node-langgraph/testee.js
fi
if ! compgen -G 'conformance/testees/dotnet-*/' >/dev/null || \
    ! grep -lqs '<TurnstileOp>resume</TurnstileOp>' conformance/testees/dotnet-*/dotnet-*.csproj; then
    echo "skipped: Agent Framework resume adapters (no conformance/testees/dotnet-*/ project says <TurnstileOp>resume</TurnstileOp>)"
elif ! command -v dotnet >/dev/null 2>&1; then
    echo "skipped: Agent Framework resume adapters (dotnet not installed)"
else
    conformance/testees/dotnet-build.sh "$outdir/dotnet" >"$outdir/dotnet-adapters.tsv" 2>"$outdir/dotnet-build.log" || {
        tail -20 "$outdir/dotnet-build.log" >&2
        echo "ci/certify_engines.sh: building the .NET adapters failed" >&2
        exit 1
    }
    while IFS=$'\t' read -r name command; do
        [ -n "$name" ] || continue
        grep -qs '<TurnstileOp>resume</TurnstileOp>' conformance/testees/"$name"/"$name".csproj || continue
        # shellcheck disable=SC2086  # COMMAND is a command line: dotnet PATH.dll
        certify "$name" any --timeout 60 -- $command
    done <"$outdir/dotnet-adapters.tsv"
fi

if [ ${#reports[@]} -gt 0 ]; then
    "$turnstile" report "${reports[@]}" --markdown --out "$outdir/table.md"
    "$turnstile" report "${reports[@]}" --html --out "$outdir/table.html"
    echo "table: $outdir/table.md, $outdir/table.html"
fi
exit $status
