/* supervise_internal.h — private to supervise.c and forkserver.c: what the fork server's client
 * shares with the supervised trees. Not part of the certifier's interface (that is supervise.h).
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_INTERNAL_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "conformance/certifier/proc_tree.h"
#include "conformance/certifier/supervise.h"

/* ts_child_check_ended for an instance: reads the server's reports (its socket) without waiting;
 * the end of the socket (the server died) ends the instance as lost. */
bool ts_child_instance_check_ended(ts_child *c);

#endif
