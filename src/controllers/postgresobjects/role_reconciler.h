// PostgresRoleReconciler: one PostgresRole to one PostgreSQL role
// (reconciler.h does the reconcile; this is the role's part):
//   conflict  a role also in the cluster's spec.users (admission cannot see
//             the cluster) is refused in status, naming spec.name
//   password  spec.passwordSecret's key, or for a login role without one a
//             password generated once into Secret <cluster>-role-<name>
//             (owned by the PostgresRole; username, password, host, port,
//             dbname (postgres), sslmode, uri, ca.crt like spec.users' Secrets);
//             with disablePassword none (PASSWORD NULL)
//   cert      spec.clientCertificate: Secret <cluster>-role-<name>-cert,
//             kept before the SQL (role_cert.h)
//   drop      REASSIGN OWNED / DROP OWNED in every database, then DROP ROLE;
//             blocked while the role owns a database that a live
//             PostgresDatabase manages (said in status; that database's
//             events wake it)
// Thread-safety: Reconcile may run concurrently for different roles.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_RECONCILER_H_

#include <string>

#include "api/postgresrole_types.h"
#include "src/controllers/postgresobjects/reconciler.h"
#include "src/runtime/manager.h"

namespace quorum::postgresobjects {

// <cluster>-role-<name>, the name lower-cased with '_' as '-'.
std::string RoleSecretName(const std::string& cluster, const std::string& role);
// The metadata of a Secret the PostgresRole `stored` owns (labels, owner).
nlohmann::json RoleSecretMetadata(const nlohmann::json& stored, const std::string& ns,
                                  const std::string& name);

class PostgresRoleReconciler : public SqlObjectReconciler {
 public:
  PostgresRoleReconciler(kube::Client& client, runtime::Cache& cache,
                         runtime::EventRecorder& recorder, Clock& clock = RealClock());

 private:
  absl::StatusOr<ObjectView> Parse(const nlohmann::json& stored) const override;
  std::string Conflict(const nlohmann::json& stored,
                       const api::PostgresCluster& cluster) const override;
  std::string Inputs(const nlohmann::json& stored) const override;
  absl::Status Apply(const nlohmann::json& stored, const api::PostgresCluster& cluster,
                     const ClusterTarget& target, api::PostgresObjectStatus& status) override;
  absl::Status Drop(const nlohmann::json& stored, const ObjectView& view,
                    const ClusterTarget& target) override;
  absl::StatusOr<std::optional<absl::Time>> EnsureCertificate(
      const nlohmann::json& stored, const api::PostgresCluster& cluster, absl::Time now,
      api::PostgresObjectStatus& status) override;
  // The role's password: from its Secret, or generated. FailedPrecondition
  // when the user's Secret lacks the key.
  absl::StatusOr<std::string> Password(const nlohmann::json& stored, const api::PostgresRole& role,
                                       const api::PostgresCluster& cluster,
                                       const ClusterTarget& target, std::string& secret_name);
};

// Registers the informers (with kClusterIndex), the controller and its
// watches: the roles, their Secrets (owner), their clusters and the
// clusters' PostgresDatabases (by the index).
runtime::Controller& SetupPostgresRoleController(runtime::Manager& manager,
                                                 PostgresRoleReconciler& reconciler, int workers);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_RECONCILER_H_
