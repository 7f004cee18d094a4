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

usage: gen_stream.py [-n N] [--seed S] [-o FILE]     (defaults: 1000000, 20260513, stdout)
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


def main():
    parser = argparse.ArgumentParser(description="Deterministic AgentResponseUpdate JSON Lines stream.")
    parser.add_argument("-n", "--count", type=int, default=1_000_000, help="updates (lines) to write")
    parser.add_argument("--seed", type=int, default=20260513, help="random seed")
    parser.add_argument("-o", "--output", default="-", help="output file ('-': stdout)")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("--count must be at least 1")
    if args.output == "-":
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", write_through=False)
        generate(args.count, args.seed, out)
        out.flush()
        out.detach()
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            generate(args.count, args.seed, out)


if __name__ == "__main__":
    main()
