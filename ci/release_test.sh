#!/usr/bin/env bash
# ci/release_test.sh — the release as a team meets it, on this machine, without the checkout:
#   1. ci/release.sh makes the archive;
#   2. README's one-line install (tar into a prefix) and ci/install.sh (from a file:// release
#      URL, checksum checked) each install it into an empty temp prefix;
#   3. from an empty directory, with only the prefix's bin on PATH before /usr/bin:/bin and a
#      fresh HOME, `turnstile --version` and `turnstile certify --reference` work;
#   4. a team copies the Python kit out of the install, records its known failures, and gates
#      through the GitHub Action's certify step (ci/action/certify.sh): green, with JUnit showing
#      no failure and a job summary; then a regression in one rule (the kit keeps the first
#      finishReason) turns it red with NEW FAILURE lines naming that rule;
#   5. README's certify commands run as printed from the install's share/turnstile (ci/docs_test.sh
#      --installed), the kits' READMEs name no file the archive lacks (ci/docs_paths_check.py),
#      and README states the glibc and libstdc++ versions the binary needs.
# ci/install_test.sh tests ci/install.sh's refusals on made-up releases. Ends "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "PASS $name"; passed=$((passed + 1)); }
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }

name=release_archive
"$root/ci/release.sh" "$tmp/dist" >"$tmp/release.log" 2>&1 && ok || { fail "$(tail -5 "$tmp/release.log")"; echo "0 passed, 1 failed"; exit 1; }
archive=$(ls "$tmp"/dist/turnstile-*-linux-x86_64.tar.gz)
version=$(basename "$archive" | sed 's/^turnstile-\(.*\)-linux-x86_64.tar.gz$/\1/')
mkdir -p "$tmp/site/v$version" && cp "$archive" "$archive.sha256" "$tmp/site/v$version/"

clean_env=(env -i "HOME=$tmp/home" "PATH=$tmp/prefix/bin:/usr/bin:/bin" "LANG=C.UTF-8")
name=one_line_install_from_the_archive
mkdir -p "$tmp/prefix1" "$tmp/home"
tar -xzf "$archive" -C "$tmp/prefix1" --strip-components=1 && [ -x "$tmp/prefix1/bin/turnstile" ] \
    && [ -f "$tmp/prefix1/share/turnstile/conformance/cases/merge/MANIFEST.json" ] && [ -f "$tmp/prefix1/share/doc/turnstile/PROTOCOL.md" ] \
    && [ -f "$tmp/prefix1/share/turnstile/conformance/testees/python-resume/testee.py" ] \
    && ok || fail "the archive is not an install prefix"
name=install_script_from_a_release_url
(cd "$tmp/home" && "${clean_env[@]}" TURNSTILE_RELEASE_URL="file://$tmp/site" sh "$root/ci/install.sh" "$version" "$tmp/prefix") >"$tmp/out" 2>&1 \
    && grep -q "^turnstile $version (commit " "$tmp/out" && ok || fail "$(cat "$tmp/out")"
name=install_script_rejects_a_bad_checksum
cp -r "$tmp/site" "$tmp/bad" && echo "0000  turnstile-$version-linux-x86_64.tar.gz" >"$tmp/bad/v$version/turnstile-$version-linux-x86_64.tar.gz.sha256"
if (cd "$tmp/home" && "${clean_env[@]}" TURNSTILE_RELEASE_URL="file://$tmp/bad" sh "$root/ci/install.sh" "$version" "$tmp/badprefix") >"$tmp/out" 2>&1; then
    fail "installed despite a wrong checksum"
else
    [ ! -e "$tmp/badprefix/bin/turnstile" ] && ok || fail "a wrong checksum left $tmp/badprefix/bin/turnstile"
fi
name=binary_needs_only_glibc_and_what_it_bundles
needed=$(readelf -d "$tmp/prefix/bin/turnstile" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' \
    | grep -vE '^(libc|libm|libpthread|libdl)\.so|^libstdc\+\+\.so\.6$|^libgcc_s\.so\.1$' || true)
unbundled=""
for lib in $needed; do # each other library must resolve to the archive's own lib/
    where=$(ldd "$tmp/prefix/bin/turnstile" | awk -v l="$lib" '$1 == l { print $3 }')
    [ -n "$where" ] && [ "$(realpath "$where")" = "$(realpath "$tmp/prefix/lib/$lib")" ] || unbundled="$unbundled $lib=>$where"
done
[ -z "$unbundled" ] && ok || fail "links dynamically, not from the archive:$unbundled"
name=readme_states_what_the_binary_needs
needs=$(objdump -T "$tmp/prefix/bin/turnstile" "$tmp"/prefix/lib/*.so* 2>/dev/null | grep -oE 'GLIBC(XX)?_[0-9.]+' | sort -uV)
glibc=$(grep '^GLIBC_' <<<"$needs" | tail -1) glibcxx=$(grep '^GLIBCXX_' <<<"$needs" | tail -1)
tr '\n' ' ' <"$root/README.md" | grep -q "glibc ${glibc#GLIBC_} or newer and the C++ runtime libstdc++ with \`$glibcxx\`" \
    && ok || fail "README.md does not say the binary needs glibc ${glibc#GLIBC_} and $glibcxx"
name=kits_readmes_name_only_files_in_the_archive
python3 "$root/ci/docs_paths_check.py" "$tmp/prefix/share/turnstile" >"$tmp/out" 2>&1 && ok || fail "$(cat "$tmp/out")"
name=readme_certify_commands_from_the_install
"$root/ci/docs_test.sh" --installed "$tmp/prefix" >"$tmp/out" 2>&1 && ok || fail "$(grep -A5 '^FAIL' "$tmp/out" | head -20)"
name=certify_reference_without_a_checkout
mkdir -p "$tmp/team"
(cd "$tmp/team" && "${clean_env[@]}" turnstile certify --reference) >"$tmp/out" 2>&1 \
    && tail -1 "$tmp/out" | grep -qE '^[0-9]+ passed, 0 failed, 0 skipped$' && grep -q '^verdict: CONFORMANT' "$tmp/out" \
    && ok || fail "$(tail -3 "$tmp/out")"

# A team's CI: its kit, its known failures, the Action's certify step.
cp -r "$tmp/prefix/share/turnstile/conformance/testees/python-minimal" "$tmp/team/merger"
cd "$tmp/team/merger" || exit 1
name=team_records_known_failures
"${clean_env[@]}" turnstile certify --write-expected-failures known.txt -- python3 testee.py >"$tmp/out" 2>&1
[ $? -eq 1 ] && [ "$(grep -vc '^#' known.txt)" -gt 10 ] && ok || fail "$(tail -3 "$tmp/out")"
gate() {
    rm -f "$tmp/summary" "$tmp/output" turnstile-junit.xml turnstile-report.json
    "${clean_env[@]}" GITHUB_STEP_SUMMARY="$tmp/summary" GITHUB_OUTPUT="$tmp/output" TURNSTILE_COMMAND="python3 testee.py" \
        TURNSTILE_EXPECTED_FAILURES=known.txt bash "$root/ci/action/certify.sh" >"$tmp/out" 2>&1
}
name=gate_green_on_known_failures
gate
status=$?
[ $status -eq 0 ] && python3 - <<'PY' && grep -q '^## turnstile certify: passed' "$tmp/summary" && grep -q '^| rule | level |' "$tmp/summary" \
    && grep -q '^verdict=not conformant' "$tmp/output" && ok || fail "exit $status; $(tail -3 "$tmp/out")"
import xml.etree.ElementTree as ET
root = ET.parse("turnstile-junit.xml").getroot()
assert root.get("failures") == "0" and root.get("errors") == "0", root.attrib
assert int(root.get("skipped")) > 10
PY
name=gate_red_on_a_regression_in_one_rule
sed -i 's/if u.get(f) is not None})  # R1, R6: last/if u.get(f) is not None and f not in resp})  # regression: first/' testee.py
grep -q 'regression: first' testee.py || fail "the regression was not applied"
gate
status=$?
[ $status -eq 1 ] && grep -q '^NEW FAILURE     Merge\.R1\.[A-Za-z0-9_.]* R1 ' "$tmp/out" \
    && ! grep '^NEW FAILURE' "$tmp/out" | grep -vqE ' (R1|R6|R2|R3|R4|O3) ' \
    && grep -q '^## turnstile certify: failed (exit 1)' "$tmp/summary" \
    && python3 -c "import xml.etree.ElementTree as E; r=E.parse('turnstile-junit.xml').getroot(); assert int(r.get('failures')) > 0, r.attrib" \
    && ok || fail "exit $status; $(grep -E 'NEW|UNEXP|STALE' "$tmp/out" | head -5)"
name=printed_replay_runs_without_a_checkout
line=$(sed -n 's/^ *replay: //p' "$tmp/out" | head -1)
code=0
if [ -z "$line" ]; then
    fail "no replay line printed"
else
    (PATH="$tmp/prefix/bin:/usr/bin:/bin" bash -c "$line") >"$tmp/replay" 2>&1 || code=$?
    [ "$code" -eq 1 ] && tail -1 "$tmp/replay" | grep -qE '^0 passed, 1 failed, 0 skipped$' && ok || fail "[$line] $(tail -2 "$tmp/replay")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
