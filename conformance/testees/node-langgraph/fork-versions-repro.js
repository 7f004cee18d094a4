#!/usr/bin/env node
// fork-versions-repro.js: LangGraph time travel (updateState on a past checkpoint) over
// MemorySaver, SqliteSaver and PostgresSaver, with no harness: does the fork hold the state it was
// given? (node-langgraph-FINDINGS.md, "PostgresSaver and branches").
//
//   node fork-versions-repro.js                       # MemorySaver and SqliteSaver (in memory)
//   TURNSTILE_LG_PG_URL="$url" node fork-versions-repro.js   # also PostgresSaver, in a database of its own
//
// The graph: one node that answers the last user message. Turn one runs; then user message 0 is
// edited at the checkpoint where it is the last message (the adapter's edit: updateState as
// __start__, the message replaced by id), and the graph runs on from the fork. Printed per saver:
// the channel version of `messages` the fork checkpoint names and the one its abandoned sibling
// names, and the messages each read returns. Exit 1 when a saver's fork does not hold the edit.
// TURNSTILE_REPRO_UNIQUE_VERSIONS=1: the experiment that tests the cause: PostgresSaver with Python
// PostgresSaver's version scheme (get_next_version: the counter, a dot, a random fraction), so two
// branches never mint the same channel version. Not used by the adapter (it repairs nothing).
import { StateGraph, MessagesAnnotation, START, END, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, HumanMessage } from "@langchain/core/messages";

const text = (s) => (s.values.messages || []).map((m) => `${m.getType()}:${m.content}`).join(" | ");
const graphOver = (checkpointer) => new StateGraph(MessagesAnnotation)
  .addNode("agent", (state) => ({ messages: [new AIMessage(`answer to ${state.messages.at(-1).content}`)] }))
  .addEdge(START, "agent").addEdge("agent", END)
  .compile({ checkpointer });

async function postgresSaver(admin) {
  const [{ PostgresSaver }, { default: pg }] = await Promise.all([import("@langchain/langgraph-checkpoint-postgres"), import("pg")]);
  const name = `fork_repro_${process.pid}`, client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const Saver = !process.env.TURNSTILE_REPRO_UNIQUE_VERSIONS ? PostgresSaver : class extends PostgresSaver {
    getNextVersion(current) {
      const v = current === undefined ? 0 : typeof current === "number" ? current : Number.parseInt(String(current).split(".")[0], 10);
      return `${String(v + 1).padStart(32, "0")}.${Math.random().toFixed(16).slice(2)}`;
    }
  };
  const saver = new Saver(new pg.Pool({ connectionString: admin.replace(/\/[^/?]*(\?|$)/, `/${name}$1`) }));
  await saver.setup();
  saver.dropDatabase = async () => {
    await saver.end();
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    await c.end();
  };
  return saver;
}

async function run(label, checkpointer) {
  const graph = graphOver(checkpointer), config = { configurable: { thread_id: "t" } };
  await graph.invoke({ messages: [new HumanMessage("question one")] }, config);
  const head = await graph.getState(config);
  // the checkpoint where user message 0 is the last message and the agent is next
  let start = head;
  while (!(start.values.messages?.length === 1 && start.next.includes("agent"))) start = await graph.getState(start.parentConfig);
  const forked = await graph.updateState(start.config,
    { messages: [new HumanMessage({ id: start.values.messages[0].id, content: "question one, edited" })] }, START);
  const fork = await graph.getState({ configurable: { ...config.configurable, ...forked.configurable } });
  const sibling = await checkpointer.getTuple(head.config);
  const forkTuple = await checkpointer.getTuple(fork.config);
  await graph.invoke(null, { configurable: { ...config.configurable, ...forked.configurable } });
  const after = await graph.getState(config);
  const ok = fork.values.messages?.[0]?.content === "question one, edited" && after.values.messages?.[0]?.content === "question one, edited";
  console.log(`${label}:`);
  console.log(`  abandoned head   ${head.config.configurable.checkpoint_id}  messages version ${JSON.stringify(sibling.checkpoint.channel_versions.messages)}  ${text(head)}`);
  console.log(`  branch point     ${start.config.configurable.checkpoint_id}  messages version ${JSON.stringify((await checkpointer.getTuple(start.config)).checkpoint.channel_versions.messages)}  ${text(start)}`);
  console.log(`  fork (updateState) ${fork.config.configurable.checkpoint_id}  messages version ${JSON.stringify(forkTuple.checkpoint.channel_versions.messages)}  ${text(fork)}`);
  console.log(`  head after invoke(null) on the fork: ${text(after)}`);
  console.log(`  ${ok ? "ok: the fork holds the edit" : "WRONG: the fork reads the abandoned branch's messages"}`);
  return ok;
}

let ok = await run("MemorySaver", new MemorySaver());
ok = (await run("SqliteSaver", SqliteSaver.fromConnString(":memory:"))) && ok;
if (process.env.TURNSTILE_LG_PG_URL) {
  const saver = await postgresSaver(process.env.TURNSTILE_LG_PG_URL);
  try { ok = (await run(process.env.TURNSTILE_REPRO_UNIQUE_VERSIONS ? "PostgresSaver, unique versions" : "PostgresSaver", saver)) && ok; } finally { await saver.dropDatabase(); }
} else {
  console.log("PostgresSaver: skipped (TURNSTILE_LG_PG_URL not set)");
}
process.exit(ok ? 0 : 1);
