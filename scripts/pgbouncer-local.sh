#!/usr/bin/env sh
# Starts a PgBouncer in transaction pooling on 127.0.0.1:${PGBOUNCER_PORT:-6432} in front of a
# local PostgreSQL (127.0.0.1:${PGBOUNCER_UPSTREAM_PORT:-5432}, trust auth), for the tests and
# benches that run behind a pooler. Every database name is passed through, with up to
# ${PGBOUNCER_POOL_SIZE:-20} server connections each. Its files live in
# ${PGBOUNCER_DIR:-/tmp/clipgate-pgbouncer}.
set -eu
dir=${PGBOUNCER_DIR:-${TMPDIR:-/tmp}/clipgate-pgbouncer}
port=${PGBOUNCER_PORT:-6432}
mkdir -p "$dir"
if [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null; then
  exit 0
fi
echo '"postgres" ""' > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=${PGBOUNCER_UPSTREAM_PORT:-5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
# PgBouncer refuses to run as root.
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  su postgres -s /bin/sh -c "pgbouncer -d '$dir/pgbouncer.ini'"
else
  pgbouncer -d "$dir/pgbouncer.ini"
fi
for _ in $(seq 1 50); do
  pg_isready -h 127.0.0.1 -p "$port" -q && exit 0
  sleep 0.1
done
echo "pgbouncer did not start: see $dir/pgbouncer.log" >&2
exit 1
