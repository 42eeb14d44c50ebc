#!/usr/bin/env bash
# The local node runtime (quorum-localnode, a kubelet stand-in) next to a
# control plane started by hack/controlplane.sh: tests, benchmarks and the demo.
#
#   hack/localnode.sh start CP_DIR    start a node for the control plane in CP_DIR (no-op if running)
#   hack/localnode.sh stop CP_DIR     stop it; remove its namespaces, bridge, addresses (idempotent)
#   hack/localnode.sh images          print the image table for this machine
#   hack/localnode.sh exec CP_DIR -- CMD...  run CMD on the host with the node's /etc/hosts
#
# State lives in CP_DIR/localnode/: images (the table), log, pid, hosts, pods/, volumes/.
# The binary is $QUORUM_LOCALNODE (default: $QUORUM_BUILD_DIR/tools/localnode/quorum-localnode,
# QUORUM_BUILD_DIR defaulting to build/). QUORUM_OPERATOR_BIN (default: the build's
# quorum-operator) backs the operator image. The instance name ($QUORUM_LOCALNODE_INSTANCE,
# default "qln") prefixes namespaces and the bridge, $QUORUM_LOCALNODE_POD_PREFIX (default
# 10.244.0) is the pods' /24; one node per machine at a time, since ClusterIPs
# (10.0.0.0/24) are host addresses.
#
# Orphan protection as in controlplane.sh: a watchdog stops the node once its owner
# ($QUORUM_OWNER_PID, default the caller's parent) is gone; QUORUM_OWNER_PID=none disables it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"
build="${QUORUM_BUILD_DIR:-$root/build}"
node_bin="${QUORUM_LOCALNODE:-$build/tools/localnode/quorum-localnode}"
operator_bin="${QUORUM_OPERATOR_BIN:-$build/cmd/quorum-operator}"
instance="${QUORUM_LOCALNODE_INSTANCE:-qln}"
pod_prefix="${QUORUM_LOCALNODE_POD_PREFIX:-10.244.0}"

log() { echo "localnode: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '5,8s/^# \{0,1\}//p' "$self" >&2; exit 2; }

alive() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; }

images() {  # the image table: image glob, PATH for the image, default command
  local etcd_dir pg_bin venv_bin
  [[ -n "${QUORUM_BIN:-}" ]] || QUORUM_BIN="$("$here/build-tools.sh")"
  etcd_dir="$(dirname "$(readlink -f "$QUORUM_BIN/etcd")")"
  echo "# image glob                          PATH of the image                         command"
  echo "*etcd*:v3.*                           $etcd_dir:$(dirname "$(readlink -f "$QUORUM_BIN/etcdctl")") etcd"
  echo "*/etcd:3.*                            $etcd_dir etcd"
  if "$here/patroni-env.sh" check >/dev/null 2>&1; then
    venv_bin="$("$here/patroni-env.sh" bin)"
    pg_bin="$("$here/patroni-env.sh" pg-bin)"
    echo "ghcr.io/quorum-dev/postgres:*-patroni4  $venv_bin:$pg_bin patroni"
    echo "*postgres*patroni*                    $venv_bin:$pg_bin patroni"
  else
    echo "# (Patroni/PostgreSQL not installed: hack/deps.sh; the postgres image is unmapped)"
  fi
  echo "*quorum-operator*                     $(dirname "$(readlink -f "$operator_bin")") quorum-operator"
}

owner_starttime() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}

cmd_start() {
  local cp="$1" state="$1/localnode" pid owner since
  [[ -f "$cp/env" ]] || die "no control plane in $cp (hack/controlplane.sh start $cp)"
  # shellcheck source=/dev/null
  source "$cp/env"
  [[ -x "$node_bin" ]] || die "$node_bin is missing (ninja quorum-localnode)"
  mkdir -p "$state"
  if pid="$(cat "$state/pid" 2>/dev/null)" && alive "$pid" && [[ -f "$state/ready" ]]; then
    log "already running (pid $pid)"
    return 0
  fi
  cmd_stop "$cp" 2>/dev/null || true
  mkdir -p "$state"
  images >"$state/images"
  # For `exec` and `stop` without the same environment.
  echo "$node_bin" >"$state/binary"
  echo "$instance" >"$state/instance"
  [[ -f "$state/log" ]] && mv "$state/log" "$state/log.prev"
  rm -f "$state/ready"
  setsid nohup "$node_bin" run --kubeconfig "$KUBECONFIG" --state-dir "$state" \
    --images "$state/images" --instance "$instance" --pod-prefix "$pod_prefix" >>"$state/log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$state/pid"
  owner="${QUORUM_OWNER_PID:-$PPID}"
  if [[ "$owner" != none ]]; then
    since="$(owner_starttime "$owner")" || die "owner process $owner does not exist"
    setsid nohup "$BASH" "$self" __watchdog "$cp" "$owner" "$since" "$pid" \
      >>"$state/watchdog.log" 2>&1 </dev/null &
    echo "$!" >"$state/watchdog.pid"
  fi
  for _ in $(seq 600); do
    [[ -f "$state/ready" ]] && { log "node running (pid $pid, state $state)"; return 0; }
    alive "$pid" || break
    sleep 0.1
  done
  tail -n 30 "$state/log" >&2 || true
  cmd_stop "$cp"
  die "quorum-localnode did not start (log: $state/log)"
}

cmd_stop() {
  local cp="$1" state="$1/localnode" pid wpid
  [[ -d "$state" ]] || return 0
  if wpid="$(cat "$state/watchdog.pid" 2>/dev/null)" && [[ "$wpid" != "$$" ]] && alive "$wpid"; then
    kill "$wpid" 2>/dev/null || true
  fi
  rm -f "$state/watchdog.pid"
  if pid="$(cat "$state/pid" 2>/dev/null)" && alive "$pid" &&
    [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == *quorum-localnode* ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 300); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      log "pid $pid did not stop within 30s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$state/pid" "$state/ready"
  if [[ -z "${QUORUM_LOCALNODE:-}" && -f "$state/binary" ]]; then node_bin="$(<"$state/binary")"; fi
  if [[ -z "${QUORUM_LOCALNODE_INSTANCE:-}" && -f "$state/instance" ]]; then instance="$(<"$state/instance")"; fi
  if [[ -x "$node_bin" ]]; then
    "$node_bin" cleanup --state-dir "$state" --instance "$instance" || true
  fi
  log "stopped"
}

cmd_watchdog() {  # __watchdog CP OWNER STARTTIME NODEPID
  local cp="$1" owner="$2" since="$3" pid="$4"
  while [[ "$(owner_starttime "$owner" 2>/dev/null)" == "$since" ]] && alive "$pid"; do sleep 0.5; done
  if alive "$pid"; then
    echo "$(date -Is) owner $owner is gone: stopping the node of $cp"
    exec "$BASH" "$self" stop "$cp"
  fi
}

(($# >= 1)) || usage
case "$1" in
  images) images ;;
  start) (($# == 2)) || usage; cmd_start "$(realpath -m -- "$2")" ;;
  stop) (($# == 2)) || usage; cmd_stop "$(realpath -m -- "$2")" ;;
  exec)
    (($# >= 4)) && [[ "$3" == "--" ]] || usage
    cp="$(realpath -m -- "$2")"; shift 3
    if [[ -z "${QUORUM_LOCALNODE:-}" && -f "$cp/localnode/binary" ]]; then node_bin="$(<"$cp/localnode/binary")"; fi
    exec "$node_bin" exec --state-dir "$cp/localnode" -- "$@" ;;
  __watchdog) shift; cmd_watchdog "$@" ;;
  *) usage ;;
esac
