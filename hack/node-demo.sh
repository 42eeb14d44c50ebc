#!/usr/bin/env bash
# `make demo`: the control plane, the real node (hack/node.sh:
# kubelet + containerd + runc, images built here), quorum-operator, a 3-member
# EtcdCluster and a 3-instance PostgresCluster using it as Patroni's DCS.
#
#   hack/node-demo.sh up BUILD_DIR CP_DIR    start (or re-use) everything, wait for Ready, print commands
#   hack/node-demo.sh down CP_DIR            stop everything `up` started; nothing is left behind
#
# The operator runs on the host, under `hack/node.sh exec` so that it resolves
# cluster names through the node's CoreDNS (pod IPs and ClusterIPs are routable
# from the host: the pod bridge is local and kube-proxy's rules apply to it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
ns=quorum-demo
timeout="${QUORUM_DEMO_TIMEOUT:-900}"

log() { echo "demo: $*" >&2; }
die() { log "$*"; exit 1; }
alive() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; }

wait_ready() {  # wait_ready KIND NAME: its Ready condition is True
  local deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    [[ "$("$QUORUM_BIN/kubectl" -n "$ns" get "$1" "$2" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]] && return 0
    sleep 2
  done
  return 1
}

up() {
  local build="$1" cp="$2" pid
  export QUORUM_OWNER_PID=none
  "$here/controlplane.sh" start "$cp" >/dev/null
  # shellcheck source=/dev/null
  source "$cp/env"
  # The node gets the operator image too (packed from this build's program):
  # EtcdBackup Jobs run it (imagePullPolicy IfNotPresent, a versioned tag).
  export QUORUM_OPERATOR_BIN="$build/cmd/quorum-operator"
  "$here/node.sh" start "$cp" >/dev/null
  local kubectl=("$QUORUM_BIN/kubectl")
  "${kubectl[@]}" apply --server-side --force-conflicts -f "$root/deploy/crds/" >/dev/null
  # `kubectl wait` fails at once on a CRD that has no status yet (just created):
  # retry it until the API server has published every CRD's conditions.
  local tries=0
  until "${kubectl[@]}" wait --for condition=established --timeout=60s crd --all >/dev/null 2>&1; do
    ((++tries < 30)) || die "the CRDs are not Established after $tries tries"
    sleep 1
  done
  if ! { pid="$(cat "$cp/operator.pid" 2>/dev/null)" && alive "$pid"; }; then
    setsid nohup "$here/node.sh" exec "$cp" -- "$build/cmd/quorum-operator" \
      --kubeconfig="$KUBECONFIG" --leader-elect=false \
      --operator-image="$("$here/images.sh" name operator)" >>"$cp/operator.log" 2>&1 </dev/null &
    echo "$!" >"$cp/operator.pid"
    log "operator started (pid $!, log $cp/operator.log)"
  fi
  # The demo's pods meet the restricted Pod Security Standard, and its namespace enforces it.
  "${kubectl[@]}" create namespace "$ns" --dry-run=client -o yaml | "${kubectl[@]}" apply -f - >/dev/null
  "${kubectl[@]}" label --overwrite namespace "$ns" pod-security.kubernetes.io/enforce=restricted \
    pod-security.kubernetes.io/enforce-version=latest >/dev/null
  "${kubectl[@]}" -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: etcd.aenix.io/v1alpha1
kind: EtcdCluster
metadata: {name: demo-etcd}
spec:
  replicas: 3
  storage: {emptyDir: {}}
  # TLS everywhere with certificates Quorum issues, and etcd auth: the
  # PostgresCluster's pods get an etcd user of their own that reaches only
  # their cluster's keys (docs/security.md).
  security:
    enableAuth: true
    tls: {managed: true}
  # The client port admits the members, the operator and demo-pg's pods
  # (clusterRef); nothing else in the namespace (docs/security.md).
  networkPolicy: {clientFrom: []}
---
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
  # PostgreSQL admits the members, the operator and pods labelled
  # app.kubernetes.io/part-of=demo-app; nothing else in the namespace.
  networkPolicy:
    postgresFrom:
    - podSelector: {matchLabels: {app.kubernetes.io/part-of: demo-app}}
YAML
  log "waiting for EtcdCluster demo-etcd to be Ready (up to ${timeout}s)..."
  wait_ready etcdcluster demo-etcd || die "EtcdCluster demo-etcd is not Ready: kubectl -n $ns describe etcdcluster demo-etcd"
  log "EtcdCluster demo-etcd is Ready"
  log "waiting for PostgresCluster demo-pg to be Ready..."
  wait_ready postgrescluster demo-pg || die "PostgresCluster demo-pg is not Ready: kubectl -n $ns describe postgrescluster demo-pg"
  log "PostgresCluster demo-pg is Ready"
  cat <<EOF

Quorum demo on the real node (pods run by kubelet + containerd).
Both clusters on one screen each, with kubectl quorum (this build's plugin; \`make install\`
puts it on your PATH for good):
  source $cp/env && export PATH="$build/cmd:\$PATH"
  \$QUORUM_BIN/kubectl quorum status etcdcluster/demo-etcd -n $ns
  \$QUORUM_BIN/kubectl quorum status pg/demo-pg -n $ns
psql as the app user, through the primary Service (its name resolves on the node; TLS
verify-full with the cluster's CA, the password from its Secret; nothing to decode):
    source $cp/env && $here/node.sh exec $cp -- $build/cmd/kubectl-quorum psql demo-pg --user app -n $ns
Everything else: \$QUORUM_BIN/kubectl -n $ns get etcdclusters,postgresclusters,pods -o wide
Stop everything: make demo-down
EOF
}

down() {
  local cp="$1" pid
  if pid="$(cat "$cp/operator.pid" 2>/dev/null)" && alive "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
  fi
  rm -f "$cp/operator.pid"
  "$here/node.sh" stop "$cp"
  "$here/controlplane.sh" stop "$cp"
}

case "${1:-}" in
  up) (($# == 3)) || die "usage: $0 up BUILD_DIR CP_DIR"; up "$(realpath -m "$2")" "$(realpath -m "$3")" ;;
  down) (($# == 2)) || die "usage: $0 down CP_DIR"; down "$(realpath -m "$2")" ;;
  *) die "usage: $0 up BUILD_DIR CP_DIR | down CP_DIR" ;;
esac
