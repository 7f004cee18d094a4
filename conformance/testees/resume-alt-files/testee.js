#!/usr/bin/env node
// resume-alt-files: a resume engine written apart from the reference and python-resume, taking
// other choices the SPEC allows (conformance/SPEC.md §6.4), certified through the `resume` op
// (conformance/PROTOCOL.md). Node.js 18+, no npm packages.
//
//   turnstile certify --cases 'Resume.*' -- node conformance/testees/resume-alt-files/testee.js
//
// Its choices (README.md beside it):
//   * one file per message, content-addressed: a message's id is the SHA-256 of its canonical
//     JSON (role, createdAt, contents) chained to the id minted before it, so identical messages
//     never share an id; a HEAD file names the conversation, the pending calls and the inbox;
//   * persist-at-end: nothing is written during an action; its end commits every new message
//     and then HEAD, all at once. A kill inside an action loses it whole; the certifier's retry
//     redoes the turn (a new model answer, tools run again: at-least-once, U7), minting new ids;
//   * queued user messages: one that arrives while a call is pending waits in an inbox (shown at
//     the end of a read) and joins the conversation once every call has its result;
//   * one call at a time: an answer's calls run in order, and a pending one stops the rest;
//   * an answer's results are a set of content-addressed messages, listed in id order — an
//     order that differs from run to run, which the SPEC allows (results of a block in any order);
//   * a tool missing from the catalogue is answered by the engine itself, never invoked.
//
// Durability: every message file is written to a temporary name, fsync'd and renamed; then the
// objects directory is fsync'd; then HEAD is written to a temporary name, fsync'd, renamed over
// the old HEAD, and the store directory fsync'd. HEAD's rename is the commit point: a crash (or a
// power loss) before it leaves the previous action's state (orphan message files are ignored),
// after it the whole action.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const readline = require("readline");

// ---- the pipe: requests and the replies to our world calls arrive on stdin, in order ----------
const queued = [], waiting = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => { if (line.trim()) (waiting.length ? waiting.shift() : (l) => queued.push(l))(line); });
rl.on("close", () => process.exit(0)); // end of input: exit now (PROTOCOL.md)
const nextLine = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((r) => waiting.push(r)));
const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function world(caseId, call) {
  send({ id: caseId, ...call });
  const reply = JSON.parse(await nextLine());
  if (typeof reply.error === "string") throw new Error(`the ${call.call || "world"} call failed: ${reply.error}`);
  return reply;
}

// ---- canonical JSON and content-addressed ids --------------------------------------------------
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

// ---- durable files -------------------------------------------------------------------------------
function fsyncPath(p) {
  const fd = fs.openSync(p, "r");
  try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
}

function writeDurably(file, text) { // temporary name, fsync, rename (the caller fsyncs the directory)
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try { fs.writeSync(fd, text); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  fs.renameSync(tmp, file);
}

// ---- the store: objects/<id>.json, and HEAD ----------------------------------------------------
class Store {
  constructor(dir) {
    this.dir = dir;
    this.objects = path.join(dir, "objects");
    this.head = path.join(dir, "HEAD");
  }

  load() {
    if (!fs.existsSync(this.head)) return { last: "", conversation: [], pending: [], inbox: [] };
    return JSON.parse(fs.readFileSync(this.head, "utf8"));
  }

  message(id) {
    const m = JSON.parse(fs.readFileSync(path.join(this.objects, `${id}.json`), "utf8"));
    if (m.messageId !== id) throw new Error(`objects/${id}.json: holds message ${m.messageId}`);
    return m;
  }

  // The commit point of an action: the new messages, then HEAD.
  commit(fresh, head) {
    if (!fs.existsSync(this.objects)) {
      fs.mkdirSync(this.objects);
      fsyncPath(this.dir);
    }
    for (const m of fresh) writeDurably(path.join(this.objects, `${m.messageId}.json`), JSON.stringify(m));
    fsyncPath(this.objects);
    writeDurably(this.head, JSON.stringify(head));
    fsyncPath(this.dir);
  }
}

// ---- the engine --------------------------------------------------------------------------------
// HEAD: {last, conversation, pending, inbox}. conversation is a list of slots: a message id (a user
// or assistant message), or a list of result message ids (the results of the assistant message
// before it, a set). pending: the async calls answered "pending". inbox: user messages queued while
// a call was pending. last: the id minted last (the chain content-hash ids hang on).
class Engine {
  constructor(caseId, store, tools) {
    this.caseId = caseId;
    this.store = new Store(store);
    this.tools = new Set(tools.map((t) => t.name));
    this.head = this.store.load();
    this.cache = new Map();
    this.fresh = [];
  }

  mint(role, contents) {
    const body = { role, createdAt: new Date().toISOString(), contents };
    const id = crypto.createHash("sha256").update(`${this.head.last}\n${canonical(body)}`).digest("hex");
    const m = { ...body, messageId: id };
    this.head.last = id;
    this.cache.set(id, m);
    this.fresh.push(m);
    return id;
  }

  message(id) {
    if (!this.cache.has(id)) this.cache.set(id, this.store.message(id));
    return this.cache.get(id);
  }

  // The conversation as the model sees it: each answer's results in id order.
  view() {
    return this.head.conversation.flatMap((slot) => (Array.isArray(slot) ? [...slot].sort() : [slot]).map((id) => this.message(id)));
  }

  lastAssistant() {
    const c = this.head.conversation;
    for (let i = c.length - 1; i >= 0; i--)
      if (!Array.isArray(c[i]) && this.message(c[i]).role === "assistant") return i;
    return -1;
  }

  resultsOf(index) { // the result set after the assistant slot at index (made when absent)
    const c = this.head.conversation;
    if (!Array.isArray(c[index + 1])) c.splice(index + 1, 0, []);
    return c[index + 1];
  }

  addResult(index, callId, value) {
    const id = this.mint("tool", [{ $type: "functionResult", callId, result: value }]);
    this.resultsOf(index).push(id);
  }

  hasResult(index, callId) {
    const set = this.head.conversation[index + 1];
    return Array.isArray(set) && set.some((id) => this.message(id).contents.some((c) => c.callId === callId));
  }

  // The ReAct loop: the last answer's calls one at a time, the inbox, then the model.
  async run() {
    for (;;) {
      const a = this.lastAssistant();
      const calls = a < 0 ? [] : this.message(this.head.conversation[a]).contents.filter((c) => c.$type === "functionCall");
      for (const call of calls) {
        if (this.hasResult(a, call.callId)) continue;
        if (this.head.pending.includes(call.callId)) return "waiting";
        if (!this.tools.has(call.name)) {
          this.addResult(a, call.callId, `error: no tool named "${call.name}"`);
          continue;
        }
        const { reply } = await world(this.caseId, { call: "tool", name: call.name, callId: call.callId, arguments: call.arguments || {} });
        if (reply.pending) {
          this.head.pending.push(call.callId);
          return "waiting";
        }
        this.addResult(a, call.callId, "result" in reply ? reply.result : `error: ${reply.error}`);
      }
      if (this.head.inbox.length) {
        this.head.conversation.push(...this.head.inbox);
        this.head.inbox = [];
      }
      const c = this.head.conversation;
      if (!c.length || (a === c.length - 1 && !calls.length)) return "idle"; // the last answer asked for nothing
      const { reply } = await world(this.caseId, { call: "model", messages: this.view() });
      const contents = (reply.contents || []).filter((x) => x.$type === "text" || x.$type === "functionCall");
      this.head.conversation.push(this.mint("assistant", contents));
    }
  }

  async commit() {
    if (!this.fresh.length && canonical(this.head) === canonical(this.store.load())) return;
    await world(this.caseId, { commit: "before", what: "the action's end: message files, then HEAD (resume-alt-files)" });
    this.store.commit(this.fresh, this.head);
    this.fresh = [];
    await world(this.caseId, { commit: "after", what: "the action's end: message files, then HEAD (resume-alt-files)" });
  }

  status() { return this.head.pending.length ? "waiting" : "idle"; }

  async user(text) {
    const id = this.mint("user", [{ $type: "text", text }]);
    (this.head.pending.length ? this.head.inbox : this.head.conversation).push(id);
    const status = await this.run();
    await this.commit();
    return status;
  }

  async complete(callId, value) {
    const i = this.head.pending.indexOf(callId);
    if (i >= 0) {
      this.head.pending.splice(i, 1);
      const a = this.lastAssistant();
      this.addResult(a, callId, value);
    }
    const status = await this.run();
    await this.commit();
    return status;
  }

  async recover() {
    const status = await this.run(); // at an action's boundary nothing is in flight: no world call
    await this.commit();
    return status;
  }

  read() { return { status: this.status(), messages: [...this.view(), ...this.head.inbox.map((id) => this.message(id))] }; }
}

// ---- protocol plumbing ---------------------------------------------------------------------------
async function answer(req) {
  const { op, id } = req;
  if (op === "hello") return { id, hello: { name: "resume-alt-files", version: "1", ops: ["resume"], async: true, durability: "power-loss" } };
  if (op !== "resume") return { id, unsupported: true };
  const engine = new Engine(id, req.store, req.tools || []), action = req.action || {};
  if ("user" in action) return { id, status: await engine.user(action.user) };
  if ("complete" in action)
    return { id, status: await engine.complete(action.complete, "result" in action ? action.result : `error: ${action.error}`) };
  if ("recover" in action) return { id, status: await engine.recover() };
  return { id, ...engine.read() };
}

(async () => {
  for (;;) {
    const line = await nextLine();
    let req;
    try { req = JSON.parse(line); } catch (e) { process.stderr.write(`resume-alt-files: not JSON: ${e.message}\n`); continue; }
    try { send(await answer(req)); } catch (e) { send({ id: req.id, error: String(e && e.stack || e) }); }
  }
})();
