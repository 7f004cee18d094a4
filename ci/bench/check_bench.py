#!/usr/bin/env python3
"""check_bench.py — the merge checkers' cost beside the reference merge's, over adversarial shapes.

For each shape and size it writes a stream (JSON Lines) and a valid answer, then runs the
driver `check_bench STREAM [ANSWER] RUNS` (ci/bench/check_bench.c), which parses the stream
once and times, in one process on the same parsed updates:
  merge   ts_merge + ts_response_to_json              the peer: the reference merge
  check   ts_check_merge on the answer                 every merge rule, the exact decider included
RUNS times each; the table gives the median wall and CPU seconds of both, the ratio of the CPU
medians check/merge, and the number of search states the decider visited (a straight path is
the number of placed response groups + 1). Every answer here is valid (but partition_no's): a check
that finds anything stops this script.

The reference merge orders and groups in linear time (core/merge/merger.c), so it is timed at
every size beside the check; --merge-max-groups-updates N still skips it (printed "nan") on the
shapes with one group per update or two above N updates, for a quick run.

Shapes (every random choice from random.Random(seed).random(), so the bytes are stable):
  realistic       ci/bench/gen_stream.py's turn: 3 agents, text deltas, calls, usage, 30% createdAt
  one_per_update  one message per update, all in one group, ids, 50% createdAt in random order
  many_ids        one group per update (N responseIds), answered in reverse group order (G1)
  mixed_times     one group, id-less and keyed messages, createdAt missing/equal/backwards
  identical       N/2 groups, each the same user "ok" / assistant "ok" exchange, no ids, no
                  createdAt: thousands of identical messages in many interchangeable groups
  lookalike       groups of 1-7 alternating user/assistant "ok" messages (the issue's 3- and
                  7-update groups, at scale), answered in reverse group order: words that are
                  prefixes of one another, so that where one group ends is a choice
  lookalike_shuffled  the same groups answered in a random group order: neither usual order
                  helps, the search proper decides (a 3-PARTITION-like shape: see DESIGN.md)
  long_deltas     a few messages, each of N/8 text deltas (coalescing)
  partition       DESIGN.md's 3-PARTITION reduction: groups of x identical "a" messages and m
                  groups of one "b"; the answer (a^B b)^m from a valid partition, groups
                  arriving in random order. N is the number of triples m: this is where the
                  cost can grow
  partition_no    the same with a no-instance: the answer is invalid (the table shows the cost
                  of proving it; the verdict column says "rejected", as it must)

usage: check_bench.py --driver BIN [--sizes N,N] [--partition-sizes M,M] [--runs R] [--shapes a,b]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile



def dumps(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def ts(seconds):
    h, rem = divmod(int(seconds), 3600)
    m, s = divmod(rem, 60)
    return "2026-05-13T%02d:%02d:%02d+00:00" % (h % 24, m, s)


def text(t):
    return {"$type": "text", "text": t}


# ---------------------------------------------------------------------------- shapes -----
# Each returns (updates, answer or None). None: the answer is the reference's own.

def shape_one_per_update(n, rng):
    ups = []
    for i in range(n):
        u = {"responseId": "r", "messageId": "m%d" % i, "role": "assistant", "contents": [text("t%d" % i)]}
        if rng.random() < 0.5:
            u["createdAt"] = ts(rng.random() * 80000)
        ups.append(u)
    return ups, None


def shape_many_ids(n, rng):
    ups = [{"responseId": "r%d" % i, "messageId": "m", "role": "assistant", "contents": [text("same")]}
           for i in range(n)]
    msgs = [{"role": "assistant", "messageId": "m", "contents": [text("same")]} for _ in range(n)]
    return ups, {"responseId": "r%d" % (n - 1), "messages": msgs}


def shape_mixed_times(n, rng):
    ups, clock = [], 40000.0
    for i in range(n):
        u = {"responseId": "r", "role": "assistant" if rng.random() < 0.7 else "tool", "contents": [text("x%d" % i)]}
        if rng.random() < 0.5:
            u["messageId"] = "m%d" % i
        r = rng.random()
        if r < 0.3:
            clock += (rng.random() - 0.3) * 10
            u["createdAt"] = ts(clock)
        elif r < 0.4:
            u["createdAt"] = ts(clock)  # equal to the previous one
        ups.append(u)
    return ups, None


def alternation(k):
    return [("user" if j % 2 == 0 else "assistant") for j in range(k)]


def shape_identical(n, rng):
    """N/2 groups, each the same user/assistant exchange: thousands of identical messages."""
    ups, msgs = [], []
    for g in range(n // 2):
        for role in ("user", "assistant"):
            ups.append({"responseId": "g%d" % g, "role": role, "contents": [text("ok")]})
            msgs.append({"role": role, "contents": [text("ok")]})
    return ups, {"responseId": "g0", "messages": msgs[::-1][::-1]}


def shape_lookalike(n, rng):
    groups, total = [], 0
    while total < n:
        k = 1 + int(rng.random() * 7)
        groups.append(alternation(k))
        total += k
    ups = []
    for g, roles in enumerate(groups):
        for role in roles:
            ups.append({"responseId": "g%d" % g, "role": role, "contents": [text("ok")]})
    msgs = [{"role": role, "contents": [text("ok")]} for roles in reversed(groups) for role in roles]
    return ups, {"responseId": "g0", "messages": msgs}


def shape_lookalike_shuffled(n, rng):
    ups, answer = shape_lookalike(n, rng)
    groups, k = [], 0  # the answer's groups, rebuilt from the reversed order, then shuffled
    for u in ups:
        if groups and groups[-1][0] == u["responseId"]:
            groups[-1][1].append(u["role"])
        else:
            groups.append((u["responseId"], [u["role"]]))
    order = sorted(range(len(groups)), key=lambda i: rng.random())
    msgs = [{"role": role, "contents": [text("ok")]} for i in order for role in groups[i][1]]
    return ups, {"responseId": "g0", "messages": msgs}


def shape_long_deltas(n, rng):
    ups = []
    per = max(1, n // 8)
    for i in range(n):
        ups.append({"responseId": "r", "messageId": "m%d" % (i // per), "contents": [text("d%d " % (i % 97))]})
    return ups, None


def three_partition(m, rng):
    """m triples with sum B each; sizes strictly between B/4 and B/2, all = 1 (mod 4), B = 3 (mod 4)."""
    B = 4 * (10 + m) + 3
    triples = []
    for _ in range(m):
        while True:
            a = 4 * int(B / 16 + 1 + rng.random() * (B / 16 - 2)) + 1
            b = 4 * int(B / 16 + 1 + rng.random() * (B / 16 - 2)) + 1
            c = B - a - b
            if B / 4 < a < B / 2 and B / 4 < b < B / 2 and B / 4 < c < B / 2:
                triples.append((a, b, c))
                break
    return B, triples


def partition_stream(sizes, m):
    """Group i: sizes[i] user "a" messages (empty assistant updates between them, which M6 omits);
    then m groups of one user "b"."""
    ups = []
    for gid, x in enumerate(sizes):
        for j in range(x):
            ups.append({"responseId": "a%d" % gid, "role": "user", "contents": [text("a")]})
            if j + 1 < x:
                ups.append({"responseId": "a%d" % gid, "role": "assistant", "contents": []})
    for t in range(m):
        ups.append({"responseId": "b%d" % t, "role": "user", "contents": [text("b")]})
    return ups


def partition_answer(B, m):
    msgs = []
    for _ in range(m):
        msgs += [{"role": "user", "contents": [text("a")]}] * B + [{"role": "user", "contents": [text("b")]}]
    return {"responseId": "a0", "messages": msgs}


def shape_partition(m, rng):
    """A yes-instance: the answer (a^B b)^m is valid; groups arrive in a random order."""
    B, triples = three_partition(m, rng)
    sizes = sorted((x for t in triples for x in t), key=lambda _: rng.random())
    return partition_stream(sizes, m), partition_answer(B, m)


def shape_partition_no(m, rng):
    """A no-instance: two sizes of different triples moved by 2 (to 3 mod 4): any triple holding
    one must hold both (sums are 3 mod 4), and its third would have to be B - x - y, which no
    size is. The answer (a^B b)^m is invalid; the whole search space is explored."""
    while True:
        B, triples = three_partition(m, rng)
        sizes = [x for t in triples for x in t]
        x, y = triples[0][0], triples[1][0]
        if B - x - y not in sizes[1:3] + sizes[4:] and B / 4 < x + 2 < B / 2 and B / 4 < y - 2 < B / 2:
            break
    sizes[0], sizes[3] = x + 2, y - 2
    sizes = sorted(sizes, key=lambda _: rng.random())
    return partition_stream(sizes, m), partition_answer(B, m)


GROUP_HEAVY = {"many_ids", "identical", "lookalike", "lookalike_shuffled"}

SHAPES = {
    "realistic": None,
    "one_per_update": shape_one_per_update,
    "many_ids": shape_many_ids,
    "mixed_times": shape_mixed_times,
    "identical": shape_identical,
    "lookalike": shape_lookalike,
    "lookalike_shuffled": shape_lookalike_shuffled,
    "long_deltas": shape_long_deltas,
    "partition": shape_partition,
    "partition_no": shape_partition_no,
}


# ------------------------------------------------------------------------- measuring -----

def write_case(directory, shape, n, seed):
    stream = os.path.join(directory, "%s_%d.jsonl" % (shape, n))
    answer = os.path.join(directory, "%s_%d.answer.json" % (shape, n))
    if shape == "realistic":
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_stream.py"),
                        "--count", str(n), "--output", stream], check=True)
        return stream, None
    updates, ans = SHAPES[shape](n, random.Random(seed))
    with open(stream, "w", encoding="utf-8") as f:
        for u in updates:
            f.write(dumps(u) + "\n")
    if ans is None:
        return stream, None
    with open(answer, "w", encoding="utf-8") as f:
        f.write(dumps(ans))
    return stream, answer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--partition-sizes", default="4,6,8")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--merge-max-groups-updates", type=int, default=0)  # 0: no skip
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="turnstile-check-bench.")
    print("%-18s %8s %8s %9s %9s %9s %9s %8s %9s %s" % (
        "shape", "n", "updates", "merge s", "merge cpu", "check s", "check cpu", "cpu x", "states", "verdict"))
    for shape in args.shapes.split(","):
        sizes = args.partition_sizes if shape.startswith("partition") else args.sizes
        for n in (int(x) for x in sizes.split(",")):
            stream, answer = write_case(work, shape, n, 20260513 + n)
            merge_runs = args.runs
            if shape in GROUP_HEAVY and args.merge_max_groups_updates and n > args.merge_max_groups_updates:
                merge_runs = 0
            run = subprocess.run([args.driver, stream, answer or "-", str(args.runs), str(merge_runs)],
                                 capture_output=True, text=True)
            expect_reject = shape.endswith("_no")
            if run.returncode != (1 if expect_reject else 0):
                sys.stderr.write(run.stderr[-3000:])
                sys.exit("check_bench.py: %s n=%d: the driver exited %d (a valid answer rejected?)" % (
                    shape, n, run.returncode))
            r = dict(kv.split("=") for kv in run.stdout.split())
            mc, cc = float(r["merge_cpu"]), float(r["check_cpu"])
            mc = mc if mc == mc else 0.0  # nan: not measured
            print("%-18s %8d %8s %9s %9s %9s %9s %8.2f %9s %s" % (
                shape, n, r["updates"], r["merge_wall"], r["merge_cpu"], r["check_wall"], r["check_cpu"],
                cc / mc if mc > 0 else float("nan"), r["states"], "rejected" if expect_reject else "valid"), flush=True)
            for path in (stream, answer):
                if path:
                    os.remove(path)
    os.rmdir(work)


if __name__ == "__main__":
    main()
