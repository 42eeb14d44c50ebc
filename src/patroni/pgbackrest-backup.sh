#!/bin/sh
# The backup Job of a PostgresBackup: `sh -c SCRIPT pgbackrest-backup TYPE
# REPO`. pgBackRest's options (file, stanza, the members as pgN-host) come
# from the environment (PGBACKREST_*). Takes one backup of TYPE (full, diff,
# incr) into repository number REPO (creating the stanza when it is missing),
# then writes what `pgbackrest info` says of it and of the repository, as
# JSON ({"info": INFO_OF_THE_SET, "repository": {walMin, walMax, oldestStop}}),
# to the termination message, which the operator reads into the
# PostgresBackup's status; on failure, pgBackRest's errors go there.
# TMPDIR and TERMINATION_LOG, when set, move the scratch files and the result.
set -u
type=$1
repo=$2
tmp=${TMPDIR:-/tmp}
log=$tmp/pgbackrest-backup.log
result=${TERMINATION_LOG:-/dev/termination-log}
backup() { pgbackrest --log-level-console=info --type="$type" --repo="$repo" backup >>"$log" 2>&1; }
: >"$log"
ok=0
backup && ok=1
# [055]: no stanza yet. Archiving creates it with the first WAL segment it
# pushes, which a new cluster may not have done yet.
if [ "$ok" = 0 ] && grep -q 'ERROR: \[055\]' "$log"; then
  pgbackrest --log-level-console=info stanza-create >>"$log" 2>&1 && backup && ok=1
fi
# [058] "WAL timeline N does not match pg_control timeline N-1": the primary
# was promoted moments ago and pgBackRest read its pg_control before the first
# checkpoint on the new timeline. The refused attempt's own backup start forced
# that checkpoint, so one more attempt reads a current pg_control.
if [ "$ok" = 0 ] && grep -q 'ERROR: \[058\]: WAL timeline' "$log"; then
  echo "pgbackrest-backup: the primary's pg_control predates its promotion; trying once more" >>"$log"
  sleep 5
  backup && ok=1
fi
if [ "$ok" = 0 ]; then
  cat "$log"
  # pgBackRest's errors with their detail lines (the last ones count), else its last words.
  sed -n '/ERROR: /,/^[0-9]\{4\}-/p' "$log" | grep -v '^[0-9]\{4\}-' >"$tmp/errors" || true
  if [ -s "$tmp/errors" ]; then tail -c 2000 "$tmp/errors"; else tail -c 2000 "$log"; fi >"$result"
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
if ! pgbackrest --output=json --repo="$repo" --set="$label" info >"$tmp/set.json"; then
  echo "backup $label taken, but pgbackrest info failed" | tee "$result"
  exit 1
fi
# What the repository holds now: its archived WAL (the lowest and highest
# segment) and its oldest backup's end (unix seconds), the earliest point a
# restore reaches. pgBackRest lists backups oldest first; "min" and "max"
# appear only in its archive entries.
pgbackrest --output=json --repo="$repo" info >"$tmp/repo.json" 2>/dev/null || : >"$tmp/repo.json"
wal_min=$(grep -o '"min":"[0-9A-F]*"' "$tmp/repo.json" | cut -d'"' -f4 | sort | head -n 1)
wal_max=$(grep -o '"max":"[0-9A-F]*"' "$tmp/repo.json" | cut -d'"' -f4 | sort | tail -n 1)
oldest=$(grep -o '"timestamp":{"start":[0-9]*,"stop":[0-9]*}' "$tmp/repo.json" | head -n 1 |
  sed 's/.*"stop":\([0-9]*\)}/\1/')
printf '{"info":%s,"repository":{"walMin":"%s","walMax":"%s","oldestStop":%s}}' \
  "$(cat "$tmp/set.json")" "$wal_min" "$wal_max" "${oldest:-0}" >"$result"
