#!/usr/bin/env bash
# Builds the pinned upstream binaries Quorum's tests and demo run (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl, etcd, etcdctl, helm) from the Go
# module proxy into a cache outside the checkout, keyed by version and by the
# tools modules' go.sum. A second run finds them and builds nothing.
#
#   hack/build-tools.sh        the control plane's binaries; prints their bin folder
#   hack/build-tools.sh node   also the real node's (kubelet, kube-proxy from the same
#                              Kubernetes version; containerd 2.x, ctr and its runc shim;
#                              the CNI plugins; CoreDNS; crictl; kube-router, whose
#                              firewall enforces NetworkPolicy; runc, the one cgo build,
#                              with libseccomp); prints the node's bin folder, which
#                              holds the control plane's binaries too.
#
# Kubernetes version: QUORUM_K8S_VERSION=1.NN (in the environment, for every mode that
# builds Kubernetes) selects that minor's pinned release: hack/tools/kube (with
# hack/tools/kubenode) holds the default one, hack/tools/kubeNN (e.g. kube134, kube137)
# each other minor of the version matrix (make test-matrix), the control plane's
# binaries and the node's in one module. Unset, or the default minor, means the default.
#
#   hack/build-tools.sh etcd35 etcd 3.5 (tools/etcd35) for the version-matrix etcd image;
#                              prints its folder.
#   hack/build-tools.sh etcd37 etcd 3.7 with etcdctl and etcdutl (tools/etcd37), likewise.
#   hack/build-tools.sh s3     SeaweedFS's `weed` (tools/seaweedfs), the S3-compatible
#                              object store of the backup tests (hack/s3.sh); prints its folder.
#   hack/build-tools.sh etcdutl  etcdutl (tools/etcdutl, etcd's release) for snapshot
#                              restores (the etcd image, the backup tests); prints its folder.
#   hack/build-tools.sh prometheus  the Prometheus server and promtool (tools/prometheus):
#                              promtool checks and unit-tests deploy/monitoring's alert
#                              rules, the server scrapes the test bed in the monitoring
#                              end-to-end test. Built with only the Kubernetes, file and
#                              HTTP service discoveries (static configs always work);
#                              prints its folder.
#
# Prints the bin folder on stdout (everything else goes to stderr).
set -euo pipefail

mode="${1:-controlplane}"
[[ "$mode" =~ ^(controlplane|node|etcd35|etcd37|s3|etcdutl|prometheus)$ ]] || { echo "usage: $0 [node|etcd35|etcd37|s3|etcdutl|prometheus]" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${QUORUM_CACHE:-$HOME/.cache/quorum}"

modversion() {  # modversion <go.mod> <module>: the required version of a module
  sed -nE "s#^(require)?[[:space:]]*$2[[:space:]]+(v[^[:space:]]+).*#\\2#p" "$1" | head -1
}
kube_version="$(modversion "$here/tools/kube/go.mod" k8s.io/kubernetes)"
# The Kubernetes minor asked for: its tools module(s) and whether it is the default.
default_minor="${kube_version#v}"; default_minor="${default_minor%.*}"
k8s_minor="${QUORUM_K8S_VERSION:-$default_minor}"; k8s_minor="${k8s_minor#v}"
[[ "$k8s_minor" =~ ^1\.[0-9]+$ ]] || { echo "build-tools: QUORUM_K8S_VERSION must be a minor like 1.34, got '$k8s_minor'" >&2; exit 2; }
kube_mod="$here/tools/kube" kubenode_mod="$here/tools/kubenode"
if [[ "$k8s_minor" != "$default_minor" ]]; then
  kube_mod="$here/tools/kube${k8s_minor//./}" kubenode_mod="$kube_mod"
  if [[ ! -f "$kube_mod/go.mod" ]]; then
    echo "build-tools: no pinned Kubernetes $k8s_minor (hack/tools/kube${k8s_minor//./}); known: $default_minor (default)$(
      cd "$here/tools" && for d in kube[0-9]*; do printf ', 1.%s' "${d#kube1}"; done)" >&2
    exit 2
  fi
  kube_version="$(modversion "$kube_mod/go.mod" k8s.io/kubernetes)"
fi
etcd_version="$(modversion "$here/tools/etcd/go.mod" go.etcd.io/etcd/server/v3)"
helm_version="$(modversion "$here/tools/helm/go.mod" helm.sh/helm/v3)"
[[ -n "$kube_version" && -n "$etcd_version" && -n "$helm_version" ]] || { echo "build-tools: cannot read pinned versions" >&2; exit 1; }
key() { cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -c1-12; }
kube_dir="$cache/bin/kube-$kube_version-$(key "$kube_mod")"
etcd_dir="$cache/bin/etcd-$etcd_version-$(key "$here/tools/etcd")"
helm_dir="$cache/bin/helm-$helm_version-$(key "$here/tools/helm")"
bin="$cache/bin/current-$kube_version-$etcd_version"

export CGO_ENABLED=0 GOFLAGS=-mod=mod

build() {  # build <module dir> <out dir> <ldflags> <name=package>...
  local mod="$1" out="$2" ldflags="$3"; shift 3
  local missing=0 pair lock
  for pair in "$@"; do [[ -x "$out/${pair%%=*}" ]] || missing=1; done
  if (( missing == 0 )); then echo "build-tools: cached $out" >&2; return; fi
  # Concurrent runs (several control planes starting at once) wait for one
  # build instead of each compiling the same thing.
  mkdir -p "$(dirname "$out")"
  exec {lock}>"$out.lock"
  flock "$lock"
  missing=0
  for pair in "$@"; do [[ -x "$out/${pair%%=*}" ]] || missing=1; done
  if (( missing == 0 )); then exec {lock}>&-; echo "build-tools: cached $out" >&2; return; fi
  local tmp="$out.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  for pair in "$@"; do
    echo "build-tools: building ${pair%%=*} ($(basename "$out"))" >&2
    (cd "$mod" && go build -trimpath -ldflags "-s -w $ldflags" -o "$tmp/${pair%%=*}" "${pair#*=}")
  done
  rm -rf "$out"; mv "$tmp" "$out"
  exec {lock}>&-
}

if [[ "$mode" == etcd35 ]]; then
  etcd35_version="$(modversion "$here/tools/etcd35/go.mod" go.etcd.io/etcd/server/v3)"
  etcd35_dir="$cache/bin/etcd-$etcd35_version-$(key "$here/tools/etcd35")"
  build "$here/tools/etcd35" "$etcd35_dir" "" \
    etcd=go.etcd.io/etcd/server/v3 \
    etcdctl=go.etcd.io/etcd/etcdctl/v3
  echo "$etcd35_dir"
  exit 0
fi

if [[ "$mode" == etcd37 ]]; then
  etcd37_version="$(modversion "$here/tools/etcd37/go.mod" go.etcd.io/etcd/server/v3)"
  etcd37_dir="$cache/bin/etcd-$etcd37_version-$(key "$here/tools/etcd37")"
  build "$here/tools/etcd37" "$etcd37_dir" "" \
    etcd=go.etcd.io/etcd/server/v3 \
    etcdctl=go.etcd.io/etcd/etcdctl/v3 \
    etcdutl=go.etcd.io/etcd/etcdutl/v3
  echo "$etcd37_dir"
  exit 0
fi

if [[ "$mode" == s3 ]]; then
  seaweedfs_version="$(modversion "$here/tools/seaweedfs/go.mod" github.com/seaweedfs/seaweedfs)"
  [[ -n "$seaweedfs_version" ]] || { echo "build-tools: cannot read the SeaweedFS version" >&2; exit 1; }
  seaweedfs_dir="$cache/bin/seaweedfs-$seaweedfs_version-$(key "$here/tools/seaweedfs")"
  build "$here/tools/seaweedfs" "$seaweedfs_dir" "" weed=github.com/seaweedfs/seaweedfs/weed
  echo "$seaweedfs_dir"
  exit 0
fi

if [[ "$mode" == etcdutl ]]; then
  etcdutl_version="$(modversion "$here/tools/etcdutl/go.mod" go.etcd.io/etcd/etcdutl/v3)"
  [[ "$etcdutl_version" == "$etcd_version" ]] || { echo "build-tools: tools/etcdutl pins $etcdutl_version, tools/etcd $etcd_version" >&2; exit 1; }
  etcdutl_dir="$cache/bin/etcdutl-$etcdutl_version-$(key "$here/tools/etcdutl")"
  build "$here/tools/etcdutl" "$etcdutl_dir" "" etcdutl=go.etcd.io/etcd/etcdutl/v3
  echo "$etcdutl_dir"
  exit 0
fi

if [[ "$mode" == prometheus ]]; then
  prometheus_version="$(modversion "$here/tools/prometheus/go.mod" github.com/prometheus/prometheus)"
  [[ -n "$prometheus_version" ]] || { echo "build-tools: cannot read the Prometheus version" >&2; exit 1; }
  prometheus_dir="$cache/bin/prometheus-$prometheus_version-$(key "$here/tools/prometheus")"
  # The module's v0.3xx.y is Prometheus 3.xx.y; --version shows the release's number.
  prometheus_release="${prometheus_version#v0.}"; prometheus_release="v${prometheus_release:0:1}.${prometheus_release:1}"
  prometheus_ld="-X github.com/prometheus/common/version.Version=${prometheus_release#v}"
  prometheus_ld+=" -X github.com/prometheus/common/version.Branch=HEAD"
  # remove_all_sd drops the two dozen cloud service discoveries (most of the build);
  # enable_kubernetes_sd keeps the one the docs' scrape config uses. The web UI's
  # assets are not embedded (no builtinassets tag): the API answers, the UI pages do not.
  GOFLAGS="$GOFLAGS -tags=remove_all_sd,enable_kubernetes_sd" build "$here/tools/prometheus" "$prometheus_dir" "$prometheus_ld" \
    prometheus=github.com/prometheus/prometheus/cmd/prometheus \
    promtool=github.com/prometheus/prometheus/cmd/promtool
  echo "$prometheus_dir"
  exit 0
fi

minor="${kube_version#v1.}"; minor="${minor%%.*}"
kube_ld="-X k8s.io/component-base/version.gitVersion=$kube_version"
kube_ld+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
kube_ld+=" -X k8s.io/component-base/version.gitTreeState=clean"
# kube-scheduler runs only beside the node (hack/node.sh): the default version keeps
# it with the control plane's binaries (as cached today), the matrix versions build
# it with the node's, so that a matrix control plane costs three binaries.
controlplane_scheduler=(kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler) node_scheduler=()
if [[ "$kube_mod" != "$here/tools/kube" ]]; then
  node_scheduler=("${controlplane_scheduler[@]}") controlplane_scheduler=()
fi
# The node's binaries first when asked for: they do not wait for a control-plane
# build that another run may hold the lock of.
if [[ "$mode" == node ]]; then
  node_kube_version="$(modversion "$kubenode_mod/go.mod" k8s.io/kubernetes)"
  containerd_version="$(modversion "$here/tools/containerd/go.mod" github.com/containerd/containerd/v2)"
  cni_version="$(modversion "$here/tools/cni/go.mod" github.com/containernetworking/plugins)"
  coredns_version="$(modversion "$here/tools/coredns/go.mod" github.com/coredns/coredns)"
  crictl_version="$(modversion "$here/tools/crictl/go.mod" sigs.k8s.io/cri-tools)"
  runc_version="$(modversion "$here/tools/runc/go.mod" github.com/opencontainers/runc)"
  kube_router_version="$(modversion "$here/tools/kube-router/go.mod" github.com/cloudnativelabs/kube-router/v2)"
  [[ -n "$containerd_version" && -n "$cni_version" && -n "$coredns_version" && -n "$crictl_version" && -n "$runc_version" && -n "$kube_router_version" ]] || { echo "build-tools: cannot read the node's pinned versions" >&2; exit 1; }
  # kubelet and kube-proxy live in a module of their own (adding them to tools/kube
  # would change its key and rebuild the whole control plane) but must be the same
  # Kubernetes release as the apiserver.
  [[ "$node_kube_version" == "$kube_version" ]] || { echo "build-tools: tools/kubenode pins $node_kube_version, tools/kube $kube_version" >&2; exit 1; }
  kubenode_dir="$cache/bin/kubenode-$kube_version-$(key "$kubenode_mod")"
  containerd_dir="$cache/bin/containerd-$containerd_version-$(key "$here/tools/containerd")"
  cni_dir="$cache/bin/cni-$cni_version-$(key "$here/tools/cni")"
  coredns_dir="$cache/bin/coredns-$coredns_version-$(key "$here/tools/coredns")"
  crictl_dir="$cache/bin/crictl-$crictl_version-$(key "$here/tools/crictl")"
  runc_dir="$cache/bin/runc-$runc_version-$(key "$here/tools/runc")"
  kube_router_dir="$cache/bin/kube-router-$kube_router_version-$(key "$here/tools/kube-router")"
  node_bin="$cache/bin/node-$kube_version-$containerd_version-$cni_version-$coredns_version"

  build "$kubenode_mod" "$kubenode_dir" "$kube_ld" \
    kubelet=k8s.io/kubernetes/cmd/kubelet \
    kube-proxy=k8s.io/kubernetes/cmd/kube-proxy \
    "${node_scheduler[@]}"
  containerd_ld="-X github.com/containerd/containerd/v2/version.Version=$containerd_version"
  containerd_ld+=" -X github.com/containerd/containerd/v2/version.Revision=$containerd_version"
  GOFLAGS="$GOFLAGS -tags=no_btrfs,no_devmapper,no_zfs" build "$here/tools/containerd" "$containerd_dir" "$containerd_ld" \
    containerd=github.com/containerd/containerd/v2/cmd/containerd \
    containerd-shim-runc-v2=github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
    ctr=github.com/containerd/containerd/v2/cmd/ctr
  cni_ld="-X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$cni_version"
  build "$here/tools/cni" "$cni_dir" "$cni_ld" \
    bridge=github.com/containernetworking/plugins/plugins/main/bridge \
    host-local=github.com/containernetworking/plugins/plugins/ipam/host-local \
    loopback=github.com/containernetworking/plugins/plugins/main/loopback \
    portmap=github.com/containernetworking/plugins/plugins/meta/portmap
  build "$here/tools/coredns" "$coredns_dir" "" coredns=github.com/coredns/coredns
  build "$here/tools/crictl" "$crictl_dir" "-X sigs.k8s.io/cri-tools/pkg/version.Version=$crictl_version" \
    crictl=sigs.k8s.io/cri-tools/cmd/crictl
  build "$here/tools/kube-router" "$kube_router_dir" \
    "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$kube_router_version" \
    kube-router=github.com/cloudnativelabs/kube-router/v2/cmd/kube-router
  # runc's nsenter is C, and seccomp filters come from libseccomp.
  CGO_ENABLED=1 GOFLAGS="$GOFLAGS -tags=seccomp" build "$here/tools/runc" "$runc_dir" \
    "-X main.version=$runc_version" runc=github.com/opencontainers/runc
fi

build "$kube_mod" "$kube_dir" "$kube_ld" \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  "${controlplane_scheduler[@]}" \
  kubectl=k8s.io/kubernetes/cmd/kubectl
build "$here/tools/etcd" "$etcd_dir" "" \
  etcd=go.etcd.io/etcd/server/v3 \
  etcdctl=go.etcd.io/etcd/etcdctl/v3
helm_ld="-X helm.sh/helm/v3/internal/version.version=$helm_version"
build "$here/tools/helm" "$helm_dir" "$helm_ld" helm=helm.sh/helm/v3/cmd/helm

mkdir -p "$bin"
for f in "$kube_dir"/* "$etcd_dir"/* "$helm_dir"/*; do ln -sfn "$f" "$bin/$(basename "$f")"; done
[[ "$mode" == node ]] || { echo "$bin"; exit 0; }

mkdir -p "$node_bin/cni"
for f in "$bin"/* "$kubenode_dir"/* "$containerd_dir"/* "$coredns_dir"/* "$crictl_dir"/* "$runc_dir"/* "$kube_router_dir"/*; do
  ln -sfn "$(readlink -f "$f")" "$node_bin/$(basename "$f")"
done
for f in "$cni_dir"/*; do ln -sfn "$f" "$node_bin/cni/$(basename "$f")"; done
echo "$node_bin"
