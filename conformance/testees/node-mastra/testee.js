#!/usr/bin/env node
// node-mastra: a turnstile testee for the `resume` op (conformance/PROTOCOL.md), driving Mastra
// (@mastra/core) over LibSQL (@mastra/libsql) in the request's store directory. The harness plays
// the model (an AI SDK LanguageModelV2 object whose doGenerate/doStream ask it, call:model) and the
// tools (one createTool per catalogue entry, call:tool). An asynchronous tool (the harness answers
// `pending`) suspends its tool call with the documented runtime suspension,
// `context.agent.suspend()`; `complete` resumes the suspended run with the result as resume data, in
// a new process, after finding the run in storage (`listSuspendedRuns`). The conversation is the
// agent's memory (@mastra/memory) on the request's thread. Every write of Mastra's storage domains
// (memory, workflow snapshots, thread state) is reported as a commit notice.
// It never repairs the engine's behaviour (no dedup, no reordering, no orphan-call repair).
//
//   turnstile certify --cases 'Resume.*' --kill-settle 100 --timeout 60 -- node conformance/testees/node-mastra/testee.js
//
// TURNSTILE_MASTRA_MODE=plain|careful (default plain):
//   plain    what the docs' quickstarts write: an Agent with `new Memory()` (its default history
//            window), `generate()`, a suspended run found with `listSuspendedRuns` and continued with
//            `resumeGenerate`; a user message while a run is suspended starts a new generate();
//            recovery only reports a suspended run.
//   careful  the durable agent (`durable` on the agent config, as createDurableAgent: the agentic loop
//            runs inside a workflow whose snapshots, `running` ones included, are persisted), messages
//            saved after every step (`savePerStep`), the whole thread in context (`lastMessages:
//            Number.MAX_SAFE_INTEGER`), recovery with `recover()` for each run `listActiveRuns()` finds
//            (what `recoverActiveRuns()` does, observable), suspended runs resumed with `resume()`.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Mastra } from "@mastra/core";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Memory } from "@mastra/memory";
import { LibSQLStore } from "@mastra/libsql";
import { z } from "zod";
import { serve, world, trace } from "../node-pipe/pipe.mjs";

const pkg = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8"));
const VERSION = pkg("@mastra/core").version;
const MODE = process.env.TURNSTILE_MASTRA_MODE || "plain";
if (!["plain", "careful"].includes(MODE)) throw new Error(`TURNSTILE_MASTRA_MODE=${MODE}: plain or careful`);
const CAREFUL = MODE === "careful";
const RESOURCE = "turnstile-user";
const QUIET_MS = 250; // careful: storage silent this long after a durable run's stream ended = done

// ---- messages: AI SDK prompt / Mastra memory <-> Microsoft.Extensions.AI ChatMessage wire JSON -----
const toolOutput = (o) => o?.type === "json" || o?.type === "text" ? o.value : o?.type === "error-text" || o?.type === "error-json" ? o.value : o;
// The model's prompt (LanguageModelV2Prompt) as the wire conversation.
function promptToWire(prompt) {
  const out = [];
  for (const m of prompt) {
    if (m.role === "system") continue;
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "tool") {
      for (const p of parts) if (p.type === "tool-result") out.push({ role: "tool", contents: [{ $type: "functionResult", callId: p.toolCallId, result: toolOutput(p.output) }] });
      continue;
    }
    const contents = [];
    for (const p of parts) {
      if (p.type === "text") contents.push({ $type: "text", text: p.text });
      else if (p.type === "tool-call") contents.push({ $type: "functionCall", callId: p.toolCallId, name: p.toolName, arguments: typeof p.input === "string" ? JSON.parse(p.input) : p.input });
    }
    out.push({ role: m.role, contents });
  }
  return out;
}
// A stored Mastra message (format 2: parts) as wire messages: an assistant message per step (a
// `step-start` part begins one), each tool invocation's result as a tool message after its step.
function storedToWire(m) {
  const base = (role, id) => ({ role, ...(id ? { messageId: id } : {}), ...(m.createdAt ? { createdAt: new Date(m.createdAt).toISOString() } : {}), contents: [] });
  const parts = m.content?.parts ?? (typeof m.content === "string" ? [{ type: "text", text: m.content }] : []);
  if (m.role !== "assistant") {
    const w = base(m.role, m.id);
    for (const p of parts) if (p.type === "text") w.contents.push({ $type: "text", text: p.text });
    return [w];
  }
  const out = [];
  let step = null, results = [];
  const flush = () => { if (step && step.contents.length) out.push(step, ...results); step = null; results = []; };
  for (const p of parts) {
    if (p.type === "step-start") { flush(); continue; }
    if (!step) step = base("assistant", out.length ? `${m.id}#${out.length}` : m.id);
    if (p.type === "text") step.contents.push({ $type: "text", text: p.text });
    else if (p.type === "tool-invocation") {
      const t = p.toolInvocation;
      step.contents.push({ $type: "functionCall", callId: t.toolCallId, name: t.toolName, arguments: t.args ?? {} });
      // results: "result" (AI SDK 4 parts), "output-available" / "output-error" (AI SDK 5 states)
      if (t.state === "result" || t.state === "output-available") results.push({ role: "tool", contents: [{ $type: "functionResult", callId: t.toolCallId, result: t.result ?? t.output }] });
      else if (t.state === "output-error") results.push({ role: "tool", contents: [{ $type: "functionResult", callId: t.toolCallId, result: `error: ${t.errorText}` }] });
    }
  }
  flush();
  return out;
}

// ---- the engine: a LanguageModelV2 that asks the harness, one tool per catalogue entry -----------
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const harnessModel = {
  specificationVersion: "v2", provider: "turnstile", modelId: "harness", supportedUrls: {},
  async doGenerate(options) {
    const reply = await world({ call: "model", messages: promptToWire(options.prompt) });
    const content = [];
    const text = (reply.contents || []).filter((c) => c.$type === "text").map((c) => c.text).join("");
    const calls = (reply.contents || []).filter((c) => c.$type === "functionCall");
    if (text !== "" || !calls.length) content.push({ type: "text", text });
    for (const c of calls) content.push({ type: "tool-call", toolCallId: c.callId, toolName: c.name, input: JSON.stringify(c.arguments ?? {}) });
    return { content, finishReason: calls.length ? "tool-calls" : "stop", usage, warnings: [] };
  },
  async doStream(options) {
    const r = await this.doGenerate(options);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue({ type: "stream-start", warnings: [] });
        for (const p of r.content) {
          if (p.type === "text") { const id = randomUUID(); c.enqueue({ type: "text-start", id }); c.enqueue({ type: "text-delta", id, delta: p.text }); c.enqueue({ type: "text-end", id }); }
          else c.enqueue(p);
        }
        c.enqueue({ type: "finish", finishReason: r.finishReason, usage });
        c.close();
      },
    });
    return { stream };
  },
};

// A tool the harness plays: it asks the harness; `pending` suspends the call (runtime suspension);
// when the run is resumed, the resume data is the delivered result.
const harnessTool = ({ name, description }) => createTool({
  id: name, description: description || name,
  inputSchema: z.looseObject({}),
  suspendSchema: z.object({ callId: z.string() }),
  resumeSchema: z.looseObject({}),
  execute: async (input, context) => {
    const agentCtx = context?.agent ?? {};
    let r = agentCtx.resumeData;
    if (!r) {
      r = await world({ call: "tool", name, callId: agentCtx.toolCallId, arguments: input });
      if (r.pending) return await agentCtx.suspend({ callId: agentCtx.toolCallId });
    }
    if ("error" in r) throw new Error(String(r.error));
    return r.result;
  },
});

// ---- storage: LibSQL in the store; its writes reported as commit notices -------------------------
const WRITES = /^(save|update|persist|delete|create|upsert|insert|batch|clear|set|copy|clone)/;
// storage writes in flight and the time the last one began (careful: the durable agent's workflow
// goes on writing after its stream ends; the answer waits until storage has been quiet a while)
const writes = { inFlight: 0, lastStart: 0 };
function announceWrites(domainName, domain) {
  const names = new Set();
  for (let p = domain; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) Object.getOwnPropertyNames(p).forEach((n) => names.add(n));
  for (const n of names) {
    if (!WRITES.test(n) || typeof domain[n] !== "function" || n === "setupPragmaSettings") continue;
    const original = domain[n].bind(domain), what = `${domainName}.${n} (Mastra's LibSQLStore)`;
    domain[n] = async (...args) => {
      writes.inFlight++; writes.lastStart = Date.now();
      try {
        await world({ commit: "before", what });
        const result = await original(...args);
        await world({ commit: "after", what });
        return result;
      } finally { writes.inFlight--; }
    };
  }
}

let engine = { key: null };
async function engineFor(req) {
  const key = JSON.stringify([req.store, req.tools || []]);
  if (engine.key === key) return engine;
  const storage = new LibSQLStore({ id: "turnstile", url: `file:${req.store}/mastra.db` });
  await storage.init();
  for (const d of ["memory", "workflows", "threadState"]) if (storage.stores?.[d]) announceWrites(d, storage.stores[d]);
  const memory = new Memory({ ...(CAREFUL ? { options: { lastMessages: Number.MAX_SAFE_INTEGER } } : {}) });
  const tools = Object.fromEntries((req.tools || []).map((t) => [t.name, harnessTool(t)]));
  // careful: the durable agent, with `running` checkpoints kept so that recoverActiveRuns() finds
  // a run a crash interrupted (docs-harness-durable-agents.md, "Snapshot persistence")
  const durable = CAREFUL ? { durable: { cleanupTimeoutMs: 0, shouldPersistSnapshot: ({ workflowStatus }) => ["pending", "paused", "suspended", "running"].includes(workflowStatus) } } : {};
  const agent = new Agent({ id: "turnstile", name: "turnstile", instructions: "", model: harnessModel, tools, memory, ...durable });
  const mastra = new Mastra({ agents: { turnstile: agent }, storage, logger: false });
  engine = { key, mastra, agent: mastra.getAgent("turnstile"), memory };
  return engine;
}

// careful: messages saved after every step (`savePerStep`, reference-agents-generate.md), not at the end
const options = (req) => ({ memory: { thread: req.thread, resource: RESOURCE }, maxSteps: 100, ...(CAREFUL ? { closeOnSuspend: true, savePerStep: true } : {}) });
// careful: a durable run is a stream; its full output says how it ended
// and, for the answer to be the last line, the workflow that runs it must have finished writing: wait
// until the run is no longer among the agent's active (`running`) runs
async function finished(started, agent) {
  const r = await started;
  if (!CAREFUL) return r;
  const out = await r.output.getFullOutput();
  const settled = async () => !(await agent.listActiveRuns({})).runs.some((run) => run.runId === r.runId)
    && (out.finishReason !== "suspended" || (await agent.listSuspendedRuns({})).runs.some((run) => run.runId === r.runId));
  const quiet = () => writes.inFlight === 0 && Date.now() - writes.lastStart > QUIET_MS;
  while (!(await settled()) || !quiet()) await new Promise((ok) => setTimeout(ok, 10));
  r.cleanup?.();
  return out;
}
const suspendedRuns = async (e, req) => (await e.agent.listSuspendedRuns({ threadId: req.thread, resourceId: RESOURCE })).runs;
const statusOf = (out) => out.finishReason === "suspended" ? "waiting" : "idle";

// ---- branches: fork and edit through Mastra's thread cloning (SPEC.md §6.4, issue 27) -------------
// Mastra's branching API is `Memory.cloneThread` ("useful for branching conversations",
// docs-memory-message-history.md, "Thread cloning"): a new thread holding the messages the filter
// selects (`options.messageFilter.messageIds`), with `metadata.clone.sourceThreadId` naming its
// source; the source thread is kept as it was. A branch clones the stored messages before the cut and
// runs the agent on the clone with the new message, as the docs' example continues a clone with
// `agent.generate(..., { memory: { thread: clone.id } })`. An edit of user message K is the clone of
// the messages before it; a fork before assistant message N the clone of the stored messages before
// it (a stored message is a whole response: a fork inside one is refused as what cloning cannot
// select). The request's thread is the root of its clones; the branch the user is on is the newest
// clone in that tree (Mastra keeps no "current branch": an application remembers it, here in the
// library's own clone metadata). Every branch stays readable: the history read is each thread of the tree.
async function branchTree(e, root) {
  const memory = await e.agent.getMemory(), all = [];
  const rootThread = await memory.getThreadById({ threadId: root });
  for (let frontier = rootThread ? [rootThread] : []; frontier.length;) {
    all.push(...frontier);
    frontier = (await Promise.all(frontier.map((t) => memory.listClones(t.id, RESOURCE)))).flat();
  }
  return all;
}
const clonedAt = (t) => new Date(t.metadata?.clone?.clonedAt ?? t.createdAt).getTime();
async function currentThread(e, req) {
  const tree = await branchTree(e, req.thread);
  return tree.length ? tree.reduce((a, b) => (clonedAt(b) >= clonedAt(a) ? b : a)).id : req.thread;
}
async function storedMessages(e, threadId) {
  const memory = await e.agent.getMemory();
  return await memory.getThreadById({ threadId }) ? (await memory.recall({ threadId, resourceId: RESOURCE, perPage: false })).messages : [];
}
async function branch(e, req, kind, at, text) {
  const thread = await currentThread(e, req), stored = await storedMessages(e, thread);
  const pending = (await e.agent.listSuspendedRuns({ threadId: thread, resourceId: RESOURCE })).runs.length > 0;
  // positions in the wire conversation: user messages (each a stored message), or assistant
  // messages (a stored assistant message is one per step: its first step carries the stored id)
  const positions = kind === "edit" ? stored.flatMap((m, i) => (m.role === "user" ? [{ index: i, whole: true }] : []))
    : stored.flatMap((m, i) => (m.role === "assistant" ? storedToWire(m).filter((w) => w.role === "assistant").map((w) => ({ index: i, whole: w.messageId === m.id })) : []));
  const run = (threadId) => e.agent.generate(text, { ...options(req), memory: { thread: threadId, resource: RESOURCE } });
  if (kind === "fork" && at === positions.length && !pending) return statusOf(await run(thread));
  if (!Number.isInteger(at) || at < 0 || at >= positions.length)
    throw new Error(`refused: the conversation has no ${kind === "edit" ? "user" : "assistant"} message ${at} (it holds ${positions.length})${kind === "fork" && at === positions.length ? ", and a call is pending" : ""}`);
  if (!positions[at].whole) throw new Error(`assistant message ${at} is a later step of stored message ${stored[positions[at].index].id}: cloneThread selects whole stored messages`);
  const memory = await e.agent.getMemory();
  const { thread: clone } = await memory.cloneThread({ sourceThreadId: thread, options: { messageFilter: { messageIds: stored.slice(0, positions[at].index).map((m) => m.id) } } });
  return statusOf(await run(clone.id));
}

async function resume(req) {
  const e = await engineFor(req), a = req.action || {}, root = req.thread;
  if ("edit" in a || "fork" in a) {
    const kind = "edit" in a ? "edit" : "fork";
    return { status: await branch(e, req, kind, a[kind], String(a.user)) };
  }
  req = { ...req, thread: await currentThread(e, req) }; // every other action is on the branch the user is on
  if ("user" in a) return { status: statusOf(await finished(CAREFUL ? e.agent.stream(String(a.user), options(req)) : e.agent.generate(String(a.user), options(req)), e.agent)) };
  if ("complete" in a) {
    const run = (await suspendedRuns(e, req)).find((r) => r.toolCalls.some((t) => t.toolCallId === a.complete));
    if (!run) return { status: (await suspendedRuns(e, req)).length ? "waiting" : "idle" };
    const data = "error" in a ? { error: a.error } : { result: a.result };
    return { status: statusOf(await finished(CAREFUL ? e.agent.resume(run.runId, data, { ...options(req), toolCallId: a.complete })
      : e.agent.resumeGenerate(data, { ...options(req), runId: run.runId, toolCallId: a.complete }), e.agent)) };
  }
  if ("recover" in a) {
    // careful: re-drive the runs a crash left `running` (the documented recovery), then report
    if (CAREFUL) for (const run of (await e.agent.listActiveRuns({ threadId: req.thread, resourceId: RESOURCE })).runs)
      await finished(e.agent.recover(run.runId, {}), e.agent);
    return { status: (await suspendedRuns(e, req)).length ? "waiting" : "idle" };
  }
  if ("read" in a) {
    const memory = await e.agent.getMemory();
    // a thread that was never saved is an empty conversation (recall throws "No thread found")
    const { messages } = await memory.getThreadById({ threadId: req.thread })
      ? await memory.recall({ threadId: req.thread, resourceId: RESOURCE, perPage: false }) : { messages: [] };
    if (process.env.TURNSTILE_MASTRA_DUMP) process.stderr.write(JSON.stringify(messages, null, 1) + "\n");
    const answer = { status: (await suspendedRuns(e, req)).length ? "waiting" : "idle", messages: messages.flatMap(storedToWire) };
    if (a.history) answer.history = await Promise.all((await branchTree(e, root)).map(async (t) => (await storedMessages(e, t.id)).flatMap(storedToWire)));
    return answer;
  }
  return { error: `unknown action ${JSON.stringify(a)}` };
}

trace("start", MODE);
serve({ name: `mastra${CAREFUL ? "-careful" : ""}`, version: VERSION, ops: ["resume"], async: true, ...(CAREFUL ? {} : { branch: ["edit", "fork", "history"] }) }, resume);
