#!/usr/bin/env python3
"""ci/dotnet_roundtrip.py TURNSTILE ECHO_COMMAND... — the wire round trip with .NET.

Sends every merge case of the suite, exactly as `turnstile certify` sends it
(`turnstile certify --print-requests`: "$type" first, createdAt as the case spells it, raw
UTF-8), through the .NET echo adapter (conformance/testees/dotnet-echo), which deserializes the
updates with the Agent Framework's own options (AgentAbstractionsJsonUtilities.DefaultOptions) and
serializes them back. Then checks, per update, that nothing .NET models was lost or changed:

  - every member .NET wrote back is one turnstile sent, with the same value, except the
    documented re-spellings: createdAt (same instant, to .NET's 100 ns), usage counters sent as
    strings (read as numbers: AllowReadingFromString), and defaults .NET always writes
    ("contents": [], "informationalOnly": false);
  - members .NET dropped are listed by name: those its types do not model (unknown update and
    content members, conversationId and modelId on AgentResponseUpdate, null values, an empty
    authorName); they are reported, not failed, and turnstile's own reader keeps them (SPEC X1).

A request .NET cannot read at all is reported with the exception's first line, classified where
the reason is documented (an offset beyond +/-14:00, which DateTimeOffset cannot hold; an unknown
"$type"). Exit 0 when nothing was lost or changed; 1 with the list otherwise.
"""
import datetime
import json
import re
import subprocess
import sys

DEFAULTS = {("contents", "[]"), ("informationalOnly", "false")}


def instant(text):
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?", text)
    if not m:
        return text
    base = datetime.datetime.fromisoformat(m.group(1))
    ticks = int(((m.group(2) or "") + "0000000")[:7])  # .NET keeps 100 ns
    zone = m.group(3) or "Z"
    offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    seconds = (base - datetime.datetime(1970, 1, 1)).total_seconds() - offset * 60
    return (int(seconds), ticks)


def same(key, ours, theirs):
    if key == "createdAt" and isinstance(ours, str) and isinstance(theirs, str):
        return instant(ours) == instant(theirs)
    if isinstance(ours, str) and isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
        return ours.strip() == json.dumps(theirs)  # a counter sent as a string
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return all(k in ours and same(k, ours[k], v) for k, v in theirs.items())
    return ours == theirs


def compare(path, ours, theirs, dropped, wrong):
    """Members of theirs must be in ours with the same value (recursively for objects and
    contents); members of ours missing from theirs are dropped."""
    ours = {k: v for k, v in ours.items() if v is not None}  # null is absent (SPEC W3)
    for k, v in theirs.items():
        if k not in ours:
            if (k, json.dumps(v, separators=(",", ":"))) not in DEFAULTS:
                wrong.append("%s.%s: .NET wrote %s, which turnstile did not send" % (path, k, json.dumps(v)[:80]))
            continue
        if k == "contents" and isinstance(v, list) and isinstance(ours[k], list):
            if len(v) != len(ours[k]):
                wrong.append("%s.contents: %d items sent, %d came back" % (path, len(ours[k]), len(v)))
                continue
            for i, (a, b) in enumerate(zip(ours[k], v)):
                if isinstance(a, dict) and isinstance(b, dict):
                    compare("%s.contents[%d]" % (path, i), a, b, dropped, wrong)
                elif a != b:
                    wrong.append("%s.contents[%d] changed" % (path, i))
        elif k == "details" and isinstance(v, dict) and isinstance(ours[k], dict):
            compare(path + ".details", ours[k], v, dropped, wrong)
        elif not same(k, ours[k], v):
            wrong.append("%s.%s: sent %s, came back %s" % (path, k, json.dumps(ours[k])[:80], json.dumps(v)[:80]))
    for k, v in ours.items():
        if k not in theirs:
            dropped[k] = dropped.get(k, 0) + 1


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: ci/dotnet_roundtrip.py TURNSTILE ECHO_COMMAND...")
    turnstile, echo = sys.argv[1], sys.argv[2:]
    requests = subprocess.run([turnstile, "certify", "--print-requests", "--cases", "Merge.*"], check=True,
                              capture_output=True, text=True, encoding="utf-8").stdout.split("\n")
    requests = [r for r in requests if r]
    answers = subprocess.run(echo, input="\n".join(requests) + "\n", capture_output=True, text=True,
                             encoding="utf-8", timeout=300).stdout.split("\n")
    answers = [a for a in answers if a]
    if len(answers) != len(requests):
        sys.exit("the echo adapter answered %d of %d requests" % (len(answers), len(requests)))
    unreadable, dropped, wrong, echoed = {}, {}, [], 0
    for line, answer_line in zip(requests, answers):
        request, answer = json.loads(line), json.loads(answer_line)
        if answer.get("id") != request["id"]:
            wrong.append("%s: the answer is for %s" % (request["id"], answer.get("id")))
            continue
        if "error" in answer:
            first = answer["error"].split("\n")[0]
            reason = ("an offset beyond +/-14:00 (DateTimeOffset's documented range)" if "offset" in first.lower() or
                      "UTC offset" in first else
                      "an unknown \"$type\" (the AIContent polymorphism has no fallback)" if "$type" in first or
                      "discriminator" in first.lower() else first[:160])
            unreadable.setdefault(reason, []).append(request["id"])
            continue
        echoed += 1
        updates = answer.get("echo", [])
        if len(updates) != len(request["updates"]):
            wrong.append("%s: %d updates sent, %d came back" % (request["id"], len(request["updates"]), len(updates)))
            continue
        for i, (ours, theirs) in enumerate(zip(request["updates"], updates)):
            compare("%s: updates[%d]" % (request["id"], i), ours, theirs, dropped, wrong)
    print("%d merge cases sent; %d read and echoed by .NET; %d not readable" %
          (len(requests), echoed, sum(len(v) for v in unreadable.values())))
    for reason, ids in sorted(unreadable.items(), key=lambda kv: -len(kv[1])):
        print("  not readable (%d): %s; e.g. %s" % (len(ids), reason, ", ".join(ids[:3])))
    if dropped:
        print("  members .NET does not model, dropped on its side (turnstile keeps them): " +
              ", ".join("%s (%d)" % kv for kv in sorted(dropped.items(), key=lambda kv: -kv[1])))
    if wrong:
        print("%d values lost or changed:" % len(wrong))
        for w in wrong[:40]:
            print("  " + w)
        return 1
    print("no value .NET models was lost or changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
