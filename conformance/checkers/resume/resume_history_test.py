#!/usr/bin/env python3
"""resume_history_test.py — the universal resume rules (SPEC.md 6.4) on edited histories.

Records the reference's histories (`turnstile certify --reference --report-json`), then edits
them as other engines would behave and judges each edit again with `turnstile check --history`:

  * what the SPEC allows must pass: no messageIds or createdAt at all, createdAt rewritten as
    .NET writes it, results of one answer in another order or in one message, a user message
    that arrived while a call was pending placed before the results, no commit notices, a
    system message, results sent back as JSON text, a tool run again after a kill inside it;
  * each rule must catch its own breach, and only that rule (U9 naming it after a kill);
  * persist-at-end engines (histories recorded in testdata/resume/): the result of a tool missing
    from the catalogue is made again with its answer, and a killed run may end in another order
    the SPEC allows (issue 24); U9 still tells apart what is not the uninterrupted run's.

usage: resume_history_test.py TURNSTILE
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

TURNSTILE = os.path.realpath(sys.argv[1])
CASES = "conformance/cases/resume"
TMP = tempfile.mkdtemp()
passed = failed = 0


def record(case, kill_points="none"):
    report = os.path.join(TMP, "report.json")
    subprocess.run([TURNSTILE, "certify", "--reference", "--suite", "conformance/cases", "--cases", case,
                    "--kill-points", kill_points, "--report-json", report], check=False, capture_output=True)
    return json.load(open(report))["cases"][0]["history"]


def judge(case, history, rule="U2"):
    """case: a suite case's id, or the path of a scenario file."""
    path = os.path.join(TMP, "history.json")
    json.dump(history, open(path, "w"))
    scenario = case if case.endswith(".json") else os.path.join(CASES, case + ".scenario.json")
    out = subprocess.run([TURNSTILE, "check", "--scenario", scenario, "--history", path, "--rule", rule],
                         capture_output=True, text=True)
    rules = set()
    for line in out.stdout.splitlines():
        if line.startswith("["):
            rules.add(line[1:].split("]")[0].split(",")[0])
    return rules, out.stdout


def expect(name, case, history, want, rule="U2"):
    """want: the set of rules that must fail (empty: must pass)."""
    global passed, failed
    got, out = judge(case, history, rule)
    if got == set(want):
        passed += 1
    else:
        failed += 1
        print("FAIL %s: expected %s, got %s\n%s" % (name, sorted(want), sorted(got), out[-1500:]), file=sys.stderr)


def run0(history):
    h = copy.deepcopy(history)
    h["runs"] = h["runs"][:1]
    return h


def conversations(run):
    """Every message list the history holds: model views and read answers."""
    for e in run["events"]:
        if "model" in e:
            yield e["model"]
        if "answer" in e and "messages" in e["answer"]:
            yield e["answer"]["messages"]


def final_read(run):
    return [e["answer"] for e in run["events"] if "answer" in e][-1]["messages"]


# The history names every failing kill run and the rules it broke (a U9 finding by the rule it
# names), also those whose events it omits.
report = os.path.join(TMP, "mutant.json")
subprocess.run([TURNSTILE, "certify", "--mutant", "resume-restarts-loop", "--suite", "conformance/cases", "--cases",
                "Resume.U2.turn_with_two_tools", "--kill-points", "all", "--report-json", report], capture_output=True)
mh = json.load(open(report))["cases"][0]["history"]
fp = mh.get("failingKillPoints", [])
if (fp and len(fp) == mh["killPoints"] - mh["passingRunsOmitted"] and all("U5" in k["rules"] for k in fp)
        and "U9" not in {r for k in fp for r in k["rules"]}):
    passed += 1
else:
    failed += 1
    print("FAIL failing_kill_points_named: %s" % json.dumps(fp)[:600], file=sys.stderr)

# --kill-at P replays exactly one kill run that the report names.
if fp:
    point = fp[-1]["point"]
    subprocess.run([TURNSTILE, "certify", "--mutant", "resume-restarts-loop", "--suite", "conformance/cases", "--cases",
                    "Resume.U2.turn_with_two_tools", "--kill-at", str(point), "--report-json", report], capture_output=True)
    one = json.load(open(report))["cases"][0]["history"]
    if one["killPoints"] == 1 and [r.get("kill") for r in one["runs"]] == [None, point] and \
            [k["point"] for k in one["failingKillPoints"]] == [point]:
        passed += 1
    else:
        failed += 1
        print("FAIL kill_at_replays_one_run: %s" % json.dumps(one)[:600], file=sys.stderr)

# ------------------------------------------------------------------------- allowed ----
TWO = "Resume.U2.turn_with_two_tools"
PENDING = "Resume.U3.signal_while_tool_pending"
SIMPLE = "Resume.U2.three_simple_turns"
two = run0(record(TWO))
pending = run0(record(PENDING))
simple = run0(record(SIMPLE))
expect("reference_two_tools", TWO, two, [])
expect("reference_signal_pending", PENDING, pending, [])

h = copy.deepcopy(two)
for msgs in conversations(h["runs"][0]):
    for m in msgs:
        m.pop("messageId", None)
        m.pop("createdAt", None)
expect("no_ids_no_timestamps", TWO, h, [])

h = copy.deepcopy(two)
seen = 0
for msgs in conversations(h["runs"][0]):
    for m in msgs:
        if "createdAt" in m and seen % 2:  # .NET's own forms of the same instant, in every other sighting
            at = m["createdAt"].replace("+00:00", "Z")
            m["createdAt"] = at.rstrip("Z").rstrip("0").rstrip(".") + "Z"
        seen += 1
expect("created_at_rewritten_as_dotnet_does", TWO, h, [])

h = copy.deepcopy(two)
for msgs in conversations(h["runs"][0]):
    tools = [i for i, m in enumerate(msgs) if m["role"] == "tool"]
    if len(tools) == 2:  # reversed, then merged into one tool message with two results
        a, b = tools
        msgs[a], msgs[b] = msgs[b], msgs[a]
expect("results_in_another_order", TWO, h, [])
h2 = copy.deepcopy(h)
for msgs in conversations(h2["runs"][0]):
    tools = [i for i, m in enumerate(msgs) if m["role"] == "tool"]
    if len(tools) == 2:
        msgs[tools[0]]["contents"] += msgs[tools[1]]["contents"]
        del msgs[tools[1]]
expect("results_in_one_message", TWO, h2, [])

h = copy.deepcopy(pending)
for msgs in conversations(h["runs"][0]):  # the late user message before the result it waited for
    roles = [m["role"] for m in msgs]
    if roles[:4] == ["user", "assistant", "tool", "user"]:
        msgs[2], msgs[3] = msgs[3], msgs[2]
expect("user_message_before_the_pending_result", PENDING, h, [])

h = copy.deepcopy(two)
events, point = [], 0
for e in h["runs"][0]["events"]:
    if "commit" in e:
        continue
    if "point" in e:
        point += 1
        e["point"] = point
    events.append(e)
h["runs"][0]["events"] = events
expect("no_commit_notices", TWO, h, [])

h = copy.deepcopy(two)
for msgs in conversations(h["runs"][0]):
    msgs.insert(0, {"role": "system", "contents": [{"$type": "text", "text": "You are helpful."}]})
    for m in msgs:
        for c in m["contents"]:
            if c.get("$type") == "functionResult":
                c["result"] = json.dumps(c["result"])
expect("system_message_and_results_as_text", TWO, h, [])

# ------------------------------------------------------------------------- breaches ----
def final(h):
    return final_read(h["runs"][0])


h = copy.deepcopy(simple)
f = final(h)
f[3]["messageId"] = f[1]["messageId"]
expect("U1_duplicate_message_id", SIMPLE, h, ["U1", "U4"])

h = copy.deepcopy(simple)
del final(h)[-1]
expect("U2_lost_assistant_message", SIMPLE, h, ["U2"])

h = copy.deepcopy(simple)
f = final(h)
f.insert(3, copy.deepcopy(f[2]))
expect("U3_doubled_user_message", SIMPLE, h, ["U3", "U1"])
h = copy.deepcopy(simple)
f = final(h)
for m in f:
    m.pop("messageId", None)
f.insert(3, copy.deepcopy(f[2]))
expect("U3_doubled_user_message_without_ids", SIMPLE, h, ["U3"])

# A view that lost the first turn and shows the second user message (LangGraph after a kill,
# certified/resume/node-langgraph-FINDINGS.md F4): the fault is the lost message, not the one
# that was sent and shows early.
h = copy.deepcopy(simple)
views = [e for e in h["runs"][0]["events"] if "model" in e]
views[1]["model"] = [m for m in views[1]["model"] if m["role"] == "user"][1:]
expect("U3_first_turn_lost_second_shown", SIMPLE, h, ["U3", "U10"], rule="U3")
got, out = judge(SIMPLE, h, "U3")
if 'user "what functions do you have" is lost' in out and "appears" not in out:
    passed += 1
else:
    failed += 1
    print("FAIL U3_names_the_lost_message: %s" % out[-800:], file=sys.stderr)
h = copy.deepcopy(simple)  # the second user message already in the first turn's view: out of place
views = [e for e in h["runs"][0]["events"] if "model" in e]
views[0]["model"] = views[0]["model"] + [copy.deepcopy([m for m in views[1]["model"] if m["role"] == "user"][1])]
got, out = judge(SIMPLE, h, "U2")
if "comes before assistant message 0" in out and "U3" not in out:
    passed += 1
else:
    failed += 1
    print("FAIL U2_user_message_early: %s" % out[-800:], file=sys.stderr)

h = copy.deepcopy(simple)
final(h)[0]["messageId"] = "00000000-0000-4000-8000-00000000beef"
expect("U4_message_id_changed", SIMPLE, h, ["U4"])
h = copy.deepcopy(simple)
final(h)[0]["createdAt"] = "1999-01-01T00:00:00+00:00"
expect("U4_created_at_changed", SIMPLE, h, ["U4"])

h = copy.deepcopy(two)
for e in h["runs"][0]["events"]:
    if "model" in e and len(e["model"]) == 4:
        del e["model"][3]
expect("U5_model_called_while_a_call_is_pending", TWO, h, ["U5"])

h = copy.deepcopy(two)
ev = h["runs"][0]["events"]
tool = [i for i, e in enumerate(ev) if "tool" in e][0]
ev.insert(tool + 1, copy.deepcopy(ev[tool]))
expect("U6_tool_invoked_twice", TWO, h, ["U6"])
h = copy.deepcopy(two)
h["runs"][0]["events"] = [e for e in h["runs"][0]["events"] if "tool" not in e]
expect("U6_tool_never_invoked", TWO, h, ["U6"])

h = copy.deepcopy(simple)
for e in h["runs"][0]["events"]:
    if "answer" in e and e["answer"].get("status") == "idle" and "messages" not in e["answer"]:
        e["answer"]["status"] = "waiting"
        break
expect("U8_waiting_when_the_turn_is_over", SIMPLE, h, ["U8"])

h = copy.deepcopy(simple)
ev = h["runs"][0]["events"]
model = [i for i, e in enumerate(ev) if "model" in e][0]
ev.insert(model + 1, copy.deepcopy(ev[model]))
expect("U10_model_asked_twice", SIMPLE, h, ["U10"])

h = copy.deepcopy(simple)
for e in h["runs"][0]["events"]:
    if "answer" in e and "messages" not in e["answer"]:
        e["answer"] = {"id": e["answer"]["id"], "error": "disk full"}
        break
expect("error_answer_fails_the_case_rule_only", SIMPLE, h, ["U3"], rule="U3")

# Killed runs: a finding is reported under U9, naming its rule; a re-run outside the
# allowance is U7 (Recommended); a re-run of the call the kill fell inside is allowed.
base = record(TWO, "none")
# Build a killed run by hand from the uninterrupted one: kill at the first tool call, then
# the tool runs again after the restart (inside it: allowed).
r0 = base["runs"][0]
ev = r0["events"]
i = [k for k, e in enumerate(ev) if "tool" in e][0]
pre = copy.deepcopy(ev[:i + 1])
pre[-1].pop("reply", None)
post = copy.deepcopy(ev[i:])
run = {"kill": ev[i]["point"], "events": pre + [{"killed": ev[i]["point"]}, {"restart": "kill"},
                                               {"send": {"recover": True}}] + post}
for e in run["events"][len(pre) + 3:]:
    if "point" in e:
        e["point"] += 1000
h = {"runs": [r0, run]}
expect("kill_inside_a_tool_then_run_again", TWO, h, [])

run2 = copy.deepcopy(run)  # the same, but the kill was at the model call before: U7
run2["kill"] = ev[i]["point"] - 4
run2["events"][len(pre)]["killed"] = run2["kill"]
h = {"runs": [r0, run2]}
expect("U7_tool_run_again_after_a_kill_far_before_it", TWO, h, ["U7"])

run3 = copy.deepcopy(run)
read = [e for e in run3["events"] if "answer" in e and "messages" in e["answer"]][-1]
del read["answer"]["messages"][-1]
expect("U9_names_the_rule_after_a_kill", TWO, {"runs": [r0, run3]}, ["U9"])

# What the testee wrote reaches the terminal escaped: an error text holding a terminal escape.
h = copy.deepcopy(simple)
for e in h["runs"][0]["events"]:
    if "answer" in e and "messages" not in e["answer"]:
        e["answer"] = {"id": e["answer"]["id"], "error": "disk \x1b]0;owned\x07\x1b[2J full"}
        break
got, out = judge(SIMPLE, h, "U3")
if got == {"U3"} and "\x1b" not in out and "\x07" not in out and "disk \\x1b]0;owned\\x07\\x1b[2J full" in out:
    passed += 1
else:
    failed += 1
    print("FAIL findings_escape_what_the_testee_wrote: %r" % out, file=sys.stderr)

# A history that proves nothing is refused (exit 2, naming the field), never passed: no runs, a
# run with no events, a killed run first, another case's history, another case's id (issue 20).
def refused(name, case, history, text, extra=()):
    global passed, failed
    path = os.path.join(TMP, "history.json")
    json.dump(history, open(path, "w"))
    out = subprocess.run([TURNSTILE, "check", "--scenario", os.path.join(CASES, case + ".scenario.json"),
                          "--history", path] + list(extra), capture_output=True, text=True)
    if out.returncode == 2 and text in out.stderr and not out.stdout:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: exit %d, %r %r (wanted exit 2 and %r)" % (name, out.returncode, out.stdout, out.stderr, text),
              file=sys.stderr)


refused("history_without_runs", SIMPLE, {"case": SIMPLE, "runs": []}, "runs: must be a non-empty array")
refused("history_without_events", SIMPLE, {"case": SIMPLE, "runs": [{"kill": None, "events": []}]},
        "runs[0].events: must be a non-empty array (nothing was recorded)")
h = copy.deepcopy(simple)
h["runs"][0]["kill"] = 3
refused("history_first_run_killed", SIMPLE, h, "runs[0].kill: must be null")
refused("history_of_another_case", SIMPLE, copy.deepcopy(two), "which is another action in the scenario")
refused("history_named_for_another_case", SIMPLE, copy.deepcopy(simple), "the history of case " + SIMPLE,
        ["--case", TWO])

# ------------------------------------------------- persist-at-end engines (issue 24) ----
# Histories recorded from conformance/testees/resume-alt-files (persists at the end of each
# action, so after a kill it redoes the whole turn and mints every message again), kept in
# testdata because the certifier keeps only failing kill runs: these failed before the fixes.
RECORDED = "conformance/checkers/resume/testdata"
UNKNOWN = "Resume.U6.failing_and_unknown_tools"


def recorded(name):
    return json.load(open(os.path.join(RECORDED, name)))


def ids_of_result(messages, call_id):
    return [m.get("messageId") for m in messages for c in m["contents"] if c.get("callId") == call_id
            and c.get("$type") == "functionResult"]


# The result of a tool missing from the catalogue is answered by the engine itself, never invoked:
# when the model is asked again for the answer that called it, the result is made again too, and
# its new id is no change (it was a Required U9/U4 false alarm).
pae = recorded("persist_at_end.failing_and_unknown_tools.kill3.history.json")
killed = pae["runs"][1]
assert killed["kill"] == 3, "the recorded history holds the kill at point 3"
views = [e["model"] for e in killed["events"] if "model" in e]
assert len(set(i for v in views for i in ids_of_result(v, "c2"))) == 2, "the recorded redo changed c2's result id"
expect("persist_at_end_unknown_tool_result_made_again", UNKNOWN, pae, [])

# ...but only then: the same history with the result's id changed again in the last read, after
# the model was asked for the answer after it (which remakes nothing of the one before), is a U4.
h = copy.deepcopy(pae)
for m in final_read(h["runs"][1]):
    if ids_of_result([m], "c2"):
        m["messageId"] = "0000000000000000000000000000000000000000000000000000000000000c2c"
expect("unknown_tool_result_id_changed_without_a_new_answer", UNKNOWN, h, ["U9"])
got, out = judge(UNKNOWN, h)
if "[U4] the read at the end: the messageId of result of c2" in out:
    passed += 1
else:
    failed += 1
    print("FAIL unknown_tool_result_names_U4: %s" % out[-800:], file=sys.stderr)
# ...and in a run without a kill, where the model was asked once, any change is a U4.
unknown = run0(record(UNKNOWN))
h = copy.deepcopy(unknown)
for m in final_read(h["runs"][0]):
    if ids_of_result([m], "c2"):
        m["messageId"] = "00000000-0000-4000-8000-0000000000c2"
expect("U4_unknown_tool_result_id_changed", UNKNOWN, h, ["U4"])

# U9 compares conversations up to the freedoms U2 and U3 grant, not byte for byte: a killed run
# whose results come in another order than the uninterrupted run's (the recorded engine lists an
# answer's results in id order, and its ids are content hashes that change from run to run).
pae2 = recorded("persist_at_end.turn_with_two_tools.history.json")
order = lambda run: [c["callId"] for m in final_read(run) for c in m["contents"] if c.get("$type") == "functionResult"]
assert any(order(r) != order(pae2["runs"][0]) for r in pae2["runs"][1:]), "the recording has a kill run in another order"
expect("persist_at_end_results_in_another_order_after_a_kill", TWO, pae2, ["U7"])


def killed_copy(history, rewrite):
    """The uninterrupted run, and beside it the same run killed at its last point (the reference's
    commit notice after its last write, so the kill loses nothing): the testee restarted, recovered
    (the action's answer becomes the recovery's), read, and read again at the end; that last read
    rewritten by rewrite(messages)."""
    r0 = history["runs"][0]
    run = copy.deepcopy(r0)
    ev = run["events"]
    last = max(e["point"] for e in ev if "point" in e)
    at = [k for k, e in enumerate(ev) if e.get("point") == last][0]
    assert ev[at].get("commit") == "after" and "answer" in ev[at + 1], "the last point is a commit notice after a write"
    run["kill"] = last
    ev[at + 1:at + 1] = [{"killed": last}, {"restart": "kill"}, {"send": {"recover": True}}]
    ev[-2:-2] = [{"send": {"read": True}}, copy.deepcopy(ev[-1])]
    rewrite(final_read(run))
    return {"runs": [r0, run]}


def swap_tools(messages):
    tools = [i for i, m in enumerate(messages) if m["role"] == "tool"]
    messages[tools[0]], messages[tools[1]] = messages[tools[1]], messages[tools[0]]


expect("killed_run_same_conversation", TWO, killed_copy(two, lambda m: None), [])
expect("killed_run_results_in_another_order", TWO, killed_copy(two, swap_tools), [])


def user_first(messages):  # the late user message before the result it arrived beside
    roles = [m["role"] for m in messages]
    k = roles.index("user", 1)
    messages[k - 1], messages[k] = messages[k], messages[k - 1]


expect("killed_run_user_message_elsewhere_in_its_block", PENDING, killed_copy(pending, user_first), [])


def results_as_text(messages):
    for m in messages:
        for c in m["contents"]:
            if c.get("$type") == "functionResult":
                c["result"] = json.dumps(c["result"]) if not isinstance(c["result"], str) else "failed: " + c["result"]


expect("killed_run_results_as_text_and_other_error_wording", UNKNOWN, killed_copy(unknown, results_as_text), [])

# What U9 still tells apart: the same result twice (U5), and a conversation U2 alone would accept
# that is not the uninterrupted run's — a result the uninterrupted run has, absent after the kill
# (allowed at the end only for a call asked after one still pending: an engine running an answer's
# calls one at a time never reaches it; one that runs them at once must not lose it to a kill).
h = killed_copy(two, lambda m: m.append(copy.deepcopy([x for x in m if x["role"] == "tool"][0])))
expect("killed_run_result_twice", TWO, h, ["U9"])
scenario = os.path.join(TMP, "waits.scenario.json")
json.dump({"executionId": "00000000-0000-4000-8000-0000000009a1", "input": "go",
           "llm": [{"text": "on it", "toolCalls": [{"callId": "c1", "name": "fetch", "arguments": {}},
                                                   {"callId": "c2", "name": "add", "arguments": {}}]}],
           "tools": {"fetch": {"result": 1, "async": True}, "add": {"result": 5}}}, open(scenario, "w"))
U = {"role": "user", "contents": [{"$type": "text", "text": "go"}]}
A = {"role": "assistant", "contents": [{"$type": "text", "text": "on it"},
                                       {"$type": "functionCall", "callId": "c1", "name": "fetch", "arguments": {}},
                                       {"$type": "functionCall", "callId": "c2", "name": "add", "arguments": {}}]}
R2 = {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c2", "result": 5}]}
ID = "00000000-0000-4000-8000-0000000009a1"
TOOL = lambda c, n: {"name": n, "callId": c, "arguments": {}}
r0 = {"kill": None, "events": [
    {"send": {"user": "go"}, "of": 0, "attempt": 1}, {"point": 1, "model": [U], "reply": 0},
    {"point": 2, "tool": TOOL("c1", "fetch"), "reply": {"pending": True}},
    {"point": 3, "tool": TOOL("c2", "add"), "reply": {"result": 5}},
    {"answer": {"status": "waiting"}}, {"send": {"read": True}},
    {"answer": {"status": "waiting", "messages": [U, A, R2]}}]}
r1 = {"kill": 2, "events": [
    {"send": {"user": "go"}, "of": 0, "attempt": 1}, {"point": 1, "model": [U], "reply": 0},
    {"point": 2, "tool": TOOL("c1", "fetch")}, {"killed": 2}, {"restart": "kill"}, {"send": {"recover": True}},
    {"point": 3, "tool": TOOL("c1", "fetch"), "reply": {"pending": True}}, {"answer": {"status": "waiting"}},
    {"send": {"read": True}}, {"answer": {"status": "waiting", "messages": [U, A]}},
    {"send": {"read": True}}, {"answer": {"status": "waiting", "messages": [U, A]}}]}
expect("synthetic_baseline_passes", scenario, {"runs": [r0]}, [])
expect("killed_run_lost_a_result_the_uninterrupted_run_has", scenario, {"runs": [r0, r1]}, ["U9"])
got, out = judge(scenario, {"runs": [r0, r1]})
if "is missing where the uninterrupted run's is the result of c2" in out:
    passed += 1
else:
    failed += 1
    print("FAIL U9_names_the_missing_result: %s" % out[-800:], file=sys.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
