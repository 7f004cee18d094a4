#!/usr/bin/env python3
"""A hostile testee: answers like the reference (`turnstile testee`, which it runs as its own
child) except on one target case, where it misbehaves the way MODE says. The certifier must
report exactly what happened, for the right case, and leave no process behind.

usage: hostile_testee.py TURNSTILE MODE[,MODE...] [TARGET_CASE_ID]

Modes (TARGET is the case the misbehaviour happens on; "*" or absent: the first case):
  hang              never answers TARGET
  crash             kills itself with SIGSEGV on reading TARGET
  exit-at-once      exits with status 3 before reading anything
  die-between       answers TARGET, then exits with status 3 before reading the next request;
                    a helper started at startup keeps stdout open (as build servers do)
  crash-between     answers TARGET, then kills itself with SIGKILL before the next request
  close-stdout      on TARGET closes stdout and keeps running (reading stdin until EOF)
  answer-twice      answers TARGET twice at once
  answer-twice-late answers TARGET, then again 0.3 s later while the next case is in flight
  wrong-case        answers TARGET with another case's id
  hello-twice       answers the hello request twice, the second late
  setsid-grandchild starts a grandchild in a new session (sleeping forever) at startup
  ignore-sigterm    ignores SIGTERM, SIGHUP and SIGINT; hangs on TARGET
  flood-stderr      writes 50 MB to stderr on TARGET, then answers correctly
  huge-line         writes a 100 MB line (no newline until its end) on TARGET
  fork-and-hang     on TARGET starts a child in its own process group, then hangs
  escape-hello      answers hello with a name and version holding terminal escapes, a newline
                    and U+FFFF (not allowed in XML)

Resume cases (the op's world calls are relayed between the certifier and the reference; the
misbehaviour happens in TARGET's first action, in every run of it):
  deep-store        builds a directory chain 1950 levels deep in the store, then goes on
  commit-flood      writes commit notices without end (reading each acknowledgement)
  commit-trickle    writes a commit notice every 0.2 s without end
  hang-resume       hangs (after starting a writer, as write-after-cleanup does)
  write-after-cleanup  starts a process in a session of its own that keeps writing into the
                    store for 4 s (recreating it), then goes on
  cut-utf8          writes, in TARGET's first action, a line without the case's id whose 200th
                    byte falls inside a 3-byte character (the certifier quotes 200 bytes of it)
  long-read         answers every read of TARGET with 40,000 user messages, each with its own
                    text and messageId

Every process it starts keeps the environment (the test finds them by a marker in it).
"""
import json
import os
import signal
import subprocess
import sys
import time

turnstile, modes = sys.argv[1], set(sys.argv[2].split(","))
target = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "*" else None


def sleep_forever():
    while True:
        time.sleep(3600)


def setsid_grandchild():
    """A grandchild in a session of its own: outside every process group the certifier knows."""
    if os.fork() == 0:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execvp("sleep", ["sleep", "100000"])


if "exit-at-once" in modes:
    sys.exit(3)
if "setsid-grandchild" in modes:
    setsid_grandchild()
if "die-between" in modes:
    # Holds the certifier's stdout pipe open after this process is gone.
    subprocess.Popen(["sleep", "100000"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if "ignore-sigterm" in modes:
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_IGN)

reference = subprocess.Popen([turnstile, "testee"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
out = sys.stdout


def forward(line):
    reference.stdin.write(line + "\n")
    reference.stdin.flush()
    return reference.stdout.readline().rstrip("\n")


def answer(text):
    out.write(text + "\n")
    out.flush()


def converse(line):
    """A resume action: relays the reference's world calls and the certifier's replies until its answer."""
    reference.stdin.write(line + "\n")
    reference.stdin.flush()
    while True:
        said = reference.stdout.readline().rstrip("\n")
        answer(said)
        message = json.loads(said)
        if "call" not in message and "commit" not in message:
            return
        reference.stdin.write(sys.stdin.readline())
        reference.stdin.flush()


def deep_chain(store, depth):
    fd = os.open(store, os.O_RDONLY)
    for _ in range(depth):
        try:
            os.mkdir("d", dir_fd=fd)
        except FileExistsError:
            pass
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def start_writer(store):
    """A process in a session of its own that keeps writing into the store (recreating it) for 4 s."""
    code = ("import os, sys, time\n"
            "end = time.time() + 4\n"
            "while time.time() < end:\n"
            "    try:\n"
            "        os.makedirs(sys.argv[1], exist_ok=True)\n"
            "        open(os.path.join(sys.argv[1], 'late'), 'w').write('x')\n"
            "    except OSError:\n"
            "        pass\n"
            "    time.sleep(0.02)\n")
    subprocess.Popen([sys.executable, "-c", code, store], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)


def misbehave_resume(request, line):
    """TARGET's resume actions; True when the action was handled here."""
    case, action = request["id"], request["action"]
    if "long-read" in modes and "read" in action:
        messages = [{"role": "user", "messageId": "m%d" % i, "contents": [{"$type": "text", "text": "t%d" % i}]}
                    for i in range(40000)]
        answer(json.dumps({"id": case, "status": "idle", "messages": messages}))
        return True
    if "user" not in action or os.path.exists(os.path.join(request["store"], ".hostile-done")):
        return False
    open(os.path.join(request["store"], ".hostile-done"), "w").close()
    if "cut-utf8" in modes:
        answer(json.dumps({"id": "other", "x": "a" * 180 + "\u20ac" * 5}, ensure_ascii=False, separators=(",", ":")))
        return True
    if "deep-store" in modes:
        deep_chain(request["store"], 1950)
    elif modes & {"write-after-cleanup", "hang-resume"}:
        start_writer(request["store"])
        if "hang-resume" in modes:
            sleep_forever()
    elif modes & {"commit-flood", "commit-trickle"}:
        while True:
            answer(json.dumps({"id": case, "commit": "before", "what": "hostile"}))
            if not sys.stdin.readline():
                sys.exit(0)
            if "commit-trickle" in modes:
                time.sleep(0.2)
    return False


first_case = True
while True:
    line = sys.stdin.readline()
    if not line:
        break
    line = line.rstrip("\n")
    if not line:
        continue
    request = json.loads(line)
    case = request["id"]
    if case == "$hello":
        if "escape-hello" in modes:
            hello = {"name": "evil\x1b]0;owned\x07\x1b[2J\nMerge.I1.single_id_preserved I1\uffff", "version": "1\x1b[31m",
                     "ops": ["merge", "host", "resume"]}
            answer(json.dumps({"id": case, "hello": hello}))
            continue
        hello = json.loads(forward(line))
        hello.get("hello", {}).pop("fork", None)  # a proxy is no fork server (PROTOCOL.md): it does not claim to be
        answer(json.dumps(hello))
        if "hello-twice" in modes:
            time.sleep(0.3)
            answer(forward(line))
        continue
    if request.get("op") == "resume":
        if case != target or not misbehave_resume(request, line):
            converse(line)
        continue
    hit = case == target if target else first_case
    first_case = False
    if not hit:
        answer(forward(line))
        continue
    if modes & {"hang", "ignore-sigterm"}:
        sleep_forever()
    elif "crash" in modes:
        os.kill(os.getpid(), signal.SIGSEGV)
    elif "die-between" in modes:
        answer(forward(line))
        os._exit(3)
    elif "crash-between" in modes:
        answer(forward(line))
        os.kill(os.getpid(), signal.SIGKILL)
    elif "close-stdout" in modes:
        out.close()
        os.close(1)
        for _ in sys.stdin:
            pass
        sleep_forever()
    elif "answer-twice" in modes:
        text = forward(line)
        out.write(text + "\n" + text + "\n")
        out.flush()
    elif "answer-twice-late" in modes:
        text = forward(line)
        answer(text)
        time.sleep(0.3)
        answer(text)
    elif "wrong-case" in modes:
        wrong = json.loads(forward(line))
        wrong["id"] = "Merge.No.such_case"
        answer(json.dumps(wrong))
    elif "flood-stderr" in modes:
        chunk = "x" * 65535 + "\n"
        for _ in range(800):
            sys.stderr.write(chunk)
        sys.stderr.flush()
        answer(forward(line))
    elif "huge-line" in modes:
        chunk = "y" * (1 << 20)
        try:
            out.write('{"id":"%s","pad":"' % case)
            for _ in range(100):
                out.write(chunk)
            out.write('"}\n')
            out.flush()
        except BrokenPipeError:
            os._exit(0)
        sleep_forever()
    elif "fork-and-hang" in modes:
        subprocess.Popen(["sleep", "100000"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=False, process_group=0)
        sleep_forever()
    else:
        answer(forward(line))
