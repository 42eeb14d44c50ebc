// The SQL that brings one PostgresRole or PostgresDatabase to its spec: pure
// functions from the spec and the catalog state observed (catalog.h) to an
// ordered list of statements, empty when nothing differs. Identifiers are
// double-quoted with embedded quotes doubled; the one secret (a role's
// password) enters only as a SCRAM verifier already quoted as a literal by
// libpq, and a Statement's `what` (used in status, events and logs) never
// carries it.
//
// What is authoritative: a role's attributes and its memberships (inRoles:
// memberships not listed are revoked); a database's owner and connection
// limit; the grants it made (status.grants: a privilege it granted that the
// list no longer holds is revoked). What is only added: extensions and
// schemas; a grant made by hand, never listed, is left alone.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_SQL_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_SQL_PLAN_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/postgresdatabase_types.h"
#include "api/postgresrole_types.h"

namespace quorum::postgresobjects {

struct Statement {
  std::string sql;
  std::string what;  // "create role app": safe to show
  bool operator==(const Statement&) const = default;
};

// "\"a\"\"b\"" for a"b.
std::string QuoteIdent(std::string_view name);

// A role as pg_roles shows it.
struct ObservedRole {
  bool exists = false;
  bool login = false;
  int connection_limit = -1;
  bool has_valid_until = false;
  std::set<std::string> member_of;
};

// `password_literal`: the SCRAM verifier as a quoted literal, NULL to have
// none (spec.disablePassword), or "" to leave the password as it is.
// `quoted_valid_until`: spec.validUntil as a quoted literal ("" when unset).
std::vector<Statement> PlanRole(const api::PostgresRoleSpec& spec, const ObservedRole& observed,
                                const std::string& password_literal,
                                const std::string& quoted_valid_until);

// The statements, run in each database, that release `role` before DROP
// ROLE: what it owns there goes to `heir` (the superuser), its privileges go.
std::vector<Statement> PlanReleaseRoleIn(const std::string& role, const std::string& heir);
Statement PlanDropRole(const std::string& role);

// A database as pg_database shows it; grants: role -> CONNECT/CREATE/TEMPORARY.
struct ObservedDatabase {
  bool exists = false;
  std::string owner;
  int connection_limit = -1;
  std::map<std::string, std::set<std::string>> grants;
};

// Inside the database: extensions (name -> schema), schemas (name -> owner),
// schema grants ((schema, role) -> USAGE/CREATE).
struct ObservedInside {
  std::map<std::string, std::string> extensions;
  std::map<std::string, std::string> schemas;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> schema_grants;
};

// The grants of spec.grants as status.grants records them: one per (role,
// schema), ALL spelled out, privileges sorted; sorted by schema, then role.
std::vector<api::AppliedGrant> AppliedGrants(const std::vector<api::DatabaseGrant>& grants);

// Run connected to the postgres database: create, owner, connection limit,
// grants on the database; revokes what `previous` (status.grants) granted on
// it and the spec no longer lists, where the role still holds it.
std::vector<Statement> PlanDatabase(const api::PostgresDatabaseSpec& spec,
                                    const ObservedDatabase& observed,
                                    const std::vector<api::AppliedGrant>& previous = {});
// Run connected to the database itself: schemas, extensions, schema grants;
// revokes as PlanDatabase, on schemas.
std::vector<Statement> PlanDatabaseInside(const api::PostgresDatabaseSpec& spec,
                                          const ObservedInside& observed,
                                          const std::vector<api::AppliedGrant>& previous = {});
// Terminates its sessions and drops it (DROP DATABASE ... WITH (FORCE)).
Statement PlanDropDatabase(const std::string& database);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_SQL_PLAN_H_
