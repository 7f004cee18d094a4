#!/usr/bin/env bash
# ci/clusterfuzzlite_local.sh — runs .clusterfuzzlite/build.sh the way OSS-Fuzz/ClusterFuzzLite
# would ($CC, $CFLAGS, $LIB_FUZZING_ENGINE, $OUT), checks that no binary in $OUT needs a library
# the runner image lacks and $OUT/lib does not bundle (ci/fuzz_out_check.sh), then runs every
# packed target of fuzz/targets.txt over its packed seed corpus, so the continuous-fuzzing build
# cannot rot unnoticed. Ends "N passed, N failed".
set -euo pipefail
trap 'echo "ci/clusterfuzzlite_local.sh: failed at line $LINENO (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
ci/setup.sh fuzz

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CC=clang CFLAGS="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -g -O1" \
    LIB_FUZZING_ENGINE="-fsanitize=fuzzer" OUT="$out" SRC="$(cd .. && pwd)" bash .clusterfuzzlite/build.sh
passed=0 failed=0
if ci/fuzz_out_check.sh "$out"; then
    echo "PASS \$OUT needs only the runner image's runtimes and \$OUT/lib"
    passed=$((passed + 1))
else
    echo "FAIL \$OUT needs a library the runner image lacks (see above)"
    failed=$((failed + 1))
fi
mapfile -t targets < <(grep -v '^#' fuzz/targets.txt)
for target in "${targets[@]}"; do
    mkdir -p "$out/$target.corpus"
    (cd "$out/$target.corpus" && python3 -m zipfile -e "$out/${target}_seed_corpus.zip" .)
    if [ -x "$out/$target" ] && "$out/$target" -runs=0 "$out/$target.corpus" >"$out/$target.log" 2>&1 && grep -q "^Done" "$out/$target.log"; then
        echo "PASS $target: built, $(find "$out/$target.corpus" -type f | wc -l) seeds replayed"
        passed=$((passed + 1))
    else
        echo "FAIL $target"; tail -5 "$out/$target.log" 2>/dev/null
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
