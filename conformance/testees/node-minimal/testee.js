#!/usr/bin/env node
// node-minimal: a turnstile testee kit in Node.js (v18+), no npm packages.
//
// Speaks the testee protocol (conformance/PROTOCOL.md): one JSON request per line on stdin, one
// JSON answer per line on stdout. To certify your own merger, copy this file, change the three
// lines marked below and run:  turnstile certify -- node testee.js
"use strict";
const readline = require("readline");

// ---- THE PART YOU REPLACE ---------------------------------------------------------------------
// A deliberately simple merge (rules: conformance/SPEC.md section 3). It keeps arrival order: it
// does not sort by createdAt (O1-O3), split a message on a role or author change (M4) or keep
// unknown fields (X1, X2), so `turnstile certify` reports those cases. That is the gap your
// merger fills. (The response's createdAt is the first one seen, which R4's checker accepts.) (JSON.parse reads numbers as doubles: usage
// counters above 2^53 lose precision.)

const isEmpty = (v) => v == null || (typeof v === "object" && Object.keys(v).length === 0);

// C1, C2: append c in arrival order, or join it to the text (or reasoning) run it continues; R2: usage is summed.
function addContent(contents, c, usage) {
  if (c && c.$type === "usage") return addUsage(usage, c.details || {});
  const p = contents[contents.length - 1], t = c && c.$type;
  const keep = ["$type", "text", t === "reasoning" && "protectedData"];
  if ((t === "text" || t === "reasoning") && p && p.$type === t && typeof p.text === "string" &&
      typeof c.text === "string" && isEmpty(p.annotations) && !p.protectedData &&
      Object.entries(c).every(([k, v]) => keep.includes(k) || isEmpty(v))) {
    p.text += c.text;
    if (c.protectedData) p.protectedData = c.protectedData;
  } else contents.push(c && typeof c === "object" && !Array.isArray(c) ? { ...c } : c);
}

// R2: counters summed (also when written as strings), additionalCounts per key, the rest: last wins.
function addUsage(total, details) {
  for (const [k, v] of Object.entries(details)) {
    if (v && typeof v === "object") addUsage((total[k] = total[k] || {}), v);
    else if (typeof v === "number" || (typeof v === "string" && k.endsWith("Count"))) total[k] = (total[k] || 0) + +v;
    else total[k] = v;
  }
}

// One turn's updates (objects, arrival order) -> one AgentResponse object (SPEC W7 shape).
function merge(updates, responseId) {
  // I1: the turn's id when the host names one, else the first one seen, else a fixed id (D1).
  const primary = responseId || (updates.find((u) => u.responseId) || {}).responseId || "turn";
  const groups = new Map(), last = new Map(), resp = { responseId: primary }, usage = {};
  for (const u of updates) {
    const rid = u.responseId || primary;                                 // M1: dangling updates join the primary group
    const msgs = groups.get(rid) || groups.set(rid, new Map()).get(rid); // I3, G1: groups in first-arrival order
    const key = u.messageId || last.get(rid) || {};                      // M3: no id: the last message; {}: a new one
    const m = msgs.get(key) || msgs.set(key, { contents: [] }).get(key); // M2: one message per (responseId, messageId)
    last.set(rid, key);
    for (const f of ["role", "authorName", "agentId", "createdAt"]) if (u[f] && !(f in m)) m[f] = u[f]; // M5, K1: first
    for (const f of ["agentId", "createdAt"]) if (u[f] && !(f in resp)) resp[f] = u[f];               // R3, R4: first
    // R1, R6: the last value wins (an undefined member is not written)
    for (const f of ["finishReason", "continuationToken", "conversationId", "modelId"]) resp[f] = u[f] ?? resp[f];
    for (const c of u.contents || []) addContent(m.contents, c, usage);
  }
  if (Object.keys(usage).length) resp.usage = usage;
  resp.messages = [...groups.values()].flatMap((g) => [...g].map(([key, { contents, role = "assistant", ...m }]) =>
    ({ role, ...(typeof key === "string" ? { messageId: key } : {}), ...m, contents })))
    .filter((m) => m.contents.length || Object.keys(m).length > 2); // M6: no id, no content, no metadata: left out
  return resp;
}

// ---- THE THREE LINES YOU CHANGE ---------------------------------------------------------------
const NAME = "node-minimal"; // 1. your implementation's name (shown in the report header)
const VERSION = "0.1.0";     // 2. its version
const MERGE = merge;         // 3. your merge(updates, responseId), e.g.: const MERGE = require("./mymerger").merge;

// ---- protocol plumbing: no need to touch ------------------------------------------------------
// The answer to one request line, or null when it has no id to answer to.
function answer(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) { // not JSON: answer if an id can still be found
    const found = /"id"\s*:\s*"([A-Za-z0-9_.$]+)"/.exec(line);
    return found ? { id: found[1], error: `bad request: ${e.message}` } : null;
  }
  if (!req || typeof req !== "object" || typeof req.id !== "string") return null;
  if (req.op === "hello") return { id: req.id, hello: { name: NAME, version: VERSION, ops: ["merge"] } };
  if (req.op !== "merge") return { id: req.id, unsupported: true };
  try { return { id: req.id, response: MERGE(req.updates, req.responseId) }; } catch (e) { // a bug or a rejected
    return { id: req.id, error: `${e.name}: ${e.message}` };                          // input: one error line
  }
}

// One request per line. process.stdout is not buffered by Node (the write starts at once); at EOF
// readline closes and, with no process.exit(), Node exits only after stdout has drained.
readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  const reply = line.trim() ? answer(line) : null;
  if (reply) process.stdout.write(JSON.stringify(reply) + "\n");
});
