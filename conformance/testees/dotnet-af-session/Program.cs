// dotnet-af-session (and, compiled with PERCALL, dotnet-af-session-percall): the resume testee for the
// Agent Framework's ChatClientAgent with a serialised AgentSession (conformance/PROTOCOL.md, op resume).
//   - The agent is a plain ChatClientAgent over HarnessChatClient (Harness.cs); the framework inserts its own
//     FunctionInvokingChatClient, which runs the catalogue's HarnessTools.
//   - Durable state: <store>/session.json, agent.SerializeSessionAsync(session) written after every run
//     (write-then-rename, commit notices "session"), agent.DeserializeSessionAsync at the first action of a process.
//   - dotnet-af-session: history in the default InMemoryChatHistoryProvider (inside the session), which the
//     agent updates at the end of a run.
//   - dotnet-af-session-percall: ChatClientAgentOptions.RequirePerServiceCallChatHistoryPersistence with
//     FileChatHistoryProvider (below), a durable provider that writes <store>/history.json whenever the
//     framework hands it messages, i.e. after every model call (commit notices "history").
//   - recover: if the stored history leaves the turn unfinished (last message from the user or a tool, or a
//     function call without its result), RunAsync(session) without new messages, as an application would.
// The adapter never repairs the history: what the library stores is what `read` shows and the model sees.
using System.Text.Json;
using Microsoft.Agents.AI;
using Microsoft.Extensions.AI;

#if PERCALL
const string Name = "af-chatclientagent-session-percall";
#else
const string Name = "af-chatclientagent-session";
#endif
string version = Wire.LibraryVersion(typeof(ChatClientAgent));
var sessions = new Dictionary<string, AgentSession>(); // store -> the session this process holds

ChatClientAgent NewAgent(JsonElement req, string store) => new(new HarnessChatClient(), new ChatClientAgentOptions
{
    ChatOptions = new ChatOptions { Tools = Wire.Tools(req) },
#if PERCALL
    RequirePerServiceCallChatHistoryPersistence = true,
    ChatHistoryProvider = new FileChatHistoryProvider(store),
#endif
});

async Task<AgentSession> LoadSessionAsync(ChatClientAgent agent, string store)
{
    if (sessions.TryGetValue(store, out AgentSession? held)) return held;
    string path = Path.Combine(store, "session.json");
    AgentSession session = File.Exists(path)
        ? await agent.DeserializeSessionAsync(JsonDocument.Parse(File.ReadAllBytes(path)).RootElement.Clone())
        : await agent.CreateSessionAsync();
    return sessions[store] = session;
}

async Task SaveSessionAsync(ChatClientAgent agent, AgentSession session, string store)
{
    JsonElement state = await agent.SerializeSessionAsync(session);
    Wire.WriteAtomically(Path.Combine(store, "session.json"), "session", w => state.WriteTo(w));
}

List<ChatMessage> History(ChatClientAgent agent, AgentSession session) => agent.ChatHistoryProvider switch
{
    InMemoryChatHistoryProvider p => p.GetMessages(session),
#if PERCALL
    FileChatHistoryProvider p => p.Load(),
#endif
    var p => throw new InvalidOperationException($"no way to read history from {p?.GetType().Name ?? "null"}"),
};

static bool Unfinished(List<ChatMessage> history)
{
    if (history.Count == 0) return false;
    ChatMessage last = history[^1];
    if (last.Role == ChatRole.User || last.Role == ChatRole.Tool) return true;
    // A call's result comes after it: a last message that calls anything is unanswered (a call id
    // answered in an earlier turn says nothing about this one).
    return last.Contents.OfType<FunctionCallContent>().Any();
}

async Task<(string Status, List<ChatMessage>? Messages)> ResumeAsync(JsonElement req)
{
    string store = req.GetProperty("store").GetString()!;
    JsonElement action = req.GetProperty("action");
    ChatClientAgent agent = NewAgent(req, store);
    AgentSession session = await LoadSessionAsync(agent, store);
    try
    {
        if (action.TryGetProperty("user", out JsonElement text))
        {
            await agent.RunAsync(new ChatMessage(ChatRole.User, text.GetString()), session);
            await SaveSessionAsync(agent, session, store);
        }
        else if (action.TryGetProperty("recover", out _))
        {
            if (Unfinished(History(agent, session)))
            {
                await agent.RunAsync(session);
                await SaveSessionAsync(agent, session, store);
            }
        }
        else if (action.TryGetProperty("read", out _))
            return ("idle", History(agent, session));
        else
            return ("unsupported", null); // complete: no asynchronous tools in a ChatClientAgent (hello says async:false)
        return ("idle", null);
    }
    catch
    {
        sessions.Remove(store); // the next action starts again from what is stored
        throw;
    }
}

await Wire.ServeAsync(Name, version, ResumeAsync);

#if PERCALL
/// <summary>
/// A durable ChatHistoryProvider: the whole history in &lt;store&gt;/history.json. The framework calls
/// ProvideChatHistoryAsync before and StoreChatHistoryAsync after each service call (the
/// PerServiceCallChatHistoryPersistingChatClient decorator); this provider stores exactly what it is handed.
/// </summary>
sealed class FileChatHistoryProvider(string store) : ChatHistoryProvider
{
    string FilePath => Path.Combine(store, "history.json");

    public List<ChatMessage> Load() => File.Exists(FilePath)
        ? JsonSerializer.Deserialize<List<ChatMessage>>(File.ReadAllBytes(FilePath), Wire.Options)!
        : new List<ChatMessage>();

    protected override ValueTask<IEnumerable<ChatMessage>> ProvideChatHistoryAsync(InvokingContext context, CancellationToken cancellationToken = default)
        => new(Load());

    protected override ValueTask StoreChatHistoryAsync(InvokedContext context, CancellationToken cancellationToken = default)
    {
        List<ChatMessage> all = Load();
        all.AddRange(context.RequestMessages);
        all.AddRange(context.ResponseMessages ?? []);
        Wire.WriteAtomically(FilePath, "history", w => JsonSerializer.Serialize(w, all, Wire.Options));
        return default;
    }
}
#endif
