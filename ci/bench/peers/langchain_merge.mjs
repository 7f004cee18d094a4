// langchain_merge.mjs — LangChain's merge of a streamed turn, the peer of `turnstile merge` in
// ci/bench/merge_bench.sh.
//
// usage: node langchain_merge.mjs FILE      prints "<updates> <messages>" on stdout
//
// The idiomatic LangChain.js way to fold streamed chunks into messages: every update becomes a
// message chunk (AIMessageChunk, or ToolMessageChunk for a tool result) and the chunks of one
// message are folded with `concat` from @langchain/core/utils/stream, as LangChain's streaming
// guide does with `full = full === undefined ? chunk : concat(full, chunk)`. Messages are keyed
// by (responseId, messageId), as a LangGraph "messages" stream consumer keys chunks by id, and
// listed in order of first arrival; the result is serialised once (JSON.stringify), as turnstile
// writes its answer. The input is read line by line as it streams (readline), JSON.parse'd per
// line, never held whole. Versions are pinned by ci/bench/peers/package-lock.json.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { AIMessageChunk, ToolMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";

function chunkOf(update) {
  let text = "";
  const toolCallChunks = [];
  let toolResult = null;
  let usage = null;
  for (const c of update.contents ?? []) {
    switch (c.$type) {
      case "text":
        text += c.text ?? "";
        break;
      case "functionCall":
        toolCallChunks.push({ name: c.name, args: JSON.stringify(c.arguments ?? {}), id: c.callId, index: 0 });
        break;
      case "functionResult":
        toolResult = c;
        break;
      case "usage": {
        const d = c.details ?? {};
        usage = {
          input_tokens: d.inputTokenCount ?? 0,
          output_tokens: d.outputTokenCount ?? 0,
          total_tokens: d.totalTokenCount ?? 0,
        };
        break;
      }
    }
  }
  const fields = {
    content: text,
    id: update.messageId ?? undefined,
    name: update.authorName ?? undefined,
    response_metadata: update.finishReason ? { finish_reason: update.finishReason } : {},
  };
  if (toolResult) {
    return new ToolMessageChunk({ ...fields, content: JSON.stringify(toolResult.result ?? null), tool_call_id: toolResult.callId });
  }
  return new AIMessageChunk({ ...fields, tool_call_chunks: toolCallChunks, usage_metadata: usage ?? undefined });
}

async function main() {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write("usage: node langchain_merge.mjs FILE\n");
    process.exit(2);
  }
  const messages = new Map(); // (responseId, messageId) -> folded chunk, in first-arrival order
  let updates = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const update = JSON.parse(line);
    updates++;
    const key = `${update.responseId ?? ""}\u0000${update.messageId ?? `#${updates}`}`;
    const chunk = chunkOf(update);
    const folded = messages.get(key);
    messages.set(key, folded === undefined ? chunk : concat(folded, chunk));
  }
  const answer = JSON.stringify([...messages.values()].map((m) => m.toDict()));
  process.stdout.write(`${updates} ${messages.size} ${answer.length}\n`);
}

main().catch((e) => {
  process.stderr.write(`langchain_merge.mjs: ${e.stack ?? e}\n`);
  process.exit(1);
});
