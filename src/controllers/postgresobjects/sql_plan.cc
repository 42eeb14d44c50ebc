#include "src/controllers/postgresobjects/sql_plan.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::postgresobjects {
namespace {

// ALL as the privileges it stands for.
std::set<std::string> Expand(const std::vector<std::string>& privileges, bool schema) {
  std::set<std::string> out;
  for (const std::string& p : privileges) {
    if (p != "ALL") {
      out.insert(p);
    } else if (schema) {
      out.insert({"USAGE", "CREATE"});
    } else {
      out.insert({"CONNECT", "CREATE", "TEMPORARY"});
    }
  }
  return out;
}

// The privileges of `want` missing from `have`.
std::vector<std::string> Missing(const std::set<std::string>& want,
                                 const std::set<std::string>& have) {
  std::vector<std::string> out;
  for (const std::string& p : want) {
    if (!have.contains(p)) out.push_back(p);
  }
  return out;
}

// (schema, role) -> privileges: the spec's grants, or status.grants.
using GrantMap = std::map<std::pair<std::string, std::string>, std::set<std::string>>;

GrantMap Wanted(const std::vector<api::DatabaseGrant>& grants) {
  GrantMap out;
  for (const api::DatabaseGrant& g : grants) {
    out[{g.schema, g.role}].merge(Expand(g.privileges, !g.schema.empty()));
  }
  return out;
}

// REVOKE of what `previous` granted on the database (on_schemas false) or on
// schemas (true) that `wanted` no longer holds and `holds` says is held.
std::vector<Statement> Revokes(
    const std::vector<api::AppliedGrant>& previous, const GrantMap& wanted, bool on_schemas,
    const std::function<const std::set<std::string>*(const std::string&, const std::string&)>&
        holds,
    const std::string& database) {
  std::vector<Statement> out;
  for (const api::AppliedGrant& g : previous) {
    if (g.schema.empty() == on_schemas) continue;
    const std::set<std::string>* held = holds(g.schema, g.role);
    if (held == nullptr) continue;
    auto it = wanted.find({g.schema, g.role});
    std::vector<std::string> gone;
    for (const std::string& p : g.privileges) {
      if (held->contains(p) && (it == wanted.end() || !it->second.contains(p))) gone.push_back(p);
    }
    if (gone.empty()) continue;
    const std::string on =
        on_schemas ? "SCHEMA " + QuoteIdent(g.schema) : "DATABASE " + QuoteIdent(database);
    out.push_back(
        {absl::StrCat("REVOKE ", absl::StrJoin(gone, ", "), " ON ", on, " FROM ",
                      QuoteIdent(g.role)),
         absl::StrCat("revoke on ", on_schemas ? "schema " + g.schema : "database " + database,
                      " from ", g.role)});
  }
  return out;
}

}  // namespace

std::vector<api::AppliedGrant> AppliedGrants(const std::vector<api::DatabaseGrant>& grants) {
  std::vector<api::AppliedGrant> out;
  for (const auto& [key, privileges] : Wanted(grants)) {
    out.push_back({.role = key.second,
                   .schema = key.first,
                   .privileges = {privileges.begin(), privileges.end()}});
  }
  return out;
}

std::string QuoteIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::vector<Statement> PlanRole(const api::PostgresRoleSpec& spec, const ObservedRole& observed,
                                const std::string& password_literal,
                                const std::string& quoted_valid_until) {
  std::vector<Statement> out;
  const std::string role = QuoteIdent(spec.name);
  std::string attributes =
      absl::StrCat(spec.login ? "LOGIN" : "NOLOGIN", " CONNECTION LIMIT ", spec.connection_limit);
  if (!quoted_valid_until.empty()) {
    absl::StrAppend(&attributes, " VALID UNTIL ", quoted_valid_until);
  } else if (observed.has_valid_until) {
    absl::StrAppend(&attributes, " VALID UNTIL 'infinity'");
  }
  const std::string password =
      password_literal.empty() ? "" : absl::StrCat(" PASSWORD ", password_literal);
  if (!observed.exists) {
    out.push_back({absl::StrCat("CREATE ROLE ", role, " WITH ", attributes, password),
                   absl::StrCat("create role ", spec.name)});
  } else {
    const bool differs = observed.login != spec.login ||
                         observed.connection_limit != spec.connection_limit ||
                         !quoted_valid_until.empty() || observed.has_valid_until;
    if (differs || !password.empty()) {
      out.push_back({absl::StrCat("ALTER ROLE ", role, " WITH ", attributes, password),
                     absl::StrCat("alter role ", spec.name)});
    }
  }
  const std::set<std::string> want(spec.in_roles.begin(), spec.in_roles.end());
  for (const std::string& r : spec.in_roles) {
    if (observed.member_of.contains(r)) continue;
    out.push_back({absl::StrCat("GRANT ", QuoteIdent(r), " TO ", role),
                   absl::StrCat("grant membership in ", r, " to ", spec.name)});
  }
  for (const std::string& r : observed.member_of) {
    if (want.contains(r)) continue;
    out.push_back({absl::StrCat("REVOKE ", QuoteIdent(r), " FROM ", role),
                   absl::StrCat("revoke membership in ", r, " from ", spec.name)});
  }
  return out;
}

std::vector<Statement> PlanReleaseRoleIn(const std::string& role, const std::string& heir) {
  return {{absl::StrCat("REASSIGN OWNED BY ", QuoteIdent(role), " TO ", QuoteIdent(heir)),
           absl::StrCat("reassign what ", role, " owns to ", heir)},
          {absl::StrCat("DROP OWNED BY ", QuoteIdent(role)),
           absl::StrCat("drop the privileges of ", role)}};
}

Statement PlanDropRole(const std::string& role) {
  return {absl::StrCat("DROP ROLE IF EXISTS ", QuoteIdent(role)), "drop role " + role};
}

std::vector<Statement> PlanDatabase(const api::PostgresDatabaseSpec& spec,
                                    const ObservedDatabase& observed,
                                    const std::vector<api::AppliedGrant>& previous) {
  std::vector<Statement> out;
  const std::string db = QuoteIdent(spec.name);
  if (!observed.exists) {
    std::string sql = "CREATE DATABASE " + db;
    if (!spec.owner.empty()) absl::StrAppend(&sql, " OWNER ", QuoteIdent(spec.owner));
    absl::StrAppend(&sql, " CONNECTION LIMIT ", spec.connection_limit);
    out.push_back({sql, "create database " + spec.name});
  } else {
    if (!spec.owner.empty() && observed.owner != spec.owner) {
      out.push_back({absl::StrCat("ALTER DATABASE ", db, " OWNER TO ", QuoteIdent(spec.owner)),
                     absl::StrCat("change the owner of database ", spec.name, " to ", spec.owner)});
    }
    if (observed.connection_limit != spec.connection_limit) {
      out.push_back(
          {absl::StrCat("ALTER DATABASE ", db, " CONNECTION LIMIT ", spec.connection_limit),
           "set the connection limit of database " + spec.name});
    }
  }
  // A database just created has the default ACL: owner all, PUBLIC CONNECT
  // and TEMPORARY; nobody else.
  for (const api::DatabaseGrant& g : spec.grants) {
    if (!g.schema.empty()) continue;
    auto it = observed.grants.find(g.role);
    const std::vector<std::string> missing =
        Missing(Expand(g.privileges, false),
                it == observed.grants.end() ? std::set<std::string>{} : it->second);
    if (missing.empty()) continue;
    out.push_back({absl::StrCat("GRANT ", absl::StrJoin(missing, ", "), " ON DATABASE ", db, " TO ",
                                QuoteIdent(g.role)),
                   absl::StrCat("grant on database ", spec.name, " to ", g.role)});
  }
  if (!observed.exists) return out;
  std::vector<Statement> revokes = Revokes(
      previous, Wanted(spec.grants), false,
      [&](const std::string&, const std::string& role) -> const std::set<std::string>* {
        auto it = observed.grants.find(role);
        return it == observed.grants.end() ? nullptr : &it->second;
      },
      spec.name);
  out.insert(out.end(), revokes.begin(), revokes.end());
  return out;
}

std::vector<Statement> PlanDatabaseInside(const api::PostgresDatabaseSpec& spec,
                                          const ObservedInside& observed,
                                          const std::vector<api::AppliedGrant>& previous) {
  std::vector<Statement> out;
  for (const api::DatabaseSchema& s : spec.schemas) {
    const std::string owner = s.owner.empty() ? spec.owner : s.owner;
    auto it = observed.schemas.find(s.name);
    if (it == observed.schemas.end()) {
      std::string sql = "CREATE SCHEMA IF NOT EXISTS " + QuoteIdent(s.name);
      if (!owner.empty()) absl::StrAppend(&sql, " AUTHORIZATION ", QuoteIdent(owner));
      out.push_back({sql, "create schema " + s.name});
    } else if (!owner.empty() && it->second != owner) {
      out.push_back(
          {absl::StrCat("ALTER SCHEMA ", QuoteIdent(s.name), " OWNER TO ", QuoteIdent(owner)),
           absl::StrCat("change the owner of schema ", s.name, " to ", owner)});
    }
  }
  for (const api::DatabaseExtension& e : spec.extensions) {
    auto it = observed.extensions.find(e.name);
    if (it == observed.extensions.end()) {
      std::string sql = "CREATE EXTENSION IF NOT EXISTS " + QuoteIdent(e.name);
      if (!e.schema.empty()) absl::StrAppend(&sql, " SCHEMA ", QuoteIdent(e.schema));
      out.push_back({sql, "create extension " + e.name});
    } else if (!e.schema.empty() && it->second != e.schema) {
      out.push_back({absl::StrCat("ALTER EXTENSION ", QuoteIdent(e.name), " SET SCHEMA ",
                                  QuoteIdent(e.schema)),
                     absl::StrCat("move extension ", e.name, " to schema ", e.schema)});
    }
  }
  for (const api::DatabaseGrant& g : spec.grants) {
    if (g.schema.empty()) continue;
    auto it = observed.schema_grants.find({g.schema, g.role});
    const std::vector<std::string> missing =
        Missing(Expand(g.privileges, true),
                it == observed.schema_grants.end() ? std::set<std::string>{} : it->second);
    if (missing.empty()) continue;
    out.push_back({absl::StrCat("GRANT ", absl::StrJoin(missing, ", "), " ON SCHEMA ",
                                QuoteIdent(g.schema), " TO ", QuoteIdent(g.role)),
                   absl::StrCat("grant on schema ", g.schema, " to ", g.role)});
  }
  std::vector<Statement> revokes = Revokes(
      previous, Wanted(spec.grants), true,
      [&](const std::string& schema, const std::string& role) -> const std::set<std::string>* {
        auto it = observed.schema_grants.find({schema, role});
        return it == observed.schema_grants.end() ? nullptr : &it->second;
      },
      spec.name);
  out.insert(out.end(), revokes.begin(), revokes.end());
  return out;
}

Statement PlanDropDatabase(const std::string& database) {
  return {absl::StrCat("DROP DATABASE IF EXISTS ", QuoteIdent(database), " WITH (FORCE)"),
          "drop database " + database};
}

}  // namespace quorum::postgresobjects
