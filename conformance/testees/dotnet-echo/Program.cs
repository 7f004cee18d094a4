// dotnet-echo: a round-trip adapter, not a testee. For a merge request it reads the updates as
// AgentResponseUpdate with AgentAbstractionsJsonUtilities.DefaultOptions (no merging) and answers
//   {"id":…,"echo":[the updates written back with the same options]}
// so that a test can check that .NET reads what turnstile writes ($type first, createdAt forms, surrogate
// pairs) and that turnstile reads what .NET writes without loss. A request .NET cannot read is answered
// {"id":…,"error":"<exception type>: <message>"}; hello is answered, other ops are unsupported. Because
// "echo" is not a protocol answer, `turnstile certify` reports every merge case as a protocol error here.
using System.Reflection;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Agents.AI;

var options = AgentAbstractionsJsonUtilities.DefaultOptions; // compact already; used as is, for reading and writing
var writerOptions = new JsonWriterOptions { Encoder = options.Encoder, Indented = false, MaxDepth = 4096 };
var stdout = Console.OpenStandardOutput();
var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
string version = string.Join(", ", new[] { typeof(AgentResponseUpdate), typeof(Microsoft.Extensions.AI.ChatMessage) }
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
        if (op == "hello")
            Answer(id, w => { w.WriteStartObject("hello"); w.WriteString("name", "dotnet-echo"); w.WriteString("version", version); w.WriteStartArray("ops"); w.WriteStringValue("merge"); w.WriteEndArray(); w.WriteEndObject(); });
        else if (op == "merge")
        {
            List<AgentResponseUpdate> updates = req.GetProperty("updates").Deserialize<List<AgentResponseUpdate>>(options)!;
            Answer(id, w => { w.WritePropertyName("echo"); JsonSerializer.Serialize(w, updates, options); });
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
