#!/usr/bin/env bash
# Installs what Quorum needs on a fresh Debian 12 machine, only what is missing:
# the Debian packages of the C++ build and of the data plane (PostgreSQL 15 from
# Debian 12; PgBouncer, whose admin console an integration test drives), Patroni (pinned, from PyPI) in a venv under
# $HOME/.cache/quorum/patroni-<version>/ (root: /var/cache/quorum/...), then (with Go >= 1.26,
# which must be there already) the pinned control-plane binaries, the backup tests'
# object store (SeaweedFS) and Prometheus with promtool through hack/build-tools.sh.
# Then the real node the e2e tests and the demo run pods on (hack/node.sh: kubelet,
# containerd, runc, CNI, CoreDNS, kube-router's NetworkPolicy firewall) and its images
# (hack/images.sh), all cached by key.
# Quiet when everything is already there. Never reads stdin.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

packages=(
  g++ cmake ninja-build make pkg-config git openssl curl iproute2 util-linux
  libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev libcpp-httplib-dev libzstd-dev
  libabsl-dev libspdlog-dev libcli11-dev libgtest-dev libgmock-dev clang-format
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  postgresql python3-venv libpq-dev jq pgbouncer
  ccache mold
)
# The real node (hack/node.sh, hack/images.sh) also needs libseccomp-dev (runc's
# build), nft (kube-proxy's nftables mode), iptables and ipset (kube-router's
# NetworkPolicy firewall), catatonit (the pause image), mmdebstrap and buildah
# (images built here, no registry).
packages+=(libseccomp-dev nftables iptables ipset catatonit mmdebstrap buildah e2fsprogs)
go_minimum="1.26"

log() { echo "deps: $*" >&2; }
die() { log "$*"; exit 1; }

sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || die "not root and no sudo: install ${packages[*]} by hand"
  sudo=(sudo -n)
fi

installed() {  # installed PKG: dpkg knows PKG as fully installed
  [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == "ii "* ]]
}

missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq </dev/null >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" </dev/null >&2
fi

# Patroni with the etcd3 and kubernetes DCS and psycopg 3, in its own venv; the
# version lives in hack/patroni-env.sh (one place for tests and the node runtime).
patroni_venv="$("$here/patroni-env.sh" venv)"
patroni_version="$("$here/patroni-env.sh" version)"
# The stamp is written last, so an interrupted install is redone, not trusted.
if [[ ! -f "$patroni_venv/.installed" ]]; then
  log "installing Patroni $patroni_version into $patroni_venv"
  rm -rf "$patroni_venv"
  mkdir -p "$(dirname "$patroni_venv")"
  chmod 755 "$(dirname "$patroni_venv")"
  /usr/bin/python3 -m venv "$patroni_venv" >&2
  "$patroni_venv/bin/pip" install -q --disable-pip-version-check --no-input \
    "patroni[etcd3,kubernetes,psycopg3]==$patroni_version" </dev/null >&2
  "$patroni_venv/bin/patroni" --version >/dev/null
  touch "$patroni_venv/.installed"
fi

# Go builds the control-plane binaries (Kubernetes 1.36 needs Go 1.26).
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="$PATH:/usr/local/go/bin"
fi
command -v go >/dev/null || die "Go >= $go_minimum is required (not found on PATH)"
go_version="$(go env GOVERSION)"  # e.g. go1.26.8
go_version="${go_version#go}"
go_version="${go_version%% *}"
if [[ "$(printf '%s\n' "$go_minimum" "$go_version" | sort -V | head -1)" != "$go_minimum" ]]; then
  die "Go >= $go_minimum is required, found $go_version"
fi

# The images that need no Go program (the pause image, the PostgreSQL images: Debian
# bases from mmdebstrap, packages and Patroni downloaded) build beside the Go builds
# below, which wait on the CPU while these wait mostly on downloads and disk.
"$here/images.sh" build pause postgres-15 postgres-17 postgres-15-bookworm 2> >(grep -v "^build-tools: cached " >&2) \
  >/dev/null &
images_pid=$!
"$here/build-tools.sh" 2> >(grep -v "^build-tools: cached " >&2) >/dev/null
# The operator's image is made later, from the program the build compiles
# (hack/images.sh with QUORUM_OPERATOR_BIN, when the node starts).
"$here/build-tools.sh" node 2> >(grep -v '^build-tools: cached ' >&2) >/dev/null
# SeaweedFS's weed: the S3-compatible object store of the backup tests (hack/s3.sh).
"$here/build-tools.sh" s3 2> >(grep -v '^build-tools: cached ' >&2) >/dev/null
# etcdutl: restores snapshots (the etcd image's restore step, the backup tests).
"$here/build-tools.sh" etcdutl 2> >(grep -v '^build-tools: cached ' >&2) >/dev/null
# Prometheus and promtool: promtool checks and unit-tests deploy/monitoring's alert rules.
"$here/build-tools.sh" prometheus 2> >(grep -v '^build-tools: cached ' >&2) >/dev/null
wait "$images_pid" || die "building the PostgreSQL and pause images failed (above)"
"$here/images.sh" build 2> >(grep -v "^build-tools: cached " >&2) >/dev/null
