#!/usr/bin/env python3
"""python-resume: a turnstile resume-testee kit in Python 3 (3.7+), standard library only.

A small ReAct engine of its own design, certified through the `resume` op (conformance/PROTOCOL.md):
the certifier plays its model and its tools and kills its process at every point. It is not the
reference's design: the conversation is a flat list of Microsoft.Extensions.AI ChatMessages in
<store>/conversation.json, saved whole (write, rename) after every step; one answer's
tool calls are all invoked at once, an asynchronous one left pending while the others run; a user
message that arrives while a call is pending joins the conversation at once. An edit or a fork
keeps the messages before its position, abandons the rest (pending calls included: a late result
for one changes nothing) and keeps the old conversation readable in `branches`. To certify your own
engine, replace the class Engine's use of `ask_model`, `ask_tool` and `save` with your engine's
model client, tools and store, and run:  turnstile certify --cases 'Resume.*' -- python3 testee.py
With Python 3.9+ it is also a fork server (serve_forks, at the end): the certifier then loads it once and
forks a fresh engine for every start, which makes a certification several times faster.
"""
import json, os, socket, sys, uuid
from datetime import datetime, timezone


# ---- the pipe: one request line in, world calls out and their replies in, one answer out ----------

def send(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def world(case_id, **call):
    """A world call (model, tool or commit notice); returns the certifier's reply."""
    send(dict(id=case_id, **call))
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # the certifier ended the case
    return json.loads(line)


def now():
    return datetime.now(timezone.utc).isoformat()


# ---- THE PART YOU REPLACE: an engine whose model, tools and store are the world's ------------------

class Engine:
    def __init__(self, case_id, store):
        self.case_id = case_id
        self.path = os.path.join(store, "conversation.json")
        self.state = {"messages": [], "pending": [], "branches": []}
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as f:
                self.state = json.load(f)
        self.state.setdefault("branches", [])

    def save(self, what):
        """Every step's durable write, announced before and after so the certifier can kill on both sides.
        Written whole and renamed into place: a killed process leaves the old file or the new one. (To
        survive a power loss too, fsync the file before the rename and the directory after it.)"""
        world(self.case_id, commit="before", what=what + " (the kit's save of conversation.json)")
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.state, f, ensure_ascii=False)
        os.replace(tmp, self.path)
        world(self.case_id, commit="after", what=what + " (the kit's save of conversation.json)")

    def ask_model(self):
        reply = world(self.case_id, call="model", messages=self.state["messages"])
        if "reply" not in reply:
            raise RuntimeError("the model failed: %s" % reply.get("error"))
        message = dict(reply["reply"], role="assistant", messageId=str(uuid.uuid4()), createdAt=now())
        self.state["messages"].append(message)
        self.save("a model answer")
        return [c for c in message.get("contents", []) if c.get("$type") == "functionCall"]

    def ask_tool(self, call):
        reply = world(self.case_id, call="tool", name=call["name"], callId=call["callId"],
                      arguments=call.get("arguments") or {})["reply"]
        if reply.get("pending"):
            self.state["pending"].append(call["callId"])
            self.save("a pending tool call")
        else:
            self.add_result(call["callId"], reply["result"] if "result" in reply else "error: %s" % reply.get("error"))

    def add_result(self, call_id, value):
        self.state["messages"].append({"role": "tool", "messageId": str(uuid.uuid4()), "createdAt": now(),
                                       "contents": [{"$type": "functionResult", "callId": call_id, "result": value}]})
        self.save("a tool result")

    def unanswered_calls(self):
        """The calls of the last assistant message that have neither a result nor a pending mark."""
        last = max((i for i, m in enumerate(self.state["messages"]) if m["role"] == "assistant"), default=None)
        if last is None:
            return []
        done = {c["callId"] for m in self.state["messages"][last + 1:] for c in m.get("contents", [])
                if c.get("$type") == "functionResult"}
        return [c for c in self.state["messages"][last].get("contents", []) if c.get("$type") == "functionCall"
                and c["callId"] not in done and c["callId"] not in self.state["pending"]]

    def run(self):
        """The ReAct loop: finish the last answer's calls, then ask the model, until the turn is over or waits."""
        while True:
            for call in self.unanswered_calls():
                self.ask_tool(call)
            if self.state["pending"]:
                return "waiting"
            messages = self.state["messages"]
            if messages and messages[-1]["role"] == "assistant":
                return "idle"  # the last answer asked for nothing: the turn is over
            self.ask_model()

    # The four actions.
    def user(self, text):
        self.state["messages"].append({"role": "user", "messageId": str(uuid.uuid4()), "createdAt": now(),
                                       "contents": [{"$type": "text", "text": text}]})
        self.save("a user message")
        return self.run()

    def complete(self, call_id, value):
        if call_id in self.state["pending"]:
            self.state["pending"].remove(call_id)
            self.add_result(call_id, value)
        return self.run()

    def branch(self, kind, at, text):
        """An edit of user message `at` or a fork before assistant message `at`: the old conversation is
        kept in `branches`, the new one is the messages before that position and the new message, saved
        in one write (so a kill leaves the old conversation or the new one), and the loop runs on it."""
        messages = self.state["messages"]
        positions = [i for i, m in enumerate(messages) if m["role"] == ("user" if kind == "edit" else "assistant")]
        if kind == "fork" and at == len(positions) and not self.state["pending"]:
            cut = len(messages)
        elif 0 <= at < len(positions):
            cut = positions[at]
        else:
            raise ValueError("refused: the conversation has no %s message %d (it holds %d)%s" % (
                "user" if kind == "edit" else "assistant", at, len(positions),
                ", and a call is pending" if kind == "fork" and at == len(positions) else ""))
        self.state["branches"].append(messages)
        self.state["messages"] = messages[:cut] + [{"role": "user", "messageId": str(uuid.uuid4()), "createdAt": now(),
                                                    "contents": [{"$type": "text", "text": text}]}]
        self.state["pending"] = []  # the calls pending on the old branch are abandoned
        self.save("an %s" % kind)
        return self.run()

    def recover(self):
        return self.run() if self.state["messages"] else "idle"

    def read(self):
        return "waiting" if self.state["pending"] else "idle", self.state["messages"]


# ---- protocol plumbing: leave as it is ---------------------------------------------------------------

def answer(req):
    op, case_id = req.get("op"), req.get("id")
    if op == "hello":
        return {"id": case_id, "hello": {"name": "python-resume", "version": "1", "ops": ["resume"], "async": True,
                                         "fork": hasattr(socket, "recv_fds"), "branch": ["edit", "fork", "history"]}}
    if op != "resume":
        return {"id": case_id, "unsupported": True}
    engine, action = Engine(case_id, req["store"]), req["action"]
    if "edit" in action or "fork" in action:
        kind = "edit" if "edit" in action else "fork"
        return {"id": case_id, "status": engine.branch(kind, action[kind], action["user"])}
    if "user" in action:
        return {"id": case_id, "status": engine.user(action["user"])}
    if "complete" in action:
        value = action["result"] if "result" in action else "error: %s" % action.get("error")
        return {"id": case_id, "status": engine.complete(action["complete"], value)}
    if "recover" in action:
        return {"id": case_id, "status": engine.recover()}
    status, messages = engine.read()
    answer = {"id": case_id, "status": status, "messages": messages}
    if action.get("history"):
        answer["history"] = engine.state["branches"] + [messages]
    return answer


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            print("python-resume: not JSON: %s" % e, file=sys.stderr)
            continue
        try:
            send(answer(req))
        except Exception as e:  # the engine failed: an error answer, and on to the next request
            send({"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)})



# ---- optional: a fork server (conformance/PROTOCOL.md, fork servers) -----------------------------------
# With TURNSTILE_FORK_SERVER=FD in the environment the certifier starts this once and asks it, on socket
# FD, for a fresh engine at every (re)start: Python and the modules load once, each start is a fork.

def serve_forks():
    """Reads fork requests on the socket; for each forks a child that leads a process group of its own and
    takes the three descriptors that came with the request as stdin, stdout and stderr; says the child's pid,
    waits for it and says how it ended. Returns in each child, which is then the testee; the server exits
    when the certifier closes the socket. The server reads no request and writes no answer itself."""
    sock = socket.socket(fileno=int(os.environ.pop("TURNSTILE_FORK_SERVER")))
    while True:
        message, fds, _, _ = socket.recv_fds(sock, 1024, 3)
        if not message or len(fds) != 3:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            sock.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            return
        try:
            os.setpgid(pid, pid)  # also here: the pid said below leads its group
        except OSError:
            pass
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps({"pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        sock.send(json.dumps({"ended": pid, "status": status}).encode())


if __name__ == "__main__":
    if os.environ.get("TURNSTILE_FORK_SERVER"):
        serve_forks()
    main()
