/* fuzz_empty.c — the peer of ci/bench/fuzz_bench.sh: a fuzz target that does nothing, linked
 * with the libraries the real targets link, so that its exec/s is libFuzzer's own per-run cost
 * on this machine, measured in the same run as the targets. */
#include <stddef.h>
#include <stdint.h>

#include "conformance/checkers/merge/checks.h"
#include "core/merge/merger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)data;
    (void)size;
    return 0;
}

/* Referenced so that the linker keeps the libraries' code in the binary, as in the targets. */
void *ts_fuzz_empty_keep[] = {(void *)ts_check_merge, (void *)ts_merge};
