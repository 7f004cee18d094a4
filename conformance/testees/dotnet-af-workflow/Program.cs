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
    // The agent session is the "threadState" of AIAgentHostExecutor's AIAgentHostState in the checkpoint.
    JsonElement checkpoint = await store.RetrieveCheckpointAsync(last.SessionId, last);
    JsonElement? threadState = FindThreadState(checkpoint);
    if (threadState is null) return new List<ChatMessage>();
    AgentSession session = await agent.DeserializeSessionAsync(threadState.Value);
    return agent.ChatHistoryProvider is InMemoryChatHistoryProvider p ? p.GetMessages(session) : new List<ChatMessage>();
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

async Task<(string Status, List<ChatMessage>? Messages)> ResumeAsync(JsonElement req)
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
        return ("idle", await ReadAsync(agent, files, thread));
    CheckpointManager manager = CheckpointManager.CreateJson(new NoticingCheckpointStore(files));
    InProcessExecutionEnvironment env = Environment.WithCheckpointing(manager);
    CheckpointInfo? last = await manager.GetLatestCheckpointAsync(thread);
    if (action.TryGetProperty("user", out JsonElement text))
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
        {
            await run.TrySendMessageAsync(new TurnToken(emitEvents: true));
            await DrainAsync(run);
        }
    }
    else if (action.TryGetProperty("recover", out _))
    {
        if (last is not null)
        {
            await using StreamingRun run = await env.ResumeStreamingAsync(workflow, last);
            await DrainAsync(run);
        }
    }
    else
        return ("unsupported", null);
    return ("idle", null);
}

await Wire.ServeAsync(Name, version, ResumeAsync);

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
