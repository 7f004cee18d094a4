#!/usr/bin/env bash
# ci/release.sh [OUTDIR] — makes the release archive: OUTDIR/turnstile-VERSION-linux-x86_64.tar.gz
# and its .sha256 (OUTDIR defaults to ./dist). The archive is an install prefix under one top
# directory:
#   bin/turnstile                   self-contained (the suite is built in); jansson, libcrypto,
#                                   libuuid and SQLite linked statically; simdjson (Debian ships
#                                   no static archive) from lib/ beside it ($ORIGIN/../lib): needs
#                                   only glibc and the C++ runtime every apt-based system has
#   lib/libsimdjson.so.N            error positions of the codec (its copyright in share/doc/turnstile/)
#   share/turnstile/suite/          the conformance cases (to vendor, or for certify --suite)
#   share/turnstile/kits/           the testee kits (Python, Node.js, TypeScript, C#, C)
#   share/doc/turnstile/            README.md, SPEC.md, PROTOCOL.md
# so `tar -xzf ARCHIVE -C PREFIX --strip-components=1` installs it (README.md, "Install"). Runs on the
# build machine's glibc or newer (Debian 12, Ubuntu 24.04); it prints the oldest glibc it needs.
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

name="turnstile-$version-linux-x86_64"
stage="$work/$name"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/turnstile/kits" "$stage/share/doc/turnstile"
install -m 755 "$bin" "$stage/bin/turnstile"
if [ -n "${bundled:-}" ]; then
    install -m 644 "$bundled" "$stage/lib/"
    cp /usr/share/doc/libsimdjson*/copyright "$stage/share/doc/turnstile/simdjson-copyright" 2>/dev/null || true
fi
strip "$stage/bin/turnstile"
cp -r conformance/cases "$stage/share/turnstile/suite"
for kit in README.md python-minimal node-minimal ts-kit c-minimal dotnet-kit dotnet-kit-own-types; do
    [ -e "conformance/testees/$kit" ] && cp -r "conformance/testees/$kit" "$stage/share/turnstile/kits/"
done
rm -rf "$stage/share/turnstile/kits/"*/{bin,obj,node_modules,dist}
cp README.md conformance/SPEC.md conformance/PROTOCOL.md "$stage/share/doc/turnstile/"
"$stage/bin/turnstile" --version >"$stage/share/doc/turnstile/VERSION"
echo "needs: $needed ($glibc or newer)" >>"$stage/share/doc/turnstile/VERSION"
archive="$outdir/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" -C "$work" -czf "$archive" "$name"
(cd "$outdir" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$archive"
echo "  $(head -1 "$stage/share/doc/turnstile/VERSION"); links $needed; needs $glibc or newer"
