#!/usr/bin/env bash
# ci/release.sh [OUTDIR] — makes the release archive: OUTDIR/turnstile-VERSION-linux-x86_64.tar.gz
# and its .sha256 (OUTDIR defaults to ./dist). The archive is an install prefix under one top
# directory:
#   bin/turnstile                   self-contained (the suite is built in); jansson, libcrypto,
#                                   libuuid and SQLite linked statically; simdjson (Debian ships
#                                   no static archive) from lib/ beside it ($ORIGIN/../lib): needs
#                                   only glibc and the C++ runtime every apt-based system has
#   lib/libsimdjson.so.N            error positions of the codec (its copyright in share/doc/turnstile/)
#   share/turnstile/conformance/    laid out as in a checkout, so that README's certify commands
#     cases/                        work from PREFIX/share/turnstile as from a checkout's root: the
#     testees/                      conformance cases (to vendor, or for certify --suite), the testee
#     PROTOCOL.md, SPEC.md          kits (Python, Node.js, TypeScript, C#, C, the Python resume kit)
#   share/doc/turnstile/            README.md, SPEC.md, PROTOCOL.md
# so `tar -xzf ARCHIVE -C PREFIX --strip-components=1` installs it (README.md, "Install"). Runs on the
# build machine's glibc and libstdc++ or newer (Debian 12, Ubuntu 22.04); it prints the oldest
# versions of both it needs.
set -euo pipefail
trap 'echo "ci/release.sh: failed at line $LINENO (exit $?)" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "${1:-$root/dist}"
outdir=$(cd "${1:-$root/dist}" && pwd)
cd "$root"
ci/setup.sh certify
version=$(sed -n 's/^const char ts_cli_version\[\] = "\(.*\)";/\1/p' conformance/cli/options.c)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit-modified"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the static archives in a directory searched first: the linker takes them over the .so.
mkdir "$work/static"
for lib in jansson crypto uuid sqlite3; do
    a=$(clang -print-file-name="lib$lib.a")
    [ -f "$a" ] || { echo "ci/release.sh: lib$lib.a not found (ci/setup.sh certify installs it)" >&2; exit 1; }
    ln -s "$a" "$work/static/lib$lib.a"
done
# shellcheck disable=SC2054  # commas belong to the linker flags
flags=(--platform_suffix=release --linkopt="-L$work/static" --linkopt=-Wl,--as-needed --linkopt=-pthread --linkopt=-ldl
       --linkopt='-Wl,-rpath,$ORIGIN/../lib'
       --per_file_copt="conformance/cli/options.c@-DTURNSTILE_COMMIT=\"$commit\"")
bazel build "${flags[@]}" //:turnstile >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/turnstile"
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd' ')
for lib in $needed; do
    case "$lib" in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|ld-linux*|libstdc++.so.6|libgcc_s.so.1) ;;
        libsimdjson.so.*) bundled="$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')" ;;
        *) echo "ci/release.sh: the binary still needs $lib dynamically" >&2; exit 1 ;;
    esac
done
glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
glibcxx=$(objdump -T "$bin" ${bundled:+"$bundled"} | { grep -o 'GLIBCXX_[0-9.]*' || true; } | sort -uV | tail -1)

name="turnstile-$version-linux-x86_64"
stage="$work/$name"
share=$stage/share/turnstile/conformance
mkdir -p "$stage/bin" "$stage/lib" "$share/testees" "$stage/share/doc/turnstile"
install -m 755 "$bin" "$stage/bin/turnstile"
if [ -n "${bundled:-}" ]; then
    install -m 644 "$bundled" "$stage/lib/"
    copyright=$(find /usr/share/doc -path '*/libsimdjson*/copyright' | head -1)
    [ -n "$copyright" ] || { echo "ci/release.sh: simdjson's copyright file is missing (it ships with the library)" >&2; exit 1; }
    cp "$copyright" "$stage/share/doc/turnstile/simdjson-copyright"
fi
strip "$stage/bin/turnstile"
cp -r conformance/cases "$share/cases"
# The kits (conformance/testees/README.md's table), not the adapters of real libraries and engines.
for kit in README.md python-minimal node-minimal ts-kit c-minimal dotnet-kit dotnet-kit-own-types python-resume; do
    cp -r "conformance/testees/$kit" "$share/testees/"
done
rm -rf "$share/testees/"*/{bin,obj,out,node_modules,dist}
cp conformance/SPEC.md conformance/PROTOCOL.md "$share/"
cp README.md conformance/SPEC.md conformance/PROTOCOL.md "$stage/share/doc/turnstile/"
"$stage/bin/turnstile" --version >"$stage/share/doc/turnstile/VERSION"
echo "needs: $needed ($glibc${glibcxx:+, $glibcxx} or newer)" >>"$stage/share/doc/turnstile/VERSION"
archive="$outdir/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" -C "$work" -czf "$archive" "$name"
(cd "$outdir" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$archive"
echo "  $(head -1 "$stage/share/doc/turnstile/VERSION"); links $needed; needs $glibc${glibcxx:+ and $glibcxx} or newer"
