// fastjson.cc — where a field stands in a JSON text, through simdjson's On-Demand API; see fastjson.h.
//
// The only C++ in turnstile, and only on the error path: values are read by the codec's own
// scanner (scan.h) and by jansson (strict.h).
#include "core/json/fastjson.h"

#include <simdjson.h>

extern "C" {

bool ts_fast_locate(const char *doc, size_t len, const char *pointer, size_t *offset) {
    // The error path only: a copy with padding and a fresh on-demand parser are fine here.
    simdjson::padded_string padded(doc, len);
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document document;
    if (parser.iterate(padded).get(document)) return false;
    simdjson::ondemand::value value;
    if (document.at_pointer(pointer).get(value)) return false;
    const char *at = value.raw_json_token().data(); // always a view of the input
    if (at < padded.data() || at > padded.data() + len) return false;
    *offset = static_cast<size_t>(at - padded.data());
    return true;
}

} // extern "C"
