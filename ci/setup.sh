#!/usr/bin/env bash
# ci/setup.sh [certify|test|fuzz|engines] — installs what turnstile needs on a fresh Debian bookworm machine.
#
#   certify  what building and running `turnstile` needs (ci/turnstile.sh): Bazel, clang, the
#            libraries. No fuzzing toolchain.
#   test     (the default; ci/test.sh) certify's, plus the sanitizer runtimes and the languages of
#            the testee kits (Python, Node.js).
#   fuzz     (ci/fuzz_smoke.sh, ci/clusterfuzzlite_local.sh) test's, plus AFL++ and zip.
#   engines  (ci/certify_engines.sh) test's, plus PostgreSQL for LangGraph's PostgresSaver.
#
# Idempotent and quiet: when everything is present it prints nothing and exits 0.
# Only Debian's package registry is used (no other network). To add a package, add a line to
# the list of the first group that needs it.
set -euo pipefail

packages=(
  bazel-bootstrap     # Bazel 4.2.3, built offline against third_party/ shims
  clang               # the plain `clang` name (Debian's points at clang-14)
  libjansson-dev      # JSON parsing with error positions: the strict path that names line and column
  libsimdjson-dev     # where a field stands in a JSON text, for the codec's error messages (core/json)
  libssl-dev          # libcrypto: SHA-256
  uuid-dev            # libuuid: UUIDv4 from the OS CSPRNG
  libsqlite3-dev      # the resume engine's journal
)
test_packages=(
  libclang-rt-14-dev  # ASan and UBSan runtimes (and libFuzzer's)
  libcjson-dev        # a parse-only peer in ci/bench (built by //..., not linked by turnstile)
  python3             # the Python testee kit and the test scripts that read JSON reports
  nodejs              # the Node.js testee kit
  g++                 # with make: node-gyp compiles better-sqlite3 for the LangGraph adapter
  make                #   (ci/certify_engines.sh; no prebuilt binary is reachable offline)
  shellcheck          # ci/lint.sh: every shell script of ci/, .ci/ and the test scripts
  python3-yaml        # ci/action_test.sh reads the GitHub Action's action.yml
)
engines_packages=(
  postgresql          # a private server for LangGraph's PostgresSaver (ci/postgres_server.sh)
)
fuzz_packages=(
  afl++               # afl-clang-fast for the AFL++ fuzzing config
  zip                 # seed corpora for ClusterFuzzLite
  time                # /usr/bin/time: CPU seconds in ci/bench/fuzz_bench.sh
)

group="${1:-test}"
case "$group" in
  certify) wanted=("${packages[@]}") ;;
  test) wanted=("${packages[@]}" "${test_packages[@]}") ;;
  fuzz) wanted=("${packages[@]}" "${test_packages[@]}" "${fuzz_packages[@]}") ;;
  engines) wanted=("${packages[@]}" "${test_packages[@]}" "${engines_packages[@]}") ;;
  *) echo "usage: ci/setup.sh [certify|test|fuzz|engines]" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ci/setup.sh: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "ci/setup.sh: done" >&2
