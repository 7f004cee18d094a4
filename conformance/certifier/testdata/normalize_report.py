#!/usr/bin/env python3
"""Prints a certify JSON report with what differs from run to run of the same testee normalised,
so that two runs compare byte for byte: the date, durations, process counts, and the ids and
clock readings a testee mints (UUIDs numbered by first appearance; RFC 3339 instants replaced),
and thread ids in the observer's records. Used by the --jobs / --warm / --shard equivalence tests."""
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
    for case in report.get("cases", []):
        case["seconds"] = 0
    text = json.dumps(report, sort_keys=False, ensure_ascii=False)
    numbers = {}
    text = UUID.sub(lambda m: "UUID-%d" % numbers.setdefault(m.group(0).lower(), len(numbers)), text)
    text = INSTANT.sub("INSTANT", text)
    text = TID.sub("tid N", text)  # a thread's id in an observer's record
    print(text)


if __name__ == "__main__":
    main(sys.argv[1])
