// The "status view" of `kubectl quorum status`: everything the one screen
// shows about an EtcdCluster or a PostgresCluster, built purely from the
// typed resource (its stored status), its member pods and the backup
// objects that name it. The renderers (render_text.h, render_json.h) only
// format a view; nothing here reads the API, a clock or a pod's processes.
//
// Only what the API holds is shown: a fact the status does not carry yet
// (etcd's database size, certificate expiry, replication lag) is absent
// from the view rather than guessed.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_SRC_KUBECTL_STATUS_VIEW_H_
#define QUORUM_SRC_KUBECTL_STATUS_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/kubectl/pod_info.h"

namespace quorum::kubectl {

// The overall verdict, which is also the program's exit code.
enum class Health {
  kHealthy = 0,   // condition Ready is True and nothing is being deleted
  kDegraded = 1,  // anything else: not ready yet, degraded, deleting
};

struct ConditionRow {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339
  bool operator==(const ConditionRow&) const = default;
};

// One backup object (EtcdBackup or PostgresBackup) naming the cluster.
struct BackupRow {
  std::string name;
  std::string phase;   // Pending | Started | Complete | Failed
  std::string type;    // PostgresBackup: full | diff | incr; "" for etcd
  std::string time;    // when it finished (Complete), else when it was created; RFC 3339
  std::string detail;  // where it went: a snapshot URI, a pgBackRest label; "" unknown
  int64_t size = 0;    // bytes; 0 unknown
  bool operator==(const BackupRow&) const = default;
};

struct BackupsView {
  // Why the backup objects could not be listed, "forbidden: etcdbackups.etcd.aenix.io"
  // when the API refused the list (RBAC); "" when they were read. When set,
  // the rest of this struct is empty: the backups are unknown, not absent.
  std::string unreadable;
  int32_t count = 0;                       // backup objects naming the cluster
  std::optional<BackupRow> last;           // the newest, whatever its phase
  std::optional<BackupRow> last_complete;  // the newest Complete one
  bool operator==(const BackupsView&) const = default;
};

struct EtcdMemberRow {
  std::string name;
  std::string id;
  std::string role;  // leader | follower | learner
  std::string version;
  bool healthy = false;
  std::string pod;  // the pod's phase and readiness, "Running, ready"; "missing" without a pod
  bool operator==(const EtcdMemberRow&) const = default;
};

struct EtcdSecurityView {
  bool peer_tls = false;
  bool server_tls = false;
  bool client_cert_auth = false;
  bool managed_certificates = false;  // Quorum issues and renews them
  bool auth = false;                  // etcd's own users and roles
  bool operator==(const EtcdSecurityView&) const = default;
};

struct EtcdStatusView {
  std::string ns, name;
  std::string phase;  // PhaseOf
  Health health = Health::kDegraded;
  int32_t desired_replicas = 0;
  int32_t ready_replicas = 0;
  std::string leader;
  std::string client_endpoint;
  std::string lowest_version;
  std::vector<EtcdMemberRow> members;
  std::vector<std::string> alarms;  // e.g. NOSPACE (condition SpaceAlarm True)
  EtcdSecurityView security;
  BackupsView backups;
  std::vector<ConditionRow> conditions;
};

struct PostgresInstanceSetRow {
  std::string name;
  int32_t desired = 0;
  int32_t ready = 0;
  int32_t updated = 0;
  bool operator==(const PostgresInstanceSetRow&) const = default;
};

struct PostgresMemberRow {
  std::string pod;
  std::string instance_set;
  std::string role;  // primary | replica | "" (no role label: stopped, starting)
  bool ready = false;
  std::string phase;  // the pod's phase
  int32_t restarts = 0;
  bool operator==(const PostgresMemberRow&) const = default;
};

struct PostgresRepoRow {
  std::string name;                                            // repo1..repo4
  std::string last_full, last_differential, last_incremental;  // pgBackRest labels; "" none
  std::string recoverable_from, recoverable_to;                // RFC 3339; "" unknown
  std::string wal_archived_up_to;
  bool operator==(const PostgresRepoRow&) const = default;
};

struct PostgresStatusView {
  std::string ns, name;
  std::string phase;  // PhaseOf
  Health health = Health::kDegraded;
  int32_t postgres_version = 0;
  std::string primary;
  std::string primary_service, replica_service;
  std::string dcs;  // "kubernetes", "etcd (EtcdCluster NAME)", "etcd (URL, ...)"
  std::vector<PostgresInstanceSetRow> instance_sets;
  std::vector<PostgresMemberRow> members;
  std::vector<PostgresRepoRow> repos;
  BackupsView backups;
  std::string last_switchover;  // "Switchover a -> b: Succeeded at T"; "" none
  std::string restore;          // "Restoring since T"; "" none
  std::string major_upgrade;    // "15 → 17 Upgrading started T: ..."; "" none
  std::vector<ConditionRow> conditions;
};

// Builds the views. `pods` are the cluster's member pods (any order);
// `backups` any backup objects of the namespace: those naming another
// cluster are ignored. A non-empty `backups_unreadable` says why the backup
// objects could not be listed ("forbidden: RESOURCE"): the view's backups
// then carry only that reason, everything else is built as usual.
EtcdStatusView BuildEtcdStatusView(const api::EtcdCluster& cluster,
                                   const std::vector<PodInfo>& pods,
                                   const std::vector<api::EtcdBackup>& backups,
                                   const std::string& backups_unreadable = "");
PostgresStatusView BuildPostgresStatusView(const api::PostgresCluster& cluster,
                                           const std::vector<PodInfo>& pods,
                                           const std::vector<api::PostgresBackup>& backups,
                                           const std::string& backups_unreadable = "");

// Shared by both builders: the rows of `conditions` in their stored order,
// and the phase and health they (and a pending deletion) imply. The phase
// is Deleting, else Ready when condition Ready is True, Pending when there
// is no Ready condition yet, NotReady otherwise.
std::vector<ConditionRow> ConditionRows(const std::vector<api::Condition>& conditions);
std::string PhaseOf(const std::vector<api::Condition>& conditions, bool deleting);
Health HealthOf(const std::vector<api::Condition>& conditions, bool deleting);
// The count, the newest and the newest Complete of `rows` (by `time`;
// a time that does not parse as RFC 3339 sorts oldest).
BackupsView SummarizeBackups(const std::vector<BackupRow>& rows);
// SummarizeBackups, or only `unreadable` when that is not empty.
BackupsView SummarizeBackups(const std::vector<BackupRow>& rows, const std::string& unreadable);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_STATUS_VIEW_H_
