#include "src/controllers/postgresobjects/role_reconciler.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgresdatabase_types.h"
#include "src/base/json_access.h"
#include "src/controllers/common/resources.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgresobjects/apply.h"
#include "src/controllers/postgresobjects/role_cert.h"
#include "src/controllers/postgresobjects/watches.h"
#include "src/kube/resources.h"
#include "src/runtime/handler.h"
#include "src/runtime/random.h"

namespace quorum::postgresobjects {
namespace {

using Json = nlohmann::json;
using json_access::At;
using json_access::Str;

// The generated Secret: spec.users' shape, owned by the PostgresRole.
Json BuildRoleSecret(const Json& stored, const api::PostgresCluster& cluster,
                     const std::string& name, const std::string& role, const std::string& password,
                     const std::string& ca_pem) {
  Json secret =
      postgrescluster::BuildCredentialSecret(cluster, name, role, password, "postgres", ca_pem);
  secret["metadata"] = RoleSecretMetadata(stored, cluster.metadata.ns, name);
  return secret;
}

std::string SecretVersion(const runtime::Cache& cache, const std::string& ns,
                          const std::string& name) {
  runtime::ObjectPtr s = cache.Get(kube::kSecrets, ns, name);
  return s ? Str(At(*s, {"metadata", "resourceVersion"})) : "";
}

}  // namespace

Json RoleSecretMetadata(const Json& stored, const std::string& ns, const std::string& name) {
  return {{"name", name},
          {"namespace", ns},
          {"labels",
           {{"app.kubernetes.io/managed-by", "quorum-operator"},
            {"app.kubernetes.io/component", "postgres-role"},
            {"postgres.quorum.dev/postgresrole", Str(At(stored, {"metadata", "name"}))}}},
          {"ownerReferences", Json::array({{{"apiVersion", std::string(api::kPostgresApiVersion)},
                                            {"kind", std::string(api::kPostgresRoleKind)},
                                            {"name", Str(At(stored, {"metadata", "name"}))},
                                            {"uid", Str(At(stored, {"metadata", "uid"}))},
                                            {"controller", true},
                                            {"blockOwnerDeletion", true}}})}};
}

std::string RoleSecretName(const std::string& cluster, const std::string& role) {
  std::string name = absl::AsciiStrToLower(role);
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return absl::StrCat(cluster, "-role-", name);
}

PostgresRoleReconciler::PostgresRoleReconciler(kube::Client& client, runtime::Cache& cache,
                                               runtime::EventRecorder& recorder, Clock& clock)
    : SqlObjectReconciler(client, cache, recorder, clock, controllers::kPostgresRoles,
                          std::string(api::kPostgresRoleKind)) {}

absl::StatusOr<ObjectView> PostgresRoleReconciler::Parse(const Json& stored) const {
  absl::StatusOr<api::PostgresRole> role = api::ParsePostgresRole(stored);
  if (!role.ok()) return role.status();
  return ObjectView{.metadata = role->metadata,
                    .cluster = role->spec.cluster,
                    .sql_name = role->spec.name,
                    .drop_on_delete = role->spec.reclaim_policy == api::kReclaimDelete,
                    .status = role->status};
}

std::string PostgresRoleReconciler::Conflict(const Json& stored,
                                             const api::PostgresCluster& cluster) const {
  const std::string name = Str(At(stored, {"spec", "name"})).empty()
                               ? Str(At(stored, {"metadata", "name"}))
                               : Str(At(stored, {"spec", "name"}));
  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    if (u.name == name) {
      return absl::StrCat("spec.name: role \"", name, "\" is in PostgresCluster ",
                          cluster.metadata.name,
                          "'s spec.users; manage it in one place (remove it there, or delete "
                          "this PostgresRole)");
    }
  }
  return "";
}

std::string PostgresRoleReconciler::Inputs(const Json& stored) const {
  const std::string ns = Str(At(stored, {"metadata", "namespace"}));
  const std::string user_secret = Str(At(stored, {"spec", "passwordSecret", "name"}));
  if (!user_secret.empty()) return SecretVersion(cache(), ns, user_secret);
  absl::StatusOr<api::PostgresRole> role = api::ParsePostgresRole(stored);
  if (!role.ok() || !role->spec.login || role->spec.disable_password) return "";  // no Secret
  return SecretVersion(cache(), ns, RoleSecretName(role->spec.cluster, role->spec.name));
}

absl::StatusOr<std::string> PostgresRoleReconciler::Password(const Json& stored,
                                                             const api::PostgresRole& role,
                                                             const api::PostgresCluster& cluster,
                                                             const ClusterTarget& target,
                                                             std::string& secret_name) {
  const std::string& ns = role.metadata.ns;
  if (role.spec.password_secret.has_value()) {
    const api::SecretKeyRef& ref = *role.spec.password_secret;
    secret_name = ref.name;
    runtime::ObjectPtr secret = cache().Get(kube::kSecrets, ns, ref.name);
    const std::string password = secret ? controllers::SecretValue(*secret, ref.key) : "";
    if (password.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "spec.passwordSecret: Secret ", ref.name,
          secret ? " has no key " + ref.key : std::string(" not found in this namespace")));
    }
    return password;
  }
  if (!role.spec.login || role.spec.disable_password) return "";
  secret_name = RoleSecretName(role.spec.cluster, role.spec.name);
  if (runtime::ObjectPtr secret = cache().Get(kube::kSecrets, ns, secret_name)) {
    if (std::string p = controllers::SecretValue(*secret, "password"); !p.empty()) return p;
    return absl::FailedPreconditionError(
        absl::StrCat("Secret ", secret_name, " has no password: delete it to get a new one"));
  }
  absl::StatusOr<std::string> password = runtime::RandomPassword();
  if (!password.ok()) return password.status();
  absl::StatusOr<Json> made = client().Create(
      kube::kSecrets, ns,
      BuildRoleSecret(stored, cluster, secret_name, role.spec.name, *password, target.ca_pem),
      {.field_manager = "quorum-operator", .discard_response = true});
  if (absl::IsAlreadyExists(made.status())) {  // made by an earlier reconcile: use it
    absl::StatusOr<Json> existing = client().Get(kube::kSecrets, ns, secret_name);
    if (!existing.ok()) return existing.status();
    return controllers::SecretValue(*existing, "password");
  }
  if (!made.ok()) return made.status();
  return *password;
}

absl::Status PostgresRoleReconciler::Apply(const Json& stored, const api::PostgresCluster& cluster,
                                           const ClusterTarget& target,
                                           api::PostgresObjectStatus& status) {
  absl::StatusOr<api::PostgresRole> role = api::ParsePostgresRole(stored);
  if (!role.ok()) return role.status();
  std::string secret_name;
  absl::StatusOr<std::string> password = Password(stored, *role, cluster, target, secret_name);
  status.secret_name = secret_name;
  if (!password.ok()) return password.status();
  return ApplyRole(target.target, role->spec, *password);
}

absl::StatusOr<std::optional<absl::Time>> PostgresRoleReconciler::EnsureCertificate(
    const Json& stored, const api::PostgresCluster& cluster, absl::Time now,
    api::PostgresObjectStatus& status) {
  absl::StatusOr<api::PostgresRole> role = api::ParsePostgresRole(stored);
  if (!role.ok()) return role.status();
  return EnsureRoleCertificate(client(), cache(), recorder(), stored, *role, cluster, now, status);
}

absl::Status PostgresRoleReconciler::Drop(const Json& stored, const ObjectView& view,
                                          const ClusterTarget& target) {
  absl::StatusOr<std::vector<std::string>> owned = DatabasesOwnedBy(target.target, view.sql_name);
  if (!owned.ok()) return owned.status();
  std::vector<std::string> managed;
  for (const runtime::ObjectPtr& obj : cache().ByIndex(
           controllers::kPostgresDatabases, kClusterIndex, view.metadata.ns + "/" + view.cluster)) {
    absl::StatusOr<api::PostgresDatabase> db = api::ParsePostgresDatabase(*obj);
    if (!db.ok() || db->metadata.deleting) continue;
    if (std::find(owned->begin(), owned->end(), db->spec.name) != owned->end()) {
      managed.push_back(absl::StrCat(db->spec.name, " (PostgresDatabase ", db->metadata.name, ")"));
    }
  }
  if (!managed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "role ", view.sql_name, " still owns database ", absl::StrJoin(managed, ", "),
        ": delete the PostgresDatabase or change its spec.owner; the role is dropped then"));
  }
  return DropRole(target.target, view.sql_name);
}

runtime::Controller& SetupPostgresRoleController(runtime::Manager& manager,
                                                 PostgresRoleReconciler& reconciler, int workers) {
  manager.cache()
      .Informer(controllers::kPostgresDatabases)
      .AddIndex(kClusterIndex, ClusterKeyOfObject);
  runtime::Controller& c =
      SetupSqlObjectController(manager, reconciler, controllers::kPostgresRoles,
                               controllers::kPostgresDatabases, "postgresrole", workers);
  c.Watch(manager.cache().Informer(kube::kSecrets),
          runtime::EnqueueRequestForOwner(std::string(api::kPostgresGroup),
                                          std::string(api::kPostgresRoleKind)),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::postgresobjects
