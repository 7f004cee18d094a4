/* numfmt.h — numbers in their shortest round-trip form (RFC 8785 §3.2.2.3, ECMAScript
 * Number.prototype.toString), so that what turnstile writes reads back as the same double and
 * two writers agree byte for byte. jansson prints 17 significant digits; this module is why
 * turnstile never uses its printer.
 */
#ifndef TURNSTILE_CORE_NUMFMT_H
#define TURNSTILE_CORE_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>

/* Worst case: "-" + 17 digits + "." + "e-324"-style exponent, well under 32 bytes. */
enum { TS_NUMFMT_MAX = 32 };

/* Writes the ECMAScript form of a finite double into out (NUL-terminated) and returns its
 * length, or 0 when d is NaN or infinite (JSON has no such numbers). -0 is written "0". */
size_t ts_format_double(double d, char out[TS_NUMFMT_MAX]);

#endif
