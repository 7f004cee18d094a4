#!/usr/bin/env python3
"""resume_branch_test.py — the branch rules (SPEC.md 6.4, U12-U15) on edited histories.

Records the reference's histories of the suite's branching cases (`turnstile certify --reference
--report-json`), then edits them as other engines would behave and judges each edit again with
`turnstile check --history`:

  * what the SPEC allows must pass: the reference's own histories, an edit that keeps the id of the
    message it replaces (LangGraph's updateState by id), no history read (an engine that cannot show
    its old branches), old branches in another order, a late result of an abandoned call refused
    with an error, a refused edit;
  * each breach must draw its rule: an abandoned answer or queued message in a later read (U12), a
    refused edit carried out (U12), the model asked about the old conversation during an edit (U12),
    the late result of an abandoned call in the new branch (U15), an id of the old branch on a new
    message (U13), an old branch missing from or changed in the history (U13), a call made before the
    branch run again after it (U14).

usage: resume_branch_test.py TURNSTILE
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


def record(case):
    report = os.path.join(TMP, "report.json")
    subprocess.run([TURNSTILE, "certify", "--reference", "--suite", "conformance/cases", "--cases", case,
                    "--kill-points", "none", "--report-json", report], check=False, capture_output=True)
    return json.load(open(report))["cases"][0]["history"]


def judge(case, history, rule="U12"):
    path = os.path.join(TMP, "history.json")
    json.dump(history, open(path, "w"))
    out = subprocess.run([TURNSTILE, "check", "--scenario", os.path.join(CASES, case + ".scenario.json"), "--history", path,
                          "--rule", rule], capture_output=True, text=True)
    rules = set()
    for line in out.stdout.splitlines():
        if line.startswith("["):
            rules.add(line[1:].split("]")[0].split(",")[0])
    return rules, out.stdout


def expect(name, case, history, want, contains=None):
    """want: the set of rules that must fail (empty: must pass); contains: a text the findings must hold."""
    global passed, failed
    got, out = judge(case, history)
    if got == set(want) and (contains is None or contains in out):
        passed += 1
    else:
        failed += 1
        print("FAIL %s: expected %s%s, got %s\n%s" % (name, sorted(want), " with %r" % contains if contains else "",
                                                      sorted(got), out[-1500:]), file=sys.stderr)


def events(h):
    return h["runs"][0]["events"]


def answers_to(h, predicate):
    """The answer events of the sends that match predicate(action)."""
    out, current = [], None
    for e in events(h):
        if "send" in e:
            current = e["send"]
        elif "answer" in e and current is not None and predicate(current):
            out.append(e)
    return out


def final_read(h):
    return answers_to(h, lambda a: a.get("read") and not a.get("history"))[-1]["answer"]["messages"]


def conversations(h):
    for e in events(h):
        if "model" in e:
            yield e["model"]
        if "answer" in e and "messages" in e["answer"]:
            yield e["answer"]["messages"]
        if "answer" in e and "history" in e["answer"]:
            for c in e["answer"]["history"]:
                yield c


def text_of(message):
    return "".join(c.get("text", "") for c in message["contents"] if c.get("$type") == "text")


ROOT = "Resume.U12.edit_at_root"
MIDDLE = "Resume.U12.edit_in_the_middle"
BEYOND = "Resume.U12.edit_and_fork_beyond_the_end"
PENDING = "Resume.U15.edit_while_call_pending"
QUEUED = "Resume.U12.signal_queued_on_abandoned_branch"
FORK = "Resume.U14.fork_keeps_tool_results"
RESTART = "Resume.U12.fork_after_restart"
TWICE = "Resume.U13.edit_of_an_edit"
recorded = {case: record(case) for case in (ROOT, MIDDLE, BEYOND, PENDING, QUEUED, FORK, RESTART, TWICE)}
for case, h in recorded.items():
    expect("reference_" + case, case, h, [])

# ------------------------------------------------------------------------- allowed ----
h = copy.deepcopy(recorded[ROOT])  # an edit in place: the new message keeps the old one's id
old_id = next(m["messageId"] for m in next(conversations(h)) if m["role"] == "user")
for messages in conversations(h):
    for m in messages:
        if m["role"] == "user" and text_of(m) == "what is 4+4?":
            m["messageId"] = old_id
expect("edit_keeps_the_replaced_message_id", ROOT, h, [])

h = copy.deepcopy(recorded[TWICE])  # so does an edit of an edit: the id goes from message to message
first = None
for messages in conversations(h):
    for m in messages:
        if m["role"] == "user" and text_of(m).startswith("question two"):
            first = first or m["messageId"]
            m["messageId"] = first
expect("edit_of_an_edit_keeps_the_id", TWICE, h, [])

h = copy.deepcopy(recorded[MIDDLE])  # no history read: an engine that cannot show its old branches
evs = events(h)
i = max(k for k, e in enumerate(evs) if "send" in e and e["send"].get("history"))
del evs[i:i + 2]
expect("no_history_read", MIDDLE, h, [])

h = copy.deepcopy(recorded[TWICE])
answers_to(h, lambda a: a.get("history"))[-1]["answer"]["history"].reverse()
expect("history_in_another_order", TWICE, h, [])

h = copy.deepcopy(recorded[PENDING])  # the late result of an abandoned call refused with an error
late = answers_to(h, lambda a: a.get("complete") == "c1")
assert late, "the case completes c1 after the edit"
late[0]["answer"] = {"id": late[0]["answer"]["id"], "error": "no such pending call"}
expect("late_result_of_an_abandoned_call_refused", PENDING, h, [])

refusals = answers_to(recorded[BEYOND], lambda a: "edit" in a or "fork" in a)
if len(refusals) == 2 and all("error" in r["answer"] for r in refusals):
    passed += 1
else:
    failed += 1
    print("FAIL reference_refuses_edit_and_fork_beyond_the_end: %s" % json.dumps(refusals)[:600], file=sys.stderr)

# ------------------------------------------------------------------------ breaches ----
h = copy.deepcopy(recorded[MIDDLE])  # the abandoned third turn is still there
old = [m for m in next(c for c in conversations(h) if any(text_of(m) == "answer three" for m in c))
       if text_of(m) in ("turn three", "answer three")]
final_read(h).extend(copy.deepcopy(old))
expect("U12_abandoned_turn_in_the_final_read", MIDDLE, h, ["U12"], "belongs to the branch action")

h = copy.deepcopy(recorded[QUEUED])  # the message queued on the old branch shows up in the new one
f = final_read(h)
f.insert(2, {"role": "user", "contents": [{"$type": "text", "text": "queued while waiting"}]})
expect("U12_queued_message_of_the_abandoned_branch", QUEUED, h, ["U12"], "queued while waiting")

h = copy.deepcopy(recorded[BEYOND])  # the edit past the end carried out as a new message
answers_to(h, lambda a: "edit" in a)[0]["answer"] = {"id": BEYOND, "status": "idle"}
expect("U12_refused_edit_carried_out", BEYOND, h, ["U12"], "must refuse it")

h = copy.deepcopy(recorded[ROOT])  # during the edit, the model asked about the old conversation
views = [e for e in events(h) if "model" in e]
views[2]["model"] = copy.deepcopy(views[1]["model"])
got, out = judge(ROOT, h)
if "U12" in got and "without its message" in out:
    passed += 1
else:
    failed += 1
    print("FAIL U12_old_conversation_during_the_edit: %s %s" % (sorted(got), out[-1200:]), file=sys.stderr)

h = copy.deepcopy(recorded[PENDING])  # the late result of the abandoned call completed into the new branch
final_read(h).append({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": {"body": "ok"}}]})
expect("U15_abandoned_call_completed_into_the_new_branch", PENDING, h, ["U15"], "completed into the new branch")

h = copy.deepcopy(recorded[MIDDLE])  # a new answer under the id of an abandoned one (a counter that restarted)
abandoned_id = next(m["messageId"] for c in conversations(h) for m in c if text_of(m) == "answer two")
for messages in conversations(h):
    for m in messages:
        if text_of(m) == "answer two, edited":
            m["messageId"] = abandoned_id
expect("U13_new_message_under_an_abandoned_id", MIDDLE, h, ["U13"], abandoned_id)

h = copy.deepcopy(recorded[MIDDLE])  # ... of one seen only in the history (the old third turn's answer)
abandoned_id = next(m["messageId"] for c in conversations(h) for m in c if text_of(m) == "answer three")
for messages in conversations(h):
    for m in messages:
        if text_of(m) == "answer four":
            m["messageId"] = abandoned_id
expect("U13_new_message_under_an_id_the_history_shows", MIDDLE, h, ["U13"], abandoned_id)

h = copy.deepcopy(recorded[MIDDLE])  # the history lost the old branch
hist = answers_to(h, lambda a: a.get("history"))[-1]["answer"]
hist["history"] = [hist["messages"]]
expect("U13_history_lost_the_old_branch", MIDDLE, h, ["U13"], "is not in the history")

h = copy.deepcopy(recorded[MIDDLE])  # the history shows the old branch with another id
hist = answers_to(h, lambda a: a.get("history"))[-1]["answer"]
for c in hist["history"]:
    for m in c:
        if text_of(m) == "answer two":
            m["messageId"] = "00000000-0000-4000-8000-00000000beef"
expect("U13_old_branch_changed_when_read_again", MIDDLE, h, ["U13"], "model answer 1")

for case, call in ((ROOT, "c1"), (FORK, "c2")):  # a call made before the branch runs again after it
    h = copy.deepcopy(recorded[case])
    evs = events(h)
    original = next(e for e in evs if "tool" in e and e["tool"]["callId"] == call)
    last_view = max(k for k, e in enumerate(evs) if "model" in e)
    evs.insert(last_view, copy.deepcopy(original))
    expect("U14_%s_reruns_%s" % (case, call), case, h, ["U14"], "ran again after it")

# ------------------------------------------------------------------ an engine mutant ----
# A gate that cannot fail is not a gate: the reference's adapter built as resume-branch-keeps-suffix
# (an edit or fork appended to the old conversation, no cut) must fail every case that branches
# under U12, and no rule the bug cannot explain.
report = os.path.join(TMP, "mutant.json")
run = subprocess.run([TURNSTILE, "certify", "--mutant", "resume-branch-keeps-suffix", "--suite", "conformance/cases",
                      "--cases", "Resume.U1[2-5].*", "--kill-points", "none", "--report-json", report],
                     capture_output=True, text=True)
cases = json.load(open(report))["cases"] if os.path.exists(report) else []
branching = {c["id"]: c for c in cases if c["id"] != BEYOND}
rules = {f["rule"] for c in cases for f in c.get("findings", [])}
allowed = {"U12", "U3", "U5", "U8", "U9", "U14", "U15"}
problems = []
if run.returncode != 1:
    problems.append("exit %d, not 1" % run.returncode)
if len(branching) != 7:
    problems.append("%d branching cases judged, not 7" % len(branching))
problems += ["%s: %s without a U12 finding" % (i, c["verdict"]) for i, c in branching.items()
             if c["verdict"] != "fail" or not any(f["rule"] == "U12" for f in c.get("findings", []))]
if not rules <= allowed:
    problems.append("unrelated rules failed: %s" % sorted(rules - allowed))
if problems:
    failed += 1
    print("FAIL mutant_branch_keeps_suffix_caught: %s\n%s" % ("; ".join(problems), run.stdout[-1500:]), file=sys.stderr)
else:
    passed += 1

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
