#!/usr/bin/env python3
"""python-minimal: a turnstile testee kit in Python 3 (3.7+), standard library only.

Speaks the testee protocol (conformance/PROTOCOL.md): one JSON request per line on stdin, one
JSON answer per line on stdout. To certify your own merger, copy this file, change the three
lines marked below and run:  turnstile certify -- python3 testee.py
"""
import json, re, sys

# ---- THE PART YOU REPLACE ---------------------------------------------------------------------
# A deliberately simple merge (rules: conformance/SPEC.md section 3). It keeps arrival order: it
# does not sort by createdAt (O1-O3), split a message on a role or author change (M4) or keep
# unknown fields (X1, X2), so `turnstile certify` reports those cases. That is the gap your
# merger fills. (The response's createdAt is the first one seen, which R4's checker accepts.)


def add_content(contents, c):
    """C1, C2: append c in arrival order, or join it to the text (or reasoning) run it continues."""
    p, t = (contents[-1] if contents else None), (c.get("$type") if isinstance(c, dict) else None)
    if (t in ("text", "reasoning") and isinstance(p, dict) and p.get("$type") == t and isinstance(p.get("text"), str)
            and isinstance(c.get("text"), str) and not p.get("annotations") and not p.get("protectedData")
            and all(k in ("$type", "text", "protectedData" if t == "reasoning" else "text") or v in (None, [], {})
                    for k, v in c.items())):
        p["text"] += c["text"]
        p.update({"protectedData": c["protectedData"]} if c.get("protectedData") else {})
    else:
        contents.append(dict(c) if isinstance(c, dict) else c)


def add_usage(total, details):
    """R2: integer counters summed (also when written as strings), additionalCounts per key, else last wins."""
    for k, v in details.items():
        if isinstance(v, dict): add_usage(total.setdefault(k, {}), v)
        elif isinstance(v, int) or (isinstance(v, str) and k.endswith("Count")): total[k] = total.get(k, 0) + int(v)
        else: total[k] = v


def merge(updates, response_id=None):
    """One turn's updates (dicts, arrival order) -> one AgentResponse dict (SPEC W7 shape)."""
    # I1: the turn's id when the host names one, else the first one seen, else a fixed id (D1).
    primary = response_id or next((u["responseId"] for u in updates if u.get("responseId")), "turn")
    groups, last, resp, usage = {}, {}, {"responseId": primary}, {}
    for u in updates:
        rid = u.get("responseId") or primary     # M1: dangling updates join the primary group
        msgs = groups.setdefault(rid, {})        # I3, G1: groups in first-arrival order
        key = last[rid] = u.get("messageId") or last.get(rid) or (None, len(msgs))  # M3: no id: the last one
        m = msgs.setdefault(key, {"contents": []})  # M2: one message per (responseId, messageId)
        m.update({f: u[f] for f in ("role", "authorName", "agentId", "createdAt") if u.get(f) and f not in m})  # M5, K1
        resp.update({f: u[f] for f in ("agentId", "createdAt") if u.get(f) and f not in resp})  # R3, R4: first
        resp.update({f: u[f] for f in ("finishReason", "continuationToken", "conversationId", "modelId")
                     if u.get(f) is not None})  # R1, R6: last
        for c in u.get("contents") or []:
            if isinstance(c, dict) and c.get("$type") == "usage": add_usage(usage, c.get("details") or {})
            else: add_content(m["contents"], c)
    if usage: resp["usage"] = usage
    resp["messages"] = [{"role": m.pop("role", "assistant"), **({"messageId": k} if isinstance(k, str) else {}), **m}
                        for msgs in groups.values() for k, m in msgs.items()
                        if isinstance(k, str) or m["contents"] or set(m) - {"contents", "role"}]  # M6: no phantoms
    return resp


# ---- THE THREE LINES YOU CHANGE ---------------------------------------------------------------
NAME = "python-minimal"  # 1. your implementation's name (shown in the report header)
VERSION = "0.1.0"        # 2. its version
MERGE = merge            # 3. your merge(updates, response_id), e.g.: from mymerger import merge as MERGE


# ---- protocol plumbing: no need to touch ------------------------------------------------------
def answer(line):
    """The answer to one request line, or None when it has no id to answer to."""
    try:
        req = json.loads(line)
    except Exception as e:  # not JSON (or nested too deep): answer if an id can still be found
        found = re.search(r'"id"\s*:\s*"([A-Za-z0-9_.$]+)"', line)
        return {"id": found.group(1), "error": f"bad request: {e}"} if found else None
    if not isinstance(req, dict) or not isinstance(req.get("id"), str): return None
    if req.get("op") == "hello": return {"id": req["id"], "hello": {"name": NAME, "version": VERSION, "ops": ["merge"]}}
    if req.get("op") != "merge": return {"id": req["id"], "unsupported": True}
    try:
        return {"id": req["id"], "response": MERGE(req["updates"], req.get("responseId"))}
    except Exception as e:  # a bug or a rejected input: one error line, and keep serving
        return {"id": req["id"], "error": f"{type(e).__name__}: {e}"}


if __name__ == "__main__":
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    for line in sys.stdin:  # one request per line; the loop ends at EOF
        reply = answer(line) if line.strip() else None
        if reply is not None: print(json.dumps(reply, separators=(",", ":")), flush=True)
