/* gen.c — the structure-aware stream generator; see gen.h. */
#include "core/testing/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/testing/bytes.h"
#include "core/testing/gen_emit.h"

enum { MAX_AGENTS = 6, MAX_MESSAGES = 24 };

typedef struct agent {
    char response_id[16];
    char agent_id[16];
    char author[16];
    int current_message;     /* index into messages, -1 none */
} agent;

/* ------------------------------------------------------------------ the generator ----------- */

typedef struct gen_state {
    ts_bytes in;
    ts_emitter *out;
    agent agents[MAX_AGENTS];
    int agent_count;
    int message_count;       /* message ids minted so far: m0, m1, ... */
    int call_count;          /* call ids minted so far: c0, c1, ... */
    int32_t clock;           /* seconds, drifts forwards and backwards */
    char last_created_at[48];
} gen_state;

static void key(gen_state *s, const char *name) { ts_emit_key(s->out, name); }

static void string_value(gen_state *s, const char *value) { ts_emit_string(s->out, ts_str_from(value)); }

static void stringf_value(gen_state *s, const char *format, unsigned n) {
    char buf[32];
    snprintf(buf, sizeof buf, format, n);
    string_value(s, buf);
}

static void begin_object(gen_state *s) { ts_emit_begin(s->out, true); }
static void begin_array(gen_state *s) { ts_emit_begin(s->out, false); }
static void end(gen_state *s) { ts_emit_end(s->out); }

/* Text from a small nasty alphabet: ASCII, quotes, escapes, control characters, combining
 * marks, RTL, astral-plane emoji; sometimes long. */
static void text_value(gen_state *s) {
    static const char *const pieces[] = {"a", "b", " ", "Hello", "\"", "\\", "\n", "\t", "\x01", "\xc3\xa9",
                                         "e\xcc\x81", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "\xf0\x9f\x98\x80",
                                         "\xe2\x80\xa8", "{\"$type\":", "0", ""};
    char buf[4096];
    size_t len = 0;
    int count = (int)ts_bytes_below(&s->in, 6);
    if (ts_bytes_chance(&s->in, 2)) count = 200; /* occasionally large */
    for (int i = 0; i < count; i++) {
        const char *p = pieces[ts_bytes_below(&s->in, sizeof pieces / sizeof pieces[0])];
        size_t n = strlen(p);
        if (len + n >= sizeof buf) break;
        memcpy(buf + len, p, n);
        len += n;
    }
    ts_emit_string(s->out, (ts_str){buf, len});
}

/* createdAt: one instant written in one of several forms, drifting with the clock. */
static void created_at_value(gen_state *s) {
    char buf[48];
    uint32_t form = ts_bytes_below(&s->in, 10);
    if (form == 0 && s->last_created_at[0]) {
        string_value(s, s->last_created_at); /* equal to the previous one */
        return;
    }
    if (form == 1) {
        string_value(s, ts_bytes_chance(&s->in, 50) ? "9999-12-31T23:59:59.9999999+00:00" : "0001-01-01T00:00:00+00:00");
        return;
    }
    s->clock += (int32_t)ts_bytes_below(&s->in, 7) - 2; /* mostly forwards, sometimes back */
    if (s->clock < 0) s->clock = 0;
    int32_t t = s->clock;
    int h = t / 3600 % 24, m = t / 60 % 60, sec = t % 60;
    switch (form % 4) {
    case 0: snprintf(buf, sizeof buf, "2026-05-13T%02d:%02d:%02d+00:00", h, m, sec); break;
    case 1: snprintf(buf, sizeof buf, "2026-05-13T%02d:%02d:%02dZ", h, m, sec); break;
    case 2: /* the same instant one hour east */
        snprintf(buf, sizeof buf, "2026-05-13T%02d:%02d:%02d+01:00", (h + 1) % 24, m, sec);
        if (h == 23) snprintf(buf, sizeof buf, "2026-05-14T00:%02d:%02d+01:00", m, sec);
        break;
    default: snprintf(buf, sizeof buf, "2026-05-13T%02d:%02d:%02d.%07u+00:00", h, m, sec, ts_bytes_u16(&s->in) % 10000000u);
    }
    memcpy(s->last_created_at, buf, sizeof buf);
    string_value(s, buf);
}

static void usage_details(gen_state *s) {
    static const char *const counters[] = {"inputTokenCount", "outputTokenCount", "totalTokenCount",
                                           "reasoningTokenCount", "cachedInputTokenCount"};
    begin_object(s);
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        if (!ts_bytes_chance(&s->in, 50)) continue;
        key(s, counters[i]);
        unsigned v = ts_bytes_u8(&s->in);
        if (ts_bytes_chance(&s->in, 10)) stringf_value(s, "%u", v); /* as a string (AF options) */
        else ts_emit_int(s->out, v);
    }
    if (ts_bytes_chance(&s->in, 20)) {
        static const char *const extra[] = {"k0", "k1", "k2"};
        key(s, "additionalCounts");
        begin_object(s);
        key(s, extra[ts_bytes_below(&s->in, 3)]);
        ts_emit_int(s->out, ts_bytes_u8(&s->in));
        end(s);
    }
    end(s);
}

static void content(gen_state *s) {
    begin_object(s);
    uint32_t kind = ts_bytes_below(&s->in, 12);
    switch (kind) {
    case 0: case 1: case 2: case 3: /* text, most common */
        key(s, "$type");
        string_value(s, "text");
        key(s, "text");
        text_value(s);
        if (ts_bytes_chance(&s->in, 5)) {
            key(s, "annotations");
            begin_array(s);
            begin_object(s);
            key(s, "$type");
            string_value(s, "citation");
            key(s, "url");
            string_value(s, "https://example.com");
            end(s);
            end(s);
        }
        if (ts_bytes_chance(&s->in, 5)) {
            key(s, "additionalProperties");
            begin_object(s);
            key(s, "k");
            ts_emit_int(s->out, 1);
            end(s);
        }
        break;
    case 4:
        key(s, "$type");
        string_value(s, "reasoning");
        key(s, "text");
        text_value(s);
        if (ts_bytes_chance(&s->in, 25)) {
            key(s, "protectedData");
            string_value(s, "P");
        }
        break;
    case 5:
        key(s, "$type");
        string_value(s, "functionCall");
        key(s, "callId");
        stringf_value(s, "c%u", (unsigned)s->call_count++);
        key(s, "name");
        string_value(s, "tool");
        key(s, "arguments");
        begin_object(s);
        key(s, "n");
        ts_emit_int(s->out, ts_bytes_u8(&s->in));
        key(s, "x");
        ts_emit_real(s->out, 1.5e-7);
        end(s);
        key(s, "informationalOnly");
        ts_emit_literal(s->out, TS_JSON_FALSE);
        break;
    case 6:
        key(s, "callId"); /* $type not first on input: the writer must move it */
        stringf_value(s, "c%u", s->call_count ? ts_bytes_below(&s->in, (uint32_t)s->call_count) : 0u);
        key(s, "$type");
        string_value(s, "functionResult");
        key(s, "result");
        if (ts_bytes_chance(&s->in, 50)) {
            text_value(s);
        } else {
            begin_object(s);
            key(s, "ok");
            ts_emit_literal(s->out, TS_JSON_TRUE);
            key(s, "v");
            begin_array(s);
            ts_emit_int(s->out, 1);
            ts_emit_int(s->out, 2);
            ts_emit_literal(s->out, TS_JSON_NULL);
            end(s);
            end(s);
        }
        break;
    case 7:
        key(s, "$type");
        string_value(s, "usage");
        key(s, "details");
        usage_details(s);
        break;
    case 8:
        key(s, "$type");
        stringf_value(s, "futureType%u", ts_bytes_below(&s->in, 3));
        key(s, "payload");
        begin_object(s);
        key(s, "$type");
        string_value(s, "nested");
        key(s, "n");
        ts_emit_int(s->out, ts_bytes_u8(&s->in));
        end(s);
        break;
    case 9:
        key(s, "plain"); /* a base AIContent: no $type at all */
        ts_emit_literal(s->out, TS_JSON_TRUE);
        break;
    case 10:
        key(s, "$type");
        string_value(s, "error");
        key(s, "message");
        text_value(s);
        break;
    default:
        key(s, "$type");
        string_value(s, "data");
        key(s, "uri");
        string_value(s, "data:text/plain;base64,aGk=");
    }
    end(s);
}

static void update(gen_state *s) {
    agent *a = &s->agents[ts_bytes_below(&s->in, (uint32_t)s->agent_count)];
    begin_object(s);
    /* responseId: the agent's, none, empty, or another agent's (a handoff gone wrong). */
    uint32_t rid = ts_bytes_below(&s->in, 10);
    if (rid < 6 && a->response_id[0]) {
        key(s, "responseId");
        string_value(s, a->response_id);
    } else if (rid == 6) {
        key(s, "responseId");
        string_value(s, "");
    } else if (rid == 7) {
        key(s, "responseId");
        ts_emit_literal(s->out, TS_JSON_NULL);
    } else if (rid == 8) {
        key(s, "responseId");
        string_value(s, s->agents[ts_bytes_below(&s->in, (uint32_t)s->agent_count)].response_id);
    }
    /* messageId: continue, start a new one, reuse an old one, or none. */
    uint32_t mid = ts_bytes_below(&s->in, 10);
    char message_id[16] = "";
    if (mid < 5 && a->current_message >= 0) {
        snprintf(message_id, sizeof message_id, "m%d", a->current_message);
    } else if (mid < 8 && s->message_count < MAX_MESSAGES) {
        a->current_message = s->message_count++;
        snprintf(message_id, sizeof message_id, "m%d", a->current_message);
    } else if (mid == 8 && s->message_count) {
        snprintf(message_id, sizeof message_id, "m%u", ts_bytes_below(&s->in, (uint32_t)s->message_count));
    }
    if (message_id[0]) {
        key(s, "messageId");
        string_value(s, message_id);
    }
    if (ts_bytes_chance(&s->in, 40)) {
        key(s, "createdAt");
        created_at_value(s);
    }
    if (ts_bytes_chance(&s->in, 35)) {
        static const char *const roles[] = {"assistant", "assistant", "tool", "user", "Assistant", "system"};
        key(s, "role");
        string_value(s, roles[ts_bytes_below(&s->in, 6)]);
    }
    if (ts_bytes_chance(&s->in, 20)) {
        key(s, "authorName");
        string_value(s, ts_bytes_chance(&s->in, 80) ? a->author : "someone-else");
    }
    if (ts_bytes_chance(&s->in, 30)) {
        key(s, "agentId");
        string_value(s, ts_bytes_chance(&s->in, 90) ? a->agent_id : "");
    }
    if (ts_bytes_chance(&s->in, 8)) {
        static const char *const reasons[] = {"stop", "length", "tool_calls", "content_filter", "custom"};
        key(s, "finishReason");
        string_value(s, reasons[ts_bytes_below(&s->in, 5)]);
    }
    if (ts_bytes_chance(&s->in, 4)) {
        key(s, "continuationToken");
        string_value(s, "AQID");
    }
    if (ts_bytes_chance(&s->in, 5)) {
        static const char *const extra[] = {"p0", "p1", "p2"};
        key(s, "additionalProperties");
        begin_object(s);
        key(s, extra[ts_bytes_below(&s->in, 3)]);
        ts_emit_int(s->out, ts_bytes_u8(&s->in));
        end(s);
    }
    if (ts_bytes_chance(&s->in, 4)) {
        key(s, "traceId"); /* a field the model does not know */
        stringf_value(s, "t%u", ts_bytes_u8(&s->in));
    }
    key(s, "contents");
    begin_array(s);
    int n = (int)ts_bytes_below(&s->in, 4);
    for (int i = 0; i < n; i++) content(s);
    end(s);
    end(s);
}

static size_t generate(const uint8_t *data, size_t size, ts_emitter *out) {
    gen_state s;
    memset(&s, 0, sizeof s);
    ts_bytes_init(&s.in, data, size);
    s.out = out;
    s.clock = 36000;
    s.agent_count = 1 + (int)ts_bytes_below(&s.in, MAX_AGENTS);
    for (int i = 0; i < s.agent_count; i++) {
        agent *a = &s.agents[i];
        if (!ts_bytes_chance(&s.in, 15)) snprintf(a->response_id, sizeof a->response_id, "r%d", i);
        snprintf(a->agent_id, sizeof a->agent_id, "agent%d", i);
        snprintf(a->author, sizeof a->author, "author%d", i);
        a->current_message = -1;
    }
    /* Mostly short streams (ordering bugs need a handful of messages, and short streams are
     * fast to run), sometimes long ones. */
    size_t count = 1 + ts_bytes_below(&s.in, ts_bytes_chance(&s.in, 85) ? 12 : TS_GEN_MAX_UPDATES);
    for (size_t i = 0; i < count; i++) update(&s);
    return count;
}

static const char *const shape_names[TS_GEN_SHAPES] = {"default", "lookalike", "partition", "lookalike-tagged",
                                                      "partition-tagged", "agent-turn"};

const char *ts_gen_shape_name(ts_gen_shape shape) { return shape < TS_GEN_SHAPES ? shape_names[shape] : "?"; }

bool ts_gen_shape_find(const char *name, ts_gen_shape *out) {
    for (int k = 0; k < TS_GEN_SHAPES; k++)
        if (strcmp(shape_names[k], name) == 0) return *out = (ts_gen_shape)k, true;
    return false;
}

static size_t generate_shaped(ts_gen_shape shape, const uint8_t *data, size_t size, ts_emitter *e) {
    switch (shape) {
    case TS_GEN_LOOKALIKE: return ts_gen_lookalike(data, size, false, e);
    case TS_GEN_LOOKALIKE_TAGGED: return ts_gen_lookalike(data, size, true, e);
    case TS_GEN_PARTITION: return ts_gen_partition(data, size, false, e);
    case TS_GEN_PARTITION_TAGGED: return ts_gen_partition(data, size, true, e);
    case TS_GEN_AGENT_TURN: return ts_gen_agent_turn(data, size, e);
    default: return generate(data, size, e);
    }
}

size_t ts_gen_stream_shaped(ts_gen_shape shape, const uint8_t *data, size_t size, ts_buf *out) {
    ts_emitter e;
    memset(&e, 0, sizeof e);
    e.text = out;
    return generate_shaped(shape, data, size, &e);
}

bool ts_gen_updates_shaped(ts_arena *arena, ts_gen_shape shape, const uint8_t *data, size_t size, ts_json *out) {
    ts_emitter e;
    memset(&e, 0, sizeof e);
    e.arena = arena;
    ts_emit_begin(&e, false);
    generate_shaped(shape, data, size, &e);
    ts_emit_end(&e);
    *out = e.result;
    return !e.failed;
}

size_t ts_gen_stream(const uint8_t *data, size_t size, ts_buf *out) {
    return ts_gen_stream_shaped(TS_GEN_DEFAULT, data, size, out);
}

bool ts_gen_updates(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out) {
    return ts_gen_updates_shaped(arena, TS_GEN_DEFAULT, data, size, out);
}

void ts_gen_seed_bytes(uint64_t seed, uint64_t index, uint8_t *out, size_t size) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ index * 0xD1B54A32D192ED03ULL;
    uint64_t z = 0;
    for (size_t i = 0; i < size; i++) {
        if (i % 8 == 0) { /* splitmix64, bytes taken little-endian */
            x += 0x9E3779B97F4A7C15ULL;
            z = x;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            z ^= z >> 31;
        }
        out[i] = (uint8_t)(z >> (8 * (i % 8)));
    }
}
