#!/usr/bin/env python3
"""Prints a certify JSON report with what differs from run to run of the same testee normalised,
so that two runs compare byte for byte: the date, durations, process counts, and the ids and
clock readings a testee mints (UUIDs numbered by first appearance; RFC 3339 instants replaced),
and thread ids in the observer's records; and what depends on timing at --jobs 1 as at --jobs 2
on a loaded host (an asynchronous tool's result lands before or after the engine's next store
write, so the runs' records and store operations can differ): how many points were merged as the
same experiment, how many power losses could not be made, the runs kept in a history, and how
many findings beyond the first few per rule a failing case drew (moreFindings). The
verdicts, findings, kill points and failing kill points are compared as they are. Used by the --jobs / --warm / --shard equivalence tests (speed_test.sh)."""
import json, re, sys

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TID = re.compile(r"\btid \d+")
INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def main(path):
    report = json.load(open(path))
    report["date"] = "DATE"
    report.get("summary", {})["seconds"] = 0
    testee = report.get("testee", {})
    testee["restarts"] = 0
    testee.pop("processes", None)
    report.get("durability", {}).pop("powerLossNotMade", None)
    report.get("durability", {}).pop("merged", None)
    for case in report.get("cases", []):
        case["seconds"] = 0
        case.pop("moreFindings", None)
        points = case.get("history", {}).get("points", {})
        points.pop("powerLossNotMade", None)
        points.pop("merged", None)
        case.get("history", {}).pop("runs", None)
        case.get("history", {}).pop("powerLossNotMadeBecause", None)
    text = json.dumps(report, sort_keys=False, ensure_ascii=False, indent=1)  # one field a line: a diff names it
    numbers = {}
    text = UUID.sub(lambda m: "UUID-%d" % numbers.setdefault(m.group(0).lower(), len(numbers)), text)
    text = INSTANT.sub("INSTANT", text)
    text = TID.sub("tid N", text)  # a thread's id in an observer's record
    print(text)


if __name__ == "__main__":
    main(sys.argv[1])
