#!/usr/bin/env bash
# run_fuzzer.sh — the launcher behind //fuzz:<target>_run (see fuzz.bzl).
#
# usage (through bazel run): --bin=BIN --corpus=CORPUS_DIR [--dict=DICT] -- [ENGINE ARGS...]
#   bazel run --config=libfuzzer //fuzz:merge_structured_run -- -max_total_time=600
#   bazel run --config=afl //fuzz:merge_bytes_run -- -V 600
# Copies the committed seeds and regressions (following Bazel's runfiles symlinks) into a
# writable corpus and starts the engine on it: libFuzzer directly, AFL++'s afl-fuzz when the
# binary was built with --config=afl, or a plain replay of the seeds otherwise.
#   $TURNSTILE_CORPUS        the working directory (kept, reused by the next run); default a
#                            new mktemp directory, printed. Relative paths are taken from where
#                            `bazel run` was started.
#   $TURNSTILE_FINDINGS_DIR  (differential) where findings are written; default WORK/findings.
# Safe for two runs at once on one machine: nothing is written to a fixed path.
set -euo pipefail
bin='' corpus='' dict=
while [ $# -gt 0 ]; do
    case "$1" in
        --bin=*) bin=${1#--bin=} ;;
        --corpus=*) corpus=${1#--corpus=} ;;
        --dict=*) dict=${1#--dict=} ;;
        --) shift; break ;;
        *) break ;;
    esac
    shift
done
[ -n "$bin" ] && [ -n "$corpus" ] || { echo "run_fuzzer.sh: needs --bin= and --corpus=" >&2; exit 2; }
bin=$(realpath "$bin")
[ -z "$dict" ] || dict=$(realpath "$dict")
target=$(basename "$corpus")
if ! grep -qa '__afl_area_ptr\|LLVMFuzzerRunDriver\|libFuzzer' "$bin"; then
    exec "$bin" "$corpus/seeds" "$corpus/regressions" # no engine: replay what is committed
fi
from_user_dir() { # a path as the user meant it: relative to where `bazel run` started
    case "$1" in /*) echo "$1" ;; *) echo "${BUILD_WORKING_DIRECTORY:-$PWD}/$1" ;; esac
}
if [ -n "${TURNSTILE_CORPUS:-}" ]; then
    work=$(from_user_dir "$TURNSTILE_CORPUS")
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-$target.XXXXXX")
fi
TURNSTILE_FINDINGS_DIR=$(from_user_dir "${TURNSTILE_FINDINGS_DIR:-$work/findings}")
export TURNSTILE_FINDINGS_DIR
mkdir -p "$work/corpus" "$work/crashes" "$TURNSTILE_FINDINGS_DIR"
find -L "$corpus/seeds" "$corpus/regressions" -type f ! -name 'README*' -exec cp -L -n {} "$work/corpus/" \; 2>/dev/null || true
echo "run_fuzzer.sh: $target: corpus $work/corpus, crashes $work/crashes, findings $TURNSTILE_FINDINGS_DIR" >&2
if grep -qa '__afl_area_ptr' "$bin"; then
    # afl-fuzz reads real files from a directory it may not write, and writes its queue to -o.
    export AFL_SKIP_CPUFREQ=${AFL_SKIP_CPUFREQ:-1} AFL_NO_UI=${AFL_NO_UI:-1}
    export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=${AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES:-1}
    # Unless told (-t), a generous per-input timeout whose '+' skips a seed that exceeds it instead
    # of aborting: afl-fuzz calibrates its own from a few fast runs, and on a loaded machine a seed
    # of a target that starts processes (differential_resume kills and restarts its testee) can
    # overrun that and abort the whole run in its dry run.
    timeout=(-t 20000+)
    for a in "$@"; do case "$a" in -t|-t*) timeout=() ;; esac; done
    exec afl-fuzz -i "$work/corpus" -o "$work/afl" ${dict:+-x "$dict"} "${timeout[@]}" "$@" -- "$bin"
else
    exec "$bin" ${dict:+-dict="$dict"} -artifact_prefix="$work/crashes/" "$@" "$work/corpus"
fi
