#!/bin/sh
# The backup Job of a PostgresBackup: `sh -c SCRIPT pgbackrest-backup TYPE
# REPO`. pgBackRest's options (file, stanza, the members as pgN-host) come
# from the environment (PGBACKREST_*). Takes one backup of TYPE (full, diff,
# incr) into repository number REPO (creating the stanza when it is missing),
# then writes what `pgbackrest info` says of it, as JSON, to the termination
# message, which the operator reads into the PostgresBackup's status; on
# failure, pgBackRest's errors go there.
set -u
type=$1
repo=$2
log=/tmp/pgbackrest-backup.log
result=/dev/termination-log
backup() { pgbackrest --log-level-console=info --type="$type" --repo="$repo" backup >>"$log" 2>&1; }
: >"$log"
ok=0
backup && ok=1
# [055]: no stanza yet. Archiving creates it with the first WAL segment it
# pushes, which a new cluster may not have done yet.
if [ "$ok" = 0 ] && grep -q 'ERROR: \[055\]' "$log"; then
  pgbackrest --log-level-console=info stanza-create >>"$log" 2>&1 && backup && ok=1
fi
if [ "$ok" = 0 ]; then
  cat "$log"
  # pgBackRest's errors with their detail lines (the last ones count), else its last words.
  sed -n '/ERROR: /,/^[0-9]\{4\}-/p' "$log" | grep -v '^[0-9]\{4\}-' >/tmp/errors || true
  if [ -s /tmp/errors ]; then tail -c 2000 /tmp/errors; else tail -c 2000 "$log"; fi >"$result"
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
