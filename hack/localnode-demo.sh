#!/usr/bin/env bash
# `make demo` / `make demo-down`: Quorum working as a whole on this machine.
#
#   hack/localnode-demo.sh up BUILD_DIR CP_DIR    control plane + node runtime + operator,
#                                                 a sample EtcdCluster and a PostgresCluster
#                                                 that uses it; waits until both are Ready
#   hack/localnode-demo.sh down CP_DIR            stop everything `up` started (idempotent)
#
# The operator runs on the host (through `quorum-localnode exec`, so it resolves the
# pods' names), log in CP_DIR/operator.log. Everything is long-lived (no watchdogs)
# until `down`. The namespace is quorum-demo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
ns=quorum-demo
timeout="${QUORUM_DEMO_TIMEOUT:-600}"

log() { echo "demo: $*" >&2; }
die() { log "$*"; exit 1; }

alive() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; }

wait_ready() {  # wait_ready RESOURCE NAME
  local deadline=$((SECONDS + timeout)) status
  while ((SECONDS < deadline)); do
    status="$("$QUORUM_BIN/kubectl" -n "$ns" get "$1" "$2" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || true)"
    [[ "$status" == True ]] && return 0
    sleep 2
  done
  return 1
}

up() {
  local build="$1" cp="$2" pid
  export QUORUM_BUILD_DIR="$build" QUORUM_OWNER_PID=none
  "$here/controlplane.sh" start "$cp" >/dev/null
  # shellcheck source=/dev/null
  source "$cp/env"
  "$here/localnode.sh" start "$cp"
  local kubectl=("$QUORUM_BIN/kubectl")
  "${kubectl[@]}" apply --server-side --force-conflicts -f "${QUORUM_DEMO_CRDS:-$root/deploy/crds/}" >/dev/null
  "${kubectl[@]}" wait --for condition=established --timeout=60s crd --all >/dev/null
  if ! { pid="$(cat "$cp/operator.pid" 2>/dev/null)" && alive "$pid"; }; then
    setsid nohup "$here/localnode.sh" exec "$cp" -- "$build/cmd/quorum-operator" \
      --kubeconfig="$KUBECONFIG" --leader-elect=false >>"$cp/operator.log" 2>&1 </dev/null &
    echo "$!" >"$cp/operator.pid"
    log "operator started (pid $!, log $cp/operator.log)"
  fi
  "${kubectl[@]}" create namespace "$ns" --dry-run=client -o yaml | "${kubectl[@]}" apply -f - >/dev/null
  "${kubectl[@]}" -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: etcd.aenix.io/v1alpha1
kind: EtcdCluster
metadata: {name: demo-etcd}
spec:
  replicas: 3
  storage: {emptyDir: {}}
YAML
  local pg=0
  if "${kubectl[@]}" get crd postgresclusters.postgres.quorum.dev >/dev/null 2>&1; then
    pg=1
    "${kubectl[@]}" -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: postgres.quorum.dev/v1alpha1
kind: PostgresCluster
metadata: {name: demo-pg}
spec:
  postgresVersion: 15
  instances:
  - name: main
    replicas: 3
    dataVolumeClaimSpec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
  patroni:
    dcs:
      type: etcd
      etcd: {clusterRef: {name: demo-etcd}}
  users:
  - name: app
    databases: [app]
YAML
  fi
  log "waiting for EtcdCluster demo-etcd to be Ready (up to ${timeout}s)..."
  wait_ready etcdcluster demo-etcd || die "EtcdCluster demo-etcd is not Ready; see: kubectl -n $ns describe etcdcluster demo-etcd"
  log "EtcdCluster demo-etcd is Ready"
  if ((pg)); then
    log "waiting for PostgresCluster demo-pg to be Ready..."
    wait_ready postgrescluster demo-pg || die "PostgresCluster demo-pg is not Ready; see: kubectl -n $ns describe postgrescluster demo-pg"
    log "PostgresCluster demo-pg is Ready"
  fi
  cat <<EOF

Quorum is running: control plane in $cp, node runtime, operator (log $cp/operator.log).
  source $cp/env && \$QUORUM_BIN/kubectl -n $ns get etcdclusters,postgresclusters,pods,svc
  etcd:  $here/localnode.sh exec $cp -- \$QUORUM_BIN/etcdctl --endpoints=http://demo-etcd.$ns.svc:2379 member list
EOF
  if ((pg)); then
    cat <<EOF
  psql through the primary Service (the app user's Secret holds a connection URI):
    uri="\$(\$QUORUM_BIN/kubectl -n $ns get secret demo-pg-user-app -o jsonpath='{.data.uri}' | base64 -d)"
    $here/localnode.sh exec $cp -- psql "\$uri"
EOF
  else
    echo "  (PostgresCluster is not available in this build yet: only the etcd half runs)"
  fi
  echo "Stop everything: make demo-down"
}

down() {
  local cp="$1" pid
  if pid="$(cat "$cp/operator.pid" 2>/dev/null)" && alive "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
  fi
  rm -f "$cp/operator.pid"
  "$here/localnode.sh" stop "$cp"
  "$here/controlplane.sh" stop "$cp"
}

case "${1:-}" in
  up) (($# == 3)) || die "usage: $0 up BUILD_DIR CP_DIR"; up "$(realpath -m "$2")" "$(realpath -m "$3")" ;;
  down) (($# == 2)) || die "usage: $0 down CP_DIR"; down "$(realpath -m "$2")" ;;
  *) die "usage: $0 up BUILD_DIR CP_DIR | down CP_DIR" ;;
esac
