#!/usr/bin/env python3
"""Authoring tool for the resume cases in conformance/cases/resume/ (not run by tests).

Each case is a scenario (SPEC.md section 6.1; edits and forks as SPEC 6.4 defines them, not the
reference profile's branch events) and a hand-written expectation:
the roles of the conversation the case must end with ("u", "a", "t" per item: user message,
assistant message, tool result). The tool writes the cases to a scratch suite, certifies the
reference on it (`turnstile certify --reference`, every kill point), refuses to write anything
when the reference fails a case or its final conversation contradicts the expectation, and
then writes <id>.scenario.json and MANIFEST.json (op "resume"). A resume case has no golden
answer: the scenario is the expectation, and the certifier plays its model and tools.

usage: conformance/tools/author_resume_cases.py [path/to/turnstile]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases", "resume")

CASES_LIST = []


def thread(n):
    return "00000000-0000-4000-8000-%012d" % (100 + n)


def call(cid, name, **arguments):
    return {"callId": cid, "name": name, "arguments": arguments}


def scenario(n, user_input, llm, tools=None, events=None):
    s = {"executionId": thread(n), "input": user_input, "llm": llm}
    if tools:
        s["tools"] = tools
    if events is not None:
        s["events"] = events
    return s


def case(cid, rules, description, scn, roles):
    CASES_LIST.append(dict(id=cid, rules=rules, description=description, scenario=scn, roles=roles))


ADD = {"add": {"result": 5}}
TOOLS = {"add": {"result": 5}, "fetch": {"result": {"body": "ok"}, "async": True}, "broken": {"error": "boom"},
         "slow": {"result": "late", "async": True}}

case("Resume.U2.three_simple_turns", ["U2", "U3", "U1"],
     "Seed 002: three simple turns give 6 messages (2N), not 18: one owner of persistence.",
     scenario(1, "what functions do you have", [{"text": "add"}, {"text": "5"}, {"text": "ok"}],
              events=[{"signal": "ok invoke the solvequadratic. what do you get"}, {"signal": "no i am testing out something"}]),
     "uauaua")
case("Resume.U2.turn_with_two_tools", ["U2", "U5", "U6"],
     "A turn with two synchronous tool calls: user, assistant, two results, assistant; each tool runs once.",
     scenario(2, "add twice", [{"text": "calling", "toolCalls": [call("c1", "add", a=2, b=3), call("c2", "add", a=1, b=4)]},
                               {"text": "5 and 5"}], tools=ADD),
     "uatta")
case("Resume.U2.long_react_chain", ["U2", "U5", "U6", "U7"],
     "Four model answers in a row, each asking for one tool: a kill at any point continues the chain where it stopped.",
     scenario(3, "chain", [{"text": "step %d" % i, "toolCalls": [call("c%d" % i, "add", step=i)]} for i in range(1, 4)] +
              [{"text": "chained"}], tools=ADD),
     "uatatata")
case("Resume.U3.signal_while_tool_pending", ["U3", "U5", "U8"],
     "A user message arrives while an async tool call is pending: it appears once, before the next model answer, "
     "and the model is not called until the result is in.",
     scenario(4, "fetch it", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "noted both"}],
              tools=TOOLS, events=[{"signal": "also this"}, {"complete": "c1"}]),
     "uatua")
case("Resume.U3.two_signals_while_pending", ["U3", "U2"],
     "Two user messages while a tool is pending: both appear once, in arrival order, before the next model answer.",
     scenario(5, "start", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "both read"}],
              tools=TOOLS, events=[{"signal": "one"}, {"signal": "two"}, {"complete": "c1"}]),
     "uatuua")
case("Resume.U3.signal_after_suspend_and_restart", ["U3", "U1", "U4"],
     "Seed 003 test_entry_counter_collision_fix: a turn, a restart, then a user message: it must not be lost "
     "(counter-based ids restart on resume and collide).",
     scenario(6, "Hello", [{"text": "Hi"}, {"text": "Got it"}], events=[{"restart": True}, {"signal": "steer"}]),
     "uaua")
case("Resume.U3.signal_while_pending_then_restart", ["U3", "U9", "U8"],
     "A user message waits for a pending tool across a restart: after the result it appears exactly once.",
     scenario(7, "fetch", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "done"}],
              tools=TOOLS, events=[{"signal": "meanwhile"}, {"restart": True}, {"complete": "c1"}]),
     "uatua")
case("Resume.U4.history_after_restart", ["U4", "U2", "U10"],
     "Seed 003 bug 2: after each restart the model sees the stored messages with their ids and timestamps unchanged.",
     scenario(8, "first", [{"text": "one"}, {"text": "two"}, {"text": "three"}],
              events=[{"restart": True}, {"signal": "second"}, {"restart": True}, {"signal": "third"}]),
     "uauaua")
case("Resume.U5.sync_tool_beside_async", ["U5", "U6", "U8"],
     "One answer asks for a synchronous and an asynchronous tool: the run suspends with one result in and one pending, "
     "and the model is called only when both are in.",
     scenario(9, "both", [{"text": "both", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", u=2)]},
                          {"text": "both in"}], tools=TOOLS, events=[{"complete": "c2"}]),
     "uatta")
case("Resume.U5.async_tool_completes_after_restart", ["U5", "U6", "U9"],
     "Seed 003 bug 3: a tool suspends the loop; after a restart its result arrives and the loop continues, "
     "never asking the model while the call is pending.",
     scenario(10, "fetch it", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]}, {"text": "got ok"}],
              tools=TOOLS, events=[{"restart": True}, {"complete": "c1"}, {"restart": True}]),
     "uata")
case("Resume.U5.pending_tools_continue_from_index", ["U5", "U6", "U7"],
     "Seed 003 test_resume_with_partial_pending_tools_continues_from_index: the second of three calls suspends; "
     "after the restart and its result, the third runs, once.",
     scenario(11, "three tools", [{"text": "go", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", url="y"),
                                                               call("c3", "add", a=2)]}, {"text": "all done"}],
              tools=TOOLS, events=[{"restart": True}, {"complete": "c2"}]),
     "uattta")
case("Resume.U5.two_async_calls_of_one_answer", ["U5", "U2", "U8"],
     "Two async calls of one answer, completed in call order with a restart between: the model waits for both "
     "(an engine may invoke the second only once the first is done, or both at once).",
     scenario(12, "two waits", [{"text": "waiting twice", "toolCalls": [call("c1", "fetch", u=1), call("c2", "slow", u=2)]},
                                {"text": "both back"}], tools=TOOLS,
              events=[{"complete": "c1"}, {"restart": True}, {"complete": "c2"}]),
     "uatta")
case("Resume.U6.failing_and_unknown_tools", ["U6", "U2", "U5"],
     "A scripted failure and a tool the catalogue lacks: both get a result (the error's wording is free), "
     "the scripted one is invoked once, the unknown one need not be.",
     scenario(13, "try", [{"text": "trying", "toolCalls": [call("c1", "broken"), call("c2", "missing", q=1)]},
                          {"text": "both failed"}], tools=TOOLS),
     "uatta")
case("Resume.U6.repeated_call_id_across_turns", ["U6", "U2", "U5"],
     "Two turns reuse call id c1 with arguments that the seed's canonical JSON maps to one key "
     "({\"a\\\":1,\\\"b\": 2} and {\"a\":1,\"b\":2}): each call runs once, neither is taken for the other.",
     scenario(14, "keys", [{"text": "first", "toolCalls": [{"callId": "c1", "name": "echo", "arguments": {"a\":1,\"b": 2}}]},
                           {"text": "first done"},
                           {"text": "second", "toolCalls": [{"callId": "c1", "name": "echo", "arguments": {"a": 1, "b": 2}}]},
                           {"text": "second done"}],
              tools={"echo": {"result": "echoed"}}, events=[{"signal": "again"}]),
     "uatauata")
case("Resume.U6.same_tool_same_arguments_twice", ["U6", "U7"],
     "Two calls with the same tool and arguments but different call ids each run once.",
     scenario(15, "twice", [{"text": "again", "toolCalls": [call("c1", "add", a=1), call("c2", "add", a=1)]},
                            {"text": "5 twice"}], tools=ADD),
     "uatta")
case("Resume.U8.left_waiting_for_a_tool", ["U8", "U5"],
     "An async tool whose result never arrives: every answer and the final read say waiting, and no model call follows.",
     scenario(16, "wait", [{"text": "waiting", "toolCalls": [call("c1", "fetch", url="z")]}], tools=TOOLS,
              events=[{"restart": True}]),
     "ua")
case("Resume.U10.resume_a_finished_run", ["U10", "U6", "U8"],
     "A run that finished is restarted and recovered: nothing is in flight, so nothing runs again; "
     "then the conversation goes on.",
     scenario(17, "add", [{"text": "adding", "toolCalls": [call("c1", "add", a=1)]}, {"text": "5"}, {"text": "more"}],
              tools=ADD, events=[{"restart": True}, {"restart": True}, {"signal": "and then?"}]),
     "uataua")
case("Resume.U2.unicode_content", ["U2", "U4"],
     "Unicode, escapes and astral characters survive the store, the model's view and the tool arguments.",
     scenario(18, "h\u00e9llo \U0001F600 \"quoted\" \\ \n", [
         {"text": "\u05e9\u05dc\u05d5\u05dd \u2028", "toolCalls": [call("c\u00e9", "add", **{"k\u00e9y": "\U0001F600", "q\"": "\\"})]},
         {"text": "\U0001F600"}, {"text": "e\u0301"}],
              tools=ADD, events=[{"signal": "\u00e9\u0301"}, {"restart": True}]),
     "uataua")
case("Resume.U9.tools_and_signals_across_turns", ["U9", "U3", "U5", "U7"],
     "Two turns with tools, a user message while one is pending, restarts between: a kill at any point of any turn, "
     "then recovery and the client's retry, ends in the uninterrupted conversation.",
     scenario(19, "crash me", [{"text": "tools", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", u=1)]},
                               {"text": "after tools"}, {"text": "more tools", "toolCalls": [call("c3", "add", a=3)]},
                               {"text": "after more"}],
              tools=TOOLS, events=[{"signal": "while pending"}, {"complete": "c2"}, {"restart": True}, {"signal": "more"}]),
     "uattuauata")
case("Resume.U9.sync_tools_across_turns", ["U9", "U7", "U3", "U5"],
     "The multi-turn crash case without asynchronous tools, for engines that cannot suspend on one: two turns with "
     "two tool calls each, a failing tool, restarts between turns; every point of every turn is a kill point.",
     scenario(20, "turn one", [{"text": "two tools", "toolCalls": [call("c1", "add", a=1), call("c2", "add", a=2)]},
                               {"text": "one done"},
                               {"text": "two more", "toolCalls": [call("c3", "add", a=3), call("c4", "broken")]},
                               {"text": "two done"}, {"text": "three done"}],
              tools=TOOLS, events=[{"restart": True}, {"signal": "turn two"}, {"restart": True},
                                   {"signal": "turn three"}]),
     "uattauattaua")
case("Resume.U2.sync_result_kept_while_sibling_waits", ["U2", "U6", "U8"],
     "Found by the differential resume fuzzer against LangGraph: a synchronous call beside an asynchronous one that never "
     "answers. The synchronous call ran; its result must be in the conversation while the sibling waits (an engine that "
     "runs one answer's calls as one task and throws the finished ones' results away when another suspends loses it).",
     scenario(21, "add, then fetch", [{"text": "on it", "toolCalls": [call("c1", "add", a=1), call("c2", "fetch", url="z")]}],
              tools={"add": {"result": 5}, "fetch": {"result": {"body": "ok"}, "async": True}}, events=[]),
     "uat")

# Branches (SPEC 6.4, U12-U15): an edit of user message K, a fork before assistant message N. Every user text,
# answer and call id is unique in a case that branches (items are told apart across branches by content).
case("Resume.U12.edit_at_root", ["U12", "U13", "U14"],
     "Edit the first message after a turn with a tool: the new branch is the new message and its own turn; the old "
     "answer, result and call are nowhere in it, and the old call does not run again.",
     scenario(22, "what is 2+3?", [{"text": "adding", "toolCalls": [call("c1", "add", a=2, b=3)]}, {"text": "it is 5"},
                                   {"text": "adding again", "toolCalls": [call("c2", "add", a=4, b=4)]}, {"text": "it is 8"}],
              tools=ADD, events=[{"edit": 0, "text": "what is 4+4?"}]),
     "uata")
case("Resume.U12.edit_in_the_middle", ["U12", "U13", "U3"],
     "Three turns, then the second user message is edited: the first turn stays as it was (ids and all), the second "
     "and third are abandoned, and the conversation goes on from the edit.",
     scenario(23, "turn one", [{"text": "answer one"}, {"text": "answer two", "toolCalls": [call("c1", "add", t=2)]},
                               {"text": "two done"}, {"text": "answer three"}, {"text": "answer two, edited"},
                               {"text": "answer four"}],
              tools=ADD, events=[{"signal": "turn two"}, {"signal": "turn three"}, {"edit": 1, "text": "turn two, edited"},
                                 {"signal": "turn four"}]),
     "uauaua")
case("Resume.U12.edit_and_fork_beyond_the_end", ["U12", "U8"],
     "An edit of a user message the conversation does not have and a fork past its last assistant message are refused "
     "(an error answer) and change nothing; the conversation goes on.",
     scenario(24, "only one", [{"text": "answer one"}, {"text": "answer two"}],
              events=[{"edit": 1, "text": "no such message"}, {"fork": 2, "text": "no such point"},
                      {"signal": "and the next"}]),
     "uaua")
case("Resume.U15.edit_while_call_pending", ["U15", "U12", "U14", "U8"],
     "A call is pending when the first message is edited: a fork at the end is refused first (the conversation there "
     "holds a call without its result), then the edit abandons the call; its late result changes nothing, is never "
     "completed into the new branch, and the call never runs again.",
     scenario(25, "fetch it", [{"text": "fetching", "toolCalls": [call("c1", "fetch", url="x")]},
                               {"text": "adding instead", "toolCalls": [call("c2", "add", a=1)]}, {"text": "added"},
                               {"text": "still added"}],
              tools=TOOLS, events=[{"fork": 1, "text": "fork at the end"}, {"edit": 0, "text": "never mind, add"},
                                   {"complete": "c1"}, {"signal": "and now?"}]),
     "uataua")
case("Resume.U12.signal_queued_on_abandoned_branch", ["U12", "U3", "U8"],
     "A user message queued behind a pending call is abandoned with its branch when an earlier message is edited: it "
     "appears in no later view or read.",
     scenario(26, "start", [{"text": "first answer"}, {"text": "fetching", "toolCalls": [call("c1", "fetch", url="y")]},
                            {"text": "edited answer"}],
              tools=TOOLS, events=[{"signal": "fetch"}, {"signal": "queued while waiting"},
                                   {"edit": 1, "text": "fetch, edited"}]),
     "uaua")
case("Resume.U14.fork_keeps_tool_results", ["U14", "U12", "U6"],
     "Fork before the second answer of a turn with two tool calls: the branch keeps both results (the tools do not run "
     "again) and continues with the new message.",
     scenario(27, "add twice", [{"text": "adding", "toolCalls": [call("c1", "add", a=1), call("c2", "add", a=2)]},
                                {"text": "both added"},
                                {"text": "subtracting", "toolCalls": [call("c3", "add", a=-1)]}, {"text": "subtracted"}],
              tools=ADD, events=[{"fork": 1, "text": "actually, subtract"}]),
     "uattuata")
case("Resume.U12.fork_after_restart", ["U12", "U9", "U14"],
     "Two turns, a restart, then a fork before the second answer: the branch keeps the first turn and the second "
     "message, takes the new one, and a kill at any point of the fork ends in the same conversation.",
     scenario(28, "first", [{"text": "answer one"}, {"text": "answer two", "toolCalls": [call("c1", "add", b=1)]},
                            {"text": "two done"}, {"text": "forked answer"}],
              tools=ADD, events=[{"signal": "second"}, {"restart": True}, {"fork": 1, "text": "second, forked"}]),
     "uauua")
case("Resume.U13.edit_of_an_edit", ["U13", "U12"],
     "The second message is edited, then the edit is edited again: three branches, ids unique across them, each "
     "abandoned one unchanged where the engine keeps it readable.",
     scenario(29, "question one", [{"text": "reply one"}, {"text": "reply two"}, {"text": "reply two, edited"},
                                   {"text": "reply two, edited again"}, {"text": "reply three"}],
              events=[{"signal": "question two"}, {"edit": 1, "text": "question two, edited"},
                      {"edit": 1, "text": "question two, edited again"}, {"signal": "question three"}]),
     "uauaua")


def roles_of(messages):
    roles = ""
    for m in messages:
        role = m.get("role", "user").lower()
        if role == "assistant":
            roles += "a"
        elif role == "system":
            continue
        else:
            results = [c for c in m.get("contents", []) if c.get("$type") == "functionResult"]
            roles += "t" * len(results)
            if role == "user" and (not results or any(c.get("$type") == "text" for c in m.get("contents", []))):
                roles += "u"
    return roles


def main():
    turnstile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "bazel-bin", "turnstile")
    scratch = tempfile.mkdtemp()
    try:
        suite = os.path.join(scratch, "resume")
        os.makedirs(suite)
        manifest = {"suite": "turnstile-resume", "spec": "conformance/SPEC.md#6.4", "protocol": "conformance/PROTOCOL.md#resume",
                    "version": 1, "cases": []}
        for c in CASES_LIST:
            name = c["id"] + ".scenario.json"
            with open(os.path.join(suite, name), "w", encoding="utf-8") as f:
                json.dump(c["scenario"], f, ensure_ascii=False, indent=2)
                f.write("\n")
            manifest["cases"].append({"id": c["id"], "op": "resume", "rules": c["rules"], "description": c["description"],
                                      "input": name, "check": {"roles": c["roles"]}})
        with open(os.path.join(suite, "MANIFEST.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, ensure_ascii=False, indent=2)
            f.write("\n")
        report = os.path.join(scratch, "report.json")
        run = subprocess.run([turnstile, "certify", "--reference", "--suite", scratch, "--report-json", report],
                             capture_output=True, text=True)
        results = {r["id"]: r for r in json.load(open(report))["cases"]}
        failures = 0
        for c in CASES_LIST:
            r = results[c["id"]]
            events = r["history"]["runs"][0]["events"]
            final = [e["answer"] for e in events if "answer" in e][-1]
            got = roles_of(final.get("messages", []))
            if r["verdict"] != "pass" or got != c["roles"]:
                print("%s: verdict %s, roles %s (expected %s)" % (c["id"], r["verdict"], got, c["roles"]), file=sys.stderr)
                for finding in r["findings"][:5]:
                    print("    [%s] %s" % (finding["rule"], finding["message"]), file=sys.stderr)
                failures += 1
        if failures:
            print(run.stdout[-2000:], file=sys.stderr)
            sys.exit("%d case(s) fail on the reference or contradict their expectation; nothing written" % failures)
        os.makedirs(CASES, exist_ok=True)
        for name in os.listdir(CASES):
            if name.endswith(".scenario.json") or name == "MANIFEST.json":
                os.remove(os.path.join(CASES, name))
        for name in os.listdir(suite):
            shutil.copy(os.path.join(suite, name), os.path.join(CASES, name))
        print("wrote %d resume cases to %s" % (len(CASES_LIST), os.path.normpath(CASES)))
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
