#!/bin/sh
# ci/install.sh VERSION [PREFIX] — installs a turnstile release into PREFIX (default ~/.local):
# PREFIX/bin/turnstile, PREFIX/share/turnstile/{suite,kits}, PREFIX/share/doc/turnstile.
# Downloads turnstile-VERSION-linux-x86_64.tar.gz and its .sha256 from
#   $TURNSTILE_RELEASE_URL/vVERSION/   (default https://github.com/$TURNSTILE_REPOSITORY/releases/download,
#                                       $TURNSTILE_REPOSITORY default turnstile/turnstile)
# checks the checksum, unpacks, and prints the installed `turnstile --version`. Needs curl, tar
# and sha256sum (stock Debian/Ubuntu); a file:// URL installs from a local directory.
# Runnable as `curl -fsSL .../install.sh | sh -s -- VERSION [PREFIX]`.
set -eu
version="${1:?usage: install.sh VERSION [PREFIX]}"
prefix="${2:-$HOME/.local}"
base="${TURNSTILE_RELEASE_URL:-https://github.com/${TURNSTILE_REPOSITORY:-turnstile/turnstile}/releases/download}"
name="turnstile-$version-linux-x86_64.tar.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "turnstile: downloading $base/v$version/$name" >&2
curl -fsSL -o "$tmp/$name" "$base/v$version/$name"
curl -fsSL -o "$tmp/$name.sha256" "$base/v$version/$name.sha256"
(cd "$tmp" && sha256sum -c --quiet "$name.sha256") || { echo "turnstile: checksum mismatch for $name" >&2; exit 1; }
mkdir -p "$prefix"
tar -xzf "$tmp/$name" -C "$prefix" --strip-components=1
"$prefix/bin/turnstile" --version
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "turnstile: add $prefix/bin to PATH" >&2 ;; esac
