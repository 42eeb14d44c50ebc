#!/bin/sh
# PostgreSQL's archive_command when a PostgresCluster has backups
# (spec.backups.pgbackrest): `pgbackrest-archive.sh WAL_PATH OPTION...`, the
# options being those every pgBackRest command of the pod takes (--config,
# --config-include-path, --stanza). Pushes one WAL segment to every
# repository. When that fails it runs stanza-create once and pushes again: a
# new cluster, or a repository added later, has no stanza until then.
# stanza-create does nothing when the stanza exists, and refuses (so the push
# keeps failing and PostgreSQL keeps the WAL) when the repository holds
# another database's stanza.
#
# Exits 0 only when the segment is in every repository; PostgreSQL retries
# otherwise and keeps the segment meanwhile. pgBackRest's messages go to
# stderr, which PostgreSQL's log keeps.
set -u
wal="$1"
shift
pgbackrest "$@" archive-push "$wal" && exit 0
pgbackrest "$@" stanza-create >&2 || exit 1
pgbackrest "$@" archive-push "$wal"
