#!/bin/sh
# The backup Job of a PostgresBackup: `sh -c SCRIPT pgbackrest-backup TYPE
# REPO`. pgBackRest's options (file, stanza, the members as pgN-host) come
# from the environment (PGBACKREST_*). Takes one backup of TYPE (full, diff,
# incr) into repository number REPO, then writes what `pgbackrest info` says
# of it, as JSON, to the termination message, which the operator reads into
# the PostgresBackup's status; on failure, pgBackRest's last lines go there.
set -u
type=$1
repo=$2
log=/tmp/pgbackrest-backup.log
result=/dev/termination-log
if ! pgbackrest --log-level-console=info --type="$type" --repo="$repo" backup >"$log" 2>&1; then
  cat "$log"
  tail -c 2000 "$log" >"$result"
  exit 1
fi
cat "$log"
label=$(sed -n 's/.*new backup label = \([0-9A-Za-z_-]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$label" ]; then
  label=$(pgbackrest --repo="$repo" info |
    sed -n 's/^ *\(full\|diff\|incr\) backup: \([0-9A-Za-z_-]*\).*/\2/p' | tail -n 1)
fi
if [ -z "$label" ]; then
  echo "the backup finished but pgbackrest reported no backup label" | tee "$result"
  exit 1
fi
if ! pgbackrest --output=json --repo="$repo" --set="$label" info >"$result"; then
  echo "backup $label taken, but pgbackrest info failed" | tee "$result"
  exit 1
fi
