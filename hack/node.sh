#!/usr/bin/env bash
# A real single-node Kubernetes beside a control plane started by hack/controlplane.sh:
# containerd 2.x + runc, the kubelet, kube-proxy (nftables), CoreDNS, kube-scheduler and
# kube-router's NetworkPolicy firewall, built from pinned sources by `hack/build-tools.sh node`.
#
#   hack/node.sh start CP_DIR     start the node for the control plane in CP_DIR (no-op if healthy)
#   hack/node.sh stop CP_DIR      stop it and remove everything it made (idempotent)
#   hack/node.sh status CP_DIR    exit 0 and print where things are if healthy
#   hack/node.sh exec CP_DIR -- CMD...   run CMD on the host resolving cluster names
#                                 (a private mount namespace whose /etc/resolv.conf
#                                 names the node's CoreDNS, search *.cluster.local)
#
# State lives in CP_DIR/node/: pki/, config/, logs/, pids/, containerd/, kubelet/, env.
# The node is "quorum-node". Its pods get 10.245.0.0/24 ($QUORUM_NODE_POD_CIDR's /24) on
# the bridge qnode0, whose address 10.245.0.1 is the node's IP: the kubelet and CoreDNS
# (the pods' nameserver, cluster.local) listen there, so only this machine reaches them.
# Pods reach the API server (loopback only) through the `kubernetes` Service's ClusterIP,
# which the node's own nft table sends to 127.0.0.1 (route_localnet on qnode0 only).
# The control plane should use a service range of its own (QUORUM_SERVICE_CIDR at its start,
# default 10.96.0.0/19): kube-proxy then never touches another test bed's ClusterIPs on this
# machine. Nothing here assumes the range's size: kube-proxy learns it from the API server.
#
# Storage: the StorageClass quorum-local (default) and a pool of 192 local
# PersistentVolumes (folders under CP_DIR/node/volumes/, Retain) that the control
# plane's PV controller binds when a pod needs a claim. The first 8 are 1 GiB ext4
# file systems on loop devices (sparse files; the PV controller gives a claim of
# up to 1Gi the smallest volume that fits, so these go first): a full volume is
# a fault one can inject (hack/faults.sh fill) without filling the machine's
# disk. Where loop devices cannot be set up, all 64 are folders.
# The class allows expansion, so that growing storage (Quorum raises each claim and
# re-creates the StatefulSet) runs here: no resizer runs, so a claim is "expanded"
# only while its request fits its volume (the 20Gi folders; a grown 1Gi loop volume
# stays below its request, and the Storage condition says Resizing).
#
# One real node per machine at a time (the bridge name and kubelet ports are fixed).
# Cgroups: v1 controllers here, so the kubelet runs with failCgroupV1=false and cgroupfs,
# everything under the cgroup /quorum-node.
#
# NetworkPolicy is enforced (the bridge plugin enforces none) by kube-router v2, only its
# network policy controller (--run-firewall; no routing, no service proxy): iptables filter
# chains (KUBE-ROUTER-INPUT/FORWARD/OUTPUT, one KUBE-POD-FW-* per local pod, one KUBE-NWPLCY-*
# per policy) and ipsets (KUBE-SRC-*, KUBE-DST-*), through the iptables and ipset
# commands. Pod-to-pod packets cross the bridge without routing: br_netfilter's
# bridge-nf-call-iptables=1 (set at start, restored at stop) makes them pass those chains.
# A connection a policy does not admit is REJECTed: the client sees "connection refused".
# Traffic from the host: every pod's chain accepts a packet whose source address is one of
# the node's own (`-m addrtype --src-type LOCAL`) before any policy: the kubelet's probes and
# any host process, whatever its user or address (10.245.0.1 or another of the machine's),
# reach every pod and port — the operator as the tests and `make demo` run it, psql, curl.
# That is Kubernetes' rule that a pod's own node is always admitted; no flag is needed. A
# pod reaching a Service's ClusterIP is judged by its own address (kube-proxy masquerades
# only after the filter chains). Its health port binds every address, so it is off
# (--health-port=0); metrics on 127.0.0.1:10264. It keeps its chains when it stops (no gap
# on a restart); stop removes them and the ipsets.
# Why not kube-network-policies (sigs.k8s.io, v0.8.0): it diverts new connections with the
# nftables `queue` expression, and kernels built without CONFIG_NFT_QUEUE (this one: "nft
# add rule ... queue num 98" fails with "No such file or directory") cannot load its table.
#
# Kubernetes version: the node runs the control plane's (QUORUM_K8S_VERSION in CP_DIR/env,
# written by hack/controlplane.sh), its kubelet, kube-proxy and kube-scheduler from the same
# pinned release (hack/build-tools.sh node); a QUORUM_K8S_VERSION set here must agree.
#
# Orphan protection as in controlplane.sh: a watchdog stops the node once its owner
# ($QUORUM_OWNER_PID, default the caller's parent) is gone; QUORUM_OWNER_PID=none disables it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"

node_name=quorum-node
bridge=qnode0
cidr_prefix="${QUORUM_NODE_POD_PREFIX:-10.245.0}"
pod_cidr="$cidr_prefix.0/24"
node_ip="$cidr_prefix.1"
cgroup_root=/quorum-node
nft_table=quorum-node
components=(containerd kube-scheduler kubelet kube-proxy coredns kube-router)
ready_timeout="${QUORUM_NODE_TIMEOUT:-180}"
# Fixed ports on the node's address or loopback.
kubelet_port=10250 kubelet_healthz=10248 proxy_healthz=10256 proxy_metrics=10249
coredns_ready=8181 coredns_health=8180 scheduler_port=10259 kube_router_metrics=10264

log() { echo "node: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '6,11s/^# \{0,1\}//p' "$self" >&2; exit 2; }

# ---------------------------------------------------------------- processes

pidfile() { echo "$node/pids/$1.pid"; }
read_pid() {
  local f pid
  f="$(pidfile "$1")"
  [[ -f "$f" ]] || return 1
  pid="$(<"$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}
alive() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat%% *}" != Z ]]
}
ours() {  # ours PID: a live process whose command line names $node
  local cmd
  alive "$1" || return 1
  cmd=" $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) " || return 1
  [[ "$cmd" == *" $node "* || "$cmd" == *" $node/"* || "$cmd" == *"=$node/"* ]]
}
running() { local pid; pid="$(read_pid "$1")" && ours "$pid"; }
why_not_running() {  # why_not_running NAME: what `running` saw, for the log
  local pid
  pid="$(read_pid "$1")" || { echo "no pid file $(pidfile "$1")"; return 0; }
  if ! alive "$pid"; then echo "pid $pid is gone"; return 0; fi
  echo "pid $pid runs '$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)', not naming $node"
}

launch() {  # launch NAME ARGS...: starts $bin/NAME in a session of its own
  local name="$1" pid deadline=$((SECONDS + 10)); shift
  printf '%s\n' "$@" >"$node/args/$name"
  setsid nohup "$bin/$name" "$@" >>"$node/logs/$name.log" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$(pidfile "$name")"
  # Until its exec the child is a copy of this shell, whose command line does
  # not name $node: `running` would call it gone (a loaded machine made
  # start-up fail that way). Wait for the exec, or for the child to die.
  while alive "$pid" && ! ours "$pid" && ((SECONDS < deadline)); do sleep 0.05; done
}

strays() {  # strays EXE-NAME: pids of processes named EXE-NAME whose command line names $node
  local p exe
  for p in /proc/[0-9]*; do
    p="${p#/proc/}"
    exe="$(readlink "/proc/$p/exe" 2>/dev/null)" || continue
    [[ "${exe##*/}" == "$1" ]] && ours "$p" && echo "$p"
  done
  return 0
}

terminate() {  # terminate PID...: SIGTERM each process group, up to 15 s, then SIGKILL
  local p pids=("$@") left deadline=$((SECONDS + 15))
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
    log "pid $p did not stop within 15s of SIGTERM, sending SIGKILL"
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true
  done
  deadline=$((SECONDS + 5))
  for p in "${left[@]}"; do
    while alive "$p" && ((SECONDS < deadline)); do sleep 0.1; done
  done
}

stop_component() {
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

# ---------------------------------------------------------------- clean-up

remove_pods() {  # every pod sandbox through the CRI, so that CNI removes its netns and veth
  [[ -S "$node/run/containerd.sock" ]] && running containerd || return 0
  local crictl=("$bin/crictl" --runtime-endpoint "unix://$node/run/containerd.sock" --timeout 20s)
  "${crictl[@]}" stopp $("${crictl[@]}" pods -q 2>/dev/null) >/dev/null 2>&1 || true
  "${crictl[@]}" rmp -a -f >/dev/null 2>&1 || true
}

cleanup_host() {  # what the processes leave in the kernel and on disk
  local m cg c
  # Shims of our containerd (they outlive it) and anything still in our cgroups.
  while read -r m; do [[ -n "$m" ]] && kill -KILL "$m" 2>/dev/null; done < <(strays containerd-shim-runc-v2)
  for c in /sys/fs/cgroup/*/; do
    cg="$c${cgroup_root#/}"
    [[ -d "$cg" ]] || continue
    find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null | while read -r m; do kill -KILL "$m" 2>/dev/null; done
  done
  # Mounts under the node's folder (pod volumes, container root filesystems), deepest first.
  if [[ -d "$node" ]]; then
    { findmnt -rn -o TARGET | grep -F "$node/" || true; } | sort -r | while read -r m; do
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done
  fi
  # Network namespaces that CRI made for our sandboxes and never removed.
  if [[ -f "$node/netns" ]]; then
    while read -r m; do
      [[ -n "$m" && -e "$m" ]] || continue
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
      rm -f "$m"
    done <"$node/netns"
  fi
  # Cgroups, leaves first (a cgroup v1 folder goes with rmdir once it has no children).
  for c in /sys/fs/cgroup/*/; do
    cg="$c${cgroup_root#/}"
    [[ -d "$cg" ]] || continue
    for _ in 1 2 3 4 5; do
      find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
      [[ -d "$cg" ]] || break
      sleep 0.2
    done
    [[ -d "$cg" ]] && log "cannot remove cgroup $cg"
  done
  cleanup_kube_router
  cleanup_kubelet_iptables
  nft delete table ip kube-proxy 2>/dev/null || true
  nft delete table ip6 kube-proxy 2>/dev/null || true
  nft delete table ip "$nft_table" 2>/dev/null || true
  nft delete table ip cni_hostport 2>/dev/null || true
  if ip link show "$bridge" >/dev/null 2>&1; then
    # veths of pods whose netns is gone are gone with it; any left are ours.
    ip -o link show master "$bridge" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 |
      while read -r m; do ip link del "$m" 2>/dev/null || true; done
    ip link del "$bridge" 2>/dev/null || true
  fi
  if [[ -f "$node/sysctl.saved" ]]; then
    sysctl -q -w "net.ipv4.ip_forward=$(<"$node/sysctl.saved")" >/dev/null || true
    rm -f "$node/sysctl.saved"
  fi
  if [[ -f "$node/sysctl-bridge.saved" ]]; then
    sysctl -q -w "net.bridge.bridge-nf-call-iptables=$(<"$node/sysctl-bridge.saved")" >/dev/null || true
    rm -f "$node/sysctl-bridge.saved"
  fi
  # The shims' sockets and runc's state live under /run/containerd whatever the
  # config says: remove the folders once empty (no other containerd here).
  rmdir /run/containerd/runc/k8s.io /run/containerd/runc /run/containerd/s /run/containerd 2>/dev/null || true
  # containerd's root stays: the imported images are there for the next start.
  rm -rf "$node/containerd/state" "$node/kubelet" "$node/cni" "$node/run" "$node/netns"
}

cleanup_kube_router() {
  # kube-router leaves its filter chains and ipsets when it stops (so that a restart
  # never opens a gap): the jumps to its chains, the chains, then the sets they used.
  command -v iptables >/dev/null || return 0
  local n chain chains=() set
  # By number: its rules carry quoted comments, which do not survive word splitting.
  for chain in INPUT FORWARD OUTPUT; do
    while n="$(iptables -t filter -L "$chain" -n --line-numbers 2>/dev/null |
      awk '$2 ~ /^KUBE-ROUTER-/ {print $1; exit}')" && [[ -n "$n" ]]; do
      iptables -t filter -D "$chain" "$n" 2>/dev/null || break
    done
  done
  while read -r chain; do [[ -n "$chain" ]] && chains+=("$chain"); done < <(
    iptables-save -t filter 2>/dev/null | sed -nE 's/^:(KUBE-(ROUTER|POD-FW|NWPLCY)-[^ ]*) .*/\1/p' || true)
  for chain in "${chains[@]}"; do iptables -t filter -F "$chain" 2>/dev/null || true; done
  for chain in "${chains[@]}"; do iptables -t filter -X "$chain" 2>/dev/null || true; done
  command -v ipset >/dev/null || return 0
  while read -r set; do
    [[ -n "$set" ]] && { ipset destroy "$set" 2>/dev/null || log "cannot destroy ipset $set"; }
  done < <(ipset list -n 2>/dev/null | grep -E '^(inet6:)?KUBE-(SRC|DST)-' || true)
  return 0
}

cleanup_kubelet_iptables() {
  # The kubelet's own iptables chains (KUBE-FIREWALL, canaries, the hint for
  # kube-proxy), then the iptables-nft tables that only they made.
  local ipt t c rule family
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null || continue
    while read -r rule; do
      # shellcheck disable=SC2086 # a rule is words
      [[ -n "$rule" ]] && "$ipt" -t filter ${rule/#-A /-D } 2>/dev/null
    done < <("$ipt-save" -t filter 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD) .*-j KUBE-' || true)
    for t in mangle filter nat; do
      for c in KUBE-KUBELET-CANARY KUBE-FIREWALL KUBE-IPTABLES-HINT; do
        "$ipt" -t "$t" -F "$c" 2>/dev/null && "$ipt" -t "$t" -X "$c" 2>/dev/null
      done
      family=ip; [[ "$ipt" == ip6tables ]] && family=ip6
      if ! grep -qx "table $family $t" "$node/nft.before" 2>/dev/null &&
        ! "$ipt-save" -t "$t" 2>/dev/null | grep -q '^-A '; then
        nft delete table "$family" "$t" 2>/dev/null || true
      fi
    done
  done
  return 0
}

stop_all() {
  local name
  stop_component watchdog
  stop_component kubelet
  # Record the sandboxes' netns paths before CRI forgets them (a safety net).
  # Only the tasks' OCI specs name them: a recursive grep of the state folder
  # would walk every container's mounted root file system (minutes).
  if [[ -d "$node/run" ]]; then
    find /var/run/netns -maxdepth 1 -name 'cni-*' 2>/dev/null | while read -r m; do
      grep -qsF "$m" "$node"/containerd/state/io.containerd.runtime.v2.task/*/*/config.json &&
        echo "$m"
    done >>"$node/netns" || true
  fi
  remove_pods
  for name in kube-proxy kube-router coredns kube-scheduler containerd; do stop_component "$name"; done
  cleanup_host
  remove_volumes
  rm -rf "$node/volumes"
  rm -f "$node"/pids/*.pid
}

# ---------------------------------------------------------------- health

kubectl() { "$bin/kubectl" --kubeconfig "$cp/kubeconfig" "$@"; }
curl_ok() { curl -fsS --noproxy '*' --max-time 3 "$@" >/dev/null 2>&1; }
containerd_ready() { "$bin/ctr" --address "$node/run/containerd.sock" version >/dev/null 2>&1; }
kubelet_healthy() { curl_ok "http://127.0.0.1:$kubelet_healthz/healthz"; }
node_ready() {
  [[ "$(kubectl get node "$node_name" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]
}
# /livez: /healthz also says whether the node may take load-balancer traffic.
proxy_healthy() { curl_ok "http://127.0.0.1:$proxy_healthz/livez"; }
coredns_healthy() { curl_ok "http://127.0.0.1:$coredns_ready/ready"; }
scheduler_healthy() { curl_ok -k "https://127.0.0.1:$scheduler_port/healthz"; }
# Its health port cannot be bound to loopback (it is off): ready once its first sync has
# put the jump to its chain into FORWARD and its metrics answer.
kube_router_ready() {
  iptables-save -t filter 2>/dev/null | grep -q -- '^-A FORWARD .*-j KUBE-ROUTER-FORWARD' &&
    curl_ok "http://127.0.0.1:$kube_router_metrics/metrics"
}

wait_for() {  # wait_for NAME CHECK
  local name="$1" check="$2" deadline=$((SECONDS + ready_timeout))
  until "$check"; do
    # The pid was launched by this very run: alive is enough (`running` also
    # matches the command line, against a pid file left by an earlier run).
    alive "$(read_pid "$name")" ||
      { log "$name exited during start-up ($(why_not_running "$name"))"; return 1; }
    ((SECONDS < deadline)) || { log "$name not healthy after ${ready_timeout}s"; return 1; }
    sleep 0.2
  done
}

healthy() {
  [[ -f "$node/state" ]] || return 1
  # shellcheck source=/dev/null
  source "$node/state"
  local name
  for name in "${components[@]}"; do running "$name" || return 1; done
  containerd_ready && kubelet_healthy && proxy_healthy && coredns_healthy && kube_router_ready && node_ready
}

print_endpoints() {
  echo "node $node_name in $node"
  echo "  pods:        $pod_cidr on $bridge (node IP $node_ip, cluster DNS $node_ip:53)"
  echo "  policies:    kube-router (iptables filter chains KUBE-ROUTER-*, metrics 127.0.0.1:$kube_router_metrics)"
  echo "  containerd:  $node/run/containerd.sock (crictl: source $node/env)"
  echo "  kubeconfig:  $cp/kubeconfig"
}

# ---------------------------------------------------------------- set-up

sign() {  # sign NAME SUBJECT EXTENSIONS: a key and a certificate from the control plane's CA
  (
    cd "$node/pki"
    umask 077
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
    printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$cp/pki/ca.crt" -CAkey "$cp/pki/ca.key" -CAcreateserial \
      -CAserial "$node/pki/ca.srl" -days 3650 -sha256 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
  )
}

kubeconfig_for() {  # kubeconfig_for NAME: a kubeconfig with NAME's certificate
  local b64=(base64 -w0)
  cat >"$node/config/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: quorum
  cluster:
    server: $api_url
    certificate-authority-data: $("${b64[@]}" "$cp/pki/ca.crt")
users:
- name: $1
  user:
    client-certificate-data: $("${b64[@]}" "$node/pki/$1.crt")
    client-key-data: $("${b64[@]}" "$node/pki/$1.key")
contexts:
- name: quorum
  context: {cluster: quorum, user: $1}
current-context: quorum
EOF
  chmod 600 "$node/config/$1.kubeconfig"
}

gen_pki() {
  rm -rf "$node/pki"
  mkdir -p "$node/pki" "$node/config"
  sign kubelet "/O=system:nodes/CN=system:node:$node_name" "extendedKeyUsage=clientAuth"
  sign kubelet-serving "/CN=$node_name" "extendedKeyUsage=serverAuth
subjectAltName=IP:$node_ip,DNS:$node_name"
  sign kube-proxy "/CN=system:kube-proxy" "extendedKeyUsage=clientAuth"
  sign coredns "/CN=quorum:coredns" "extendedKeyUsage=clientAuth"
  sign kube-scheduler "/CN=system:kube-scheduler" "extendedKeyUsage=clientAuth"
  sign kube-router "/CN=quorum:kube-router" "extendedKeyUsage=clientAuth"
  rm -f "$node/pki/ca.srl"
  local n
  for n in kubelet kube-proxy coredns kube-scheduler kube-router; do kubeconfig_for "$n"; done
}

apply_rbac() {  # the node's identities: RBAC only (no Node authorizer on this control plane)
  kubectl apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "quorum-node:system:node"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:node"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:nodes"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "quorum-node:system:node-proxier"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:node-proxier"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:kube-proxy"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "quorum-node:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "quorum-node:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "quorum-node:coredns"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "quorum:coredns"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "quorum-node:kube-router"}
rules:
- apiGroups: [""]
  resources: [namespaces, pods, services, nodes, endpoints]
  verbs: [get, list, watch]
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "quorum-node:kube-router"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "quorum-node:kube-router"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "quorum:kube-router"}
EOF
}

write_configs() {
  local c="$node/config"
  mkdir -p "$c" "$node/cni/net.d" "$node/run"
  cat >"$c/containerd.toml" <<EOF
version = 3
root = "$node/containerd/root"
state = "$node/containerd/state"
disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.internal.v1.tracing",
  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile",
  "io.containerd.snapshotter.v1.erofs", "io.containerd.differ.v1.erofs"]

[grpc]
  address = "$node/run/containerd.sock"
[ttrpc]
  address = "$node/run/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$pause_image"
  # Every registry resolves to a loopback port that refuses (certs.d/_default):
  # the machine has no route out, so an image the node lacks fails at once.
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = "$c/certs.d"

[plugins.'io.containerd.cri.v1.runtime']
  # No process here may lower an OOM score (CAP_SYS_RESOURCE is not in the
  # bounding set): pod sandboxes (-998) and Guaranteed pods (-997) get the
  # runtime's own score instead of runc failing to write it.
  restrict_oom_score_adj = $restrict_oom
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "$runc"
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["$bin/cni"]
    conf_dir = "$node/cni/net.d"

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
EOF
  # An image missing from the node fails its pull at once ("dial tcp
  # 127.0.0.1:9: connect: connection refused") instead of trying a registry:
  # every host, and the default server, is the discard port on loopback,
  # which nothing serves (docs/testbed.md).
  mkdir -p "$c/certs.d/_default"
  cat >"$c/certs.d/_default/hosts.toml" <<EOF
server = "http://127.0.0.1:9"

[host."http://127.0.0.1:9"]
  capabilities = ["pull", "resolve"]
EOF
  cat >"$node/cni/net.d/10-quorum-node.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "quorum-node",
  "plugins": [
    {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$node/cni/ipam", "routes": [{"dst": "0.0.0.0/0"}],
              "ranges": [[{"subnet": "$pod_cidr", "gateway": "$node_ip"}]]}},
    {"type": "portmap", "capabilities": {"portMappings": true}, "backend": "nftables"}
  ]
}
EOF
  cat >"$c/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_healthz
tlsCertFile: $node/pki/kubelet-serving.crt
tlsPrivateKeyFile: $node/pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $cp/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$node/run/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: $cgroup_root
failCgroupV1: false
failSwapOn: false
clusterDomain: cluster.local
clusterDNS: [$node_ip]
resolvConf: /etc/resolv.conf
podLogsDir: $node/pod-logs
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
maxPods: 200
serializeImagePulls: false
registerNode: true
EOF
  cat >"$c/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection: {kubeconfig: $c/kube-proxy.kubeconfig}
hostnameOverride: $node_name
clusterCIDR: $pod_cidr
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$proxy_healthz
metricsBindAddress: 127.0.0.1:$proxy_metrics
nodePortAddresses: ["$node_ip/32"]
conntrack: {maxPerCore: 0}
oomScoreAdj: $oom_adj
EOF
  cat >"$c/Corefile" <<EOF
.:53 {
  bind $node_ip
  errors
  health 127.0.0.1:$coredns_health
  ready 127.0.0.1:$coredns_ready
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $c/coredns.kubeconfig quorum
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
    ttl 5
  }
  forward . /etc/resolv.conf
}
EOF
}

setup_cgroups() {  # the kubelet wants its cgroupRoot to exist in every hierarchy
  local c cg
  for c in /sys/fs/cgroup/*/; do
    [[ -f "${c}cgroup.procs" ]] || continue
    cg="$c${cgroup_root#/}"
    mkdir -p "$cg"
    if [[ -f "${c}cpuset.cpus" ]]; then
      [[ -n "$(<"$cg/cpuset.cpus")" ]] || cat "${c}cpuset.cpus" >"$cg/cpuset.cpus"
      [[ -n "$(<"$cg/cpuset.mems")" ]] || cat "${c}cpuset.mems" >"$cg/cpuset.mems"
    fi
  done
}

setup_network() {
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
  fi
  ip addr replace "$node_ip/24" dev "$bridge"
  ip link set "$bridge" up
  [[ -f "$node/sysctl.saved" ]] || sysctl -n net.ipv4.ip_forward >"$node/sysctl.saved"
  sysctl -q -w net.ipv4.ip_forward=1
  # Pod-to-pod packets cross the bridge without routing: only with br_netfilter's
  # bridge-nf-call-iptables do they pass the filter chains that enforce NetworkPolicy.
  [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] || modprobe br_netfilter 2>/dev/null || true
  [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] ||
    die "no br_netfilter (modprobe br_netfilter): NetworkPolicy would not see pod-to-pod traffic"
  [[ -f "$node/sysctl-bridge.saved" ]] ||
    sysctl -n net.bridge.bridge-nf-call-iptables >"$node/sysctl-bridge.saved"
  sysctl -q -w net.bridge.bridge-nf-call-iptables=1
  sysctl -q -w "net.ipv4.conf.$bridge.route_localnet=1"
  # Pods -> the `kubernetes` Service -> the API server on loopback. Before kube-proxy's
  # chains (dstnat - 5): the Service has no endpoints (the API server advertises none).
  local api_host api_port svc_ip
  api_port="${api_url##*:}"
  svc_ip="$(kubectl get service kubernetes -n default -o jsonpath='{.spec.clusterIP}')"
  [[ -n "$svc_ip" ]] || die "no ClusterIP for the kubernetes Service"
  nft -f - <<EOF
table ip $nft_table {
  chain prerouting {
    type nat hook prerouting priority dstnat - 5; policy accept;
    iifname "$bridge" ip daddr $svc_ip tcp dport 443 dnat to 127.0.0.1:$api_port
  }
}
EOF
}

launch_kube_router() {  # only its NetworkPolicy controller; kube-proxy serves the Services
  local service_cidr
  service_cidr="$(sed -n 's/^--service-cluster-ip-range=//p' "$cp/args/kube-apiserver" 2>/dev/null)"
  [[ -n "$service_cidr" ]] || { log "cannot read --service-cluster-ip-range from $cp/args/kube-apiserver"; return 1; }
  launch kube-router --kubeconfig="$node/config/kube-router.kubeconfig" --hostname-override="$node_name" \
    --run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false \
    --service-cluster-ip-range="$service_cidr" --health-port=0 \
    --metrics-addr=127.0.0.1 --metrics-port="$kube_router_metrics"
}

volumes=192 volume_size=20Gi loop_volumes=8 loop_volume_size=1Gi
# make_loop_volume DIR: a 1 GiB ext4 file system (sparse file DIR.img) mounted
# on DIR; cleanup_host unmounts it with everything under $node (the loop device
# goes with the mount: mount -o loop sets autoclear).
make_loop_volume() {
  local dir="$1"
  command -v mkfs.ext4 >/dev/null && [[ -e /dev/loop-control ]] || return 1
  rm -f "$dir.img" && truncate -s "${loop_volume_size%Gi}G" "$dir.img" &&
    mkfs.ext4 -q -F -m 0 "$dir.img" && mkdir -p "$dir" && mount -o loop "$dir.img" "$dir" &&
    chmod 0777 "$dir" && rmdir "$dir/lost+found"
}

make_volumes() {  # a pool of local PersistentVolumes, bound by the PV controller (no provisioner)
  # Named by the start time: claims still bound to an earlier start's volumes
  # keep those (Terminating) until the claims go.
  local i stamp size loops=$loop_volumes
  stamp="$(date +%s)"
  mkdir -p "$node/volumes"
  {
    cat <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: quorum-local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain
allowVolumeExpansion: true
EOF
    for ((i = 0; i < volumes; i++)); do
      size="$volume_size"
      if ((i < loops)) && make_loop_volume "$node/volumes/pv-$i"; then
        size="$loop_volume_size"
      else
        ((i < loops)) && log "no loop device for volume $i: the pool is folders only"
        loops=0
        install -d -m 0777 "$node/volumes/pv-$i"
      fi
      cat <<EOF
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: $node_name-$stamp-$i, labels: {quorum.dev/node: $node_name}}
spec:
  capacity: {storage: $size}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: quorum-local
  local: {path: $node/volumes/pv-$i}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [$node_name]}
EOF
    done
  } | kubectl apply -f - >/dev/null
}

remove_volumes() {  # the pool's API objects (their folders go with $node/volumes)
  [[ -f "$cp/kubeconfig" ]] || return 0
  kubectl delete pv -l "quorum.dev/node=$node_name" --wait=false >/dev/null 2>&1 || true
  kubectl delete storageclass quorum-local --ignore-not-found >/dev/null 2>&1 || true
}

write_env() {
  {
    echo "# Written by hack/node.sh; source it to use this node's runtime."
    printf "export CONTAINER_RUNTIME_ENDPOINT='unix://%s/run/containerd.sock'\n" "$node"
    printf "export IMAGE_SERVICE_ENDPOINT='unix://%s/run/containerd.sock'\n" "$node"
    printf "export CONTAINERD_ADDRESS='%s/run/containerd.sock'\n" "$node"
    printf "export QUORUM_NODE_BIN='%s'\n" "$bin"
    printf "export QUORUM_NODE_DIR='%s'\n" "$node"
    printf "export QUORUM_CLUSTER_DNS='%s'\n" "$node_ip"
  } >"$node/env"
  printf '%s\n' "nameserver $node_ip" "search default.svc.cluster.local svc.cluster.local cluster.local" \
    "options ndots:5" >"$node/resolv.conf"
}

# ---------------------------------------------------------------- watchdog

owner_starttime() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}
owner="${QUORUM_OWNER_PID:-$PPID}"
start_watchdog() {
  local since
  [[ "$owner" == none ]] && return 0
  [[ "$owner" =~ ^[0-9]+$ ]] || die "QUORUM_OWNER_PID must be a pid or 'none', got '$owner'"
  since="$(owner_starttime "$owner")" || die "owner process $owner does not exist"
  setsid nohup "$BASH" "$self" __watchdog "$cp" "$owner" "$since" \
    >>"$node/logs/watchdog.log" 2>&1 </dev/null 9>&- &
  echo "$!" >"$(pidfile watchdog)"
}
cmd_watchdog() {
  local owner="$1" since="$2"
  while [[ "$(owner_starttime "$owner" 2>/dev/null)" == "$since" ]]; do sleep 0.5; done
  echo "$(date -Is) owner $owner is gone: stopping $node"
  exec "$BASH" "$self" stop "$cp"
}

lock() { exec 9>"$node/.lock"; flock 9; }

# ---------------------------------------------------------------- commands

load_cp() {
  [[ -f "$cp/env" ]] || die "no control plane in $cp (hack/controlplane.sh start $cp)"
  api_url="$(sed -n "s/^export QUORUM_APISERVER='\(.*\)'$/\1/p" "$cp/env")"
  [[ -n "$api_url" ]] || die "cannot read QUORUM_APISERVER from $cp/env"
}

node_tools() {  # builds (or finds) the node's binaries of the control plane's Kubernetes version
  local cp_version=""
  [[ -f "$cp/env" ]] && cp_version="$(sed -n "s/^export QUORUM_K8S_VERSION='\(.*\)'$/\1/p" "$cp/env")"
  if [[ -n "${QUORUM_K8S_VERSION:-}" && -n "$cp_version" && "${QUORUM_K8S_VERSION#v}" != "$cp_version" ]]; then
    die "QUORUM_K8S_VERSION=$QUORUM_K8S_VERSION but the control plane in $cp runs Kubernetes $cp_version"
  fi
  QUORUM_K8S_VERSION="${cp_version:-${QUORUM_K8S_VERSION:-}}" "$here/build-tools.sh" node
}

cmd_start() {
  local t0=$SECONDS name
  mkdir -p "$node"
  lock
  load_cp
  bin="$(node_tools)"
  for name in "${components[@]}" kubectl ctr crictl runc containerd-shim-runc-v2 cni/bridge; do
    [[ -x "$bin/$name" ]] || die "$bin/$name is missing (hack/build-tools.sh node)"
  done
  runc="$bin/runc"
  command -v nft >/dev/null || die "nft not found (apt-get install nftables)"
  for name in iptables iptables-save iptables-restore ipset; do
    command -v "$name" >/dev/null || die "$name not found (kube-router's firewall; apt-get install iptables ipset)"
  done
  pause_image="$("$here/images.sh" name pause)"
  printf 'bin=%q\npause_image=%q\n' "$bin" "$pause_image" >"$node/state.tmp"
  if [[ -f "$node/state" ]] && healthy; then
    log "already running"
    print_endpoints
    return 0
  fi
  source "$node/state.tmp"
  stop_all  # anything left from a crashed run
  mv "$node/state.tmp" "$node/state"
  trap 'trap - INT TERM; log "interrupted"; stop_all; exit 130' INT TERM

  rm -rf "$node/args" "$node/pids" "$node/logs.prev" "$node/pod-logs"
  [[ -d "$node/logs" ]] && mv "$node/logs" "$node/logs.prev"
  mkdir -p "$node/logs" "$node/pids" "$node/args" "$node/pod-logs"
  gen_pki
  write_configs
  apply_rbac
  nft list tables >"$node/nft.before" 2>/dev/null || true
  start_watchdog
  setup_cgroups
  setup_network

  if launch containerd --config "$node/config/containerd.toml" && wait_for containerd containerd_ready &&
    "$here/images.sh" import "$node/run/containerd.sock" &&
    launch coredns -conf "$node/config/Corefile" -dns.port 53 && wait_for coredns coredns_healthy &&
    launch kube-scheduler --kubeconfig "$node/config/kube-scheduler.kubeconfig" --leader-elect=false \
      --bind-address=127.0.0.1 --secure-port="$scheduler_port" --profiling=false &&
    wait_for kube-scheduler scheduler_healthy &&
    launch kubelet --config "$node/config/kubelet.yaml" --kubeconfig "$node/config/kubelet.kubeconfig" \
      --root-dir "$node/kubelet" --cert-dir "$node/kubelet/pki" --hostname-override "$node_name" \
      --node-ip "$node_ip" --oom-score-adj="$oom_adj" && wait_for kubelet kubelet_healthy &&
    launch kube-proxy --config "$node/config/kube-proxy.yaml" && wait_for kube-proxy proxy_healthy &&
    wait_for kubelet node_ready &&
    launch_kube_router && wait_for kube-router kube_router_ready; then
    make_volumes
    write_env
    trap - INT TERM
    log "started in $((SECONDS - t0))s"
    print_endpoints
    return 0
  fi
  for name in "${components[@]}"; do
    [[ -f "$node/logs/$name.log" ]] || continue
    log "last lines of $node/logs/$name.log:"
    tail -n 30 "$node/logs/$name.log" >&2 || true
  done
  stop_all
  die "start failed (logs in $node/logs)"
}

cmd_stop() {
  [[ -d "$node" ]] || return 0
  local t0=$SECONDS
  lock
  if [[ -f "$node/state" ]]; then
    # shellcheck source=/dev/null
    source "$node/state"
  else
    bin="$(node_tools)"
  fi
  [[ -f "$cp/env" ]] && load_cp
  stop_all
  log "stopped in $((SECONDS - t0))s"
}

cmd_exec() {  # exec -- CMD...: CMD with the cluster's DNS as its resolver
  [[ "${1:-}" == -- ]] && shift
  (($#)) || usage
  [[ -f "$node/resolv.conf" ]] || die "no node in $node (hack/node.sh start)"
  exec unshare --mount --propagation private -- "$BASH" -c \
    'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$node/resolv.conf" "$@"
}

cmd_status() {
  [[ -d "$node" ]] || die "no node in $node"
  load_cp
  if healthy; then print_endpoints; return 0; fi
  local name
  for name in "${components[@]}"; do
    if running "$name"; then log "$name: running"; else log "$name: not running"; fi
  done
  die "node in $node is not healthy"
}

(($# >= 2)) || usage
command="$1"
cp="$(realpath -m -- "$2")"
node="$cp/node"
bin="" api_url="" pause_image="" runc=""
# Without CAP_SYS_RESOURCE in the bounding set (some sandboxes drop it) no process
# may lower its OOM score: the node's daemons keep 0 and containerd clamps pods' scores.
restrict_oom=false oom_adj=-999
if (( ((0x$(awk '/^CapBnd:/ {print $2}' /proc/self/status) >> 24) & 1) == 0 )); then
  restrict_oom=true oom_adj=0
fi
case "$command" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  exec) shift 2; cmd_exec "$@" ;;
  __watchdog) (($# == 4)) || usage; cmd_watchdog "$3" "$4" ;;
  *) usage ;;
esac
