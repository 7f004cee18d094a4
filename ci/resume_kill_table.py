#!/usr/bin/env python3
"""resume_kill_table.py REPORT.json — a certify report's resume cases as a Markdown table:
per case, its points P, what the uninterrupted run broke, and which kill points broke which rule
(from each case's history: `failingKillPoints`, PROTOCOL.md). Used for the FINDINGS notes in
conformance/certified/resume/.

usage: ci/resume_kill_table.py REPORT.json
"""
import json
import sys


def ranges(points):
    """[3,4,5,9] -> '3-5,9'"""
    out, start, prev = [], None, None
    for p in sorted(points):
        if start is None:
            start = prev = p
        elif p == prev + 1:
            prev = p
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = p
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return ",".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ci/resume_kill_table.py REPORT.json")
    report = json.load(open(sys.argv[1]))
    print("| case | P | uninterrupted | kill runs failing | by rule: kill points |")
    print("|---|---|---|---|---|")
    total_runs = total_failing = 0
    for case in report["cases"]:
        history = case.get("history")
        if case.get("op") != "resume" or not isinstance(history, dict):
            continue
        plain = sorted({f["rule"] for f in case["findings"]
                        if not f["message"].startswith("kill at point") and "after a kill at point" not in f["message"]})
        failing = history.get("failingKillPoints", [])
        by_rule = {}
        for k in failing:
            for rule in k["rules"]:
                by_rule.setdefault(rule, []).append(k["point"])
        cells = "; ".join("%s: %s" % (r, ranges(by_rule[r])) for r in sorted(by_rule, key=lambda r: int(r[1:])))
        p = history.get("killPoints", 0)
        total_runs += p
        total_failing += len(failing)
        print("| %s | %d | %s | %d of %d | %s |" % (case["id"], p, " ".join(plain) or "pass", len(failing), p, cells or "—"))
    print()
    print("%d kill runs, %d failing" % (total_runs, total_failing))


if __name__ == "__main__":
    main()
