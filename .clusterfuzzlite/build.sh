#!/bin/bash -eu
# build.sh — OSS-Fuzz / ClusterFuzzLite build of turnstile's fuzz targets.
#
# Honours the environment those builders set: $CC, $CFLAGS (sanitizer and coverage flags),
# $LIB_FUZZING_ENGINE (the engine to link), $OUT (where binaries, seed corpora and
# dictionaries go), $SRC. The engine's builder images have no Bazel 4 offline setup, so this
# compiles the same sources //fuzz:<target> does, directly. jansson, libcrypto and libuuid are
# linked statically: the runner image does not have them.
#
# Local check (ci/clusterfuzzlite_local.sh does this):
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link -g" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=/tmp/out SRC=$PWD/.. .clusterfuzzlite/build.sh
root="${SRC:-$(cd "$(dirname "$0")/.." && pwd)/..}/turnstile"
[ -d "$root/core" ] || root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p "$OUT" "$OUT/obj"
common_flags="-std=c11 -D_POSIX_C_SOURCE=200809L -I$root"
library_sources=(
    core/json/arena.c core/json/buf.c core/json/codec.c core/json/digest.c core/json/error.c core/merge/host.c core/json/json.c core/merge/merger.c
    core/merge/model.c core/json/numfmt.c core/json/strmap.c core/json/timestamp.c
    core/json/canon.c core/resume/taskid.c core/resume/journal.c core/resume/commit.c core/resume/scenario.c core/resume/engine.c core/resume/store_memory.c
    conformance/checkers/checks.c conformance/checkers/expect.c conformance/checkers/findings.c
    conformance/checkers/journal_checks.c
    conformance/certifier/report.c conformance/certifier/run.c conformance/certifier/suite.c conformance/certifier/testee.c
    conformance/testee/handler.c conformance/testee/mutants.c
    fuzz/gen.c fuzz/oracle.c fuzz/scenario_gen.c
)
objects=()
for source in "${library_sources[@]}"; do
    object="$OUT/obj/$(echo "$source" | tr '/' '_').o"
    $CC $CFLAGS $common_flags -c "$source" -o "$object"
    objects+=("$object")
done
static_libs="-Wl,-Bstatic -ljansson -lcrypto -luuid -Wl,-Bdynamic -lm -ldl -lpthread"
for target in merge_bytes merge_structured differential codec_roundtrip resume_scenarios; do
    $CC $CFLAGS $common_flags -c "fuzz/$target.c" -o "$OUT/obj/$target.o"
    $CC $CFLAGS "$OUT/obj/$target.o" "${objects[@]}" $LIB_FUZZING_ENGINE $static_libs -o "$OUT/$target"
    (cd "corpora/$target/seeds" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./* \
        && cd ../regressions && find . -type f ! -name 'README*' -exec zip -q -j "$OUT/${target}_seed_corpus.zip" {} +)
    [ -f "fuzz/$target.dict" ] && cp "fuzz/$target.dict" "$OUT/$target.dict"
done
rm -rf "$OUT/obj"
