#!/usr/bin/env bash
# ci/install_test.sh — ci/install.sh against local release sites (file:// and a flaky HTTP
# server on 127.0.0.1), with small made-up releases (a stand-in binary that prints its version),
# so it runs in seconds and needs no build. It must install 0.4.0 and v0.4.0 alike, retry a
# failing download, and refuse — leaving the prefix exactly as it was — a checksum file naming
# another file, a wrong checksum, a truncated archive, a 0-byte binary, an archive of another
# version, a malformed version, and a system other than Linux x86_64. ci/release_test.sh installs
# the real archive. Run by ci/test.sh; ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
install=$root/ci/install.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/turnstile-install-test.XXXXXX")
server_pid=""
trap '[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*"; sed 's/^/    /' "$work/out" | tail -5; failed=$((failed + 1)); }

# release SITE VERSION [MUTATION]: writes SITE/vVERSION/turnstile-VERSION-linux-x86_64.tar.gz and
# its .sha256. MUTATION: truncated (the archive cut short, its checksum matching the cut bytes),
# empty-binary (bin/turnstile of 0 bytes), other-version (the binary says 9.9.9).
release() {
    local site=$1 version=$2 mutation=${3:-} top
    top=$work/build/turnstile-$version-linux-x86_64
    rm -rf "$work/build" && mkdir -p "$top/bin" "$top/lib" "$top/share/turnstile/suite" "$top/share/turnstile/kits" "$top/share/doc/turnstile"
    printf '#!/bin/sh\necho "turnstile %s (commit test)"\n' "$([ "$mutation" = other-version ] && echo 9.9.9 || echo "$version")" >"$top/bin/turnstile"
    [ "$mutation" != empty-binary ] || : >"$top/bin/turnstile"
    chmod 755 "$top/bin/turnstile"
    echo "lib $version" >"$top/lib/libexample.so.1"
    echo "case of $version" >"$top/share/turnstile/suite/only-in-$version.json"
    echo "readme $version" >"$top/share/doc/turnstile/README.md"
    mkdir -p "$site/v$version"
    local archive=$site/v$version/turnstile-$version-linux-x86_64.tar.gz
    tar -C "$work/build" -czf "$archive" "turnstile-$version-linux-x86_64"
    if [ "$mutation" = truncated ]; then head -c "$(($(stat -c %s "$archive") / 2))" "$archive" >"$archive.cut" && mv "$archive.cut" "$archive"; fi
    (cd "$site/v$version" && sha256sum "turnstile-$version-linux-x86_64.tar.gz" >"turnstile-$version-linux-x86_64.tar.gz.sha256")
}
# snapshot PREFIX: every path and its content's checksum, to compare before and after
snapshot() { (cd "$1" && find . -print0 | sort -z | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && sha256sum "$f" || echo "$f"; done' sh); }
run() { # SITE VERSION PREFIX: install.sh as a user runs it, output in $work/out
    (cd "$work" && TURNSTILE_RELEASE_URL=$1 sh "$install" "$2" "$3") >"$work/out" 2>&1
}
# refused NAME SITE VERSION PREFIX PATTERN: install.sh must fail naming PATTERN, PREFIX unchanged
refused() {
    name=$1
    local before after code=0
    before=$(snapshot "$4" 2>/dev/null)
    run "$2" "$3" "$4" || code=$?
    after=$(snapshot "$4" 2>/dev/null)
    if [ "$code" -eq 0 ]; then fail "installed (exit 0)"
    elif ! grep -qE -- "$5" "$work/out"; then fail "exit $code without saying '$5'"
    elif [ "$before" != "$after" ]; then fail "the prefix changed: $(diff <(echo "$before") <(echo "$after") | head -5)"
    else ok; fi
}

site=$work/site
release "$site" 0.4.0
release "$site" 0.5.0
prefix="$work/prefix with space"

name=installs_a_version
run "file://$site" 0.4.0 "$prefix" && grep -qx "turnstile 0.4.0 (commit test)" "$work/out" \
    && [ -x "$prefix/bin/turnstile" ] && [ -f "$prefix/lib/libexample.so.1" ] && [ -f "$prefix/share/turnstile/suite/only-in-0.4.0.json" ] \
    && [ -f "$prefix/share/doc/turnstile/README.md" ] && [ -z "$(find "$prefix" -name '.turnstile-install.*')" ] && ok || fail "not installed"
name=accepts_a_v_prefixed_version
run "file://$site" v0.5.0 "$prefix" && grep -q "downloading file://$site/v0.5.0/turnstile-0.5.0-linux" "$work/out" \
    && grep -qx "turnstile 0.5.0 (commit test)" "$work/out" && ok || fail "v0.5.0 not installed"
name=upgrade_replaces_the_suite_whole
[ ! -e "$prefix/share/turnstile/suite/only-in-0.4.0.json" ] && [ -f "$prefix/share/turnstile/suite/only-in-0.5.0.json" ] \
    && [ "$(cat "$prefix/lib/libexample.so.1")" = "lib 0.5.0" ] && ok || fail "the 0.4.0 files are still there"

# A checksum file that vouches for another file: with `sha256sum -c` it would check that file
# (here /etc/passwd, its real checksum) and let a tampered archive in.
bad=$work/bad && cp -r "$site" "$bad"
echo "tampered" >"$bad/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz"
sha256sum /etc/passwd >"$bad/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz.sha256"
refused checksum_file_naming_another_file "file://$bad" 0.4.0 "$prefix" "names '/etc/passwd', not turnstile-0.4.0"
cp "$site/v0.4.0/"* "$bad/v0.4.0/"
sed -i 's/^\([0-9a-f]*\)  .*/\1  turnstile-0.5.0-linux-x86_64.tar.gz/' "$bad/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz.sha256"
refused checksum_file_naming_another_release "file://$bad" 0.4.0 "$prefix" "names 'turnstile-0.5.0"
cp "$site/v0.4.0/"* "$bad/v0.4.0/"
echo "0000000000000000000000000000000000000000000000000000000000000000  turnstile-0.4.0-linux-x86_64.tar.gz" \
    >"$bad/v0.4.0/turnstile-0.4.0-linux-x86_64.tar.gz.sha256"
refused wrong_checksum "file://$bad" 0.4.0 "$prefix" "checksum mismatch"
release "$bad" 0.4.0 truncated
refused truncated_archive_leaves_the_prefix "file://$bad" 0.4.0 "$prefix" "cannot unpack"
release "$bad" 0.4.0 empty-binary
refused zero_byte_binary "file://$bad" 0.4.0 "$prefix" "holds '', not turnstile 0.4.0"
release "$bad" 0.4.0 other-version
refused archive_of_another_version "file://$bad" 0.4.0 "$prefix" "holds 'turnstile 9.9.9"
refused missing_release "file://$site" 0.6.0 "$prefix" "cannot download"
for v in vv0.4.0 0.4 '0.4.0/../../x' '$(touch pwned)' ''; do
    refused "malformed_version_$v" "file://$site" "$v" "$prefix" "is not a version"
done
[ ! -e "$work/pwned" ] && ok || { name=version_ran_as_code; fail "a version ran as code"; }
mkdir -p "$work/uname"
for system in "Darwin x86_64" "Linux aarch64"; do
    printf '#!/bin/sh\n[ "$1" = -s ] && echo %s || echo %s\n' "${system% *}" "${system#* }" >"$work/uname/uname"
    chmod +x "$work/uname/uname"
    name="refuses_${system// /_}"
    before=$(snapshot "$prefix")
    (cd "$work" && PATH="$work/uname:$PATH" TURNSTILE_RELEASE_URL="file://$site" sh "$install" 0.4.0 "$prefix") >"$work/out" 2>&1
    code=$?
    [ "$code" -ne 0 ] && grep -q "Linux x86_64 only, not $system" "$work/out" && [ "$before" = "$(snapshot "$prefix")" ] && ok || fail "exit $code"
done

# Over HTTP: a server that fails each file's first two requests (503) is retried through.
cat >"$work/server.py" <<'EOF'
import http.server, os, sys
seen = {}
class Flaky(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        seen[self.path] = seen.get(self.path, 0) + 1
        if seen[self.path] <= 2:
            self.send_error(503, "try again")
            return
        super().do_GET()
    def log_message(self, *args):
        pass
os.chdir(sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF
mkfifo "$work/port"
python3 "$work/server.py" "$site" >"$work/port" &
server_pid=$!
read -r port <"$work/port"
name=retries_a_flaky_server
rm -rf "$work/http-prefix"
run "http://127.0.0.1:$port" 0.4.0 "$work/http-prefix" && grep -qx "turnstile 0.4.0 (commit test)" "$work/out" && ok || fail "not installed"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
