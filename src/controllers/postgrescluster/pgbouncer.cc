#include "src/controllers/postgrescluster/pgbouncer.h"

#include <cstdint>
#include <cstdio>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/tls.h"

namespace quorum::postgrescluster {
namespace {

// The settings a failover needs and config may override: a server
// connection to a member in recovery (the old primary, reached through the
// primary Service before it followed the switch) fails its check and is
// closed instead of serving read-only errors until server_lifetime.
std::map<std::string, std::string> FailoverDefaults() {
  return {{"server_check_query", "SELECT 1 / (NOT pg_catalog.pg_is_in_recovery())::int"},
          {"server_check_delay", "0"},
          {"server_connect_timeout", "5"},
          {"server_login_retry", "1"},
          {"ignore_startup_parameters", "extra_float_digits"}};
}

}  // namespace

PgBouncerNames PgBouncerNamesOf(const PostgresCluster& cluster) {
  const std::string base = cluster.metadata.name + "-pgbouncer";
  return {.name = base, .auth_secret = base + "-auth", .tls_secret = base + "-tls"};
}

bool HasPgBouncer(const PostgresCluster& cluster) {
  return cluster.spec.proxy.pgbouncer.has_value();
}

std::map<std::string, std::string> PgBouncerSelector(const PostgresCluster& cluster) {
  return {{"app.kubernetes.io/name", "pgbouncer"},
          {"app.kubernetes.io/instance", cluster.metadata.name},
          {kPgBouncerLabel, cluster.metadata.name}};
}

std::string PgBouncerHost(const PostgresCluster& cluster) {
  return PgBouncerNamesOf(cluster).name + "." + cluster.metadata.ns + ".svc";
}

std::vector<std::string> PgBouncerCertDnsNames(const PostgresCluster& cluster) {
  const std::string svc = PgBouncerNamesOf(cluster).name;
  const std::string& ns = cluster.metadata.ns;
  return {svc, svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc." + kClusterDomain};
}

std::string PgBouncerMountedTlsSecret(const PostgresCluster& cluster) {
  return cluster.spec.tls.custom_secret.empty() ? PgBouncerNamesOf(cluster).tls_secret
                                                : cluster.spec.tls.custom_secret;
}

std::string PgBouncerIni(const PostgresCluster& cluster) {
  const api::PgBouncerSpec& spec = *cluster.spec.proxy.pgbouncer;
  const Names n = NamesOf(cluster);
  const std::string tls = kPgBouncerTlsDir;
  std::string out =
      absl::StrCat("; Written by the Quorum operator for PostgresCluster ", n.ns, "/", n.cluster,
                   " (docs/pooler.md).\n[databases]\n* = host=", n.primary_service, ".", n.ns,
                   ".svc port=", kPostgresPort,
                   "\n\n[pgbouncer]\nlisten_addr = 0.0.0.0\nlisten_port = ", kPostgresPort,
                   "\nunix_socket_dir =\nlogfile =\npidfile =\n");
  absl::StrAppend(&out, "auth_type = scram-sha-256\nauth_file = ", kPgBouncerAuthDir,
                  "/userlist.txt\nauth_user = ", Absl(api::kPoolerUserName),
                  "\nauth_dbname = ", kPgBouncerAuthDatabase,
                  "\nauth_query = SELECT usename, passwd FROM ", kPgBouncerLookupFunction,
                  "($1)\nadmin_users = ", Absl(api::kPoolerAdminName),
                  "\npool_mode = ", spec.pool_mode, "\n");
  absl::StrAppend(
      &out, "client_tls_sslmode = ", cluster.spec.tls.allow_plaintext ? "prefer" : "require",
      "\nclient_tls_ca_file = ", tls, "/ca.crt\nclient_tls_cert_file = ", tls,
      "/tls.crt\nclient_tls_key_file = ", tls,
      "/tls.key\nserver_tls_sslmode = verify-full\nserver_tls_ca_file = ", tls, "/ca.crt\n");
  std::map<std::string, std::string> settings = FailoverDefaults();
  for (const auto& [k, v] : spec.config) settings[k] = v;
  for (const auto& [k, v] : settings) absl::StrAppend(&out, k, " = ", v, "\n");
  return out;
}

std::string PgBouncerDigest(const std::vector<std::string>& parts) {
  uint64_t h = 14695981039346656037ULL;
  for (const std::string& part : parts) {
    for (unsigned char c : part) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // parts ["ab", "c"] and ["a", "bc"] differ
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Json BuildPgBouncerConfigMap(const PostgresCluster& cluster) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).name)},
          {"data", {{"pgbouncer.ini", PgBouncerIni(cluster)}}}};
}

Json BuildPgBouncerAuthSecret(const PostgresCluster& cluster, const std::string& password,
                              const std::string& admin_password) {
  // userlist.txt: "name" "password" per line, a '"' doubled: the auth_user,
  // whose clear password PgBouncer needs to log in to the server itself, and
  // the admin console's user.
  auto line = [](std::string_view user, const std::string& pw) {
    std::string quoted;
    for (char c : pw) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return absl::StrCat("\"", Absl(user), "\" \"", quoted, "\"\n");
  };
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).auth_secret)},
          {"type", "Opaque"},
          {"data", controllers::EncodedSecretData(
                       {{"username", std::string(api::kPoolerUserName)},
                        {"password", password},
                        {kPgBouncerAdminPasswordKey, admin_password},
                        {"userlist.txt", line(api::kPoolerUserName, password) +
                                             line(api::kPoolerAdminName, admin_password)}})}};
}

Json BuildPgBouncerTlsSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                             const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).tls_secret)},
          {"type", "kubernetes.io/tls"},
          {"data", controllers::EncodedSecretData(
                       {{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

Json PgBouncerPeer(const PostgresCluster& cluster) {
  return {{"podSelector", {{"matchLabels", LabelsJson(PgBouncerSelector(cluster))}}}};
}

std::optional<Json> PgBouncerCredentialData(const PostgresCluster& cluster, const Json& data) {
  Json out = data.is_object() ? data : Json::object();
  auto decoded = [&](const char* key) {
    std::string v;
    const Json* field = json_access::Child(&out, key);
    if (field == nullptr || !field->is_string() ||
        !absl::Base64Unescape(field->get<std::string>(), &v)) {
      return std::string();
    }
    return v;
  };
  Json want = out;
  for (const char* key : {"pgbouncer-host", "pgbouncer-port", "pgbouncer-uri"}) want.erase(key);
  if (HasPgBouncer(cluster)) {
    const std::string host = PgBouncerHost(cluster);
    want["pgbouncer-host"] = absl::Base64Escape(host);
    want["pgbouncer-port"] = absl::Base64Escape(std::to_string(kPostgresPort));
    want["pgbouncer-uri"] = absl::Base64Escape(
        absl::StrCat("postgresql://", decoded("username"), ":", decoded("password"), "@", host, ":",
                     kPostgresPort, "/", decoded("dbname"), "?sslmode=verify-full"));
  }
  if (want == out) return std::nullopt;
  return want;
}

}  // namespace quorum::postgrescluster
