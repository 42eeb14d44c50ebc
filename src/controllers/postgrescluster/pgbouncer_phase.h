// The steps of a PostgresCluster reconcile for spec.proxy.pgBouncer
// (pgbouncer.h builds the objects, pgbouncer_sql.h the role): internal to the
// controller; the reconciler calls each from the phase it belongs to.
//
// Errors: the API server's (the reconcile retries with backoff), OpenSSL's
// when a certificate cannot be issued (FailedPrecondition).
// Thread-safety: as the clients they are given; PgBouncerRoleKeeper is
// thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_PHASE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_PHASE_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "src/controllers/postgrescluster/ensure_tls.h"
#include "src/controllers/postgrescluster/pgbouncer_console.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/kube/resource.h"
#include "src/runtime/store.h"

namespace quorum::postgrescluster {

// The pooler's Deployment (the only Deployment Quorum owns: named here
// rather than in src/kube/resources.h).
inline const kube::GroupVersionResource kDeployments{"apps", "v1", "deployments"};

// With the pooler on (step 2, after EnsureTls): <cluster>-pgbouncer-auth
// created once; <cluster>-pgbouncer-tls issued from tls.ca and renewed like
// the members' certificate (`memo`; tls.renew_at moves earlier when it is due
// first); tls.pgbouncer_tls_digest set. On or off: the spec.users connection
// Secrets get (or lose) their pgbouncer-* keys, each written only when it
// changes.
absl::Status EnsurePgBouncerSecrets(const Phase& p, ServerCertMemo& memo, TlsState& tls);

// Step 3: the pooler's ConfigMap, Deployment, Service and NetworkPolicy, to
// apply with the cluster's other objects (none with the pooler off).
void AppendPgBouncerObjects(const Phase& p,
                            std::vector<std::pair<kube::GroupVersionResource, Json>>& desired);
// Step 3: deletes what the spec no longer asks for: all four objects when
// the pooler is removed, the NetworkPolicy when spec.networkPolicy is off.
// Its Secrets stay (credentials are never deleted; a pooler added again
// reuses them). An event says when the pooler went.
absl::Status DeleteUnwantedPgBouncerObjects(const Phase& p);

// Step 5: quorum_pooler and its lookup function inside PostgreSQL
// (pgbouncer_sql.h), through the primary, once per primary, password and
// cluster (remembered: unchanged, no SQL). Returns a problem sentence or "";
// a failure is a Warning event.
class PgBouncerRoleKeeper {
 public:
  std::string Ensure(const Phase& p, const std::string& primary,
                     const std::vector<runtime::ObjectPtr>& pods, const std::string& ca_pem);
  void Forget(const std::string& cluster_key);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> applied_ ABSL_GUARDED_BY(mu_);  // namespace/name -> key
};

// The pooler's console over its ready pods (listed from the API server: the
// cache holds no pooler pods), as kPoolerAdminName with the password of
// <cluster>-pgbouncer-auth and `ca_pem`; nullptr without a pooler, a ready
// pod or the admin password (an auth Secret not yet given one). Errors: the
// API server's.
absl::StatusOr<std::unique_ptr<PgBouncerConsole>> PgBouncerConsoleOf(const Phase& p,
                                                                     const std::string& ca_pem);

// A pooler left paused is resumed: once per cluster after the operator
// starts (a switchover that stopped between PAUSE and RESUME), and again
// after a switchover could not resume every pod (MarkUnsure). Thread-safe.
class PgBouncerPauseKeeper {
 public:
  // RESUME on every ready pooler pod unless done already for this cluster;
  // done once every pod answered (at once without a ready pod: a paused
  // PgBouncer still accepts connections, so stays ready). A pod found paused is a Normal event
  // PgBouncerResumed; one that cannot be reached is tried again at the next
  // reconcile.
  void ResumeLeftovers(const Phase& p, const std::string& ca_pem);
  void MarkUnsure(const std::string& cluster_key);
  void Forget(const std::string& cluster_key);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  std::set<std::string> sure_ ABSL_GUARDED_BY(mu_);  // namespace/name: nothing left paused
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_PHASE_H_
