#!/usr/bin/env node
// node-langchain-merge: a turnstile merge testee (conformance/PROTOCOL.md, op `merge`) whose merge is
// LangChain JS's: each Microsoft.Extensions.AI AgentResponseUpdate (the wire shape of SPEC.md §2) is
// turned into the LangChain message chunk a chat model would stream, the chunks are folded with
// `concat` from @langchain/core, and the folded message(s) are written back as an AgentResponse.
// The adapter translates fields and never repairs what `concat` does.
//
//   turnstile certify -- node conformance/testees/node-langchain-merge/testee.js
//
// The translation (both integrations), in LangChain's own conventions for streamed chunks:
//   role assistant (or none) → AIMessageChunk; user → HumanMessageChunk; system → SystemMessageChunk;
//   tool → ToolMessageChunk (one per functionResult); any other role → ChatMessageChunk
//   messageId → id; authorName → name; text → content (a string); reasoning → additional_kwargs.reasoning_content;
//   functionCall → tool_calls ({id, name, args}); functionResult → tool_call_id, content (its JSON text) and
//   artifact (the value); usage → usage_metadata; any other content → additional_kwargs.contents (a list);
//   responseId → response_metadata.id; createdAt → response_metadata.created; finishReason →
//   response_metadata.finish_reason; modelId → response_metadata.model_name; conversationId,
//   continuationToken, agentId → response_metadata.{conversation_id, continuation_token, agent_id};
//   additionalProperties → additional_kwargs; members the wire has and LangChain does not → response_metadata.
//
// TURNSTILE_LC_MODE=plain|careful (default plain):
//   plain    the streaming tutorial's fold: `full = full ? concat(full, chunk) : chunk` over every
//            update of the turn, one message.
//   careful  one fold per message id, as LangGraph's SDK accumulates a messages stream
//            (MessageTupleManager: chunks concatenated by id); a chunk without an id continues the
//            previous one's message; messages in order of first arrival. Response-level fields come
//            from the fold of every chunk (LangChain's own merge of their response_metadata).
"use strict";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { AIMessageChunk, HumanMessageChunk, SystemMessageChunk, ToolMessageChunk, ChatMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";

const VERSION = JSON.parse(readFileSync(new URL("./node_modules/@langchain/core/package.json", import.meta.url), "utf8")).version;
const MODE = process.env.TURNSTILE_LC_MODE || "plain";
if (!["plain", "careful"].includes(MODE)) throw new Error(`TURNSTILE_LC_MODE=${MODE}: plain or careful`);

const KNOWN = new Set(["responseId", "messageId", "role", "authorName", "agentId", "createdAt", "finishReason", "modelId",
  "conversationId", "continuationToken", "contents", "additionalProperties"]);
const META = [["responseId", "id"], ["createdAt", "created"], ["finishReason", "finish_reason"], ["modelId", "model_name"],
  ["conversationId", "conversation_id"], ["continuationToken", "continuation_token"], ["agentId", "agent_id"]];
// MEAI usage counters and where LangChain's UsageMetadata keeps them (a path in usage_metadata)
const USAGE = { inputTokenCount: ["input_tokens"], outputTokenCount: ["output_tokens"], totalTokenCount: ["total_tokens"],
  cachedInputTokenCount: ["input_token_details", "cache_read"], inputAudioTokenCount: ["input_token_details", "audio"],
  inputTextTokenCount: ["input_token_details", "text"], reasoningTokenCount: ["output_token_details", "reasoning"],
  outputAudioTokenCount: ["output_token_details", "audio"], outputTextTokenCount: ["output_token_details", "text"] };
// UsageMetadata requires input_tokens, output_tokens and total_tokens (numbers): absent ones are 0
function toUsageMetadata(details) {
  const u = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (const [wire, [a, b]] of Object.entries(USAGE)) {
    if (details[wire] == null) continue;
    if (b) (u[a] ??= {})[b] = Number(details[wire]); else u[a] = Number(details[wire]);
  }
  return u;
}
function fromUsageMetadata(u) {
  const out = {};
  for (const [wire, [a, b]] of Object.entries(USAGE)) {
    const v = b ? u[a]?.[b] : u[a];
    if (v != null) out[wire] = v;
  }
  return out;
}

// One update → the chunks a LangChain chat model would stream for it (a tool update: one per result).
function toChunks(u) {
  const contents = Array.isArray(u.contents) ? u.contents : [];
  const response_metadata = {}, additional_kwargs = { ...(u.additionalProperties || {}) };
  for (const [wire, lc] of META) if (u[wire] != null && u[wire] !== "") response_metadata[lc] = u[wire];
  for (const [k, v] of Object.entries(u)) if (!KNOWN.has(k)) response_metadata[k] = v;
  const text = contents.filter((c) => c?.$type === "text").map((c) => c.text ?? "").join("");
  const reasoning = contents.filter((c) => c?.$type === "reasoning").map((c) => c.text ?? "").join("");
  if (reasoning) additional_kwargs.reasoning_content = reasoning;
  const others = contents.filter((c) => !["text", "reasoning", "functionCall", "functionResult", "usage"].includes(c?.$type));
  if (others.length) additional_kwargs.contents = others;
  const usage = contents.find((c) => c?.$type === "usage")?.details;
  const fields = {
    content: text, additional_kwargs, response_metadata,
    ...(u.messageId ? { id: u.messageId } : {}), ...(u.authorName ? { name: u.authorName } : {}),
  };
  const role = (u.role || "assistant").toLowerCase();
  if (role === "tool") {
    const results = contents.filter((c) => c?.$type === "functionResult");
    if (!results.length) return [new ToolMessageChunk({ ...fields, tool_call_id: "" })]; // no result: no call id
    return results.map((r) => new ToolMessageChunk({ ...fields, tool_call_id: r.callId,
      content: typeof r.result === "string" ? r.result : JSON.stringify(r.result ?? null), artifact: r.result }));
  }
  if (role === "user") return [new HumanMessageChunk(fields)];
  if (role === "system") return [new SystemMessageChunk(fields)];
  if (role !== "assistant") return [new ChatMessageChunk({ ...fields, role: u.role })];
  return [new AIMessageChunk({
    ...fields,
    tool_calls: contents.filter((c) => c?.$type === "functionCall").map((c) => ({ type: "tool_call", id: c.callId, name: c.name, args: c.arguments ?? {} })),
    ...(usage ? { usage_metadata: toUsageMetadata(usage) } : {}),
  })];
}

// A folded LangChain message → a wire ChatMessage.
function toWireMessage(m) {
  const type = m._getType ? m._getType() : m.getType();
  const role = { ai: "assistant", human: "user", system: "system", tool: "tool", generic: m.role }[type] ?? type;
  const out = { role };
  if (m.id) out.messageId = m.id;
  if (m.name) out.authorName = m.name;
  if (m.response_metadata?.created) out.createdAt = m.response_metadata.created;
  if (m.response_metadata?.agent_id) out.agentId = m.response_metadata.agent_id;
  for (const [k, v] of Object.entries(m.response_metadata || {})) if (!META.some(([, lc]) => lc === k)) out[k] = v; // unknown members
  const contents = [], kwargs = { ...(m.additional_kwargs || {}) };
  const text = typeof m.content === "string" ? m.content : (m.content || []).map((b) => b.text ?? "").join("");
  if (type === "tool" && m.tool_call_id) contents.push({ $type: "functionResult", callId: m.tool_call_id, result: m.artifact !== undefined ? m.artifact : text });
  else if (text !== "") contents.push({ $type: "text", text });
  if (kwargs.reasoning_content) contents.push({ $type: "reasoning", text: kwargs.reasoning_content });
  for (const c of m.tool_calls || []) contents.push({ $type: "functionCall", callId: c.id, name: c.name, arguments: c.args });
  for (const c of kwargs.contents || []) contents.push(c);
  delete kwargs.reasoning_content; delete kwargs.contents;
  out.contents = contents;
  if (Object.keys(kwargs).length) out.additionalProperties = kwargs;
  return out;
}

function responseOf(folded, messages, requestedId) {
  const md = folded?.response_metadata || {}, resp = {};
  for (const [wire, lc] of META) if (md[lc] != null) resp[wire] = md[lc];
  if (requestedId) resp.responseId = requestedId;
  if (folded?.usage_metadata) resp.usage = fromUsageMetadata(folded.usage_metadata);
  resp.messages = messages;
  return resp;
}

function merge(updates, responseId) {
  const chunks = updates.flatMap(toChunks);
  const folded = chunks.reduce((full, chunk) => (full === undefined ? chunk : concat(full, chunk)), undefined);
  if (MODE === "plain") return responseOf(folded, folded ? [toWireMessage(folded)] : [], responseId);
  const groups = new Map();
  let last;
  for (const chunk of chunks) {
    const key = chunk.id || last || Symbol("no id");
    last = key;
    groups.set(key, groups.has(key) ? concat(groups.get(key), chunk) : chunk);
  }
  return responseOf(folded, [...groups.values()].map(toWireMessage), responseId);
}

// ---- protocol plumbing (as conformance/testees/node-minimal) -------------------------------------
// JSON text as SPEC W7 writes numbers: an integral double at or beyond 2^53, which JSON.stringify
// writes as bare digits that are not its value (and may fall outside int64), gets an exponent.
function toJson(value) {
  const big = (v) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) >= 2 ** 53;
  return JSON.stringify(value, (_k, v) => big(v) ? `\u0000num:${v.toExponential()}` : v)
    .replace(/"\\u0000num:([^"]+)"/g, "$1");
}
function answer(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) {
    const found = /"id"\s*:\s*"([A-Za-z0-9_.$]+)"/.exec(line);
    return found ? { id: found[1], error: `bad request: ${e.message}` } : null;
  }
  if (!req || typeof req !== "object" || typeof req.id !== "string") return null;
  if (req.op === "hello") return { id: req.id, hello: { name: `langchain-js-concat${MODE === "careful" ? "-by-id" : ""}`, version: VERSION, ops: ["merge"] } };
  if (req.op !== "merge") return { id: req.id, unsupported: true };
  try { return { id: req.id, response: merge(req.updates, req.responseId) }; } catch (e) {
    return { id: req.id, error: `${e.name}: ${e.message}` };
  }
}
createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  const reply = line.trim() ? answer(line) : null;
  if (reply) process.stdout.write(toJson(reply) + "\n");
});
