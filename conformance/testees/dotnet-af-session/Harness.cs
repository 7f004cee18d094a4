// Harness.cs: the resume protocol's plumbing shared by the Agent Framework resume adapters
// (dotnet-af-session, dotnet-af-session-percall, dotnet-af-workflow): the line channel to the harness,
// the IChatClient whose model is the harness, the AIFunction whose body is the harness, and atomic file
// writes with commit notices. Nothing here touches the library's messages: they go out as
// AIJsonUtilities writes them and come back as it reads them (PROTOCOL.md, op resume).
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Extensions.AI;

static class Wire
{
    /// <summary>The library's own options, unchanged but for indentation (one line per answer).</summary>
    public static readonly JsonSerializerOptions Options = new(AIJsonUtilities.DefaultOptions) { WriteIndented = false };
    static readonly JsonWriterOptions WriterOptions = new() { Encoder = Options.Encoder, Indented = false, MaxDepth = 4096 };
    static readonly Stream Stdout = Console.OpenStandardOutput();
    static readonly StreamReader Stdin = new(Console.OpenStandardInput(), new UTF8Encoding(false));

    /// <summary>The id of the request in flight; world calls carry it.</summary>
    public static string RequestId = "";

    public static string? ReadLine() => Stdin.ReadLine();

    public static void Write(string id, Action<Utf8JsonWriter> body)
    {
        var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, WriterOptions)) { w.WriteStartObject(); w.WriteString("id", id); body(w); w.WriteEndObject(); }
        buffer.WriteByte((byte)'\n');
        Stdout.Write(buffer.GetBuffer(), 0, (int)buffer.Length);
        Stdout.Flush();
    }

    /// <summary>A world call (PROTOCOL.md): one line out, exactly one reply line in.</summary>
    public static JsonElement Call(Action<Utf8JsonWriter> body)
    {
        Write(RequestId, body);
        string line = Stdin.ReadLine() ?? throw new EndOfStreamException("the harness closed stdin during a world call");
        using var doc = JsonDocument.Parse(line);
        return doc.RootElement.Clone();
    }

    public static void Commit(string when, string what) => Call(w => { w.WriteString("commit", when); w.WriteString("what", what); });

    /// <summary>Write-then-rename, with commit notices around the rename-bearing write.</summary>
    public static void WriteAtomically(string path, string what, Action<Utf8JsonWriter> body)
    {
        string tmp = path + ".tmp";
        Commit("before", what);
        using (var f = new FileStream(tmp, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            using (var w = new Utf8JsonWriter(f, WriterOptions)) body(w);
            f.Flush(flushToDisk: true);
        }
        File.Move(tmp, path, overwrite: true);
        if (SyncDirectory) FsyncDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        Commit("after", what);
    }

    /// <summary>TURNSTILE_AF_DIRSYNC=1: also fsync the directory after the rename, so that the new name survives a
    /// power loss (the adapter's choice, not the library's: the Agent Framework hands the adapter a serialized
    /// session and leaves storing it to the application). Off by default: .NET has no API that syncs a directory,
    /// and the adapter writes as a plain application does.</summary>
    static readonly bool SyncDirectory = System.Environment.GetEnvironmentVariable("TURNSTILE_AF_DIRSYNC") == "1";

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    static extern int open([System.Runtime.InteropServices.MarshalAs(System.Runtime.InteropServices.UnmanagedType.LPUTF8Str)] string path, int flags);
    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    static extern int fsync(int fd);
    [System.Runtime.InteropServices.DllImport("libc")]
    static extern int close(int fd);

    static void FsyncDirectory(string dir)
    {
        const int O_RDONLY = 0, O_DIRECTORY = 0x10000; // Linux x86-64
        int fd = open(dir, O_RDONLY | O_DIRECTORY);
        if (fd < 0) throw new IOException($"open({dir}) for fsync failed: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
        try
        {
            if (fsync(fd) != 0) throw new IOException($"fsync({dir}) failed: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
        }
        finally { close(fd); }
    }

    /// <summary>The request loop (PROTOCOL.md): hello, resume (its answer from <paramref name="resume"/>),
    /// unsupported for any other op; an exception is the request's error answer.</summary>
    public static Task ServeAsync(string name, string version, Func<JsonElement, Task<(string Status, List<ChatMessage>? Messages)>> resume) =>
        ServeAsync(name, version, async req => { var (status, messages) = await resume(req); return new Answer(status, messages); }, branch: null);

    /// <summary>An action's answer: its status, the conversation for a read, and for a history read every branch the
    /// engine keeps (PROTOCOL.md, op resume).</summary>
    public sealed record Answer(string Status, List<ChatMessage>? Messages, List<List<ChatMessage>>? History = null);

    /// <summary>As above; <paramref name="branch"/> is what hello lists in "branch" (the branches the engine can
    /// make: "edit", "fork", "history"), null for none.</summary>
    public static async Task ServeAsync(string name, string version, Func<JsonElement, Task<Answer>> resume, string[]? branch)
    {
        for (string? line; (line = ReadLine()) is not null;)
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
                if (op == "hello")
                    Write(id, w =>
                    {
                        w.WriteStartObject("hello"); w.WriteString("name", name); w.WriteString("version", version);
                        w.WriteStartArray("ops"); w.WriteStringValue("resume"); w.WriteEndArray();
                        w.WriteBoolean("async", false); // no asynchronous tools: the certifier skips the cases that need one
                        if (branch is not null) { w.WriteStartArray("branch"); foreach (string kind in branch) w.WriteStringValue(kind); w.WriteEndArray(); }
                        w.WriteEndObject();
                    });
                else if (op == "resume")
                {
                    RequestId = id;
                    var (status, messages, history) = await resume(req);
                    Write(id, w =>
                    {
                        if (status == "unsupported") { w.WriteBoolean("unsupported", true); return; }
                        w.WriteString("status", status);
                        if (messages is not null) { w.WritePropertyName("messages"); JsonSerializer.Serialize(w, messages, Options); }
                        if (history is not null) { w.WritePropertyName("history"); JsonSerializer.Serialize(w, history, Options); }
                    });
                }
                else
                    Write(id, w => w.WriteBoolean("unsupported", true));
            }
            catch (Exception e)
            {
                id ??= IdOf(line);
                if (id is not null) Write(id, w => w.WriteString("error", $"{e.GetType().Name}: {e.Message}"));
                Console.Error.WriteLine(e);
            }
        }
    }

    public static string LibraryVersion(Type t) =>
        t.Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0] ?? "?";

    public static string? IdOf(string line) =>
        Regex.Match(line, "\"id\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"") is { Success: true } m ? Regex.Unescape(m.Groups[1].Value) : null;

    /// <summary>The request's tool catalogue as AIFunctions that forward to the harness.</summary>
    public static List<AITool> Tools(JsonElement req) =>
        req.TryGetProperty("tools", out var tools) && tools.ValueKind == JsonValueKind.Array
            ? tools.EnumerateArray().Select(t => (AITool)new HarnessTool(
                t.GetProperty("name").GetString()!,
                t.TryGetProperty("description", out var d) ? d.GetString() ?? "" : "",
                t.TryGetProperty("parameters", out var p) ? p.Clone() : JsonDocument.Parse("{\"type\":\"object\"}").RootElement.Clone())).ToList()
            : new List<AITool>();
}

/// <summary>The model: every call goes to the harness, whose reply is the one assistant message of the response.</summary>
sealed class HarnessChatClient : IChatClient
{
    public Task<ChatResponse> GetResponseAsync(IEnumerable<ChatMessage> messages, ChatOptions? options = null, CancellationToken cancellationToken = default)
    {
        List<ChatMessage> view = messages.ToList();
        JsonElement answer = Wire.Call(w =>
        {
            w.WriteString("call", "model");
            w.WritePropertyName("messages");
            JsonSerializer.Serialize(w, view, Wire.Options);
        });
        if (!answer.TryGetProperty("reply", out JsonElement reply))
            throw new InvalidOperationException(answer.TryGetProperty("error", out JsonElement failed) && failed.ValueKind == JsonValueKind.String
                ? "the model failed: " + failed.GetString() : "the harness gave no reply to a model call: " + answer.GetRawText());
        ChatMessage message = reply.Deserialize<ChatMessage>(Wire.Options)!;
        return Task.FromResult(new ChatResponse(message) { CreatedAt = message.CreatedAt });
    }

    public async IAsyncEnumerable<ChatResponseUpdate> GetStreamingResponseAsync(IEnumerable<ChatMessage> messages, ChatOptions? options = null, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ChatResponse response = await GetResponseAsync(messages, options, cancellationToken);
        foreach (ChatResponseUpdate update in response.ToChatResponseUpdates()) yield return update;
    }

    public object? GetService(Type serviceType, object? serviceKey = null) => serviceKey is null && serviceType.IsInstanceOfType(this) ? this : null;

    public void Dispose() { }
}

/// <summary>A tool of the case's catalogue: its body asks the harness. An error reply throws, as a failing tool does.</summary>
sealed class HarnessTool(string name, string description, JsonElement schema) : AIFunction
{
    public override string Name => name;
    public override string Description => description;
    public override JsonElement JsonSchema => schema;

    protected override ValueTask<object?> InvokeCoreAsync(AIFunctionArguments arguments, CancellationToken cancellationToken)
    {
        FunctionCallContent? call = FunctionInvokingChatClient.CurrentContext?.CallContent;
        IDictionary<string, object?> args = call?.Arguments ?? arguments;
        JsonElement answer = Wire.Call(w =>
        {
            w.WriteString("call", "tool");
            w.WriteString("name", name);
            w.WriteString("callId", call?.CallId ?? "");
            w.WritePropertyName("arguments");
            JsonSerializer.Serialize(w, args, Wire.Options);
        });
        JsonElement reply = answer.GetProperty("reply");
        if (reply.TryGetProperty("result", out JsonElement result)) return new ValueTask<object?>(result.Clone());
        if (reply.TryGetProperty("error", out JsonElement error)) throw new InvalidOperationException(error.ValueKind == JsonValueKind.String ? error.GetString() : error.GetRawText());
        throw new NotSupportedException("the harness answered 'pending', but this testee declares async:false");
    }
}
