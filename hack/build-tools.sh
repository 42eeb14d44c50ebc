#!/usr/bin/env bash
# Builds the pinned upstream binaries Quorum's tests and demo run (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl, etcd, etcdctl, helm) from the Go
# module proxy into a cache outside the checkout, keyed by version and by the
# tools modules' go.sum. A second run finds them and builds nothing.
#
# Prints the bin folder on stdout (everything else goes to stderr).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${QUORUM_CACHE:-$HOME/.cache/quorum}"

modversion() {  # modversion <go.mod> <module>: the required version of a module
  sed -nE "s#^(require)?[[:space:]]*$2[[:space:]]+(v[^[:space:]]+).*#\\2#p" "$1" | head -1
}
kube_version="$(modversion "$here/tools/kube/go.mod" k8s.io/kubernetes)"
etcd_version="$(modversion "$here/tools/etcd/go.mod" go.etcd.io/etcd/server/v3)"
helm_version="$(modversion "$here/tools/helm/go.mod" helm.sh/helm/v3)"
[[ -n "$kube_version" && -n "$etcd_version" && -n "$helm_version" ]] || { echo "build-tools: cannot read pinned versions" >&2; exit 1; }
key() { cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -c1-12; }
kube_dir="$cache/bin/kube-$kube_version-$(key "$here/tools/kube")"
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

minor="${kube_version#v1.}"; minor="${minor%%.*}"
kube_ld="-X k8s.io/component-base/version.gitVersion=$kube_version"
kube_ld+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
kube_ld+=" -X k8s.io/component-base/version.gitTreeState=clean"
build "$here/tools/kube" "$kube_dir" "$kube_ld" \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl
build "$here/tools/etcd" "$etcd_dir" "" \
  etcd=go.etcd.io/etcd/server/v3 \
  etcdctl=go.etcd.io/etcd/etcdctl/v3
helm_ld="-X helm.sh/helm/v3/internal/version.version=$helm_version"
build "$here/tools/helm" "$helm_dir" "$helm_ld" helm=helm.sh/helm/v3/cmd/helm

mkdir -p "$bin"
for f in "$kube_dir"/* "$etcd_dir"/* "$helm_dir"/*; do ln -sfn "$f" "$bin/$(basename "$f")"; done
echo "$bin"
