#!/usr/bin/env bash
# ci/turnstile.sh — run turnstile from a fresh checkout: installs what is missing, builds
# //:turnstile (quietly), then runs it with the given arguments.
#   ci/turnstile.sh certify --reference
#   ci/turnstile.sh merge --example --pretty
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TURNSTILE_SUITE="${TURNSTILE_SUITE:-$root/conformance/cases}"
"$root/ci/setup.sh"
(cd "$root" && bazel build //:turnstile >/tmp/turnstile-build.log 2>&1) || {
    cat /tmp/turnstile-build.log >&2
    exit 1
}
exec "$root/bazel-bin/turnstile" "$@"
