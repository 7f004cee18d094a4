/* builtin_suite.h — the conformance suite compiled into the binary (from conformance/cases at
 * build time by embed_suite.c), so `turnstile certify` needs no checkout and no --suite.
 *
 * Owns: nothing at run time; the files are static data. Load it with ts_suite_load_files().
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_BUILTIN_SUITE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_BUILTIN_SUITE_H

#include "conformance/certifier/suite.h"

extern const ts_suite_files ts_builtin_suite;

#endif
