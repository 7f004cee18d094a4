#!/usr/bin/env python3
"""resume-alt-eventlog: a resume engine written apart from the reference and python-resume, taking
other choices the SPEC allows (conformance/SPEC.md 6.4), certified through the `resume` op
(conformance/PROTOCOL.md). Python 3.7+, standard library only.

    turnstile certify --cases 'Resume.*' -- python3 conformance/testees/resume-alt-eventlog/testee.py

(the certifier sees the pipelining and settles its kills; with --kill-settle 0 every Required rule still
passes, but tools may be graded at-least-once, U7).

Its choices (README.md beside it):
  * an append-only event log, <store>/log.jsonl, one JSON record a line: a message, or a call
    left pending; the conversation is the log's messages in order;
  * ids minted on store: a message has no id until the log takes it; the log gives it an id (a
    UUIDv5 of the thread and the record's position) and its createdAt as it appends it;
  * every step persisted as it happens (a model answer, each tool result, a pending mark), so a
    kill loses at most the step it interrupts;
  * immediate user messages: one that arrives while a call is pending joins the log at once;
  * pipelined world calls: an answer's tool calls are all written before any reply is read, and
    commit notices are announcements the engine does not wait on (their acks are read later, in
    order) — PROTOCOL.md allows both; the certifier sees it and settles its kills, so that a kill
    comes after the engine acted on the replies it already had (unsettled, a kill can land before it
    stored a result it was given, which is graded at-least-once, U7);
  * a tool missing from the catalogue is answered by the engine itself, never invoked.

Durability: each record is one write(2) to the log opened O_APPEND, then fsync(2) of the log, before
the engine writes any world call that depends on it or answers; creating the log fsyncs the store
directory. A torn last line (a crash inside a write) is cut off when the log is opened, and that cut
is fsync'd; a damaged line before the last is an error, never skipped.
"""
import collections
import json
import os
import sys
import uuid
from datetime import datetime, timezone

LOG = "log.jsonl"


# ---- the pipe: world calls written ahead, replies read in the order the calls were written ----------

class Pipe:
    def __init__(self, case_id):
        self.case_id = case_id
        self.outstanding = collections.deque()  # tokens of the lines written and not answered yet
        self.replies = {}
        self.ignored = set()  # commit notices: their acks are read and dropped
        self.next_token = 0

    def write(self, **call):
        token = self.next_token
        self.next_token += 1
        sys.stdout.write(json.dumps(dict(id=self.case_id, **call), ensure_ascii=False) + "\n")
        sys.stdout.flush()
        self.outstanding.append(token)
        return token

    def notice(self, when, what):
        """A commit notice the engine does not wait on."""
        self.ignored.add(self.write(commit=when, what=what + " (resume-alt-eventlog's log append)"))

    def reply(self, token):
        while token not in self.replies:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)  # the certifier ended the case
            if not line.strip():
                continue
            answered = self.outstanding.popleft()
            if answered in self.ignored:
                self.ignored.discard(answered)
            else:
                self.replies[answered] = json.loads(line)
        reply = self.replies.pop(token)
        if "error" in reply:
            raise RuntimeError("a world call failed: %s" % reply["error"])
        return reply

    def drain(self):
        """Reads every reply still owed, so that the answer is the action's last line."""
        while self.outstanding:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)
            if line.strip():
                self.ignored.discard(self.outstanding.popleft())


# ---- the store: an append-only, fsync'd event log -----------------------------------------------------

def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class EventLog:
    def __init__(self, store, thread):
        self.dir, self.path, self.thread = store, os.path.join(store, LOG), uuid.UUID(thread)
        self.records = []
        if os.path.exists(self.path):
            self.records = self._load()
        self.fd = None

    def _load(self):
        with open(self.path, "rb") as f:
            data = f.read()
        records, good = [], 0
        lines = data.split(b"\n")
        for n, line in enumerate(lines):
            last = n == len(lines) - 1
            if last and not line:
                break
            try:
                if last:
                    raise ValueError("no newline")  # a crash inside the write: torn
                records.append(json.loads(line))
                good += len(line) + 1
            except ValueError:
                if not last:
                    raise RuntimeError("%s: line %d is damaged" % (self.path, n + 1))
                with open(self.path, "r+b") as f:  # cut the torn tail, durably
                    f.truncate(good)
                    f.flush()
                    os.fsync(f.fileno())
        return records

    def append(self, record):
        """Appends one record durably; a message record gets its id and createdAt here."""
        if "message" in record:
            seq = len(self.records)
            record["message"] = dict(record["message"], messageId=str(uuid.uuid5(self.thread, "record-%d" % seq)),
                                     createdAt=datetime.now(timezone.utc).isoformat())
        if self.fd is None:
            created = not os.path.exists(self.path)
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            if created:
                fsync_dir(self.dir)
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        if os.write(self.fd, line) != len(line):
            raise OSError("a short write to %s" % self.path)
        os.fsync(self.fd)
        self.records.append(record)
        return record

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# ---- the engine -----------------------------------------------------------------------------------------

def calls_of(message):
    return [c for c in message.get("contents", []) if c.get("$type") == "functionCall"]


class Engine:
    def __init__(self, req, pipe):
        self.pipe = pipe
        self.log = EventLog(req["store"], req["thread"])
        self.tools = {t["name"] for t in req.get("tools", [])}

    def messages(self):
        return [r["message"] for r in self.log.records if "message" in r]

    def pending(self):
        results = {c["callId"] for m in self.messages() for c in m["contents"] if c.get("$type") == "functionResult"}
        return [r["pending"] for r in self.log.records if "pending" in r and r["pending"] not in results]

    def store(self, what, record):
        self.pipe.notice("before", what)
        self.log.append(record)
        self.pipe.notice("after", what)

    def add_result(self, call_id, value):
        self.store("a tool result", {"message": {"role": "tool", "contents": [
            {"$type": "functionResult", "callId": call_id, "result": value}]}})

    def open_calls(self):
        """The calls of the last assistant message with neither a result nor a pending mark."""
        messages = self.messages()
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
        if last is None:
            return []
        done = {c["callId"] for m in messages[last + 1:] for c in m["contents"] if c.get("$type") == "functionResult"}
        done |= set(self.pending())
        return [c for c in calls_of(messages[last]) if c["callId"] not in done]

    def run(self):
        """The ReAct loop: every open call at once (pipelined), then the model, until idle or waiting."""
        while True:
            calls = self.open_calls()
            if calls:
                tokens = {c["callId"]: self.pipe.write(call="tool", name=c["name"], callId=c["callId"],
                                                        arguments=c.get("arguments") or {})
                          for c in calls if c["name"] in self.tools}
                for c in calls:
                    if c["callId"] not in tokens:  # a tool the catalogue lacks: the engine's own error
                        self.add_result(c["callId"], 'error: no tool named "%s"' % c["name"])
                        continue
                    reply = self.pipe.reply(tokens[c["callId"]])["reply"]
                    if reply.get("pending"):
                        self.store("a pending call", {"pending": c["callId"]})
                    else:
                        self.add_result(c["callId"], reply["result"] if "result" in reply else "error: %s" % reply.get("error"))
                continue
            if self.pending():
                return "waiting"
            messages = self.messages()
            if not messages or (messages[-1]["role"] == "assistant" and not calls_of(messages[-1])):
                return "idle"
            reply = self.pipe.reply(self.pipe.write(call="model", messages=messages))["reply"]
            contents = [c for c in reply.get("contents", []) if c.get("$type") in ("text", "functionCall")]
            self.store("a model answer", {"message": {"role": "assistant", "contents": contents}})

    def status(self):
        return "waiting" if self.pending() else "idle"

    def user(self, text):
        self.store("a user message", {"message": {"role": "user", "contents": [{"$type": "text", "text": text}]}})
        return self.run()

    def complete(self, call_id, value):
        if call_id in self.pending():
            self.add_result(call_id, value)
        return self.run()

    def recover(self):
        return self.run() if self.messages() else "idle"


# ---- protocol plumbing --------------------------------------------------------------------------------

def answer(req):
    op, case_id = req.get("op"), req.get("id")
    if op == "hello":
        return {"id": case_id, "hello": {"name": "resume-alt-eventlog", "version": "1", "ops": ["resume"], "async": True,
                                        "durability": "power-loss"}}
    if op != "resume":
        return {"id": case_id, "unsupported": True}
    pipe, action = Pipe(case_id), req["action"]
    engine = Engine(req, pipe)
    try:
        if "read" in action:
            return {"id": case_id, "status": engine.status(), "messages": engine.messages()}
        if "user" in action:
            status = engine.user(action["user"])
        elif "complete" in action:
            status = engine.complete(action["complete"],
                                     action["result"] if "result" in action else "error: %s" % action.get("error"))
        else:
            status = engine.recover()
        return {"id": case_id, "status": status}
    finally:
        engine.log.close()
        pipe.drain()  # also before an error answer


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            print("resume-alt-eventlog: not JSON: %s" % e, file=sys.stderr)
            continue
        try:
            out = answer(req)
        except Exception as e:  # the engine failed: an error answer, and on to the next request
            out = {"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
