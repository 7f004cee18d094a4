/* acceptance.c — fuzz target: the checkers accept every answer SPEC.md allows.
 *
 * A generated stream (the default shape, the look-alike one, the agent-turn one or DESIGN.md
 * §4's partition reduction, shuffled, fuzz/gen.h) is merged by the reference; its answer is then
 * rewritten by choices SPEC leaves open, and every checker must accept the result (no Required
 * finding): a finding here is a false alarm, the worst bug a checker can have. An answer the checkers could
 * not decide within the judging budget (undecided) is no finding; how often that happens is
 * printed at exit when $TURNSTILE_FUZZ_STATS is set. The choices:
 *   - the response groups in another order (G1): each group's messages are the reference's
 *     merge of that group's updates alone, which must equal its part of the whole merge (a
 *     metamorphic relation of the reference, asserted on the way);
 *   - another of the input's responseIds as the label (I1; any id when the input has none), or
 *     the host's id when the request names one; another input agentId (R3) or createdAt (R4)
 *     for the response;
 *   - per message: agentId left out (M5), the role in another case, createdAt respelled as
 *     the same instant, null members where members are absent, {} or null for no
 *     additionalProperties; null members in contents;
 *   - usage counters as strings of their integers (the Agent Framework's options);
 *   - member order, equal numbers respelled and strings re-escaped (fuzz/transform.h), through
 *     writing and parsing again.
 * Input bytes: [0] shape (bit 3: partition, else bit 4: agent-turn, else bit 0: look-alike) and
 * host (bits 1 and 2),
 * [1..8] the choices' seed, the rest the generator's.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/checks.h"
#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "core/testing/gen.h"
#include "fuzz/oracle.h"
#include "fuzz/transform.h"

enum { HEADER = 9 };

typedef struct input {
    ts_gen_shape shape;
    bool host;
    uint64_t seed;
    const uint8_t *gen;
    size_t gen_size;
} input;

static input read_input(const uint8_t *data, size_t size) {
    input in = {TS_GEN_DEFAULT, false, 0, data, 0};
    if (size > 0) {
        in.shape = data[0] & 8    ? TS_GEN_PARTITION
                   : data[0] & 16 ? TS_GEN_AGENT_TURN
                   : data[0] & 1  ? TS_GEN_LOOKALIKE
                                  : TS_GEN_DEFAULT;
        in.host = (data[0] & 6) == 6;
    }
    for (size_t i = 1; i < HEADER && i < size; i++) in.seed |= (uint64_t)data[i] << (8 * (i - 1));
    in.gen = size > HEADER ? data + HEADER : NULL;
    in.gen_size = size > HEADER ? size - HEADER : 0;
    return in;
}

static _Noreturn void fail(const char *what, const input *in, const ts_json *answer) {
    if (answer) {
        ts_buf text;
        ts_buf_init(&text);
        ts_codec_write(&text, answer, TS_WRITE_COMPACT);
        fprintf(stderr, "==turnstile== answer: %.*s\n", (int)(text.len > 20000 ? 20000 : text.len), text.data);
        ts_buf_free(&text);
    }
    ts_buf stream;
    ts_buf_init(&stream);
    ts_gen_stream_shaped(in->shape, in->gen, in->gen_size, &stream);
    ts_oracle_fail(what, stream.data, stream.len);
}

/* ----------------------------------------------------------------------- the groups --- */

typedef struct groups {
    ts_str *ids;          /* by first arrival; absent: the one group of a stream without ids */
    ts_json *messages;    /* each group's messages, merged alone */
    size_t count;
} groups;

static ts_str group_key(const ts_update *u, ts_str primary) { return ts_str_nonempty(u->response_id) ? u->response_id : primary; }

/* Each group's updates merged on their own (dangling ones join the primary group, M1). */
static bool merge_groups(ts_arena *arena, const ts_stream *s, ts_str primary, groups *out) {
    out->ids = ts_arena_alloc(arena, s->count * sizeof *out->ids);
    out->messages = ts_arena_alloc(arena, s->count * sizeof *out->messages);
    ts_update *sub = ts_arena_alloc(arena, s->count * sizeof *sub);
    if (!out->ids || !out->messages || !sub) return false;
    out->count = 0;
    for (size_t i = 0; i < s->count; i++) {
        ts_str id = group_key(&s->updates[i], primary);
        size_t g = 0;
        while (g < out->count && !ts_str_eq(out->ids[g], id)) g++;
        if (g == out->count) out->ids[out->count++] = id;
    }
    for (size_t g = 0; g < out->count; g++) {
        size_t n = 0;
        for (size_t i = 0; i < s->count; i++)
            if (ts_str_eq(group_key(&s->updates[i], primary), out->ids[g])) sub[n++] = s->updates[i];
        ts_merge_options options = {.primary_response_id = out->ids[g]};
        ts_response response;
        ts_json json;
        ts_error err;
        if (!ts_merge(arena, sub, n, &options, &response, &err) || !ts_response_to_json(&response, arena, &json))
            return false;
        const ts_json *messages = ts_json_get(&json, "messages");
        out->messages[g] = messages ? *messages : (ts_json){TS_JSON_ARRAY, {.a = {NULL, 0}}};
    }
    return true;
}

/* The groups' messages concatenated in the order order[0..count). */
static ts_json concatenate(ts_arena *arena, const groups *gs, const size_t *order) {
    size_t total = 0, at = 0;
    for (size_t g = 0; g < gs->count; g++) total += gs->messages[g].u.a.count;
    ts_json *items = ts_arena_alloc(arena, (total + 1) * sizeof *items);
    for (size_t k = 0; items && k < gs->count; k++)
        for (size_t i = 0; i < gs->messages[order[k]].u.a.count; i++) items[at++] = gs->messages[order[k]].u.a.items[i];
    return (ts_json){TS_JSON_ARRAY, {.a = {items, at}}};
}

/* ----------------------------------------------------------------------- the choices --- */

static ts_json str_value(ts_str s) { return ts_json_make_string(s); }

static ts_json null_value(void) { return ts_json_make_null(); }

/* Some input update's value of a field, chosen at random among those that have one. */
static ts_str any_of(const ts_stream *s, ts_choices *c, size_t field_offset) {
    size_t have = 0;
    for (size_t i = 0; i < s->count; i++) have += ts_str_nonempty(*(const ts_str *)((const char *)&s->updates[i] + field_offset));
    if (have == 0) return (ts_str){NULL, 0};
    size_t pick = ts_choices_below(c, (uint32_t)have);
    for (size_t i = 0; i < s->count; i++) {
        ts_str v = *(const ts_str *)((const char *)&s->updates[i] + field_offset);
        if (ts_str_nonempty(v) && pick-- == 0) return v;
    }
    return (ts_str){NULL, 0};
}

static void absent_as_null(ts_arena *arena, ts_json *object, const char *key, ts_choices *c, unsigned percent) {
    if (!ts_json_get(object, key) && ts_choices_chance(c, percent)) ts_transform_set(arena, object, key, null_value());
}

static void change_role_case(ts_arena *arena, ts_json *message, ts_choices *c) {
    ts_str role = ts_json_string(ts_json_get(message, "role"));
    char *p = role.ptr ? ts_arena_alloc_bytes(arena, role.len + 1) : NULL;
    if (!p) return;
    for (size_t i = 0; i < role.len; i++) {
        char ch = role.ptr[i];
        bool flip = ts_choices_chance(c, 50) && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));
        p[i] = flip ? (char)(ch ^ 0x20) : ch;
    }
    p[role.len] = '\0';
    ts_transform_set(arena, message, "role", str_value((ts_str){p, role.len}));
}

static void rewrite_message(ts_arena *arena, ts_json *m, ts_choices *c) {
    if (ts_choices_chance(c, 30)) ts_transform_remove(m, "agentId");
    if (ts_choices_chance(c, 30)) change_role_case(arena, m, c);
    ts_str created = ts_json_string(ts_json_get(m, "createdAt"));
    if (created.ptr && ts_choices_chance(c, 40))
        ts_transform_set(arena, m, "createdAt", str_value(ts_transform_respell_created_at(arena, created, c)));
    static const char *const optional[] = {"authorName", "messageId", "createdAt", "agentId"};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) absent_as_null(arena, m, optional[i], c, 15);
    const ts_json *additional = ts_json_get(m, "additionalProperties");
    if (!additional && ts_choices_chance(c, 10)) {
        ts_json empty = {TS_JSON_OBJECT, {.o = {NULL, 0}}};
        ts_transform_set(arena, m, "additionalProperties", ts_choices_chance(c, 50) ? empty : null_value());
    } else if (additional && additional->kind == TS_JSON_OBJECT && additional->u.o.count == 0 && ts_choices_chance(c, 50)) {
        ts_transform_remove(m, "additionalProperties");
    }
    ts_json *contents = (ts_json *)ts_json_get(m, "contents");
    for (size_t i = 0; contents && contents->kind == TS_JSON_ARRAY && i < contents->u.a.count; i++) {
        ts_json *item = &contents->u.a.items[i];
        if (item->kind == TS_JSON_OBJECT && ts_choices_chance(c, 10)) absent_as_null(arena, item, "annotations", c, 100);
    }
}

/* Counters (and additionalCounts) as strings of their integers. */
static void counters_as_strings(ts_arena *arena, ts_json *usage, ts_choices *c) {
    for (size_t i = 0; usage && usage->kind == TS_JSON_OBJECT && i < usage->u.o.count; i++) {
        ts_json *v = &usage->u.o.members[i].value;
        if (ts_str_eq_cstr(usage->u.o.members[i].key, "additionalCounts")) {
            counters_as_strings(arena, v, c);
        } else if (v->kind == TS_JSON_INT && ts_choices_chance(c, 50)) {
            char digits[32];
            int n = snprintf(digits, sizeof digits, "%lld", (long long)v->u.i);
            *v = str_value(ts_str_dup(arena, (ts_str){digits, (size_t)n}));
        }
    }
}

static void rewrite(ts_arena *arena, const ts_stream *s, const groups *gs, bool host, ts_json *answer, ts_choices *c) {
    size_t *order = ts_arena_alloc(arena, (gs->count + 1) * sizeof *order);
    for (size_t g = 0; order && g < gs->count; g++) order[g] = g;
    for (size_t g = gs->count; order && g > 1 && ts_choices_chance(c, 70); g--) { /* G1 */
        size_t k = ts_choices_below(c, (uint32_t)g), t = order[g - 1];
        order[g - 1] = order[k];
        order[k] = t;
    }
    if (order) ts_transform_set(arena, answer, "messages", concatenate(arena, gs, order));
    if (!host && ts_choices_chance(c, 50)) { /* I1 */
        ts_str id = any_of(s, c, offsetof(ts_update, response_id));
        ts_transform_set(arena, answer, "responseId", str_value(id.ptr ? id : ts_str_from("any-label")));
    }
    ts_str agent = any_of(s, c, offsetof(ts_update, agent_id));
    if (agent.ptr && ts_choices_chance(c, 40)) ts_transform_set(arena, answer, "agentId", str_value(agent)); /* R3 */
    ts_str created = any_of(s, c, offsetof(ts_update, created_at));
    if (created.ptr && ts_choices_chance(c, 40)) /* R4 */
        ts_transform_set(arena, answer, "createdAt", str_value(ts_transform_respell_created_at(arena, created, c)));
    static const char *const optional[] = {"agentId", "createdAt", "finishReason", "usage", "continuationToken",
                                           "conversationId", "modelId"};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) absent_as_null(arena, answer, optional[i], c, 20);
    if (ts_choices_chance(c, 30)) counters_as_strings(arena, (ts_json *)ts_json_get(answer, "usage"), c);
    ts_json *messages = (ts_json *)ts_json_get(answer, "messages");
    for (size_t i = 0; messages && i < messages->u.a.count; i++) {
        ts_json copy; /* the groups' message values are shared: edit a copy */
        if (ts_transform_copy(arena, &messages->u.a.items[i], &copy)) {
            rewrite_message(arena, &copy, c);
            messages->u.a.items[i] = copy;
        }
    }
    if (ts_choices_chance(c, 60)) ts_transform_shuffle_members(answer, c);
}

/* ------------------------------------------------------------------------ the target --- */

/* How often the judging budget ran out, per shape: printed at exit when $TURNSTILE_FUZZ_STATS is
 * set (an undecided answer is no finding, but it should be rare). The one mutable global here:
 * the fuzzing engine's entry point has no other place to keep a count across inputs. */
static struct {
    unsigned long long judged[TS_GEN_SHAPES], undecided[TS_GEN_SHAPES];
    bool registered;
} stats;

static void print_stats(void) {
    for (int k = 0; k < TS_GEN_SHAPES; k++)
        if (stats.judged[k])
            fprintf(stderr, "==turnstile== acceptance shape %s: %llu answers judged, %llu undecided (%.4f%%)\n",
                ts_gen_shape_name((ts_gen_shape)k), stats.judged[k], stats.undecided[k],
                stats.judged[k] ? 100.0 * (double)stats.undecided[k] / (double)stats.judged[k] : 0.0);
}

static void count_outcome(ts_gen_shape shape, bool undecided) {
    if (!stats.registered) {
        stats.registered = true;
        if (getenv("TURNSTILE_FUZZ_STATS")) atexit(print_stats);
    }
    stats.judged[shape]++;
    stats.undecided[shape] += undecided;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = read_input(data, size);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_json generated, merged, answer;
    ts_stream s;
    if (!ts_gen_updates_shaped(&arena, in.shape, in.gen, in.gen_size, &generated)) fail("out of memory", &in, NULL);
    if (!ts_stream_from_array(&arena, &generated, "", &s, &err)) fail("the generator made a stream the model rejects", &in, NULL);
    ts_str host = in.host ? ts_str_from("turn-host") : (ts_str){NULL, 0}, primary = host;
    for (size_t i = 0; i < s.count && !primary.ptr; i++)
        if (ts_str_nonempty(s.updates[i].response_id)) primary = s.updates[i].response_id;
    ts_merge_options options = {.primary_response_id = host};
    if (!ts_oracle_merge_json(&arena, s.updates, s.count, &options, &merged, &err)) { /* e.g. a usage overflow */
        ts_arena_free(&arena);
        return 0;
    }
    groups gs;
    if (!merge_groups(&arena, &s, primary, &gs)) fail("a group of a mergeable stream did not merge alone", &in, NULL);
    size_t *identity = ts_arena_alloc(&arena, (gs.count + 1) * sizeof *identity);
    for (size_t g = 0; identity && g < gs.count; g++) identity[g] = g;
    ts_json whole = identity ? concatenate(&arena, &gs, identity) : (ts_json){TS_JSON_NULL, {.i = 0}};
    if (!ts_json_equal(&whole, ts_json_get(&merged, "messages")))
        fail("reference: the groups merged one by one differ from the whole merge's messages (I3, M1)", &in, &merged);

    ts_choices choices = {in.seed};
    if (!ts_transform_copy(&arena, &merged, &answer)) fail("out of memory", &in, NULL);
    rewrite(&arena, &s, &gs, in.host, &answer, &choices);
    ts_buf text;
    ts_buf_init(&text);
    ts_transform_write(&text, &answer, &choices);
    ts_json reread;
    if (!ts_codec_parse(&arena, text.data, text.len, &reread, &err)) {
        fprintf(stderr, "==turnstile== %s at %d:%d\n%.*s\n", err.message, err.line, err.column, (int)text.len, text.data);
        fail("a rewritten answer does not parse (a harness bug)", &in, NULL);
    }
    ts_buf_free(&text);
    ts_findings findings;
    ts_findings_init(&findings);
    ts_check_status checked = ts_check_merge(s.updates, s.count, host, &reread, NULL, &findings);
    if (!checked) fail("out of memory", &in, NULL);
    count_outcome(in.shape, checked == TS_CHECK_UNDECIDED); /* undecided is no finding; how often is measured */
    if (ts_oracle_has_required(&findings)) {
        for (size_t i = 0; i < findings.count; i++)
            fprintf(stderr, "==turnstile== [%s] %s\n", findings.items[i].rule, findings.items[i].message);
        if (in.host) fprintf(stderr, "==turnstile== the request named the turn's id \"turn-host\"\n");
        fail("a checker rejects an answer SPEC.md allows (a false alarm)", &in, &reread);
    }
    ts_findings_free(&findings);
    ts_arena_free(&arena);
    return 0;
}
