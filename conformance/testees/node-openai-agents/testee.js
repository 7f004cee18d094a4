#!/usr/bin/env node
// node-openai-agents: a turnstile testee for the `resume` op (conformance/PROTOCOL.md), driving the
// OpenAI Agents SDK for JS (@openai/agents). The harness plays the model (a custom `Model` whose
// getResponse asks it, call:model) and the tools (one `tool({...})` per catalogue entry, call:tool).
// Conversation memory is a `Session` over a file in the request's store directory (the Session
// interface is the SDK's; the file-backed implementation is this adapter's, below). An asynchronous
// tool (the harness answers `pending`) becomes a human-in-the-loop interruption: the tool's
// `needsApproval` asks the harness, and `pending` means "needs approval"; the interrupted run's
// `RunState` is serialised to the store and restored in a new process for `complete`/`recover`,
// where the call is approved and its `execute` returns the delivered result.
// It never repairs the engine's behaviour (no dedup, no reordering, no orphan-call repair).
//
//   turnstile certify --cases 'Resume.*' --timeout 60 -- node conformance/testees/node-openai-agents/testee.js
//
// TURNSTILE_OA_MODE=plain|careful (default plain):
//   plain    what the SDK's tutorials write: the examples' FileSession (the whole file rewritten
//            by each addItems), `run(agent, input, {session})`, RunState saved on interruption, a
//            user message while interrupted starts a new run, recovery does nothing but report
//            the saved interruption.
//   careful  the most careful use of the documented API: the session also implements
//            SessionHistoryTransactionAwareSession (atomic, idempotent history changes; the
//            operation ids kept in the same file, written to a temporary file, fsynced and renamed);
//            streaming runs (the input is persisted before the model is asked); a user message
//            while interrupted is staged on the saved RunState with `state.addInput()`; unknown
//            tools are returned to the model (`toolNotFoundBehavior: 'return_error_to_model'`).
import { readFileSync, writeFileSync, renameSync, openSync, fsyncSync, closeSync, existsSync, unlinkSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Agent, Runner, RunState, tool, Usage, protocol } from "@openai/agents";
import { serve, world, commit, trace } from "../node-pipe/pipe.mjs";

const pkg = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8"));
const VERSION = pkg("@openai/agents").version;
const MODE = process.env.TURNSTILE_OA_MODE || "plain";
if (!["plain", "careful"].includes(MODE)) throw new Error(`TURNSTILE_OA_MODE=${MODE}: plain or careful`);
const CAREFUL = MODE === "careful";

// ---- durable files in the store ------------------------------------------------------------------
const readJson = (path, fallback) => { try { return JSON.parse(readFileSync(path, "utf8")); } catch (e) { if (e.code === "ENOENT") return fallback; throw e; } };
function writeFile(path, text) {
  if (!CAREFUL) return writeFileSync(path, text, "utf8"); // as the SDK's FileSession example: fs.writeFile
  const tmp = `${path}.tmp`, fd = openSync(tmp, "w");      // careful: a whole new file, synced, renamed
  try { writeFileSync(fd, text, "utf8"); fsyncSync(fd); } finally { closeSync(fd); }
  renameSync(tmp, path);
}

// The SDK's Session interface over <store>/session.json: the items in order (and, careful, the
// operation ids of the history transactions already applied). Each change is a commit notice.
class FileSession {
  constructor(store, sessionId) { this.path = `${store}/session.json`; this.sessionId = sessionId; }
  load() { return readJson(this.path, { items: [], operations: {} }); }
  async save(what, doc) { await commit(`${what} (the adapter's FileSession: session.json)`, async () => writeFile(this.path, JSON.stringify(doc))); }
  async getSessionId() { return this.sessionId; }
  async getItems(limit) {
    const items = this.load().items;
    return typeof limit === "number" && limit >= 0 ? items.slice(-limit) : items;
  }
  async addItems(items) {
    if (!items.length) return;
    const doc = this.load();
    doc.items.push(...JSON.parse(JSON.stringify(items)));
    await this.save(`addItems ${items.length}`, doc);
  }
  async popItem() {
    const doc = this.load(), item = doc.items.pop();
    if (item) await this.save("popItem", doc);
    return item;
  }
  async clearSession() { await this.save("clearSession", { items: [], operations: {} }); }
}

// careful: SessionHistoryTransactionAwareSession, as the sessions guide asks ("persist the operation
// identifier and history mutation in the same backend transaction"): one file holds both.
class TransactionalFileSession extends FileSession {
  async applyHistoryTransaction({ operationId, transaction }) {
    const doc = this.load(), canon = JSON.stringify(transaction);
    if (operationId in doc.operations) {
      if (doc.operations[operationId] !== canon) throw new Error(`session history operation ${operationId} was already applied with a different transaction`);
      return;
    }
    if (transaction.type === "append_items") doc.items.push(...transaction.items);
    else if (transaction.type === "replace_suffix") {
      const start = doc.items.length - transaction.expectedSuffix.length;
      if (start < 0 || JSON.stringify(doc.items.slice(start)) !== JSON.stringify(transaction.expectedSuffix))
        throw new Error("session history suffix no longer matches the transaction precondition");
      doc.items.splice(start, transaction.expectedSuffix.length, ...transaction.replacement);
    } else throw new Error(`unknown session history transaction ${transaction.type}`);
    doc.operations[operationId] = canon;
    await this.save(`applyHistoryTransaction ${transaction.type} ${operationId}`, doc);
  }
}

// The interrupted run: RunState.toString() in <store>/runstate.json, removed when the run ends.
const statePath = (store) => `${store}/runstate.json`;
const saveState = (store, state) => commit("RunState.toString() (the adapter's save: runstate.json)", async () => writeFile(statePath(store), state.toString()));
const dropState = (store) => existsSync(statePath(store)) && commit("the run ended (the adapter's removal of runstate.json)", async () => unlinkSync(statePath(store)));
const loadState = (store, agent) => existsSync(statePath(store)) ? RunState.fromString(agent, readFileSync(statePath(store), "utf8")) : null;

// ---- messages: Agents SDK items <-> Microsoft.Extensions.AI ChatMessage wire JSON -----------------
const textOf = (content) => typeof content === "string" ? content
  : (content || []).map((c) => c.text ?? c.refusal ?? "").join("");
const parseArgs = (s) => { try { return JSON.parse(s); } catch { return s; } };
const outputOf = (o) => typeof o === "string" ? o : o?.type === "text" ? o.text : Array.isArray(o) ? o.map(outputOf).join("") : o;
// One model response's items (an assistant message and its function calls, in a row) form one
// assistant ChatMessage; its messageId is the first item's id.
function toWire(items) {
  const out = [];
  let assistant = null;
  for (const it of typeof items === "string" ? [{ role: "user", content: items }] : items) {
    if (it.role === "assistant" || it.type === "function_call") {
      if (!assistant) out.push(assistant = { role: "assistant", ...(it.id ? { messageId: it.id } : {}), contents: [] });
      if (it.type === "function_call") assistant.contents.push({ $type: "functionCall", callId: it.callId, name: it.name, arguments: parseArgs(it.arguments) });
      else assistant.contents.push({ $type: "text", text: textOf(it.content) });
      continue;
    }
    assistant = null;
    if (it.type === "function_call_result")
      out.push({ role: "tool", ...(it.id ? { messageId: it.id } : {}), contents: [{ $type: "functionResult", callId: it.callId, result: outputOf(it.output) }] });
    else if (it.role === "user" || it.role === "system" || it.role === "developer")
      out.push({ role: it.role === "user" ? "user" : "system", ...(it.id ? { messageId: it.id } : {}), contents: [{ $type: "text", text: textOf(it.content) }] });
    else out.push({ role: "unknown", contents: [{ $type: "text", text: JSON.stringify(it) }] });
  }
  return out;
}
function fromWireAssistant(w) {
  const contents = w.contents || [], text = contents.filter((c) => c.$type === "text").map((c) => c.text).join("");
  const calls = contents.filter((c) => c.$type === "functionCall");
  const output = [];
  if (text !== "" || !calls.length)
    output.push({ type: "message", id: `msg_${randomUUID()}`, role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
  for (const c of calls)
    output.push({ type: "function_call", id: `fc_${randomUUID()}`, callId: c.callId, name: c.name, arguments: JSON.stringify(c.arguments ?? {}), status: "completed" });
  return output;
}

// ---- the engine: a Model that asks the harness, one tool per catalogue entry ----------------------
class HarnessModel {
  async getResponse(request) {
    const reply = await world({ call: "model", messages: toWire(request.input) });
    return { usage: new Usage(), output: fromWireAssistant(reply), responseId: `resp_${randomUUID()}` };
  }
  async *getStreamedResponse(request) {
    const response = await this.getResponse(request);
    yield { type: "response_done", response: { id: response.responseId, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: response.output } };
  }
}

// Results that arrived for this process: the harness's answer to a call (asked in needsApproval),
// and a `complete` action's delivered result for an approved (formerly pending) call.
const answered = new Map();
const harnessTool = ({ name, description, parameters }) => tool({
  name, description: description || name, strict: false,
  parameters: parameters && parameters.type === "object" ? { additionalProperties: true, ...parameters } : { type: "object", properties: {}, additionalProperties: true },
  // An asynchronous tool is one that must wait for somebody: the SDK's word for that is approval.
  // The SDK evaluates this again for a call still undecided when a saved RunState resumes (tool.d.ts:
  // "After state restoration, the policy is evaluated again"). careful: the submission of a pending
  // call is recorded in the run context, which RunState.toString() keeps, so it is not submitted again.
  needsApproval: async (ctx, args, callId) => {
    if (answered.has(callId)) return false;
    const submitted = CAREFUL ? (ctx.context.submitted ??= {}) : {};
    if (submitted[callId]) return true;
    const r = await world({ call: "tool", name, callId, arguments: args });
    if (r.pending) { submitted[callId] = true; return true; }
    answered.set(callId, r);
    return false;
  },
  execute: async (_args, _ctx, details) => {
    const callId = details?.toolCall?.callId;
    const r = answered.get(callId);
    answered.delete(callId);
    if (!r) throw new Error(`no result for call ${callId}`);
    if ("error" in r) throw new Error(String(r.error));
    return typeof r.result === "string" ? r.result : JSON.stringify(r.result);
  },
  errorFunction: (_ctx, error) => `error: ${error?.message ?? error}`,
});

function engineFor(req) {
  const agent = new Agent({ name: "turnstile", instructions: "", model: new HarnessModel(), tools: (req.tools || []).map(harnessTool) });
  const runner = new Runner({ tracingDisabled: true, ...(CAREFUL ? { toolNotFoundBehavior: "return_error_to_model" } : {}) });
  const session = new (CAREFUL ? TransactionalFileSession : FileSession)(req.store, req.thread);
  return { agent, runner, session };
}

// Runs the agent on `input` (a string or a RunState) and keeps the run's outcome in the store.
async function runAndKeep({ agent, runner, session }, store, input) {
  const context = typeof input === "string" ? { context: {} } : {};
  let result = await runner.run(agent, input, { session, ...context, ...(CAREFUL ? { stream: true } : {}) });
  if (CAREFUL) await result.completed;
  if (result.interruptions?.length) { await saveState(store, result.state); return "waiting"; }
  await dropState(store);
  return "idle";
}

async function resume(req) {
  const engine = engineFor(req), a = req.action || {};
  const state = await loadState(req.store, engine.agent);
  if ("user" in a) {
    if (state && CAREFUL) { // stage the message on the interrupted run: it joins before the next model call
      state.addInput(String(a.user));
      await saveState(req.store, state);
      return { status: "waiting" };
    }
    return { status: await runAndKeep(engine, req.store, String(a.user)) };
  }
  if ("complete" in a) {
    const item = state?.getInterruptions().find((i) => i.rawItem?.callId === a.complete);
    if (!item) return { status: state ? "waiting" : "idle" }; // nothing waits for this call
    answered.set(a.complete, "error" in a ? { error: a.error } : { result: a.result });
    state.approve(item);
    return { status: await runAndKeep(engine, req.store, state) };
  }
  if ("recover" in a) return { status: state ? "waiting" : "idle" }; // an interrupted run waits; nothing else was kept
  if ("read" in a) {
    // the session's items, and input staged on the interrupted run (careful): durably accepted
    const items = [...await engine.session.getItems(), ...(state?.pendingInput ?? [])];
    return { status: state ? "waiting" : "idle", messages: toWire(items) };
  }
  return { error: `unknown action ${JSON.stringify(a)}` };
}

trace("start", MODE);
serve({ name: `openai-agents-js${CAREFUL ? "-careful" : ""}`, version: VERSION, ops: ["resume"], async: true }, resume);
