#!/usr/bin/env python3
"""Authoring tool for the merge golden cases in conformance/cases/merge/ (not run by tests).

Each case below is written by hand: its input updates, the SPEC rules it exercises, and the
expected outcome stated independently of the reference — the order of the messages (by
messageId, or "text:<first text>" for messages without one) and any response fields that must
hold. The tool writes `<id>.input.jsonl`, asks the reference (`bazel-bin/turnstile merge`) for
`<id>.expected.json`, and refuses to write anything if the reference's answer contradicts the
hand-written expectation. The manifest keeps the hand-written expectation too, so the golden
test re-checks every expected file against it: a golden is never just what the reference said.

usage: conformance/tools/author_merge_cases.py [path/to/turnstile]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases", "merge")


def ts(seconds, offset="+00:00", frac=""):
    """createdAt for 2026-01-01T00:00:SS (seconds may exceed 59: minutes carry)."""
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return "2026-01-01T%02d:%02d:%02d%s%s" % (h, m, s, frac, offset)


def text(t, **extra):
    d = {"$type": "text", "text": t}
    d.update(extra)
    return d


def upd(rid=None, mid=None, t=None, role=None, contents=None, **extra):
    d = {}
    if rid is not None:
        d["responseId"] = rid
    if mid is not None:
        d["messageId"] = mid
    if t is not None:
        d["createdAt"] = t
    if role is not None:
        d["role"] = role
    d["contents"] = contents if contents is not None else []
    d.update(extra)
    return d


def call(cid, name="lookup", args=None):
    return {"$type": "functionCall", "callId": cid, "name": name, "arguments": args or {}, "informationalOnly": False}


def result(cid, value="ok"):
    return {"$type": "functionResult", "callId": cid, "result": value}


def usage(**counts):
    return {"$type": "usage", "details": counts}


CASES_LIST = []


def case(cid, rules, description, updates, order, fields=None, raw_input=None):
    CASES_LIST.append(dict(id=cid, rules=rules, description=description, updates=updates, order=order,
                           fields=fields or {}, raw_input=raw_input))


R = "resp_1"

# ---------------------------------------------------------------- I1
case("Merge.I1.single_id_preserved", ["I1"], "All updates carry resp_1: the response keeps it.",
     [upd(R, "m1", role="assistant", contents=[text("Hi")]), upd(R, "m1", contents=[text(" there")])],
     ["m1"], {"responseId": R})
case("Merge.I1.first_id_is_primary", ["I1", "I3"],
     "Two ResponseIds in one turn (the executor should have normalised them): the response carries one, the first; each id's messages stay together.",
     [upd("resp_a", "a1", contents=[text("A1")]), upd("resp_b", "b1", contents=[text("B1")]),
      upd("resp_a", "a2", contents=[text("A2")])],
     ["a1", "a2", "b1"], {"responseId": "resp_a"})
case("Merge.I1.no_id_anywhere_derived", ["I1", "R5"],
     "No update names a ResponseId: the response still carries exactly one, derived from the updates (never random, never the clock).",
     [upd(None, "m1", contents=[text("one")]), upd(None, "m2", contents=[text("two")])],
     ["m1", "m2"], {"responseId": "@derived"})
case("Merge.I1.dangling_before_first_id", ["I1", "M1"],
     "The first update has no ResponseId; the first id seen later is the primary and the dangling update belongs to it, in arrival order.",
     [upd(None, "m0", role="assistant", contents=[text("early")]), upd(R, "m1", contents=[text("later")])],
     ["m0", "m1"], {"responseId": R})
case("Merge.I1.empty_string_id_is_dangling", ["I1", "M1", "W3"],
     "responseId \"\" is no id: the update is dangling and joins the primary group.",
     [upd(R, "m1", contents=[text("a")]), upd("", "m2", contents=[text("b")])],
     ["m1", "m2"], {"responseId": R})

# ---------------------------------------------------------------- I2
case("Merge.I2.no_timestamps_arrival_order", ["I2"], "Three untimestamped messages A, B, C come out A, B, C.",
     [upd(R, "A", contents=[text("A")]), upd(R, "B", contents=[text("B")]), upd(R, "C", contents=[text("C")])],
     ["A", "B", "C"])
case("Merge.I2.mixed_untimestamped_keep_order", ["I2", "O1", "O3"],
     "m1(-), m2(20), m3(-), m4(10), m5(-): untimestamped m1, m3, m5 keep arrival order; m3 stays after m2 and m5 after m4 (I2.b); m4 before m2 (O1).",
     [upd(R, "m1", contents=[text("1")]), upd(R, "m2", ts(20), contents=[text("2")]),
      upd(R, "m3", contents=[text("3")]), upd(R, "m4", ts(10), contents=[text("4")]),
      upd(R, "m5", contents=[text("5")])],
     ["m1", "m4", "m2", "m3", "m5"])
case("Merge.I2.call_result_assistant", ["I2", "C1"],
     "Seed high-priority test 2: FunctionCall (no createdAt), FunctionResult (T1), assistant text (no createdAt) stay call, result, answer.",
     [upd(R, "call", role="assistant", contents=[call("c1")]),
      upd(R, "res", ts(5), role="tool", contents=[result("c1")]),
      upd(R, "ans", role="assistant", contents=[text("done")])],
     ["call", "res", "ans"])
case("Merge.I2.timestamps_go_backwards", ["I2", "O1", "O3"],
     "A(10), B(-), C(5), D(-): C before A by time; B after A (arrived after it); D after B (untimestamped order) and after C.",
     [upd(R, "A", ts(10), contents=[text("A")]), upd(R, "B", contents=[text("B")]),
      upd(R, "C", ts(5), contents=[text("C")]), upd(R, "D", contents=[text("D")])],
     ["C", "A", "B", "D"])
case("Merge.I2.deterministic_long_mix", ["I2", "O1", "O2", "O3", "D1"],
     "Twelve messages with mixed, equal and missing timestamps have one answer.",
     [upd(R, "m01", ts(50), contents=[text("1")]), upd(R, "m02", contents=[text("2")]),
      upd(R, "m03", ts(30), contents=[text("3")]), upd(R, "m04", ts(30), contents=[text("4")]),
      upd(R, "m05", contents=[text("5")]), upd(R, "m06", ts(70), contents=[text("6")]),
      upd(R, "m07", ts(10), contents=[text("7")]), upd(R, "m08", contents=[text("8")]),
      upd(R, "m09", contents=[text("9")]), upd(R, "m10", ts(60), contents=[text("10")]),
      upd(R, "m11", ts(20), contents=[text("11")]), upd(R, "m12", contents=[text("12")])],
     # T order: m07(10) m11(20) m03(30) m04(30) m01(50) m10(60) m06(70)
     # anchors: m02<-m01 (rank 4); m05<-m04 (max 4,3 = 4); m08<-m07 (4); m09 (4); m12<-m11 (4)
     ["m07", "m11", "m03", "m04", "m01", "m02", "m05", "m08", "m09", "m12", "m10", "m06"])

# ---------------------------------------------------------------- O1 / O2 / O3
case("Merge.O1.out_of_order_timestamps", ["O1"], "All timestamped, arriving 30, 10, 20: chronological.",
     [upd(R, "m30", ts(30), contents=[text("30")]), upd(R, "m10", ts(10), contents=[text("10")]),
      upd(R, "m20", ts(20), contents=[text("20")])],
     ["m10", "m20", "m30"])
case("Merge.O1.offsets_compare_as_instants", ["O1", "W4", "K1"],
     "01:00+02:00 (23:00Z) < 18:30-05:00 (23:30Z) < 00:00+00:00: instants, not strings; each text kept as written.",
     [upd(R, "z", "2026-01-01T00:00:00+00:00", contents=[text("z")]),
      upd(R, "plus2", "2026-01-01T01:00:00+02:00", contents=[text("p")]),
      upd(R, "minus5", "2025-12-31T18:30:00-05:00", contents=[text("m")])],
     ["plus2", "minus5", "z"])
case("Merge.O1.fraction_precision", ["O1", "O2", "W4"],
     ".4999999 is before .5; .5 and .50 are the same instant and keep arrival order.",
     [upd(R, "half", ts(0, frac=".5"), contents=[text("a")]),
      upd(R, "almost", ts(0, frac=".4999999"), contents=[text("b")]),
      upd(R, "half2", ts(0, frac=".50"), contents=[text("c")])],
     ["almost", "half", "half2"])
case("Merge.O2.equal_instants_arrival", ["O2"],
     "Three messages at the same instant (one written with another offset) keep arrival order.",
     [upd(R, "x", ts(10), contents=[text("x")]), upd(R, "y", "2026-01-01T01:00:10+01:00", contents=[text("y")]),
      upd(R, "z", ts(10), contents=[text("z")])],
     ["x", "y", "z"])
case("Merge.O3.seed_A10_Bnull_C5", ["O1", "I2", "O3"],
     "Seed edge case 1: A(10), B(null), C(5). The #5825 comparer is not transitive; the one answer is C, A, B.",
     [upd(R, "A", ts(10), contents=[text("A")]), upd(R, "B", contents=[text("B")]),
      upd(R, "C", ts(5), contents=[text("C")])],
     ["C", "A", "B"])
case("Merge.O3.leading_untimestamped_first", ["O3", "I2"],
     "An untimestamped message that arrived first (no anchor) stays first.",
     [upd(R, "U", contents=[text("U")]), upd(R, "A", ts(10), contents=[text("A")]),
      upd(R, "C", ts(5), contents=[text("C")])],
     ["U", "C", "A"])
case("Merge.O3.untimestamped_follows_its_anchor", ["O3", "I2"],
     "T1(5), T2(10), T3(3), U: U arrived right after T3 and is placed right after it.",
     [upd(R, "T1", ts(5), contents=[text("1")]), upd(R, "T2", ts(10), contents=[text("2")]),
      upd(R, "T3", ts(3), contents=[text("3")]), upd(R, "U", contents=[text("u")])],
     ["T3", "U", "T1", "T2"])

# ---------------------------------------------------------------- I3 / G1
case("Merge.I3.interleaved_two_agents", ["I3", "G1"],
     "Seed medium test 3: R1-msg1, R2-msg1, R1-msg2, R2-msg2 are grouped by ResponseId.",
     [upd("R1", "r1m1", contents=[text("a")]), upd("R2", "r2m1", contents=[text("b")]),
      upd("R1", "r1m2", contents=[text("c")]), upd("R2", "r2m2", contents=[text("d")])],
     ["r1m1", "r1m2", "r2m1", "r2m2"], {"responseId": "R1"})
case("Merge.I3.timestamps_alternate_agents", ["I3", "O1"],
     "Seed invariant 3: A1 at T1, A2 at T2, A1 at T3, A2 at T4 — grouped by agent, not sorted purely by time.",
     [upd("RA", "a1", ts(1), agentId="agent_a", contents=[text("a1")]),
      upd("RB", "b1", ts(2), agentId="agent_b", contents=[text("b1")]),
      upd("RA", "a2", ts(3), agentId="agent_a", contents=[text("a2")]),
      upd("RB", "b2", ts(4), agentId="agent_b", contents=[text("b2")])],
     ["a1", "a2", "b1", "b2"], {"agentId": "agent_a"})
case("Merge.I3.handoff", ["I3", "R3", "M5"],
     "Agent 1 hands off to agent 2; a late update of agent 1 still lands in agent 1's group, before agent 2's messages.",
     [upd("R_triage", "t1", role="assistant", agentId="triage", contents=[text("Routing you")]),
      upd("R_triage", "t2", role="assistant", agentId="triage", contents=[call("h1", "handoff", {"to": "billing"})]),
      upd("R_billing", "b1", role="assistant", agentId="billing", contents=[text("Billing here")]),
      upd("R_triage", "t3", role="tool", agentId="triage", contents=[result("h1", "transferred")]),
      upd("R_billing", "b1", contents=[text(", how can I help?")])],
     ["t1", "t2", "t3", "b1"], {"agentId": "triage"})
case("Merge.I3.three_agents_untimestamped", ["I3", "I2", "G1"],
     "Three agents interleaved without timestamps: three contiguous groups in first-arrival order, arrival order inside each.",
     [upd("R3", "c1", contents=[text("c1")]), upd("R1", "a1", contents=[text("a1")]),
      upd("R2", "b1", contents=[text("b1")]), upd("R1", "a2", contents=[text("a2")]),
      upd("R3", "c2", contents=[text("c2")]), upd("R2", "b2", contents=[text("b2")])],
     ["c1", "c2", "a1", "a2", "b1", "b2"], {"responseId": "R3"})

case("Merge.I3.identical_messages_in_two_groups", ["I3", "M2", "O1"],
     "Found by fuzzing: messages with the same id and identical fields in two response groups; a checker must "
     "tell them apart by their groups, not flag the valid order.",
     [{'responseId': 'r0', 'role': 'assistant', 'agentId': '', 'contents': []}, {'responseId': 'r3', 'messageId': 'm0', 'createdAt': '9999-12-31T23:59:59.9999999+00:00', 'agentId': 'agent3', 'contents': []}, {'responseId': 'r3', 'messageId': 'm1', 'createdAt': '2026-05-13T10:00:00.0000038+00:00', 'role': 'assistant', 'authorName': 'author0', 'agentId': 'agent0', 'finishReason': 'stop', 'continuationToken': 'AQID', 'additionalProperties': {'p0': 0}, 'traceId': 't0', 'contents': []}, {'responseId': 'r0', 'messageId': 'm1', 'createdAt': '2026-05-13T10:00:00.0000038+00:00', 'role': 'assistant', 'authorName': 'author0', 'agentId': 'agent0', 'finishReason': 'stop', 'continuationToken': 'AQID', 'additionalProperties': {'p0': 0}, 'traceId': 't0', 'contents': []}],
     ["m1", "m1", "m0"])
case("Merge.I3.same_id_split_by_role_across_groups", ["I3", "M4", "I2", "O3"],
     "Found by fuzzing: m1 split by a role change, m0 in two groups (one spelled Assistant), mixed timestamps.",
     [{'responseId': 'r2', 'messageId': 'm0', 'role': 'Assistant', 'contents': []}, {'responseId': 'r0', 'messageId': 'm1', 'createdAt': '9999-12-31T23:59:59.9999999+00:00', 'role': 'system', 'finishReason': 'stop', 'continuationToken': 'AQID', 'additionalProperties': {'p0': 0}, 'traceId': 't0', 'contents': []}, {'responseId': 'r0', 'messageId': 'm1', 'createdAt': '2026-05-13T09:59:58+00:00', 'role': 'assistant', 'authorName': 'author0', 'agentId': 'agent0', 'contents': [{'callId': 'c0', '$type': 'functionResult', 'result': {'ok': True, 'v': [1, 2, None]}}, {'callId': 'c0', '$type': 'functionResult', 'result': {'ok': True, 'v': [1, 2, None]}}]}, {'responseId': 'r0', 'messageId': 'm1', 'contents': [{'callId': 'c0', '$type': 'functionResult', 'result': {'ok': True, 'v': [1, 2, None]}}, {'callId': 'c0', '$type': 'functionResult', 'result': {'ok': True, 'v': [1, 2, None]}}]}, {'responseId': 'r0', 'messageId': 'm1', 'createdAt': '2026-05-13T09:59:56+00:00', 'contents': [{'$type': 'error', 'message': '0é\x01\n\u2028'}]}, {'responseId': 'r1', 'messageId': 'm2', 'contents': [{'plain': True}, {'$type': 'text', 'text': '😀שלוםé'}]}, {'responseId': 'r0', 'messageId': 'm0', 'contents': []}, {'responseId': 'r0', 'messageId': 'm0', 'contents': []}],
     ["m0", "m1", "m0", "m1", "m2"])

def alternation(rid, n, said="ok"):
    """n id-less, untimestamped messages of group rid: user, assistant, user, ... all saying `said`."""
    return [upd(rid, None, role=("user" if k % 2 == 0 else "assistant"), contents=[text(said)]) for k in range(n)]


case("Merge.G1.lookalike_groups_3_and_7", ["G1", "I3", "M3", "M4"],
     "Issue 12: a 3-message and a 7-message group of the same user/assistant alternation, no ids, no "
     "createdAt. Any group order is valid (G1); an answer with the 7-message group first must pass, although "
     "its first three messages look exactly like the 3-message group.",
     alternation("R_short", 3) + alternation("R_long", 7),
     ["text:ok"] * 10, {"responseId": "R_short"})
case("Merge.G1.lookalike_groups_interleaved", ["G1", "I3", "M3", "M4"],
     "Issue 12, interleaved: the same two look-alike groups with their updates alternating in arrival.",
     [u for pair in zip(alternation("R_short", 3) + [None] * 4, alternation("R_long", 7)) for u in pair if u],
     ["text:ok"] * 10, {"responseId": "R_short"})
case("Merge.I1.label_does_not_move_dangling_updates", ["I1", "M1", "I3"],
     "Issue 12: dangling updates join the first id's group whichever of the turn's ids labels the response "
     "(MEAI keeps the last id): an answer labelled R_b still forms and orders the messages as here.",
     [upd("R_a", "a1", contents=[text("a1")]), upd(None, "d1", contents=[text("d1")]),
      upd("R_b", "b1", contents=[text("b1")]), upd(None, "d2", contents=[text("d2")])],
     ["a1", "d1", "d2", "b1"], {"responseId": "R_a"})
case("Merge.M6.empty_additional_properties_no_message", ["M6", "X2", "R1"],
     "Issue 12: an update with additionalProperties {} and nothing else opens no message: {} is no additional "
     "properties (as C2 already reads {}).",
     [upd(R, None, role="assistant", additionalProperties={}, finishReason="stop"),
      upd(R, "m1", role="user", contents=[text("x")], additionalProperties={})],
     ["m1"], {"finishReason": "stop", "messages[0].additionalProperties": "@absent"})

# ---------------------------------------------------------------- M1
case("Merge.M1.dangling_first_stays_first", ["M1", "I2"],
     "Seed medium test 5 (decided against the old behaviour): a dangling update that arrives first is not moved after keyed messages.",
     [upd(None, "d1", role="assistant", contents=[text("dangling")]), upd(R, "m1", contents=[text("keyed")])],
     ["d1", "m1"])
case("Merge.M1.dangling_middle_keeps_arrival", ["M1", "I2"],
     "Seed edge case 3: a dangling message between two keyed ones stays between them.",
     [upd(R, "m1", contents=[text("1")]), upd(None, "d1", contents=[text("d")]), upd(R, "m2", contents=[text("2")])],
     ["m1", "d1", "m2"])
case("Merge.M1.dangling_joins_primary_group", ["M1", "I3"],
     "With two agents, a dangling update belongs to the primary (first) response group.",
     [upd("R1", "a1", contents=[text("a1")]), upd("R2", "b1", contents=[text("b1")]),
      upd(None, "d1", contents=[text("d")]), upd("R2", "b2", contents=[text("b2")])],
     ["a1", "d1", "b1", "b2"], {"responseId": "R1"})

# ---------------------------------------------------------------- M2
case("Merge.M2.same_id_rejoins_after_interleave", ["M2", "C2"],
     "Deltas of m1, then m2, then m1 again: m1 is one message with its text joined.",
     [upd(R, "m1", role="assistant", contents=[text("Hel")]), upd(R, "m2", role="assistant", contents=[text("Other")]),
      upd(R, "m1", contents=[text("lo")])],
     ["m1", "m2"], {"messages[0].contents[0].text": "Hello"})
case("Merge.M2.same_message_id_in_two_groups", ["M2", "I3"],
     "The same messageId in two response groups names two messages.",
     [upd("R1", "x", contents=[text("r1")]), upd("R2", "x", contents=[text("r2")]), upd("R1", "x", contents=[text("+")])],
     ["x", "x"], {"messages[0].contents[0].text": "r1+", "messages[1].contents[0].text": "r2"})

# ---------------------------------------------------------------- M3
case("Merge.M3.unkeyed_continues_previous", ["M3", "C2"],
     "An update without messageId continues the previous message of its group.",
     [upd(R, "m1", role="assistant", contents=[text("Hel")]), upd(R, None, contents=[text("lo")])],
     ["m1"], {"messages[0].contents[0].text": "Hello"})
case("Merge.M3.unkeyed_first_then_keyed", ["M3", "I2"],
     "Seed low test 6 (decided against the old behaviour): an unkeyed message that arrives first stays before the keyed one.",
     [upd(R, None, role="assistant", contents=[text("intro")]), upd(R, "m1", role="assistant", contents=[text("keyed")])],
     ["text:intro", "m1"])
case("Merge.M3.unkeyed_between_keyed", ["M3", "M4", "I2"],
     "Keyed assistant m1, an unkeyed tool message, keyed assistant m2: arrival order, keyed messages do not jump ahead.",
     [upd(R, "m1", role="assistant", contents=[call("c1")]), upd(R, None, role="tool", contents=[result("c1")]),
      upd(R, "m2", role="assistant", contents=[text("answer")])],
     ["m1", "text:", "m2"])

# ---------------------------------------------------------------- M4 / M5 / M6
case("Merge.M4.role_change_splits", ["M4"],
     "Unkeyed updates whose role changes from assistant to user form two messages.",
     [upd(R, None, role="assistant", contents=[text("a")]), upd(R, None, role="user", contents=[text("u")])],
     ["text:a", "text:u"])
case("Merge.M4.same_id_role_change_splits", ["M4", "M2"],
     "The same messageId with a different role opens a second message that keeps the id; later updates join the newer one.",
     [upd(R, "m1", role="assistant", contents=[text("a")]), upd(R, "m1", role="tool", contents=[result("c9")]),
      upd(R, "m1", contents=[result("c10")])],
     ["m1", "m1"], {"messages[1].role": "tool"})
case("Merge.M4.author_change_splits", ["M4", "M5"],
     "Unkeyed updates from alice then bob form two messages.",
     [upd(R, None, authorName="alice", contents=[text("hi from alice")]),
      upd(R, None, authorName="bob", contents=[text("hi from bob")])],
     ["text:hi from alice", "text:hi from bob"])
case("Merge.M4.role_case_insensitive", ["M4", "M5"],
     "Roles compare case-insensitively: Assistant and assistant are one message, which keeps the first spelling.",
     [upd(R, "m1", role="Assistant", contents=[text("a")]), upd(R, "m1", role="assistant", contents=[text("b")])],
     ["m1"], {"messages[0].role": "Assistant", "messages[0].contents[0].text": "ab"})
case("Merge.M5.default_role_assistant", ["M5"], "A message none of whose updates names a role is an assistant message.",
     [upd(R, "m1", contents=[text("x")])], ["m1"], {"messages[0].role": "assistant"})
case("Merge.M6.metadata_only_update_no_message", ["M6", "R1"],
     "A first update that carries only a finish reason does not create a phantom message.",
     [upd(None, None, finishReason="stop"), upd(R, "m1", contents=[text("x")])],
     ["m1"], {"finishReason": "stop"})
case("Merge.M6.announced_empty_message_kept", ["M6"],
     "A message announced by id with no contents is kept, with contents [].",
     [upd(R, "m1", role="assistant", contents=[]), upd(R, "m2", contents=[text("x")])],
     ["m1", "m2"])

case("Merge.M6.usage_only_update_no_message", ["M6", "M4", "R2"],
     "Issue 24: a usage content is no content of its message (C1, R2: it is summed into the response), so a "
     "message without an id whose updates carried only usage and a role is left out, as a metadata-only update's "
     "is: here the assistant's two usage-only updates, each opened by a role change, form no message.",
     [upd(R, None, role="user", contents=[text("What is 2+2?")]),
      upd(R, None, role="assistant", contents=[usage(inputTokenCount=12)]),
      upd(R, None, role="user", contents=[text("Never mind.")]),
      upd(R, None, role="assistant", contents=[usage(outputTokenCount=3)], finishReason="stop")],
     ["text:What is 2+2?", "text:Never mind."],
     {"usage.inputTokenCount": 12, "usage.outputTokenCount": 3, "finishReason": "stop"})
case("Merge.M6.usage_then_text_is_one_message", ["M6", "M3", "R2"],
     "Issue 24: a message whose first update carried only usage is written once a later update gives it content "
     "(an id-less update continues it, M3): M6 looks at everything the message received.",
     [upd(R, None, role="assistant", contents=[usage(inputTokenCount=5)]), upd(R, None, contents=[text("Hello")])],
     ["text:Hello"], {"usage.inputTokenCount": 5, "messages[0].role": "assistant"})

# ---------------------------------------------------------------- C1 / C2
case("Merge.C1.calls_and_results_keep_order", ["C1"],
     "Two calls then their results in reverse order: every content once, in arrival order.",
     [upd(R, "m1", role="assistant", contents=[call("c1", "a"), call("c2", "b")]),
      upd(R, "m2", role="tool", contents=[result("c2", 2)]), upd(R, "m2", contents=[result("c1", {"v": 1})])],
     ["m1", "m2"], {"messages[1].contents[0].callId": "c2", "messages[1].contents[1].callId": "c1"})
case("Merge.C1.unknown_content_types_kept", ["C1", "W5", "W7"],
     "Content types turnstile does not model (and one without $type) pass through verbatim, $type written first.",
     [upd(R, "m1", contents=[{"fileId": "f1", "$type": "hostedFile", "mediaType": "text/plain"},
                             {"uri": "data:text/plain;base64,aGk=", "$type": "data"},
                             {"$type": "futureThing", "nested": {"$type": "x", "deep": [1, {"a": None}]}},
                             {"plain": True}])],
     ["m1"], {"messages[0].contents[2].$type": "futureThing"})
case("Merge.C2.text_deltas_coalesced", ["C2"], "Text deltas become one text.",
     [upd(R, "m1", contents=[text("Hel")]), upd(R, "m1", contents=[text("lo")]),
      upd(R, "m1", contents=[text(" world")])],
     ["m1"], {"messages[0].contents[0].text": "Hello world"})
case("Merge.C2.annotated_text_not_merged", ["C2"], "Text with annotations is not merged with its neighbour.",
     [upd(R, "m1", contents=[text("cited", annotations=[{"$type": "citation", "url": "https://example.com"}])]),
      upd(R, "m1", contents=[text(" more")])],
     ["m1"], {"messages[0].contents[1].text": " more"})
case("Merge.C2.extra_members_not_merged", ["C2", "X1"],
     "A text delta that carries additionalProperties is not merged (merging would lose them).",
     [upd(R, "m1", contents=[text("a")]), upd(R, "m1", contents=[text("b", additionalProperties={"k": 1})]),
      upd(R, "m1", contents=[text("c", annotations=[], additionalProperties=None)])],
     ["m1"], {"messages[0].contents[0].text": "a", "messages[0].contents[1].text": "bc"})
case("Merge.C2.reasoning_protected_data", ["C2"],
     "Reasoning deltas merge until one carries protectedData, which the merged item takes; the next starts anew.",
     [upd(R, "m1", contents=[{"$type": "reasoning", "text": "think "}]),
      upd(R, "m1", contents=[{"$type": "reasoning", "text": "hard", "protectedData": "P1"}]),
      upd(R, "m1", contents=[{"$type": "reasoning", "text": "again"}])],
     ["m1"], {"messages[0].contents[0].text": "think hard", "messages[0].contents[0].protectedData": "P1",
              "messages[0].contents[1].text": "again"})
case("Merge.C2.text_reasoning_interleaved", ["C2"], "Text and reasoning runs are separate: interleaving breaks both.",
     [upd(R, "m1", contents=[text("a"), {"$type": "reasoning", "text": "r"}, text("b")])],
     ["m1"], {"messages[0].contents[2].text": "b"})

# ---------------------------------------------------------------- R1..R6, K1
case("Merge.R1.latest_finish_reason_wins", ["R1"], "tool_calls then stop: stop.",
     [upd(R, "m1", finishReason="tool_calls", contents=[call("c1")]), upd(R, "m2", finishReason="stop", contents=[text("x")])],
     ["m1", "m2"], {"finishReason": "stop"})
case("Merge.R1.dangling_finish_reason", ["R1", "M1"], "Seed edge case 6: the finish reason of a dangling update is kept.",
     [upd(R, "m1", contents=[text("x")]), upd(None, None, finishReason="length")],
     ["m1"], {"finishReason": "length"})
case("Merge.R2.dangling_usage_and_finish", ["R2", "R1"],
     "Seed medium test 4: a dangling update with FinishReason=stop and Usage=(10,20,30) propagates both.",
     [upd(R, "m1", contents=[text("answer")]),
      upd(None, None, finishReason="stop", contents=[usage(inputTokenCount=10, outputTokenCount=20, totalTokenCount=30)])],
     ["m1"], {"finishReason": "stop", "usage.inputTokenCount": 10, "usage.outputTokenCount": 20,
              "usage.totalTokenCount": 30})
case("Merge.R2.usage_summed", ["R2", "W3"],
     "Usage from several updates (counters missing in some, additionalCounts, a counter written as a string) is summed per counter.",
     [upd(R, "m1", contents=[usage(inputTokenCount=5, additionalCounts={"cache_write": 2}), text("a")]),
      upd(R, "m1", contents=[usage(inputTokenCount=7, outputTokenCount="3", reasoningTokenCount=1,
                                   additionalCounts={"cache_write": 1, "other": 4})]),
      upd("R2", "n1", contents=[usage(outputTokenCount=10)])],
     ["m1", "n1"], {"usage.inputTokenCount": 12, "usage.outputTokenCount": 13, "usage.reasoningTokenCount": 1,
                    "usage.additionalCounts.cache_write": 3, "usage.additionalCounts.other": 4})
case("Merge.R3.dangling_agent_id", ["R3", "M1"], "Seed edge case 6: an agentId only a dangling update carries is the response's.",
     [upd(R, "m1", contents=[text("x")]), upd(None, None, agentId="agent_7")],
     ["m1"], {"agentId": "agent_7"})
case("Merge.R3.primary_agent_and_message_agents", ["R3", "M5"],
     "Two agents: the response names the primary group's agent; each message keeps its own agentId.",
     [upd("R1", "a1", agentId="alpha", contents=[text("a")]), upd("R2", "b1", agentId="beta", contents=[text("b")])],
     ["a1", "b1"], {"agentId": "alpha", "messages[0].agentId": "alpha", "messages[1].agentId": "beta"})
case("Merge.R4.response_created_at_earliest", ["R4", "K1"],
     "Seed edge case 7: the response's createdAt comes from the updates (the earliest), never from the clock.",
     [upd(R, "m20", ts(20), contents=[text("a")]), upd(R, "m10", ts(10, "+00:00", ".25"), contents=[text("b")]),
      upd(R, "m30", ts(30), contents=[text("c")])],
     ["m10", "m20", "m30"], {"createdAt": ts(10, "+00:00", ".25")})
case("Merge.R4.no_timestamps_no_created_at", ["R4", "K1", "R5"],
     "No update has a createdAt: neither the response nor any message gets one.",
     [upd(R, "m1", contents=[text("a")]), upd(R, "m2", contents=[text("b")])],
     ["m1", "m2"], {"createdAt": "@absent", "messages[0].createdAt": "@absent"})
case("Merge.K1.each_message_keeps_created_at", ["K1", "O1"],
     "Seed edge case 5: each message keeps its own createdAt, with its offset as written.",
     [upd(R, "m1", "2026-01-01T05:30:00+05:30", contents=[text("a")]), upd(R, "m2", ts(20), contents=[text("b")])],
     ["m1", "m2"], {"messages[0].createdAt": "2026-01-01T05:30:00+05:30", "messages[1].createdAt": ts(20)})
case("Merge.K1.first_created_at_of_message", ["K1"], "A message's createdAt is the first its updates carry.",
     [upd(R, "m1", contents=[text("a")]), upd(R, "m1", ts(12), contents=[text("b")]),
      upd(R, "m1", ts(10), contents=[text("c")])],
     ["m1"], {"messages[0].createdAt": ts(12)})
case("Merge.K1.untimestamped_stays_untimestamped", ["K1"],
     "A message without createdAt is not given the response's.",
     [upd(R, "m1", ts(10), contents=[text("a")]), upd(R, "m2", contents=[text("b")])],
     ["m1", "m2"], {"messages[1].createdAt": "@absent"})
case("Merge.R6.other_response_fields", ["R6", "W3"],
     "continuationToken, conversationId and modelId: the last value given.",
     [upd(R, "m1", continuationToken="AQID", conversationId="conv_1", modelId="model-a", contents=[text("a")]),
      upd(R, "m1", conversationId="conv_2", contents=[text("b")])],
     ["m1"], {"continuationToken": "AQID", "conversationId": "conv_2", "modelId": "model-a"})

# ---------------------------------------------------------------- X1 / X2
case("Merge.X1.unknown_fields_kept", ["X1", "W5"],
     "Update fields the model does not know stay on the message; for one key the last value wins.",
     [upd(R, "m1", contents=[text("a")], traceId="t-1", custom={"nested": [1, 2.5, None]}),
      upd(R, "m1", contents=[text("b")], traceId="t-2")],
     ["m1"], {"messages[0].traceId": "t-2", "messages[0].custom.nested[1]": 2.5})
case("Merge.X2.additional_properties_merged", ["X2"],
     "additionalProperties of a message's updates are merged key by key, the later winning.",
     [upd(R, "m1", contents=[text("a")], additionalProperties={"a": 1, "b": "x"}),
      upd(R, None, contents=[text("b")], additionalProperties={"b": "y", "c": True})],
     ["m1"], {"messages[0].additionalProperties.a": 1, "messages[0].additionalProperties.b": "y",
              "messages[0].additionalProperties.c": True})

# ---------------------------------------------------------------- W (wire)
PRETTY = ('{\n  "responseId": "resp_1",\n  "messageId": "m1",\n  "role": "assistant",\n'
          '  "contents": [\n    {\n      "$type": "text",\n      "text": "pretty "\n    }\n  ]\n}\n'
          '{\n  "responseId": "resp_1",\n  "messageId": "m1",\n  "contents": [\n    {\n'
          '      "$type": "text",\n      "text": "printed"\n    }\n  ]\n}\n')
case("Merge.W1.pretty_printed_values", ["W1"], "MEAI's default options indent: concatenated pretty-printed updates read as a stream.",
     None, ["m1"], {"messages[0].contents[0].text": "pretty printed"}, raw_input=PRETTY)
case("Merge.W1.array_of_updates", ["W1"], "A JSON array of updates (List<AgentResponseUpdate> serialised) reads as a stream.",
     None, ["m1", "m2"], {},
     raw_input=json.dumps([upd(R, "m1", contents=[text("a")]), upd(R, "m2", contents=[text("b")])]) + "\n")
case("Merge.W4.created_at_forms", ["W4", "O1", "K1"],
     "Z, +00:00, no offset and 7 fraction digits all parse; order by instant, texts kept.",
     [upd(R, "z", "2026-01-01T00:00:03Z", contents=[text("z")]),
      upd(R, "plain", "2026-01-01T00:00:02", contents=[text("p")]),
      upd(R, "seven", "2026-01-01T00:00:01.1234567+00:00", contents=[text("s")])],
     ["seven", "plain", "z"], {"messages[1].createdAt": "2026-01-01T00:00:02"})
case("Merge.W7.unicode_and_escapes", ["W7", "C2"],
     "Surrogate-pair escapes (as .NET writes emoji), raw non-ASCII and control characters survive; output is raw UTF-8.",
     None, ["m1"], {"messages[0].contents[0].text": "caf\u00e9 \U0001F600\ttab\u0001"},
     raw_input='{"responseId":"resp_1","messageId":"m1","contents":[{"$type":"text","text":"caf\u00e9 \\ud83d\\ude00"}]}\n'
               '{"responseId":"resp_1","messageId":"m1","contents":[{"$type":"text","text":"\\ttab\\u0001"}]}\n')
case("Merge.W7.numbers_shortest_form", ["W7", "X2"],
     "Numbers are written in shortest round-trip form (1.0 -> 1, 1E21 -> 1e+21, 0.1 stays 0.1).",
     None, ["m1"], {"messages[0].additionalProperties.n": [1, 0.1, 1e21, 1e-7, -0.5]},
     raw_input='{"responseId":"resp_1","messageId":"m1","contents":[],"additionalProperties":{"n":[1.0,0.1,1E21,1e-7,-5e-1]}}\n')


def key_of(msg):
    if "messageId" in msg:
        return msg["messageId"]
    for c in msg.get("contents", []):
        if c.get("$type") == "text":
            return "text:" + c.get("text", "")
    return "text:"


def lookup(obj, path):
    import re
    cur = obj
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            cur = cur[int(part[1:-1])]
        else:
            if part not in cur:
                return "@absent"
            cur = cur[part]
    return cur


def check(c, response):
    problems = []
    order = [key_of(m) for m in response["messages"]]
    if order != c["order"]:
        problems.append("order %s, expected %s" % (order, c["order"]))
    for path, want in c["fields"].items():
        got = lookup(response, path)
        if want == "@derived":
            ok = isinstance(got, str) and got.startswith("turnstile-")
        else:
            ok = got == want
        if not ok:
            problems.append("%s = %r, expected %r" % (path, got, want))
    return problems


def main():
    turnstile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "bazel-bin", "turnstile")
    os.makedirs(CASES, exist_ok=True)
    ids = [c["id"] for c in CASES_LIST]
    assert len(ids) == len(set(ids)), "duplicate case id"
    manifest = []
    failed = False
    for c in CASES_LIST:
        if c["raw_input"] is not None:
            data = c["raw_input"]
        else:
            data = "".join(json.dumps(u, ensure_ascii=False, separators=(",", ":")) + "\n" for u in c["updates"])
        run = subprocess.run([turnstile, "merge", "--pretty"], input=data.encode(), capture_output=True)
        if run.returncode != 0:
            print("%s: reference failed: %s" % (c["id"], run.stderr.decode()), file=sys.stderr)
            failed = True
            continue
        response = json.loads(run.stdout)
        problems = check(c, response)
        if problems:
            print("%s: reference contradicts the hand-written expectation: %s" % (c["id"], "; ".join(problems)),
                  file=sys.stderr)
            failed = True
            continue
        with open(os.path.join(CASES, c["id"] + ".input.jsonl"), "w", encoding="utf-8") as f:
            f.write(data)
        with open(os.path.join(CASES, c["id"] + ".expected.json"), "wb") as f:
            f.write(run.stdout)
        manifest.append({"id": c["id"], "rules": c["rules"], "description": c["description"],
                         "input": c["id"] + ".input.jsonl", "expected": c["expected"] if "expected" in c else c["id"] + ".expected.json",
                         "check": {"order": c["order"], "fields": c["fields"]}})
    if failed:
        sys.exit(1)
    with open(os.path.join(CASES, "MANIFEST.json"), "w", encoding="utf-8") as f:
        json.dump({"suite": "turnstile-merge", "spec": "conformance/SPEC.md", "version": 1, "cases": manifest},
                  f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("%d cases written to %s" % (len(manifest), os.path.normpath(CASES)))


if __name__ == "__main__":
    main()
