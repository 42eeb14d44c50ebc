#!/bin/sh
# The `pgbackrest` container of a PostgresCluster member with backups:
# `pgbackrest-server.sh FILE...` runs pgBackRest's TLS server (its options
# come from PGBACKREST_CONFIG) and sends it SIGHUP, which makes it read its
# certificates again, when one of FILE (the certificate, key and CA) has
# changed: the kubelet swaps a renewed Secret's files in place, and a
# certificate is renewed weeks before it expires, so an hourly look is enough.
# The container ends with the server (the kubelet restarts it); SIGTERM stops
# both.
set -u
digest() { cat "$@" 2>/dev/null | cksum; }
watch() {
  server=$1
  shift
  seen=$(digest "$@")
  while sleep 3600; do
    now=$(digest "$@")
    if [ "$now" != "$seen" ]; then
      echo "pgbackrest-server.sh: certificates changed, reloading the TLS server" >&2
      kill -HUP "$server"
      seen=$now
    fi
  done
}
pgbackrest server &
server=$!
watch "$server" "$@" &
watcher=$!
trap 'kill -TERM "$server" "$watcher" 2>/dev/null; wait "$server"; exit 0' TERM INT
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
