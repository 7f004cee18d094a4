// dotnet-kit: a turnstile testee kit in C#. It speaks the testee protocol (conformance/PROTOCOL.md): one
// JSON request per line on stdin, one JSON answer per line on stdout. To certify your own merger, change
// the lines marked below and run:
//   dotnet publish -c Release -o out && turnstile certify -- dotnet out/dotnet-kit.dll
// As shipped it certifies the Agent Framework's own ToAgentResponse (Microsoft.Agents.AI.Abstractions).
using System.Reflection;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Agents.AI;

// ---- THE LINES YOU CHANGE (the last, your package, is the PackageReference in the .csproj) ---------------
const string NAME = "dotnet-kit";  // 1. your implementation's name (shown in the report)
const string VERSION = "0.1.0";    // 2. its version (the report adds the versions of the libraries it references)
JsonSerializerOptions libraryOptions = AgentAbstractionsJsonUtilities.DefaultOptions; // 3. your library's own serializer options
object Merge(JsonElement updates, string? responseId, JsonSerializerOptions o) => updates.Deserialize<List<AgentResponseUpdate>>(o)!.ToAgentResponse(); // 4. your merge call

// ---- protocol plumbing: no need to touch -----------------------------------------------------------------
// The library's options, unchanged but for indentation: an answer is one line (AIJsonUtilities indents).
var options = new JsonSerializerOptions(libraryOptions) { WriteIndented = false };
var writerOptions = new JsonWriterOptions { Encoder = options.Encoder, Indented = false, MaxDepth = 4096 };
var stdout = Console.OpenStandardOutput();
var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
string name = NAME;
string version = VERSION + " (" + string.Join(", ", Assembly.GetEntryAssembly()!.GetReferencedAssemblies() // e.g. "0.1.0 (Microsoft.Agents.AI.Abstractions 1.28.0)"
    .Where(a => a.Name is { } n && !n.StartsWith("System", StringComparison.Ordinal) && n != "netstandard")
    .Select(a => Assembly.Load(a)).Select(a => $"{a.GetName().Name} {a.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]}")) + ")";

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
            Answer(id, w => { w.WriteStartObject("hello"); w.WriteString("name", name); w.WriteString("version", version); w.WriteStartArray("ops"); w.WriteStringValue("merge"); w.WriteEndArray(); w.WriteEndObject(); });
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
