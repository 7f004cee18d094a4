#!/usr/bin/env bash
# run_fuzzer.sh — the launcher behind //fuzz:<target>_run (see fuzz.bzl).
#
# usage (through bazel run): BIN CORPUS_DIR DICT [ENGINE ARGS...]
# Copies the committed seeds and regressions into a writable corpus ($TURNSTILE_CORPUS, default
# /tmp/turnstile-corpus/<target>) and starts the engine on it: libFuzzer directly, AFL++ through
# afl-fuzz when the binary was built with --config=afl, or a plain replay otherwise.
set -euo pipefail
bin=$1 corpus=$2 dict=$3
shift 3
target=$(basename "$corpus")
work=${TURNSTILE_CORPUS:-/tmp/turnstile-corpus/$target}
mkdir -p "$work" "$work-crashes"
cp -n "$corpus"/seeds/* "$corpus"/regressions/* "$work"/ 2>/dev/null || true
if grep -qa '__afl_area_ptr' "$bin"; then
    exec afl-fuzz -i "$corpus/seeds" -o "$work-afl" ${dict:+-x "$dict"} "$@" -- "$bin"
elif grep -qa 'LLVMFuzzerRunDriver\|libFuzzer' "$bin"; then
    exec "$bin" ${dict:+-dict="$dict"} -artifact_prefix="$work-crashes/" "$@" "$work"
else
    exec "$bin" "$corpus/seeds" "$corpus/regressions"
fi
