#!/usr/bin/env bash
# A real S3-compatible object store on loopback for Quorum's backup tests:
# SeaweedFS's `weed mini` (master, volume server, filer and S3 gateway in one
# process), built from its pinned Go module by hack/build-tools.sh s3.
#
#   hack/s3.sh start DIR    start (no-op if DIR already runs a healthy one)
#   hack/s3.sh stop DIR     stop what was started for DIR (idempotent)
#   hack/s3.sh status DIR   exit 0 and print the endpoint if healthy
#
# DIR gets: pki/ (a CA and a serving certificate for 127.0.0.1/localhost),
# credentials/access-key and credentials/secret-key (generated, mode 0600),
# s3.json (the gateway's identities), data/, logs/weed.log, pids/weed.pid, and
# env, a sourceable file exporting QUORUM_S3_ENDPOINT (https://127.0.0.1:PORT),
# QUORUM_S3_CA_FILE, QUORUM_S3_ACCESS_KEY_FILE, QUORUM_S3_SECRET_KEY_FILE,
# QUORUM_S3_BUCKET (created at start) and QUORUM_S3_DIR. The keys live in
# files only: never on a command line, never in the env file.
#
# QUORUM_S3_ADDRESS (default 127.0.0.1) at `start`: the address to listen on,
# e.g. the real node's bridge address 10.245.0.1 so that pods reach the store
# (hack/node.sh); it is in the certificate's names. QUORUM_S3_DNS_NAMES
# (comma-separated) adds DNS names to the certificate, e.g. a Service's name
# through which pods reach the store (pgBackRest verifies DNS names only, not
# IP addresses). QUORUM_S3_TLS=0: plain
# http (pods trust only their image's CA store, not this test CA).
#
# Orphan protection as in hack/controlplane.sh: a watchdog stops the store when
# the process that ran `start` ($PPID, or QUORUM_OWNER_PID; "none" disables)
# is gone. Nothing listens beyond QUORUM_S3_ADDRESS; telemetry is off.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ready_timeout="${QUORUM_S3_TIMEOUT:-120}"
address="${QUORUM_S3_ADDRESS:-127.0.0.1}"
tls="${QUORUM_S3_TLS:-1}"
dns_names="${QUORUM_S3_DNS_NAMES:-}"
bucket="quorum-backups"

log() { echo "s3: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '6,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }

alive() {  # alive PID: exists and is not a zombie
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat%% *}" != Z ]]
}

ours() {  # ours PID: alive and its command line names $dir (guards against pid reuse)
  local cmd
  alive "$1" || return 1
  cmd=" $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) " || return 1
  [[ "$cmd" == *"$dir/"* || "$cmd" == *" $dir "* ]]
}

read_pid() {
  local f="$dir/pids/$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid="$(<"$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}

stop_one() {  # stop_one NAME: SIGTERM its process group, SIGKILL after 10 s
  local pid deadline=$((SECONDS + 10))
  pid="$(read_pid "$1")" || return 0
  if [[ "$pid" != "$$" ]] && ours "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    alive "$pid" && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$dir/pids/$1.pid"
}

# N distinct loopback ports nothing listens on, from 11000-19999: below the
# kernel's ephemeral range (32768-), where the tests' own free ports come
# from (bind to port 0), and below the ports tests pick by number (20000-).
free_ports() {
  local want="$1" port used picked=" "
  used=" $(ss -Htln | awk '{n = split($4, a, ":"); printf "%s ", a[n]}') "
  while (($(wc -w <<<"$picked") < want)); do
    port=$((11000 + RANDOM % 9000))
    [[ "$used" == *" $port "* || "$picked" == *" $port "* ]] || picked+="$port "
  done
  echo $picked
}

healthy() {  # the gateway answers a signed-less request with S3's XML (403 is fine)
  [[ -f "$dir/state" ]] || return 1
  # shellcheck disable=SC1091
  source "$dir/state"
  local code
  code="$(curl -sS --noproxy '*' --max-time 3 -o /dev/null -w '%{http_code}' \
    --cacert "$dir/pki/ca.crt" "$s3_url/" 2>/dev/null)" || return 1
  [[ "$code" =~ ^(200|403)$ ]]
}

make_pki() {
  local pki="$dir/pki" ext name
  ext="subjectAltName=IP:127.0.0.1,IP:$address,DNS:localhost"
  for name in ${dns_names//,/ }; do ext+=",DNS:$name"; done
  ext+=$'\nextendedKeyUsage=serverAuth'
  [[ -f "$pki/server.crt" && "$(cat "$pki/server.ext" 2>/dev/null)" == "$ext" ]] && return 0
  mkdir -p "$pki"
  (
    cd "$pki"
    printf '%s\n' "$ext" >server.ext
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
      -out ca.crt -days 30 -subj /CN=quorum-s3-test-ca
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key \
      -out server.csr -subj /CN=127.0.0.1
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
      -days 30 -extfile server.ext
  ) >>"$dir/logs/openssl.log" 2>&1 || die "openssl failed (see $dir/logs/openssl.log)"
  chmod 600 "$pki"/*.key
}

make_credentials() {
  local c="$dir/credentials"
  if [[ ! -f "$c/secret-key" ]]; then
    mkdir -p "$c"; chmod 700 "$c"
    (umask 077
     echo "quorum$(openssl rand -hex 6)" >"$c/access-key"
     openssl rand -hex 20 >"$c/secret-key")
  fi
  (umask 077
   jq -n --rawfile key "$c/access-key" --rawfile secret "$c/secret-key" '{identities: [{
       name: "quorum-tests",
       credentials: [{accessKey: ($key | rtrimstr("\n")), secretKey: ($secret | rtrimstr("\n"))}],
       actions: ["Admin", "Read", "Write", "List", "Tagging"]}]}' >"$dir/s3.json"
  )
}

start() {
  mkdir -p "$dir"/{logs,pids,data}
  dir="$(cd "$dir" && pwd)"
  exec 9>"$dir/.lock"
  flock 9
  if [[ -n "$(read_pid weed)" ]] && ours "$(read_pid weed)" && healthy; then
    log "already running for $dir"
    return 0
  fi
  stop_one watchdog
  stop_one weed
  local bin
  bin="$("$here/build-tools.sh" s3)" || die "cannot build weed"
  make_pki
  make_credentials
  read -r s3_port s3_grpc master master_grpc volume volume_grpc filer filer_grpc \
    <<<"$(free_ports 8)"
  local scheme=https tls_flags=(-s3.cert.file="$dir/pki/server.crt" -s3.key.file="$dir/pki/server.key")
  [[ "$tls" == 0 ]] && { scheme=http; tls_flags=(); }
  printf 's3_port=%s\ns3_url=%s\n' "$s3_port" "$scheme://$address:$s3_port" >"$dir/state"
  setsid nohup "$bin/weed" mini -dir="$dir/data" -ip="$address" -ip.bind="$address" \
    -master.port="$master" -master.port.grpc="$master_grpc" -master.telemetry=false \
    -volume.port="$volume" -volume.port.grpc="$volume_grpc" \
    -filer.port="$filer" -filer.port.grpc="$filer_grpc" \
    -filer.localSocket="$dir/data/filer.sock" -s3.localSocket="$dir/data/s3.sock" \
    -s3.port="$s3_port" -s3.port.grpc="$s3_grpc" -s3.port.iceberg=0 -s3.port.lance=0 \
    -s3.config="$dir/s3.json" "${tls_flags[@]}" -bucket="$bucket" \
    -webdav=false -admin.ui=false \
    >>"$dir/logs/weed.log" 2>&1 </dev/null 9>&- &
  echo "$!" >"$dir/pids/weed.pid"
  local deadline=$((SECONDS + ready_timeout))
  until healthy; do
    alive "$(read_pid weed)" || { tail -n 30 "$dir/logs/weed.log" >&2; die "weed exited during start-up"; }
    ((SECONDS < deadline)) || { tail -n 30 "$dir/logs/weed.log" >&2; die "not healthy after ${ready_timeout}s"; }
    sleep 0.3
  done
  cat >"$dir/env" <<EOF
export QUORUM_S3_DIR='$dir'
export QUORUM_S3_ENDPOINT='$scheme://$address:$s3_port'
export QUORUM_S3_CA_FILE='$dir/pki/ca.crt'
export QUORUM_S3_ACCESS_KEY_FILE='$dir/credentials/access-key'
export QUORUM_S3_SECRET_KEY_FILE='$dir/credentials/secret-key'
export QUORUM_S3_BUCKET='$bucket'
EOF
  local owner="${QUORUM_OWNER_PID:-$PPID}"
  if [[ "$owner" != none ]]; then
    setsid nohup bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 2; done
      kill -0 "$2" 2>/dev/null && exec "$3" stop "$4"' s3-watchdog "$owner" "$(read_pid weed)" \
      "$here/s3.sh" "$dir/" >/dev/null 2>&1 </dev/null 9>&- &
    echo "$!" >"$dir/pids/watchdog.pid"
  fi
  log "S3 at $scheme://$address:$s3_port (bucket $bucket); env: $dir/env"
}

stop() {
  [[ -d "$dir" ]] || return 0
  dir="$(cd "$dir" && pwd)"
  stop_one watchdog
  stop_one weed
  rm -f "$dir/state"
}

[[ $# -eq 2 ]] || usage
cmd="$1" dir="${2%/}"
case "$cmd" in
  start) start ;;
  stop) stop ;;
  status)
    dir="$(cd "$dir" 2>/dev/null && pwd)" || exit 1
    healthy && echo "$s3_url"
    ;;
  *) usage ;;
esac
