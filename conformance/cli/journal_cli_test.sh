#!/usr/bin/env bash
# journal_cli_test.sh — `turnstile run` and `turnstile journal` against hostile files (issue 13,
# items 6, 11, 15, 16, 17): the reader writes nothing, a journal is a regular file, damaged and
# impossible journals are refused with the row named, a journal that has applied more events
# than its scenario holds is refused, too large a scenario is refused before it runs, and the
# JSON form shows every LLM task's input as its canonical transcript (J7); a run waits for a
# stopped owner within a bound, naming it, and a read racing a journal's creation reads it or
# calls it empty, never "not a turnstile journal" (issue 20).
set -u
TURNSTILE=${1:?usage: journal_cli_test.sh path/to/turnstile}
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
passed=0 failed=0
fail() { echo "FAIL $name: $*" >&2; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

# expect STATUS PATTERN(stderr for non-zero, stdout for 0) ARGS...
expect() {
    local want=$1 pattern=$2
    shift 2
    "$TURNSTILE" "$@" >"$TMP/out" 2>"$TMP/err"
    local status=$?
    local stream="$TMP/err"
    [ "$want" -eq 0 ] && stream="$TMP/out"
    if [ "$status" -ne "$want" ]; then fail "exit $status, want $want: $(head -c 300 "$TMP/err")"; return; fi
    if ! grep -qE -- "$pattern" "$stream"; then fail "/$pattern/ not in: $(head -c 300 "$stream")"; return; fi
    ok
}

cat >"$TMP/scenario.json" <<'JSON'
{"executionId":"00000000-0000-4000-8000-000000000001","clock":{"start":"2026-05-13T10:00:00Z","stepMs":1000},
 "input":"What is 2+3?","llm":[{"text":"adding","toolCalls":[{"callId":"c1","name":"add","arguments":{"a":2,"b":3}}]},
 {"text":"5"},{"text":"7"}],"tools":{"add":{"result":5}},"events":[{"signal":"and 3+4?"},{"restart":true}]}
JSON
mkdir "$TMP/d"
name=run; expect 0 'suspended, waiting for a signal after 6 commits' run "$TMP/scenario.json" --db "$TMP/d/j.db"

# The reader writes nothing and creates nothing.
name=journal_writes_nothing
before=$(ls -lA --time-style=full-iso "$TMP/d"; stat -c %y "$TMP/d"; sha256sum "$TMP/d/j.db")
"$TURNSTILE" journal --db "$TMP/d/j.db" >"$TMP/journal.json" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
after=$(ls -lA --time-style=full-iso "$TMP/d"; stat -c %y "$TMP/d"; sha256sum "$TMP/d/j.db")
[ "$before" = "$after" ] && ok || fail "the directory changed: $before // $after"
name=journal_in_a_read_only_directory
chmod a-w "$TMP/d"
expect 0 '"eventsApplied":2' journal --db "$TMP/d/j.db"
chmod u+w "$TMP/d"
name=journal_of_an_empty_file
: >"$TMP/d/empty.db"
expect 1 'an empty file: no journal has been written to it yet' journal --db "$TMP/d/empty.db"
name=empty_file_stays_empty
[ ! -s "$TMP/d/empty.db" ] && [ ! -e "$TMP/d/empty.db-wal" ] && [ ! -e "$TMP/d/empty.db-shm" ] && ok ||
    fail "the reader wrote into or next to an empty file: $(ls -la "$TMP/d")"

# J7: each LLM task's input is its transcript, in canonical form, byte for byte.
name=llm_input_is_the_canonical_transcript
python3 - "$TMP/journal.json" <<'PY' && ok || fail "see above"
import json, sys
j = json.load(open(sys.argv[1]))
by_id = {e["entryId"]: e for e in j["entries"]}
def canon(v): return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
llm = [t for t in j["tasks"] if t["kind"] == "llm-request"]
assistants = [e for e in j["entries"] if e["role"] == "assistant"]
assert len(llm) == len(assistants) == 3, (len(llm), len(assistants))
for task, answer in zip(llm, assistants):
    path, at = [], answer["parentId"]
    while at:
        path.insert(0, by_id[at]); at = by_id[at]["parentId"]
    want = canon({"messages": [{"role": e["role"], "content": e["content"], "timestamp": e["timestamp"]} for e in path]})
    if task["input"] != want: sys.exit(f"task {task['taskId']}: input {task['input'][:120]} != {want[:120]}")
PY

# A journal is a regular file.
name=run_dev_null; expect 1 'a character device, not a regular file' run "$TMP/scenario.json" --db /dev/null
name=no_dev_null_journal; [ ! -e /dev/null-journal ] && [ ! -e /dev/null-wal ] && ok || fail "/dev/null-journal exists"
ln -s /dev/null "$TMP/null.db"
name=run_symlink_to_dev_null; expect 1 'a character device, not a regular file' run "$TMP/scenario.json" --db "$TMP/null.db"
name=journal_symlink_to_dev_null; expect 1 'not a regular file' journal --db "$TMP/null.db"
name=run_directory; expect 1 'a directory, not a regular file' run "$TMP/scenario.json" --db "$TMP/d"
mkfifo "$TMP/fifo.db"
name=run_fifo; expect 1 'a FIFO, not a regular file' run "$TMP/scenario.json" --db "$TMP/fifo.db"
ln -s "$TMP/d/j.db" "$TMP/link.db"
name=journal_through_a_symlink; expect 0 '"eventsApplied":2' journal --db "$TMP/link.db"

# Damaged and impossible journals: refused, the row named; `run` does not resume them.
damage() { # NAME SQL PATTERN
    name=$1
    cp "$TMP/d/j.db" "$TMP/bad.db"
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit(); c.close()" \
        "$TMP/bad.db" "$2" || { fail "cannot damage"; return; }
    expect 1 "$3" journal --db "$TMP/bad.db"
    name="$1 (run)"
    expect 1 "$3" run "$TMP/scenario.json" --db "$TMP/bad.db"
}
damage invalid_utf8 "UPDATE log SET body = CAST(X'7B2274657874223A2261FF227D' AS TEXT) WHERE seq = 2" \
    'load: log row 2 is not JSON'
damage not_json "UPDATE log SET body = '{' WHERE kind = 'signal'" 'load: log row [0-9]+ is not JSON'
damage bad_timestamp "UPDATE log SET timestamp = '2026-13-01T00:00:00Z' WHERE seq = 1" \
    'load: log row 1: entry .*: timestamp "2026-13-01T00:00:00Z" is not an RFC 3339 timestamp'
damage task_id "UPDATE log SET id = '00000000-0000-4000-8000-000000000009' WHERE kind = 'task' AND name = 'add'" \
    'load: log row [0-9]+: task 00000000-0000-4000-8000-000000000009: its id is not UUIDv5 of its key'
damage changed_transcript "UPDATE log SET body = '{\"text\":\"What is 2+4?\"}' WHERE seq = 1" \
    'the journal is damaged: tasks\[0\] .* is not the key of its input'
damage events_int64_max "UPDATE log SET events = 9223372036854775807 WHERE kind = 'event'" \
    'eventsApplied 9223372036854775807: not between'
damage sequence_int64_max "UPDATE log SET cp_sequence = cp_sequence + 9223372036854775801 WHERE cp_sequence IS NOT NULL" \
    'checkpoint: sequence 9223372036854775807 is not between 1 and 9007199254740991'
damage signals_consumed "UPDATE log SET cp_consumed = 5 WHERE cp_sequence = (SELECT max(cp_sequence) FROM log)" \
    'checkpoint: 5 signals consumed, but the inbox holds 1'
damage dangling_parent "INSERT INTO log(kind, id, parent, name, body, timestamp) VALUES ('entry',
    '00000000-0000-4000-8000-0000000000aa', '00000000-0000-4000-8000-0000000000bb', 'user', '{}', '2026-05-13T10:00:09Z')" \
    'entry 00000000-0000-4000-8000-0000000000aa\): parent 00000000-0000-4000-8000-0000000000bb is not an earlier entry'

# A journal that has applied more events than the scenario holds is not this scenario's.
name=more_events_than_the_scenario
cp "$TMP/d/j.db" "$TMP/more.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE log SET events = 7 WHERE kind = 'event'\"); c.commit()" "$TMP/more.db"
expect 1 'the journal has applied 7 events, but the scenario has 2' run "$TMP/scenario.json" --db "$TMP/more.db"

# Too large a scenario is refused before anything runs (scenario.h: the cost cap).
name=scenario_too_large
python3 - "$TMP/huge.json" <<'PY'
import json, sys
events = [{"restart": True}] * 2000 + [{"signal": "x"}] * 100000
json.dump({"executionId": "00000000-0000-4000-8000-000000000001", "input": "a", "llm": [{"text": "b"}] * 100001,
           "events": events}, open(sys.argv[1], "w"))
PY
expect 2 'events: the scenario is too large' run "$TMP/huge.json" --db "$TMP/huge.db"
name=too_large_wrote_nothing; [ ! -e "$TMP/huge.db" ] && ok || fail "a refused scenario created its journal"

# A run waits for the journal's owner within a bound and names it: an owner stopped with SIGSTOP
# no longer holds the next run for ever (issue 20). The owner here is a process holding the owner
# lock (flock) on the file, stopped.
name=owner_stopped_with_sigstop
: >"$TMP/owned.db"
python3 -c "
import fcntl, os, signal, sys
f = open(sys.argv[1], 'r+')
fcntl.flock(f, fcntl.LOCK_EX)
os.kill(os.getpid(), signal.SIGSTOP)" "$TMP/owned.db" &
owner=$!
for _ in $(seq 100); do [ "$(sed 's/.*) //' "/proc/$owner/stat" 2>/dev/null | cut -c1)" = T ] && break; sleep 0.1; done
start=$(date +%s)
timeout 60 "$TURNSTILE" run "$TMP/scenario.json" --db "$TMP/owned.db" --wait-owner 1 >"$TMP/out" 2>"$TMP/err"
status=$?
[ "$status" -eq 1 ] && [ $(($(date +%s) - start)) -lt 30 ] &&
    grep -q "another process (pid $owner, stopped) still owns this journal after 1 s of waiting; nothing was read or written" "$TMP/err" &&
    grep -q 'waiting for it to finish (1 s at most)' "$TMP/err" && ok || fail "exit $status: $(cat "$TMP/err")"
name=owner_wait_zero_fails_at_once
expect 1 'another process owns this journal' run "$TMP/scenario.json" --db "$TMP/owned.db" --wait-owner 0
name=owned_file_left_untouched; [ ! -s "$TMP/owned.db" ] && [ ! -e "$TMP/owned.db-wal" ] && ok || fail "$(ls -la "$TMP")"
kill -CONT "$owner"
kill "$owner"
wait "$owner" 2>/dev/null
name=owner_gone_run_goes_on; expect 0 'suspended, waiting for a signal after 6 commits' run "$TMP/scenario.json" --db "$TMP/owned.db"

# A read that races the journal's creation: the run owns the file and has switched it to WAL, its
# schema not yet committed. The reader looks again (up to 2 s) and reads the journal once it is
# there; if it stays empty, it says so: never "not a turnstile journal" (issue 20).
creating() { # FILE THEN: hold the owner lock on FILE, make it an empty WAL database, wait; THEN=journal:
    # after 0.3 s give it a whole journal's bytes (the same inode), and hold on 1.5 s; THEN=stay: 4 s
    python3 - "$1" "$2" "$TMP/d/j.db" <<'PY' &
import fcntl, os, sqlite3, sys, time
path, then, journal = sys.argv[1:]
f = open(path, "a+b")
fcntl.flock(f, fcntl.LOCK_EX)
c = sqlite3.connect(path)
c.execute("PRAGMA journal_mode = WAL")
open(path + ".ready", "w").close()
if then == "stay":
    time.sleep(4)
    sys.exit(0)
time.sleep(0.3)
c.close()
for side in ("-wal", "-shm"):
    if os.path.exists(path + side):
        os.unlink(path + side)
with open(path, "r+b") as g:
    g.truncate(0)
    g.write(open(journal, "rb").read())
time.sleep(1.5)
PY
    creator=$!
    for _ in $(seq 100); do [ -e "$1.ready" ] && break; sleep 0.05; done
}
name=journal_read_while_it_is_being_created
creating "$TMP/racing.db" journal
expect 0 '"eventsApplied":2' journal --db "$TMP/racing.db"
wait "$creator"
name=journal_that_stays_empty_while_owned
creating "$TMP/empty-owned.db" stay
expect 1 "an empty journal: a database without tables; no journal has been written to it yet \(a run, pid $creator, owns it: it is being created" journal --db "$TMP/empty-owned.db"
grep -q 'not a turnstile journal' "$TMP/err" && fail "said 'not a turnstile journal'"
wait "$creator"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
