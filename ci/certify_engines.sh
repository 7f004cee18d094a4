#!/usr/bin/env bash
# ci/certify_engines.sh OUTDIR — certify resume engines under the resume protocol: the certifier
# plays their model and tools and kills their process at every point of every case
# (conformance/PROTOCOL.md, op resume; SPEC.md §6.4). Certified:
#   * the reference, over the pipe (`turnstile testee`), and its six resume mutants;
#   * the Python resume kit (conformance/testees/python-resume), an engine of another design;
#   * the real engines, where their adapters and runtimes exist: LangGraph JS over SqliteSaver
#     and over PostgresSaver (conformance/testees/node-langgraph; PostgreSQL from Debian's
#     postgresql package, started privately by ci/postgres_server.sh), the OpenAI Agents SDK for
#     JS (node-openai-agents), Mastra (node-mastra) — each needs node and its npm install from its
#     lock file — and the Agent Framework (conformance/testees/dotnet-af-*, built by
#     dotnet-build.sh, needs dotnet); each in its plain and its careful integration;
#   * the JS mergers, under the merge cases: LangChain JS's AIMessageChunk.concat
#     (node-langchain-merge) and the Vercel AI SDK's readUIMessageStream (node-vercel-ai-merge),
#     written to OUTDIR/merge/ with their own table;
#   each one not certified is named with the reason ("skipped: NAME (REASON)").
# Writes OUTDIR/<name>.json (with each case's history), .txt, and the compliance table
# OUTDIR/table.md and table.html (`turnstile report`).
#
# Exit 0 when the reference passes every case, every mutant fails, and every testee that could
# run was certified; 1 otherwise. KILL_POINTS (all, none or N: the first N points of each case)
# bounds the sweep; REAL_KILL_POINTS bounds it for the real engines alone (default KILL_POINTS:
# .ci/run sets 3, the committed certificates in conformance/certified/ are full sweeps); CASES the
# resume cases.
set -euo pipefail
trap 'echo "ci/certify_engines.sh: failed at line $LINENO" >&2' ERR
outdir="${1:?usage: ci/certify_engines.sh OUTDIR}"
cd "$(dirname "$0")/.."
kill_points="${KILL_POINTS:-all}"
real_kill_points="${REAL_KILL_POINTS:-$kill_points}"
cases="${CASES:-Resume.*}"
rules=U1,U2,U3,U4,U5,U6,U7,U8,U9,U10 # the universal tier: the table shows only its rules
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
# What the engines need from Debian (Node.js, the compilers for better-sqlite3, PostgreSQL); when
# it cannot be installed (no root, no network) the engines that miss it are skipped and named.
ci/setup.sh engines >"$outdir/setup.log" 2>&1 || echo "ci/certify_engines.sh: ci/setup.sh engines failed (see $outdir/setup.log); going on with what is installed" >&2
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
    "$turnstile" certify --cases "$cases" --rules "$rules" --kill-points "${points:-$kill_points}" \
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
points="$real_kill_points"
# npm_install NAME LOG: an adapter's packages, exactly as its package-lock.json pins them (npm ci),
# skipped when that lock file is already installed; better-sqlite3 (LangGraph) compiles against the
# Node headers of Debian's nodejs package (nodedir).
npm_install() {
    local dir=conformance/testees/$1
    if [ -f "$dir/node_modules/.package-lock.json" ] && cmp -s "$dir/package-lock.json" "$dir/.installed-lock.json"; then
        return 0
    fi
    if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
        export npm_config_nodedir=/usr
    fi
    (cd "$dir" && npm ci --no-audit --no-fund) >"$2" 2>&1 && cp "$dir/package-lock.json" "$dir/.installed-lock.json"
}
# node_ready NAME: 0 when the Node.js adapter NAME can run (installing its packages first); else
# prints why it is skipped ("skipped: ..."), or fails the run when its npm ci fails.
node_ready() {
    if [ ! -f "conformance/testees/$1/testee.js" ]; then
        echo "skipped: $1 (no adapter in conformance/testees/$1)"
    elif ! command -v node >/dev/null 2>&1; then
        echo "skipped: $1 (node not installed)"
    elif ! command -v npm >/dev/null 2>&1; then
        echo "skipped: $1 (npm not installed)"
    elif ! npm_install "$1" "$outdir/$1-npm.log"; then
        tail -20 "$outdir/$1-npm.log" >&2
        echo "ci/certify_engines.sh: npm ci in conformance/testees/$1 failed (log: $outdir/$1-npm.log)" >&2
        status=1
    else
        return 0
    fi
    return 1
}
# --kill-settle 100 for every Node.js engine: each writes several lines before it reads a reply
# (LangGraph's async checkpoints and parallel tools, the Agents SDK's parallel needsApproval calls,
# Mastra's workflow snapshots), so a kill at point i first lets it act on the replies it has.
js_engine=(--kill-settle 100 --timeout 60)
lg=conformance/testees/node-langgraph/testee.js
# The most careful LangGraph application that leaves the engine's results alone: one task per call,
# synchronous checkpoints, no invoke(null) over a pending interrupt, resume maps
# (conformance/certified/resume/node-langgraph-FINDINGS.md).
lg_careful=(TURNSTILE_LG_TOOLS=send TURNSTILE_LG_DURABILITY=sync TURNSTILE_LG_RECOVER=unless-waiting TURNSTILE_LG_RESUME=map)
if node_ready node-langgraph; then
    certify node-langgraph any "${js_engine[@]}" -- node "$lg"
    certify node-langgraph-careful any "${js_engine[@]}" -- env "${lg_careful[@]}" node "$lg"
    # PostgresSaver on a private server (a Unix socket in a temporary directory, no TCP), one
    # database per store directory (the adapter creates it); stopped and removed after.
    pgdir=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-postgres.XXXXXX")
    if pgurl=$(ci/postgres_server.sh start "$pgdir" 2>"$outdir/postgres.why"); then
        certify node-langgraph-postgres any "${js_engine[@]}" -- env TURNSTILE_LG_SAVER=postgres TURNSTILE_LG_PG_URL="$pgurl" node "$lg"
        certify node-langgraph-postgres-careful any "${js_engine[@]}" -- env TURNSTILE_LG_SAVER=postgres \
            TURNSTILE_LG_PG_URL="$pgurl" "${lg_careful[@]}" node "$lg"
    else
        echo "skipped: node-langgraph-postgres, node-langgraph-postgres-careful ($(sed 's/^skipped: //' "$outdir/postgres.why" | tail -1))"
    fi
    ci/postgres_server.sh stop "$pgdir"
fi
if node_ready node-openai-agents; then
    certify node-openai-agents any "${js_engine[@]}" -- env TURNSTILE_OA_MODE=plain node conformance/testees/node-openai-agents/testee.js
    certify node-openai-agents-careful any "${js_engine[@]}" -- env TURNSTILE_OA_MODE=careful node conformance/testees/node-openai-agents/testee.js
fi
if node_ready node-mastra; then
    certify node-mastra any "${js_engine[@]}" -- env TURNSTILE_MASTRA_MODE=plain node conformance/testees/node-mastra/testee.js
    certify node-mastra-careful any "${js_engine[@]}" -- env TURNSTILE_MASTRA_MODE=careful node conformance/testees/node-mastra/testee.js
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

# The JS mergers, under the whole suite (they answer merge only; the rest is skipped): each in
# its plain and careful integration, written to OUTDIR/merge/ with a table of their own.
merge_reports=()
# certify_merge NAME ENV... -- COMMAND: certify one merger; any verdict is fine, no verdict fails the run
certify_merge() {
    local name=$1 code=0
    shift
    # --timeout 60: readUIMessageStream copies the whole message on every chunk (quadratic; 19 s for
    # the suite's 168 KB stream on 2 cores), which the default 5 s would report as a timeout
    "$turnstile" certify --timeout 60 --report-json "$outdir/merge/$name.json" --junit "$outdir/merge/$name.xml" "$@" \
        >"$outdir/merge/$name.txt" 2>&1 || code=$?
    if [ "$code" -gt 1 ] || [ ! -s "$outdir/merge/$name.json" ]; then
        echo "ci/certify_engines.sh: could not certify $name (exit $code):" >&2
        tail -5 "$outdir/merge/$name.txt" >&2
        status=1
        return
    fi
    merge_reports+=("$outdir/merge/$name.json")
    printf '%-44s %s\n' "$name" "$(tail -1 "$outdir/merge/$name.txt")"
}
mkdir -p "$outdir/merge"
if node_ready node-langchain-merge; then
    certify_merge node-langchain-merge -- env TURNSTILE_LC_MODE=plain node conformance/testees/node-langchain-merge/testee.js
    certify_merge node-langchain-merge-careful -- env TURNSTILE_LC_MODE=careful node conformance/testees/node-langchain-merge/testee.js
fi
if node_ready node-vercel-ai-merge; then
    certify_merge node-vercel-ai-merge -- env TURNSTILE_AI_MODE=plain node conformance/testees/node-vercel-ai-merge/testee.js
    certify_merge node-vercel-ai-merge-careful -- env TURNSTILE_AI_MODE=careful node conformance/testees/node-vercel-ai-merge/testee.js
fi
if [ ${#merge_reports[@]} -gt 0 ]; then
    "$turnstile" report "${merge_reports[@]}" --markdown --out "$outdir/merge/table.md"
    "$turnstile" report "${merge_reports[@]}" --html --out "$outdir/merge/table.html"
    echo "merge table: $outdir/merge/table.md, $outdir/merge/table.html"
fi

if [ ${#reports[@]} -gt 0 ]; then
    "$turnstile" report "${reports[@]}" --markdown --out "$outdir/table.md"
    "$turnstile" report "${reports[@]}" --html --out "$outdir/table.html"
    echo "table: $outdir/table.md, $outdir/table.html"
fi
exit $status
