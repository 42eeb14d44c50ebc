#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for Quorum's tests, benchmarks and
# demo: etcd, kube-apiserver and kube-controller-manager, built from pinned
# upstream sources by hack/build-tools.sh.
#
#   hack/controlplane.sh start DIR              start (no-op if DIR already runs a healthy one)
#   hack/controlplane.sh stop DIR               stop everything started for DIR (idempotent)
#   hack/controlplane.sh restart-apiserver DIR  restart kube-apiserver with the same flags and port
#   hack/controlplane.sh status DIR             exit 0 and print the endpoints if healthy
#
# DIR gets: pki/ (CA, serving and client certificates, service-account keys),
# etcd/ (data), logs/NAME.log, pids/NAME.pid, args/NAME (each process's command
# line, one argument per line), kubeconfig (admin, embedded certificates) and
# env (a sourceable file exporting KUBECONFIG, QUORUM_APISERVER,
# QUORUM_ETCD_ENDPOINT, QUORUM_BIN and QUORUM_CONTROLPLANE_DIR).
#
# Kubernetes version: QUORUM_K8S_VERSION=1.NN at `start` runs that minor's pinned
# release (hack/build-tools.sh; unset: the default, hack/tools/kube). `start` on a DIR
# that runs another version than the one asked for restarts it afresh. env exports
# the minor that runs as QUORUM_K8S_VERSION, which hack/node.sh then follows.
#
# Orphan protection: `start` also runs a watchdog that stops the control plane
# when its owner process is gone. The owner is the process that ran `start`
# ($PPID), or QUORUM_OWNER_PID; QUORUM_OWNER_PID=none disables the watchdog
# (long-lived control planes: `make controlplane-up`, `make demo`). Note that
# if `start` is wrapped by a short-lived shell, that shell is the owner: pass
# QUORUM_OWNER_PID explicitly then.
#
# Opt-in audit log: QUORUM_CONTROLPLANE_AUDIT=1 at `start` makes kube-apiserver
# write every request's metadata (user, verb, resource, response code) as JSON
# lines to DIR/logs/audit.log (policy in DIR/audit-policy.yaml); the RBAC test
# compares what the operator's ServiceAccount did with what its roles allow.
#
# Everything listens on 127.0.0.1 only; nothing sends traffic elsewhere. The
# service network ($QUORUM_SERVICE_CIDR at start, default 10.96.0.0/19: 8,190
# ClusterIPs, room for 5,000+ Services; `make bench-scale` asks for 10.0.0.0/16)
# exists only as API objects unless the real node (hack/node.sh, its
# kube-proxy) runs beside it. The API server has a client certificate for the
# kubelet API (exec, logs, port-forward).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"

components=(etcd kube-apiserver kube-controller-manager)
kcm_controllers="garbage-collector-controller,namespace-controller,statefulset-controller"
kcm_controllers+=",endpointslice-controller,endpointslice-mirroring-controller,endpoints-controller"
kcm_controllers+=",serviceaccount-controller"
kcm_controllers+=",serviceaccount-token-controller,disruption-controller,replicaset-controller"
kcm_controllers+=",deployment-controller,job-controller"  # Jobs: EtcdBackup snapshots
ready_timeout="${QUORUM_CONTROLPLANE_TIMEOUT:-120}"
# What a real node (hack/node.sh) needs beside it: Ready/NotReady taints and
# evictions, pod GC, PersistentVolume binding, the kube-root-ca.crt ConfigMap that
# service-account token volumes need (the ServiceAccount admission plugin adds the
# token volume to each pod; the kubelet mounts it).
kcm_controllers+=",node-lifecycle-controller,taint-eviction-controller"
kcm_controllers+=",pod-garbage-collector-controller,persistentvolume-binder-controller"
kcm_controllers+=",persistentvolume-protection-controller"
kcm_controllers+=",persistentvolumeclaim-protection-controller,root-ca-certificate-publisher-controller"
service_cidr="${QUORUM_SERVICE_CIDR:-10.96.0.0/19}"
# Set by start, or read back from $dir/state by the other commands.
bin="" etcd_port="" peer_port="" api_port="" kcm_port="" etcd_url="" api_url=""
k8s_request="" k8s_release=""

log() { echo "controlplane: $*" >&2; }
die() { log "$*"; exit 1; }
usage() {
  sed -n '6,9s/^# \{0,1\}//p' "$self" >&2
  exit 2
}

# ---------------------------------------------------------------- processes

pidfile() { echo "$dir/pids/$1.pid"; }

read_pid() {  # read_pid NAME: prints the recorded pid, fails if there is none
  local f pid
  f="$(pidfile "$1")"
  [[ -f "$f" ]] || return 1
  pid="$(<"$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}

alive() {  # alive PID: the process exists and is not a zombie
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat%% *}" != Z ]]
}

ours() {  # ours PID: a live process whose command line names $dir (guards against pid reuse)
  local cmd
  alive "$1" || return 1
  cmd=" $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) " || return 1
  [[ "$cmd" == *" $dir "* || "$cmd" == *" $dir/"* || "$cmd" == *"=$dir/"* ]]
}

running() {  # running NAME: NAME's recorded process is alive and ours
  local pid
  pid="$(read_pid "$1")" && ours "$pid"
}

launch() {  # launch NAME ARGS...: starts $bin/NAME in a session of its own
  local name="$1"; shift
  printf '%s\n' "$@" >"$dir/args/$name"
  # A non-interactive bash's background job is not a process-group leader, so
  # setsid does not fork and $! is the program's own pid (= its pgid and sid).
  # fd 9 holds the lock on $dir: the daemons must not inherit it.
  setsid nohup "$bin/$name" "$@" >>"$dir/logs/$name.log" 2>&1 </dev/null 9>&- &
  echo "$!" >"$(pidfile "$name")"
}

relaunch() {  # relaunch NAME: starts NAME again with its recorded arguments
  local name="$1" args
  mapfile -t args <"$dir/args/$name"
  launch "$name" "${args[@]}"
}

strays() {  # strays NAME: pids of $bin/NAME processes whose command line names $dir
  local p exe
  for p in /proc/[0-9]*; do
    p="${p#/proc/}"
    exe="$(readlink "/proc/$p/exe" 2>/dev/null)" || continue
    [[ "${exe##*/}" == "$1" ]] && ours "$p" && echo "$p"
  done
  return 0
}

terminate() {  # terminate PID...: SIGTERM each process group, up to 10 s, then SIGKILL
  local p pids=("$@") left deadline=$((SECONDS + 10))
  ((${#pids[@]})) || return 0
  for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true; done
  while :; do
    left=()
    for p in "${pids[@]}"; do alive "$p" && left+=("$p"); done
    ((${#left[@]})) || return 0
    ((SECONDS < deadline)) || break
    sleep 0.1
  done
  for p in "${left[@]}"; do
    log "pid $p did not stop within 10s of SIGTERM, sending SIGKILL"
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true
  done
  deadline=$((SECONDS + 5))
  for p in "${left[@]}"; do
    while alive "$p" && ((SECONDS < deadline)); do sleep 0.1; done
  done
}

stop_component() {  # stop_component NAME: its recorded process and any stray copy of it
  local name="$1" pid pids=()
  if pid="$(read_pid "$name")" && [[ "$pid" != "$$" ]] && ours "$pid"; then pids+=("$pid"); fi
  if [[ "$name" != watchdog ]]; then
    while read -r pid; do
      [[ -n "$pid" && " ${pids[*]} " != *" $pid "* ]] && pids+=("$pid")
    done < <(strays "$name")
  fi
  terminate "${pids[@]}"
  rm -f "$(pidfile "$name")"
}

stop_all() {
  # In dependency order, so that each one shuts down cleanly and fast: the
  # API server drains its watches in ~2 s while etcd is still there, but hangs
  # in shutdown until SIGKILL if etcd goes first.
  local name
  for name in watchdog kube-controller-manager kube-apiserver etcd; do stop_component "$name"; done
  rm -f "$dir"/pids/*.pid
}

# ---------------------------------------------------------------- health

curl_ok() {  # curl_ok URL PATTERN CURL-ARGS...: the body of a 2xx answer matches PATTERN
  local url="$1" pattern="$2" body; shift 2
  body="$(curl -fsS --noproxy '*' --max-time 3 "$@" "$url" 2>/dev/null)" || return 1
  # shellcheck disable=SC2053 # PATTERN is a glob on purpose
  [[ "$body" == $pattern ]]
}

etcd_healthy() { curl_ok "$etcd_url/health" '*"health":"true"*'; }
apiserver_ready() {
  curl_ok "$api_url/readyz" 'ok' --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key"
}
kcm_healthy() { curl_ok "https://127.0.0.1:$kcm_port/healthz" 'ok' --cacert "$pki/ca.crt"; }

wait_for() {  # wait_for NAME CHECK: until CHECK passes; fails early if NAME exits
  local name="$1" check="$2" deadline=$((SECONDS + ready_timeout))
  until "$check"; do
    # While a process execs, /proc/PID/cmdline can read empty for a moment and
    # `running` says no: only a second look a little later means it exited.
    if ! running "$name" && { sleep 0.3; ! running "$name"; }; then
      log "$name exited during start-up"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      log "$name not healthy after ${ready_timeout}s"
      return 1
    fi
    sleep 0.2
  done
}

show_log() {
  log "last lines of $dir/logs/$1.log:"
  tail -n 40 "$dir/logs/$1.log" >&2 2>/dev/null || true
}

load_state() {  # reads the ports and the bin folder recorded by start
  [[ -f "$dir/state" ]] || return 1
  # shellcheck source=/dev/null
  source "$dir/state"
  set_urls
}

set_urls() {
  etcd_url="http://127.0.0.1:$etcd_port"
  api_url="https://127.0.0.1:$api_port"
}

healthy() {
  load_state 2>/dev/null || return 1
  local name
  for name in "${components[@]}"; do running "$name" || return 1; done
  etcd_healthy && apiserver_ready && kcm_healthy
}

print_endpoints() {
  echo "control plane in $dir"
  echo "  kube-apiserver: $api_url (Kubernetes $k8s_release)"
  echo "  etcd:           $etcd_url"
  echo "  kubeconfig:     $dir/kubeconfig"
  echo "  env:            source $dir/env"
}

# ---------------------------------------------------------------- set-up

pick_ports() {  # sets etcd_port, peer_port, api_port, kcm_port to distinct free ports
  # Below the kernel's ephemeral range, so outgoing connections don't take them.
  local lo=10000 hi=65535 eph_lo eph_hi taken p name
  read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range
  if ((eph_lo > lo + 2000)); then
    hi=$((eph_lo - 1))
  elif ((eph_hi < hi - 2000)); then
    lo=$((eph_hi + 1))
  fi
  taken=" $(ss -Htln | awk '{print $4}' | sed -E 's/.*:([0-9]+)$/\1/' | tr '\n' ' ') "
  for name in etcd_port peer_port api_port kcm_port; do
    for _ in $(seq 1000); do
      p=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
      [[ "$taken" == *" $p "* ]] || break
    done
    taken+="$p "
    printf -v "$name" '%s' "$p"
  done
}

gen_pki() {
  # The first address of the service range: the `kubernetes` Service's ClusterIP.
  local net="${service_cidr%/*}" service_ip1
  service_ip1="${net%.*}.$((${net##*.} + 1))"
  rm -rf "$pki"
  mkdir -p "$pki"
  (
    cd "$pki"
    umask 077
    key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
    key ca.key
    openssl req -x509 -new -key ca.key -subj "/CN=quorum-test-ca" -days 3650 -sha256 \
      -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" -out ca.crt
    sign() {  # sign NAME SUBJECT EXTENSIONS
      key "$1.key"
      openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
      printf '%s\n' "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature" "$3" >"$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
        -sha256 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    sign apiserver "/CN=kube-apiserver" "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,IP:$service_ip1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    sign kube-controller-manager "/CN=kube-controller-manager" "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost"
    sign admin "/O=system:masters/CN=quorum-admin" "extendedKeyUsage=clientAuth"
    sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" \
      "extendedKeyUsage=clientAuth"
    key sa.key
    openssl pkey -in sa.key -pubout -out sa.pub
    rm -f ca.srl
    chmod 644 ./*.crt sa.pub
  )
}

write_kubeconfig() {
  local b64=(base64 -w0)
  cat >"$dir/kubeconfig.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: quorum
  cluster:
    server: $api_url
    certificate-authority-data: $("${b64[@]}" "$pki/ca.crt")
users:
- name: quorum-admin
  user:
    client-certificate-data: $("${b64[@]}" "$pki/admin.crt")
    client-key-data: $("${b64[@]}" "$pki/admin.key")
contexts:
- name: quorum
  context:
    cluster: quorum
    user: quorum-admin
    namespace: default
current-context: quorum
EOF
  chmod 600 "$dir/kubeconfig.tmp"
  mv "$dir/kubeconfig.tmp" "$dir/kubeconfig"
}

write_env() {  # one `export KEY='VALUE'` a line: easy to source and to parse
  local q="'\\''" k8s_minor
  export_line() { printf "export %s='%s'\n" "$1" "${2//\'/$q}"; }
  {
    echo "# Written by hack/controlplane.sh; source it to use this control plane."
    export_line KUBECONFIG "$dir/kubeconfig"
    export_line QUORUM_APISERVER "$api_url"
    export_line QUORUM_ETCD_ENDPOINT "$etcd_url"
    export_line QUORUM_BIN "$bin"
    export_line QUORUM_CONTROLPLANE_DIR "$dir"
    k8s_minor="${k8s_release#v}"
    export_line QUORUM_K8S_VERSION "${k8s_minor%.*}"
  } >"$dir/env.tmp"
  mv "$dir/env.tmp" "$dir/env"
}

write_state() {
  {
    printf 'bin=%q\nk8s_request=%q\nk8s_release=%q\n' "$bin" "$k8s_request" "$k8s_release"
    printf 'etcd_port=%q\npeer_port=%q\napi_port=%q\nkcm_port=%q\n' \
      "$etcd_port" "$peer_port" "$api_port" "$kcm_port"
  } >"$dir/state"
}

start_etcd() {
  launch etcd \
    --name=quorum \
    --data-dir="$dir/etcd" \
    --listen-client-urls="$etcd_url" \
    --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
    --initial-cluster="quorum=http://127.0.0.1:$peer_port" \
    --initial-cluster-state=new \
    --unsafe-no-fsync=true \
    --log-level=warn
}

start_apiserver() {
  # --advertise-address=127.0.0.1 is accepted because --endpoint-reconciler-type=none
  # stops the API server from writing it into the `kubernetes` Endpoints (whose
  # validation rejects loopback addresses). Nothing here ever routes to it.
  #
  # --watch-cache-sizes=podtemplates#0 disables the watch cache for podtemplates
  # ONLY: their watches and lists are then served by etcd itself, so a test can
  # compact etcd and watch from an older resourceVersion to get a real
  # `410 Gone` (the watch cache would otherwise answer from its own window).
  # Every other resource keeps the normal watch cache.
  #
  # --shutdown-watch-termination-grace-period=2s: on SIGTERM the server closes
  # open watches itself instead of waiting out --request-timeout (60 s) for
  # them, so stop and restart-apiserver take about a second.
  launch kube-apiserver \
    --etcd-servers="$etcd_url" \
    --tls-cert-file="$pki/apiserver.crt" \
    --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" \
    --secure-port="$api_port" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --endpoint-reconciler-type=none \
    --service-cluster-ip-range="$service_cidr" \
    --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP,Hostname \
    --allow-privileged=true \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$pki/sa.pub" \
    --service-account-signing-key-file="$pki/sa.key" \
    --watch-cache-sizes='podtemplates#0' \
    --shutdown-watch-termination-grace-period=2s \
    --profiling=false \
    "${audit_flags[@]}"
}

audit_flags=()
setup_audit() {  # QUORUM_CONTROLPLANE_AUDIT=1: metadata of every request to logs/audit.log
  [[ "${QUORUM_CONTROLPLANE_AUDIT:-}" == 1 ]] || return 0
  cat >"$dir/audit-policy.yaml" <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
POLICY
  audit_flags=(--audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$dir/logs/audit.log"
    --audit-log-format=json --audit-log-mode=blocking)
}

start_kcm() {
  # No --authentication-kubeconfig/--authorization-kubeconfig: its own HTTPS
  # port serves only /healthz (always allowed) to our health check, and without
  # a front-proxy CA in the API server they would only log errors forever.
  launch kube-controller-manager \
    --kubeconfig="$dir/kubeconfig" \
    --controllers="$kcm_controllers" \
    --leader-elect=false \
    --use-service-account-credentials=false \
    --service-account-private-key-file="$pki/sa.key" \
    --root-ca-file="$pki/ca.crt" \
    --bind-address=127.0.0.1 \
    --secure-port="$kcm_port" \
    --tls-cert-file="$pki/kube-controller-manager.crt" \
    --tls-private-key-file="$pki/kube-controller-manager.key" \
    --profiling=false
}

owner_starttime() {  # field 22 of /proc/PID/stat: tells a pid's owner from a later reuse
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}

owner="${QUORUM_OWNER_PID:-$PPID}"
check_owner() {
  [[ "$owner" == none ]] && return 0
  [[ "$owner" =~ ^[0-9]+$ ]] || die "QUORUM_OWNER_PID must be a pid or 'none', got '$owner'"
  owner_starttime "$owner" >/dev/null || die "owner process $owner does not exist"
}

start_watchdog() {
  local since
  if [[ "$owner" == none ]]; then return 0; fi
  since="$(owner_starttime "$owner")" || die "owner process $owner does not exist"
  setsid nohup "$BASH" "$self" __watchdog "$dir" "$owner" "$since" \
    >>"$dir/logs/watchdog.log" 2>&1 </dev/null 9>&- &
  echo "$!" >"$(pidfile watchdog)"
}

cmd_watchdog() {  # __watchdog DIR OWNER STARTTIME: stop DIR once OWNER is gone
  local owner="$1" since="$2"
  while [[ "$(owner_starttime "$owner" 2>/dev/null)" == "$since" ]]; do sleep 0.5; done
  echo "$(date -Is) owner $owner is gone: stopping $dir"
  exec "$BASH" "$self" stop "$dir"
}

lock() {  # serialises start/stop/restart on one DIR
  # No timeout: a `stop` (say, the watchdog's) that arrives while `start` is
  # still building the binaries must wait and then stop what start started.
  exec 9>"$dir/.lock"
  flock 9
}

# ---------------------------------------------------------------- commands

same_version() {  # the running control plane (state loaded) is the version asked for
  local asked="${QUORUM_K8S_VERSION:-}" running="${k8s_release#v}"
  asked="${asked#v}"
  if [[ -z "$asked" ]]; then [[ -z "$k8s_request" ]]; else [[ "$asked" == "${running%.*}" ]]; fi
}

cmd_start() {
  local t0=$SECONDS attempt name
  check_owner
  mkdir -p "$dir"
  lock
  if healthy && same_version; then
    log "already running"
    print_endpoints
    return 0
  fi
  stop_all  # anything left from a crashed run, or another Kubernetes version
  # Interrupted half-way (Ctrl-C, kill): leave nothing running.
  trap 'trap - INT TERM; log "interrupted"; stop_all; exit 130' INT TERM

  bin="$("$here/build-tools.sh")"
  for name in "${components[@]}" kubectl; do
    [[ -x "$bin/$name" ]] || die "$bin/$name is missing (hack/build-tools.sh)"
  done
  k8s_request="${QUORUM_K8S_VERSION:-}"
  k8s_release="$("$bin/kube-apiserver" --version)" && k8s_release="${k8s_release##* }"
  [[ "$k8s_release" =~ ^v1\.[0-9]+\. ]] || die "cannot read the version of $bin/kube-apiserver"

  rm -rf "$dir/etcd" "$dir/args" "$dir/pids" "$dir/logs.prev" "$dir/state" "$dir/env" "$dir/kubeconfig"
  [[ -d "$dir/logs" ]] && mv "$dir/logs" "$dir/logs.prev"
  mkdir -p "$dir/logs" "$dir/pids" "$dir/args"
  pki="$dir/pki"
  gen_pki
  setup_audit
  start_watchdog

  for attempt in 1 2 3; do
    pick_ports
    set_urls
    write_state
    write_kubeconfig
    if start_etcd && wait_for etcd etcd_healthy &&
      start_apiserver && wait_for kube-apiserver apiserver_ready &&
      start_kcm && wait_for kube-controller-manager kcm_healthy; then
      write_env
      trap - INT TERM
      log "started in $((SECONDS - t0))s"
      print_endpoints
      return 0
    fi
    if ((attempt < 3)) && grep -qs "address already in use" "$dir"/logs/{etcd,kube-apiserver,kube-controller-manager}.log; then
      log "a port was taken meanwhile; retrying with other ports"
      for name in kube-controller-manager kube-apiserver etcd; do stop_component "$name"; done
      rm -rf "$dir/etcd"
      continue
    fi
    break
  done
  for name in etcd kube-apiserver kube-controller-manager; do
    [[ -f "$dir/logs/$name.log" ]] && show_log "$name"
  done
  stop_all
  die "start failed (logs in $dir/logs)"
}

cmd_stop() {
  [[ -d "$dir" ]] || return 0
  local t0=$SECONDS
  lock
  stop_all
  log "stopped in $((SECONDS - t0))s"
}

cmd_restart_apiserver() {
  [[ -d "$dir" ]] || die "$dir does not exist"
  lock
  load_state || die "no control plane state in $dir (run start first)"
  pki="$dir/pki"
  running etcd || die "etcd is not running in $dir"
  local t0=$SECONDS
  stop_component kube-apiserver
  relaunch kube-apiserver
  if ! wait_for kube-apiserver apiserver_ready; then
    show_log kube-apiserver
    die "kube-apiserver did not become ready after restart"
  fi
  log "kube-apiserver restarted in $((SECONDS - t0))s"
}

cmd_status() {
  [[ -d "$dir" ]] || die "no control plane in $dir"
  pki="$dir/pki"
  if healthy; then
    print_endpoints
    return 0
  fi
  local name state
  for name in "${components[@]}"; do
    if running "$name"; then state=running; else state="not running"; fi
    log "$name: $state"
  done
  die "control plane in $dir is not healthy"
}

(($# >= 2)) || usage
command="$1"
dir="$(realpath -m -- "$2")"
pki="$dir/pki"
case "$command" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart-apiserver) cmd_restart_apiserver ;;
  status) cmd_status ;;
  __watchdog) (($# == 4)) || usage; cmd_watchdog "$3" "$4" ;;
  *) usage ;;
esac
