#!/usr/bin/env bash
# ci/postgres_server.sh start DIR | stop DIR — a private PostgreSQL server for certifying engines
# that keep their state in Postgres (LangGraph's PostgresSaver; ci/certify_engines.sh).
#
#   start DIR   initdb DIR/data (trust authentication, local connections only), start the server
#               listening on a Unix socket in DIR only (no TCP: listen_addresses=''), and print
#               its connection string on stdout: postgresql://postgres@/postgres?host=DIR&port=5432
#               (the port only names the socket file; the socket directory is private to DIR).
#               As root, the server runs as the `postgres` user, which owns DIR.
#   stop DIR    stop that server (fast shutdown) and remove DIR.
#
# Uses Debian's postgresql package (/usr/lib/postgresql/<version>/bin); exit 3 with "skipped: REASON"
# on stderr when it is not installed or the server cannot start, so callers can say why they skipped.
set -euo pipefail
verb="${1:-}"
dir="${2:-}"
if [ -z "$verb" ] || [ -z "$dir" ]; then
    echo "usage: ci/postgres_server.sh start|stop DIR" >&2
    exit 2
fi
bindir=""
for candidate in /usr/lib/postgresql/*/bin; do
    [ -x "$candidate/pg_ctl" ] && bindir="$candidate"
done
if [ -z "$bindir" ]; then
    echo "skipped: PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl; apt-get install postgresql)" >&2
    exit 3
fi
# as_owner CMD...: run CMD as the server's owner (the postgres user when we are root)
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}
port=5432
case "$verb" in
start)
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [ "$(id -u)" -eq 0 ]; then
        if ! id postgres >/dev/null 2>&1; then
            echo "skipped: running as root and there is no postgres user to run the server as" >&2
            exit 3
        fi
        chown postgres: "$dir"
    fi
    if ! as_owner "$bindir/initdb" -D "$dir/data" --auth=trust --username=postgres --encoding=UTF8 \
        --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
        echo "skipped: initdb failed: $(tail -1 "$dir/initdb.log")" >&2
        exit 3
    fi
    if ! as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=''" start >"$dir/pg_ctl.log" 2>&1; then
        echo "skipped: the PostgreSQL server did not start: $(tail -1 "$dir/server.log" 2>/dev/null || tail -1 "$dir/pg_ctl.log")" >&2
        exit 3
    fi
    echo "postgresql://postgres@/postgres?host=$dir&port=$port"
    ;;
stop)
    [ -d "$dir" ] || exit 0
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: ci/postgres_server.sh start|stop DIR" >&2
    exit 2
    ;;
esac
