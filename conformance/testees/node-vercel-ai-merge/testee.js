#!/usr/bin/env node
// node-vercel-ai-merge: a turnstile merge testee (conformance/PROTOCOL.md, op `merge`) whose merge is
// the Vercel AI SDK's: each Microsoft.Extensions.AI AgentResponseUpdate (SPEC.md §2) is written as the
// UI message stream chunks an AI SDK server would send for it, `readUIMessageStream({stream})` (package
// `ai`) folds them into UIMessages, and the last snapshot of each message is written back as an
// AgentResponse. The adapter translates and never repairs what the reader does.
//
//   turnstile certify -- node conformance/testees/node-vercel-ai-merge/testee.js
//
// The translation (both integrations), in the UI message stream protocol's own terms:
//   text → text-start / text-delta / text-end (one text part kept open while text follows text in a
//   message, as a provider streams deltas); reasoning → reasoning-start / -delta / -end likewise;
//   functionCall → tool-input-available (dynamic tool); functionResult → tool-output-available;
//   a content's other members (annotations, informationalOnly, …) → its chunk's `providerMetadata`
//   ({meai: {...}}; a text or reasoning content that has them gets a part of its own);
//   any other content → a data part `data-content` (its `data` the content as sent);
//   update fields (responseId, createdAt, role, authorName, agentId, finishReason, modelId, usage, …)
//   and unknown members → `messageMetadata` (the documented home of per-message metadata, merged by
//   the reader; usage and finishReason are what the AI SDK's docs send there); finishReason also on
//   a `finish` chunk at the end. Written back: metadata.usage → the response's usage.
//
// TURNSTILE_AI_MODE=plain|careful (default plain):
//   plain    one `start` (the first messageId), every update's chunks, one `finish`: a single UI
//            message, as a route handler streams one assistant message.
//   careful  a `start` with the new messageId whenever an update names another message (the reader
//            then begins a new UIMessage: `resetStateOnMessageIdChange`); updates without a messageId
//            continue the current one; each message's last snapshot, in order of first arrival.
"use strict";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { readUIMessageStream } from "ai";

const VERSION = JSON.parse(readFileSync(new URL("./node_modules/ai/package.json", import.meta.url), "utf8")).version;
const MODE = process.env.TURNSTILE_AI_MODE || "plain";
if (!["plain", "careful"].includes(MODE)) throw new Error(`TURNSTILE_AI_MODE=${MODE}: plain or careful`);
const CAREFUL = MODE === "careful";

const METADATA_SKIP = new Set(["messageId", "contents"]);
const KNOWN_FIELDS = new Set(["responseId", "messageId", "role", "authorName", "agentId", "createdAt", "finishReason", "modelId",
  "conversationId", "continuationToken", "contents", "additionalProperties", "usage"]);
// A content's members other than `keep`, as providerMetadata ({meai: {...}}), or undefined.
function extras(c, keep) {
  const rest = Object.fromEntries(Object.entries(c || {}).filter(([k]) => !keep.includes(k)));
  return Object.keys(rest).length ? { meai: rest } : undefined;
}

// The turn's updates → UI message stream chunks.
function toChunks(updates) {
  const chunks = [];
  let current = null, open = null, n = 0; // the current message id; the open text/reasoning part
  const close = () => { if (open) chunks.push({ type: `${open.kind}-end`, id: open.id }); open = null; };
  for (const u of updates) {
    const metadata = {};
    for (const [k, v] of Object.entries(u)) if (!METADATA_SKIP.has(k) && v != null) metadata[k] = v;
    const usage = (u.contents || []).find((c) => c?.$type === "usage");
    if (usage) metadata.usage = usage.details;
    if (current === null || (CAREFUL && u.messageId && u.messageId !== current)) {
      close();
      current = u.messageId || current || "";
      chunks.push({ type: "start", ...(u.messageId ? { messageId: u.messageId } : {}), messageMetadata: metadata });
    } else chunks.push({ type: "message-metadata", messageMetadata: metadata });
    for (const c of u.contents || []) {
      const kind = c?.$type === "text" ? "text" : c?.$type === "reasoning" ? "reasoning" : null;
      if (kind) {
        const meta = extras(c, ["$type", "text"]);
        if (open?.kind !== kind || meta || open.meta) {
          close();
          open = { kind, id: `p${n++}`, meta };
          chunks.push({ type: `${kind}-start`, id: open.id, ...(meta ? { providerMetadata: meta } : {}) });
        }
        chunks.push({ type: `${kind}-delta`, id: open.id, delta: c.text ?? "" });
        continue;
      }
      close();
      if (c?.$type === "usage") continue; // in the metadata above
      if (c?.$type === "functionCall") {
        const meta = extras(c, ["$type", "callId", "name", "arguments"]);
        chunks.push({ type: "tool-input-available", toolCallId: c.callId, toolName: c.name, input: c.arguments ?? {}, dynamic: true, ...(meta ? { providerMetadata: meta } : {}) });
      } else if (c?.$type === "functionResult") {
        const meta = extras(c, ["$type", "callId", "result"]);
        chunks.push({ type: "tool-output-available", toolCallId: c.callId, output: c.result ?? null, dynamic: true, ...(meta ? { providerMetadata: meta } : {}) });
      } else chunks.push({ type: "data-content", data: c });
    }
  }
  close();
  const finishReason = [...updates].reverse().find((u) => u.finishReason)?.finishReason;
  chunks.push({ type: "finish", ...(finishReason ? { finishReason } : {}) });
  return chunks;
}

// A UIMessage → wire ChatMessage(s) and the response fields its metadata holds.
function toWireMessage(m) {
  const md = m.metadata || {}, out = { role: m.role };
  if (m.id) out.messageId = m.id;
  if (md.authorName) out.authorName = md.authorName;
  if (md.createdAt) out.createdAt = md.createdAt;
  if (md.agentId) out.agentId = md.agentId;
  if (md.additionalProperties) out.additionalProperties = md.additionalProperties;
  for (const [k, v] of Object.entries(md)) if (!KNOWN_FIELDS.has(k)) out[k] = v; // unknown update members
  const contents = [];
  for (const p of m.parts) {
    if (p.type === "text") contents.push({ $type: "text", text: p.text, ...p.providerMetadata?.meai });
    else if (p.type === "reasoning") contents.push({ $type: "reasoning", text: p.text, ...p.providerMetadata?.meai });
    else if (p.type === "dynamic-tool" || p.type.startsWith("tool-")) {
      contents.push({ $type: "functionCall", callId: p.toolCallId, name: p.toolName ?? p.type.slice(5), arguments: p.input ?? {}, ...p.callProviderMetadata?.meai });
      if (p.state === "output-available") contents.push({ $type: "functionResult", callId: p.toolCallId, result: p.output, ...p.resultProviderMetadata?.meai });
      else if (p.state === "output-error") contents.push({ $type: "functionResult", callId: p.toolCallId, result: p.errorText, ...p.resultProviderMetadata?.meai });
    } else if (p.type === "data-content") contents.push(p.data);
  }
  out.contents = contents;
  return out;
}

async function merge(updates, responseId) {
  const stream = new ReadableStream({ start(c) { for (const chunk of toChunks(updates)) c.enqueue(chunk); c.close(); } });
  const errors = [], messages = [];
  // Each snapshot is the message being built; a snapshot with another id than the last begins the
  // next message (the reader reset its state on a `start` naming a new messageId). The last snapshot
  // of each message is kept.
  for await (const snapshot of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) {
    if (messages.length && messages.at(-1).id === snapshot.id) messages[messages.length - 1] = snapshot;
    else messages.push(snapshot);
  }
  if (errors.length) throw errors[0];
  const md = Object.assign({}, ...messages.map((m) => m.metadata || {}));
  const resp = {};
  for (const k of ["responseId", "createdAt", "agentId", "finishReason", "modelId", "conversationId", "continuationToken"])
    if (md[k] != null) resp[k] = md[k];
  if (responseId) resp.responseId = responseId;
  if (md.usage) resp.usage = md.usage;
  resp.messages = messages.map(toWireMessage);
  return resp;
}

// ---- protocol plumbing (as conformance/testees/node-minimal, answers in request order) -----------
// JSON text as SPEC W7 writes numbers: an integral double at or beyond 2^53, which JSON.stringify
// writes as bare digits that are not its value (and may fall outside int64), gets an exponent.
function toJson(value) {
  const big = (v) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) >= 2 ** 53;
  return JSON.stringify(value, (_k, v) => big(v) ? `\u0000num:${v.toExponential()}` : v)
    .replace(/"\\u0000num:([^"]+)"/g, "$1");
}
let chain = Promise.resolve();
async function answer(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) {
    const found = /"id"\s*:\s*"([A-Za-z0-9_.$]+)"/.exec(line);
    return found ? { id: found[1], error: `bad request: ${e.message}` } : null;
  }
  if (!req || typeof req !== "object" || typeof req.id !== "string") return null;
  if (req.op === "hello") return { id: req.id, hello: { name: `vercel-ai-readUIMessageStream${CAREFUL ? "-by-id" : ""}`, version: VERSION, ops: ["merge"] } };
  if (req.op !== "merge") return { id: req.id, unsupported: true };
  try { return { id: req.id, response: await merge(req.updates, req.responseId) }; } catch (e) {
    return { id: req.id, error: `${e.name}: ${e.message}` };
  }
}
createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  if (!line.trim()) return;
  chain = chain.then(() => answer(line)).then((reply) => { if (reply) process.stdout.write(toJson(reply) + "\n"); });
});
