// dotnet-af-workflow: the resume testee for Agent Framework Workflows (conformance/PROTOCOL.md, op resume).
//   - The workflow is AgentWorkflowBuilder.BuildSequential(agent), agent = a ChatClientAgent over
//     HarnessChatClient with the catalogue's HarnessTools (Harness.cs), run in process with
//     CheckpointManager.CreateJson(FileSystemJsonCheckpointStore(<store>/checkpoints)); session id = the thread.
//     The store is wrapped (NoticingCheckpointStore) only to send commit notices around each checkpoint write.
//   - user: the first turn is RunStreamingAsync(workflow, [message], thread) on InProcessExecution.Lockstep with
//     checkpointing (W2 below says why not the default OffThread environment); a later
//     turn resumes the latest checkpoint (GetLatestCheckpointAsync + ResumeStreamingAsync) and sends [message];
//     then a TurnToken, and the event stream is drained until the run is idle (the samples' pattern).
//   - recover: ResumeStreamingAsync from the latest checkpoint and drain whatever the checkpoint says is in flight.
//   - read: the agent's chat history as the latest checkpoint holds it (AIAgentHostExecutor's "AIAgentHostState":
//     the serialised AgentSession), deserialised with agent.DeserializeSessionAsync.
//   - edit K / fork N (issue 27): the library's time travel. Every checkpoint records its parent (the checkpoint the
//     run was restored from or last wrote), so the store is a tree. The branch point is the checkpoint, among the
//     latest one and its ancestors, whose agent history is exactly the conversation before user message K (edit)
//     or assistant message N (fork); the run resumes there (ResumeStreamingAsync from that CheckpointInfo) and
//     is sent the new message and a TurnToken, as a turn is. The library checkpoints between supersteps only, and a
//     turn's model calls and tools run in one superstep, so a position inside a turn has no checkpoint: the
//     branch is answered with an error, not made up (FINDINGS.md, B1; AF_WORKFLOW_TURN=separate, below, checkpoints between a message and its answer). An empty prefix (edit 0) has no checkpoint
//     either: the first one is written after the first turn; there the branch is a new run in the same session
//     (RunStreamingAsync), whose checkpoints are a new root. A position the conversation lacks is refused.
//   - history read: the conversation of every leaf of the checkpoint tree (each branch the store keeps).
// Nothing is repaired: the history is what the library checkpointed.
using System.Text.Json;
using Microsoft.Agents.AI;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;
using Microsoft.Agents.AI.Workflows.InProc;
using Microsoft.Extensions.AI;

const string Name = "af-workflow-sequential";
// Lockstep: with the default OffThread environment, WatchStreamAsync on a run resumed from a checkpoint with nothing
// in flight never ends (FINDINGS.md W2); AF_WORKFLOW_ENV=offthread selects it to reproduce that.
InProcessExecutionEnvironment Environment = System.Environment.GetEnvironmentVariable("AF_WORKFLOW_ENV") == "offthread"
    ? InProcessExecution.OffThread : InProcessExecution.Lockstep;
string version = Wire.LibraryVersion(typeof(AgentWorkflowBuilder));
// AF_WORKFLOW_TURN=separate: deliver a user message in a superstep of its own (the run halts, a checkpoint holds it as
// the agent's pending input) and only then the TurnToken, so that "the message received, not yet answered" is a
// checkpoint one can fork from (FINDINGS.md, B1). The default sends both before the run proceeds, as the samples do.
bool separateTurn = System.Environment.GetEnvironmentVariable("AF_WORKFLOW_TURN") == "separate";

// A turn on a run that holds its user message: the TurnToken (after the message's own superstep, separately), drained.
async Task TakeTurnAsync(StreamingRun run)
{
    if (separateTurn) await DrainAsync(run);
    await run.TrySendMessageAsync(new TurnToken(emitEvents: true));
    await DrainAsync(run);
}

async Task DrainAsync(StreamingRun run)
{
    await foreach (WorkflowEvent evt in run.WatchStreamAsync())
    {
        if (evt is WorkflowErrorEvent error) throw new InvalidOperationException($"workflow error: {error.Data}");
        if (evt is ExecutorFailedEvent failed) throw new InvalidOperationException($"executor {failed.ExecutorId} failed: {failed.Data}");
    }
}

async Task<List<ChatMessage>> ReadAsync(ChatClientAgent agent, FileSystemJsonCheckpointStore store, string thread)
{
    CheckpointInfo? last = await CheckpointManager.CreateJson(store).GetLatestCheckpointAsync(thread);
    if (last is null) return new List<ChatMessage>();
    return await HistoryAtAsync(agent, store, last);
}

// The agent's chat history as one checkpoint holds it.
async Task<List<ChatMessage>> HistoryAtAsync(ChatClientAgent agent, JsonCheckpointStore store, CheckpointInfo at)
{
    // The agent session is the "threadState" of AIAgentHostExecutor's AIAgentHostState in the checkpoint.
    JsonElement checkpoint = await store.RetrieveCheckpointAsync(at.SessionId, at);
    JsonElement? threadState = FindThreadState(checkpoint);
    var messages = new List<ChatMessage>();
    if (threadState is not null)
    {
        AgentSession session = await agent.DeserializeSessionAsync(threadState.Value);
        if (agent.ChatHistoryProvider is InMemoryChatHistoryProvider p) messages.AddRange(p.GetMessages(session));
    }
    // Then the input the agent holds for its next turn (ChatProtocolExecutor's state): empty at every checkpoint unless
    // a message was delivered without its TurnToken (AF_WORKFLOW_TURN=separate).
    messages.AddRange(PendingInput(checkpoint));
    return messages;
}

// The agent executor's pending input in a checkpoint: stateData "<executor>||AIAgentHostExecutor.State".
static List<ChatMessage> PendingInput(JsonElement checkpoint)
{
    if (checkpoint.TryGetProperty("stateData", out JsonElement state) && state.ValueKind == JsonValueKind.Object)
        foreach (JsonProperty p in state.EnumerateObject())
            if (p.Name.EndsWith("||AIAgentHostExecutor.State", StringComparison.Ordinal) && p.Value.TryGetProperty("value", out JsonElement v) && v.ValueKind == JsonValueKind.Array)
                return JsonSerializer.Deserialize<List<ChatMessage>>(v.GetRawText(), Wire.Options) ?? new List<ChatMessage>();
    return new List<ChatMessage>();
}

static JsonElement? FindThreadState(JsonElement e)
{
    switch (e.ValueKind)
    {
        case JsonValueKind.Object:
            foreach (JsonProperty p in e.EnumerateObject())
            {
                if (p.Name.Equals("threadState", StringComparison.OrdinalIgnoreCase) && p.Value.ValueKind == JsonValueKind.Object) return p.Value;
                if (FindThreadState(p.Value) is { } found) return found;
            }
            break;
        case JsonValueKind.Array:
            foreach (JsonElement x in e.EnumerateArray()) if (FindThreadState(x) is { } found) return found;
            break;
    }
    return null;
}

// Each checkpoint's parent, as the store's index records it (RetrieveIndexAsync(thread, withParent: c) lists c's children).
static async Task<Dictionary<CheckpointInfo, CheckpointInfo>> ParentsAsync(JsonCheckpointStore store, string thread)
{
    var parents = new Dictionary<CheckpointInfo, CheckpointInfo>();
    foreach (CheckpointInfo c in await store.RetrieveIndexAsync(thread))
        foreach (CheckpointInfo child in await store.RetrieveIndexAsync(thread, c))
            if (!child.Equals(c)) parents[child] = c;
    return parents;
}

// How many messages of the conversation come before user message K (edit) or assistant message N (fork; N = the
// number of assistant messages is the end); a position the conversation does not have is refused.
static int CutBefore(List<ChatMessage> conversation, string kind, int at)
{
    ChatRole role = kind == "edit" ? ChatRole.User : ChatRole.Assistant;
    List<int> positions = conversation.Select((m, i) => (m, i)).Where(x => x.m.Role == role).Select(x => x.i).ToList();
    if (at >= 0 && at < positions.Count) return positions[at];
    if (kind == "fork" && at == positions.Count) return conversation.Count;
    throw new InvalidOperationException($"refused: the conversation has no {(kind == "edit" ? "user" : "assistant")} message {at} (it holds {positions.Count})");
}

static bool SameMessages(List<ChatMessage> a, List<ChatMessage> b, int count) =>
    a.Count == count && b.Count >= count && Enumerable.Range(0, count).All(i =>
        a[i].Role == b[i].Role && a[i].MessageId == b[i].MessageId && a[i].Text == b[i].Text);

async Task<Wire.Answer> ResumeAsync(JsonElement req)
{
    string store = req.GetProperty("store").GetString()!;
    string thread = req.GetProperty("thread").GetString()!;
    JsonElement action = req.GetProperty("action");
    string checkpoints = Path.Combine(store, "checkpoints");
    // A stable Id is required: the executor id is GetDescriptiveId() = [Name_]Id, AIAgent.Id defaults to a fresh
    // Guid per instance, and InProcessRunner refuses a checkpoint whose executors do not match (FINDINGS.md W1).
    // AF_WORKFLOW_NO_ID=1 leaves the Id unset, to reproduce W1.
    string? agentId = System.Environment.GetEnvironmentVariable("AF_WORKFLOW_NO_ID") == "1" ? null : "assistant";
    var agent = new ChatClientAgent(new HarnessChatClient(), new ChatClientAgentOptions { Id = agentId, ChatOptions = new ChatOptions { Tools = Wire.Tools(req) } });
    Workflow workflow = AgentWorkflowBuilder.BuildSequential(agent);
    using var files = new FileSystemJsonCheckpointStore(new DirectoryInfo(checkpoints));
    if (action.TryGetProperty("read", out _))
    {
        List<ChatMessage> messages = await ReadAsync(agent, files, thread);
        if (!action.TryGetProperty("history", out JsonElement wantHistory) || wantHistory.ValueKind != JsonValueKind.True)
            return new("idle", messages);
        // Every branch the store keeps: the conversation of each checkpoint that is no checkpoint's parent.
        Dictionary<CheckpointInfo, CheckpointInfo> parents = await ParentsAsync(files, thread);
        var history = new List<List<ChatMessage>>();
        foreach (CheckpointInfo c in await files.RetrieveIndexAsync(thread))
            if (!parents.ContainsValue(c)) history.Add(await HistoryAtAsync(agent, files, c));
        return new("idle", messages, history);
    }
    CheckpointManager manager = CheckpointManager.CreateJson(new NoticingCheckpointStore(files));
    InProcessExecutionEnvironment env = Environment.WithCheckpointing(manager);
    CheckpointInfo? last = await manager.GetLatestCheckpointAsync(thread);
    string? branchKind = action.TryGetProperty("edit", out _) ? "edit" : action.TryGetProperty("fork", out _) ? "fork" : null;
    if (branchKind is not null)
    {
        int at = action.GetProperty(branchKind).GetInt32();
        List<ChatMessage> conversation = last is null ? new List<ChatMessage>() : await HistoryAtAsync(agent, files, last);
        int cut = CutBefore(conversation, branchKind, at);
        CheckpointInfo? from = null;
        if (cut > 0)
        {
            Dictionary<CheckpointInfo, CheckpointInfo> parents = await ParentsAsync(files, thread);
            for (CheckpointInfo? c = last; c is not null && from is null; c = parents.GetValueOrDefault(c))
                if (SameMessages(await HistoryAtAsync(agent, files, c), conversation, cut)) from = c;
            if (from is null)
                throw new InvalidOperationException($"no checkpoint holds the conversation before {(branchKind == "edit" ? "user" : "assistant")} message {at} " +
                    $"(its first {cut} messages): the library checkpoints between supersteps, and that position is inside one");
        }
        var message = new List<ChatMessage> { new(ChatRole.User, action.GetProperty("user").GetString()) };
        StreamingRun run;
        if (from is null)
            run = await env.RunStreamingAsync(workflow, message, thread); // an empty prefix: a new run, a new root
        else
        {
            run = await env.ResumeStreamingAsync(workflow, from);
            await run.TrySendMessageAsync(message);
        }
        await using (run)
            await TakeTurnAsync(run);
    }
    else if (action.TryGetProperty("user", out JsonElement text))
    {
        var message = new List<ChatMessage> { new(ChatRole.User, text.GetString()) };
        StreamingRun run;
        if (last is null)
            run = await env.RunStreamingAsync(workflow, message, thread);
        else
        {
            run = await env.ResumeStreamingAsync(workflow, last);
            await run.TrySendMessageAsync(message);
        }
        await using (run)
            await TakeTurnAsync(run);
    }
    else if (action.TryGetProperty("recover", out _))
    {
        if (last is not null)
        {
            await using StreamingRun run = await env.ResumeStreamingAsync(workflow, last);
            await DrainAsync(run);
            // A message delivered without its TurnToken (AF_WORKFLOW_TURN=separate, killed between the two): take the turn.
            if (PendingInput(await files.RetrieveCheckpointAsync(thread, last)).Count > 0)
            {
                await run.TrySendMessageAsync(new TurnToken(emitEvents: true));
                await DrainAsync(run);
            }
        }
    }
    else
        return new("unsupported", null);
    return new("idle", null);
}

await Wire.ServeAsync(Name, version, ResumeAsync, branch: ["edit", "fork", "history"]);

/// <summary>Delegates to the library's store; only reports the moment before and after each checkpoint write.</summary>
sealed class NoticingCheckpointStore(JsonCheckpointStore inner) : JsonCheckpointStore
{
    public override async ValueTask<CheckpointInfo> CreateCheckpointAsync(string sessionId, JsonElement value, CheckpointInfo? parent = null)
    {
        Wire.Commit("before", "checkpoint");
        CheckpointInfo info = await inner.CreateCheckpointAsync(sessionId, value, parent);
        Wire.Commit("after", "checkpoint");
        return info;
    }

    public override ValueTask<JsonElement> RetrieveCheckpointAsync(string sessionId, CheckpointInfo key) => inner.RetrieveCheckpointAsync(sessionId, key);

    public override ValueTask<IEnumerable<CheckpointInfo>> RetrieveIndexAsync(string sessionId, CheckpointInfo? withParent = null) => inner.RetrieveIndexAsync(sessionId, withParent);
}
