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
// they are (docs/operations.md). A PATCH Patroni answers 409 (its DCS copy
// changed meanwhile: compare-and-set) is read and sent again, up to three
// times. Other failures are a warning event and log line and are tried again
// after 10 s, 20 s, 40 s ... (at most 5 min; RetryAfter), never a crash or
// a stuck cluster.
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_

#include <map>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/patroni/rest_client.h"

namespace quorum::postgrescluster {

class DynamicConfigSync {
 public:
  static constexpr absl::Duration kFirstRetry = absl::Seconds(10);

  // Brings the DCS's dynamic configuration in line with the spec, through
  // the primary (nothing while there is none).
  void Sync(const Phase& ctx, const DcsResolution& dcs, const Members& members,
            patroni::RestClient& rest);
  // While the last Sync of cluster `key` ("ns/name") failed: when to try
  // again (kFirstRetry, doubling with each failure in a row, at most 5 min).
  std::optional<absl::Duration> RetryAfter(const std::string& key) const;
  void Forget(const std::string& key);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  // Cluster key → the desired dynamic configuration (JSON text) last found
  // in the DCS.
  std::map<std::string, std::string> confirmed_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> failures_ ABSL_GUARDED_BY(mu_);  // failed Syncs in a row
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SYNC_CONFIG_H_
