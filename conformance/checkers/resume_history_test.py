#!/usr/bin/env python3
"""resume_history_test.py — the universal resume rules (SPEC.md 6.4) on edited histories.

Records the reference's histories (`turnstile certify --reference --report-json`), then edits
them as other engines would behave and judges each edit again with `turnstile check --history`:

  * what the SPEC allows must pass: no messageIds or createdAt at all, createdAt rewritten as
    .NET writes it, results of one answer in another order or in one message, a user message
    that arrived while a call was pending placed before the results, no commit notices, a
    system message, results sent back as JSON text, a tool run again after a kill inside it;
  * each rule must catch its own breach, and only that rule (U9 naming it after a kill).

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
    path = os.path.join(TMP, "history.json")
    json.dump(history, open(path, "w"))
    out = subprocess.run([TURNSTILE, "check", "--scenario", os.path.join(CASES, case + ".scenario.json"),
                          "--history", path, "--rule", rule], capture_output=True, text=True)
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

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
