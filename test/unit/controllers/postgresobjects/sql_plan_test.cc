// The SQL planner of PostgresRole and PostgresDatabase (sql_plan.h): table
// tests from spec + observed catalog state to statements.
#include "src/controllers/postgresobjects/sql_plan.h"

#include <gtest/gtest.h>

namespace quorum::postgresobjects {
namespace {

std::vector<std::string> Sql(const std::vector<Statement>& plan) {
  std::vector<std::string> out;
  for (const Statement& s : plan) out.push_back(s.sql);
  return out;
}

api::PostgresRoleSpec RoleSpec() {
  return {.cluster = "hippo", .name = "app", .in_roles = {"readers"}};
}

TEST(QuoteIdentTest, DoublesEmbeddedQuotes) {
  EXPECT_EQ(QuoteIdent("app"), "\"app\"");
  EXPECT_EQ(QuoteIdent("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdent("Mixed-Case.x"), "\"Mixed-Case.x\"");
}

TEST(PlanRoleTest, Table) {
  struct Case {
    const char* what;
    api::PostgresRoleSpec spec;
    ObservedRole observed;
    std::string password, valid_until;
    std::vector<std::string> want;
  };
  const ObservedRole same{
      .exists = true, .login = true, .connection_limit = -1, .member_of = {"readers"}};
  api::PostgresRoleSpec nologin = RoleSpec();
  nologin.login = false;
  nologin.connection_limit = 3;
  const std::vector<Case> cases = {
      {"new role with its password and membership",
       RoleSpec(),
       {},
       "'SCRAM-SHA-256$x'",
       "",
       {"CREATE ROLE \"app\" WITH LOGIN CONNECTION LIMIT -1 PASSWORD 'SCRAM-SHA-256$x'",
        "GRANT \"readers\" TO \"app\""}},
      {"as it should be, no password: nothing", RoleSpec(), same, "", "", {}},
      {"attributes differ",
       nologin,
       same,
       "",
       "",
       {"ALTER ROLE \"app\" WITH NOLOGIN CONNECTION LIMIT 3"}},
      {"password is always set",
       RoleSpec(),
       same,
       "'v'",
       "",
       {"ALTER ROLE \"app\" WITH LOGIN CONNECTION LIMIT -1 PASSWORD 'v'"}},
      {"valid until set",
       RoleSpec(),
       same,
       "",
       "'2030-01-01'",
       {"ALTER ROLE \"app\" WITH LOGIN CONNECTION LIMIT -1 VALID UNTIL '2030-01-01'"}},
      {"valid until removed",
       RoleSpec(),
       {.exists = true, .login = true, .has_valid_until = true, .member_of = {"readers"}},
       "",
       "",
       {"ALTER ROLE \"app\" WITH LOGIN CONNECTION LIMIT -1 VALID UNTIL 'infinity'"}},
      {"disablePassword: the password goes",
       RoleSpec(),
       same,
       "NULL",
       "",
       {"ALTER ROLE \"app\" WITH LOGIN CONNECTION LIMIT -1 PASSWORD NULL"}},
      {"a membership not listed is revoked",
       RoleSpec(),
       {.exists = true, .login = true, .member_of = {"readers", "writers"}},
       "",
       "",
       {"REVOKE \"writers\" FROM \"app\""}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sql(PlanRole(c.spec, c.observed, c.password, c.valid_until)), c.want) << c.what;
  }
}

TEST(PlanRoleTest, WhatNeverCarriesThePassword) {
  for (const Statement& s : PlanRole(RoleSpec(), {}, "'SCRAM-SHA-256$secret'", "")) {
    EXPECT_EQ(s.what.find("secret"), std::string::npos) << s.what;
  }
}

TEST(PlanDropRoleTest, ReassignsThenDrops) {
  EXPECT_EQ(Sql(PlanReleaseRoleIn("a\"b", "postgres")),
            (std::vector<std::string>{"REASSIGN OWNED BY \"a\"\"b\" TO \"postgres\"",
                                      "DROP OWNED BY \"a\"\"b\""}));
  EXPECT_EQ(PlanDropRole("app").sql, "DROP ROLE IF EXISTS \"app\"");
}

api::PostgresDatabaseSpec DatabaseSpec() {
  return {.cluster = "hippo",
          .name = "app",
          .owner = "app",
          .extensions = {{.name = "pg_trgm"}, {.name = "hstore", .schema = "ext"}},
          .schemas = {{.name = "ext"}, {.name = "reports", .owner = "reporter"}},
          .connection_limit = 10,
          .grants = {{.role = "reader", .privileges = {"CONNECT"}},
                     {.role = "writer", .privileges = {"ALL"}},
                     {.role = "reader", .privileges = {"USAGE"}, .schema = "reports"}}};
}

TEST(PlanDatabaseTest, Table) {
  struct Case {
    const char* what;
    ObservedDatabase observed;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"new database",
       {},
       {"CREATE DATABASE \"app\" OWNER \"app\" CONNECTION LIMIT 10",
        "GRANT CONNECT ON DATABASE \"app\" TO \"reader\"",
        "GRANT CONNECT, CREATE, TEMPORARY ON DATABASE \"app\" TO \"writer\""}},
      {"as it should be",
       {.exists = true,
        .owner = "app",
        .connection_limit = 10,
        .grants = {{"reader", {"CONNECT"}}, {"writer", {"CONNECT", "CREATE", "TEMPORARY"}}}},
       {}},
      {"owner, limit and a missing privilege",
       {.exists = true,
        .owner = "postgres",
        .connection_limit = -1,
        .grants = {{"reader", {"CONNECT"}}, {"writer", {"CONNECT", "TEMPORARY"}}}},
       {"ALTER DATABASE \"app\" OWNER TO \"app\"", "ALTER DATABASE \"app\" CONNECTION LIMIT 10",
        "GRANT CREATE ON DATABASE \"app\" TO \"writer\""}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sql(PlanDatabase(DatabaseSpec(), c.observed)), c.want) << c.what;
  }
}

TEST(PlanDatabaseTest, WithoutOwnerTheOwnerIsLeftAlone) {
  api::PostgresDatabaseSpec spec = DatabaseSpec();
  spec.owner.clear();
  spec.grants.clear();
  EXPECT_EQ(Sql(PlanDatabase(spec, {.exists = true, .owner = "x", .connection_limit = 10})),
            std::vector<std::string>{});
  EXPECT_EQ(Sql(PlanDatabase(spec, {})),
            std::vector<std::string>{"CREATE DATABASE \"app\" CONNECTION LIMIT 10"});
}

TEST(PlanDatabaseInsideTest, Table) {
  struct Case {
    const char* what;
    ObservedInside observed;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"fresh database: schemas first, then extensions, then schema grants",
       {.extensions = {{"plpgsql", "pg_catalog"}}, .schemas = {{"public", "pg_database_owner"}}},
       {"CREATE SCHEMA IF NOT EXISTS \"ext\" AUTHORIZATION \"app\"",
        "CREATE SCHEMA IF NOT EXISTS \"reports\" AUTHORIZATION \"reporter\"",
        "CREATE EXTENSION IF NOT EXISTS \"pg_trgm\"",
        "CREATE EXTENSION IF NOT EXISTS \"hstore\" SCHEMA \"ext\"",
        "GRANT USAGE ON SCHEMA \"reports\" TO \"reader\""}},
      {"as it should be",
       {.extensions = {{"pg_trgm", "public"}, {"hstore", "ext"}},
        .schemas = {{"ext", "app"}, {"reports", "reporter"}},
        .schema_grants = {{{"reports", "reader"}, {"USAGE"}}}},
       {}},
      {"owner changed and extension moved",
       {.extensions = {{"pg_trgm", "public"}, {"hstore", "public"}},
        .schemas = {{"ext", "postgres"}, {"reports", "reporter"}},
        .schema_grants = {{{"reports", "reader"}, {"USAGE", "CREATE"}}}},
       {"ALTER SCHEMA \"ext\" OWNER TO \"app\"", "ALTER EXTENSION \"hstore\" SET SCHEMA \"ext\""}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sql(PlanDatabaseInside(DatabaseSpec(), c.observed)), c.want) << c.what;
  }
}

TEST(AppliedGrantsTest, OnePerRoleAndSchemaWithAllSpelledOut) {
  std::vector<api::DatabaseGrant> grants = DatabaseSpec().grants;
  grants.push_back({.role = "reader", .privileges = {"TEMPORARY"}});
  const std::vector<api::AppliedGrant> want = {
      {.role = "reader", .schema = "", .privileges = {"CONNECT", "TEMPORARY"}},
      {.role = "writer", .schema = "", .privileges = {"CONNECT", "CREATE", "TEMPORARY"}},
      {.role = "reader", .schema = "reports", .privileges = {"USAGE"}}};
  EXPECT_EQ(AppliedGrants(grants), want);
}

TEST(PlanDatabaseTest, RevokesOnlyWhatItGrantedAndTheSpecNoLongerLists) {
  api::PostgresDatabaseSpec spec = DatabaseSpec();
  const std::vector<api::AppliedGrant> previous = AppliedGrants(spec.grants);
  // writer's grant is gone from the spec; reader keeps CONNECT only; a grant
  // made by hand (auditor) was never listed.
  spec.grants = {{.role = "reader", .privileges = {"CONNECT"}}};
  const ObservedDatabase observed = {
      .exists = true,
      .owner = "app",
      .connection_limit = 10,
      .grants = {{"reader", {"CONNECT"}},
                 {"writer", {"CONNECT", "TEMPORARY"}},  // CREATE revoked by hand already
                 {"auditor", {"CONNECT"}}}};
  EXPECT_EQ(
      Sql(PlanDatabase(spec, observed, previous)),
      std::vector<std::string>{"REVOKE CONNECT, TEMPORARY ON DATABASE \"app\" FROM \"writer\""});
  // The role is gone: nothing to revoke.
  EXPECT_EQ(Sql(PlanDatabase(spec,
                             {.exists = true,
                              .owner = "app",
                              .connection_limit = 10,
                              .grants = {{"reader", {"CONNECT"}}}},
                             previous)),
            std::vector<std::string>{});
  // On schemas: reader's USAGE on reports went from the spec.
  ObservedInside inside = {
      .extensions = {{"pg_trgm", "public"}, {"hstore", "ext"}},
      .schemas = {{"ext", "app"}, {"reports", "reporter"}},
      .schema_grants = {{{"reports", "reader"}, {"USAGE"}}, {{"reports", "auditor"}, {"USAGE"}}}};
  EXPECT_EQ(Sql(PlanDatabaseInside(spec, inside, previous)),
            std::vector<std::string>{"REVOKE USAGE ON SCHEMA \"reports\" FROM \"reader\""});
}

TEST(PlanDropDatabaseTest, ForcesSessionsOut) {
  EXPECT_EQ(PlanDropDatabase("app").sql, "DROP DATABASE IF EXISTS \"app\" WITH (FORCE)");
}

}  // namespace
}  // namespace quorum::postgresobjects
