#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/controllers/postgrescluster/users.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

// The users phase (PostgresClusterReconciler::EnsureUsersOnce, reconciler.h).
std::string PostgresClusterReconciler::EnsureUsersOnce(const PostgresCluster& cluster,
                                                       const std::string& primary,
                                                       const std::vector<ObjectPtr>& pods,
                                                       const Json& stored,
                                                       const std::string& ca_pem) {
  const Names n = NamesOf(cluster);
  std::string host;
  for (const ObjectPtr& pod : pods) {
    if (Str(At(*pod, {"metadata", "name"})) == primary) host = Str(At(*pod, {"status", "podIP"}));
  }
  auto secret_value = [&](const std::string& name, const char* key) {
    ObjectPtr secret = cache_.Get(kSecrets, n.ns, name);
    return secret ? controllers::SecretValue(*secret, key) : std::string();
  };
  auto version = [&](const std::string& name) {
    ObjectPtr secret = cache_.Get(kSecrets, n.ns, name);
    return secret ? Str(At(*secret, {"metadata", "resourceVersion"})) : std::string();
  };
  // spec.users and the exporter's role (UsersOf), with the Secret each
  // password comes from.
  std::map<std::string, std::string> secret_of;
  for (const CredentialSpec& c : CredentialSecrets(cluster)) secret_of[c.username] = c.secret;
  const std::vector<UserSpec> users =
      UsersOf(cluster, [&](const std::string& secret) { return secret_value(secret, "password"); });
  if (users.empty()) return "";
  std::string key = absl::StrCat(primary, "|", host, "|", version(n.superuser_secret));
  for (const UserSpec& u : users) {
    absl::StrAppend(&key, "|", u.name, "(", absl::StrJoin(u.databases, ","), ";",
                    absl::StrJoin(u.options, ","), ")=", version(secret_of[u.name]));
  }
  // Keyed by namespace/name (forgotten when the object goes), the uid in the
  // value: a re-created cluster of the same name gets its users again.
  const std::string object = n.ns + "/" + n.cluster;
  absl::StrAppend(&key, "|", cluster.metadata.uid);
  {
    absl::MutexLock lock(&mu_);
    auto it = users_applied_.find(object);
    if (it != users_applied_.end() && it->second == key) return "";
  }
  if (host.empty()) return "";
  // verify-full: the certificate must name the primary's pod DNS name and
  // chain to the cluster's CA; libpq connects to the pod IP.
  absl::Status s = EnsureUsers({.host = MemberDnsName(cluster, primary),
                                .hostaddr = host,
                                .port = kPostgresPort,
                                .user = std::string(api::kSuperuserName),
                                .password = secret_value(n.superuser_secret, "password"),
                                .ca_pem = ca_pem},
                               users);
  if (!s.ok()) {
    const std::string message = "creating spec.users in PostgreSQL: " + std::string(s.message());
    recorder_.Warning(stored, "UsersFailed", message);
    return message;
  }
  recorder_.Normal(stored, "UsersReady",
                   absl::StrCat(users.size(), " role(s) and their databases exist"));
  absl::MutexLock lock(&mu_);
  users_applied_[object] = key;
  return "";
}

}  // namespace quorum::postgrescluster
