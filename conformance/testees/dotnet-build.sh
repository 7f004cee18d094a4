#!/usr/bin/env bash
# dotnet-build.sh OUTDIR: restores (locked mode: packages.lock.json pins every version, nothing else is
# asked for) and publishes every conformance/testees/dotnet-*/ project, Release and framework-dependent,
# into OUTDIR/<name>/. For each it prints `NAME<TAB>COMMAND` on stdout, COMMAND being the line that runs it
# (`dotnet OUTDIR/<name>/<name>.dll`). Build output (obj/, bin/) goes to OUTDIR/.build, never into the
# source tree (Directory.Build.props). Logs go to OUTDIR/.build/<name>.{restore,publish}.log.
#
# With TURNSTILE_DOTNET_CACHE=DIR the projects are published into DIR instead (OUTDIR is still
# created), and a project whose sources, Directory.Build.props and SDK are those of its last build
# there is not built again: .ci/run sets it, so that ci/certify_dotnet.sh and ci/certify_engines.sh
# build each adapter once per run.
#
# exit 0: every project built; 1: a restore or build failed (the message names the project); 2: bad usage;
# 3: `dotnet` is not installed ("skipped: dotnet not installed" on stderr).
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
if ! command -v dotnet >/dev/null 2>&1; then
    echo "skipped: dotnet not installed" >&2
    exit 3
fi

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
if [ -n "${TURNSTILE_DOTNET_CACHE:-}" ]; then
    mkdir -p "$TURNSTILE_DOTNET_CACHE"
    OUT="$(cd "$TURNSTILE_DOTNET_CACHE" && pwd)"
fi
BUILD="$OUT/.build"
mkdir -p "$BUILD"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

shopt -s nullglob
projects=("$HERE"/dotnet-*/dotnet-*.csproj)
if [ ${#projects[@]} -eq 0 ]; then
    echo "dotnet-build: no dotnet-*/dotnet-*.csproj under $HERE" >&2
    exit 1
fi

sdk="$(dotnet --version 2>/dev/null || echo unknown)"
# The fingerprint of what a project's build depends on: its files (not bin/ or obj/), the shared
# props and the SDK's version.
fingerprint() {
    local dir
    dir="$(dirname "$1")"
    {
        echo "$sdk"
        sha256sum "$HERE/Directory.Build.props"
        find "$dir" \( -name bin -o -name obj \) -prune -o -type f -print0 | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1
}

for csproj in "${projects[@]}"; do
    name="$(basename "$csproj" .csproj)"
    stamp="$(fingerprint "$csproj")"
    if [ -f "$OUT/$name/$name.dll" ] && [ "$(cat "$OUT/$name/.turnstile-build" 2>/dev/null)" = "$stamp" ]; then
        printf '%s\tdotnet %s\n' "$name" "$OUT/$name/$name.dll" # built from these very sources
        continue
    fi
    rm -f "$OUT/$name/.turnstile-build"
    props=("-p:TurnstileDotnetBuildDir=$BUILD" "--disable-build-servers" "-nologo" "-v:minimal")
    if ! dotnet restore "$csproj" --locked-mode "${props[@]}" >"$BUILD/$name.restore.log" 2>&1; then
        echo "dotnet-build: $name: restore failed (locked mode: packages.lock.json and the package source must agree); last lines of $BUILD/$name.restore.log:" >&2
        tail -n 20 "$BUILD/$name.restore.log" >&2
        exit 1
    fi
    if ! dotnet publish "$csproj" --no-restore -c Release -o "$OUT/$name" "${props[@]}" >"$BUILD/$name.publish.log" 2>&1; then
        echo "dotnet-build: $name: build failed; last lines of $BUILD/$name.publish.log:" >&2
        tail -n 20 "$BUILD/$name.publish.log" >&2
        exit 1
    fi
    if [ ! -f "$OUT/$name/$name.dll" ]; then
        echo "dotnet-build: $name: built, but $OUT/$name/$name.dll is missing" >&2
        exit 1
    fi
    echo "$stamp" >"$OUT/$name/.turnstile-build"
    printf '%s\tdotnet %s\n' "$name" "$OUT/$name/$name.dll"
done
