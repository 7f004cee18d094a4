#!/usr/bin/env bash
# ci/fuzz_out_check.sh OUT — the fuzz binaries of an OSS-Fuzz/ClusterFuzzLite build ($OUT) need
# nothing the runner image lacks: `readelf -d` on every ELF file in OUT and OUT/lib, and each
# NEEDED library must be either in .clusterfuzzlite/base-runner-libs.txt (the image's C and C++
# runtimes, with the sources of that list) or bundled in OUT/lib and found there: the binary's
# RUNPATH names $ORIGIN/lib (OUT/lib's own libraries: $ORIGIN), and ldd resolves it into OUT/lib.
# Run by ci/clusterfuzzlite_local.sh after .clusterfuzzlite/build.sh. Prints one line per binary.
set -euo pipefail
out=${1:?usage: ci/fuzz_out_check.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t base < <(grep -v '^#' "$root/.clusterfuzzlite/base-runner-libs.txt" | grep .)
problems=0 binaries=0
for f in "$out"/* "$out"/lib/*; do
    [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    binaries=$((binaries + 1))
    dynamic=$(readelf -d "$f")
    runpath=$(sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p' <<<"$dynamic")
    case "$f" in "$out"/lib/*) here='$ORIGIN' ;; *) here='$ORIGIN/lib' ;; esac
    bundled=()
    while read -r lib; do
        if printf '%s\n' "${base[@]}" | grep -qxF "$lib"; then continue; fi
        if [ ! -f "$out/lib/$lib" ]; then
            echo "ci/fuzz_out_check.sh: ${f#"$out"/} needs $lib, which is neither bundled in \$OUT/lib nor in the base-runner image" >&2
            problems=$((problems + 1))
        elif [[ ":$runpath:" != *":$here:"* ]]; then
            echo "ci/fuzz_out_check.sh: ${f#"$out"/} needs the bundled $lib, but its RUNPATH is '$runpath', not $here" >&2
            problems=$((problems + 1))
        else
            where=$(ldd "$f" 2>/dev/null | awk -v l="$lib" '$1 == l { print $3 }')
            if [ "$(realpath -m "${where:-/nonexistent}")" != "$(realpath "$out/lib/$lib")" ]; then
                echo "ci/fuzz_out_check.sh: ${f#"$out"/} resolves $lib to '${where:-nothing}', not \$OUT/lib" >&2
                problems=$((problems + 1))
            fi
            bundled+=("$lib")
        fi
    done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic")
    echo "${f#"$out"/}: needs the image's runtimes${bundled[*]:+ and, from \$OUT/lib, ${bundled[*]}}"
done
[ "$binaries" -gt 0 ] || { echo "ci/fuzz_out_check.sh: no ELF binary in $out" >&2; exit 1; }
[ "$problems" -eq 0 ]
