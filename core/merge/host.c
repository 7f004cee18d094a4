/* host.c — the reference hosting executor; see host.h. */
#include "core/merge/host.h"

#include <string.h>

bool ts_host_run(ts_arena *arena, const ts_update *emissions, size_t count, bool assign_ids,
                 const ts_merge_options *options, ts_host_turn *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_update *stream = ts_arena_alloc(arena, (count ? count : 1) * sizeof *stream);
    if (!stream) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    memcpy(stream, emissions, count * sizeof *stream);
    ts_str id = {NULL, 0};
    for (size_t i = 0; i < count && !id.ptr; i++) /* H2: the agent's own id; H3: the first of several */
        if (ts_str_nonempty(emissions[i].response_id)) id = emissions[i].response_id;
    if (!id.ptr && count && !ts_merge_derived_response_id(arena, emissions, count, &id)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    if (assign_ids)
        for (size_t i = 0; i < count; i++) stream[i].response_id = id; /* H1 */
    ts_merge_options merge = options ? *options : (ts_merge_options){.order = NULL};
    if (assign_ids) merge.primary_response_id = id;
    out->response_id = assign_ids ? id : (ts_str){NULL, 0};
    out->stream = stream;
    out->count = count;
    return ts_merge(arena, stream, count, &merge, &out->response, err);
}
