#include "api/postgrescluster_defaults.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;
using runtime::Result;

// A deleting cluster: the finalizer's cleanup (finalizer.h), then forget it.
absl::StatusOr<Result> PostgresClusterReconciler::ReconcileDeletion(const runtime::Request& req,
                                                                    const Json& stored,
                                                                    absl::Time now) {
  // Decoded leniently: a spec the current rules refuse must still go.
  Json defaulted = stored;
  api::DefaultPostgresCluster(defaulted);
  absl::StatusOr<PostgresCluster> going = api::DecodePostgresCluster(defaulted);
  if (!going.ok()) {
    recorder_.Warning(stored, "InvalidSpec", std::string(going.status().message()));
    return runtime::TerminalError(going.status());
  }
  absl::StatusOr<absl::Duration> wait =
      ReconcileFinalizer(client_, cache_, recorder_, stored, *going, now,
                         [&] { return backoff_.Next(req.Key(), "removing the DCS keys"); });
  if (!wait.ok()) return wait.status();
  if (*wait > absl::ZeroDuration()) return Result{.requeue_after = *wait};
  Forget(req);
  return Result{};
}

}  // namespace quorum::postgrescluster
