// The act phases on Kubernetes objects: the credential Secrets (created once,
// never rewritten) and the owned objects (Services, RBAC, PDB, ConfigMap,
// StatefulSets; server-side applied only when they differ from the cache).
// Errors are the client's codes (the reconcile retries with backoff).
// Thread-safety: as the clients they are given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBJECTS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBJECTS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// Creates the credential Secrets that are missing (once; never rewritten).
absl::Status EnsureCredentials(const Phase& p, const std::string& ca_pem);

// Applies the owned objects that differ from the cache. Without a usable DCS
// the members' configuration cannot be written, and members already running
// keep theirs. The pods' API rights go when the spec turns them off (or the
// DCS changes what they need): what BuildRbac no longer wants is deleted.
// `hold`: replicas kept for instance StatefulSets whose scale-down must wait
// (membership.h). What it found and did goes to `applied`. An object the API
// server refuses (runtime::IsRefusedWrite) does not stop the others: the first
// such refusal is returned once the rest are applied. A StatefulSet about to
// be created first has its claims listed (one API read per missing one).
struct AppliedObjects {
  controllers::ClaimTemplateOutcome claims;  // the first storage outcome with something to say
  // A StatefulSet was written: its status (and the cache) trail the new
  // template until the StatefulSet controller has seen it.
  bool statefulset_written = false;
  // Claims an earlier cluster of this name left (older than this one): the
  // StatefulSets they belong to are not created, with a LeftoverClaims
  // event, until the user deletes them (their data, roles and passwords
  // are the earlier cluster's, not this one's).
  std::vector<std::string> leftover_claims;
};
absl::Status ApplyOwnedObjects(const Phase& p, const DcsResolution& dcs,
                               const std::map<std::string, int>& hold, AppliedObjects* applied);

// With the kubernetes DCS on ConfigMaps: makes the cluster an owner of the
// ConfigMaps Patroni made (dcs_objects.h: PatroniObjectOwnerPatch), as the
// cache shows them; ApplyOwnedObjects calls it. Errors from the API server
// but NotFound (gone meanwhile).
absl::Status AdoptPatroniObjects(const Phase& p);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBJECTS_H_
