#!/usr/bin/env sh
# Starts a streaming standby of the local PostgreSQL (127.0.0.1:5432, trust auth) on
# 127.0.0.1:${STANDBY_PORT:-5433}, for the read-replica tests: a base backup taken with
# `pg_basebackup -R`, replaying the primary's WAL as it comes. Its files live in
# ${STANDBY_DIR:-/tmp/clipgate-standby}. The primary must accept replication connections from
# loopback: this adds the pg_hba.conf line when it is missing, and reloads.
set -eu
port=${STANDBY_PORT:-5433}
dir=${STANDBY_DIR:-${TMPDIR:-/tmp}/clipgate-standby}
if pg_isready -h 127.0.0.1 -p "$port" -q; then exit 0; fi
version=$(ls /etc/postgresql | sort -n | tail -1)
bin=/usr/lib/postgresql/$version/bin
hba=/etc/postgresql/$version/main/pg_hba.conf
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  echo 'host replication all 127.0.0.1/32 trust' >> "$hba"
  psql -h 127.0.0.1 -U postgres -d postgres -qAtc 'SELECT pg_reload_conf()' >/dev/null
fi
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_postgres "pg_basebackup -h 127.0.0.1 -p 5432 -U postgres -D '$dir/data' -R -X stream -c fast"
# Debian keeps the configuration outside the data directory: the standby gets its own.
cat > "$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
hot_standby = on
CONF
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' > "$dir/data/pg_hba.conf"
[ "$(id -u)" = 0 ] && chown postgres "$dir/data/postgresql.conf" "$dir/data/pg_hba.conf"
as_postgres "'$bin/pg_ctl' -D '$dir/data' -l '$dir/standby.log' -w start" >/dev/null
pg_isready -h 127.0.0.1 -p "$port" -q || { echo "the standby did not start: see $dir/standby.log" >&2; exit 1; }
