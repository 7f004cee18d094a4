#!/usr/bin/env python3
"""Authoring tool for the hosting-executor cases in conformance/cases/host/ (not run by tests).

Each case gives the emissions of the agent(s) during one turn and a hand-written expectation:
the one responseId every emitted update must carry ("@derived" for an id the host assigns) and
the order of the merged messages. The tool asks the reference (`turnstile testee`, op "host")
for the answer, refuses to write a golden that contradicts the expectation, and writes
<id>.input.jsonl (the emissions), <id>.expected.json ({"stream":[...],"response":{...}}) and
MANIFEST.json (op "host").

usage: conformance/tools/author_host_cases.py [path/to/turnstile]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases", "host")


def text(t):
    return {"$type": "text", "text": t}


def emit(mid=None, rid=None, agent=None, t=None, role=None, contents=None, **extra):
    d = {}
    for key, value in (("responseId", rid), ("messageId", mid), ("agentId", agent), ("createdAt", t), ("role", role)):
        if value is not None:
            d[key] = value
    d["contents"] = contents if contents is not None else []
    d.update(extra)
    return d


CASES_LIST = []


def case(cid, rules, description, emissions, stream_id, order, fields=None):
    CASES_LIST.append(dict(id=cid, rules=rules, description=description, emissions=emissions, stream_id=stream_id,
                           order=order, fields=fields or {}))


case("Host.H1.agent_gives_none", ["H1", "H5"],
     "Seed test HostingExecutor_AssignsSingleResponseId_WhenAgentProvidesNone: the host assigns one id to every update.",
     [emit("m1", role="assistant", contents=[text("Hel")]), emit("m1", contents=[text("lo")]),
      emit(None, finishReason="stop")],
     "@derived", ["m1"], {"finishReason": "stop"})
case("Host.H2.agent_id_preserved", ["H2", "H1"],
     "Seed test HostingExecutor_PreservesAgentResponseId_WhenProvided: a consistent agent id is kept.",
     [emit("m1", "resp_agent", contents=[text("a")]), emit("m2", "resp_agent", contents=[text("b")])],
     "resp_agent", ["m1", "m2"])
case("Host.H3.conflicting_ids_normalised", ["H3", "H1"],
     "Seed test HostingExecutor_RejectsMultipleResponseIds_InSingleTurn: the host normalises to one id (or may reject).",
     [emit("m1", "R1", contents=[text("a")]), emit("m2", "R2", contents=[text("b")]), emit("m3", "R1", contents=[text("c")])],
     "R1", ["m1", "m2", "m3"])
case("Host.H1.partial_ids", ["H1", "H4"],
     "Some emissions carry the agent's id and some none: every emitted update carries it.",
     [emit("m1", contents=[text("a")]), emit("m1", "resp_x", contents=[text("b")]), emit(None, contents=[text("c")])],
     "resp_x", ["m1"], {"messages[0].contents[0].text": "abc"})
case("Host.H5.handoff_without_ids", ["H5", "H1", "I2"],
     "Seed test HostingExecutor_HandoffScenario_MaintainsMessageCoherence: triage hands off to billing; one id, triage's messages first.",
     [emit("t1", agent="triage", role="assistant", contents=[text("Routing you")]),
      emit("t2", agent="triage", role="assistant",
           contents=[{"$type": "functionCall", "callId": "h1", "name": "handoff", "arguments": {"to": "billing"},
                      "informationalOnly": False}]),
      emit("t3", agent="triage", role="tool", contents=[{"$type": "functionResult", "callId": "h1", "result": "ok"}]),
      emit("b1", agent="billing", role="assistant", contents=[text("Billing here")])],
     "@derived", ["t1", "t2", "t3", "b1"], {"agentId": "triage"})
case("Host.H4.dangling_metadata_passes_through", ["H4", "R1", "R2", "R3"],
     "The agent's metadata-only updates (finish reason, usage, agent id) reach the stream and the response.",
     [emit("m1", contents=[text("answer")]),
      emit(None, agent="agent_9", finishReason="stop",
           contents=[{"$type": "usage", "details": {"inputTokenCount": 3, "outputTokenCount": 4}}])],
     "@derived", ["m1"], {"finishReason": "stop", "agentId": "agent_9", "usage.outputTokenCount": 4})
case("Host.H5.mixed_timestamps", ["H5", "O1", "O3"],
     "The host's merge orders A(10), B(none), C(5) as C, A, B like any merger.",
     [emit("A", t="2026-01-01T00:00:10+00:00", contents=[text("A")]), emit("B", contents=[text("B")]),
      emit("C", t="2026-01-01T00:00:05+00:00", contents=[text("C")])],
     "@derived", ["C", "A", "B"])
case("Host.H1.concurrent_agents_without_ids", ["H1", "H5", "I2"],
     "Two agents interleave without ids: one id for the turn; with one response group, arrival order decides.",
     [emit("a1", agent="alpha", contents=[text("a1")]), emit("b1", agent="beta", contents=[text("b1")]),
      emit("a2", agent="alpha", contents=[text("a2")])],
     "@derived", ["a1", "b1", "a2"])
case("Host.H4.unknown_fields_pass_through", ["H4", "X1"],
     "Fields and contents the host does not know are passed on unaltered.",
     [emit("m1", contents=[{"$type": "futureThing", "x": [1, 2]}], traceId="t-1")],
     "@derived", ["m1"], {"messages[0].traceId": "t-1"})
case("Host.H2.empty_id_is_none", ["H2", "H1"],
     "responseId \"\" is no id: the host assigns one.",
     [emit("m1", "", contents=[text("a")])], "@derived", ["m1"])


def lookup(obj, path):
    import re
    cur = obj
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            cur = cur[int(part[1:-1])]
        elif part not in cur:
            return "@absent"
        else:
            cur = cur[part]
    return cur


def main():
    turnstile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "bazel-bin", "turnstile")
    os.makedirs(CASES, exist_ok=True)
    requests = "".join(json.dumps({"id": c["id"], "op": "host", "emissions": c["emissions"]}) + "\n" for c in CASES_LIST)
    run = subprocess.run([turnstile, "testee"], input=requests.encode(), capture_output=True, check=True)
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    failed = False
    manifest = []
    for c, answer in zip(CASES_LIST, answers):
        problems = []
        ids = {u.get("responseId") for u in answer["stream"]}
        want = c["stream_id"]
        if len(ids) != 1 or (want == "@derived" and not str(next(iter(ids))).startswith("turnstile-")) or \
                (want != "@derived" and ids != {want}):
            problems.append("stream ids %s, expected %s" % (ids, want))
        order = [m.get("messageId") for m in answer["response"]["messages"]]
        if order != c["order"]:
            problems.append("order %s, expected %s" % (order, c["order"]))
        for path, value in c["fields"].items():
            if lookup(answer["response"], path) != value:
                problems.append("%s = %r, expected %r" % (path, lookup(answer["response"], path), value))
        if problems:
            print("%s: %s" % (c["id"], "; ".join(problems)), file=sys.stderr)
            failed = True
            continue
        with open(os.path.join(CASES, c["id"] + ".input.jsonl"), "w") as f:
            f.write("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in c["emissions"]))
        with open(os.path.join(CASES, c["id"] + ".expected.json"), "w") as f:
            json.dump({"stream": answer["stream"], "response": answer["response"]}, f, indent=2, ensure_ascii=False)
            f.write("\n")
        manifest.append({"id": c["id"], "op": "host", "rules": c["rules"], "description": c["description"],
                         "input": c["id"] + ".input.jsonl", "expected": c["id"] + ".expected.json",
                         "check": {"stream_id": c["stream_id"], "order": c["order"], "fields": c["fields"]}})
    if failed:
        sys.exit(1)
    with open(os.path.join(CASES, "MANIFEST.json"), "w") as f:
        json.dump({"suite": "turnstile-host", "spec": "conformance/PROTOCOL.md", "version": 1, "cases": manifest}, f,
                  indent=2, ensure_ascii=False)
        f.write("\n")
    print("%d host cases written to %s" % (len(manifest), os.path.normpath(CASES)))


if __name__ == "__main__":
    main()
