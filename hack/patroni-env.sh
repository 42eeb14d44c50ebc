#!/usr/bin/env bash
# Where Patroni and PostgreSQL live on this machine, for tests, benchmarks and the
# node runtime. hack/deps.sh installs both (Patroni into the venv printed here).
#
#   patroni-env.sh            prints shell assignments: PATRONI_VERSION, PATRONI_VENV,
#                             PATRONI_BIN_DIR (patroni, patronictl), PG_BIN_DIR
#                             (postgres, initdb, pg_ctl, pg_rewind...)
#   patroni-env.sh version    prints the pinned Patroni version
#   patroni-env.sh venv       prints the venv directory
#   patroni-env.sh bin        prints the venv's bin directory
#   patroni-env.sh pg-bin     prints PostgreSQL's bin directory (empty + exit 1 if none)
#   patroni-env.sh check      exit 0 when both are installed, else says what is missing
#
# The venv is $HOME/.cache/quorum/patroni-<version>, or /var/cache/quorum/patroni-<version>
# for root (see below). QUORUM_PATRONI_VENV and QUORUM_PG_BIN_DIR override the locations.
# Never reads stdin.
set -euo pipefail

version="4.1.5"
# PostgreSQL refuses to run as root, so as root Patroni runs as the postgres
# user, who cannot enter root's private home: root's venv lives under
# /var/cache instead (world-readable).
if [[ -n "${QUORUM_PATRONI_VENV:-}" ]]; then
  venv="$QUORUM_PATRONI_VENV"
elif ((EUID == 0)); then
  venv="/var/cache/quorum/patroni-$version"
else
  venv="${HOME:?}/.cache/quorum/patroni-$version"
fi

pg_bin() {
  if [[ -n "${QUORUM_PG_BIN_DIR:-}" ]]; then
    echo "$QUORUM_PG_BIN_DIR"
    return
  fi
  # Debian installs each major under /usr/lib/postgresql/<major>/bin; take the newest.
  local d found=""
  for d in /usr/lib/postgresql/*/bin; do
    [[ -x "$d/postgres" ]] && found="$(printf '%s\n%s\n' "$found" "$d" | sort -V | tail -1)"
  done
  [[ -n "$found" ]] || return 1
  echo "$found"
}

case "${1:-}" in
  version) echo "$version" ;;
  venv) echo "$venv" ;;
  bin) echo "$venv/bin" ;;
  pg-bin) pg_bin ;;
  check)
    ok=0
    [[ -f "$venv/.installed" && -x "$venv/bin/patroni" ]] ||
      { echo "Patroni $version is not installed in $venv (run hack/deps.sh)" >&2; ok=1; }
    pg_bin >/dev/null || { echo "PostgreSQL is not installed (run hack/deps.sh)" >&2; ok=1; }
    exit "$ok"
    ;;
  "")
    echo "PATRONI_VERSION=$version"
    echo "PATRONI_VENV=$venv"
    echo "PATRONI_BIN_DIR=$venv/bin"
    echo "PG_BIN_DIR=$(pg_bin || true)"
    ;;
  *) echo "usage: $0 [version|venv|bin|pg-bin|check]" >&2; exit 2 ;;
esac
