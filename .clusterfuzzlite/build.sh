#!/bin/bash -eu
# build.sh — OSS-Fuzz / ClusterFuzzLite build of turnstile's fuzz targets, through the same
# Bazel build graph as everything else (fuzz/fuzz.bzl's //fuzz:<target>_bin, for each target of
# fuzz/targets.txt), not a source list.
#
# Honours the environment those builders set: $CC, $CFLAGS (sanitizer and coverage flags, given
# to every compile and link), $LIB_FUZZING_ENGINE (linked into each fuzz binary as the engine,
# --define=fuzz_engine=external), $OUT (binaries, seed corpora, dictionaries), $SRC. jansson,
# libcrypto, libuuid and SQLite are linked statically: the runner image does not have them.
# Every other shared library a binary needs that the runner image lacks (simdjson: no distribution
# ships its static archive) is bundled into $OUT/lib, found through an $ORIGIN/lib rpath; the
# image's own list is .clusterfuzzlite/base-runner-libs.txt, and ci/fuzz_out_check.sh checks
# the result. Its own Bazel output directory (--platform_suffix=oss-fuzz): safe beside other builds.
#
# Local check (ci/clusterfuzzlite_local.sh does this):
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link -g" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=/tmp/out .clusterfuzzlite/build.sh
set -euo pipefail # also when run as `bash build.sh`, which ignores the options on the first line
root="${SRC:-$(cd "$(dirname "$0")/.." && pwd)/..}/turnstile"
[ -d "$root/core" ] || root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p "$OUT"
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt)
mapfile -t base < <(grep -v '^#' .clusterfuzzlite/base-runner-libs.txt | grep .)
static=$(mktemp -d)
trap 'rm -rf "$static"' EXIT
for lib in jansson crypto uuid sqlite3; do
    a=$($CC -print-file-name="lib$lib.a")
    [ -f "$a" ] || { echo "build.sh: lib$lib.a not found (the image's Dockerfile installs it)" >&2; exit 1; }
    ln -s "$a" "$static/lib$lib.a"
done
# shellcheck disable=SC2054  # commas belong to the linker flags
flags=(--platform_suffix=oss-fuzz --repo_env=CC="$CC" --action_env=CC="$CC" --define=fuzz_engine=external
       --dynamic_mode=off --linkopt="-L$static" --linkopt=-Wl,--as-needed --linkopt=-pthread --linkopt=-ldl
       --linkopt='-Wl,-rpath,$ORIGIN/lib')
for flag in $CFLAGS; do flags+=(--copt="$flag" --linkopt="$flag"); done
for flag in $LIB_FUZZING_ENGINE; do flags+=(--linkopt="$flag"); done
binaries=("${targets[@]/#///fuzz:}")
binaries=("${binaries[@]/%/_bin}")
bazel build "${flags[@]}" "${binaries[@]}"
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/fuzz"

# bundle FILE: copies into $OUT/lib each library FILE needs that the runner image lacks (found
# where the dynamic loader finds it on this builder). A bundled library may itself need only the
# image's runtimes: a binary's RUNPATH does not serve its libraries' own dependencies.
bundle() {
    local lib path
    while read -r lib; do
        if printf '%s\n' "${base[@]}" | grep -qxF "$lib" || [ -e "$OUT/lib/$lib" ]; then continue; fi
        [[ "$1" != "$OUT"/lib/* ]] || { echo "build.sh: the bundled $1 needs $lib too: link one of them statically" >&2; exit 1; }
        path=$(ldd "$1" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3 }')
        [ -n "$path" ] || { echo "build.sh: $1 needs $lib, which this builder cannot find" >&2; exit 1; }
        mkdir -p "$OUT/lib"
        install -m 644 "$(realpath "$path")" "$OUT/lib/$lib"
        bundle "$OUT/lib/$lib"
    done < <(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
}
for target in "${targets[@]}"; do
    install -m 755 "$bin/${target}_bin" "$OUT/$target"
    bundle "$OUT/$target"
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "corpora/$target/seeds" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./* \
        && cd ../regressions && find . -type f ! -name 'README*' ! -name .keep -exec zip -q -j "$OUT/${target}_seed_corpus.zip" {} +)
    if [ -f "fuzz/$target.dict" ]; then cp "fuzz/$target.dict" "$OUT/$target.dict"; fi
done
