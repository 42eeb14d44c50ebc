// The Job of a PostgresBackup (pure): one pod running pgBackRest's `backup`
// in the cluster's image, against every member's pgBackRest TLS server (the
// `pgbackrest` container, src/patroni/pgbackrest.h). pgBackRest finds the
// primary among them itself, and with `standby` copies the files from a
// replica (backup-standby), so the primary only runs pg_backup_start/stop.
//
// What the pod holds: the cluster's pgBackRest file (its ConfigMap key, no
// secrets), the user's configuration Secrets in conf.d (the store's keys),
// the members' CA and the Job client certificate; the hosts as environment
// variables (PGBACKREST_PGn_*). No API token. Its result is
// `pgbackrest info --output=json --set=<label>` of the new backup, written
// to the termination message (info.h reads it); on failure, pgBackRest's
// last lines.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_JOB_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_JOB_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"

namespace quorum::postgresbackup {

using Json = nlohmann::json;

// How long one backup may run before the Job is failed.
inline constexpr int kJobDeadlineSeconds = 6 * 3600;

// "<backup>-backup", shortened with a hash to fit 63 characters.
std::string JobName(const api::PostgresBackup& backup);

// Every member's pod name, in instance-set order.
std::vector<std::string> MemberPods(const api::PostgresCluster& cluster);

// The whole Job: pgBackRest's pg1.. are the member pods `hosts` (names).
// `from_standby`: copy the files from a replica (the caller saw one ready).
Json BuildBackupJob(const api::PostgresBackup& backup, const api::PostgresCluster& cluster,
                    const std::vector<std::string>& hosts, bool from_standby);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_JOB_H_
