// The PostgresCluster status (API.md): conditions DCSReady, Ready,
// Progressing, Storage (present once a claim template changed: False while
// volumes expand or a change cannot be made, then True) and RepoHostReady
// (with volume repositories: whether the repository host's pod is ready, as
// archiving into them depends on it), PgBouncerReady (with spec.proxy.pgBouncer:
// whether all its pods are ready; status.proxy.pgBouncer counts them), observedGeneration,
// instances[], readyInstances, primary, the Services and user Secrets to
// connect with, and what Patroni reports. Pure: the caller passes what it
// observed and the time for transitions; api::ToJson serialises the result
// for the status subresource.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_STATUS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_STATUS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"

namespace quorum::postgrescluster {

// The volumes against the instance sets' dataVolumeClaimSpec
// (src/controllers/common/claim_templates.h).
struct StorageState {
  std::string reason;  // "" when everything is as asked; else Recreating, Resizing, ...
  std::string message;
};

struct StatusInput {
  const PostgresCluster* cluster = nullptr;  // as parsed, with its previous status
  const DcsResolution* dcs = nullptr;
  std::map<std::string, Json> statefulsets;  // instance set name → StatefulSet (or null)
  Json repo_host;              // the repository host's StatefulSet (volume repositories), or null
  Json pgbouncer;              // the pooler's Deployment (spec.proxy.pgBouncer), or null
  std::string primary;         // pod name of the Patroni leader; "" unknown
  bool primary_ready = false;  // the primary's pod is Ready (in the Service)
  std::string system_identifier;                            // "" keeps the recorded one
  std::optional<api::PostgresSwitchoverStatus> switchover;  // a new record; nullopt keeps the old
  std::string problem;  // blocks Ready (e.g. a failed step); "" none
  // Claims of an earlier cluster holding StatefulSets back (objects.h
  // AppliedObjects): Ready says so before `problem`.
  std::vector<std::string> leftover_claims;
  StorageState storage;
  // A StatefulSet was just written: Progressing whatever the (older) cached
  // StatefulSets say.
  bool statefulset_written = false;
  // status.backups (backup_schedule.h SummarizeBackups); nullopt keeps the old.
  std::optional<std::vector<api::PgBackRestRepoStatus>> backup_repos;
  absl::Time now;
};

api::PostgresClusterStatus BuildStatus(const StatusInput& in);

// The sentence for claims `claims` an earlier cluster of this name left: why
// no member starts on them, and the command that deletes them.
std::string LeftoverClaimsProblem(const std::vector<std::string>& claims);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_STATUS_H_
