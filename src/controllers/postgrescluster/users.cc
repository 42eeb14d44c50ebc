#include "src/controllers/postgrescluster/users.h"

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/monitoring.h"

namespace quorum::postgrescluster {
namespace {

std::string Quote(const std::string& identifier) { return "\"" + identifier + "\""; }

absl::StatusOr<std::set<std::string>> Column(PgConnection& conn, const char* sql) {
  absl::StatusOr<std::vector<PgRow>> rows = conn.Query(sql);
  if (!rows.ok()) return rows.status();
  std::set<std::string> out;
  for (const PgRow& row : *rows) out.insert(row[0].value_or(""));
  return out;
}

}  // namespace

std::vector<UserSpec> UsersOf(const PostgresCluster& cluster,
                              const std::function<std::string(const std::string&)>& password_of) {
  std::vector<UserSpec> out;
  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    out.push_back({.name = u.name,
                   .databases = u.databases,
                   .options = u.options,
                   .password = password_of(UserSecretName(cluster, u.name))});
  }
  if (ExporterOn(cluster)) {
    out.push_back({.name = std::string(api::kMonitorUserName),
                   .options = {"NOSUPERUSER", "NOCREATEDB", "NOCREATEROLE", "CONNECTION LIMIT 3"},
                   .password = password_of(MonitoringSecretName(cluster)),
                   .member_of = {"pg_monitor"}});
  }
  return out;
}

std::vector<std::string> PlanUserSql(const std::vector<UserSpec>& users,
                                     const std::set<std::string>& existing_roles,
                                     const std::set<std::string>& existing_databases,
                                     const std::function<std::string(const UserSpec&)>& verifier) {
  std::vector<std::string> sql;
  std::set<std::string> databases = existing_databases;  // the first user listing one owns it
  for (const UserSpec& u : users) {
    std::vector<std::string> options = {"LOGIN"};
    for (const std::string& o : u.options) options.push_back(o);  // a later NOLOGIN wins
    const std::string verb = existing_roles.contains(u.name) ? "ALTER ROLE " : "CREATE ROLE ";
    std::string stmt = verb + Quote(u.name) + " WITH " + absl::StrJoin(options, " ");
    if (!u.password.empty()) stmt += " PASSWORD '" + verifier(u) + "'";
    sql.push_back(stmt);
    for (const std::string& db : u.databases) {
      if (!databases.insert(db).second) continue;
      sql.push_back("CREATE DATABASE " + Quote(db) + " OWNER " + Quote(u.name));
    }
    for (const std::string& role : u.member_of) {
      sql.push_back("GRANT " + Quote(role) + " TO " + Quote(u.name));
    }
  }
  return sql;
}

absl::StatusOr<std::vector<std::vector<std::string>>> QueryFirstRows(
    const PostgresTarget& target, const std::vector<std::string>& statements) {
  absl::StatusOr<std::unique_ptr<PgConnection>> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  std::vector<std::vector<std::string>> out;
  for (const std::string& sql : statements) {
    absl::StatusOr<std::vector<PgRow>> rows = (*conn)->Query(sql);
    if (!rows.ok())
      return absl::Status(rows.status().code(), absl::StrCat(sql, ": ", rows.status().message()));
    if (rows->empty()) return absl::InternalError(absl::StrCat(sql, ": no row"));
    std::vector<std::string> row;
    for (const std::optional<std::string>& v : rows->front()) row.push_back(v.value_or(""));
    out.push_back(std::move(row));
  }
  return out;
}

absl::Status EnsureUsers(const PostgresTarget& target, const std::vector<UserSpec>& users) {
  if (users.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<PgConnection>> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  PgConnection& pg = **conn;
  absl::StatusOr<std::set<std::string>> roles = Column(pg, "SELECT rolname FROM pg_roles");
  if (!roles.ok()) return roles.status();
  absl::StatusOr<std::set<std::string>> dbs = Column(pg, "SELECT datname FROM pg_database");
  if (!dbs.ok()) return dbs.status();
  absl::Status failure;
  auto verifier = [&](const UserSpec& u) -> std::string {
    absl::StatusOr<std::string> v = pg.ScramVerifier(u.password, u.name);
    if (!v.ok()) {
      failure = v.status();
      return "";
    }
    return *v;
  };
  const std::vector<std::string> sql = PlanUserSql(users, *roles, *dbs, verifier);
  if (!failure.ok()) return failure;
  for (const std::string& stmt : sql) {
    if (absl::Status s = pg.Exec(stmt); !s.ok()) {
      // The statement may carry a verifier: name only its first words.
      return absl::Status(s.code(),
                          absl::StrCat(stmt.substr(0, stmt.find(" WITH ")), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace quorum::postgrescluster
