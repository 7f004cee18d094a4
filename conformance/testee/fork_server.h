/* fork_server.h — the testee's side of a fork server (conformance/PROTOCOL.md, fork servers): a
 * testee that has loaded everything once forks a fresh instance for each start the certifier
 * asks for, instead of being started anew.
 *
 * Owns: the server loop. A process started with TURNSTILE_FORK_SERVER=FD in its environment
 * reads fork requests on socket FD; for each it forks a child that leads a process group of its
 * own, with the three descriptors that came with the request as its stdin, stdout and stderr,
 * says the child's pid, waits for it and says how it ended. The child returns from
 * ts_fork_serve() and is the testee; the server never does.
 */
#ifndef TURNSTILE_CONFORMANCE_TESTEE_FORK_SERVER_H
#define TURNSTILE_CONFORMANCE_TESTEE_FORK_SERVER_H

/* Without TURNSTILE_FORK_SERVER: returns at once. With it: serves forks, and returns only in an
 * instance (its stdin, stdout and stderr the certifier's pipes, the variable unset); the server
 * exits when the certifier closes the socket (status 0), or on a broken request (status 1). */
void ts_fork_serve(void);

#endif
