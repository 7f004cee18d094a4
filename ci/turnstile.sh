#!/usr/bin/env bash
# ci/turnstile.sh — run turnstile from a checkout: installs what building it needs (ci/setup.sh
# certify: no fuzzing toolchain), builds //:turnstile quietly, then runs it with the given
# arguments. The commands turnstile prints (replay, accept) start with this script's path.
#   ci/turnstile.sh certify --reference
#   ci/turnstile.sh merge --example --pretty
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/ci/setup.sh" certify
commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
log=$(mktemp)
if ! (cd "$root" && bazel build --per_file_copt="conformance/cli/options.c@-DTURNSTILE_COMMIT=\"$commit\"" //:turnstile) >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
fi
rm -f "$log"
# The default configuration's output directory, whatever was built last (bazel-bin moves).
bin="$(cd "$root" && bazel info bazel-bin 2>/dev/null)/turnstile"
export TURNSTILE_PROGRAM="$root/ci/turnstile.sh"
exec "$bin" "$@"
