#!/usr/bin/env bash
# ci/setup.sh — installs what turnstile needs on a fresh Debian bookworm machine.
#
# Idempotent and quiet: when everything is present it prints nothing and exits 0.
# Only Debian's package registry is used (no other network).
set -euo pipefail

packages=(
  bazel-bootstrap     # Bazel 4.2.3, built offline against third_party/ shims
  clang               # the plain `clang` name (Debian's points at clang-14)
  libclang-rt-14-dev  # libFuzzer, ASan, UBSan runtimes
  afl++               # afl-clang-fast for the AFL++ fuzzing config
  libjansson-dev      # JSON parsing with error positions: the strict path that names line and column
  libsimdjson-dev     # the codec's fast path: one pass per update, no per-document tree (core/json)
  libcjson-dev        # a parse-only peer in ci/bench/merge_bench.sh (measured, not linked by turnstile)
  libssl-dev          # libcrypto: SHA-256
  uuid-dev            # libuuid: UUIDv4 from the OS CSPRNG
  libsqlite3-dev      # the resume engine's journal
  python3             # the Python testee kit and the test scripts that read JSON reports
  nodejs              # the Node.js testee kit
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ci/setup.sh: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "ci/setup.sh: done" >&2
