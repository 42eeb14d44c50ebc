#!/usr/bin/env bash
# Container images for the real node (hack/node.sh), built here without Docker or a
# registry: Debian base file systems from mmdebstrap, then buildah (Debian's, chroot
# isolation) on our Dockerfiles. Each image is an OCI archive in
# $QUORUM_CACHE/images/ (or $QUORUM_IMAGES_DIR), named by a content key (its Dockerfile, its build
# arguments, the files it copies, the base's key): a second run builds nothing.
#
#   hack/images.sh build [NAME...]     build the images (the default set if none named); print archives
#   hack/images.sh import SOCKET       build, then import them into containerd (namespace k8s.io)
#   hack/images.sh name NAME           print NAME's image reference
#   hack/images.sh list                print NAME and reference of every image
#
# Images (NAME: reference):
#   pause:      localhost/quorum/pause:catatonit          the pod sandbox (Debian's catatonit -P)
#   etcd-3.6:   quay.io/coreos/etcd:v<3.6 of tools/etcd>  etcd, etcdctl, etcdutl from hack/build-tools.sh
#   etcd-3.5:   quay.io/coreos/etcd:v<3.5 of tools/etcd35>
#   etcd-3.7:   quay.io/coreos/etcd:v<3.7 of tools/etcd37>
#   postgres-15: ghcr.io/quorum-dev/postgres:15-patroni4   images/postgres on bookworm, PG from Debian
#               (with bookworm-security's fixes)
#   postgres-17: ghcr.io/quorum-dev/postgres:17-patroni4   images/postgres on trixie, PG from Debian
#               (with trixie-security's fixes), with 15's server programs beside (from bookworm)
#               for pg_upgrade 15 -> 17
#   postgres-15-bookworm: ghcr.io/quorum-dev/postgres:15-bookworm-patroni4   as postgres-15
#               without the security archive: an older 15 minor, for the minor upgrade test
#   pgbouncer:  ghcr.io/quorum-dev/pgbouncer:1-trixie      images/pgbouncer on trixie: Debian's
#               pgbouncer (>= 1.19, auth_dbname), with trixie-security's fixes
#   postgres-exporter: ghcr.io/quorum-dev/postgres-exporter:0-trixie   images/postgres-exporter on
#               trixie: Debian's prometheus-postgres-exporter, with trixie-security's fixes
#   operator:   ghcr.io/quorum-dev/quorum-operator:0.1.0   images/operator on bookworm. With
#               QUORUM_OPERATOR_BIN (the e2e fixture, make bench-node) it packs that already-built program
#               (seconds, keyed by its bytes); without, it compiles the operator inside the
#               build as a publisher would (~10 min cold; keyed by the tracked sources).
#               `build` with no names skips it unless QUORUM_OPERATOR_BIN is set.
# The bases are localhost/quorum/debian:bookworm and :trixie (minbase + ca-certificates).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"
cache="${QUORUM_CACHE:-$HOME/.cache/quorum}"
images="${QUORUM_IMAGES_DIR:-$cache/images}"
mirror="${QUORUM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
all=(pause etcd-3.6 etcd-3.5 etcd-3.7 postgres-15 postgres-17 postgres-15-bookworm pgbouncer postgres-exporter
  operator)
# What `build` with no names and `import` make: the operator image only from a
# program the caller built (QUORUM_OPERATOR_BIN), never a compile inside the build.
default=("${all[@]:0:9}")
[[ -z "${QUORUM_OPERATOR_BIN:-}" ]] || default+=(operator)

log() { echo "images: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '8,11s/^# \{0,1\}//p' "$self" >&2; exit 2; }

modversion() { sed -nE "s#^(require)?[[:space:]]*$2[[:space:]]+(v[^[:space:]]+).*#\\2#p" "$1" | head -1; }
etcd36="$(modversion "$here/tools/etcd/go.mod" go.etcd.io/etcd/server/v3)"
etcd35="$(modversion "$here/tools/etcd35/go.mod" go.etcd.io/etcd/server/v3)"
etcd37="$(modversion "$here/tools/etcd37/go.mod" go.etcd.io/etcd/server/v3)"

ref() {
  case "$1" in
    pause) echo "localhost/quorum/pause:catatonit" ;;
    etcd-3.6) echo "quay.io/coreos/etcd:$etcd36" ;;
    etcd-3.5) echo "quay.io/coreos/etcd:$etcd35" ;;
    etcd-3.7) echo "quay.io/coreos/etcd:$etcd37" ;;
    postgres-15) echo "ghcr.io/quorum-dev/postgres:15-patroni4" ;;
    postgres-17) echo "ghcr.io/quorum-dev/postgres:17-patroni4" ;;
    postgres-15-bookworm) echo "ghcr.io/quorum-dev/postgres:15-bookworm-patroni4" ;;
    pgbouncer) echo "ghcr.io/quorum-dev/pgbouncer:1-trixie" ;;
    postgres-exporter) echo "ghcr.io/quorum-dev/postgres-exporter:0-trixie" ;;
    operator) echo "ghcr.io/quorum-dev/quorum-operator:0.1.0" ;;
    *) die "unknown image $1 (one of: ${all[*]})" ;;
  esac
}

bah() {  # buildah on a store of its own (not the machine's /var/lib/containers)
  buildah --root "$images/store" --runroot "$images/run" --storage-driver vfs "$@"
}

# One lock per image and per base: concurrent node starts wait for one build of
# the same image, not for other images' builds.
mkdir -p "$images"
locked() {  # locked NAME CMD...: CMD under NAME's lock
  local fd rc=0
  exec {fd}>"$images/.lock-$1"
  flock "$fd"
  shift
  "$@" || rc=$?
  exec {fd}>&-
  return "$rc"
}

# Certificate authorities this machine adds to Debian's (a TLS-inspecting egress proxy,
# say): builds that download (pip in images/postgres) must trust them too, so the
# bases carry them, and PIP_CERT points pip at the system store.
extra_cas=(/usr/local/share/ca-certificates/*.crt)
[[ -e "${extra_cas[0]}" ]] || extra_cas=()

base() { locked "base-$1" base_unlocked "$1"; }
base_unlocked() {  # base SUITE: makes localhost/quorum/debian:SUITE-KEY if missing; prints KEY
  local suite="$1" key tar c
  key="$(printf '%s\n' "$suite" "$mirror" minbase ca-certificates | sha256sum | cut -c1-12)"
  tar="$images/debian-$suite-$key.tar"
  if [[ ! -f "$tar" ]]; then
    log "mmdebstrap $suite"
    mmdebstrap --quiet --format=tar --variant=minbase --include=ca-certificates "$suite" "$tar.tmp" "$mirror" >&2
    mv "$tar.tmp" "$tar"
  fi
  if ((${#extra_cas[@]})); then
    key="$( (echo "$key"; cat "${extra_cas[@]}") | sha256sum | cut -c1-12)"
  fi
  if ! bah inspect --type image "localhost/quorum/debian:$suite-$key" >/dev/null 2>&1; then
    c="$(bah from scratch)"
    bah add --quiet "$c" "$tar" / >/dev/null
    bah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$c"
    if ((${#extra_cas[@]})); then
      bah copy --quiet "$c" "${extra_cas[@]}" /usr/local/share/ca-certificates/ >/dev/null
      bah run --isolation chroot "$c" update-ca-certificates >/dev/null 2>&1
      bah config --env PIP_CERT=/etc/ssl/certs/ca-certificates.crt "$c"
    fi
    bah commit --quiet --rm "$c" "localhost/quorum/debian:$suite-$key" >/dev/null
  fi
  echo "$key"
}

archive() {  # archive NAME KEY: the OCI archive's path
  echo "$images/$1-$2.oci.tar"
}

build_one() {  # build_one NAME: prints its archive
  local name="$1" r key out ctx bin c
  r="$(ref "$name")"
  case "$name" in
    pause)
      key="$(cat /usr/bin/catatonit | sha256sum | cut -c1-12)"
      out="$(archive "$name" "$key")"
      [[ -f "$out" ]] && { echo "$out"; return; }
      log "building $r"
      c="$(bah from scratch)"
      bah copy --quiet "$c" /usr/bin/catatonit /catatonit >/dev/null
      bah config --entrypoint '["/catatonit","-P"]' --user 65535:65535 "$c"
      bah commit --quiet --rm "$c" "$r" >/dev/null
      ;;
    etcd-3.*)
      local bkey
      bkey="$(base bookworm)"
      case "$name" in
        etcd-3.6) bin="$("$here/build-tools.sh")" ;;
        etcd-3.5) bin="$("$here/build-tools.sh" etcd35)" ;;
        *) bin="$("$here/build-tools.sh" etcd37)" ;;
      esac
      ctx="$(mktemp -d)"
      mkdir "$ctx/bin"
      cp -L "$bin/etcd" "$bin/etcdctl" "$ctx/bin/"
      # etcdutl restores snapshots (spec.bootstrap.restore); 3.6 and 3.7.
      if [[ "$name" == etcd-3.6 ]]; then cp -L "$("$here/build-tools.sh" etcdutl)/etcdutl" "$ctx/bin/"; fi
      if [[ "$name" == etcd-3.7 ]]; then cp -L "$bin/etcdutl" "$ctx/bin/"; fi
      key="$( (cat "$root/images/etcd/Dockerfile" "$ctx"/bin/*; echo "$bkey") | sha256sum | cut -c1-12)"
      out="$(archive "$name" "$key")"
      if [[ -f "$out" ]]; then rm -rf "$ctx"; echo "$out"; return; fi
      log "building $r"
      bah bud --quiet --isolation chroot --pull=false --layers=false \
        --build-arg BASE="localhost/quorum/debian:bookworm-$bkey" \
        -f "$root/images/etcd/Dockerfile" -t "$r" "$ctx" >/dev/null
      rm -rf "$ctx"
      ;;
    operator)
      local bkey
      bkey="$(base bookworm)"
      if [[ -n "${QUORUM_OPERATOR_BIN:-}" ]]; then
        # The tests' operator, compiled by this build already: the image takes that program
        # (stripped) and the host's libraries it links (this host is Debian 12, as the
        # base), so a source change costs a copy, not a second compile.
        [[ -x "$QUORUM_OPERATOR_BIN" ]] || die "QUORUM_OPERATOR_BIN=$QUORUM_OPERATOR_BIN is not a program"
        ctx="$(mktemp -d)"
        mkdir -p "$ctx/prebuilt/rootfs"
        strip -o "$ctx/prebuilt/rootfs/quorum-operator" "$QUORUM_OPERATOR_BIN"
        ldd "$QUORUM_OPERATOR_BIN" | grep -o '/[^ ]*' | sort -u |
          xargs -I{} cp --parents -L {} "$ctx/prebuilt/rootfs/"
        key="$( (cat "$root/images/operator/Dockerfile"; echo "$bkey prebuilt"
          cd "$ctx" && find prebuilt -type f | sort | xargs sha256sum) | sha256sum | cut -c1-12)"
        out="$(archive "$name" "$key")"
        if [[ -f "$out" ]]; then rm -rf "$ctx"; echo "$out"; return; fi
        log "building $r (from $QUORUM_OPERATOR_BIN)"
        bah bud --quiet --isolation chroot --pull=false --layers=false \
          --build-arg OPERATOR_FROM=prebuilt \
          --build-arg RUNTIME_BASE="localhost/quorum/debian:bookworm-$bkey" \
          -f "$root/images/operator/Dockerfile" -t "$r" "$ctx" >/dev/null
        rm -rf "$ctx"
      else
        key="$( (cat "$root/images/operator/Dockerfile"; echo "$bkey"
          cd "$root" && git ls-files -s CMakeLists.txt cmake api src cmd deploy/crds test bench
          git -C "$root" diff HEAD -- CMakeLists.txt cmake api src cmd deploy/crds test bench) |
          sha256sum | cut -c1-12)"
        out="$(archive "$name" "$key")"
        [[ -f "$out" ]] && { echo "$out"; return; }
        log "building $r (compiles the operator)"
        bah bud --quiet --isolation chroot --pull=false --layers=false \
          --build-arg BASE="localhost/quorum/debian:bookworm-$bkey" \
          --build-arg RUNTIME_BASE="localhost/quorum/debian:bookworm-$bkey" \
          -f "$root/images/operator/Dockerfile" -t "$r" "$root" >&2
      fi
      ;;
    pgbouncer | postgres-exporter)
      local bkey
      bkey="$(base trixie)"
      key="$( (cat "$root/images/$name/Dockerfile"; echo "$bkey security=1") | sha256sum |
        cut -c1-12)"
      out="$(archive "$name" "$key")"
      [[ -f "$out" ]] && { echo "$out"; return; }
      log "building $r"
      ctx="$(mktemp -d)"
      bah bud --quiet --isolation chroot --pull=false --layers=false \
        --build-arg BASE="localhost/quorum/debian:trixie-$bkey" --build-arg DEBIAN_SECURITY=1 \
        -f "$root/images/$name/Dockerfile" -t "$r" "$ctx" >&2
      rm -rf "$ctx"
      ;;
    postgres-*)
      local major="${name#postgres-}" suite bkey from="" security=1
      # postgres-15-bookworm: 15 as bookworm itself ships it, without the
      # security archive's newer minor (the minor upgrade test's "before").
      [[ "$major" == 15-bookworm ]] && major=15 security=0
      # The older majors whose servers the image carries, for an in-place pg_upgrade.
      if [[ "$major" == 15 ]]; then suite=bookworm; else suite=trixie from=15; fi
      bkey="$(base "$suite")"
      key="$( (cat "$root/images/postgres/Dockerfile" "$root/src/patroni/role-callback.sh"
        echo "$bkey $major debian upgrade-from=$from security=$security") | sha256sum |
        cut -c1-12)"
      out="$(archive "$name" "$key")"
      [[ -f "$out" ]] && { echo "$out"; return; }
      log "building $r"
      bah bud --quiet --isolation chroot --pull=false --layers=false \
        --build-arg BASE="localhost/quorum/debian:$suite-$bkey" --build-arg PG_MAJOR="$major" \
        --build-arg PG_SOURCE=debian --build-arg PG_UPGRADE_FROM="$from" \
        --build-arg DEBIAN_SECURITY="$security" \
        --build-arg DEBIAN_MIRROR="$mirror" \
        -f "$root/images/postgres/Dockerfile" -t "$r" "$root" >&2
      ;;
  esac
  rm -f "$out.tmp"
  bah push --quiet "$r" "oci-archive:$out.tmp:$r" >&2
  mv "$out.tmp" "$out"
  # The archive is what the node imports: the store keeps only the Debian bases
  # (vfs stores every image as a full copy, and each operator build is one more).
  bah rmi --force "$r" >/dev/null 2>&1 || true
  if [[ "$name" == operator ]]; then
    # Earlier builds of the operator, not used for two hours: one per source change.
    find "$images" -maxdepth 1 -name "operator-*.oci.tar" ! -newer "$out" -mmin +120 -delete
  fi
  echo "$out"
}

cmd_build() {
  local n
  (($#)) || set -- "${default[@]}"
  for n in "$@"; do locked "$n" build_one "$n"; done
}

cmd_import() {  # import SOCKET: what containerd does not have yet (recorded next to its root)
  local sock="$1" ctr n out record
  ctr=("$("$here/build-tools.sh" node)/ctr" --address "$sock" -n k8s.io)
  record="$(dirname "$sock")/../containerd/imported"
  touch "$record"
  for n in "${default[@]}"; do
    out="$(cmd_build "$n")"
    if grep -qxF "$out" "$record" && [[ -n "$("${ctr[@]}" images ls -q "name==$(ref "$n")")" ]]; then
      continue
    fi
    "${ctr[@]}" images import "$out" >/dev/null
    echo "$out" >>"$record"
    log "imported $(ref "$n")"
  done
}

(($#)) || usage
case "$1" in
  build) shift; cmd_build "$@" ;;
  import) (($# == 2)) || usage; cmd_import "$2" ;;
  name) (($# == 2)) || usage; ref "$2" ;;
  list) for n in "${all[@]}"; do echo "$n $(ref "$n")"; done ;;
  *) usage ;;
esac
