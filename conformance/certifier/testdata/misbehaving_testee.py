#!/usr/bin/env python3
"""A testee that misbehaves on chosen cases and otherwise forwards to the reference
(`turnstile testee`): the certifier must report each misbehaviour for that case only, restart
the testee when it dies, and carry on.

usage: misbehaving_testee.py path/to/turnstile
"""
import json
import os
import signal
import subprocess
import sys
import time

reference = subprocess.Popen([sys.argv[1], "testee"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def forward(line):
    reference.stdin.write(line + "\n")
    reference.stdin.flush()
    return reference.stdout.readline().rstrip("\n")


for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    request = json.loads(line)
    case = request["id"]
    print("handling %s" % case, file=sys.stderr, flush=True)
    if case == "Merge.I2.no_timestamps_arrival_order":
        time.sleep(3600)                                   # hangs: timeout
    elif case == "Merge.O1.out_of_order_timestamps":
        os.kill(os.getpid(), signal.SIGSEGV)               # crashes
    elif case == "Merge.O2.equal_instants_arrival":
        print("this is not JSON", flush=True)              # garbage
    elif case == "Merge.M5.default_role_assistant":
        answer = json.loads(forward(line))
        answer["id"] = "Some.other.case"
        print(json.dumps(answer), flush=True)              # wrong id
    elif case == "Merge.M6.announced_empty_message_kept":
        answer = forward(line)
        print(answer, flush=True)
        print(answer, flush=True)                          # answers twice
    elif case == "Merge.R1.latest_finish_reason_wins":
        sys.exit(3)                                        # exits
    elif case == "Merge.C2.text_deltas_coalesced":
        print(json.dumps({"id": case, "response": {"messages": [], "pad": "x" * 200000}}), flush=True)  # too large
    elif case == "Merge.X1.unknown_fields_kept":
        print(json.dumps({"id": case, "unsupported": True}), flush=True)
    elif case == "Merge.X2.additional_properties_merged":
        print(json.dumps({"id": case, "error": "I refuse"}), flush=True)
    else:
        print(forward(line), flush=True)
