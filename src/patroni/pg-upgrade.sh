#!/bin/sh
# The major upgrade Job of a PostgresCluster: `sh -c SCRIPT pg-upgrade OLD NEW
# OLD_DIR NEW_DIR`, run in the image of major NEW, which carries major OLD's
# server programs too (images/postgres: PG_UPGRADE_FROM), as the postgres
# user, with the member's data volume mounted and every member stopped.
#
# Converts OLD_DIR (a cluster of major OLD, shut down) into NEW_DIR with
# pg_upgrade --link: first `pg_upgrade --check`, which changes nothing; a
# failure up to the link step leaves OLD_DIR as it was (an earlier attempt
# cut short after the link step renamed OLD_DIR's pg_control, which is put
# back: the new cluster never ran). Then, with the new cluster started on a
# private socket only: the extension updates pg_upgrade asks for, and
# ANALYZE of every database (pg_upgrade carries no statistics over); then
# OLD_DIR goes (its files are NEW_DIR's, linked) and a marker in NEW_DIR
# makes a second run a no-op. On failure the reason goes to the termination
# message, which the operator puts in status.majorUpgrade.message.
# TMPDIR and TERMINATION_LOG, when set, move the scratch files and the result.
set -u
old=$1
new=$2
old_dir=$3
new_dir=$4
tmp=${TMPDIR:-/tmp}
result=${TERMINATION_LOG:-/dev/termination-log}
old_bin=/usr/lib/postgresql/$old/bin
new_bin=/usr/lib/postgresql/$new/bin
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
upgrade --link || fail_with_log "pg_upgrade failed"
cat "$log"

say "extension updates and statistics"
"$new_bin/pg_ctl" -D "$new_dir" -w -t 600 -l "$tmp/new.log" \
  -o "-c listen_addresses= -c unix_socket_directories=$tmp -c hba_file=$tmp/hba.conf" start ||
  fail "PostgreSQL $new did not start after pg_upgrade: $(tail -n 5 "$tmp/new.log")"
if [ -f update_extensions.sql ]; then
  "$new_bin/psql" -h "$tmp" -d postgres -v ON_ERROR_STOP=1 -f update_extensions.sql ||
    fail "updating the extensions failed"
fi
"$new_bin/vacuumdb" -h "$tmp" --all --analyze-only || fail "ANALYZE after pg_upgrade failed"
"$new_bin/pg_ctl" -D "$new_dir" -w -t 600 -m fast stop || fail "PostgreSQL $new did not stop"

rm -rf "$old_dir"
touch "$marker"
say "done: $new_dir holds PostgreSQL $new"
printf 'upgraded from %s to %s\n' "$old" "$new" >"$result"
