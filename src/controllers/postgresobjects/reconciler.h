// SqlObjectReconciler: the reconcile PostgresRole and PostgresDatabase share.
// Each reconcile, in order:
//   parse    the kind's Parse (admission's rules; a bad object says so in
//            status, once, and waits for an edit)
//   observe  its PostgresCluster (same namespace) and the cluster's primary
//            (target.h), from the cache
//   finalize deleting with reclaimPolicy delete: drop the SQL object, then
//            the finalizer; retain, or a cluster that is gone or being
//            deleted: the finalizer goes at once (a namespace deletion never
//            hangs on it)
//   cert     the kind's EnsureCertificate (a role's client certificate),
//            every reconcile; requeued at its renewal time
//   apply    the kind's Apply (sql_plan.h through apply.h), only when the
//            generation, the target or the kind's inputs changed since the
//            last success (kept in memory: after a restart it applies once)
//   status   observedGeneration, applied, message and the Ready condition,
//            server-side applied only when they changed: a no-op reconcile
//            makes no API write; Normal/Warning events when they change
// Waiting: a cluster without a ready primary requeues with the queue's
// capped backoff, and the cluster's watch wakes the object when it changes;
// a failed statement requeues with backoff; a drop that something blocks
// (a role owning a managed database) waits for an event.
// Thread-safety: Reconcile may run concurrently for different objects.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_RECONCILER_H_

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/etcdcluster_types.h"
#include "api/postgres_objects.h"
#include "api/postgrescluster_types.h"
#include "src/base/clock.h"
#include "src/controllers/postgresobjects/target.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/reconciler.h"

namespace quorum::postgresobjects {

// Index on both kinds' informers: "<ns>/<cluster>".
inline constexpr char kClusterIndex[] = "postgresobjects-cluster";

// What the reconcile needs of one parsed object.
struct ObjectView {
  api::ObjectMeta metadata;
  std::string cluster;
  std::string sql_name;
  bool drop_on_delete = false;
  api::PostgresObjectStatus status;
};

class SqlObjectReconciler : public runtime::Reconciler {
 public:
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) final;

 protected:
  SqlObjectReconciler(kube::Client& client, runtime::Cache& cache, runtime::EventRecorder& recorder,
                      Clock& clock, kube::GroupVersionResource gvr, std::string kind);
  kube::Client& client() { return client_; }
  const runtime::Cache& cache() const { return cache_; }
  runtime::EventRecorder& recorder() { return recorder_; }

  // InvalidArgument naming the fields admission would have refused.
  virtual absl::StatusOr<ObjectView> Parse(const nlohmann::json& stored) const = 0;
  // Why the object cannot be applied to `cluster` ("" when it can), with
  // the field it is about; the object waits for an edit.
  virtual std::string Conflict(const nlohmann::json& stored,
                               const api::PostgresCluster& cluster) const = 0;
  // What else the apply reads that may change without a new generation
  // (e.g. a password Secret's resourceVersion): part of the memo key.
  virtual std::string Inputs(const nlohmann::json& stored) const = 0;
  // Creates or alters the SQL object; sets status fields of its own (the
  // role's secretName). Errors: as apply.h; FailedPrecondition for input
  // the user must fix (a Secret without the key).
  virtual absl::Status Apply(const nlohmann::json& stored, const api::PostgresCluster& cluster,
                             const ClusterTarget& target, api::PostgresObjectStatus& status) = 0;
  // A certificate of the object's own (the role's spec.clientCertificate),
  // kept on every reconcile before the SQL, whatever the memo says; sets
  // status fields of its own. Returns when to look again (nullopt: at the
  // next change). Errors: FailedPrecondition for what the user must fix
  // (said in status; waits for an edit), Unavailable for what comes by
  // itself (retried), else the API server's.
  virtual absl::StatusOr<std::optional<absl::Time>> EnsureCertificate(
      const nlohmann::json& stored, const api::PostgresCluster& cluster, absl::Time now,
      api::PostgresObjectStatus& status) {
    return std::nullopt;
  }
  // Drops it. FailedPrecondition: blocked until something else changes.
  virtual absl::Status Drop(const nlohmann::json& stored, const ObjectView& view,
                            const ClusterTarget& target) = 0;
  // The object "<ns>/<name>" is gone: what the kind keeps in memory for it goes.
  virtual void Forget(const std::string& key) {}

 private:
  absl::StatusOr<runtime::Result> Finalize(const nlohmann::json& stored, const ObjectView& view,
                                           const std::optional<api::PostgresCluster>& cluster,
                                           bool cluster_gone);
  // EnsureCertificate into `status`: what to return now when it cannot be
  // issued (said in status), else nullopt with `done` requeued at its renewal.
  std::optional<absl::StatusOr<runtime::Result>> KeepCertificate(
      const nlohmann::json& stored, const ObjectView& view, const api::PostgresCluster& cluster,
      api::PostgresObjectStatus& status, runtime::Result& done);
  absl::StatusOr<runtime::Result> RefuseInvalid(const runtime::Request& req,
                                                const nlohmann::json& stored,
                                                const absl::Status& why);
  // Status not applied, with `reason` and `message`; then `then`.
  absl::StatusOr<runtime::Result> Wait(const nlohmann::json& stored, const ObjectView& view,
                                       const std::string& reason, const std::string& message,
                                       runtime::Result then);
  absl::Status SetFinalizer(const nlohmann::json& stored, bool present);
  // Writes `status` (with Ready from `ok`, `reason`, `message`) if it differs
  // from the stored one; events when applied or the message changes.
  absl::Status WriteStatus(const nlohmann::json& stored, const ObjectView& view,
                           api::PostgresObjectStatus status, bool ok, const std::string& reason,
                           const std::string& message);
  std::string MemoKey(const ObjectView& view) const;

  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  Clock& clock_;
  const kube::GroupVersionResource gvr_;
  const std::string kind_;
  mutable absl::Mutex mu_;
  // "<ns>/<name>" -> the key of the last successful apply.
  std::map<std::string, std::string> applied_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_RECONCILER_H_
