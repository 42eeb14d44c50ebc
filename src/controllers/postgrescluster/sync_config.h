// Phase "SyncDynamicConfig": Patroni reads bootstrap.dcs (timings,
// postgresql.parameters, pg_hba, dynamicConfiguration) only when it
// initialises the cluster, so an edit of those spec fields reaches a running
// cluster only here: the spec's dynamic configuration (patroni::DynamicConfig)
// is compared with the DCS copy (GET /config on the primary) and the
// difference sent as a merge patch (PATCH /config, with the REST API's
// credentials). Every member applies it within a loop_wait; parameters that
// need a restart are then pending (Patroni's pending_restart).
//
// Cost: one GET when the spec's dynamic configuration changed since it was
// last found in the DCS (and after an operator restart), none otherwise; a
// PATCH only when something differs. Keys the spec does not name are left as
// they are (docs/operations.md). Failures are events and are retried on the
// next reconcile, never a crash or a stuck cluster.
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_

#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/patroni/rest_client.h"

namespace quorum::postgrescluster {

class DynamicConfigSync {
 public:
  // Brings the DCS's dynamic configuration in line with the spec, through
  // the primary (nothing while there is none).
  void Sync(const Phase& ctx, const DcsResolution& dcs, const Members& members,
            patroni::RestClient& rest);
  void Forget(const std::string& key);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  // Cluster key → the desired dynamic configuration (JSON text) last found
  // in the DCS.
  std::map<std::string, std::string> confirmed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_
