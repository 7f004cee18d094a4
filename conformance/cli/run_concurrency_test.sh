#!/usr/bin/env bash
# run_concurrency_test.sh — two `turnstile run`s on one fresh journal (issue 13, item 1).
#
# PAIRS times (default 100): a fresh --db, two processes released together by a barrier, the
# same scenario (40 signals, sync, async and failing tools, completions, a restart, a branch).
# Each pair must end with both processes exiting 0 — one runs the scenario, the other says it
# waits, then resumes a journal that has nothing left to do — and with a journal equal, entry
# ids aside, to one uninterrupted run: no signal delivered twice, no entry duplicated or lost.
# Prints the figures (pairs, how many waited, commits per process).
set -u
TURNSTILE=${1:?usage: run_concurrency_test.sh path/to/turnstile}
PAIRS=${PAIRS:-100}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

python3 - "$TMP/scenario.json" <<'PY'
import json, sys
events = []
for i in range(40):
    events.append({"signal": f"message {i}"})
    if i == 10: events.append({"complete": "c2"})
    if i == 20: events.append({"restart": True})
    if i == 30: events.append({"branch": 3, "text": "an edit"})
llm = [{"text": "calling", "toolCalls": [
           {"callId": "c1", "name": "add", "arguments": {"a": 1, "b": 2}},
           {"callId": "c2", "name": "fetch", "arguments": {"url": "x"}},
           {"callId": "c3", "name": "broken", "arguments": {}}]}]
llm += [{"text": f"answer {i}"} for i in range(60)]
scenario = {"executionId": "00000000-0000-4000-8000-00000000c0de",
            "clock": {"start": "2026-05-13T10:00:00Z", "stepMs": 1000},
            "input": "begin", "llm": llm,
            "tools": {"add": {"result": 3}, "fetch": {"result": "page", "async": True}, "broken": {"error": "boom"}},
            "events": events}
json.dump(scenario, open(sys.argv[1], "w"))
PY

"$TURNSTILE" run "$TMP/scenario.json" --db "$TMP/reference.db" --sync normal >"$TMP/reference.out" 2>&1 ||
    { fail "the reference run failed: $(cat "$TMP/reference.out")"; exit 1; }
"$TURNSTILE" journal --db "$TMP/reference.db" --numbered-ids >"$TMP/reference.json" || { fail "journal"; exit 1; }
reference_commits=$(grep -oE 'after [0-9]+ commits' "$TMP/reference.out" | grep -oE '[0-9]+')

waited=0 start=$(date +%s.%N)
for i in $(seq 1 "$PAIRS"); do
    db="$TMP/pair$i.db"
    rm -f "$TMP/go"
    pids=()
    for side in a b; do
        ( while [ ! -e "$TMP/go" ]; do :; done
          exec "$TURNSTILE" run "$TMP/scenario.json" --db "$db" --sync normal ) >"$TMP/$side.out" 2>"$TMP/$side.err" &
        pids+=($!)
    done
    touch "$TMP/go"
    wait "${pids[0]}"; status_a=$?
    wait "${pids[1]}"; status_b=$?
    if [ "$status_a" -ne 0 ] || [ "$status_b" -ne 0 ]; then
        fail "pair $i: exit $status_a and $status_b: $(cat "$TMP/a.err" "$TMP/b.err")"
        continue
    fi
    commits="$(grep -ohE 'after [0-9]+ commits?' "$TMP/a.out" "$TMP/b.out" | grep -oE '[0-9]+' | sort -n | tr '\n' ' ')"
    if [ "$commits" != "0 $reference_commits " ]; then
        fail "pair $i: commits per process {$commits}, want {0 $reference_commits}"
    fi
    waited=$((waited + $(cat "$TMP/a.err" "$TMP/b.err" | grep -c 'waiting for it to finish')))
    if ! "$TURNSTILE" journal --db "$db" --numbered-ids >"$TMP/pair.json" 2>"$TMP/journal.err"; then
        fail "pair $i: the journal cannot be read: $(cat "$TMP/journal.err")"
    elif ! cmp -s "$TMP/pair.json" "$TMP/reference.json"; then
        fail "pair $i: the journal differs from one run's: $(python3 - "$TMP/pair.json" "$TMP/reference.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print({k: (len(a[k]), len(b[k])) for k in ("entries", "tasks", "signals")}, a["eventsApplied"], b["eventsApplied"])
PY
)"
    fi
    rm -f "$db" "$db-wal" "$db-shm"
done
seconds=$(python3 -c "import time; print(round(time.time() - $start, 1))")
entries=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(len(j['entries']), len(j['signals']))" "$TMP/reference.json")
echo "$PAIRS pairs of simultaneous runs on a fresh journal in ${seconds} s: each pair one run of $reference_commits commits" \
     "and one of 0; $waited of the second runs found the journal owned and waited; every journal equal to one run's" \
     "($entries entries and signals); $failed failures"
[ "$failed" -eq 0 ]
