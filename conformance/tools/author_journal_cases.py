#!/usr/bin/env python3
"""Authoring tool for the resume-engine cases in conformance/cases/journal/ (not run by tests).

Each case is a scenario (SPEC.md section 6.1) and a hand-written expectation: the roles of the
transcript ("u", "a", "t" per entry), the number of entries in the whole journal and the number
of tasks. The tool asks the reference (`turnstile testee`, op "journal") for the journal,
refuses to write a golden that contradicts the expectation, and writes <id>.scenario.json,
<id>.expected.json (the journal; entry ids are random, so the certifier compares journals with
ids replaced by positions) and MANIFEST.json (op "journal").

usage: conformance/tools/author_journal_cases.py [path/to/turnstile]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases", "journal")
CLOCK = {"start": "2026-05-13T10:00:00+00:00", "stepMs": 1000}

CASES_LIST = []


def execution(n):
    return "00000000-0000-4000-8000-%012d" % n


def call(cid, name, **arguments):
    return {"callId": cid, "name": name, "arguments": arguments}


def scenario(n, user_input, llm, tools=None, events=None, clock=CLOCK):
    s = {"executionId": execution(n), "input": user_input, "llm": llm}
    if clock is not None:
        s["clock"] = clock
    if tools:
        s["tools"] = tools
    if events:
        s["events"] = events
    return s


def case(cid, rules, description, scn, roles, entries, tasks, crash=None):
    CASES_LIST.append(dict(id=cid, rules=rules, description=description, scenario=scn, roles=roles,
                           entries=entries, tasks=tasks, crash=crash))


ADD = {"add": {"result": 5}}
TOOLS = {"add": {"result": 5}, "fetch": {"result": {"body": "ok"}, "async": True}, "broken": {"error": "boom"}}

case("Journal.J4.three_simple_turns", ["J4", "J3", "J10"],
     "Seed 002: three simple turns give 6 entries (2N), not 18.",
     scenario(1, "what functions do you have", [{"text": "add"}, {"text": "5"}, {"text": "ok"}],
              events=[{"signal": "ok invoke the solvequadratic. what do you get"},
                      {"signal": "no i am testing out something"}]),
     "uauaua", 6, 3)
case("Journal.J4.turn_with_two_tools", ["J4", "J9", "J3"],
     "Seed 002: a turn with 2 tool calls gives user, assistant, 2 tool results, assistant = 5.",
     scenario(2, "add twice", [{"text": "calling", "toolCalls": [call("c1", "add", a=2, b=3), call("c2", "add", a=1, b=4)]},
                               {"text": "5 and 5"}], tools=ADD),
     "uatta", 5, 4)
case("Journal.J1.signal_after_suspend_and_restart", ["J1", "J10", "J3"],
     "Seed 003 test_entry_counter_collision_fix: 2 entries, suspend, restart, a signal: user, assistant, user, assistant.",
     scenario(3, "Hello", [{"text": "Hi"}, {"text": "Got it"}], events=[{"restart": True}, {"signal": "steer"}]),
     "uaua", 4, 2)
case("Journal.J7.history_after_restart", ["J7", "J8", "J6"],
     "Seed 003 bug 2: after a restart the LLM input carries the stored timestamps, so task ids are stable.",
     scenario(4, "first", [{"text": "one"}, {"text": "two"}, {"text": "three"}],
              events=[{"restart": True}, {"signal": "second"}, {"restart": True}, {"signal": "third"}]),
     "uauaua", 6, 3)
case("Journal.J9.async_tool_completes_after_restart", ["J9", "J6", "J11"],
     "Seed 003 bug 3: a tool suspends the loop; after a restart its result is recorded once and no new LLM task starts.",
     scenario(5, "fetch it", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "got ok"}],
              tools=TOOLS, events=[{"restart": True}, {"complete": "c1"}, {"restart": True}]),
     "uata", 4, 3)
case("Journal.J9.pending_tools_continue_from_index", ["J9", "J6", "J11"],
     "Seed 003 test_resume_with_partial_pending_tools_continues_from_index: the second of three calls suspends.",
     scenario(6, "three tools", [{"text": "go", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", url="y"),
                                                              call("c3", "add", a=2)]}, {"text": "all done"}],
              tools=TOOLS, events=[{"restart": True}, {"complete": "c2"}]),
     "uattta", 6, 5)
case("Journal.J11.left_waiting_for_a_tool", ["J11", "J9"],
     "An async tool whose result never arrives: the execution ends suspended in phase tools at index 0.",
     scenario(7, "wait", [{"text": "waiting", "toolCalls": [call("c1", "fetch", url="z")]}], tools=TOOLS,
              events=[{"restart": True}]),
     "ua", 2, 2)
case("Journal.J10.signal_while_waiting_for_a_tool", ["J10", "J9", "J3"],
     "A signal that arrives while a tool is pending waits for it, then becomes one user entry before the next LLM call.",
     scenario(8, "fetch", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "noted both"}],
              tools=TOOLS, events=[{"signal": "also this"}, {"complete": "c1"}]),
     "uatua", 5, 3)
case("Journal.J10.two_signals_in_one_suspension", ["J10", "J4"],
     "Two signals delivered while a tool is pending become two user entries, in order, consumed in one commit.",
     scenario(9, "start", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "both read"}],
              tools=TOOLS, events=[{"signal": "one"}, {"signal": "two"}, {"complete": "c1"}]),
     "uatuua", 6, 3)
case("Journal.J5.escaped_keys_do_not_collide", ["J5", "J6"],
     "The seed's canonicaliser maps {\"a\\\":1,\\\"b\": 2} and {\"a\":1,\"b\":2} to one key; RFC 8785 does not.",
     scenario(10, "keys", [{"text": "two calls", "toolCalls": [
         {"callId": "c1", "name": "echo", "arguments": {"a\":1,\"b": 2}},
         {"callId": "c2", "name": "echo", "arguments": {"a": 1, "b": 2}}]}, {"text": "done"}],
              tools={"echo": {"result": "echoed"}}),
     "uatta", 5, 4)
case("Journal.J6.failing_and_unknown_tools", ["J6", "J9", "J3"],
     "A scripted failure and a tool the scenario does not know both become tool entries with an error.",
     scenario(11, "try", [{"text": "trying", "toolCalls": [call("c1", "broken"), call("c2", "missing", q=1)]},
                          {"text": "both failed"}], tools=TOOLS),
     "uatta", 5, 4)
case("Journal.J6.same_tool_same_arguments_twice", ["J6", "J5"],
     "Two calls with the same tool and arguments but different call ids are two tasks.",
     scenario(12, "twice", [{"text": "again", "toolCalls": [call("c1", "add", a=1), call("c2", "add", a=1)]},
                            {"text": "5 twice"}], tools=ADD),
     "uatta", 5, 4)
case("Journal.J12.branch_from_the_middle", ["J12", "J2", "J3", "J8"],
     "An edit of transcript position 2 starts a branch; the abandoned entries stay in the journal.",
     scenario(13, "one", [{"text": "a1"}, {"text": "a2"}, {"text": "a2 again"}],
              events=[{"signal": "two"}, {"branch": 2, "text": "two, edited"}]),
     "uaua", 6, 3)
case("Journal.J12.branch_at_the_root", ["J12", "J2", "J3"],
     "An edit of position 0 makes a second root.",
     scenario(14, "first", [{"text": "x"}, {"text": "y"}], events=[{"branch": 0, "text": "instead"}]),
     "ua", 4, 2)
case("Journal.J12.branch_beyond_the_end_appends", ["J12", "J3"],
     "A branch at or past the end of the transcript appends, like a signal.",
     scenario(15, "first", [{"text": "x"}, {"text": "y"}], events=[{"branch": 99, "text": "more"}]),
     "uaua", 4, 2)
case("Journal.J8.wall_clock_free_fractional_clock", ["J8", "J7"],
     "A clock starting at a fraction and an offset: entries get start + k*step, written in UTC with 7 digits.",
     scenario(16, "tick", [{"text": "tock", "toolCalls": [call("c1", "add", a=1)]}, {"text": "done"}], tools=ADD,
              clock={"start": "2026-05-13T12:30:00.123+02:30", "stepMs": 1500}),
     "uata", 4, 3)
case("Journal.J3.unicode_content", ["J3", "J5", "J8"],
     "Unicode, escapes and astral characters survive the journal and the canonical task inputs.",
     scenario(17, "h\u00e9llo \U0001F600 \"quoted\" \\ \n", [{"text": "\u05e9\u05dc\u05d5\u05dd \u2028"},
                                                                {"text": "\U0001F600", "toolCalls": []}],
              events=[{"signal": "\u00e9\u0301"}, {"restart": True}]),
     "uaua", 4, 2)

# Crash cases: a simulated process death before every commit of multi-turn scenarios (the
# count of commits is the reference's, from `turnstile run`), each then resumed.
CRASH_SCENARIOS = [
    ("Journal.J13.crash_before_commit_%d", "",
     scenario(18, "crash me", [{"text": "tools", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", u=1)]},
                               {"text": "after tools"}, {"text": "after signal"}],
              tools=TOOLS, events=[{"complete": "c2"}, {"signal": "more"}, {"restart": True}]),
     "uattaua", 7, 5),
    ("Journal.J13.three_turns_crash_before_commit_%d", " (three turns with tools, a signal while waiting, restarts)",
     scenario(19, "turn one", [{"text": "one", "toolCalls": [call("c1", "add", a=1)]}, {"text": "one done"},
                               {"text": "two", "toolCalls": [call("c2", "fetch", u=2), call("c3", "broken")]},
                               {"text": "two done"}, {"text": "three done"}],
              tools=TOOLS, events=[{"signal": "turn two"}, {"signal": "meanwhile"}, {"restart": True},
                                   {"complete": "c2"}, {"signal": "turn three"}]),
     "uataua" + "ttuaua", 12, 8),
]


def commits_of(turnstile, scn):
    """How many commits the reference makes running scn uninterrupted."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.json")
        json.dump(scn, open(path, "w"))
        out = subprocess.run([turnstile, "run", path, "--db", os.path.join(tmp, "j.db")], capture_output=True,
                             text=True, check=True).stdout
        return int(re.search(r"after (\d+) commits", out).group(1))


def without_entry_ids(journal):
    """The journal with entry ids replaced by their position in "entries" (as the certifier compares)."""
    ids = {e["entryId"]: "#%d" % i for i, e in enumerate(journal.get("entries", []))}

    def walk(v):
        if isinstance(v, dict):
            return {k: ids.get(x, x) if k in ("entryId", "parentId", "leafId") and isinstance(x, str) else walk(x)
                    for k, x in v.items()}
        return [walk(x) for x in v] if isinstance(v, list) else v
    return walk(journal)


def roles_of(journal):
    return "".join({"user": "u", "assistant": "a", "tool": "t"}[e["role"]] for e in journal["transcript"])


def main():
    turnstile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "bazel-bin", "turnstile")
    for pattern, what, scn, roles, entries, tasks in CRASH_SCENARIOS:
        for k in range(1, commits_of(turnstile, scn) + 1):
            case(pattern % k, ["J13", "J10", "J9", "J4"],
                 "The process dies before its commit %d%s and resumes: the journal equals the uninterrupted run's."
                 % (k, what), scn, roles, entries, tasks, crash=k)
    os.makedirs(CASES, exist_ok=True)
    requests = []
    for c in CASES_LIST:
        r = {"id": c["id"], "op": "journal", "scenario": c["scenario"]}
        if c["crash"]:
            r["crashBeforeCommit"] = c["crash"]
        requests.append(json.dumps(r, ensure_ascii=False))
    out = subprocess.run([turnstile, "testee"], input="\n".join(requests) + "\n", capture_output=True, text=True,
                         check=True).stdout.split("\n")
    manifest = {"suite": "turnstile-journal", "spec": "conformance/SPEC.md#6", "version": 1, "cases": []}
    failures = 0
    files = []
    for c, line in zip(CASES_LIST, out):
        answer = json.loads(line)
        if "journal" not in answer:
            print("%s: the reference answered %s" % (c["id"], line), file=sys.stderr)
            failures += 1
            continue
        j = answer["journal"]
        got = (roles_of(j), len(j["entries"]), len(j["tasks"]))
        want = (c["roles"], c["entries"], c["tasks"])
        if got != want:
            print("%s: expected roles/entries/tasks %s, the reference gives %s" % (c["id"], want, got), file=sys.stderr)
            failures += 1
            continue
        base = c["id"]
        files.append((base + ".scenario.json", c["scenario"]))
        files.append((base + ".expected.json", j))
        m = {"id": base, "op": "journal", "rules": c["rules"], "description": c["description"],
             "input": base + ".scenario.json", "expected": base + ".expected.json",
             "check": {"roles": c["roles"], "entries": c["entries"], "tasks": c["tasks"]}}
        if c["crash"]:
            m["crashBeforeCommit"] = c["crash"]
        manifest["cases"].append(m)
    if failures:
        sys.exit("%d case(s) contradict their expectation; nothing written" % failures)
    for name, value in files:
        path = os.path.join(CASES, name)
        if name.endswith(".expected.json") and os.path.exists(path) and \
                without_entry_ids(json.load(open(path, encoding="utf-8"))) == without_entry_ids(value):
            continue  # the same journal (entry ids are random): keep the file as it is
        with open(path, "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=2)
            f.write("\n")
    with open(os.path.join(CASES, "MANIFEST.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print("wrote %d journal cases to %s" % (len(manifest["cases"]), os.path.normpath(CASES)))


if __name__ == "__main__":
    main()
