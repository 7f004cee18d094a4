// bench.mjs — LangGraph JS's SqliteSaver, measured the way ci/bench/journal_bench.sh measures
// turnstile's journal (run by that script, which installs this directory's lock file).
//
//   node bench.mjs commits DB N normal|full
//       N checkpoints put one after another into a fresh SqliteSaver at DB (WAL, as the saver
//       sets it; synchronous as given): each put is one transaction, a checkpoint of one
//       ~200-byte message — the peer of one journal commit.
//   node bench.mjs turns DB N
//       N simple turns of a compiled StateGraph (MessagesAnnotation; one model node that
//       answers each user message with a scripted AIMessage; START -> model -> END) with the
//       SqliteSaver as its checkpointer, one thread, invoke() per turn with LangGraph's default
//       durability — what a plain LangGraph application does; the peer of `turnstile run` of a
//       scenario of N simple turns.
// Prints one JSON line: {"mode", "n", "wall", "cpu", "bytes"} — seconds of wall time and of this
// process's CPU (user + system) for the measured part only (after the modules are loaded), and
// the database's size once closed.
import { statSync, rmSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

const [mode, db, countText, sync = "normal"] = process.argv.slice(2);
const n = Number(countText);
if (!["commits", "turns"].includes(mode) || !db || !Number.isInteger(n) || n < 1 || !["normal", "full"].includes(sync)) {
  console.error("usage: node bench.mjs commits DB N normal|full | node bench.mjs turns DB N");
  process.exit(2);
}
for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });

const text = (i) =>
  `Turn ${i}: the forecast for Oslo is 21.5 \u00b0C with light wind from the south-west; Bergen expects rain after noon, as usual.`;

const saver = SqliteSaver.fromConnString(db);
saver.setup();
saver.db.pragma(`synchronous = ${sync.toUpperCase()}`);

const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
if (mode === "commits") {
  const config = { configurable: { thread_id: "bench", checkpoint_ns: "" } };
  let parent = config;
  for (let i = 1; i <= n; i++) {
    const checkpoint = emptyCheckpoint();
    checkpoint.id = uuid6(i);
    checkpoint.channel_values = { messages: [{ role: "assistant", text: text(i) }] };
    checkpoint.channel_versions = { messages: i };
    parent = await saver.put(parent, checkpoint, { source: "loop", step: i, parents: {} }, { messages: i });
  }
} else {
  let turn = 0;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", async () => ({ messages: [new AIMessage(`answer ${turn}: ${text(turn)}`)] }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "bench" } };
  for (turn = 1; turn <= n; turn++) {
    await graph.invoke({ messages: [new HumanMessage(`message ${turn}: ${text(turn)}`)] }, config);
  }
}
const wall = (performance.now() - wallBefore) / 1000;
const cpuUsed = process.cpuUsage(cpuBefore);
saver.db.close();
console.log(JSON.stringify({ mode, n, wall, cpu: (cpuUsed.user + cpuUsed.system) / 1e6, bytes: statSync(db).size }));
