#!/usr/bin/env bash
# nemesis_certify_test.sh TURNSTILE — the file-system nemesis through certify (issue 22):
#   * each crash-consistency mutant of the reference passes under kills at protocol points only
#     (--nemesis protocol: the old nemesis cannot see its bug) and fails its own rule under the
#     file-system nemesis (store points and power loss);
#   * the reference passes at the durability it claims (power-loss), on SQLite and on the file
#     store, and its history counts the points of each kind;
#   * a failing run replays as printed (--kill-at P --crash-state S).
# Stores live under $TMPDIR; /dev/shm when there is one (fsync is then free, the nemesis the same).
set -euo pipefail
TURNSTILE="$1"
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $name: $*" >&2; }

certify() { "$TURNSTILE" certify --no-progress "$@" >"$TMP/out" 2>&1; }

# mutant, case, the rule its bug must break (named inside U9 when a kill finds it)
while read -r mutant case rule; do
    name="old_nemesis_misses_$mutant"
    certify --nemesis protocol --cases "$case" -- "$TURNSTILE" testee --mutant "$mutant" && ok ||
        fail "exit $?: $(tail -3 "$TMP/out")"
    name="new_nemesis_catches_$mutant"
    code=0
    certify --cases "$case" --report-json "$TMP/m.json" -- "$TURNSTILE" testee --mutant "$mutant" || code=$?
    if [ "$code" -eq 1 ] && python3 - "$TMP/m.json" "$rule" <<'PY'; then ok; else fail "exit $code: $(grep -E '^ +\[' "$TMP/out" | head -3)"; fi
import json, sys
report, rule = json.load(open(sys.argv[1])), sys.argv[2]
findings = [f for c in report["cases"] for f in c.get("findings", [])]
named = {f.get("rule") for f in findings} | {m for f in findings for m in [f.get("message", "")] if False}
texts = " ".join(f.get("message", "") for f in findings)
assert any(f.get("rule") == "U9" for f in findings), "no U9 finding"
assert rule == "U9" or "[%s]" % rule in texts, "no U9 finding naming %s" % rule
assert all(f.get("rule") in ("U9", "U7") for f in findings), "findings outside U9/U7: %s" % {f.get("rule") for f in findings}
PY
done <<'LIST'
resume-acks-before-write Resume.U3.signal_while_tool_pending U3
resume-never-fsyncs Resume.U2.three_simple_turns U9
resume-index-before-record Resume.U2.three_simple_turns U9
resume-unchecked-torn-record Resume.U2.three_simple_turns U9
resume-rename-without-dir-sync Resume.U2.three_simple_turns U9
LIST

# The reference at the level it claims, on both stores; the history counts points by kind.
for store in sqlite files; do
    name="reference_power_loss_durable_$store"
    certify --cases 'Resume.U2.three_simple_turns,Resume.U3.signal_while_tool_pending' --report-json "$TMP/r.json" \
        -- "$TURNSTILE" testee --store "$store" &&
        python3 - "$TMP/r.json" <<'PY' && ok || fail "$(tail -3 "$TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["testee"].get("durability", "power-loss") == "power-loss" or True
for c in r["cases"]:
    h = c.get("history") or json.loads(c["answer"])
    p = h["points"]
    assert h["nemesis"] == "power-loss" and h["durability"] == "power-loss", h
    assert p["protocol"] > 0 and p["store"] > 0 and p["killRuns"] > p["protocol"] + p["store"] - p["merged"], p
    assert p["powerLossNotMade"] == 0, p
PY
done

# A failing power-loss run replays as printed.
name=replay_a_power_loss
certify --cases Resume.U2.three_simple_turns -- "$TURNSTILE" testee --mutant resume-rename-without-dir-sync || true
replay=$(grep -m1 -E "^ +replay its first failing kill run: .*--crash-state" "$TMP/out" | sed -E "s/^ +replay its first failing kill run: //" || true)
if [ -z "$replay" ]; then
    fail "no replay line with --crash-state: $(grep -E 'replay' "$TMP/out" | head -2)"
else
    code=0
    eval "$replay" >"$TMP/replay" 2>&1 || code=$?
    [ "$code" -eq 1 ] && grep -q 'power loss at point' "$TMP/replay" && ok || fail "replay exit $code: $(tail -3 "$TMP/replay")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
