#!/bin/bash -eu
# build.sh — OSS-Fuzz / ClusterFuzzLite build of turnstile's fuzz targets, through the same
# Bazel build graph as everything else (fuzz/fuzz.bzl's //fuzz:<target>_bin), not a source list.
#
# Honours the environment those builders set: $CC, $CFLAGS (sanitizer and coverage flags, given
# to every compile and link), $LIB_FUZZING_ENGINE (linked into each fuzz binary as the engine,
# --define=fuzz_engine=external), $OUT (binaries, seed corpora, dictionaries), $SRC. jansson,
# libcrypto, libuuid and SQLite are linked statically: the runner image does not have them.
# Its own Bazel output directory (--platform_suffix=oss-fuzz): safe beside other builds.
#
# Local check (ci/clusterfuzzlite_local.sh does this):
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link -g" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=/tmp/out .clusterfuzzlite/build.sh
root="${SRC:-$(cd "$(dirname "$0")/.." && pwd)/..}/turnstile"
[ -d "$root/core" ] || root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p "$OUT"
targets=(merge_bytes merge_structured acceptance differential differential_resume codec_roundtrip resume_scenarios)
static=$(mktemp -d)
trap 'rm -rf "$static"' EXIT
for lib in jansson crypto uuid sqlite3; do ln -s "$($CC -print-file-name="lib$lib.a")" "$static/lib$lib.a"; done
flags=(--platform_suffix=oss-fuzz --repo_env=CC="$CC" --action_env=CC="$CC" --define=fuzz_engine=external
       --dynamic_mode=off --linkopt="-L$static" --linkopt=-Wl,--as-needed --linkopt=-pthread --linkopt=-ldl)
for flag in $CFLAGS; do flags+=(--copt="$flag" --linkopt="$flag"); done
for flag in $LIB_FUZZING_ENGINE; do flags+=(--linkopt="$flag"); done
bazel build "${flags[@]}" $(printf '//fuzz:%s_bin ' "${targets[@]}")
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/fuzz"
for target in "${targets[@]}"; do
    install -m 755 "$bin/${target}_bin" "$OUT/$target"
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "corpora/$target/seeds" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./* \
        && cd ../regressions && find . -type f ! -name 'README*' -exec zip -q -j "$OUT/${target}_seed_corpus.zip" {} +)
    if [ -f "fuzz/$target.dict" ]; then cp "fuzz/$target.dict" "$OUT/$target.dict"; fi
done
