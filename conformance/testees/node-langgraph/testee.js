#!/usr/bin/env node
// node-langgraph: a turnstile testee for the `resume` op (conformance/PROTOCOL.md), driving a
// real LangGraph JS ReAct graph over a SqliteSaver or a PostgresSaver. The harness plays the LLM and the tools; this
// file only wires LangGraph to it and translates LangChain messages <-> MEAI ChatMessage JSON.
// It never repairs the engine's behaviour (no dedup, no reordering, no orphan-call repair).
//
//   turnstile certify --cases 'Resume.*' --kill-settle 100 --timeout 60 -- node conformance/testees/node-langgraph/testee.js
//
// Knobs (environment; the defaults are what a plain LangGraph application does):
//   TURNSTILE_LG_TOOLS=node|send        node: one ToolNode task runs every call of the AI message
//                                       (createReactAgent v1, the ToolNode docs); send: one task
//                                       per call via Send (createReactAgent v2)
//   TURNSTILE_LG_DURABILITY=async|sync|exit   passed to invoke() (library default: async)
//   TURNSTILE_LG_RECOVER=next|always|unless-waiting   recover runs invoke(null) when
//                                       getState().next is non-empty (next), always (the documented
//                                       "resume after a failure" call), or unless a task holds an
//                                       interrupt (unless-waiting)
//   TURNSTILE_LG_RESUME=value|map        complete resumes with Command({resume: value}) or with a
//                                       resume map {[interruptId]: value} naming the call's interrupt
//   TURNSTILE_LG_SAVER=sqlite|postgres   the checkpointer: SqliteSaver over <store>/checkpoints.db
//                                       (default), or PostgresSaver on the server TURNSTILE_LG_PG_URL
//                                       names (a connection string to its maintenance database), in a
//                                       database of its own per store directory (created on first use)
//   TURNSTILE_LG_SQLITE_SYNC=full|normal  PRAGMA synchronous on SqliteSaver's connection (default: not
//                                       set, better-sqlite3's NORMAL in WAL mode: no fsync per commit)
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { StateGraph, MessagesAnnotation, START, END, Command, Send, interrupt } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { tool } from "@langchain/core/tools";

const pkg = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8"));
const VERSION = pkg("@langchain/langgraph").version;
const TOOLS_MODE = process.env.TURNSTILE_LG_TOOLS || "node";
const DURABILITY = process.env.TURNSTILE_LG_DURABILITY || undefined; // undefined: LangGraph's default
const RECOVER = process.env.TURNSTILE_LG_RECOVER || "next";
const RESUME = process.env.TURNSTILE_LG_RESUME || "value";
const SAVER = process.env.TURNSTILE_LG_SAVER || "sqlite";
if (!["sqlite", "postgres"].includes(SAVER)) throw new Error(`TURNSTILE_LG_SAVER=${SAVER}: sqlite or postgres`);

// ---- the line channel: requests, and the replies to our world calls, arrive on stdin in order --
const queued = [], waiting = [];
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => { if (line.trim()) (waiting.length ? waiting.shift() : (l) => queued.push(l))(line); });
rl.on("close", () => process.exit(0)); // end of input: exit now (PROTOCOL.md)
const nextLine = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((r) => waiting.push(r)));
const TRACE = process.env.TURNSTILE_LG_TRACE ? (...a) => process.stderr.write(`${process.pid} ${performance.now().toFixed(1)} ${a.join(" ")}\n`) : () => {};
const send = (obj) => { TRACE(">", JSON.stringify(obj).slice(0, 160)); process.stdout.write(JSON.stringify(obj) + "\n"); };

let caseId = null; // the id of the request in flight; world calls carry it
// One world call (model, tool or commit notice): written and its reply slot taken in one
// synchronous step, so calls LangGraph makes concurrently (parallel tools, async checkpoint
// writes) are answered in the order they were written.
function world(obj) {
  send({ id: caseId, ...obj });
  return nextLine().then((line) => {
    const r = JSON.parse(line);
    if (r.id === caseId && typeof r.error === "string") throw new Error(`the ${obj.call || "world"} call failed: ${r.error}`);
    if (r.id !== caseId || !("reply" in r || "ack" in r)) throw new Error(`expected a reply, got ${line.slice(0, 200)}`);
    return r.reply ?? r;
  });
}

// ---- messages: LangChain <-> Microsoft.Extensions.AI ChatMessage wire JSON ----------------------
const textOf = (content) => typeof content === "string" ? content
  : (content || []).map((b) => (typeof b === "string" ? b : b.type === "text" ? b.text : "")).join("");
function toWire(m) {
  const type = m.getType(), contents = [], text = textOf(m.content);
  const out = { role: { human: "user", ai: "assistant", tool: "tool", system: "system" }[type] || type };
  if (m.id) out.messageId = m.id;
  if (type === "tool") contents.push({ $type: "functionResult", callId: m.tool_call_id, result: m.content });
  else if (text !== "" || type !== "ai") contents.push({ $type: "text", text });
  for (const c of type === "ai" ? m.tool_calls || [] : [])
    contents.push({ $type: "functionCall", callId: c.id, name: c.name, arguments: c.args });
  out.contents = contents;
  return out;
}
function fromWireAssistant(w) {
  const contents = w.contents || [];
  return new AIMessage({
    ...(w.messageId ? { id: w.messageId } : {}),
    content: contents.filter((c) => c.$type === "text").map((c) => c.text).join(""),
    tool_calls: contents.filter((c) => c.$type === "functionCall")
      .map((c) => ({ id: c.callId, name: c.name, args: c.arguments ?? {}, type: "tool_call" })),
  });
}

// ---- the engine: a chat model that asks the harness, one generic tool per catalogue entry -------
class HarnessChatModel extends BaseChatModel {
  _llmType() { return "turnstile-harness"; }
  async _generate(messages) {
    const message = fromWireAssistant(await world({ call: "model", messages: messages.map(toWire) }));
    return { generations: [{ text: textOf(message.content), message }] };
  }
}

const harnessTool = ({ name, description, parameters }) => tool(async (args, runtime) => {
  const callId = runtime?.toolCall?.id ?? runtime?.toolCallId;
  let r = await world({ call: "tool", name, callId, arguments: args });
  // An asynchronous tool: suspend the graph; `complete` resumes with {result} or {error}.
  if (r.pending) r = interrupt({ callId, name });
  if (r && "error" in r) throw new Error(String(r.error));
  return r.result;
}, { name, description: description || name, schema: parameters || { type: "object" } });

// The checkpointer: LangGraph's SqliteSaver or PostgresSaver, with both of its commits reported to
// the harness (`detail`, an extra member, says which checkpoint step or which channels the commit holds).
const notifying = (Saver) => class extends Saver {
  async put(config, checkpoint, metadata, versions) {
    const detail = `step ${metadata?.step} ${metadata?.source}`;
    return this.#commit("put", detail, () => super.put(config, checkpoint, metadata, versions));
  }
  async putWrites(config, writes, taskId) {
    const detail = writes.map(([channel]) => channel).join(",");
    // The saver serializes the writes inside this call, before its first await; the loop goes on to mutate
    // the same message objects (the reducer stamps ids), so waiting for the ack must not let those
    // later changes into this commit: freeze the values now, exactly as the saver would store them.
    const frozen = Promise.all(writes.map(async ([channel, value]) =>
      [channel, await this.serde.loadsTyped(...(await this.serde.dumpsTyped(value)))]));
    return this.#commit("putWrites", detail, async () => super.putWrites(config, await frozen, taskId));
  }
  async #commit(what, detail, write) {
    await world({ commit: "before", what, detail });
    const result = await write();
    TRACE("wrote", what, detail);
    await world({ commit: "after", what, detail });
    return result;
  }
};

// PostgresSaver: one database per store directory (the certifier gives each case and each kill run
// an empty one), named from its path, created on first use; the databases of store directories that
// no longer exist (cases that ended) are dropped then, so a sweep does not fill the server.
async function postgresSaver(store) {
  const [{ PostgresSaver }, { default: pg }] = await Promise.all([import("@langchain/langgraph-checkpoint-postgres"), import("pg")]);
  const admin = process.env.TURNSTILE_LG_PG_URL;
  if (!admin) throw new Error("TURNSTILE_LG_SAVER=postgres needs TURNSTILE_LG_PG_URL (a connection string to the server)");
  const name = `turnstile_${createHash("sha256").update(store).digest("hex").slice(0, 24)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT d.datname, shobj_description(d.oid, 'pg_database') AS store FROM pg_database d WHERE d.datname LIKE 'turnstile\\_%'");
    for (const row of rows) if (row.datname !== name && row.store && !existsSync(row.store)) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    if (!rows.some((row) => row.datname === name)) {
      await client.query(`CREATE DATABASE "${name}"`);
      await client.query(`COMMENT ON DATABASE "${name}" IS ${client.escapeLiteral(store)}`);
    }
  } finally { await client.end(); }
  const url = admin.replace(/\/[^/?]*(\?|$)/, `/${name}$1`); // the same server, the store's database
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // pg's documented duty: an idle client's error (the server ended it) is emitted on the pool
  pool.on("error", (e) => process.stderr.write(`node-langgraph: idle PostgreSQL client: ${e.message}\n`));
  const saver = new (notifying(PostgresSaver))(pool);
  await saver.setup();
  return saver;
}

// TURNSTILE_LG_SQLITE_SYNC=full|normal|...: PRAGMA synchronous on SqliteSaver's connection (the adapter's
// choice, off by default). Unset, the connection keeps better-sqlite3's default, synchronous=NORMAL in WAL
// mode (deps/defines.gypi SQLITE_DEFAULT_WAL_SYNCHRONOUS=1): no fsync per commit.
function sqliteDatabase(path) {
  const db = new Database(path);
  if (process.env.TURNSTILE_LG_SQLITE_SYNC) db.pragma(`synchronous=${process.env.TURNSTILE_LG_SQLITE_SYNC}`);
  return db;
}

async function buildGraph(store, tools) {
  const checkpointer = SAVER === "postgres" ? await postgresSaver(store)
    : new (notifying(SqliteSaver))(sqliteDatabase(`${store}/checkpoints.db`));
  const model = new HarnessChatModel({});
  const route = TOOLS_MODE === "send"
    ? (state) => { // createReactAgent v2: one task per call
      const last = state.messages[state.messages.length - 1];
      return last?.tool_calls?.length ? last.tool_calls.map((c) => new Send("tools", { ...state, lg_tool_call: c })) : END;
    }
    : toolsCondition;
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode(tools.map(harnessTool)))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", route, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}

let engine = { key: null, graph: null };
async function graphFor(req) {
  const key = JSON.stringify([req.store, req.tools || []]);
  if (engine.key !== key) {
    await engine.checkpointer?.end?.(); // PostgresSaver: close the previous store's pool before its database may go
    const graph = await buildGraph(req.store, req.tools || []);
    engine = { key, graph, checkpointer: graph.checkpointer };
  }
  return engine.graph;
}

const interruptsOf = (state) => state.tasks.flatMap((t) => t.interrupts || []);

// ---- branches: edit and fork through LangGraph's time travel (SPEC.md §6.4, issue 27) ----------
// A branch starts at a past checkpoint of the thread's current chain (walked back through
// parentConfig from the head): updateState on it writes a checkpoint whose parent is that one (a
// fork: the old chain stays in the saver, readable), and invoke(null) on the fork runs the graph
// from there. An edit of user message K replaces it by id at the checkpoint where it is the last
// message (the messages reducer replaces a message with the same id); a fork before assistant
// message N adds the new message at the checkpoint where the messages before it are all there and
// the agent is next. A fork at the end is a new message (nothing to abandon).
// Messages are compared by what they say (type, text, calls, the call a result answers), not by id:
// LangGraph names a user message by an id minted when its write is applied, so two checkpoints may
// hold the same message under two ids (FINDINGS F8 of node-langgraph).
const said = (m) => JSON.stringify([m.getType(), textOf(m.content), (m.tool_calls || []).map((c) => c.id), m.tool_call_id ?? null]);
const samePrefix = (messages, prefix) => messages.length === prefix.length && prefix.every((m, i) => said(messages[i]) === said(m));
async function checkpointWith(graph, config, prefix) {
  for (let s = await graph.getState(config); s?.config; s = s.parentConfig ? await graph.getState(s.parentConfig) : null)
    if (samePrefix(s.values.messages || [], prefix) && s.next.includes("agent")) return s;
  return null;
}
async function branch(graph, config, kind, at, text) {
  const state = await graph.getState(config), messages = state.values.messages || [];
  const positions = messages.flatMap((m, i) => (m.getType() === (kind === "edit" ? "human" : "ai") ? [i] : []));
  const pending = interruptsOf(state).length > 0;
  if (kind === "fork" && at === positions.length && !pending) {
    await graph.invoke({ messages: [new HumanMessage(text)] }, config);
    return;
  }
  if (!Number.isInteger(at) || at < 0 || at >= positions.length)
    throw new Error(`refused: the conversation has no ${kind === "edit" ? "user" : "assistant"} message ${at} (it holds ${positions.length})${kind === "fork" && at === positions.length ? ", and a call is pending" : ""}`);
  const cut = positions[at], prefix = messages.slice(0, kind === "edit" ? cut + 1 : cut);
  const start = await checkpointWith(graph, config, prefix);
  if (!start) throw new Error(`no checkpoint of this thread holds the ${prefix.length} messages before the ${kind}`);
  const last = prefix[prefix.length - 1], replaced = (start.values.messages || [])[prefix.length - 1]; // as that checkpoint names it
  const update = kind === "edit" ? new HumanMessage({ id: replaced.id, content: text }) : new HumanMessage(text);
  const asNode = !last || last.getType() === "human" ? START : "tools";
  const forked = await graph.updateState(start.config, { messages: [update] }, asNode);
  await graph.invoke(null, { ...config, configurable: { ...config.configurable, ...forked.configurable } });
}
// Every branch the saver keeps: the messages of each checkpoint of the thread that no other
// checkpoint continues (the head among them).
async function history(graph, config) {
  const all = [];
  for await (const s of graph.getStateHistory(config)) all.push(s);
  const parents = new Set(all.map((s) => s.parentConfig?.configurable?.checkpoint_id).filter(Boolean));
  return all.filter((s) => !parents.has(s.config.configurable.checkpoint_id)).reverse()
    .map((s) => (s.values.messages || []).map(toWire));
}

async function resume(req) {
  const graph = await graphFor(req), a = req.action || {};
  const config = { configurable: { thread_id: req.thread }, ...(DURABILITY ? { durability: DURABILITY } : {}) };
  if ("edit" in a || "fork" in a) {
    const kind = "edit" in a ? "edit" : "fork";
    await branch(graph, config, kind, a[kind], String(a.user));
  } else if ("user" in a) {
    await graph.invoke({ messages: [new HumanMessage(String(a.user))] }, config);
  } else if ("recover" in a) {
    const state = await graph.getState(config);
    const inFlight = !state.config?.configurable?.checkpoint_id ? false : RECOVER === "always" ? true : RECOVER === "unless-waiting" ? !interruptsOf(state).length : state.next.length > 0;
    if (inFlight) await graph.invoke(null, config);
  } else if ("complete" in a) {
    const value = "error" in a ? { error: a.error } : { result: a.result };
    // map: name the interrupt of this call (needed when several are pending)
    const it = RESUME === "map" && interruptsOf(await graph.getState(config)).find((i) => i.value?.callId === a.complete);
    await graph.invoke(new Command({ resume: it?.id ? { [it.id]: value } : value }), config);
  } else if (!("read" in a)) {
    return { error: `unknown action ${JSON.stringify(a)}` };
  }
  const state = await graph.getState(config);
  const answer = { status: interruptsOf(state).length ? "waiting" : "idle" };
  if ("read" in a) answer.messages = (state.values.messages || []).map(toWire);
  if ("read" in a && a.history) answer.history = await history(graph, config);
  return answer;
}

async function answer(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) { return null; }
  if (!req || typeof req !== "object" || typeof req.id !== "string") return null;
  caseId = req.id;
  if (req.op === "hello") {
    return { hello: { name: SAVER === "postgres" ? "langgraph-js-postgres" : "langgraph-js", version: VERSION, ops: ["resume"], async: true, branch: ["edit", "fork", "history"] } };
  }
  if (req.op !== "resume") return { unsupported: true };
  try { return await resume(req); } catch (e) { return { error: `${e.name}: ${e.message}` }; }
}

for (;;) {
  const line = await nextLine();
  const reply = await answer(line);
  if (reply) send({ id: caseId, ...reply });
}
