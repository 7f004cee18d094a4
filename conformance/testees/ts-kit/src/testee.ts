// ts-kit: a turnstile testee kit in TypeScript (Node.js 18+), typed by ./types.ts.
//
// Speaks the testee protocol (conformance/PROTOCOL.md): one JSON request per line on stdin, one
// JSON answer per line on stdout. To certify your own merger, change the three lines marked
// below, then:  npm ci && npm run build && turnstile certify -- node dist/testee.js
import * as readline from "readline";
import type { AIContent, AgentResponse, AgentResponseUpdate, Answer, ChatMessage, Merge, UsageDetails } from "./types";

// ---- THE PART YOU REPLACE ---------------------------------------------------------------------
// The same deliberately simple merge as the Node.js kit (conformance/SPEC.md section 3): arrival
// order, no sorting by createdAt (O1-O3), no split on a role or author change (M4), unknown fields
// dropped (X1, X2). `turnstile certify` reports those cases: that is the gap your merger fills.

const isEmpty = (v: unknown): boolean => v == null || (typeof v === "object" && Object.keys(v as object).length === 0);

// R2: counters summed (also when written as strings), additionalCounts per key, the rest: last wins.
function addUsage(total: Record<string, unknown>, details: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(details)) {
    if (v && typeof v === "object") addUsage((total[k] = (total[k] as Record<string, unknown>) || {}) as Record<string, unknown>, v as Record<string, unknown>);
    else if (typeof v === "number" || (typeof v === "string" && k.endsWith("Count"))) total[k] = ((total[k] as number) || 0) + +v;
    else total[k] = v;
  }
}

// C1, C2: append c in arrival order, or join it to the text (or reasoning) run it continues.
function addContent(contents: AIContent[], c: AIContent, usage: UsageDetails): void {
  if (c && c.$type === "usage") return addUsage(usage, (c.details || {}) as Record<string, unknown>);
  const p = contents[contents.length - 1], t = c && c.$type;
  const keep = ["$type", "text", t === "reasoning" ? "protectedData" : ""];
  if ((t === "text" || t === "reasoning") && p && p.$type === t && typeof p.text === "string" &&
      typeof c.text === "string" && isEmpty(p.annotations) && !p.protectedData &&
      Object.entries(c).every(([k, v]) => keep.includes(k) || isEmpty(v))) {
    p.text += c.text;
    if (c.protectedData) p.protectedData = c.protectedData;
  } else contents.push(c && typeof c === "object" && !Array.isArray(c) ? { ...c } : c);
}

type Draft = { contents: AIContent[]; [member: string]: unknown };

const merge: Merge = (updates, responseId) => {
  // I1: the turn's id when the host names one, else the first one seen, else a fixed id (D1).
  const primary = responseId || updates.find((u) => u.responseId)?.responseId || "turn";
  const groups = new Map<string, Map<string | object, Draft>>(), last = new Map<string, string | object>();
  const resp: Record<string, unknown> = { responseId: primary }, usage: UsageDetails = {};
  for (const u of updates) {
    const rid = u.responseId || primary;                                 // M1: dangling updates join the primary group
    const msgs = groups.get(rid) || groups.set(rid, new Map()).get(rid)!; // I3: groups in first-arrival order
    const key = u.messageId || last.get(rid) || {};                      // M3: no id: the last message; {}: a new one
    const m = msgs.get(key) || msgs.set(key, { contents: [] }).get(key)!; // M2: one message per (responseId, messageId)
    last.set(rid, key);
    for (const f of ["role", "authorName", "agentId", "createdAt"] as const) if (u[f] && !(f in m)) m[f] = u[f]; // M5, K1
    for (const f of ["agentId", "createdAt"] as const) if (u[f] && !(f in resp)) resp[f] = u[f];               // R3, R4
    for (const f of ["finishReason", "continuationToken", "conversationId", "modelId"] as const) resp[f] = u[f] ?? resp[f]; // R1, R6
    for (const c of u.contents || []) addContent(m.contents, c, usage);
  }
  if (Object.keys(usage).length) resp.usage = usage;
  const messages: ChatMessage[] = [...groups.values()].flatMap((g) => [...g].map(([key, { contents, role = "assistant", ...m }]) =>
    ({ role: role as string, ...(typeof key === "string" ? { messageId: key } : {}), ...m, contents })))
    .filter((m) => m.contents.length || Object.keys(m).length > 2); // M6: no id, no content, no metadata: left out
  return { ...resp, messages } as AgentResponse;
};

// ---- THE THREE LINES YOU CHANGE ---------------------------------------------------------------
const NAME = "ts-kit";     // 1. your implementation's name (shown in the report header)
const VERSION = "0.1.0";   // 2. its version
const MERGE: Merge = merge; // 3. your merger, e.g.: import { merge as myMerge } from "./mymerger"; const MERGE: Merge = myMerge;

// ---- protocol plumbing: no need to touch ------------------------------------------------------
function answer(line: string): Answer | null {
  let req: { id?: unknown; op?: unknown; updates?: unknown; responseId?: unknown };
  try { req = JSON.parse(line); } catch (e) { // not JSON: answer if an id can still be found
    const found = /"id"\s*:\s*"([A-Za-z0-9_.$]+)"/.exec(line);
    return found ? { id: found[1], error: `bad request: ${(e as Error).message}` } : null;
  }
  if (!req || typeof req !== "object" || typeof req.id !== "string") return null;
  if (req.op === "hello") return { id: req.id, hello: { name: NAME, version: VERSION, ops: ["merge"] } };
  if (req.op !== "merge") return { id: req.id, unsupported: true };
  try {
    return { id: req.id, response: MERGE(req.updates as AgentResponseUpdate[], typeof req.responseId === "string" ? req.responseId : undefined) };
  } catch (e) { // a bug or a rejected input: one error line, and on to the next request
    return { id: req.id, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line: string) => {
  const reply = line.trim() ? answer(line) : null;
  if (reply) process.stdout.write(JSON.stringify(reply) + "\n");
});
