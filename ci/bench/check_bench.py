#!/usr/bin/env python3
"""check_bench.py — the merge checkers' cost beside the reference merge's, over adversarial shapes.

For each shape and size it writes a stream (JSON Lines) and a valid answer, then runs the
driver `check_bench STREAM [ANSWER] RUNS` (ci/bench/check_bench.c), which parses the stream
once and times, in one process on the same parsed updates:
  merge   ts_merge + ts_response_to_json              the peer: the reference merge
  check   ts_check_merge on the answer                 every merge rule, the exact decider included
RUNS times each; the table gives the median wall and CPU seconds of both, the ratio of the CPU
medians check/merge, and the number of search states the decider visited (a straight path is
the number of placed response groups + 1). Every answer here is valid but the partition_*no*
shapes' (their verdict must be "rejected"): a check that finds anything in a valid answer, or
passes an invalid one, stops this script. The check runs under the judging budget's defaults
(conformance/checkers/budget.h; --judge-states N to change, 0: no limit): a row whose search
ran out of it says "undecided" and its ratio is left out of the summary, which lists those
rows apart.

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
  partition_{sorted,shuffled}  DESIGN.md's 3-PARTITION reduction with N response groups (m = N/4
                  triples): groups of x identical "a" messages (B/4 < x < B/2, B = 4(10+m)+3)
                  and m groups of one "b"; the answer (a^B b)^m from a valid partition. sorted:
                  the groups arrive in the answer's order (it is the reference's own answer);
                  shuffled: in a random order. The decider is canonical, so both cost the same
  partition_no_{sorted,shuffled}  the same with a no-instance (two sizes moved to 3 mod 4): the
                  answer is invalid; the row shows the cost of proving it
  partition_wide[_no]_{sorted,shuffled}  the same with larger bins, B = 4(10m)+3: many more ways
                  to fill one, so the search grows far sooner (the issue's 64-group instances)

usage: check_bench.py --driver BIN [--sizes N,N] [--partition-sizes N,N] [--runs R] [--shapes a,b]
                      [--judge-states N]
       check_bench.py --write-case SHAPE N DIR   (writes DIR/SHAPE_N.jsonl and, when the shape has
                      one, DIR/SHAPE_N.answer.json, and prints their paths: the tests' inputs)
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


def three_partition(m, rng, B):
    """m triples with sum B each; sizes strictly between B/4 and B/2, all = 1 (mod 4); B = 3 (mod 4)."""
    triples = []
    for _ in range(m):
        while True:
            a = 4 * int(B / 16 + 1 + rng.random() * (B / 16 - 2)) + 1
            b = 4 * int(B / 16 + 1 + rng.random() * (B / 16 - 2)) + 1
            c = B - a - b
            if B / 4 < a < B / 2 and B / 4 < b < B / 2 and B / 4 < c < B / 2:
                triples.append((a, b, c))
                break
    return triples


def partition_stream(groups):
    """groups: ("a", x) is x user "a" messages (empty assistant updates between them, which M6
    omits), ("b", 1) one user "b"; each group its own responseId, sent in the order given."""
    ups = []
    for gid, (kind, x) in enumerate(groups):
        for j in range(x):
            ups.append({"responseId": "g%d" % gid, "role": "user", "contents": [text(kind)]})
            if j + 1 < x:
                ups.append({"responseId": "g%d" % gid, "role": "assistant", "contents": []})
    return ups


def partition_answer(B, m):
    msgs = []
    for _ in range(m):
        msgs += [{"role": "user", "contents": [text("a")]}] * B + [{"role": "user", "contents": [text("b")]}]
    return {"responseId": "g0", "messages": msgs}


def partition_groups(triples, valid, rng):
    """The groups in answer order: each triple's sizes, then a "b". For a no-instance, two sizes
    of different triples moved by 2 (to 3 mod 4): any triple holding one must hold both (sums
    are 3 mod 4), and its third would have to be B - x - y, which no size is."""
    sizes = [list(t) for t in triples]
    if not valid:
        B = sum(triples[0])
        while True:
            x, y = sizes[0][0], sizes[1][0]
            rest = [v for t in sizes for v in t][1:3] + [v for t in sizes for v in t][4:]
            if B - x - y not in rest and B / 4 < x + 2 < B / 2 and B / 4 < y - 2 < B / 2:
                break
            sizes = [list(t) for t in three_partition(len(triples), rng, B)]
        sizes[0][0], sizes[1][0] = x + 2, y - 2
    groups = []
    for t in sizes:
        groups += [("a", v) for v in t] + [("b", 1)]
    return groups


def partition_shape(n, rng, wide, valid, shuffled):
    """DESIGN.md §4's 3-PARTITION reduction with n response groups (m = n/4 triples): groups of
    x identical "a" messages and m groups of one "b"; the answer is (a^B b)^m. sorted: the
    groups arrive in the answer's order (the reference's own answer, group by group); shuffled:
    in a random order. B = 4(10+m)+3 (DESIGN.md's), or wide: 4(10m)+3 (larger bins, many more
    ways to fill one: the issue's hard instances)."""
    m = max(1, n // 4)
    B = 4 * (10 * m if wide else 10 + m) + 3
    groups = partition_groups(three_partition(m, rng, B), valid, rng)
    if shuffled:
        groups = sorted(groups, key=lambda _: rng.random())
    return partition_stream(groups), partition_answer(B, m)


def partition_shapes():
    shapes = {}
    for wide in (False, True):
        for valid in (True, False):
            for shuffled in (False, True):
                name = "partition%s%s_%s" % ("_wide" if wide else "", "" if valid else "_no",
                                            "shuffled" if shuffled else "sorted")
                shapes[name] = (lambda w, v, sh: lambda n, rng: partition_shape(n, rng, w, v, sh))(wide, valid, shuffled)
    return shapes


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
    **partition_shapes(),
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
    if len(sys.argv) == 5 and sys.argv[1] == "--write-case":
        shape, n, directory = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        if shape not in SHAPES:
            sys.exit("check_bench.py: no shape %r (shapes: %s)" % (shape, ", ".join(SHAPES)))
        print(*(p for p in write_case(directory, shape, n, 20260513 + n) if p))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--partition-sizes", default="16,32,64")
    ap.add_argument("--judge-states", type=int, default=-1)  # -1: the default budget; 0: no limit
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--merge-max-groups-updates", type=int, default=0)  # 0: no skip
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="turnstile-check-bench.")
    print("%-29s %8s %8s %9s %9s %9s %9s %8s %9s %s" % (
        "shape", "n", "updates", "merge s", "merge cpu", "check s", "check cpu", "cpu x", "states", "verdict"))
    decided, undecided = [], []
    for shape in args.shapes.split(","):
        sizes = args.partition_sizes if shape.startswith("partition") else args.sizes
        for n in (int(x) for x in sizes.split(",")):
            stream, answer = write_case(work, shape, n, 20260513 + n)
            merge_runs = args.runs
            if shape in GROUP_HEAVY and args.merge_max_groups_updates and n > args.merge_max_groups_updates:
                merge_runs = 0
            command = [args.driver, stream, answer or "-", str(args.runs), str(merge_runs)]
            if args.judge_states >= 0:
                command.append(str(args.judge_states))
            run = subprocess.run(command, capture_output=True, text=True)
            expect_reject = "_no" in shape
            if run.returncode not in ((1 if expect_reject else 0), 4):
                sys.stderr.write(run.stderr[-3000:])
                sys.exit("check_bench.py: %s n=%d: the driver exited %d (%s)" % (
                    shape, n, run.returncode, "an invalid answer passed?" if expect_reject else "a valid answer rejected?"))
            r = dict(kv.split("=") for kv in run.stdout.split())
            mc, cc = float(r["merge_cpu"]), float(r["check_cpu"])
            mc = mc if mc == mc else 0.0  # nan: not measured
            verdict = "undecided" if run.returncode == 4 else "rejected" if expect_reject else "valid"
            ratio = cc / mc if mc > 0 else float("nan")
            (undecided if verdict == "undecided" else decided).append((shape, n, ratio, r["states"]))
            print("%-29s %8d %8s %9s %9s %9s %9s %8.2f %9s %s" % (
                shape, n, r["updates"], r["merge_wall"], r["merge_cpu"], r["check_wall"], r["check_cpu"],
                ratio, r["states"], verdict), flush=True)
            for path in (stream, answer):
                if path:
                    os.remove(path)
    os.rmdir(work)
    ratios = [x[2] for x in decided if x[2] == x[2]]
    if ratios:
        worst = max(decided, key=lambda x: x[2] if x[2] == x[2] else -1)
        print("decided: %d rows; check/merge CPU worst %.2fx (%s n=%d)" % (len(decided), worst[2], worst[0], worst[1]))
    if undecided:
        print("undecided within the judging budget (neither valid nor invalid; ratio not counted): %s" % (
            ", ".join("%s n=%d (%s states)" % (x[0], x[1], x[3]) for x in undecided)))


if __name__ == "__main__":
    main()
