#!/bin/sh
# ci/install.sh VERSION [PREFIX] — installs a turnstile release into PREFIX (default ~/.local):
# PREFIX/bin/turnstile, PREFIX/lib/ (what the binary bundles), PREFIX/share/turnstile/conformance/
# (cases, testees: the suite and the kits), PREFIX/share/doc/turnstile. VERSION is 0.4.0 or v0.4.0. Downloads
# turnstile-VERSION-linux-x86_64.tar.gz and its .sha256 from
#   $TURNSTILE_RELEASE_URL/vVERSION/   (default https://github.com/$TURNSTILE_REPOSITORY/releases/download,
#                                       $TURNSTILE_REPOSITORY default turnstile/turnstile)
# retrying a failed download; requires the .sha256 to name that archive and its checksum to match;
# unpacks into a staging directory inside PREFIX and runs the staged `turnstile --version` there;
# only then moves it into place (file by file with rename, share/turnstile and
# share/doc/turnstile whole), so a download, checksum, unpack (a full disk, a truncated archive) or
# start that fails leaves PREFIX as it was. Refuses any system but Linux x86_64 (the only build).
# The binary needs glibc 2.34 and libstdc++ with GLIBCXX_3.4.30 (Debian 12, Ubuntu 22.04 or newer).
# Needs curl, tar, gzip and sha256sum (stock Debian/Ubuntu); a file:// URL installs from a local
# directory. Runnable as `curl -fsSL .../install.sh | sh -s -- VERSION [PREFIX]`.
set -eu
die() { echo "turnstile: $*" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: install.sh VERSION [PREFIX]" >&2; exit 2; }
version=${1#v}
case "$version" in
    *[!0-9A-Za-z.+-]*|'') echo "turnstile: '$1' is not a version (e.g. 0.4.0)" >&2; exit 2 ;;
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "turnstile: '$1' is not a version (e.g. 0.4.0)" >&2; exit 2 ;;
esac
prefix="${2:-$HOME/.local}"
os=$(uname -s) arch=$(uname -m)
[ "$os" = Linux ] && [ "$arch" = x86_64 ] || die "releases are built for Linux x86_64 only, not $os $arch (build from a checkout: README.md)"
base="${TURNSTILE_RELEASE_URL:-https://github.com/${TURNSTILE_REPOSITORY:-turnstile/turnstile}/releases/download}"
name="turnstile-$version-linux-x86_64.tar.gz"
tmp=$(mktemp -d)
stage=""
trap 'rm -rf "$tmp" ${stage:+"$stage"}' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fetch() { # URL FILE, retried: a release site may fail a request now and then
    curl -fsSL --retry 4 --retry-delay 1 --retry-connrefused -o "$2" "$1" || die "cannot download $1"
}
echo "turnstile: downloading $base/v$version/$name" >&2
fetch "$base/v$version/$name" "$tmp/$name"
fetch "$base/v$version/$name.sha256" "$tmp/$name.sha256"
# The checksum file must be one line, "<sha256>  <this archive's name>": checking whatever file
# it names (sha256sum -c) would let it vouch for another file.
[ "$(wc -l <"$tmp/$name.sha256")" -eq 1 ] || die "$name.sha256 is not one line"
read -r want named <"$tmp/$name.sha256" || true
[ "${named#\*}" = "$name" ] || die "$name.sha256 names '${named:-nothing}', not $name"
case "$want" in *[!0-9a-f]*|'') die "$name.sha256 holds no SHA-256" ;; esac
[ "${#want}" -eq 64 ] || die "$name.sha256 holds no SHA-256"
got=$(sha256sum "$tmp/$name" | cut -d' ' -f1)
[ "$got" = "$want" ] || die "checksum mismatch for $name (got $got, the release says $want)"

mkdir -p "$prefix"
stage=$(mktemp -d "$prefix/.turnstile-install.XXXXXX") || die "cannot write into $prefix"
tar -xzf "$tmp/$name" -C "$stage" --strip-components=1 || die "cannot unpack $name into $prefix (nothing installed)"
for entry in "$stage"/* "$stage"/share/*; do
    case "${entry#"$stage"/}" in bin|lib|share|share/turnstile|share/doc) ;; *) die "unexpected ${entry#"$stage"/} in $name" ;; esac
done
[ -f "$stage/bin/turnstile" ] && [ -d "$stage/share/turnstile" ] && [ -d "$stage/share/doc/turnstile" ] \
    || die "$name is not a turnstile release (no bin/turnstile, share/turnstile or share/doc/turnstile)"
staged_version=$("$stage/bin/turnstile" --version 2>&1) || die "the release's turnstile does not run here: $staged_version"
case "$staged_version" in "turnstile $version "*) ;; *) die "the archive holds '$staged_version', not turnstile $version" ;; esac

# Into place: renames within one file system; bin/turnstile last, once what it uses is there.
mkdir -p "$prefix/bin" "$prefix/lib" "$prefix/share/doc"
for f in "$stage"/lib/*; do [ ! -e "$f" ] || mv -f "$f" "$prefix/lib/"; done
n=0
for d in share/turnstile share/doc/turnstile; do # the previous version's copy is set aside, then dropped
    n=$((n + 1))
    [ ! -e "$prefix/$d" ] || mv "$prefix/$d" "$stage/previous-$n"
    mv "$stage/$d" "$prefix/$d" || { [ ! -e "$stage/previous-$n" ] || mv "$stage/previous-$n" "$prefix/$d"; die "cannot move $d into $prefix"; }
done
mv -f "$stage/bin/turnstile" "$prefix/bin/turnstile"
"$prefix/bin/turnstile" --version
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "turnstile: add $prefix/bin to PATH" >&2 ;; esac
