// dotnet-af-messagemerger: certifies the Agent Framework's MessageMerger (Microsoft.Agents.AI.Workflows,
// dotnet/src/Microsoft.Agents.AI.Workflows/MessageMerger.cs) as the library ships it. The plumbing is
// dotnet-kit/Program.cs; the updates are read and the answers written with AgentAbstractionsJsonUtilities.
//   merge: MessageMerger is internal and no public API runs it alone, so it is reached by reflection: a new
//          MessageMerger, AddUpdate(update) for each update in order, then ComputeMerged(primaryResponseId,
//          null, null). Its only caller, WorkflowHostAgent, passes the turn id WorkflowSession.InvokeStageAsync
//          draws (Guid.NewGuid().ToString("N")); this adapter passes the request's responseId when it has
//          one, else such a fresh id, as that caller would.
//   host:  the public hosting path, unmodified: AgentWorkflowBuilder.BuildSequential(agent).AsAIAgent() runs
//          a scripted AIAgent that yields the emissions (AIAgentHostExecutor hosts it) and RunStreamingAsync
//          gives the stream WorkflowHostAgent emits to its client. The response is the one WorkflowHostAgent
//          computes from that same stream (WorkflowHostAgent.cs RunCoreStreamingAsync/ResponseMergeState):
//          MessageMerger.ComputeMerged(session.LastResponseId, agent.Id, agent.Name), through the same
//          reflection, since the streaming path keeps it in the session instead of returning it.
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Agents.AI;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Extensions.AI;

JsonSerializerOptions libraryOptions = AgentAbstractionsJsonUtilities.DefaultOptions;
Type mergerType = typeof(AgentWorkflowBuilder).Assembly.GetType("Microsoft.Agents.AI.Workflows.MessageMerger", throwOnError: true)!;
MethodInfo addUpdate = mergerType.GetMethod("AddUpdate", BindingFlags.Public | BindingFlags.Instance)!;
MethodInfo computeMerged = mergerType.GetMethod("ComputeMerged", BindingFlags.Public | BindingFlags.Instance)!;

AgentResponse MessageMerger(IEnumerable<AgentResponseUpdate> updates, string primaryResponseId, string? primaryAgentId, string? primaryAgentName)
{
    object merger = Activator.CreateInstance(mergerType, nonPublic: true)!;
    foreach (AgentResponseUpdate update in updates) addUpdate.Invoke(merger, BindingFlags.DoNotWrapExceptions, null, [update], null);
    return (AgentResponse)computeMerged.Invoke(merger, BindingFlags.DoNotWrapExceptions, null, [primaryResponseId, primaryAgentId, primaryAgentName], null)!;
}

object Merge(JsonElement updates, string? responseId, JsonSerializerOptions o)
    => MessageMerger(updates.Deserialize<List<AgentResponseUpdate>>(o)!, responseId ?? Guid.NewGuid().ToString("N"), null, null);

(List<AgentResponseUpdate> Stream, AgentResponse Response) Host(JsonElement emissions, JsonSerializerOptions o)
{
    AIAgent host = AgentWorkflowBuilder.BuildSequential(new ScriptedAgent(emissions.Deserialize<List<AgentResponseUpdate>>(o)!)).AsAIAgent();
    AgentSession session = host.CreateSessionAsync().AsTask().GetAwaiter().GetResult();
    List<AgentResponseUpdate> stream = host.RunStreamingAsync("run", session).ToBlockingEnumerable().ToList();
    string turnId = (string)session.GetType().GetProperty("LastResponseId")!.GetValue(session)!;
    return (stream, MessageMerger(stream, turnId, host.Id, host.Name));
}

// ---- protocol plumbing (as in dotnet-kit) ------------------------------------------------------------------
var options = new JsonSerializerOptions(libraryOptions) { WriteIndented = false };
var writerOptions = new JsonWriterOptions { Encoder = options.Encoder, Indented = false, MaxDepth = 4096 };
var stdout = Console.OpenStandardOutput();
var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
string name = Assembly.GetEntryAssembly()!.GetName().Name!;
string version = string.Join(", ", new[] { typeof(AgentWorkflowBuilder), typeof(AgentResponse), typeof(ChatMessage) }
    .Select(t => t.Assembly).Select(a => $"{a.GetName().Name} {a.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]}"));

void Answer(string id, Action<Utf8JsonWriter> body)
{
    var buffer = new MemoryStream();
    using (var w = new Utf8JsonWriter(buffer, writerOptions)) { w.WriteStartObject(); w.WriteString("id", id); body(w); w.WriteEndObject(); }
    buffer.WriteByte((byte)'\n');
    stdout.Write(buffer.GetBuffer(), 0, (int)buffer.Length);
    stdout.Flush();
}

for (string? line; (line = stdin.ReadLine()) is not null;)
{
    if (string.IsNullOrWhiteSpace(line)) continue;
    string? id = null;
    try
    {
        using var doc = JsonDocument.Parse(line, new JsonDocumentOptions { MaxDepth = 4096 });
        JsonElement req = doc.RootElement;
        if (req.ValueKind != JsonValueKind.Object || !req.TryGetProperty("id", out var idValue) || idValue.ValueKind != JsonValueKind.String) continue;
        id = idValue.GetString()!;
        string? op = req.TryGetProperty("op", out var opValue) && opValue.ValueKind == JsonValueKind.String ? opValue.GetString() : null;
        string? responseId = req.TryGetProperty("responseId", out var rid) && rid.ValueKind == JsonValueKind.String ? rid.GetString() : null;
        if (op == "hello")
            Answer(id, w => { w.WriteStartObject("hello"); w.WriteString("name", name); w.WriteString("version", version); w.WriteStartArray("ops"); w.WriteStringValue("merge"); w.WriteStringValue("host"); w.WriteEndArray(); w.WriteEndObject(); });
        else if (op == "merge")
        {
            object response = Merge(req.GetProperty("updates"), responseId, options);
            Answer(id, w => { w.WritePropertyName("response"); JsonSerializer.Serialize(w, response, response.GetType(), options); });
        }
        else if (op == "host")
        {
            var (stream, response) = Host(req.GetProperty("emissions"), options);
            Answer(id, w => { w.WritePropertyName("stream"); JsonSerializer.Serialize(w, stream, options); w.WritePropertyName("response"); JsonSerializer.Serialize(w, response, options); });
        }
        else
            Answer(id, w => w.WriteBoolean("unsupported", true));
    }
    catch (Exception e)
    {
        id ??= Regex.Match(line, "\"id\"\\s*:\\s*\"([A-Za-z0-9_.$]+)\"") is { Success: true } m ? m.Groups[1].Value : null;
        if (id is not null) Answer(id, w => w.WriteString("error", $"{e.GetType().Name}: {e.Message}"));
    }
}

/// <summary>An agent that streams the request's emissions, exactly as given, whatever it is asked.</summary>
sealed class ScriptedAgent(List<AgentResponseUpdate> emissions) : AIAgent
{
    sealed class ScriptedSession : AgentSession;

    protected override ValueTask<AgentSession> CreateSessionCoreAsync(CancellationToken cancellationToken = default) => new(new ScriptedSession());
    protected override ValueTask<JsonElement> SerializeSessionCoreAsync(AgentSession session, JsonSerializerOptions? jsonSerializerOptions = null, CancellationToken cancellationToken = default)
        => new(JsonSerializer.SerializeToElement(new Dictionary<string, string>(), AgentAbstractionsJsonUtilities.DefaultOptions));
    protected override ValueTask<AgentSession> DeserializeSessionCoreAsync(JsonElement serializedState, JsonSerializerOptions? jsonSerializerOptions = null, CancellationToken cancellationToken = default) => new(new ScriptedSession());
    protected override Task<AgentResponse> RunCoreAsync(IEnumerable<ChatMessage> messages, AgentSession? session = null, AgentRunOptions? options = null, CancellationToken cancellationToken = default)
        => Task.FromResult(emissions.ToAgentResponse());
    protected override async IAsyncEnumerable<AgentResponseUpdate> RunCoreStreamingAsync(IEnumerable<ChatMessage> messages, AgentSession? session = null, AgentRunOptions? options = null, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        foreach (AgentResponseUpdate update in emissions) { await Task.Yield(); yield return update; }
    }
}
