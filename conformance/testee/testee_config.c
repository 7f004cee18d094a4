/* testee_config.c — the reference testee's configuration; see testee_config.h. */
#include "conformance/testee/testee_config.h"

#include <string.h>
#include <time.h>

void ts_testee_config_init(ts_testee_config *config, const ts_mutant *mutant) {
    memset(config, 0, sizeof *config);
    config->mutant = mutant;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(config->now, sizeof config->now, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
}
