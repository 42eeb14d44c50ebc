#include "src/controllers/postgresobjects/apply.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgresobjects/sql_plan.h"

namespace quorum::postgresobjects {
namespace {

using postgrescluster::PgConnection;
using postgrescluster::PgRow;
using Conn = std::unique_ptr<PgConnection>;

absl::Status Run(PgConnection& pg, const std::vector<Statement>& plan) {
  for (const Statement& s : plan) {
    absl::Status st = pg.Exec(s.sql);
    if (absl::IsUnavailable(st)) return st;
    if (!st.ok()) return absl::FailedPreconditionError(absl::StrCat(s.what, ": ", st.message()));
  }
  return absl::OkStatus();
}

std::string Str(const PgRow& row, size_t i) {
  return i < row.size() && row[i].has_value() ? *row[i] : "";
}

absl::StatusOr<ObservedRole> ReadRole(PgConnection& pg, const std::string& name) {
  absl::StatusOr<std::vector<PgRow>> rows = pg.Query(
      "SELECT rolcanlogin, rolconnlimit, rolvaliduntil IS NOT NULL FROM pg_roles "
      "WHERE rolname = $1",
      {name});
  if (!rows.ok()) return rows.status();
  ObservedRole out;
  if (rows->empty()) return out;
  out.exists = true;
  out.login = Str((*rows)[0], 0) == "t";
  out.connection_limit = std::stoi(Str((*rows)[0], 1));
  out.has_valid_until = Str((*rows)[0], 2) == "t";
  absl::StatusOr<std::vector<PgRow>> member_of = pg.Query(
      "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
      "JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1",
      {name});
  if (!member_of.ok()) return member_of.status();
  for (const PgRow& row : *member_of) out.member_of.insert(Str(row, 0));
  return out;
}

absl::StatusOr<ObservedDatabase> ReadDatabase(PgConnection& pg, const std::string& name) {
  absl::StatusOr<std::vector<PgRow>> rows = pg.Query(
      "SELECT pg_get_userbyid(datdba), datconnlimit FROM pg_database WHERE datname = $1", {name});
  if (!rows.ok()) return rows.status();
  ObservedDatabase out;
  if (rows->empty()) return out;
  out.exists = true;
  out.owner = Str((*rows)[0], 0);
  out.connection_limit = std::stoi(Str((*rows)[0], 1));
  absl::StatusOr<std::vector<PgRow>> grants = pg.Query(
      "SELECT r.rolname, a.privilege_type FROM pg_database d, "
      "aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a "
      "JOIN pg_roles r ON r.oid = a.grantee WHERE d.datname = $1",
      {name});
  if (!grants.ok()) return grants.status();
  for (const PgRow& row : *grants) out.grants[Str(row, 0)].insert(Str(row, 1));
  return out;
}

absl::StatusOr<ObservedInside> ReadInside(PgConnection& pg) {
  ObservedInside out;
  absl::StatusOr<std::vector<PgRow>> ext = pg.Query(
      "SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = "
      "e.extnamespace");
  if (!ext.ok()) return ext.status();
  for (const PgRow& row : *ext) out.extensions[Str(row, 0)] = Str(row, 1);
  absl::StatusOr<std::vector<PgRow>> schemas =
      pg.Query("SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace");
  if (!schemas.ok()) return schemas.status();
  for (const PgRow& row : *schemas) out.schemas[Str(row, 0)] = Str(row, 1);
  absl::StatusOr<std::vector<PgRow>> grants = pg.Query(
      "SELECT n.nspname, r.rolname, a.privilege_type FROM pg_namespace n, "
      "aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a "
      "JOIN pg_roles r ON r.oid = a.grantee");
  if (!grants.ok()) return grants.status();
  for (const PgRow& row : *grants) {
    out.schema_grants[{Str(row, 0), Str(row, 1)}].insert(Str(row, 2));
  }
  return out;
}

}  // namespace

absl::Status ApplyRole(const PostgresTarget& target, const api::PostgresRoleSpec& spec,
                       const std::string& password) {
  absl::StatusOr<Conn> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  PgConnection& pg = **conn;
  absl::StatusOr<ObservedRole> observed = ReadRole(pg, spec.name);
  if (!observed.ok()) return observed.status();
  std::string password_literal = spec.disable_password ? "NULL" : "";
  if (!password.empty()) {
    absl::StatusOr<std::string> verifier = pg.ScramVerifier(password, spec.name);
    if (!verifier.ok()) return verifier.status();
    password_literal = pg.Literal(*verifier);
  }
  const std::string valid_until = spec.valid_until.empty() ? "" : pg.Literal(spec.valid_until);
  return Run(pg, PlanRole(spec, *observed, password_literal, valid_until));
}

absl::StatusOr<std::vector<std::string>> DatabasesOwnedBy(const PostgresTarget& target,
                                                          const std::string& role) {
  absl::StatusOr<Conn> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  absl::StatusOr<std::vector<PgRow>> rows = (*conn)->Query(
      "SELECT datname FROM pg_database WHERE datdba = (SELECT oid FROM pg_roles WHERE rolname = "
      "$1) ORDER BY datname",
      {role});
  if (!rows.ok()) return rows.status();
  std::vector<std::string> out;
  for (const PgRow& row : *rows) out.push_back(Str(row, 0));
  return out;
}

absl::Status DropRole(const PostgresTarget& target, const std::string& role) {
  absl::StatusOr<Conn> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  absl::StatusOr<std::vector<PgRow>> exists =
      (*conn)->Query("SELECT 1 FROM pg_roles WHERE rolname = $1", {role});
  if (!exists.ok()) return exists.status();
  if (exists->empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<PgRow>> dbs =
      (*conn)->Query("SELECT datname FROM pg_database WHERE datallowconn ORDER BY datname");
  if (!dbs.ok()) return dbs.status();
  const std::string heir(api::kSuperuserName);
  for (const PgRow& row : *dbs) {
    const std::string db = Str(row, 0);
    absl::StatusOr<Conn> in = PgConnection::Open(target, db);
    if (!in.ok()) return in.status();
    if (absl::Status s = Run(**in, PlanReleaseRoleIn(role, heir)); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("in database ", db, ": ", s.message()));
    }
  }
  return Run(**conn, {PlanDropRole(role)});
}

absl::Status ApplyDatabase(const PostgresTarget& target, const api::PostgresDatabaseSpec& spec,
                           const std::vector<api::AppliedGrant>& previous) {
  absl::StatusOr<Conn> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  absl::StatusOr<ObservedDatabase> observed = ReadDatabase(**conn, spec.name);
  if (!observed.ok()) return observed.status();
  if (absl::Status s = Run(**conn, PlanDatabase(spec, *observed, previous)); !s.ok()) return s;
  conn->reset();
  absl::StatusOr<Conn> in = PgConnection::Open(target, spec.name);
  if (!in.ok()) return in.status();
  absl::StatusOr<ObservedInside> inside = ReadInside(**in);
  if (!inside.ok()) return inside.status();
  return Run(**in, PlanDatabaseInside(spec, *inside, previous));
}

absl::Status DropDatabase(const PostgresTarget& target, const std::string& database) {
  absl::StatusOr<Conn> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  return Run(**conn, {PlanDropDatabase(database)});
}

}  // namespace quorum::postgresobjects
