#!/bin/sh
# The major upgrade Job of a PostgresCluster: `sh -c SCRIPT pg-upgrade OLD NEW
# OLD_DIR NEW_DIR`, run in the image of major NEW, which carries major OLD's
# server programs too (images/postgres: PG_UPGRADE_FROM), as the postgres
# user, with the member's data volume mounted and every member stopped.
#
# Converts OLD_DIR (a cluster of major OLD, shut down) into NEW_DIR with
# pg_upgrade --link: first `pg_upgrade --check`, which changes nothing. Any
# failure up to the end of pg_upgrade leaves OLD_DIR as it was and exits 1
# (pg_upgrade renames OLD_DIR's pg_control when it starts linking: it is put
# back, the new cluster never having run; an attempt cut short there is
# mended the same way by the next run). Once pg_upgrade succeeded, a marker
# in NEW_DIR makes a second run a no-op and OLD_DIR goes (its files are
# NEW_DIR's, linked); then, with the new cluster started on a private socket
# only, the extension updates pg_upgrade asks for and ANALYZE of every
# database (pg_upgrade carries no statistics over) — failures there are
# warnings in the result, never a failed upgrade. The reason of a failure, or
# the warnings, go to the termination message, which the operator puts in
# status.majorUpgrade.message.
# TMPDIR, TERMINATION_LOG and PG_LIB_DIR (/usr/lib/postgresql), when set, move
# the scratch files, the result and the programs.
set -u
old=$1
new=$2
old_dir=$3
new_dir=$4
tmp=${TMPDIR:-/tmp}
result=${TERMINATION_LOG:-/dev/termination-log}
lib=${PG_LIB_DIR:-/usr/lib/postgresql}
old_bin=$lib/$old/bin
new_bin=$lib/$new/bin
marker=$new_dir/.quorum-upgraded-from-$old
log=$tmp/pg-upgrade.log
say() { echo "pg-upgrade: $*"; }
fail() {
  say "FAILED: $*"
  printf '%s\n' "$*" | tail -c 2000 >"$result"
  exit 1
}
# The last lines pg_upgrade wrote (its own report names the failing check).
fail_with_log() {
  cat "$log"
  reason=$(grep -v '^ *$' "$log" | tail -n 12)
  fail "$1: $reason"
}

if [ -f "$marker" ]; then
  say "$new_dir was upgraded from $old already"
  exit 0
fi
[ -x "$old_bin/postgres" ] ||
  fail "this image has no PostgreSQL $old server ($old_bin): upgrading from $old needs an image of $new that also carries $old's programs (the default image's list: docs/images.md)"
[ -x "$new_bin/pg_upgrade" ] || fail "this image has no pg_upgrade of PostgreSQL $new ($new_bin)"
[ -f "$old_dir/PG_VERSION" ] || fail "no PostgreSQL data in $old_dir"
[ "$(cat "$old_dir/PG_VERSION")" = "$old" ] ||
  fail "$old_dir holds PostgreSQL $(cat "$old_dir/PG_VERSION"), not $old"
if [ ! -f "$old_dir/global/pg_control" ] && [ -f "$old_dir/global/pg_control.old" ]; then
  say "an earlier attempt stopped after linking; the new cluster never ran: restoring $old_dir's pg_control"
  mv "$old_dir/global/pg_control.old" "$old_dir/global/pg_control" || fail "cannot restore pg_control"
fi
rm -rf "$new_dir"

# Only this socket, only this user: the members' own pg_hba.conf may ask for
# passwords, and their TLS files and archive script are not mounted here.
printf 'local all all trust\n' >"$tmp/hba.conf"
opts="-c ssl=off -c archive_mode=off -c hba_file=$tmp/hba.conf"
state=$("$old_bin/pg_controldata" -D "$old_dir" | sed -n 's/^Database cluster state: *//p')
if [ "$state" != "shut down" ]; then
  # pg_upgrade wants a clean shutdown: recover, then stop cleanly.
  say "the old cluster is '$state': running its recovery first"
  "$old_bin/pg_ctl" -D "$old_dir" -w -t 600 -l "$log" \
    -o "$opts -c listen_addresses= -c unix_socket_directories=$tmp" start ||
    fail_with_log "PostgreSQL $old did not start to recover"
  "$old_bin/pg_ctl" -D "$old_dir" -w -t 600 -m fast stop || fail "PostgreSQL $old did not stop"
fi

checksums=$("$old_bin/pg_controldata" -D "$old_dir" | sed -n 's/^Data page checksum version: *//p')
if [ "${checksums:-0}" = 0 ]; then sums=--no-data-checksums; else sums=--data-checksums; fi
[ "$sums" = --no-data-checksums ] && [ "$new" -lt 18 ] && sums=
# The options Patroni's bootstrap used (src/patroni/config.cc); the locale
# is the image's (LANG).
"$new_bin/initdb" -D "$new_dir" --encoding=UTF8 $sums >"$log" 2>&1 ||
  fail_with_log "initdb of PostgreSQL $new failed"

mkdir -p "$tmp/work" && cd "$tmp/work" || fail "no scratch directory"
upgrade() {
  "$new_bin/pg_upgrade" -b "$old_bin" -B "$new_bin" -d "$old_dir" -D "$new_dir" -s "$tmp" \
    -o "$opts" -O "-c hba_file=$tmp/hba.conf" "$@" >"$log" 2>&1
}
say "pg_upgrade --check ($old -> $new)"
upgrade --check || {
  rm -rf "$new_dir"
  fail_with_log "pg_upgrade --check refused; PostgreSQL $old's data is unchanged"
}
cat "$log"
say "pg_upgrade --link ($old -> $new)"
if ! upgrade --link; then
  # The new cluster never ran: the old one is whole once its pg_control is
  # back (pg_upgrade renames it when it starts linking).
  if [ ! -f "$old_dir/global/pg_control" ] && [ -f "$old_dir/global/pg_control.old" ]; then
    mv "$old_dir/global/pg_control.old" "$old_dir/global/pg_control"
  fi
  rm -rf "$new_dir"
  fail_with_log "pg_upgrade failed; PostgreSQL $old's data is as it was"
fi
cat "$log"
# The point of no return: from the new cluster's first start on, the old
# one's files (linked) are the new one's. What follows only warns.
touch "$marker"
rm -rf "$old_dir"

say "extension updates and statistics"
warnings=""
if "$new_bin/pg_ctl" -D "$new_dir" -w -t 600 -l "$tmp/new.log" \
  -o "-c listen_addresses= -c unix_socket_directories=$tmp -c hba_file=$tmp/hba.conf" start; then
  if [ -f update_extensions.sql ] &&
    ! "$new_bin/psql" -h "$tmp" -d postgres -v ON_ERROR_STOP=1 -f update_extensions.sql; then
    warnings="$warnings; updating the extensions failed (run update_extensions.sql's ALTER EXTENSION ... UPDATE by hand)"
  fi
  "$new_bin/vacuumdb" -h "$tmp" --all --analyze-only ||
    warnings="$warnings; ANALYZE failed (run vacuumdb --all --analyze-only)"
  "$new_bin/pg_ctl" -D "$new_dir" -w -t 600 -m fast stop ||
    warnings="$warnings; PostgreSQL $new did not stop cleanly"
else
  warnings="$warnings; PostgreSQL $new did not start for ANALYZE: $(tail -n 3 "$tmp/new.log")"
fi
say "done: $new_dir holds PostgreSQL $new$warnings"
printf 'upgraded from %s to %s%s\n' "$old" "$new" "$warnings" | tail -c 2000 >"$result"
