#!/usr/bin/env bash
# ci/lint.sh — shellcheck (Debian's, installed by ci/setup.sh test) over every shell script of
# the repository that CI or a user runs: ci/, .ci/, .clusterfuzzlite/, the test scripts under
# conformance/ and fuzz/, and the stand-ins in ci/testdata/. Found by their first line, so a new
# script cannot be missed. Project-wide choices are in .shellcheckrc. Ends "N scripts checked".
set -euo pipefail
cd "$(dirname "$0")/.."
command -v shellcheck >/dev/null || { echo "ci/lint.sh: shellcheck is not installed (ci/setup.sh test installs it)" >&2; exit 1; }
scripts=()
while IFS= read -r -d '' f; do
    case "$(head -c 64 "$f")" in '#!/bin/sh'*|'#!/bin/bash'*|'#!/usr/bin/env bash'*|'#!/usr/bin/env sh'*) scripts+=("$f") ;; esac
done < <(find ci .ci .clusterfuzzlite conformance fuzz -type f ! -path '*/node_modules/*' -print0 | sort -z)
[ "${#scripts[@]}" -gt 30 ] || { echo "ci/lint.sh: only ${#scripts[@]} scripts found" >&2; exit 1; }
shellcheck --external-sources "${scripts[@]}"
echo "${#scripts[@]} scripts checked"
