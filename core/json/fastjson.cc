// fastjson.cc — the codec's fast path over simdjson's DOM parser; see fastjson.h.
//
// The only C++ in turnstile: a shim that turns simdjson's tape into ts_json in the caller's
// arena. It keeps to what simdjson checks itself (UTF-8, structure, escapes, surrogates, number
// syntax and range) and adds the strictness SPEC W2 asks for beyond it (duplicate keys, int64);
// anything it is unsure of is deferred to the strict path, never decided here.
#include "core/json/fastjson.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>

using simdjson::dom::element;
using simdjson::dom::element_type;

struct ts_fast_parser {
    simdjson::dom::parser parser;
    simdjson::dom::document_stream stream;
    simdjson::dom::document_stream::iterator next;
    bool in_window = false;
    bool advance = false; // the value at `next` was returned: step past it before reading on
};

namespace {

enum class convert_status { ok, defer, nomem };

// Object sizes up to this are checked for duplicate keys pair by pair; larger ones by sorting.
constexpr size_t small_object = 16;

bool is_common(const ts_member &m) {
    uintptr_t offset = reinterpret_cast<uintptr_t>(m.key.ptr) - reinterpret_cast<uintptr_t>(ts_json_common_keys);
    return offset < sizeof ts_json_common_keys;
}

// Keys that are one of the wire format's names all point at its one static copy (convert
// interns them), so two such keys are equal exactly when their addresses are, and such a key
// never equals one that is not.
bool same_key(const ts_member &a, const ts_member &b) {
    bool common = is_common(a);
    if (common || is_common(b)) return common && a.key.ptr == b.key.ptr;
    return a.key.len == b.key.len && std::memcmp(a.key.ptr, b.key.ptr, a.key.len) == 0;
}

bool key_less(const ts_member *a, const ts_member *b) {
    size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
    int c = std::memcmp(a->key.ptr, b->key.ptr, n);
    return c < 0 || (c == 0 && a->key.len < b->key.len);
}

// Heap sort of member pointers: no allocation beyond the index array, no recursion.
void sort_members(const ts_member **items, size_t n) {
    auto sift = [&](size_t root, size_t end) {
        for (;;) {
            size_t child = 2 * root + 1;
            if (child >= end) return;
            if (child + 1 < end && key_less(items[child], items[child + 1])) child++;
            if (!key_less(items[root], items[child])) return;
            const ts_member *t = items[root];
            items[root] = items[child];
            items[child] = t;
            root = child;
        }
    };
    for (size_t i = n / 2; i-- > 0;) sift(i, n);
    for (size_t end = n; end-- > 1;) {
        const ts_member *t = items[0];
        items[0] = items[end];
        items[end] = t;
        sift(0, end);
    }
}

bool has_duplicate_key(const ts_member *members, size_t n) {
    if (n <= small_object) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(members[i], members[j])) return true;
        return false;
    }
    const ts_member **sorted = static_cast<const ts_member **>(std::malloc(n * sizeof *sorted));
    if (!sorted) return true; // the strict path then decides, with its own memory
    for (size_t i = 0; i < n; i++) sorted[i] = &members[i];
    sort_members(sorted, n);
    bool duplicate = false;
    for (size_t i = 1; i < n && !duplicate; i++) duplicate = same_key(*sorted[i - 1], *sorted[i]);
    std::free(sorted);
    return duplicate;
}

// With `borrow`, strings point into simdjson's string buffer (NUL-terminated there), valid
// until the parser reads the next document; else they are copied into the arena.
convert_status copy_string(ts_arena *arena, bool borrow, std::string_view s, ts_str *out) {
    if (borrow) {
        out->ptr = s.data();
        out->len = s.size();
        return convert_status::ok;
    }
    char *copy = ts_arena_strndup(arena, s.data(), s.size());
    if (!copy) return convert_status::nomem;
    out->ptr = copy;
    out->len = s.size();
    return convert_status::ok;
}

convert_status convert_container(ts_arena *arena, bool borrow, element e, ts_json *out);

// Scalars in line, containers through one (recursive) call: most values of a stream are scalars.
inline convert_status convert(ts_arena *arena, bool borrow, element e, ts_json *out) {
    switch (e.type()) {
    case element_type::NULL_VALUE: *out = ts_json_make_null(); return convert_status::ok;
    case element_type::BOOL: *out = ts_json_make_bool(e.get_bool().value_unsafe()); return convert_status::ok;
    case element_type::INT64: *out = ts_json_make_int(e.get_int64().value_unsafe()); return convert_status::ok;
    case element_type::UINT64: return convert_status::defer; // beyond int64: W2 rejects it
    case element_type::DOUBLE:
        out->kind = TS_JSON_REAL;
        out->u.r = e.get_double().value_unsafe();
        return convert_status::ok;
    case element_type::STRING:
        out->kind = TS_JSON_STRING;
        return copy_string(arena, borrow, e.get_string().value_unsafe(), &out->u.s);
    case element_type::ARRAY:
    case element_type::OBJECT: return convert_container(arena, borrow, e, out);
    }
    return convert_status::defer;
}

__attribute__((noinline)) convert_status convert_container(ts_arena *arena, bool borrow, element e, ts_json *out) {
    if (e.type() == element_type::ARRAY) {
        simdjson::dom::array array = e.get_array().value_unsafe();
        size_t n = array.size();
        ts_json *items = static_cast<ts_json *>(ts_arena_alloc(arena, n * sizeof *items));
        if (!items) return convert_status::nomem;
        size_t i = 0;
        for (element child : array) {
            convert_status s = convert(arena, borrow, child, &items[i++]);
            if (s != convert_status::ok) return s;
        }
        out->kind = TS_JSON_ARRAY;
        out->u.a.items = items;
        out->u.a.count = n;
        return convert_status::ok;
    }
    simdjson::dom::object object = e.get_object().value_unsafe();
    size_t n = object.size();
    ts_member *members = static_cast<ts_member *>(ts_arena_alloc(arena, n * sizeof *members));
    if (!members) return convert_status::nomem;
    size_t i = 0;
    for (simdjson::dom::key_value_pair field : object) {
        std::string_view key = field.key;
        ts_member *m = &members[i++];
        const char *common = ts_json_common_key(key.data(), key.size());
        if (common) {
            m->key.ptr = common;
            m->key.len = key.size();
        } else {
            if (std::memchr(key.data(), '\0', key.size())) return convert_status::defer; // jansson refuses
            if (copy_string(arena, borrow, key, &m->key) != convert_status::ok) return convert_status::nomem;
        }
        convert_status s = convert(arena, borrow, field.value, &m->value);
        if (s != convert_status::ok) return s;
    }
    if (has_duplicate_key(members, n)) return convert_status::defer;
    out->kind = TS_JSON_OBJECT;
    out->u.o.members = members;
    out->u.o.count = n;
    return convert_status::ok;
}

ts_fast_result result_of(convert_status s) {
    switch (s) {
    case convert_status::ok: return TS_FAST_VALUE;
    case convert_status::nomem: return TS_FAST_NOMEM;
    case convert_status::defer: break;
    }
    return TS_FAST_DEFER;
}

} // namespace

extern "C" {

ts_fast_parser *ts_fast_parser_new(void) {
    ts_fast_parser *p = new (std::nothrow) ts_fast_parser;
    if (p) p->parser.threaded = false; // one thread: the CPU time is what is measured and paid
    return p;
}

void ts_fast_parser_free(ts_fast_parser *parser) { delete parser; }

ts_fast_result ts_fast_parse_document(ts_fast_parser *p, const char *data, size_t len, bool any_value,
                                      ts_arena *arena, ts_json *out) {
    p->in_window = p->advance = false;
    element root;
    if (p->parser.parse(data, len, false).get(root)) return TS_FAST_DEFER;
    element_type t = root.type();
    if (!any_value && t != element_type::OBJECT && t != element_type::ARRAY) return TS_FAST_DEFER;
    return result_of(convert(arena, false, root, out));
}

ts_fast_result ts_fast_window_begin(ts_fast_parser *p, const char *data, size_t len) {
    p->in_window = p->advance = false;
    if (len == 0) return TS_FAST_END;
    // One batch over the whole window: an incomplete last value is left as truncated bytes.
    if (p->parser.parse_many(data, len, len).get(p->stream)) return TS_FAST_DEFER;
    p->next = p->stream.begin();
    p->in_window = true;
    return TS_FAST_VALUE;
}

ts_fast_result ts_fast_window_next(ts_fast_parser *p, ts_arena *arena, bool borrow, ts_json *out, size_t *start,
                                   size_t *end) {
    if (!p->in_window) {
        *start = *end = 0;
        return TS_FAST_END;
    }
    if (p->advance) { // only now: stepping parses the next document over the last one's strings
        p->advance = false;
        ++p->next;
    }
    if (!(p->next != p->stream.end())) {
        p->in_window = false;
        *start = *end = p->stream.size_in_bytes() - p->stream.truncated_bytes();
        return TS_FAST_END;
    }
    *start = *end = p->next.current_index();
    element root;
    if ((*p->next).get(root)) {
        p->in_window = false;
        return TS_FAST_DEFER;
    }
    element_type t = root.type();
    if (t != element_type::OBJECT && t != element_type::ARRAY) {
        p->in_window = false;
        return TS_FAST_DEFER;
    }
    std::string_view source = p->next.source();
    *end = *start + source.size();
    ts_fast_result r = result_of(convert(arena, borrow, root, out));
    if (r != TS_FAST_VALUE) {
        p->in_window = false;
        return r;
    }
    p->advance = true;
    return TS_FAST_VALUE;
}

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
