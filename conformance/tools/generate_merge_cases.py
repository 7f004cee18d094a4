#!/usr/bin/env python3
"""Generator for the GENERATED merge golden cases in conformance/cases/merge-generated/.

Not run by tests. Python 3 standard library only, deterministic: every case is drawn from a
random.Random with a fixed seed, and the files are the same bytes on every run (for the same
reference binary: the expected files are the reference's answers, which D1 makes a function of
the input).

Each family builds its streams from a *plan*: the messages it means to form (their group,
messageId, timestamp instant, texts, contents) and the updates that stream them, in arrival
order. From the plan alone the family states what the merge must give — the message order
(groups in first-arrival order; inside a group the SPEC §3.3 key construction over the planned
instants and first arrivals), each planned message's contents, and response fields (responseId,
agentId, createdAt, finishReason, usage sums...). Then every case is checked three ways before
it is written:

  1. the plan's expectation against the reference's answer (order, counts, contents, fields);
  2. a second, independent model of SPEC.md §3 (`spec_merge` below: it parses the written input
     lines back, applies I1, M1..M6, O1..O3/I2, C2, R1..R6, K1, X1, X2 literally) whose full
     response must equal the reference's answer as a JSON value;
  3. generic properties of the answer: D1 (two runs give the same bytes), W7 ("$type" first in
     every object, non-ASCII written raw, no absent value written as null), C1 (no content
     invented or lost: counts of non-text contents and the total text length are conserved).

A case the reference rejects (non-zero exit), or whose answer fails any check, is not written;
the script then exits 1 and writes nothing at all. A *probe* is a case whose expectation follows
a reading of the SPEC the reference is known not to follow: it is run and reported, never
written.

Files: `<id>.input.jsonl` (one update per line), `<id>.expected.json` (`turnstile merge --pretty`
output) and MANIFEST.json (suite turnstile-merge-generated; every case has id, rules,
description, input, expected, generated {family, seed} and, as in conformance/cases/merge/, a
"check" {order, fields} stated by the plan, never copied from the reference).

usage: conformance/tools/generate_merge_cases.py [path/to/turnstile]   (default bazel-bin/turnstile)
"""
import datetime
import base64
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.normpath(os.path.join(HERE, "..", "cases", "merge-generated"))
SPEC = os.path.join(ROOT, "conformance", "SPEC.md")
SIZE_LIMIT = 8 * 1000 * 1000
INT64_MAX = 2 ** 63 - 1

OMIT = object()  # a field left out of an update (as opposed to written as null)

# ============================================================================ timestamps

EPOCH = datetime.datetime(1970, 1, 1)
BASE = int((datetime.datetime(2026, 3, 14, 9, 0, 0) - EPOCH).total_seconds())
INSTANT_OF = {}  # createdAt text -> (seconds, fraction in 1e-16 s), as the generator made it


def stamp_local(local, frac16=0, digits=0, off_min=0, style="offset"):
    """createdAt text for local wall time `local` (a datetime, years 1..9999) with a fraction of
    `digits` digits (frac16 in units of 1e-16 s) and a UTC offset; records its instant."""
    assert digits == 0 and frac16 == 0 or 1 <= digits <= 16
    assert frac16 % (10 ** (16 - digits)) == 0 if digits else frac16 == 0
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (local.year, local.month, local.day, local.hour, local.minute,
                                               local.second)
    if digits:
        text += "." + ("%016d" % frac16)[:digits]
    if style == "Z":
        assert off_min == 0
        text += "Z"
    elif style == "none":
        assert off_min == 0
    else:
        sign = "-" if off_min < 0 else "+"
        text += "%s%02d:%02d" % (sign, abs(off_min) // 60, abs(off_min) % 60)
    seconds = (local - EPOCH) // datetime.timedelta(seconds=1) - off_min * 60
    instant = (seconds, frac16)
    assert INSTANT_OF.setdefault(text, instant) == instant
    return text


def stamp(seconds, frac16=0, digits=0, off_min=0, style="offset"):
    """createdAt text for the instant `seconds` (+ frac16) written with the given offset."""
    local = EPOCH + datetime.timedelta(seconds=seconds + off_min * 60)
    return stamp_local(local, frac16, digits, off_min, style)


def random_style(rng, off_min):
    if off_min != 0:
        return "offset"
    return rng.choice(["Z", "offset", "none"])


def random_stamp(rng, seconds, frac16=0, offsets=None):
    """The instant written with a random offset, fraction width and suffix style."""
    off = rng.choice(offsets) if offsets else rng.choice([0, 0, 60, -300, 330, 345, -570, 780, -720, 840, 1439, -1439])
    need = 0
    if frac16:  # the fewest fraction digits that write frac16 exactly
        need = 16
        while need > 1 and frac16 % (10 ** (17 - need)) == 0:
            need -= 1
    digits = 0 if not frac16 and rng.random() < 0.6 else rng.randint(max(need, 1), 16)
    return stamp(seconds, frac16, digits, off, random_style(rng, off))


# ============================================================================ content helpers

WORDS = ("the quick brown fox jumps over lazy dog agent tool call result stream delta merge order "
         "group message turn usage token reason plan step answer check value index arrival time "
         "first last north south east west alpha beta gamma delta kappa sigma omega").split()


def text(t, **extra):
    d = {"$type": "text", "text": t}
    d.update(extra)
    return d


def reasoning(t, **extra):
    d = {"$type": "reasoning", "text": t}
    d.update(extra)
    return d


def call(cid, name, args):
    return {"$type": "functionCall", "callId": cid, "name": name, "arguments": args, "informationalOnly": False}


def fresult(cid, value):
    return {"$type": "functionResult", "callId": cid, "result": value}


def usage(**details):
    return {"$type": "usage", "details": details}


def deltas(rng, n, words=WORDS):
    """n text deltas: words, sometimes split inside a word, sometimes empty."""
    out = []
    for i in range(n):
        w = rng.choice(words)
        r = rng.random()
        if r < 0.15 and len(w) > 3:
            cut = rng.randint(1, len(w) - 1)
            out.append((" " if i else "") + w[:cut])
            out.append(w[cut:])
        elif r < 0.18:
            out.append("")
        else:
            out.append((" " if i else "") + w)
    return out[:max(n, 1)]


def mk(**kw):
    """An update with its fields in a fixed order; OMIT leaves a field out, None writes null."""
    order = ["responseId", "messageId", "agentId", "authorName", "role", "createdAt", "finishReason",
             "contents", "additionalProperties", "continuationToken", "conversationId", "modelId"]
    d = {}
    for k in order:
        if k in kw:
            v = kw.pop(k)
            if v is not OMIT:
                d[k] = v
    for k, v in kw.items():
        if v is not OMIT:
            d[k] = v
    return d


def absent_id(rng):
    """A responseId/messageId that is no id: left out, null or "" (W3)."""
    return rng.choice([OMIT, None, ""])


def nonempty(s):
    return isinstance(s, str) and s != ""


# ============================================================================ the plan

class Msg:
    """A message the plan means to form."""

    def __init__(self, group, mid=None, label=None):
        self.group = group
        self.mid = mid
        self.label = label  # order key for a message without id: "text:<first text>"
        self.first = None
        self.instant = None
        self.created = None
        self.role = None
        self.author = None
        self.agent = None
        self.texts = []  # text deltas, when the message is plain text (expect one text content)
        self.expect_contents = None  # the full expected contents, when the plan states them
        self.expect_extra = {}  # other expected members of the written message

    def key(self):
        if self.mid is not None:
            return self.mid
        assert self.label is not None
        return "text:" + self.label


CONT = object()  # tag: the update joins its group's current message (M3), whatever it is


class Plan:
    def __init__(self):
        self.items = []  # (update, msg or CONT or None, group)

    def add(self, update, msg, group=None):
        self.items.append([update, msg, group if group is not None else msg.group])

    def resolve(self):
        """Walks the planned stream in arrival order: fixes CONT tags, first arrivals, createdAt
        (K1: the first in arrival), roles/authors/agents (first named) and group first arrivals."""
        last = {}
        self.group_first = {}
        self.msgs = []
        for i, item in enumerate(self.items):
            u, msg, group = item
            self.group_first.setdefault(group, i)
            if msg is CONT:
                msg = last.get(group)
                item[1] = msg
            last[group] = msg
            if msg is None:
                continue
            if msg.first is None:
                msg.first = i
                self.msgs.append(msg)
            if msg.created is None and u.get("createdAt"):
                msg.created = u["createdAt"]
                msg.instant = INSTANT_OF[u["createdAt"]]
            if msg.role is None and u.get("role") is not None:
                msg.role = u["role"]
            if msg.author is None and nonempty(u.get("authorName")):
                msg.author = u["authorName"]
            if msg.agent is None and nonempty(u.get("agentId")):
                msg.agent = u["agentId"]
        return self

    def updates(self):
        return [it[0] for it in self.items]

    def order(self):
        """Groups by first arrival (G1, the reference's choice); inside a group the key
        construction of SPEC §3.3 over the planned instants: T by (instant, arrival); each
        untimestamped message after the highest-ranked timestamped message that immediately
        preceded it or an earlier untimestamped one."""
        out = []
        for group in sorted(self.group_first, key=lambda g: self.group_first[g]):
            msgs = sorted([m for m in self.msgs if m.group == group], key=lambda m: m.first)
            stamped = sorted([m for m in msgs if m.instant is not None], key=lambda m: (m.instant, m.first))
            rank = {id(m): r for r, m in enumerate(stamped)}
            keyed, anchor, prev = [], -1, None
            for m in msgs:
                if m.instant is not None:
                    keyed.append(((rank[id(m)], 0, 0), m))
                else:
                    if prev is not None and prev.instant is not None:
                        anchor = max(anchor, rank[id(prev)])
                    keyed.append(((anchor, 1, m.first), m))
                prev = m
            out.extend(m for _, m in sorted(keyed, key=lambda x: x[0]))
        return out

    def earliest_created(self):
        best = None
        for u, _, _ in self.items:
            t = u.get("createdAt")
            if t and (best is None or INSTANT_OF[t] < INSTANT_OF[best]):
                best = t
        return best


def strip_mids(plan, rng, p):
    """Drops the messageId (left out, null or "") of updates that continue the message the
    previous update of their group went to — M3 keeps them in that message."""
    last = {}
    for item in plan.items:
        u, msg, group = item
        if msg is not CONT and msg is not None and last.get(group) is msg and "messageId" in u and rng.random() < p:
            v = absent_id(rng)
            if v is OMIT:
                del u["messageId"]
            else:
                u["messageId"] = v
        last[group] = msg if msg is not CONT else last.get(group)


def dangle(plan, rng, p, primary_rid):
    """Makes updates of the primary group dangling (responseId left out, null or ""), so long as
    the first non-dangling update of the stream stays a primary one (I1, M1)."""
    first_other = next((i for i, (u, _, g) in enumerate(plan.items) if g != primary_rid), len(plan.items))
    prims_before = [i for i in range(first_other)
                    if plan.items[i][2] == primary_rid and nonempty(plan.items[i][0].get("responseId"))]
    keep = rng.choice(prims_before) if prims_before else None
    for i, item in enumerate(plan.items):
        u, _, group = item
        if group != primary_rid or i == keep or rng.random() >= p:
            continue
        v = absent_id(rng)
        if v is OMIT:
            u.pop("responseId", None)
        else:
            u["responseId"] = v


def interleave(rng, seqs, weights=None):
    """Random merge of sequences, each kept in its own order."""
    seqs = [list(s) for s in seqs]
    pos = [0] * len(seqs)
    out = []
    while True:
        live = [i for i in range(len(seqs)) if pos[i] < len(seqs[i])]
        if not live:
            return out
        w = [(len(seqs[i]) - pos[i]) * (weights[i] if weights else 1) for i in live]
        i = rng.choices(live, weights=w)[0]
        out.append(seqs[i][pos[i]])
        pos[i] += 1


# ============================================================================ the cases

class Case:
    def __init__(self, family, num, rule, rules, seed, description, plan, fields=None, probe=None,
                 ascii_lines=None, bom=False, crlf=False):
        self.id = "Merge.%s.gen_%s_%02d" % (rule, family, num)
        self.family = family
        self.rules = rules
        self.seed = seed
        self.description = description
        self.plan = plan
        self.fields = fields or {}
        self.probe = probe
        self.ascii_lines = ascii_lines  # set of line indices written with \\u escapes
        self.bom = bom  # a UTF-8 byte-order mark before the first line (W1)
        self.crlf = crlf  # lines end in CR LF (W1: whitespace between values)
        assert rule in rules

    def input_text(self):
        lines = []
        for i, u in enumerate(self.plan.updates()):
            ascii_ = self.ascii_lines is not None and i in self.ascii_lines
            lines.append(json.dumps(u, ensure_ascii=ascii_, separators=(",", ":")))
        eol = "\r\n" if self.crlf else "\n"
        return ("\ufeff" if self.bom else "") + eol.join(lines) + eol


CASES = []


def plain_text_expectations(plan):
    for m in plan.msgs:
        if m.expect_contents is None and m.texts is not None:
            m.expect_contents = [text("".join(m.texts))] if m.texts else []


AGENT_NAMES = ["planner", "coder", "critic", "search", "math", "writer", "router", "memory", "vision", "sql",
               "shell", "review", "triage", "billing"]


# ---------------------------------------------------------------- I3: many agents
def fam_many_agents():
    for n in range(20):
        seed = 1000 + n
        rng = random.Random(seed)
        n_agents = 3 + (n * 7) % 10
        mode = ["none", "all", "mixed", "none", "all"][n % 5]
        dangling = n % 4 in (1, 2)
        parallel = n % 3 == 0
        names = rng.sample(AGENT_NAMES, n_agents)
        agent_seqs, rids = [], {}
        base = BASE + rng.randint(0, 3600)
        for k, name in enumerate(names):
            rid = "resp_%s_%04x" % (name, rng.getrandbits(16))
            aid = "agent_%s" % name
            rids[name] = rid
            msg_seqs = []
            for j in range(rng.randint(2, 6)):
                kind = rng.choice(["text", "text", "call"])
                plans = []
                if kind == "text":
                    m = Msg(rid, "%s_m%d" % (name, j))
                    ds = deltas(rng, rng.randint(1, 5))
                    m.texts = ds
                    plans.append((m, [[text(d)] for d in ds], "assistant"))
                else:
                    cid = "call_%s_%d" % (name, j)
                    m = Msg(rid, "%s_c%d" % (name, j))
                    m.texts = None
                    args = {"q": rng.choice(WORDS), "n": rng.randint(1, 99)}
                    m.expect_contents = [call(cid, "tool_" + name, args)]
                    plans.append((m, [[call(cid, "tool_" + name, args)]], "assistant"))
                    r = Msg(rid, "%s_r%d" % (name, j))
                    r.texts = None
                    val = {"ok": True, "items": [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]}
                    r.expect_contents = [fresult(cid, val)]
                    plans.append((r, [[fresult(cid, val)]], "tool"))
                for m, contents_list, role in plans:
                    created = None
                    if mode == "all" or (mode == "mixed" and rng.random() < 0.5):
                        created = base + rng.randint(0, 30)
                    where = rng.choice(["first", "every", "later"])
                    seq = []
                    for d, contents in enumerate(contents_list):
                        u = mk(responseId=rid, messageId=m.mid, agentId=aid if rng.random() < 0.8 or d == 0 else OMIT,
                               authorName=name if d == 0 and k % 2 == 0 else OMIT,
                               role=role if d == 0 or rng.random() < 0.3 else OMIT, contents=contents)
                        if created is not None and (where == "every" or (where == "first" and d == 0) or
                                                    (where == "later" and d == min(1, len(contents_list) - 1))):
                            u["createdAt"] = random_stamp(rng, created)
                        seq.append((u, m))
                    msg_seqs.append(seq)
            agent_seqs.append(interleave(rng, msg_seqs) if parallel else [x for s in msg_seqs for x in s])
        stream = interleave(rng, agent_seqs)
        plan = Plan()
        for u, m in stream:
            plan.add(u, m)
        primary = stream[0][1].group
        if dangling:
            dangle(plan, rng, 0.35, primary)
        plan.resolve()
        plain_text_expectations(plan)
        primary_agent = next(m.agent for m in plan.msgs if m.group == primary and m.agent)
        fields = {"responseId": primary, "agentId": primary_agent, "createdAt": plan.earliest_created() or "@absent"}
        order = plan.order()
        for i in sorted(set([0, len(order) // 2, len(order) - 1])):
            fields["messages[%d].agentId" % i] = order[i].agent
        rules = ["I3", "G1", "M2", "M5", "R3", "C1", "D1"]
        if mode == "none":
            rules += ["R5"]  # no createdAt may come from the clock
        if mode != "none":
            rules += ["O1", "O2", "K1", "R4"]
        if mode == "mixed":
            rules += ["I2", "O3"]
        if dangling:
            rules += ["M1", "W3"]
        desc = ("%d agents (distinct responseIds and agentIds) interleave %d messages in %d streamed updates%s%s%s; "
                "each ResponseId's messages must stay contiguous, groups in first-arrival order, and inside a group %s."
                % (n_agents, len(plan.msgs), len(plan.items),
                   {"none": ", no timestamps (none may appear in the answer: R5)", "all": ", every message timestamped (ties, several offsets)",
                    "mixed": ", about half the messages timestamped"}[mode],
                   ", each agent's messages streamed in parallel" if parallel else "",
                   ", the primary agent's later updates dangling (responseId absent, null or \"\")" if dangling else "",
                   {"none": "arrival order", "all": "chronological order, ties by arrival",
                    "mixed": "the O3 earliest-placement order"}[mode]))
        CASES.append(Case("many_agents", n + 1, "I3", rules, seed, desc, plan, fields))


# ---------------------------------------------------------------- C2 / C1 / R2: long streams
def fam_long_text():
    for n, size in enumerate([500, 1200, 2000, 3000]):
        seed = 2000 + n
        rng = random.Random(seed)
        rid = "resp_long_text_%d" % n
        n_msgs = rng.randint(2, 5)
        plan = Plan()
        per = [size // n_msgs] * n_msgs
        per[-1] += size - sum(per) - 1
        roles = ["assistant", "user", "assistant", "assistant", "user"]
        for j in range(n_msgs):
            m = Msg(rid, "msg_%d_%d" % (n, j))
            m.texts = None
            count = per[j]
            n_reason = rng.randint(0, count // 3) if rng.random() < 0.6 else 0
            protected_end = n_reason and rng.random() < 0.5
            rtexts = deltas(rng, n_reason)[:n_reason] if n_reason else []
            ttexts = deltas(rng, count - len(rtexts))[:count - len(rtexts)]
            while len(rtexts) + len(ttexts) < count:
                ttexts.append(" " + rng.choice(WORDS))
            created = random_stamp(rng, BASE + j * 60) if n % 2 == 0 else OMIT
            contents = []
            for i, r in enumerate(rtexts):
                c = reasoning(r)
                if protected_end and i == len(rtexts) - 1:
                    c["protectedData"] = "PD%d" % j
                contents.append(c)
            for t in ttexts:
                c = text(t)
                roll = rng.random()
                if roll < 0.05:
                    c["annotations"] = []
                elif roll < 0.08:
                    c["additionalProperties"] = None
                elif roll < 0.1:
                    c["additionalProperties"] = {}
                contents.append(c)
            for i, c in enumerate(contents):
                plan.add(mk(responseId=rid, messageId=m.mid, role=roles[j] if i == 0 else OMIT,
                            createdAt=created if i == 0 else OMIT, contents=[c]), m)
            exp = []
            if rtexts:
                r = reasoning("".join(rtexts))
                if protected_end:
                    r["protectedData"] = "PD%d" % j
                exp.append(r)
            if ttexts:  # the merged text keeps the first delta's other members (C2)
                exp.append(dict(contents[len(rtexts)], text="".join(ttexts)))
            m.expect_contents = exp
        plan.add(mk(responseId=absent_id(rng), finishReason="stop",
                    contents=[usage(inputTokenCount=size, outputTokenCount=2 * size, totalTokenCount=3 * size)]),
                 CONT, rid)
        strip_mids(plan, rng, 0.5)
        plan.resolve()
        fields = {"responseId": rid, "finishReason": "stop", "usage.inputTokenCount": size,
                  "usage.outputTokenCount": 2 * size, "usage.totalTokenCount": 3 * size}
        for i, m in enumerate(plan.order()):
            fields["messages[%d].contents[%d]" % (i, len(m.expect_contents))] = "@absent"
        desc = ("%d updates stream %d messages as reasoning and text deltas (about half without messageId, some "
                "deltas with null/empty members); each run must coalesce into one reasoning and one text content "
                "(C2), protectedData ending a run, and the final dangling usage/finish update must fold into the "
                "response." % (len(plan.items), n_msgs))
        CASES.append(Case("long_text", n + 1, "C2", ["C2", "C1", "M2", "M3", "M1", "R1", "R2", "W3"], seed, desc,
                          plan, fields))


def fam_long_calls():
    for n, size in enumerate([600, 1300, 2200, 3000]):
        seed = 2100 + n
        rng = random.Random(seed)
        rid = "resp_long_calls_%d" % n
        plan = Plan()
        t = 0
        while len(plan.items) < size - 20:
            a = Msg(rid, "asst_%d" % t)
            a.texts = None
            pre = deltas(rng, rng.randint(1, 12))
            calls = []
            for k in range(rng.randint(1, 3)):
                cid = "call_%d_%d" % (t, k)
                calls.append(call(cid, rng.choice(["search", "read_file", "sum", "lookup"]),
                                  {"arg": rng.choice(WORDS), "k": k, "deep": {"list": [t, k, None, True]}}))
            post = deltas(rng, rng.randint(0, 3)) if rng.random() < 0.4 else []
            i = 0
            for d in pre:
                plan.add(mk(responseId=rid, messageId=a.mid, role="assistant" if i == 0 else OMIT,
                            contents=[text(d)]), a)
                i += 1
            for c in calls:
                plan.add(mk(responseId=rid, messageId=a.mid, contents=[c]), a)
            for d in post:
                plan.add(mk(responseId=rid, messageId=a.mid, contents=[text(d)]), a)
            a.expect_contents = [text("".join(pre))] + calls + ([text("".join(post))] if post else [])
            r = Msg(rid, "tool_%d" % t)
            r.texts = None
            results = [fresult(c["callId"], rng.choice(["ok", 42, {"rows": rng.randint(0, 9)}, [1, "two"], None]))
                       for c in calls]
            rng.shuffle(results)
            for i, res in enumerate(results):
                plan.add(mk(responseId=rid, messageId=r.mid, role="tool" if i == 0 else OMIT, contents=[res]), r)
            r.expect_contents = results
            t += 1
        final = Msg(rid, "asst_final")
        final.texts = deltas(rng, size - len(plan.items) - 1)
        for i, d in enumerate(final.texts):
            plan.add(mk(responseId=rid, messageId=final.mid, role="assistant" if i == 0 else OMIT,
                        contents=[text(d)]), final)
        plan.add(mk(finishReason="stop"), CONT, rid)
        strip_mids(plan, rng, 0.3)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rid, "finishReason": "stop", "messages[0].contents[1].callId": "call_0_0"}
        desc = ("%d updates: %d assistant turns, each text deltas then 1-3 function calls (own updates) and a tool "
                "message whose results arrive shuffled; every call and result must appear once, in arrival order, "
                "text runs around calls merged separately." % (len(plan.items), t))
        CASES.append(Case("long_calls", n + 1, "C1", ["C1", "C2", "M2", "M3", "I2", "R1"], seed, desc, plan, fields))


def fam_long_usage():
    for n, size in enumerate([500, 900, 1500, 2500]):
        seed = 2200 + n
        rng = random.Random(seed)
        rids = ["resp_usage_%d" % n, "resp_usage_%d_b" % n]
        plan = Plan()
        counters = ["inputTokenCount", "outputTokenCount", "totalTokenCount", "cachedInputTokenCount",
                    "reasoningTokenCount", "inputAudioTokenCount", "inputTextTokenCount", "outputAudioTokenCount",
                    "outputTextTokenCount"]
        extras_keys = ["cache_write", "web_search_calls", "tool_tokens", "image_tokens"]
        sums, add_sums, last_tier = {}, {}, None
        n_usages = size // 4
        cap = INT64_MAX // (n_usages + 2) if n == 3 else 5000
        usage_slots = set(rng.sample(range(size - 1), n_usages))
        msgs = {rid: [] for rid in rids}
        cur = {}
        big_counter = "totalTokenCount"
        for i in range(size - 1):
            rid = rids[0] if rng.random() < 0.7 or i == 0 else rids[1]
            if rid not in cur or rng.random() < 0.02:
                m = Msg(rid, "%s_m%d" % (rid[5:], len(msgs[rid])))
                msgs[rid].append(m)
                cur[rid] = m
            m = cur[rid]
            contents = []
            standalone = i in usage_slots and rng.random() < 0.5 and i > 0
            if not standalone:
                d = " " + rng.choice(WORDS) if m.texts else rng.choice(WORDS)
                m.texts.append(d)
                contents.append(text(d))
            if i in usage_slots:
                det = {}
                for c in rng.sample(counters, rng.randint(1, 4)):
                    v = rng.randint(0, cap)
                    roll = rng.random()
                    if roll < 0.1:
                        det[c] = None
                        continue
                    det[c] = str(v) if roll < 0.4 else v
                    sums[c] = sums.get(c, 0) + v
                if rng.random() < 0.4:
                    ac = {}
                    for k in rng.sample(extras_keys, rng.randint(1, 3)):
                        v = rng.randint(0, 1000)
                        ac[k] = v
                        add_sums[k] = add_sums.get(k, 0) + v
                    det["additionalCounts"] = ac
                if rng.random() < 0.1:
                    last_tier = rng.choice(["standard", "priority", "flex"])
                    det["serviceTier"] = last_tier
                contents.insert(rng.randint(0, len(contents)), usage(**det))
            if standalone and rng.random() < 0.3 and rid == rids[0]:
                plan.add(mk(responseId=absent_id(rng), contents=contents), CONT, rid)
            else:
                plan.add(mk(responseId=rid, messageId=m.mid, role="assistant", contents=contents), m)
        if n == 3:  # the last usage brings the big counter to exactly INT64_MAX (no overflow: R2)
            top = INT64_MAX - sums.get(big_counter, 0)
            sums[big_counter] = INT64_MAX
            last_u = usage(**{big_counter: str(top)})
        else:
            last_u = usage(outputTokenCount=7)
            sums["outputTokenCount"] = sums.get("outputTokenCount", 0) + 7
        plan.add(mk(responseId=absent_id(rng), finishReason="length", contents=[last_u]), CONT, rids[0])
        strip_mids(plan, rng, 0.4)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rids[0], "finishReason": "length"}
        for c, v in sums.items():
            fields["usage." + c] = v
        for k, v in add_sums.items():
            fields["usage.additionalCounts." + k] = v
        if last_tier:
            fields["usage.serviceTier"] = last_tier
        for c in counters:
            if c not in sums:
                fields["usage." + c] = "@absent"
        desc = ("%d updates in two groups, %d of them carrying usage (in text updates, standalone, dangling), counters "
                "as integers, strings and nulls, additionalCounts and an extra details member%s: the response's usage "
                "must be the per-counter sum, and no usage content may stay in a message."
                % (len(plan.items), n_usages + 1, ", one counter summing to exactly INT64_MAX" if n == 3 else ""))
        CASES.append(Case("long_usage", n + 1, "R2", ["R2", "C1", "W3", "M1", "M3", "I3", "R1"], seed, desc, plan,
                          fields))


# ---------------------------------------------------------------- O1 / O2 / I2 / O3: timestamps
def simple_messages(rng, plan, rid, count, created_for, n_updates=(1, 1), prefix="m", parallel=False,
                    role_choices=("assistant",), agent=OMIT):
    """count keyed text messages; created_for(j) gives a list (one per update) of createdAt texts or None."""
    seqs = []
    msgs = []
    for j in range(count):
        m = Msg(rid, "%s%02d" % (prefix, j))
        k = rng.randint(*n_updates)
        m.texts = deltas(rng, k)[:k]
        while len(m.texts) < k:
            m.texts.append("x")
        stamps = created_for(j, k)
        role = rng.choice(role_choices)
        seq = []
        for i, d in enumerate(m.texts):
            u = mk(responseId=rid, messageId=m.mid, agentId=agent, role=role if i == 0 else OMIT,
                   createdAt=stamps[i] if stamps[i] is not None else OMIT, contents=[text(d)])
            seq.append((u, m))
        seqs.append(seq)
        msgs.append(m)
    stream = interleave(rng, seqs) if parallel else [x for s in seqs for x in s]
    return stream, msgs


def same_instant_forms(rng, seconds):
    """The instant written in many ways: Z, +00:00, -00:00, no offset, other offsets, fractions of zeros."""
    off = rng.choice([0, 0, 0, 60, -300, 330, 345, -570, 1439, -1439, 840, -720])
    style = random_style(rng, off)
    text_ = stamp(seconds, 0, rng.choice([0, 0, 1, 7, 16]), off, style)
    if style == "offset" and off == 0 and rng.random() < 0.3:
        text_ = text_[:-6] + "-00:00"
        INSTANT_OF[text_] = (seconds, 0)
    return text_


def fam_ts_equal():
    for n in range(5):
        seed = 3000 + n
        rng = random.Random(seed)
        rid = "resp_ts_equal_%d" % n
        inst = BASE + 86400 * rng.randint(0, 300)
        count = rng.randint(8, 30)
        p_none = [0.0, 0.3, 0.2, 0.4, 0.0][n]
        plan = Plan()

        def created_for(j, k):
            if rng.random() < p_none:
                return [None] * k
            return [same_instant_forms(rng, inst) if i == 0 or rng.random() < 0.3 else None for i in range(k)]

        stream, msgs = simple_messages(rng, plan, rid, count, created_for, (1, 3), parallel=n % 2 == 1)
        if n >= 3:  # one more message, 1e-16 s earlier, arrives last: O1 puts it first
            m = Msg(rid, "m_earlier")
            m.texts = ["earlier"]
            stream.append((mk(responseId=rid, messageId=m.mid,
                              createdAt=stamp(inst - 1, 10 ** 16 - 1, 16, rng.choice([0, 120, -60])),
                              contents=[text("earlier")]), m))
        for u, m in stream:
            plan.add(u, m)
        plan.resolve()
        plain_text_expectations(plan)
        order = plan.order()
        if n < 3:  # all ties: arrival order, stated directly
            assert [m.first for m in order] == sorted(m.first for m in order)
        fields = {"responseId": rid, "createdAt": plan.earliest_created() or "@absent"}
        for i, m in enumerate(order):
            fields["messages[%d].createdAt" % i] = m.created or "@absent"
        desc = ("%d messages (%s) whose timestamps all denote one instant written as Z, +00:00, -00:00, no offset, "
                "other offsets and zero fractions%s: ties must keep arrival order (O2), each message its own text (K1)%s."
                % (len(plan.msgs), "some untimestamped" if p_none else "all timestamped",
                   ", deltas interleaved" if n % 2 else "",
                   "; a message 1e-16 s earlier arriving last comes first (O1)" if n >= 3 else ""))
        rules = ["O2", "K1", "W4", "R4"] + (["I2", "O3"] if p_none else []) + (["O1"] if n >= 3 else [])
        CASES.append(Case("ts_equal", n + 1, "O2", rules, seed, desc, plan, fields))


def fam_ts_offsets():
    for n in range(5):
        seed = 3100 + n
        rng = random.Random(seed)
        rid = "resp_ts_offsets_%d" % n
        count = rng.randint(10, 40)
        pool = [BASE + rng.randint(-2 * 86400, 2 * 86400) for _ in range(max(3, count // 2))]
        plan = Plan()

        def created_for(j, k):
            sec = rng.choice(pool)
            frac = rng.choice([0, 0, 5 * 10 ** 15, 1234567 * 10 ** 9, 1])
            off = rng.randint(-1439, 1439) if rng.random() < 0.5 else rng.choice([0, 330, 345, -570, 840, -720])
            t = random_stamp(rng, sec, frac, [off])
            return [t] + [random_stamp(rng, sec, frac) if rng.random() < 0.5 else None for _ in range(k - 1)]

        stream, msgs = simple_messages(rng, plan, rid, count, created_for, (1, 3), parallel=True)
        for u, m in stream:
            plan.add(u, m)
        plan.resolve()
        plain_text_expectations(plan)
        order = plan.order()
        assert [m.first for m in order] == [m.first for m in sorted(plan.msgs, key=lambda m: (m.instant, m.first))]
        fields = {"responseId": rid, "createdAt": plan.earliest_created()}
        for i in range(0, len(order), 3):
            fields["messages[%d].createdAt" % i] = order[i].created
        desc = ("%d timestamped messages arriving out of order, instants drawn from %d values and written with UTC "
                "offsets from -23:59 to +23:59, several instants shared across offsets: chronological by instant (O1), "
                "ties by arrival (O2), texts as written." % (len(plan.msgs), len(pool)))
        CASES.append(Case("ts_offsets", n + 1, "O1", ["O1", "O2", "W4", "K1", "R4"], seed, desc, plan, fields))


def fam_ts_extreme():
    for n in range(5):
        seed = 3200 + n
        rng = random.Random(seed)
        rid = "resp_ts_extreme_%d" % n
        y1 = datetime.datetime(1, 1, 1)
        y9999 = datetime.datetime(9999, 12, 31, 23, 59, 59)
        candidates = [
            lambda: stamp_local(y1, 0, 0, 0, "Z"),
            lambda: stamp_local(y1, 0, 0, 1439, "offset"),  # before year 1 once the offset is applied
            lambda: stamp_local(y1 + datetime.timedelta(hours=5), 0, 0, 300, "offset"),  # == 0001-01-01T00:00Z
            lambda: stamp_local(y1 + datetime.timedelta(hours=12), 0, 0, -300, "offset"),
            lambda: stamp_local(y1, 1, 16, 0, "none"),
            lambda: stamp_local(y9999, 9999999 * 10 ** 9, 7, 0, "Z"),
            lambda: stamp_local(y9999, 10 ** 16 - 1, 16, -1439, "offset"),  # after year 9999
            lambda: stamp_local(y9999 - datetime.timedelta(hours=14), 0, 0, 0, "offset"),
            lambda: stamp_local(datetime.datetime(9999, 12, 31, 10, 0, 0), 0, 0, 0, "Z"),  # the one above + 1 s
            lambda: stamp_local(datetime.datetime(9999, 12, 31), 0, 0, 840, "offset"),
            lambda: random_stamp(rng, BASE + rng.randint(0, 1000)),
            lambda: random_stamp(rng, BASE, rng.choice([1, 10 ** 15, 0])),
            lambda: stamp_local(datetime.datetime(1969, 12, 31, 23, 59, 59), 10 ** 16 - 1, 16, 0, "Z"),
            lambda: stamp_local(datetime.datetime(1970, 1, 1), 0, 0, 0, "Z"),
        ]
        count = rng.randint(10, 24)
        p_none = [0.0, 0.25, 0.4, 0.15, 0.3][n]
        plan = Plan()

        def created_for(j, k):
            if rng.random() < p_none:
                return [None] * k
            return [rng.choice(candidates)()] + [None] * (k - 1)

        stream, msgs = simple_messages(rng, plan, rid, count, created_for, (1, 2), parallel=n % 2 == 0)
        for u, m in stream:
            plan.add(u, m)
        plan.resolve()
        plain_text_expectations(plan)
        order = plan.order()
        fields = {"responseId": rid, "createdAt": plan.earliest_created() or "@absent"}
        for i, m in enumerate(order):
            fields["messages[%d].createdAt" % i] = m.created or "@absent"
        rules = ["O1", "O2", "W4", "K1", "R4"] + (["I2", "O3"] if p_none else [])
        desc = ("%d messages with createdAt at the edges of the calendar — year 0001 and year 9999, offsets up to "
                "+-23:59 that put the instant outside years 1-9999, 16-digit fractions, the epoch%s: ordered by "
                "instant, ties by arrival, response createdAt the earliest." %
                (len(plan.msgs), ", some untimestamped (placed by O3)" if p_none else ""))
        CASES.append(Case("ts_extreme", n + 1, "O1", rules, seed, desc, plan, fields))


def fam_ts_untimed():
    """Mostly untimestamped messages with a few timestamped ones whose times go backwards."""
    for n in range(5):
        seed = 3300 + n
        rng = random.Random(seed)
        rid = "resp_ts_untimed_%d" % n
        count = rng.randint(10, 30)
        plan = Plan()
        t = [BASE + 1000]

        def created_for(j, k):
            if rng.random() < 0.75:
                return [None] * k
            t[0] -= rng.randint(0, 100)  # backwards (or equal)
            return [random_stamp(rng, t[0])] + [None] * (k - 1)

        stream, msgs = simple_messages(rng, plan, rid, count, created_for, (1, 3),
                                       role_choices=("assistant", "tool", "user"))
        for u, m in stream:
            plan.add(u, m)
        plan.resolve()
        plain_text_expectations(plan)
        untimed = [m.mid for m in plan.order() if m.instant is None]
        assert untimed == [m.mid for m in sorted(plan.msgs, key=lambda m: m.first) if m.instant is None]
        fields = {"responseId": rid, "createdAt": plan.earliest_created() or "@absent"}
        for i, m in enumerate(plan.order()):
            fields["messages[%d].createdAt" % i] = m.created or "@absent"
        desc = ("%d sequential messages, about a quarter timestamped with times that go backwards: untimestamped ones "
                "keep arrival order among themselves (I2.a) and stay after the message they arrived after (I2.b), "
                "timestamped ones chronological." % len(plan.msgs))
        CASES.append(Case("ts_untimed", n + 1, "I2", ["I2", "O1", "O2", "O3", "K1", "R4"], seed, desc, plan, fields))


def fam_ts_mixed():
    for n in range(6):
        seed = 3400 + n
        rng = random.Random(seed)
        n_groups = [1, 2, 3, 1, 2, 3][n]
        rids = ["resp_mix_%d_%s" % (n, chr(ord("a") + g)) for g in range(n_groups)]
        plan = Plan()
        pool = [BASE + rng.randint(0, 40) for _ in range(8)]
        seqs = []
        for rid in rids:
            def created_for(j, k):
                roll = rng.random()
                if roll < 0.35:
                    return [None] * k
                sec = rng.choice(pool)
                if roll < 0.55 and k > 1:  # createdAt only on a later update of the message
                    pos = rng.randint(1, k - 1)
                    return [None] * pos + [random_stamp(rng, sec)] + [None] * (k - pos - 1)
                out = [random_stamp(rng, sec)]
                for _ in range(k - 1):  # later updates may carry other times: the first one counts (K1)
                    out.append(random_stamp(rng, rng.choice(pool) - 50) if rng.random() < 0.4 else None)
                return out

            stream, msgs = simple_messages(rng, plan, rid, rng.randint(6, 20), created_for, (1, 4),
                                           prefix=rid[-1] + "m", parallel=True,
                                           role_choices=("assistant", "tool"))
            seqs.append(stream)
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rids[0], "createdAt": plan.earliest_created() or "@absent"}
        for i, m in enumerate(plan.order()):
            fields["messages[%d].createdAt" % i] = m.created or "@absent"
        desc = ("%d group(s), %d interleaved messages: untimestamped, timestamped on the first update, timestamped only "
                "on a later update, or with later updates carrying other (earlier) times; the message's createdAt is "
                "its first (K1), the order O3's earliest placement, the response createdAt the earliest of all updates."
                % (n_groups, len(plan.msgs)))
        rules = ["O3", "O1", "O2", "I2", "K1", "R4", "D1"] + (["I3"] if n_groups > 1 else [])
        CASES.append(Case("ts_mixed", n + 1, "O3", rules, seed, desc, plan, fields))


# ---------------------------------------------------------------- M1..M4: ids
def fam_dangling():
    for n in range(6):
        seed = 4000 + n
        rng = random.Random(seed)
        no_ids = n == 5
        n_groups = 1 if no_ids else rng.randint(2, 4)
        rids = ["resp_dg_%d_%d" % (n, g) for g in range(n_groups)]
        seqs = []
        for g, rid in enumerate(rids):
            msgs = []
            seq = []
            for j in range(rng.randint(3, 7)):
                m = Msg(rid, "g%d_m%d" % (g, j))
                m.texts = deltas(rng, rng.randint(1, 4))
                for i, d in enumerate(m.texts):
                    seq.append((mk(responseId=rid, messageId=m.mid, role="assistant" if i == 0 else OMIT,
                                   contents=[text(d)]), m))
                msgs.append(m)
            seqs.append(seq)
        stream = interleave(rng, seqs)
        plan = Plan()
        # metadata-only dangling updates first and last (M6: no phantom message; they join the primary group)
        primary = stream[0][1].group
        plan.add(mk(responseId=absent_id(rng), contents=None if rng.random() < 0.5 else [],
                    modelId="model-%d" % n), None, primary)
        for u, m in stream:
            plan.add(u, m)
        plan.add(mk(responseId=absent_id(rng), messageId=absent_id(rng), finishReason="stop",
                    contents=[usage(outputTokenCount=len(stream))]), CONT, primary)
        if no_ids:
            for item in plan.items:
                v = absent_id(rng)
                if v is OMIT:
                    item[0].pop("responseId", None)
                else:
                    item[0]["responseId"] = v
        else:
            dangle(plan, rng, 0.5, primary)
        strip_mids(plan, rng, 0.3)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": "@derived" if no_ids else primary, "finishReason": "stop", "modelId": "model-%d" % n,
                  "usage.outputTokenCount": len(stream)}
        first_dangling = "responseId" not in plan.items[1][0] or not plan.items[1][0]["responseId"]
        desc = ("%s: dangling updates (responseId absent, null or \"\") anywhere in the primary group's stream, "
                "including a metadata-only first update and a dangling final finish/usage update; they join the "
                "primary group in arrival order (M1), never moved last, and create no phantom message (M6)%s."
                % ("no update names a ResponseId, so the response gets a derived one (I1)" if no_ids else
                   "%d interleaved groups" % n_groups,
                   "; the first keyed update is dangling too" if first_dangling and not no_ids else ""))
        rules = ["M1", "I1", "M6", "W3", "R1", "R2", "R6"] + (["R5"] if no_ids else ["I3"])
        CASES.append(Case("dangling", n + 1, "M1", rules, seed, desc, plan, fields))


def fam_null_mid():
    roles = ["assistant", "user", "tool", "system"]
    for n in range(6):
        seed = 4100 + n
        rng = random.Random(seed)
        n_groups = rng.randint(1, 3) if n else 1
        rids = ["resp_nm_%d_%d" % (n, g) for g in range(n_groups)]
        seqs = []
        for g, rid in enumerate(rids):
            seq = []
            prev_role = None
            for j in range(rng.randint(3, 8)):
                keyed = rng.random() < 0.4
                role = rng.choice([r for r in roles if r != prev_role])
                prev_role = role
                label = "g%d_u%d:" % (g, j)
                m = Msg(rid, "g%d_k%d" % (g, j) if keyed else None, None)
                ds = [label] + deltas(rng, rng.randint(0, 4))
                m.texts = ds
                m.label = "".join(ds)
                for i, d in enumerate(ds):
                    # an unkeyed message opens by contradicting the previous one's role (M4) or as the
                    # group's first update; its continuations carry no role or the same role
                    u = mk(responseId=rid, messageId=m.mid if keyed else absent_id(rng),
                           role=role if i == 0 or rng.random() < 0.3 else OMIT, contents=[text(d)])
                    if not keyed and i > 0 and rng.random() < 0.3:
                        u["role"] = role.upper() if rng.random() < 0.5 else role.capitalize()
                    seq.append((u, m))
            seqs.append(seq)
        plan = Plan()
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        strip_mids(plan, rng, 0.7)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": plan.items[0][2]}  # the first update's id is the primary (I1)
        for i, m in enumerate(plan.order()):
            fields["messages[%d].role" % i] = m.role
        desc = ("%d group(s) interleaved; messages mostly without messageId (absent, null or \"\"): an id-less update "
                "continues the message its group's previous update went to (M3) even when other groups' updates came "
                "in between, and a role change opens a new message (M4); case-only role changes do not split."
                % n_groups)
        CASES.append(Case("null_mid", n + 1, "M3", ["M3", "M4", "M5", "W3", "C2"] + (["I3"] if n_groups > 1 else []),
                          seed, desc, plan, fields))


def fam_reused_mid():
    for n in range(6):
        seed = 4200 + n
        rng = random.Random(seed)
        n_groups = rng.randint(1, 3)
        rids = ["resp_ru_%d_%d" % (n, g) for g in range(n_groups)]
        shared = ["msg_%d" % k for k in range(rng.randint(2, 6))]  # the same ids in every group
        seqs = []
        for rid in rids:
            msgs = [Msg(rid, mid) for mid in shared]
            per = []
            for m in msgs:
                m.texts = ["[%s|%s]" % (rid[-1], m.mid)] + deltas(rng, rng.randint(1, 6))
                per.append([(mk(responseId=rid, messageId=m.mid, role="assistant" if i == 0 else OMIT,
                                authorName=rng.choice([OMIT, "", None]), contents=[text(d)]), m)
                            for i, d in enumerate(m.texts)])
            seqs.append(interleave(rng, per))  # ids return after other messages' updates (M2)
        plan = Plan()
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        strip_mids(plan, rng, 0.15)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": plan.items[0][2]}  # the first update's id is the primary (I1)
        desc = ("%d group(s) each using the message ids %s, their updates interleaved so ids return after other "
                "messages' updates: one message per (group, id) (M2), ids of different groups never merged, contents "
                "in arrival order." % (n_groups, ", ".join(shared)))
        CASES.append(Case("reused_mid", n + 1, "M2", ["M2", "M1", "I3", "C1", "C2", "W3"], seed, desc, plan, fields))


def fam_role_change():
    for n in range(6):
        seed = 4300 + n
        rng = random.Random(seed)
        rid = "resp_rc_%d" % n
        plan = Plan()
        what = ["role", "author", "agent", "role", "author", "agent"][n]
        segs = []
        j = 0
        prev_val = None
        values = {"role": ["assistant", "tool", "user", "system", "critic"],
                  "author": ["alice", "bob", "carol", "dave"],
                  "agent": ["agent_a", "agent_b", "agent_c"]}[what]
        for s in range(rng.randint(4, 9)):
            val = rng.choice([v for v in values if v != prev_val])
            prev_val = val
            keyed = rng.random() < 0.5 and s > 0
            # a keyed segment reuses the previous segment's id when that had one: the change splits it
            mid = segs[-1].mid if keyed and segs and segs[-1].mid and rng.random() < 0.7 else ("seg%d" % s if keyed else None)
            m = Msg(rid, mid)
            m.texts = ["<%d>" % s] + deltas(rng, rng.randint(0, 3))
            m.label = "".join(m.texts)
            for i, d in enumerate(m.texts):
                f = {}
                named = i == 0 or rng.random() < 0.5
                if what == "role":
                    f["role"] = (val.upper() if i and rng.random() < 0.3 else val) if named else OMIT
                elif what == "author":
                    f["authorName"] = val if named else rng.choice([OMIT, "", None])
                    f["role"] = "assistant"
                else:
                    f["agentId"] = val if named else rng.choice([OMIT, ""])
                keep_id = mid is not None and (i == 0 or rng.random() < 0.5)
                plan.add(mk(responseId=rid, messageId=mid if keep_id else absent_id(rng), contents=[text(d)], **f), m)
            segs.append(m)
        plan.resolve()
        plain_text_expectations(plan)
        order = plan.order()
        fields = {"responseId": rid}
        for i, m in enumerate(order):
            if what == "role":
                fields["messages[%d].role" % i] = m.role
            elif what == "author":
                fields["messages[%d].authorName" % i] = m.author
            else:
                fields["messages[%d].agentId" % i] = m.agent
        if what == "agent":
            fields["agentId"] = order[0].agent
        desc = ("A stream of %d segments in which the %s changes between consecutive segments, with and without "
                "messageIds (ids reused across the change): every change must open a new message (M4) that keeps "
                "the id for its later updates; %s." % (len(segs), {"role": "role", "author": "authorName",
                                                                   "agent": "agentId"}[what],
                                                       "case-only role changes do not split" if what == "role" else
                                                       "updates naming no %s (absent, null or \"\") continue" % what))
        rules = ["M4", "M2", "M3", "M5"] + (["R3"] if what == "agent" else []) + (["W3"] if what != "role" else [])
        CASES.append(Case("role_change", n + 1, "M4", rules, seed, desc, plan, fields))


# ---------------------------------------------------------------- R1..R6, K1: metadata
def fam_meta_finish():
    reasons = ["stop", "length", "tool_calls", "content_filter", "custom_reason"]
    for n in range(5):
        seed = 5000 + n
        rng = random.Random(seed)
        rids = ["resp_fin_%d" % n, "resp_fin_%d_b" % n]
        plan = Plan()
        msgs = []
        last = {}
        last_finish = None
        seen_keyed = False
        for i in range(rng.randint(12, 40)):
            rid = rids[0] if rng.random() < 0.7 or not seen_keyed else rids[1]
            kind = rng.random()
            meta = {}
            fr = OMIT
            if rng.random() < 0.35:
                fr = rng.choice(reasons)
                last_finish = fr
            elif rng.random() < 0.2:
                fr = None  # null never overrides (R1)
            for k in ["continuationToken", "conversationId", "modelId"]:
                if rng.random() < 0.2:
                    # a continuation token is base64 on the wire (MEAI-WIRE.md): .NET reads no other
                    value = "%s_%d" % (k[:4], i)
                    if k == "continuationToken":
                        value = base64.b64encode(value.encode()).decode()
                    meta[k] = rng.choice([None, value])
                    if meta[k] is not None:
                        last[k] = meta[k]
            if kind < 0.3 and rid == rids[0]:  # dangling metadata-only update
                plan.add(mk(responseId=absent_id(rng), finishReason=fr, contents=rng.choice([OMIT, None, []]), **meta),
                         CONT, rids[0])
            else:
                m = Msg(rid, "%s_m%d" % (rid[-1], i))
                m.texts = [rng.choice(WORDS)]
                msgs.append(m)
                seen_keyed = True
                plan.add(mk(responseId=rid, messageId=m.mid, finishReason=fr, contents=[text(m.texts[0])], **meta), m)
        if n % 2 == 0:  # a dangling last word
            last_finish = rng.choice(reasons)
            plan.add(mk(responseId=absent_id(rng), finishReason=last_finish), CONT, rids[0])
        if plan.items[0][1] is CONT:  # a metadata-only first update opens no message (M6)
            plan.items[0][1] = None
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rids[0], "finishReason": last_finish or "@absent"}
        for k in ["continuationToken", "conversationId", "modelId"]:
            fields[k] = last.get(k, "@absent")
        desc = ("%d updates in two groups; finishReason (and continuationToken, conversationId, modelId) on dangling "
                "metadata-only and on ordinary updates, some null: the response keeps the last non-null value of each "
                "(R1, R6), and metadata-only updates create no message (M6)." % len(plan.items))
        CASES.append(Case("meta_finish", n + 1, "R1", ["R1", "R6", "M1", "M6", "W3", "I3"], seed, desc, plan, fields))


def fam_meta_usage():
    for n in range(5):
        seed = 5100 + n
        rng = random.Random(seed)
        rids = ["resp_use_%d" % n, "resp_use_%d_b" % n]
        plan = Plan()
        sums, adds, extra = {}, {}, {}
        counters = ["inputTokenCount", "outputTokenCount", "totalTokenCount", "cachedInputTokenCount",
                    "reasoningTokenCount", "outputTextTokenCount"]
        cur = {}
        for i in range(rng.randint(10, 30)):
            rid = rids[0] if rng.random() < 0.6 or not cur else rids[1]
            det = {}
            for c in rng.sample(counters, rng.randint(0, 3)):
                v = rng.randint(0, 10 ** rng.randint(1, 12))
                form = rng.random()
                det[c] = str(v) if form < 0.35 else (None if form < 0.45 else v)
                if det[c] is not None:
                    sums[c] = sums.get(c, 0) + v
            if rng.random() < 0.5:
                ac = {}
                for k in rng.sample(["cache_write", "searches", "audio_seconds", "x_tokens"], rng.randint(0, 2)):
                    v = rng.randint(0, 500)
                    ac[k] = v
                    adds[k] = adds.get(k, 0) + v
                det["additionalCounts"] = ac
            if rng.random() < 0.15:
                k = rng.choice(["tier", "region"])
                extra[k] = rng.choice(["a", "b", 3, {"nested": True}])
                det[k] = extra[k]
            roll = rng.random()
            if roll < 0.3 and rid == rids[0]:  # dangling usage-only update
                plan.add(mk(responseId=absent_id(rng), contents=[usage(**det)]), CONT, rids[0])
            else:
                if rid not in cur or roll < 0.5:
                    cur[rid] = Msg(rid, "%s_m%d" % (rid[-1], i))
                    cur[rid].texts = []
                m = cur[rid]
                d = rng.choice(WORDS)
                m.texts.append(d)
                cs = [text(d), usage(**det)]
                if rng.random() < 0.5:
                    cs.reverse()
                plan.add(mk(responseId=rid, messageId=m.mid, contents=cs), m)
        if plan.items[0][1] is CONT:
            plan.items[0][1] = None
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rids[0]}
        for c in counters:
            fields["usage." + c] = sums.get(c, "@absent")
        for k, v in adds.items():
            fields["usage.additionalCounts." + k] = v
        for k, v in extra.items():
            fields["usage." + k] = v
        desc = ("Usage spread over %d updates of two groups (inside text updates, before or after the text, and in "
                "dangling usage-only updates), counters as integers, strings or null, additionalCounts and other "
                "details members: summed per counter and per additional count, the last other member winning (R2)."
                % len(plan.items))
        CASES.append(Case("meta_usage", n + 1, "R2", ["R2", "W3", "M1", "M6", "C1", "I3"], seed, desc, plan, fields))


def fam_meta_agent():
    for n in range(5):
        seed = 5200 + n
        rng = random.Random(seed)
        rids = ["resp_ag_%d" % n, "resp_ag_%d_b" % n, "resp_ag_%d_c" % n]
        variant = ["dangling_only", "dangling_only", "none_primary", "dangling_first", "empty_strings"][n]
        plan = Plan()
        seqs = []
        dangling_agent = "agent_dangling_%d" % n
        for g, rid in enumerate(rids):
            seq = []
            for j in range(rng.randint(2, 5)):
                m = Msg(rid, "%s_m%d" % ("pbc"[g], j))
                m.texts = deltas(rng, rng.randint(1, 3))
                for i, d in enumerate(m.texts):
                    aid = OMIT
                    if g > 0:
                        aid = "agent_%s" % "pbc"[g]
                    elif variant == "empty_strings":
                        aid = rng.choice(["", None, OMIT])
                    seq.append((mk(responseId=rid, messageId=m.mid, agentId=aid, contents=[text(d)]), m))
            seqs.append(seq)
        stream = interleave(rng, seqs, weights=[3, 1, 1])
        if stream[0][1].group != rids[0]:
            k = next(i for i, (u, m) in enumerate(stream) if m.group == rids[0])
            stream.insert(0, stream.pop(k))
        for u, m in stream:
            plan.add(u, m)
        if variant in ("dangling_only", "empty_strings"):
            # the primary group's agentId only on dangling updates keyed to its messages
            prim_msgs = [m for _, m in stream if m.group == rids[0]]
            target = rng.choice(prim_msgs)
            at = rng.randint(next(i for i, it in enumerate(plan.items) if it[1] is target) + 1, len(plan.items))
            plan.items.insert(at, [mk(responseId=absent_id(rng), messageId=target.mid, agentId=dangling_agent,
                                      contents=[]), target, rids[0]])
            expect_agent = dangling_agent
        elif variant == "dangling_first":
            m0 = Msg(rids[0], None, "opening")  # an id-less message, opened by the dangling first update
            m0.texts = ["opening"]
            plan.items.insert(0, [mk(responseId=absent_id(rng), agentId=dangling_agent,
                                     contents=[text("opening")]), m0, rids[0]])
            expect_agent = dangling_agent
        else:
            expect_agent = "agent_" + "pbc"[1 if stream.index(next(x for x in stream if x[1].group == rids[1])) <
                                        stream.index(next(x for x in stream if x[1].group == rids[2])) else 2]
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rids[0], "agentId": expect_agent}
        for i, m in enumerate(plan.order()):
            fields["messages[%d].agentId" % i] = m.agent or "@absent"
        desc = {"dangling_only": "The primary group's agentId is carried only by a dangling update keyed to one of its "
                                 "messages; other groups carry theirs: the response's agentId is the dangling one (R3) "
                                 "and each message keeps its own (M5).",
                "none_primary": "No update of the primary group names an agent; two other groups do: the response's "
                                "agentId is the first non-empty one of the stream (R3), each message keeps its own.",
                "dangling_first": "The very first update is dangling, unkeyed and carries the only agentId of the "
                                  "primary group: it opens the primary group, its message keeps the agent and the "
                                  "response's agentId is it (R3, M1).",
                "empty_strings": "The primary group's ordinary updates carry agentId \"\", null or nothing; only a "
                                 "dangling keyed update names one: \"\" is no agent (W3), the dangling one is the "
                                 "response's (R3)."}[variant]
        CASES.append(Case("meta_agent", n + 1, "R3", ["R3", "M1", "M5", "I3", "W3"], seed, desc, plan, fields))


def fam_meta_created():
    for n in range(5):
        seed = 5300 + n
        rng = random.Random(seed)
        rid = "resp_cr_%d" % n
        plan = Plan()
        seqs = []
        for j in range(rng.randint(5, 14)):
            m = Msg(rid, "m%02d" % j)
            k = rng.randint(2, 5)
            m.texts = deltas(rng, k)[:k]
            while len(m.texts) < k:
                m.texts.append("y")
            where = rng.random()
            stamps = [None] * k
            if where < 0.3:
                pass  # never timestamped
            elif where < 0.6:
                pos = rng.randint(1, k - 1)  # only a later update has one
                stamps[pos] = random_stamp(rng, BASE + rng.randint(0, 60))
            else:
                for p in range(k):
                    if p == 0 or rng.random() < 0.5:
                        stamps[p] = random_stamp(rng, BASE + rng.randint(-60, 60))  # differ per update
            seqs.append([(mk(responseId=rid, messageId=m.mid, createdAt=stamps[i] if stamps[i] else OMIT,
                             contents=[text(d)]), m) for i, d in enumerate(m.texts)])
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        # a dangling metadata-only update with the earliest time of all: it sets the response's createdAt (R4)
        # and, continuing the last message (M3), that message's createdAt only if it has none yet (K1)
        early = random_stamp(rng, BASE - 3600 * (n + 1))
        plan.add(mk(responseId=absent_id(rng), createdAt=early, finishReason="stop"), CONT, rid)
        plan.resolve()
        plain_text_expectations(plan)
        assert plan.earliest_created() == early
        fields = {"responseId": rid, "createdAt": early}
        for i, m in enumerate(plan.order()):
            fields["messages[%d].createdAt" % i] = m.created or "@absent"
        desc = ("%d interleaved messages whose createdAt is on some updates only — none, a later update only, or "
                "different times on several — plus a final dangling update with the earliest time: each message keeps "
                "its first createdAt as written (K1), the response the earliest of all updates (R4)." % len(plan.msgs))
        CASES.append(Case("meta_created", n + 1, "K1", ["K1", "R4", "O1", "O2", "O3", "I2", "M1", "M3"], seed, desc,
                          plan, fields))


# ---------------------------------------------------------------- X1 / X2 / W5 / W7: extras, unicode
UNKNOWN_CONTENTS = [
    {"$type": "hostedFile", "fileId": "file_1", "mediaType": "text/csv"},
    {"fileId": "f2", "$type": "hostedVectorStore", "vectorStoreId": "vs_9"},
    {"$type": "data", "uri": "data:text/plain;base64,aGVsbG8=", "mediaType": "text/plain"},
    {"$type": "uri", "uri": "https://example.com/a.png", "mediaType": "image/png"},
    {"$type": "error", "message": "rate limited", "errorCode": "429", "details": "retry"},
    {"$type": "codeInterpreterToolCall", "callId": "ci_1", "inputs": [{"$type": "text", "text": "print(1)"}]},
    {"plain": True, "no": ["type", "here"]},
    {"$type": "futureThing", "nested": {"$type": "inner", "deep": [1, 2.5, {"a": None}], "e": 1e-7}},
    {"kind": "x", "$type": "mcpServerToolCall", "callId": "mcp_1", "name": "lookup", "toolName": "lookup",
     "serverName": "srv", "arguments": {"k": [True, False]}},
    {"$type": "image_generation_call", "revisedPrompt": "a fox", "size": 1024},
]


def fam_unknown_content():
    for n in range(5):
        seed = 6000 + n
        rng = random.Random(seed)
        rid = "resp_uc_%d" % n
        plan = Plan()
        for j in range(rng.randint(2, 5)):
            m = Msg(rid, "m%d" % j)
            m.texts = None
            exp = []
            run = []

            def flush():
                if run:
                    exp.append(text("".join(run)))
                    del run[:]

            for i in range(rng.randint(4, 14)):
                if rng.random() < 0.35:
                    c = json.loads(json.dumps(rng.choice(UNKNOWN_CONTENTS)))
                    if rng.random() < 0.3:  # known type with members turnstile does not model
                        c = call("c%d_%d" % (j, i), "fn", {"a": i})
                        c["extraMember"] = {"x": [i]}
                    flush()
                    exp.append(c)
                    cs = [c]
                else:
                    d = rng.choice(WORDS) + " "
                    run.append(d)
                    cs = [text(d)]
                plan.add(mk(responseId=rid, messageId=m.mid, contents=cs), m)
            flush()
            m.expect_contents = exp
        plan.resolve()
        fields = {"responseId": rid}
        desc = ("Contents of types turnstile does not model (hosted files, data, errors, future types, one without "
                "$type, $type not first, nested $type objects) between text deltas: kept verbatim in arrival order (W5, "
                "C1), written with $type first (W7), and they break text runs (C2).")
        CASES.append(Case("unknown_content", n + 1, "W5", ["W5", "C1", "C2", "W7"], seed, desc, plan, fields))


def fam_unknown_fields():
    for n in range(5):
        seed = 6100 + n
        rng = random.Random(seed)
        rid = "resp_uf_%d" % n
        plan = Plan()
        seqs = []
        for j in range(rng.randint(2, 5)):
            m = Msg(rid, "m%d" % j)
            m.texts = []
            ex = {}
            seq = []
            for i in range(rng.randint(2, 6)):
                d = rng.choice(WORDS)
                m.texts.append(d)
                extra = {}
                for k in rng.sample(["traceId", "spanId", "x-vendor", "sequenceNumber", "rawRepresentation",
                                     "isFinal", "meta"], rng.randint(0, 3)):
                    v = rng.choice(["t-%d-%d" % (j, i), i, 2.5, True, False, [i, None, "z"], {"deep": {"n": i}}, -0.0,
                                    10 ** 18, 1.5e300])
                    extra[k] = v
                    ex[k] = v
                seq.append((mk(responseId=rid, messageId=m.mid, contents=[text(d)], **extra), m))
            m.expect_extra = ex
            seqs.append(seq)
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        # a dangling, id-less update with unknown fields only: continues the last message (M3, X1)
        tail = {"traceId": "tail-%d" % n, "debug": {"level": n}}
        plan.add(mk(responseId=absent_id(rng), **tail), CONT, rid)
        plan.resolve()
        plan.items[-1][1].expect_extra.update(tail)
        plain_text_expectations(plan)
        fields = {"responseId": rid}
        last = plan.items[-1][1]
        idx = [m.mid for m in plan.order()].index(last.mid)
        fields["messages[%d].traceId" % idx] = "tail-%d" % n
        desc = ("Updates of %d interleaved messages carry update fields turnstile does not know (strings, numbers, "
                "-0, 1e18, 1.5e300, arrays, objects, booleans): each message keeps them, the last value per key "
                "winning (X1, W5); a final id-less dangling update's unknown fields land on the message it continues."
                % len(plan.msgs))
        CASES.append(Case("unknown_fields", n + 1, "X1", ["X1", "W5", "W7", "M1", "M3"], seed, desc, plan, fields))


def fam_addprops():
    for n in range(5):
        seed = 6200 + n
        rng = random.Random(seed)
        rid = "resp_ap_%d" % n
        plan = Plan()
        seqs = []
        for j in range(rng.randint(2, 5)):
            m = Msg(rid, "m%d" % j)
            m.texts = None
            ap = None
            exp = []
            run = []
            seq = []
            for i in range(rng.randint(2, 7)):
                d = rng.choice(WORDS) + " "
                c = text(d)
                content_ap = rng.random() < 0.2
                if content_ap:  # a delta with its own additionalProperties is not merged (C2)
                    c["additionalProperties"] = {"delta": i}
                    if run:
                        exp.append(text("".join(run)))
                    run = []
                    exp.append(c)
                else:
                    if exp and not run and "additionalProperties" in exp[-1] and exp[-1]["$type"] == "text":
                        # a plain delta after a first-with-additionalProperties joins its run: first's members kept
                        exp[-1] = dict(exp[-1], text=exp[-1]["text"] + d)
                    else:
                        run.append(d)
                upd_ap = OMIT
                if rng.random() < 0.6:
                    upd_ap = {}
                    for k in rng.sample(["a", "b", "c", "trace", "n"], rng.randint(1, 3)):
                        upd_ap[k] = rng.choice([i, "v%d" % i, None, [i], {"k": i}, True])
                    ap = dict(ap or {})
                    ap.update(upd_ap)
                elif rng.random() < 0.2:
                    upd_ap = None  # null is the same as absent
                seq.append((mk(responseId=rid, messageId=m.mid, contents=[c], additionalProperties=upd_ap), m))
            if run:
                exp.append(text("".join(run)))
            m.expect_contents = exp
            if ap is not None:
                m.expect_extra = {"additionalProperties": ap}
            seqs.append(seq)
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        strip_mids(plan, rng, 0.3)
        plan.resolve()
        fields = {"responseId": rid}
        desc = ("additionalProperties on %d of %d updates of %d interleaved messages (some null, some values null, "
                "overlapping keys), some id-less: merged into each message key by key, the later update winning (X2); "
                "a text delta with its own additionalProperties is not merged into the run before it (C2)."
                % (sum(1 for it in plan.items if it[0].get("additionalProperties")), len(plan.items), len(plan.msgs)))
        CASES.append(Case("addprops", n + 1, "X2", ["X2", "C2", "M3", "W3"], seed, desc, plan, fields))


UNI = {
    "emoji": ["\U0001F600", "\U0001F680", "\U0001F9EA", "\U0001F44D\U0001F3FD", "\U0001F469\u200D\U0001F4BB",
              "\U0001F1EB\U0001F1F7", "\U00010348", "\U0001D11E"],
    "combining": ["e\u0301", "a\u0308", "n\u0303", "o\u0302\u0323", "Z\u0335\u0317", "\u0915\u094D\u0937"],
    "rtl": ["\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627", "\u200f", "\u202b\u05d0\u05d1\u202c",
            "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 123", "\u05e2\u05d1\u05e8\u05d9\u05ea"],
    "other": ["\u4e2d\u6587", "\u65e5\u672c\u8a9e", "\u00e9t\u00e9", "\u00df", "\u2028", "\u00a0", "\ufeff",
              "\t", "\u0001", "\"quoted\"", "back\\slash", "\u007f"],
}


def fam_unicode():
    for n in range(5):
        seed = 6300 + n
        rng = random.Random(seed)
        rid = "resp_\u00fcnicode_%d" % n if n % 2 else "resp_unicode_%d" % n
        plan = Plan()
        seqs = []
        for j in range(rng.randint(2, 5)):
            mid = rng.choice(["msg_%d" % j, "m\u00e9ssage_%d" % j, "\u05de\u05e1\u05e8_%d" % j,
                              "\U0001F4AC_%d" % j])
            m = Msg(rid, mid)
            author = rng.choice([OMIT, "Jos\u00e9", "\u30a2\u30ea\u30b9", "\u0639\u0644\u064a"])
            m.texts = []
            seq = []
            for i in range(rng.randint(3, 10)):
                pool = rng.choice(list(UNI))
                piece = rng.choice(UNI[pool])
                if pool == "combining" and rng.random() < 0.6:
                    # base character and combining marks in two deltas: they rejoin when coalesced
                    m.texts += [piece[0], piece[1:]]
                    for d in (piece[0], piece[1:]):
                        seq.append((mk(responseId=rid, messageId=mid, authorName=author, contents=[text(d)]), m))
                    continue
                if pool == "emoji" and "\u200d" in piece and rng.random() < 0.6:
                    a, b = piece.split("\u200d", 1)  # split a ZWJ sequence at the joiner
                    m.texts += [a, "\u200d" + b]
                    for d in (a, "\u200d" + b):
                        seq.append((mk(responseId=rid, messageId=mid, authorName=author, contents=[text(d)]), m))
                    continue
                m.texts.append(piece)
                u = mk(responseId=rid, messageId=mid, authorName=author, contents=[text(piece)])
                if rng.random() < 0.2:
                    u["additionalProperties"] = {"\u00e9l\u00e8ve": piece, "\U0001F511": [piece]}
                    m.expect_extra.setdefault("additionalProperties", {}).update(u["additionalProperties"])
                seq.append((u, m))
            seqs.append(seq)
        for u, m in interleave(rng, seqs):
            plan.add(u, m)
        ascii_lines = set(i for i in range(len(plan.items)) if rng.random() < 0.5)
        plan.resolve()
        plain_text_expectations(plan)
        fields = {"responseId": rid}
        for i, m in enumerate(plan.order()):
            if len(("".join(m.texts)).encode()) < 120:
                fields["messages[%d].contents[0].text" % i] = "".join(m.texts)
        desc = ("Text deltas, message ids, author names and additionalProperties with non-BMP emoji (written as "
                "surrogate-pair escapes on about half the lines), ZWJ sequences and combining marks split across "
                "deltas, RTL text and bidi controls, control characters: coalesced back intact, written as raw UTF-8 "
                "with only quote, backslash and control characters escaped (W7)%s."
                % {0: "; the input starts with a UTF-8 byte-order mark, which is skipped (W1)",
                   1: "; lines end in CR LF (W1)"}.get(n, ""))
        CASES.append(Case("unicode", n + 1, "W7", ["W7", "C2", "X2", "M2"] + (["W1"] if n < 2 else []), seed, desc,
                          plan, fields, ascii_lines=ascii_lines, bom=n == 0, crlf=n == 1))


# ---------------------------------------------------------------- probes (never written)
def probes():
    plan = Plan()
    rid = "resp_probe_role"
    m1 = Msg(rid, "m1")
    m1.texts = ["a"]
    plan.add(mk(responseId=rid, messageId="m1", role="\u00c4rztin", contents=[text("a")]), m1)
    plan.add(mk(responseId=rid, messageId="m1", role="\u00e4RZTIN", contents=[text("b")]), m1)
    m1.texts.append("b")
    plan.resolve()
    plain_text_expectations(plan)
    CASES.append(Case("probe_role_case", 1, "M4", ["M4", "W3"], 9000,
                      "Roles that differ only in the case of a non-ASCII letter (\u00c4rztin / \u00e4RZTIN) name one "
                      "role when compared case-insensitively (W3, M4), as .NET's OrdinalIgnoreCase does.",
                      plan, {"messages[0].role": "\u00c4rztin"},
                      probe="SPEC W3/M4 say roles compare case-insensitively; the reference folds ASCII only"))


# ============================================================================ the SPEC model

TS_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,16}))?(Z|[+-]\d{2}:\d{2})?$")


def days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_instant(s):
    """W4, independently of the generator's formatting: (seconds since the epoch, 1e-16 s)."""
    mt = TS_RE.match(s)
    assert mt, s
    y, mo, d, h, mi, se = (int(mt.group(i)) for i in range(1, 7))
    frac = int((mt.group(7) or "").ljust(16, "0") or 0)
    off = 0
    if mt.group(8) and mt.group(8) != "Z":
        sign = -1 if mt.group(8)[0] == "-" else 1
        off = sign * (int(mt.group(8)[1:3]) * 60 + int(mt.group(8)[4:6]))
    return (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off * 60, frac)


def same_role(a, b):
    """Case-insensitive as .NET's OrdinalIgnoreCase: per character, simple upper-case mapping."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        ux, uy = x.upper(), y.upper()
        ux = ux if len(ux) == 1 else x
        uy = uy if len(uy) == 1 else y
        if ux != uy:
            return False
    return True


def is_nothing(v):
    return v is None or v == [] or v == {}


def coalesce(contents):
    """C2."""
    out, i = [], 0
    while i < len(contents):
        first = contents[i]
        t = first.get("$type") if isinstance(first, dict) else None
        ok = t in ("text", "reasoning") and is_nothing(first.get("annotations"))
        if t == "reasoning" and isinstance(first.get("protectedData"), str):
            ok = False
        j = i + 1
        protected = None
        if ok:
            while j < len(contents):
                nxt = contents[j]
                if not isinstance(nxt, dict) or nxt.get("$type") != t:
                    break
                allowed = {"$type", "text"} | ({"protectedData"} if t == "reasoning" else set())
                if any(k not in allowed and not is_nothing(v) for k, v in nxt.items()):
                    break
                j += 1
                if t == "reasoning" and isinstance(nxt.get("protectedData"), str):
                    protected = nxt["protectedData"]
                    break
        if j - i == 1:
            out.append(first)
        else:
            merged = dict(first)
            merged["text"] = "".join(c.get("text") or "" for c in contents[i:j])
            if protected is not None:
                merged["protectedData"] = protected
            out.append(merged)
        i = j
    return out


COUNTERS = ["inputTokenCount", "outputTokenCount", "totalTokenCount", "cachedInputTokenCount", "reasoningTokenCount",
            "inputAudioTokenCount", "inputTextTokenCount", "outputAudioTokenCount", "outputTextTokenCount"]
KNOWN = {"responseId", "messageId", "createdAt", "role", "authorName", "agentId", "finishReason", "contents",
         "additionalProperties", "continuationToken", "conversationId", "modelId"}


def spec_merge(updates):
    """SPEC.md §3, literally, on the parsed input updates. responseId "@derived" stands for I1.3."""
    ups = []
    for u in updates:
        v = {k: (None if k in KNOWN and u.get(k) is None else u.get(k)) for k in KNOWN}
        v["contents"] = u.get("contents") or []
        v["extras"] = [(k, val) for k, val in u.items() if k not in KNOWN]
        ups.append(v)
    primary = next((u["responseId"] for u in ups if nonempty(u["responseId"])), None)
    response_id = primary if primary is not None else "@derived"
    groups, group_list, messages = {}, [], []
    for a, u in enumerate(ups):
        gkey = u["responseId"] if nonempty(u["responseId"]) else response_id
        if gkey not in groups:
            groups[gkey] = {"msgs": [], "by_id": {}, "last": None}
            group_list.append(gkey)
        g = groups[gkey]

        def contradicts(m):
            if m["role"] is not None and u["role"] is not None and not same_role(m["role"], u["role"]):
                return True
            for f in ("authorName", "agentId"):
                if nonempty(m[f]) and nonempty(u[f]) and m[f] != u[f]:
                    return True
            return False

        target = None
        if nonempty(u["messageId"]):  # M2
            t = g["by_id"].get(u["messageId"])
            if t is not None and not contradicts(t):
                target = t
        elif g["last"] is not None and not contradicts(g["last"]):  # M3
            target = g["last"]
        if target is None:  # a new message (M2 unseen id, M3 first of group, M4)
            target = {"first": a, "messageId": u["messageId"] if nonempty(u["messageId"]) else None, "role": None,
                      "authorName": None, "agentId": None, "createdAt": None, "contents": [], "ap": None,
                      "extras": {}}
            g["msgs"].append(target)
            messages.append(target)
            if target["messageId"] is not None:
                g["by_id"][target["messageId"]] = target
        g["last"] = target
        m = target
        if m["role"] is None and u["role"] is not None:
            m["role"] = u["role"]
        for f in ("authorName", "agentId"):
            if not nonempty(m[f]) and nonempty(u[f]):
                m[f] = u[f]
        if m["createdAt"] is None and u["createdAt"] is not None:
            m["createdAt"] = u["createdAt"]
        m["contents"] += [c for c in u["contents"] if not (isinstance(c, dict) and c.get("$type") == "usage")]
        if u["additionalProperties"] is not None:
            m["ap"] = dict(m["ap"] or {})
            m["ap"].update(u["additionalProperties"])
        for k, val in u["extras"]:
            m["extras"][k] = val

    def written(m):  # M6
        return not (m["messageId"] is None and not m["contents"] and m["createdAt"] is None and
                    not nonempty(m["authorName"]) and not nonempty(m["agentId"]) and m["ap"] is None and
                    not m["extras"])

    ordered = []
    for gkey in group_list:  # I3, G1 (the reference's first-arrival choice)
        vis = [m for m in groups[gkey]["msgs"] if written(m)]
        T = sorted([m for m in vis if m["createdAt"] is not None],
                   key=lambda m: (parse_instant(m["createdAt"]), m["first"]))
        rank = {id(m): r for r, m in enumerate(T)}
        keys = []
        for pos, m in enumerate(vis):
            if m["createdAt"] is not None:
                keys.append(((rank[id(m)], 0, 0), m))
                continue
            # O3: the anchor is the latest timestamped message that immediately preceded, in arrival, this
            # message or an earlier untimestamped one of the group
            preceders = [vis[q - 1] for q in range(1, pos + 1)
                         if vis[q]["createdAt"] is None and vis[q - 1]["createdAt"] is not None]
            anchor = max([rank[id(p)] for p in preceders], default=-1)
            keys.append(((anchor, 1, m["first"]), m))
        ordered += [m for _, m in sorted(keys, key=lambda k: k[0])]

    resp = {"responseId": response_id}
    agent_primary = next((u["agentId"] for u in ups if nonempty(u["agentId"]) and
                          (not nonempty(u["responseId"]) or u["responseId"] == primary)), None)
    agent_any = next((u["agentId"] for u in ups if nonempty(u["agentId"])), None)
    if agent_primary or agent_any:
        resp["agentId"] = agent_primary or agent_any
    stamped = [(parse_instant(u["createdAt"]), a, u["createdAt"]) for a, u in enumerate(ups) if u["createdAt"]]
    if stamped:
        resp["createdAt"] = min(stamped)[2]
    fr = [u["finishReason"] for u in ups if u["finishReason"] is not None]
    if fr:
        resp["finishReason"] = fr[-1]
    usages = [c for u in ups for c in u["contents"] if isinstance(c, dict) and c.get("$type") == "usage"]
    if usages:
        total = {}
        adds = None
        for c in usages:
            for k, v in (c.get("details") or {}).items():
                if k in COUNTERS:
                    if v is not None:
                        total[k] = total.get(k, 0) + int(v)
                elif k == "additionalCounts":
                    if isinstance(v, dict):
                        adds = adds if adds is not None else {}
                        for ak, av in v.items():
                            adds[ak] = adds.get(ak, 0) + int(av)
                else:
                    total[k] = v
        for k in COUNTERS:
            if k in total:
                assert -2 ** 63 <= total[k] <= INT64_MAX
        if adds is not None:
            total["additionalCounts"] = adds
        resp["usage"] = total
    for k in ("continuationToken", "conversationId", "modelId"):
        vals = [u[k] for u in ups if u[k] is not None]
        if vals:
            resp[k] = vals[-1]
    out_msgs = []
    for m in ordered:
        o = {"role": m["role"] if m["role"] is not None else "assistant"}
        if nonempty(m["authorName"]):
            o["authorName"] = m["authorName"]
        if m["messageId"] is not None:
            o["messageId"] = m["messageId"]
        if m["createdAt"] is not None:
            o["createdAt"] = m["createdAt"]
        if nonempty(m["agentId"]):
            o["agentId"] = m["agentId"]
        o["contents"] = coalesce(m["contents"])
        if m["ap"] is not None:
            o["additionalProperties"] = m["ap"]
        o.update(m["extras"])
        out_msgs.append(o)
    resp["messages"] = out_msgs
    return resp


# ============================================================================ checking

def strict_equal(a, b, path="$"):
    """JSON values equal, types included (True is not 1, 1.0 is 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return [] if type(a) is type(b) and a == b else ["%s: %r != %r" % (path, a, b)]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return [] if a == b else ["%s: %r != %r" % (path, a, b)]
    if type(a) is not type(b):
        return ["%s: %r != %r" % (path, a, b)]
    if isinstance(a, dict):
        if set(a) != set(b):
            return ["%s: keys %s != %s" % (path, sorted(a), sorted(b))]
        out = []
        for k in a:
            out += strict_equal(a[k], b[k], path + "." + k)
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s: %d items != %d" % (path, len(a), len(b))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += strict_equal(x, y, "%s[%d]" % (path, i))
        return out
    return [] if a == b else ["%s: %r != %r" % (path, a, b)]


def key_of(msg):
    if "messageId" in msg:
        return msg["messageId"]
    for c in msg.get("contents", []):
        if isinstance(c, dict) and c.get("$type") == "text":
            return "text:" + (c.get("text") or "")
    return "text:"


def lookup(obj, path):
    cur = obj
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            i = int(part[1:-1])
            if not isinstance(cur, list) or i >= len(cur):
                return "@absent"
            cur = cur[i]
        else:
            if not isinstance(cur, dict) or part not in cur:
                return "@absent"
            cur = cur[part]
    return cur


DERIVED = re.compile(r"^turnstile-[0-9a-f]{32}$")


def field_ok(got, want):
    if want == "@derived":
        return isinstance(got, str) and DERIVED.match(got) is not None
    if want == "@absent":
        return got == "@absent"
    return not strict_equal(got, want)


def check_plan(case, resp):
    """1. The plan's own expectation."""
    problems = []
    order = case.plan.order()
    got = [key_of(m) for m in resp["messages"]]
    want = [m.key() for m in order]
    if got != want:
        problems.append("order/count: got %d messages %s..., the plan says %d %s..." % (len(got), got[:12], len(want),
                                                                                          want[:12]))
        return problems
    for i, m in enumerate(order):
        om = resp["messages"][i]
        if m.expect_contents is not None:
            problems += ["plan contents: " + p for p in strict_equal(om["contents"], m.expect_contents,
                                                                     "messages[%d].contents" % i)]
        for k, v in m.expect_extra.items():
            problems += ["plan member: " + p for p in strict_equal(om.get(k), v, "messages[%d].%s" % (i, k))]
        if m.created is not None and om.get("createdAt") != m.created:
            problems.append("plan: messages[%d].createdAt %r != %r" % (i, om.get("createdAt"), m.created))
        if m.created is None and "createdAt" in om:
            problems.append("plan: messages[%d] has a createdAt it was never given" % i)
        if (m.role or "assistant") != om["role"]:
            problems.append("plan: messages[%d].role %r != %r" % (i, om["role"], m.role or "assistant"))
        if (m.agent or None) != om.get("agentId"):
            problems.append("plan: messages[%d].agentId %r != %r" % (i, om.get("agentId"), m.agent))
        if (m.author or None) != om.get("authorName"):
            problems.append("plan: messages[%d].authorName %r != %r" % (i, om.get("authorName"), m.author))
    for path, want in case.fields.items():
        got = lookup(resp, path)
        if not field_ok(got, want):
            problems.append("plan field %s = %r, expected %r" % (path, got, want))
    return problems


def check_generic(case, raw, raw2, updates, resp):
    """3. Properties any answer must have."""
    problems = []
    if raw != raw2:
        problems.append("D1: two runs gave different bytes")
    text_ = raw.decode("utf-8")
    for mt in re.finditer(r"\\u([0-9a-fA-F]{4})", text_):
        cp = int(mt.group(1), 16)
        if not (cp < 0x20 or 0x7F <= cp <= 0x9F):  # control characters (Cc) only
            problems.append("W7: \\u%s escaped in the output (only control characters may be)" % mt.group(1))
            break
    def type_first(pairs):  # every object of the answer, innermost first, with its keys in written order
        keys = [k for k, _ in pairs]
        if "$type" in keys and keys[0] != "$type":
            problems.append("W7: $type not first in an object with keys %s" % keys[:6])
        return dict(pairs)

    json.loads(raw, object_pairs_hook=type_first)
    for k in ("responseId", "agentId", "createdAt", "finishReason", "usage", "continuationToken", "conversationId",
              "modelId"):
        if k in resp and resp[k] is None:
            problems.append("W7: response %s written as null" % k)
    for i, m in enumerate(resp["messages"]):
        for k in ("role", "authorName", "messageId", "createdAt", "agentId", "additionalProperties"):
            if k in m and m[k] is None:
                problems.append("W7: messages[%d].%s written as null" % (i, k))
    # C1: nothing invented or lost (text/reasoning may be merged, so compare counts and lengths)
    inp = [c for u in updates for c in (u.get("contents") or []) if not (isinstance(c, dict) and
                                                                         c.get("$type") == "usage")]
    out = [c for m in resp["messages"] for c in m["contents"]]

    def tally(cs):
        others = sorted(json.dumps(c, sort_keys=True) for c in cs
                        if not (isinstance(c, dict) and c.get("$type") in ("text", "reasoning")))
        length = sum(len(c.get("text") or "") for c in cs if isinstance(c, dict) and
                     c.get("$type") in ("text", "reasoning"))
        return others, length

    if tally(inp) != tally(out):
        problems.append("C1: the non-text contents or the total text length differ between input and output")
    return problems


def run_reference(turnstile, path):
    r1 = subprocess.run([turnstile, "merge", "--pretty", path], capture_output=True)
    if r1.returncode != 0:
        return None, None, r1
    r2 = subprocess.run([turnstile, "merge", "--pretty", path], capture_output=True)
    return r1.stdout, r2.stdout, r1


def spec_rules():
    with open(SPEC, encoding="utf-8") as f:
        return set(re.findall(r"\*\*([A-Z][A-Z0-9]*) \((?:MUST|SHOULD|MAY)\)", f.read()))


def main():
    turnstile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bazel-bin", "turnstile")
    for fam in (fam_many_agents, fam_long_text, fam_long_calls, fam_long_usage, fam_ts_equal, fam_ts_offsets,
                fam_ts_extreme, fam_ts_untimed, fam_ts_mixed, fam_dangling, fam_null_mid, fam_reused_mid,
                fam_role_change, fam_meta_finish, fam_meta_usage, fam_meta_agent, fam_meta_created,
                fam_unknown_content, fam_unknown_fields, fam_addprops, fam_unicode, probes):
        fam()
    rules_defined = spec_rules()
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case id"
    tmp = tempfile.mkdtemp(prefix="merge-generated.")  # scratch, outside the repository
    manifest, failures, probe_reports = [], [], []
    for c in CASES:
        assert re.match(r"^Merge\.[A-Z][A-Z0-9]*\.gen_[a-z_]+_\d\d$", c.id), c.id
        assert all(r in rules_defined for r in c.rules), (c.id, c.rules)
        assert len(c.description) >= 20
        data = c.input_text()
        path = os.path.join(tmp, c.id + ".input.jsonl")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(data)
        raw, raw2, run = run_reference(turnstile, path)
        problems = []
        if raw is None:
            problems.append("the reference failed (exit %d): %s" % (run.returncode, run.stderr.decode().strip()))
        else:
            resp = json.loads(raw)
            updates = [json.loads(line) for line in data.lstrip("\ufeff").splitlines()]
            problems += check_plan(c, resp)
            model = spec_merge(updates)
            if model["responseId"] == "@derived" and DERIVED.match(resp.get("responseId", "")):
                model["responseId"] = resp["responseId"]
            problems += ["SPEC model: " + p for p in strict_equal(resp, model)[:8]]
            problems += check_generic(c, raw, raw2, updates, resp)
        if c.probe:
            os.remove(path)
            probe_reports.append((c, problems))
            continue
        if problems:
            failures.append((c, problems))
            continue
        order = [m.key() for m in c.plan.order()]
        for k in order:
            assert len(k.encode()) < 250, (c.id, k)  # the golden test's order-key buffer
        with open(os.path.join(tmp, c.id + ".expected.json"), "wb") as f:
            f.write(raw)
        manifest.append({"id": c.id, "rules": c.rules, "description": c.description,
                         "input": c.id + ".input.jsonl", "expected": c.id + ".expected.json",
                         "generated": {"family": c.family, "seed": c.seed},
                         "check": {"order": order, "fields": c.fields}})
    for c, problems in probe_reports:
        status = "the reference disagrees: " + "; ".join(problems[:4]) if problems else "the reference agrees"
        print("probe %s (not written; %s): %s" % (c.id, c.probe, status), file=sys.stderr)
    if failures:
        for c, problems in failures:
            print("%s: NOT WRITTEN: %s" % (c.id, "; ".join(problems[:6])), file=sys.stderr)
        print("%d case(s) failed; nothing written (scratch files left in %s)" % (len(failures), tmp), file=sys.stderr)
        sys.exit(1)
    with open(os.path.join(tmp, "MANIFEST.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"suite": "turnstile-merge-generated", "spec": "conformance/SPEC.md", "version": 1,
                   "cases": manifest}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp))
    if total > SIZE_LIMIT:
        print("the cases take %d bytes, over the %d limit; nothing written" % (total, SIZE_LIMIT), file=sys.stderr)
        sys.exit(1)
    # replace the directory's contents only now that every case passed
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    for f in sorted(os.listdir(tmp)):
        shutil.copyfile(os.path.join(tmp, f), os.path.join(OUT, f))
    shutil.rmtree(tmp)
    fams = {}
    for e in manifest:
        fams[e["generated"]["family"]] = fams.get(e["generated"]["family"], 0) + 1
    print("%d cases (%s), %d bytes, written to %s" % (len(manifest), ", ".join("%s %d" % kv for kv in fams.items()),
                                                       total, os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
