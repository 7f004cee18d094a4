#!/usr/bin/env python3
"""gen_stream.py — writes a deterministic, realistic stream of AgentResponseUpdates as JSON Lines.

The benchmark input for ci/bench/merge_bench.sh. Standard library only. The same arguments
always give the same bytes: every random choice comes from one random.Random(seed), and only
through rng.random() (whose Mersenne Twister output is stable across Python versions), never
through randint/choice, whose derivation from the generator has changed between versions.

The mix imitates one turn of a multi-agent run, in the update shape of
conformance/examples/handoff.jsonl:
  * three agents (triage, billing, research), each with its own responseId, interleaved at
    random (weights 0.5 / 0.3 / 0.2);
  * each agent streams messages of 12-28 text deltas (about 20) under one messageId; the first
    update of a message names role, authorName and agentId, the rest carry only the ids;
  * text deltas of 3-20 characters cut from a fixed corpus (some non-ASCII, quotes, newlines);
  * about 30% of updates carry createdAt like "2026-05-13T19:49:01.1234567+00:00", from a clock
    that only moves forward;
  * at about 15% of message boundaries the agent calls a function instead (a functionCall
    message), and its next update is the functionResult in a "tool" message;
  * about 0.4% of updates are a usage content;
  * the last update (line N) carries the turn's total usage and finishReason "stop".

usage: gen_stream.py [-n N] [--seed S] [--shape SHAPE] [-o FILE]
       (defaults: 1000000, 20260513, realistic, stdout)

--shape picks an adversarial stream for the scaling table of ci/bench/merge_bench.sh instead
(every update a text delta of 3-20 characters from the same corpus, "role" and "authorName" on
each message's first update):
  one-message-per-update   every update opens a message of its own (a new messageId);
  many-response-ids        every update has a responseId (and a message) of its own;
  mixed-timestamps         three agents, a new message every 3 updates, createdAt on half of
                           the updates from a clock that jumps back and forth (so ordering sorts
                           and anchors untimestamped messages);
  identical-messages       one messageId, roles alternating user/assistant (M4 splits every
                           update into a message of its own), the same text every time;
  long-delta-runs          one message of N text deltas (C2 coalesces them into one).
"""
import argparse
import datetime
import io
import json
import random
import sys

CORPUS = (
    "Thanks for reaching out! I looked at your account and the last invoice was issued on "
    "the 3rd; the charge of €42.50 covers the \"Pro\" plan for May. Let me check whether a "
    "refund applies — our policy allows one within 30 days.\n\nHere is what I found:\n"
    "1. The payment went through twice (a retry after a timeout).\n"
    "2. The duplicate is pending reversal at the bank.\n"
    "Your café order history looks fine; the naïve fix would be a manual credit, but the "
    "reversal is safer. Résumé of next steps: wait 3–5 business days, then write back if the "
    "amount has not returned. 🙂 Anything else I can help with? "
)

AGENTS = (("triage", 0.5), ("billing", 0.3), ("research", 0.2))
FUNCTIONS = (
    ("lookup_invoice", lambda r: {"invoiceId": "inv_%06d" % int(r() * 1e6), "expand": ["lines", "payments"]}),
    ("handoff", lambda r: {"to": "billing" if r() < 0.5 else "research", "reason": "needs account access"}),
    ("search_kb", lambda r: {"query": "refund policy duplicate charge", "top": 1 + int(r() * 5)}),
)

CREATED_AT_SHARE = 0.30
USAGE_SHARE = 0.004
CALL_AT_BOUNDARY = 0.15
BASE_TIME = datetime.datetime(2026, 5, 13, 19, 49, 0, tzinfo=datetime.timezone.utc)
TICKS_PER_SECOND = 10_000_000  # .NET ticks: 100 ns, hence 7 fractional digits


class Agent:
    def __init__(self, name, index):
        self.name = name
        self.response_id = "resp_" + name
        self.message_no = 0
        self.message_id = None
        self.remaining = 0           # text deltas left in the current message
        self.pending_call = None     # callId whose functionResult comes next
        self.call_no = 0
        self.corpus_pos = (index * 97) % len(CORPUS)

    def new_message(self):
        self.message_no += 1
        self.message_id = "msg_%s_%06d" % (self.name, self.message_no)
        return self.message_id


def generate(n, seed, out):
    rng = random.Random(seed)
    r = rng.random

    def between(lo, hi):  # integer in [lo, hi], from rng.random() only
        return lo + int(r() * (hi - lo + 1))

    agents = [Agent(name, i) for i, (name, _) in enumerate(AGENTS)]
    cumulative, total = [], 0.0
    for _, weight in AGENTS:
        total += weight
        cumulative.append(total)

    def pick_agent():
        x = r() * total
        for agent, bound in zip(agents, cumulative):
            if x < bound:
                return agent
        return agents[-1]

    ticks = 0
    second_cache = [-1, ""]

    def created_at():
        seconds, fraction = divmod(ticks, TICKS_PER_SECOND)
        if seconds != second_cache[0]:
            moment = BASE_TIME + datetime.timedelta(seconds=seconds)
            second_cache[0], second_cache[1] = seconds, moment.strftime("%Y-%m-%dT%H:%M:%S")
        return "%s.%07d+00:00" % (second_cache[1], fraction)

    usage_in = usage_out = 0
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
    batch = []

    for i in range(n - 1):
        ticks += between(0, 400_000)  # 0-40 ms between updates
        agent = pick_agent()
        update = {"responseId": agent.response_id}

        if agent.pending_call is not None:
            update["messageId"] = agent.new_message()
            update["agentId"] = agent.name
            update["role"] = "tool"
            contents = [{"$type": "functionResult", "callId": agent.pending_call,
                         "result": {"status": "ok", "items": between(0, 9)}}]
            agent.pending_call = None
        elif r() < USAGE_SHARE and agent.message_id is not None:
            update["messageId"] = agent.message_id
            inp, outp = between(50, 2000), between(5, 400)
            usage_in += inp
            usage_out += outp
            contents = [{"$type": "usage", "details": {
                "inputTokenCount": inp, "outputTokenCount": outp, "totalTokenCount": inp + outp}}]
        elif agent.remaining == 0 and agent.message_id is not None and r() < CALL_AT_BOUNDARY:
            agent.call_no += 1
            call_id = "call_%s_%05d" % (agent.name, agent.call_no)
            name, make_args = FUNCTIONS[int(r() * len(FUNCTIONS))]
            update["messageId"] = agent.new_message()
            update["agentId"] = agent.name
            update["authorName"] = agent.name
            update["role"] = "assistant"
            contents = [{"$type": "functionCall", "callId": call_id, "name": name,
                         "arguments": make_args(r), "informationalOnly": False}]
            agent.pending_call = call_id
        else:
            if agent.remaining == 0:
                update["messageId"] = agent.new_message()
                update["agentId"] = agent.name
                update["authorName"] = agent.name
                update["role"] = "assistant"
                agent.remaining = between(12, 28)
            else:
                update["messageId"] = agent.message_id
            agent.remaining -= 1
            length = between(3, 20)
            start = agent.corpus_pos
            text = CORPUS[start:start + length]
            if len(text) < length:
                text += CORPUS[:length - len(text)]
            agent.corpus_pos = (start + length) % len(CORPUS)
            contents = [{"$type": "text", "text": text}]

        if r() < CREATED_AT_SHARE:
            update["createdAt"] = created_at()
        update["contents"] = contents
        batch.append(encode(update))
        if len(batch) == 10_000:
            batch.append("")
            out.write("\n".join(batch))
            batch = []

    # The last update: the turn's total usage and the finish reason, for the first agent.
    ticks += between(0, 400_000)
    final_in, final_out = usage_in + 1000, usage_out + 100
    batch.append(encode({
        "responseId": agents[0].response_id,
        "createdAt": created_at(),
        "contents": [{"$type": "usage", "details": {
            "inputTokenCount": final_in, "outputTokenCount": final_out,
            "totalTokenCount": final_in + final_out}}],
        "finishReason": "stop",
    }))
    batch.append("")
    out.write("\n".join(batch))


SHAPES = ("realistic", "one-message-per-update", "many-response-ids", "mixed-timestamps",
          "identical-messages", "long-delta-runs")


def generate_shape(n, seed, shape, out):
    """The adversarial shapes (see the module docstring); deterministic like generate()."""
    rng = random.Random(seed)
    r = rng.random
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
    corpus_pos = 0
    batch = []

    def delta():
        nonlocal corpus_pos
        length = 3 + int(r() * 18)
        text = CORPUS[corpus_pos:corpus_pos + length]
        if len(text) < length:
            text += CORPUS[:length - len(text)]
        corpus_pos = (corpus_pos + length) % len(CORPUS)
        return text

    def stamp(seconds):
        moment = BASE_TIME + datetime.timedelta(seconds=seconds)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + ".%07d+00:00" % int(r() * TICKS_PER_SECOND)

    for i in range(n):
        if shape == "one-message-per-update":
            update = {"responseId": "resp_1", "messageId": "msg_%07d" % i, "role": "assistant",
                      "authorName": "agent", "contents": [{"$type": "text", "text": delta()}]}
        elif shape == "many-response-ids":
            update = {"responseId": "resp_%07d" % i, "messageId": "msg_%07d" % i, "role": "assistant",
                      "contents": [{"$type": "text", "text": delta()}]}
        elif shape == "mixed-timestamps":
            agent = int(r() * 3)
            update = {"responseId": "resp_%d" % agent, "messageId": "msg_%d_%07d" % (agent, i // 3)}
            if i % 3 == 0:
                update["role"] = "assistant"
                update["authorName"] = "agent_%d" % agent
            if r() < 0.5:
                update["createdAt"] = stamp(int(r() * 86400))
            update["contents"] = [{"$type": "text", "text": delta()}]
        elif shape == "identical-messages":
            update = {"responseId": "resp_1", "messageId": "msg_1", "role": "user" if i % 2 else "assistant",
                      "contents": [{"$type": "text", "text": "the same words"}]}
        elif shape == "long-delta-runs":
            update = {"responseId": "resp_1", "messageId": "msg_1", "contents": [{"$type": "text", "text": delta()}]}
            if i == 0:
                update["role"] = "assistant"
                update["authorName"] = "agent"
        else:
            raise ValueError(shape)
        if i == n - 1:
            update["finishReason"] = "stop"
        batch.append(encode(update))
        if len(batch) == 10_000:
            batch.append("")
            out.write("\n".join(batch))
            batch = []
    batch.append("")
    out.write("\n".join(batch))


def main():
    parser = argparse.ArgumentParser(description="Deterministic AgentResponseUpdate JSON Lines stream.")
    parser.add_argument("-n", "--count", type=int, default=1_000_000, help="updates (lines) to write")
    parser.add_argument("--seed", type=int, default=20260513, help="random seed")
    parser.add_argument("--shape", default="realistic", choices=SHAPES, help="the stream's shape")
    parser.add_argument("-o", "--output", default="-", help="output file ('-': stdout)")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("--count must be at least 1")

    def write(out):
        if args.shape == "realistic":
            generate(args.count, args.seed, out)
        else:
            generate_shape(args.count, args.seed, args.shape, out)

    if args.output == "-":
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", write_through=False)
        write(out)
        out.flush()
        out.detach()
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            write(out)


if __name__ == "__main__":
    main()
