// node-pipe: the testee protocol's line channel for Node.js resume adapters (conformance/PROTOCOL.md,
// op `resume`), shared by the adapters that import it (node-openai-agents, node-mastra). No npm
// packages. It owns stdin and stdout: requests and the replies to world calls arrive on stdin in
// order; answers and world calls leave on stdout, one JSON line each.
//
//   import { serve, world } from "../node-pipe/pipe.mjs";
//   serve(async (req) => ({ status: "idle" }));     // one answer object per request (id added here)
//   const reply = await world({ call: "model", messages });   // inside a request: a world call
import { createInterface } from "node:readline";

const queued = [], waiting = [];
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => { if (line.trim()) (waiting.length ? waiting.shift() : (l) => queued.push(l))(line); });
rl.on("close", () => process.exit(0)); // end of input: exit now (PROTOCOL.md)
const nextLine = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((r) => waiting.push(r)));

const TRACE = process.env.TURNSTILE_TRACE
  ? (...a) => process.stderr.write(`${process.pid} ${performance.now().toFixed(1)} ${a.join(" ")}\n`) : () => {};
export const trace = TRACE;
const send = (obj) => { TRACE(">", JSON.stringify(obj).slice(0, 200)); process.stdout.write(JSON.stringify(obj) + "\n"); };

let caseId = null; // the id of the request in flight; world calls carry it

// One world call (model, tool or commit notice): written and its reply slot taken in one synchronous
// step, so concurrent calls are answered in the order they were written. Returns the reply's
// `reply` member (or the whole line for an ack); throws on an `error` reply.
export function world(obj) {
  send({ id: caseId, ...obj });
  return nextLine().then((line) => {
    TRACE("<", line.slice(0, 200));
    const r = JSON.parse(line);
    if (r.id === caseId && typeof r.error === "string") throw new Error(`the ${obj.call || "world"} call failed: ${r.error}`);
    if (r.id !== caseId || !("reply" in r || "ack" in r)) throw new Error(`expected a reply, got ${line.slice(0, 200)}`);
    return r.reply ?? r;
  });
}

// A durable write announced before and after (PROTOCOL.md: commit notices), so the certifier can
// kill on both sides of it. `what` says whose write it is.
export async function commit(what, write) {
  await world({ commit: "before", what });
  const result = await write();
  await world({ commit: "after", what });
  return result;
}

// The request loop: `answer(req)` returns the answer's members (without id); a throw becomes an
// error answer. `hello` is answered from `helloInfo`; ops other than hello and resume are unsupported.
export async function serve(helloInfo, answer) {
  for (;;) {
    const line = await nextLine();
    let req;
    try { req = JSON.parse(line); } catch { continue; }
    if (!req || typeof req !== "object" || typeof req.id !== "string") continue;
    caseId = req.id;
    let reply;
    if (req.op === "hello") reply = { hello: helloInfo };
    else if (req.op !== "resume") reply = { unsupported: true };
    else {
      try { reply = await answer(req); } catch (e) { TRACE("error", e.stack); reply = { error: `${e.name}: ${e.message}` }; }
    }
    send({ id: caseId, ...reply });
  }
}
