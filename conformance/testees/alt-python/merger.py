#!/usr/bin/env python3
"""alt-python: a second, independent merger, written from conformance/SPEC.md alone.

It exists to prove the checkers right: every answer it gives must pass them, and it takes other
choices than the reference (core/merge/merger.c) wherever the SPEC allows one:

  - I1: the response is labelled with the LAST of the turn's responseIds (MEAI's choice), while
    dangling updates still join the group of the first one (M1);
  - G1: response groups come in REVERSE order of first arrival;
  - M5: roles are written in lower case (roles compare case-insensitively); a message's agentId
    is left out when it is the response's own (the other agents' ids stay, R3);
  - W7: members come in another order (`contents` first; `$type` stays first in contents);
  - numbers are written the way Python writes them.

Standard library only; speaks conformance/PROTOCOL.md (ops merge and host).
"""
import datetime
import hashlib
import json
import re
import sys

KNOWN_UPDATE_FIELDS = {
    "responseId", "messageId", "createdAt", "role", "authorName", "agentId", "finishReason",
    "contents", "additionalProperties", "continuationToken", "conversationId", "modelId",
}
STRING_FIELDS = KNOWN_UPDATE_FIELDS - {"contents", "additionalProperties"}
COUNTERS = (
    "inputTokenCount", "outputTokenCount", "totalTokenCount", "cachedInputTokenCount",
    "reasoningTokenCount", "inputAudioTokenCount", "inputTextTokenCount", "outputAudioTokenCount",
    "outputTextTokenCount",
)
INT64 = (-(2**63), 2**63 - 1)
STAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,16}))?(Z|[+-]\d{2}:\d{2})?$")


class Rejected(Exception):
    """W6: the input is not a stream this merger accepts."""


def named(value):
    return isinstance(value, str) and value != ""


def instant(text, where):
    """W4: a createdAt as an exact integer count of 10^-16 s since 0001-01-01, offsets applied."""
    m = STAMP.match(text)
    if not m:
        raise Rejected(f"{where}: not a createdAt: {text!r}")
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    if h > 23 or mi > 59 or s > 59:
        raise Rejected(f"{where}: time out of range: {text!r}")
    try:
        days = datetime.date(y, mo, d).toordinal()
    except ValueError:
        raise Rejected(f"{where}: date out of range: {text!r}") from None
    offset = 0
    if m.group(8) and m.group(8) != "Z":
        oh, om = int(m.group(8)[1:3]), int(m.group(8)[4:6])
        if oh > 23 or om > 59:
            raise Rejected(f"{where}: offset out of range: {text!r}")
        offset = (oh * 60 + om) * 60 * (1 if m.group(8)[0] == "+" else -1)
    fraction = int((m.group(7) or "").ljust(16, "0"))
    return ((days * 86400 + h * 3600 + mi * 60 + s) - offset) * 10**16 + fraction


def counter(value, where):
    """W3: a usage counter: an int64, or (the Agent Framework allows it) a string of one."""
    if isinstance(value, bool):
        raise Rejected(f"{where}: not an integer")
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        value = int(value)
    if not isinstance(value, int) or not INT64[0] <= value <= INT64[1]:
        raise Rejected(f"{where}: not an int64 integer: {value!r}")
    return value


def add_checked(a, b, where):
    total = a + b
    if not INT64[0] <= total <= INT64[1]:
        raise Rejected(f"{where}: the usage sum overflows int64")
    return total


class Usage:
    """R2: counters summed (absent + x = x), additionalCounts per key, other members last wins."""

    def __init__(self):
        self.present = False
        self.values = {}

    def add(self, details, where):
        self.present = True
        if details is None:
            return
        if not isinstance(details, dict):
            raise Rejected(f"{where}: details must be an object")
        for key, value in details.items():
            if key in COUNTERS:
                if value is not None:
                    v = counter(value, f"{where}.{key}")
                    self.values[key] = add_checked(self.values.get(key, 0), v, where) if key in self.values else v
            elif key == "additionalCounts":
                if value is None:
                    continue
                if not isinstance(value, dict):
                    raise Rejected(f"{where}.additionalCounts: must be an object")
                counts = self.values.setdefault(key, {})
                for name, v in value.items():
                    v = counter(v, f"{where}.additionalCounts.{name}")
                    counts[name] = add_checked(counts[name], v, where) if name in counts else v
            else:
                self.values[key] = value


class Message:
    def __init__(self, group, first_arrival, message_id):
        self.group = group
        self.first_arrival = first_arrival
        self.message_id = message_id
        self.role = None
        self.author = None
        self.agent = None
        self.created_at = None
        self.created_instant = None
        self.contents = []
        self.additional = None
        self.extras = {}

    def contradicts(self, u):
        """M4."""
        role = u.get("role")
        if self.role is not None and role is not None and self.role.lower() != role.lower():
            return True
        if named(self.author) and named(u.get("authorName")) and self.author != u["authorName"]:
            return True
        return named(self.agent) and named(u.get("agentId")) and self.agent != u["agentId"]

    def absorb(self, u, where):
        """M5, K1, C1, X1, X2."""
        if self.role is None and u.get("role") is not None:
            self.role = u["role"]
        if not named(self.author) and named(u.get("authorName")):
            self.author = u["authorName"]
        if not named(self.agent) and named(u.get("agentId")):
            self.agent = u["agentId"]
        if self.created_at is None and u.get("createdAt") is not None:
            self.created_at = u["createdAt"]
            self.created_instant = instant(u["createdAt"], f"{where}.createdAt")
        for c in u.get("contents") or []:
            if not (isinstance(c, dict) and c.get("$type") == "usage"):
                self.contents.append(c)
        if u.get("additionalProperties") is not None:
            self.additional = self.additional or {}
            self.additional.update(u["additionalProperties"])
        for key, value in u.items():
            if key not in KNOWN_UPDATE_FIELDS:
                self.extras[key] = value

    def visible(self):
        """M6: an id-less message with nothing but at most a role is left out."""
        return (self.message_id is not None or self.contents or self.created_at is not None
                or named(self.author) or named(self.agent) or bool(self.additional) or bool(self.extras))


def carries_nothing(value):
    return value is None or value == [] or value == {}


def only_text(c, reasoning):
    allowed = {"$type", "text"} | ({"protectedData"} if reasoning else set())
    return all(k in allowed or carries_nothing(v) for k, v in c.items())


def coalesce(contents):
    """C2: runs of text (and of reasoning) become one item; nothing else is merged."""
    out, i = [], 0
    while i < len(contents):
        first = contents[i]
        kind = first.get("$type") if isinstance(first, dict) else None
        end = i + 1
        starts = (kind == "text" and carries_nothing(first.get("annotations"))) or (
            kind == "reasoning" and carries_nothing(first.get("annotations"))
            and carries_nothing(first.get("protectedData")))
        if starts:
            while (end < len(contents) and isinstance(contents[end], dict)
                   and contents[end].get("$type") == kind and only_text(contents[end], kind == "reasoning")):
                closes = kind == "reasoning" and not carries_nothing(contents[end].get("protectedData"))
                end += 1
                if closes:
                    break
        if end - i == 1:
            out.append(first)
        else:
            merged = dict(first)
            merged["text"] = "".join(c.get("text") or "" for c in contents[i:end])
            last = contents[end - 1]
            if kind == "reasoning" and not carries_nothing(last.get("protectedData")):
                merged["protectedData"] = last["protectedData"]
            out.append(merged)
        i = end
    return out


def validate(updates):
    """W3: the known fields' JSON types."""
    if not isinstance(updates, list) or not updates:
        raise Rejected("a stream with no update")
    for i, u in enumerate(updates):
        where = f"updates[{i}]"
        if not isinstance(u, dict):
            raise Rejected(f"{where}: not an object")
        for f in STRING_FIELDS:
            if u.get(f) is not None and not isinstance(u[f], str):
                raise Rejected(f"{where}.{f}: must be a string")
        if u.get("contents") is not None and not isinstance(u["contents"], list):
            raise Rejected(f"{where}.contents: must be an array")
        if u.get("additionalProperties") is not None and not isinstance(u["additionalProperties"], dict):
            raise Rejected(f"{where}.additionalProperties: must be an object")


def group_order(messages):
    """O1, O2, I2, O3 inside one group: the earliest-placement key of SPEC section 3.3."""
    stamped = sorted((m for m in messages if m.created_at is not None),
                     key=lambda m: (m.created_instant, m.first_arrival))
    rank = {id(m): r for r, m in enumerate(stamped)}
    keys, anchor, previous = [], -1, None
    for m in messages:  # in first-arrival order
        if m.created_at is not None:
            keys.append(((rank[id(m)], 0, m.first_arrival), m))
        else:
            if previous is not None and previous.created_at is not None:
                anchor = max(anchor, rank[id(previous)])
            keys.append(((anchor, 1, m.first_arrival), m))
        previous = m
    return [m for _, m in sorted(keys, key=lambda k: k[0])]


def merge(updates, host_id=None):
    validate(updates)
    ids = [u["responseId"] for u in updates if named(u.get("responseId"))]
    primary = host_id if named(host_id) else (ids[0] if ids else None)
    if named(host_id):
        label = host_id
    elif ids:
        label = ids[-1]  # I1: any of the turn's ids may label the response; MEAI keeps the last
    else:
        canonical = json.dumps(updates, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        label = "alt-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]
    groups = {}  # key -> {"first": i, "messages": [...], "by_id": {}, "last": Message}
    usage = Usage()
    response = {}
    for i, u in enumerate(updates):
        where = f"updates[{i}]"
        key = u["responseId"] if named(u.get("responseId")) else primary
        group = groups.setdefault(key, {"first": i, "messages": [], "by_id": {}, "last": None})
        message_id = u["messageId"] if named(u.get("messageId")) else None
        target = None
        if message_id is not None:
            known = group["by_id"].get(message_id)
            if known is not None and not known.contradicts(u):
                target = known
        elif group["last"] is not None and not group["last"].contradicts(u):
            target = group["last"]
        if target is None:
            target = Message(key, i, message_id)
            group["messages"].append(target)
            if message_id is not None:
                group["by_id"][message_id] = target
        group["last"] = target
        target.absorb(u, where)
        for c_index, c in enumerate(u.get("contents") or []):
            if isinstance(c, dict) and c.get("$type") == "usage":
                usage.add(c.get("details"), f"{where}.contents[{c_index}].details")
        for f in ("finishReason", "continuationToken", "conversationId", "modelId"):  # R1, R6: last
            if u.get(f) is not None:
                response[f] = u[f]
    # R3: the primary group's first agentId, dangling updates included; else the stream's first.
    in_primary = [u.get("agentId") for u in updates if named(u.get("agentId"))
                  and (u["responseId"] if named(u.get("responseId")) else primary) == primary]
    anywhere = [u["agentId"] for u in updates if named(u.get("agentId"))]
    agent = in_primary[0] if in_primary else (anywhere[0] if anywhere else None)
    # R4: the earliest instant, ties by first arrival, as written.
    stamped = [(instant(u["createdAt"], f"updates[{i}].createdAt"), i, u["createdAt"])
               for i, u in enumerate(updates) if u.get("createdAt") is not None]
    messages = []
    for key in reversed(list(groups)):  # G1: any group order; this one is the reverse of arrival
        for m in group_order([m for m in groups[key]["messages"] if m.visible()]):
            out = {"contents": coalesce(m.contents), "role": (m.role if m.role is not None else "assistant").lower()}
            if named(m.author):
                out["authorName"] = m.author
            if m.message_id is not None:
                out["messageId"] = m.message_id
            if m.created_at is not None:
                out["createdAt"] = m.created_at
            if named(m.agent) and m.agent != agent:
                out["agentId"] = m.agent
            if m.additional:
                out["additionalProperties"] = m.additional
            for k, v in m.extras.items():
                out.setdefault(k, v)
            messages.append(out)
    answer = {"messages": messages, "responseId": label}
    if agent is not None:
        answer["agentId"] = agent
    if stamped:
        answer["createdAt"] = min(stamped)[2]
    if usage.present:
        answer["usage"] = usage.values
    answer.update(response)
    return answer


def host(emissions):
    """PROTOCOL.md H1-H5: one responseId per turn; conflicting ids are refused (H3 allows it)."""
    ids = {e.get("responseId") for e in emissions if isinstance(e, dict) and named(e.get("responseId"))}
    if len(ids) > 1:
        raise Rejected("the agent emitted several responseIds in one turn: " + ", ".join(sorted(ids)))
    turn = ids.pop() if ids else "alt-turn-" + hashlib.sha256(
        json.dumps(emissions, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    stream = [dict(e, responseId=turn) for e in emissions]
    return stream, merge(stream, turn)


NAME = "alt-python"
VERSION = "1.0.0"


def answer(line):
    try:
        request = json.loads(line)
    except ValueError as e:
        found = re.search(r'"id"\s*:\s*"([A-Za-z0-9_.$]+)"', line)
        return {"id": found.group(1), "error": f"bad request: {e}"} if found else None
    if not isinstance(request, dict) or not isinstance(request.get("id"), str):
        return None
    rid, op = request["id"], request.get("op", "merge")
    if op == "hello":
        return {"id": rid, "hello": {"name": NAME, "version": VERSION, "ops": ["merge", "host"]}}
    try:
        if op == "merge":
            return {"id": rid, "response": merge(request.get("updates"), request.get("responseId"))}
        if op == "host":
            stream, response = host(request.get("emissions") or [])
            return {"id": rid, "stream": stream, "response": response}
    except Rejected as e:
        return {"id": rid, "error": str(e)}
    return {"id": rid, "unsupported": True}


def main():
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    for line in sys.stdin:
        if line.strip():
            reply = answer(line)
            if reply is not None:
                sys.stdout.write(json.dumps(reply, separators=(",", ":"), ensure_ascii=False) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
