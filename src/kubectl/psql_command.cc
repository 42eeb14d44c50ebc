#include "src/kubectl/psql_command.h"

#include <arpa/inet.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

// The superuser's Secret (postgrescluster/names.h: Names::superuser_secret).
std::string SuperuserSecretName(const std::string& cluster) { return cluster + "-superuser"; }

// The decoded value of data[key]; nullopt when absent or not base64.
std::optional<std::string> DataValue(const Json& secret, const char* key) {
  auto data = secret.find("data");
  if (data == secret.end() || !data->is_object()) return std::nullopt;
  auto it = data->find(key);
  std::string out;
  if (it == data->end() || !it->is_string() ||
      !absl::Base64Unescape(it->get<std::string>(), &out)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> UserSecretName(const api::PostgresCluster& cluster,
                                           const std::string& user) {
  const std::string& name = cluster.metadata.name;
  if (user.empty() || user == api::kSuperuserName) return SuperuserSecretName(name);
  for (const api::PostgresUserStatus& u : cluster.status.users) {
    if (u.name == user && !u.secret_name.empty()) return u.secret_name;
  }
  std::vector<std::string> names = {std::string(api::kSuperuserName)};
  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    if (u.name == user) {
      return absl::UnavailableError(absl::StrCat("PostgresCluster ", name, "'s user ", user,
                                                 " has no Secret yet (status.users)"));
    }
    names.push_back(u.name);
  }
  return absl::NotFoundError(absl::StrCat("PostgresCluster ", name, " has no user \"", user,
                                          "\" (it has ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<Credentials> ParseCredentials(const Json& secret) {
  Credentials c;
  std::vector<std::string> missing;
  auto read = [&](const char* key, std::string& into) {
    std::optional<std::string> v = DataValue(secret, key);
    if (v && !v->empty()) {
      into = *std::move(v);
    } else {
      missing.push_back(key);
    }
  };
  read("username", c.user);
  read("password", c.password);
  read("host", c.host);
  read("port", c.port);
  read("ca.crt", c.ca_pem);
  c.dbname = DataValue(secret, "dbname").value_or("");
  if (!missing.empty()) {
    const std::string name =
        secret.contains("metadata") ? secret["metadata"].value("name", "") : "";
    return absl::FailedPreconditionError(
        absl::StrCat("Secret ", name, " has no ", absl::StrJoin(missing, ", "),
                     ": not a client Secret of a "
                     "PostgresCluster, or from an operator before TLS"));
  }
  return c;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

PsqlInvocation BuildPsqlInvocation(const Credentials& c, const PsqlOptions& o,
                                   const std::string& ca_file) {
  PsqlInvocation out{.argv = {"psql"}};
  out.argv.insert(out.argv.end(), o.psql_args.begin(), o.psql_args.end());
  const bool by_address = !o.host.empty() && IsIpLiteral(o.host);
  out.env = {{"PGHOST", o.host.empty() || by_address ? c.host : o.host},
             {"PGHOSTADDR", by_address ? o.host : ""},
             {"PGPORT", o.port.empty() ? c.port : o.port},
             {"PGUSER", c.user},
             {"PGDATABASE", c.dbname},
             {"PGPASSWORD", c.password},
             {"PGSSLMODE", "verify-full"},
             {"PGSSLROOTCERT", ca_file}};
  return out;
}

absl::StatusOr<Credentials> FetchPsqlCredentials(kube::Client& client, const PsqlOptions& o) {
  const std::string& name = o.target.name;
  if (o.target.kind == Kind::kEtcdCluster) {
    return absl::InvalidArgumentError(
        absl::StrCat("psql is for PostgresClusters: ", name, " is named as an EtcdCluster"));
  }
  absl::StatusOr<Json> obj = client.Get(controllers::kPostgresClusters, o.ns, name);
  if (absl::IsNotFound(obj.status())) {
    return absl::NotFoundError(
        absl::StrCat("PostgresCluster \"", name, "\" not found in namespace ", o.ns));
  }
  if (!obj.ok()) return obj.status();
  absl::StatusOr<api::PostgresCluster> cluster = api::DecodePostgresCluster(*obj);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  absl::StatusOr<std::string> secret_name = UserSecretName(*cluster, o.user);
  if (!secret_name.ok()) return secret_name.status();
  absl::StatusOr<Json> secret = client.Get(kube::kSecrets, o.ns, *secret_name);
  if (absl::IsNotFound(secret.status())) {
    return absl::NotFoundError(absl::StrCat("Secret \"", *secret_name, "\" of PostgresCluster ",
                                            name, " not found in namespace ", o.ns));
  }
  if (!secret.ok()) return secret.status();
  return ParseCredentials(*secret);
}

}  // namespace quorum::kubectl
