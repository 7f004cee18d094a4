// simdjson_parse.cc — the simdjson parse-only peer of `turnstile merge` for ci/bench/merge_bench.sh.
//
// Reads the file whole into simdjson's padded buffer (padded_string::load), then parses every
// value with the DOM parser's document stream (parse_many, one thread: the CPU time is what is
// compared), checks each is an object and counts it. No model, no merge, no output but the count:
// the floor under turnstile's merge, whose fast path is this parser, run the same way.
//
// usage: simdjson_parse FILE     prints "<updates>\n"; exit 0 ok, 2 bad input or usage, 1 I/O.
#include <simdjson.h>

#include <cstdio>

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: simdjson_parse FILE\n");
        return 2;
    }
    simdjson::padded_string text;
    if (simdjson::padded_string::load(argv[1]).get(text)) {
        std::fprintf(stderr, "simdjson_parse: cannot read %s\n", argv[1]);
        return 1;
    }
    simdjson::dom::parser parser;
    parser.threaded = false;
    simdjson::dom::document_stream stream;
    if (parser.parse_many(text).get(stream)) {
        std::fprintf(stderr, "simdjson_parse: cannot parse %s\n", argv[1]);
        return 2;
    }
    unsigned long long updates = 0;
    for (auto document : stream) {
        simdjson::dom::element value;
        if (document.get(value) || !value.is_object()) {
            std::fprintf(stderr, "simdjson_parse: %s: a value that is not a JSON object\n", argv[1]);
            return 2;
        }
        updates++;
    }
    std::printf("%llu\n", updates);
    return std::fflush(stdout) == 0 ? 0 : 1;
}
