// dotnet-kit-own-types: a turnstile testee kit in C# for a merger with its own update types (no Agent
// Framework, no Microsoft.Extensions.AI: System.Text.Json only). It speaks the testee protocol
// (conformance/PROTOCOL.md): one JSON request per line on stdin, one JSON answer per line on stdout.
// To certify your own merger, change the lines marked below and run:
//   dotnet publish -c Release -o out && turnstile certify --platform dotnet -- dotnet out/dotnet-kit-own-types.dll
// As shipped it certifies SampleMerger (below): a deliberately simple merge over the sample types.
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;

// ---- THE LINES YOU CHANGE ------------------------------------------------------------------------------
const string NAME = "dotnet-kit-own-types"; // 1. your implementation's name (shown in the report)
const string VERSION = "0.1.0";             // 2. its version
JsonSerializerOptions libraryOptions = SampleMerger.Options; // 3. the options your types are serialized with
object Merge(JsonElement updates, string? responseId, JsonSerializerOptions o) => // 4. your merge call
    SampleMerger.Merge(updates.Deserialize<List<SampleUpdate>>(o)!, responseId);

// ---- protocol plumbing: no need to touch ---------------------------------------------------------------
var options = new JsonSerializerOptions(libraryOptions) { WriteIndented = false }; // an answer is one line
var writerOptions = new JsonWriterOptions { Encoder = options.Encoder, Indented = false, MaxDepth = 4096 };
var stdout = Console.OpenStandardOutput();
var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));

void Answer(string id, Action<Utf8JsonWriter> body)
{
    var buffer = new MemoryStream();
    using (var w = new Utf8JsonWriter(buffer, writerOptions)) { w.WriteStartObject(); w.WriteString("id", id); body(w); w.WriteEndObject(); }
    buffer.WriteByte((byte)'\n');
    stdout.Write(buffer.GetBuffer(), 0, (int)buffer.Length);
    stdout.Flush();
}

for (string? line; (line = stdin.ReadLine()) is not null;) // one request per line; the loop ends at EOF
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
            Answer(id, w => { w.WriteStartObject("hello"); w.WriteString("name", NAME); w.WriteString("version", VERSION); w.WriteStartArray("ops"); w.WriteStringValue("merge"); w.WriteEndArray(); w.WriteEndObject(); });
        else if (op != "merge")
            Answer(id, w => w.WriteBoolean("unsupported", true));
        else
        {
            object response = Merge(req.GetProperty("updates"), responseId, options);
            Answer(id, w => { w.WritePropertyName("response"); JsonSerializer.Serialize(w, response, response.GetType(), options); });
        }
    }
    catch (Exception e) // not JSON, a rejected input or a bug: one error line if an id is known, and keep serving
    {
        id ??= Regex.Match(line, "\"id\"\\s*:\\s*\"([A-Za-z0-9_.$]+)\"") is { Success: true } m ? m.Groups[1].Value : null;
        if (id is not null) Answer(id, w => w.WriteString("error", $"{e.GetType().Name}: {e.Message}"));
    }
}

// ---- THE PART YOU REPLACE: sample types and a deliberately simple merge ----------------------------------
// Your own update, message and response types stand here (or in your library). These keep contents as
// JSON objects and createdAt as DateTimeOffset, as a typical .NET model does: DateTimeOffset holds offsets
// of at most ±14:00, so certify with --platform dotnet to see those cases apart.

public sealed class SampleUpdate
{
    public string? ResponseId { get; set; }
    public string? MessageId { get; set; }
    public string? Role { get; set; }
    public string? AuthorName { get; set; }
    public string? AgentId { get; set; }
    public DateTimeOffset? CreatedAt { get; set; }
    public string? FinishReason { get; set; }
    public List<JsonObject?>? Contents { get; set; }
}

public sealed class SampleMessage
{
    public string Role { get; set; } = "assistant";
    public string? MessageId { get; set; }
    public string? AuthorName { get; set; }
    public string? AgentId { get; set; }
    public DateTimeOffset? CreatedAt { get; set; }
    public List<JsonObject?> Contents { get; set; } = new();
}

public sealed class SampleResponse
{
    public string? ResponseId { get; set; }
    public string? AgentId { get; set; }
    public DateTimeOffset? CreatedAt { get; set; }
    public string? FinishReason { get; set; }
    public JsonObject? Usage { get; set; }
    public List<SampleMessage> Messages { get; set; } = new();
}

public static class SampleMerger
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    // Arrival order; one message per (responseId, messageId); id-less updates continue the last message
    // of their response; adjacent plain text deltas joined; usage summed; the last finishReason wins.
    // It does not sort by createdAt or split on role changes, and drops unknown members: certification
    // reports those cases.
    public static SampleResponse Merge(List<SampleUpdate> updates, string? responseId)
    {
        string primary = responseId ?? updates.FirstOrDefault(u => u.ResponseId is not null)?.ResponseId ?? "turn";
        var response = new SampleResponse { ResponseId = primary };
        var groups = new List<(string Rid, List<(string? Key, SampleMessage Message)> Messages)>();
        foreach (var u in updates)
        {
            string rid = u.ResponseId ?? primary;
            var group = groups.FirstOrDefault(g => g.Rid == rid);
            if (group.Messages is null) { group = (rid, new()); groups.Add(group); }
            SampleMessage? m = u.MessageId is null ? group.Messages.LastOrDefault().Message
                : group.Messages.FirstOrDefault(x => x.Key == u.MessageId).Message;
            if (m is null) { m = new SampleMessage { MessageId = u.MessageId }; group.Messages.Add((u.MessageId, m)); }
            if (u.Role is not null && m.Role == "assistant" && m.Contents.Count == 0) m.Role = u.Role;
            m.AuthorName ??= u.AuthorName;
            m.AgentId ??= u.AgentId;
            m.CreatedAt ??= u.CreatedAt;
            response.AgentId ??= u.AgentId;
            response.CreatedAt ??= u.CreatedAt;
            if (u.FinishReason is not null) response.FinishReason = u.FinishReason;
            foreach (var c in u.Contents ?? new())
            {
                if (c?["$type"]?.GetValue<string>() == "usage") { AddUsage(response.Usage ??= new JsonObject(), c["details"] as JsonObject); continue; }
                var last = m.Contents.LastOrDefault();
                if (IsPlainText(c) && IsPlainText(last)) last!["text"] = last["text"]!.GetValue<string>() + c!["text"]!.GetValue<string>();
                else m.Contents.Add(c?.DeepClone() as JsonObject);
            }
        }
        response.Messages = groups.SelectMany(g => g.Messages.Select(x => x.Message))
            .Where(m => m.MessageId is not null || m.Contents.Count > 0).ToList();
        return response;
    }

    static bool IsPlainText(JsonObject? c) =>
        c is not null && c.Count == 2 && c["$type"]?.GetValue<string>() == "text" && c["text"] is JsonValue v && v.TryGetValue<string>(out _);

    static void AddUsage(JsonObject total, JsonObject? details)
    {
        foreach (var (key, value) in details ?? new JsonObject())
        {
            if (value is JsonObject inner) AddUsage((total[key] as JsonObject) ?? (JsonObject)(total[key] = new JsonObject()), inner);
            else if (value is JsonValue n && (n.TryGetValue<long>(out long x) || (n.TryGetValue<string>(out var s) && long.TryParse(s, out x))))
                total[key] = ((total[key] as JsonValue)?.GetValue<long>() ?? 0) + x;
            else total[key] = value?.DeepClone();
        }
    }
}
