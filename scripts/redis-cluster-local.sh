#!/usr/bin/env sh
# Starts a Redis Cluster of three masters without replicas on 127.0.0.1, ports
# ${REDIS_CLUSTER_PORT:-7001} and the two after it, for the tests that run on a cluster
# (TEST_REDIS_CLUSTER_NODES). No persistence (--save "", --appendonly no); each node keeps its
# cluster configuration in ${REDIS_CLUSTER_DIR:-/tmp/clipgate-redis-cluster-<port>}, so that a
# node stopped and started again (run this script again) rejoins with its slots. Idempotent:
# nodes already up are left alone, the cluster is created once, and the script returns when
# every node reports cluster_state:ok.
set -eu
first=${REDIS_CLUSTER_PORT:-7001}
dir=${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/clipgate-redis-cluster-$first}
ports="$first $((first + 1)) $((first + 2))"
mkdir -p "$dir"

for port in $ports; do
  if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir" \
      --cluster-enabled yes --cluster-config-file "nodes-$port.conf" \
      --cluster-node-timeout 2000 --cluster-require-full-coverage no \
      --save "" --appendonly no --logfile "$dir/redis-$port.log" --pidfile "$dir/redis-$port.pid"
  fi
done
for port in $ports; do
  for _ in $(seq 1 50); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
done

state() { redis-cli -p "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"; }
if [ "$(state "$first" cluster_slots_assigned)" != 16384 ]; then
  # shellcheck disable=SC2046
  redis-cli --cluster create $(for port in $ports; do printf '127.0.0.1:%s ' "$port"; done) \
    --cluster-yes >"$dir/create.log" 2>&1 || {
    cat "$dir/create.log" >&2
    exit 1
  }
fi
for _ in $(seq 1 150); do
  ok=true
  for port in $ports; do
    [ "$(state "$port" cluster_state)" = ok ] && [ "$(state "$port" cluster_known_nodes)" = 3 ] ||
      ok=false
  done
  $ok && exit 0
  sleep 0.2
done
echo "the Redis Cluster on ports $ports did not reach cluster_state:ok" >&2
exit 1
