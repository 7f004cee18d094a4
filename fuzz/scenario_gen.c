/* scenario_gen.c — the scenario generator; see scenario_gen.h. */
#include "fuzz/scenario_gen.h"

#include <stdio.h>
#include <string.h>

#include "core/testing/bytes.h"

enum { MAX_EVENTS = 12, MAX_TOOL_ANSWERS = 10 };

typedef struct scenario_gen {
    ts_bytes in;
    ts_arena *arena;
    unsigned calls; /* call ids minted: c0, c1, ... */
    bool universal; /* edits and forks rather than branch events; texts told apart (scenario_gen.h) */
    unsigned texts; /* user texts and answers numbered so far (universal) */
    bool failed;
} scenario_gen;

static ts_json string_of(scenario_gen *g, const char *s) {
    ts_str copy = ts_str_dup(g->arena, ts_str_from(s));
    if (!copy.ptr) g->failed = true;
    return ts_json_make_string(copy);
}

static ts_json finish(scenario_gen *g, ts_json_builder *b) {
    ts_json out = ts_json_make_null();
    if (!ts_json_builder_finish(b, &out)) g->failed = true;
    return out;
}

static ts_json array_of(scenario_gen *g, const ts_json *items, size_t count) {
    ts_json *copy = ts_arena_alloc(g->arena, (count ? count : 1) * sizeof *copy);
    if (!copy) {
        g->failed = true;
        return ts_json_make_null();
    }
    if (count) memcpy(copy, items, count * sizeof *copy);
    return (ts_json){TS_JSON_ARRAY, {.a = {copy, count}}};
}

/* Text from a small nasty alphabet (quotes, escapes, combining marks, astral, U+2028). */
static ts_json text(scenario_gen *g) {
    static const char *const pieces[] = {"a", " ", "\"", "\\", "\n", "\xc3\xa9", "e\xcc\x81", "\xf0\x9f\x98\x80",
                                         "\xe2\x80\xa8", "ok", "{\"x\":1}"};
    char buf[128];
    size_t len = 0;
    unsigned count = ts_bytes_below(&g->in, 6);
    for (unsigned i = 0; i < count; i++) {
        const char *p = pieces[ts_bytes_below(&g->in, sizeof pieces / sizeof pieces[0])];
        size_t n = strlen(p);
        if (len + n >= sizeof buf) break;
        memcpy(buf + len, p, n);
        len += n;
    }
    buf[len] = '\0';
    return string_of(g, buf);
}

/* A user text or a model answer's text: in the universal tier, numbered first ("#3 ..."), so that
 * no two are alike. */
static ts_json distinct_text(scenario_gen *g) {
    ts_json t = text(g);
    if (!g->universal || t.kind != TS_JSON_STRING) return t;
    char buf[160];
    snprintf(buf, sizeof buf, "#%u %.*s", g->texts++, (int)t.u.s.len, t.u.s.ptr);
    return string_of(g, buf);
}

/* Tool arguments: keys that need escaping, that sort differently by UTF-16 and UTF-8, numbers
 * with several spellings. */
static ts_json arguments(scenario_gen *g) {
    static const char *const keys[] = {"a", "b", "a\":1,\"b", "\n", "\xc3\xa9", "\xf0\x9f\x98\x80", "\xef\xac\xb3", "1"};
    ts_json_builder b;
    ts_json_builder_init(&b, g->arena);
    bool used[sizeof keys / sizeof keys[0]] = {false};
    unsigned count = ts_bytes_below(&g->in, 4);
    for (unsigned i = 0; i < count; i++) {
        unsigned k = ts_bytes_below(&g->in, sizeof keys / sizeof keys[0]);
        if (used[k]) continue; /* one member per key */
        used[k] = true;
        unsigned kind = ts_bytes_below(&g->in, 4);
        ts_json value = kind == 0   ? ts_json_make_int(ts_bytes_u8(&g->in))
                        : kind == 1 ? (ts_json){TS_JSON_REAL, {.r = ts_bytes_u8(&g->in) / 8.0}}
                        : kind == 2 ? text(g)
                                    : ts_json_make_bool(ts_bytes_chance(&g->in, 50));
        ts_json_builder_add(&b, keys[k], value);
    }
    return finish(g, &b);
}

static ts_json answer(scenario_gen *g, bool may_call) {
    static const char *const tools[] = {"add", "fetch", "slow", "broken", "missing", "k\"ey"};
    ts_json_builder b;
    ts_json_builder_init(&b, g->arena);
    ts_json_builder_add(&b, "text", distinct_text(g));
    if (may_call && ts_bytes_chance(&g->in, 35)) {
        ts_json calls[3];
        unsigned n = 1 + ts_bytes_below(&g->in, 3);
        for (unsigned i = 0; i < n; i++) {
            char id[16];
            snprintf(id, sizeof id, "c%u", g->calls++);
            ts_json_builder c;
            ts_json_builder_init(&c, g->arena);
            ts_json_builder_add(&c, "callId", string_of(g, id));
            ts_json_builder_add(&c, "name", ts_json_make_string(ts_str_from(tools[ts_bytes_below(&g->in, 6)])));
            ts_json_builder_add(&c, "arguments", arguments(g));
            calls[i] = finish(g, &c);
        }
        ts_json_builder_add(&b, "toolCalls", array_of(g, calls, n));
    }
    return finish(g, &b);
}

static ts_json tool_script(scenario_gen *g, const char *member, ts_json value, bool async) {
    ts_json_builder b;
    ts_json_builder_init(&b, g->arena);
    ts_json_builder_add(&b, member, value);
    if (async) ts_json_builder_add(&b, "async", ts_json_make_bool(true));
    return finish(g, &b);
}

static ts_json event(scenario_gen *g) {
    ts_json_builder b;
    ts_json_builder_init(&b, g->arena);
    unsigned kind = ts_bytes_below(&g->in, 20);
    if (kind < 8) {
        ts_json_builder_add(&b, "signal", distinct_text(g));
    } else if (kind < 13) {
        char id[16];
        /* The answers' calls are numbered c0, c1... after the events are drawn: name one of the
         * first few (sometimes one no answer makes). */
        snprintf(id, sizeof id, "c%u", ts_bytes_below(&g->in, 8));
        ts_json_builder_add(&b, "complete", string_of(g, id));
    } else if (kind < 16) {
        ts_json_builder_add(&b, "restart", ts_json_make_bool(true));
    } else if (!g->universal) {
        ts_json_builder_add(&b, "branch", ts_json_make_int(ts_bytes_below(&g->in, 8)));
        ts_json_builder_add(&b, "text", text(g));
    } else { /* an edit of user message K or a fork before assistant message N: small positions, so
              * most fall inside the conversation, some at or past its end (refused) */
        ts_json_builder_add(&b, kind < 18 ? "edit" : "fork", ts_json_make_int(ts_bytes_below(&g->in, 5)));
        ts_json_builder_add(&b, "text", distinct_text(g));
    }
    return finish(g, &b);
}

static bool generate(ts_arena *arena, const uint8_t *data, size_t size, bool universal, ts_json *out) {
    scenario_gen g;
    memset(&g, 0, sizeof g);
    ts_bytes_init(&g.in, data, size);
    g.arena = arena;
    g.universal = universal;
    ts_json_builder root;
    ts_json_builder_init(&root, arena);
    char id[40];
    snprintf(id, sizeof id, "00000000-0000-4000-8000-0000000000%02x", ts_bytes_u8(&g.in));
    ts_json_builder_add(&root, "executionId", string_of(&g, id));
    if (!ts_bytes_chance(&g.in, 10)) { /* mostly a clock: exact replay */
        static const char *const starts[] = {"2026-05-13T10:00:00+00:00", "2026-05-13T23:59:59.9999999Z",
                                             "2026-05-13T12:30:00.123+02:30", "1970-01-01T00:00:00Z"};
        static const int64_t steps[] = {1000, 0, 1, 1500};
        ts_json_builder clock;
        ts_json_builder_init(&clock, arena);
        ts_json_builder_add(&clock, "start", ts_json_make_string(ts_str_from(starts[ts_bytes_below(&g.in, 4)])));
        ts_json_builder_add(&clock, "stepMs", ts_json_make_int(steps[ts_bytes_below(&g.in, 4)]));
        ts_json_builder_add(&root, "clock", finish(&g, &clock));
    }
    ts_json_builder_add(&root, "input", distinct_text(&g));
    /* The first answer, then the events, then the other answers: a short input (libFuzzer
     * starts short) already has a first turn that may call tools and an outside world —
     * signals, completions, restarts, branches — which is where resume bugs live; the later
     * answers read the bytes left, and are plain when none are. Enough answers for every
     * turn: one per event and per answer with calls, and then some; at most
     * MAX_TOOL_ANSWERS of them call tools, so the loop always ends. */
    ts_json answers[MAX_EVENTS + MAX_TOOL_ANSWERS + 4];
    size_t answer_count = sizeof answers / sizeof answers[0];
    answers[0] = answer(&g, true);
    unsigned with_calls = ts_json_get(&answers[0], "toolCalls") != NULL;
    ts_json events[MAX_EVENTS];
    size_t event_count = ts_bytes_below(&g.in, MAX_EVENTS + 1);
    for (size_t i = 0; i < event_count; i++) events[i] = event(&g);
    for (size_t i = 1; i < answer_count; i++) {
        answers[i] = answer(&g, with_calls < MAX_TOOL_ANSWERS);
        with_calls += ts_json_get(&answers[i], "toolCalls") != NULL;
    }
    ts_json_builder_add(&root, "llm", array_of(&g, answers, answer_count));
    ts_json_builder tools;
    ts_json_builder_init(&tools, arena);
    ts_json_builder_add(&tools, "add", tool_script(&g, "result", ts_json_make_int(5), false));
    ts_json_builder_add(&tools, "fetch", tool_script(&g, "result", text(&g), true));
    ts_json_builder_add(&tools, "slow", tool_script(&g, "result", ts_json_make_bool(true), true));
    ts_json_builder_add(&tools, "broken", tool_script(&g, "error", ts_json_make_string(ts_str_from("boom")), false));
    ts_json_builder_add(&tools, "k\"ey", tool_script(&g, "result", ts_json_make_null(), false));
    ts_json_builder_add(&root, "tools", finish(&g, &tools));
    ts_json_builder_add(&root, "events", array_of(&g, events, event_count));
    *out = finish(&g, &root);
    return !g.failed;
}

bool ts_gen_scenario(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out) {
    return generate(arena, data, size, false, out);
}

bool ts_gen_universal_scenario(ts_arena *arena, const uint8_t *data, size_t size, ts_json *out) {
    return generate(arena, data, size, true, out);
}
