// PostgresRole and PostgresDatabase admission rules (postgresrole_types.h,
// postgresdatabase_types.h): each bad input refused naming its field, good
// ones parsed with their defaults.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/postgresdatabase_types.h"
#include "api/postgresrole_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Role(Json spec, const std::string& name = "app") {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresRole"},
          {"metadata", {{"name", name}, {"namespace", "db"}, {"generation", 2}}},
          {"spec", std::move(spec)}};
}

Json Database(Json spec, const std::string& name = "app") {
  Json r = Role(std::move(spec), name);
  r["kind"] = "PostgresDatabase";
  return r;
}

// The fields named by the errors, in order.
std::vector<std::string> Fields(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.field);
  return out;
}

TEST(PostgresRoleTest, ParsesWithDefaults) {
  absl::StatusOr<PostgresRole> r = ParsePostgresRole(Role({{"cluster", "hippo"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.name, "app");
  EXPECT_TRUE(r->spec.login);
  EXPECT_EQ(r->spec.connection_limit, -1);
  EXPECT_EQ(r->spec.reclaim_policy, "retain");
  EXPECT_FALSE(r->spec.password_secret.has_value());
  EXPECT_EQ(r->metadata.generation, 2);
}

TEST(PostgresRoleTest, ParsesEveryField) {
  absl::StatusOr<PostgresRole> r =
      ParsePostgresRole(Role({{"cluster", "hippo"},
                              {"name", "App_Reader"},
                              {"login", false},
                              {"connectionLimit", 5},
                              {"inRoles", {"readers", "pg_read_all_data"}},
                              {"passwordSecret", {{"name", "pw"}}},
                              {"reclaimPolicy", "delete"},
                              {"validUntil", "2030-01-01T00:00:00Z"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.name, "App_Reader");
  EXPECT_FALSE(r->spec.login);
  EXPECT_EQ(r->spec.connection_limit, 5);
  EXPECT_EQ(r->spec.in_roles, (std::vector<std::string>{"readers", "pg_read_all_data"}));
  ASSERT_TRUE(r->spec.password_secret.has_value());
  EXPECT_EQ(r->spec.password_secret->key, "password");
  EXPECT_EQ(r->spec.reclaim_policy, "delete");
  EXPECT_FALSE(r->spec.client_certificate);
  EXPECT_FALSE(r->spec.disable_password);
}

TEST(PostgresRoleTest, ParsesACertificateOnlyRole) {
  absl::StatusOr<PostgresRole> r = ParsePostgresRole(
      Role({{"cluster", "hippo"}, {"clientCertificate", true}, {"disablePassword", true}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->spec.client_certificate);
  EXPECT_TRUE(r->spec.disable_password);
  EXPECT_TRUE(r->spec.login);
}

TEST(PostgresRoleTest, RefusesBadInputNamingTheField) {
  struct Case {
    const char* what;
    Json obj;
    std::vector<std::string> fields;
  };
  const std::vector<Case> cases = {
      {"no spec", Json{{"metadata", {{"name", "a"}}}}, {"spec"}},
      {"no cluster", Role(Json::object()), {"spec.cluster"}},
      {"superuser", Role({{"cluster", "c"}, {"name", "postgres"}}), {"spec.name"}},
      {"replication user", Role({{"cluster", "c"}}, "replicator"), {"metadata.name"}},
      {"pooler role", Role({{"cluster", "c"}, {"name", "quorum_pooler"}}), {"spec.name"}},
      {"pooler console user", Role({{"cluster", "c"}}, "quorum_pooler_admin"), {"metadata.name"}},
      {"pg_ prefix", Role({{"cluster", "c"}, {"name", "pg_mine"}}), {"spec.name"}},
      {"keyword", Role({{"cluster", "c"}, {"name", "public"}}), {"spec.name"}},
      {"too long", Role({{"cluster", "c"}, {"name", std::string(64, 'a')}}), {"spec.name"}},
      {"quote in name", Role({{"cluster", "c"}, {"name", "a\"b"}}), {"spec.name"}},
      {"bad limit", Role({{"cluster", "c"}, {"connectionLimit", -2}}), {"spec.connectionLimit"}},
      {"bad policy", Role({{"cluster", "c"}, {"reclaimPolicy", "Delete"}}), {"spec.reclaimPolicy"}},
      {"certificate without login",
       Role({{"cluster", "c"}, {"login", false}, {"clientCertificate", true}}),
       {"spec.clientCertificate"}},
      {"certificate not a bool",
       Role({{"cluster", "c"}, {"clientCertificate", "yes"}}),
       {"spec.clientCertificate"}},
      {"no password, yet a password Secret",
       Role({{"cluster", "c"}, {"disablePassword", true}, {"passwordSecret", {{"name", "s"}}}}),
       {"spec.disablePassword"}},
      {"member of superuser",
       Role({{"cluster", "c"}, {"inRoles", {"postgres"}}}),
       {"spec.inRoles[0]"}},
      {"server files",
       Role({{"cluster", "c"}, {"inRoles", {"ok", "pg_read_server_files"}}}),
       {"spec.inRoles[1]"}},
      {"itself", Role({{"cluster", "c"}, {"inRoles", {"app"}}}), {"spec.inRoles[0]"}},
      {"secret without name",
       Role({{"cluster", "c"}, {"passwordSecret", {{"key", "k"}}}}),
       {"spec.passwordSecret.name"}},
      {"unknown field", Role({{"cluster", "c"}, {"superuser", true}}), {"spec.superuser"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Fields(ValidatePostgresRole(c.obj, nullptr)), c.fields) << c.what;
  }
}

TEST(PostgresRoleTest, ClusterAndNameAreImmutable) {
  const Json old = Role({{"cluster", "hippo"}});
  EXPECT_TRUE(ValidatePostgresRole(Role({{"cluster", "hippo"}, {"login", false}}), &old).empty());
  EXPECT_EQ(Fields(ValidatePostgresRole(Role({{"cluster", "other"}}), &old)),
            std::vector<std::string>{"spec.cluster"});
  EXPECT_EQ(Fields(ValidatePostgresRole(Role({{"cluster", "hippo"}, {"name", "b"}}), &old)),
            std::vector<std::string>{"spec.name"});
  // Setting spec.name to what metadata.name gave is no change.
  EXPECT_TRUE(ValidatePostgresRole(Role({{"cluster", "hippo"}, {"name", "app"}}), &old).empty());
}

TEST(PostgresDatabaseTest, ParsesEveryField) {
  absl::StatusOr<PostgresDatabase> d = ParsePostgresDatabase(
      Database({{"cluster", "hippo"},
                {"owner", "app"},
                {"extensions", {{{"name", "pg_trgm"}}, {{"name", "hstore"}, {"schema", "ext"}}}},
                {"schemas", {{{"name", "ext"}}, {{"name", "reports"}, {"owner", "reporter"}}}},
                {"connectionLimit", 20},
                {"grants",
                 {{{"role", "reader"}, {"privileges", {"CONNECT"}}},
                  {{"role", "reader"}, {"privileges", {"USAGE"}}, {"schema", "reports"}}}},
                {"reclaimPolicy", "delete"}}));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->spec.name, "app");
  EXPECT_EQ(d->spec.owner, "app");
  EXPECT_EQ(d->spec.extensions[1], (DatabaseExtension{.name = "hstore", .schema = "ext"}));
  EXPECT_EQ(d->spec.schemas[1], (DatabaseSchema{.name = "reports", .owner = "reporter"}));
  EXPECT_EQ(d->spec.connection_limit, 20);
  EXPECT_EQ(d->spec.grants[1],
            (DatabaseGrant{.role = "reader", .privileges = {"USAGE"}, .schema = "reports"}));
  EXPECT_EQ(d->spec.reclaim_policy, "delete");
}

TEST(PostgresDatabaseTest, RefusesBadInputNamingTheField) {
  struct Case {
    const char* what;
    Json spec;
    std::vector<std::string> fields;
  };
  const std::vector<Case> cases = {
      {"unknown extension",
       {{"cluster", "c"}, {"extensions", {{{"name", "postgis"}}}}},
       {"spec.extensions[0].name"}},
      {"extension twice",
       {{"cluster", "c"}, {"extensions", {{{"name", "citext"}}, {{"name", "citext"}}}}},
       {"spec.extensions[1].name"}},
      {"bad schema",
       {{"cluster", "c"}, {"schemas", {{{"name", "pg_x"}}}}},
       {"spec.schemas[0].name"}},
      {"long schema",
       {{"cluster", "c"}, {"schemas", {{{"name", std::string(64, 's')}}}}},
       {"spec.schemas[0].name"}},
      {"reserved owner", {{"cluster", "c"}, {"owner", "replicator"}}, {"spec.owner"}},
      {"bad privilege",
       {{"cluster", "c"}, {"grants", {{{"role", "r"}, {"privileges", {"SELECT"}}}}}},
       {"spec.grants[0].privileges[0]"}},
      {"database privilege on a schema",
       {{"cluster", "c"},
        {"grants", {{{"role", "r"}, {"privileges", {"CONNECT"}}, {"schema", "s"}}}}},
       {"spec.grants[0].privileges[0]"}},
      {"no privileges",
       {{"cluster", "c"}, {"grants", {{{"role", "r"}}}}},
       {"spec.grants[0].privileges"}},
      {"grant to superuser",
       {{"cluster", "c"}, {"grants", {{{"role", "postgres"}, {"privileges", {"ALL"}}}}}},
       {"spec.grants[0].role"}},
      {"template", {{"cluster", "c"}, {"name", "template1"}}, {"spec.name"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Fields(ValidatePostgresDatabase(Database(c.spec), nullptr)), c.fields) << c.what;
  }
  EXPECT_EQ(Fields(ValidatePostgresDatabase(Database({{"cluster", "c"}}, "postgres"), nullptr)),
            std::vector<std::string>{"metadata.name"});
}

TEST(PostgresDatabaseTest, NameIsImmutable) {
  const Json old = Database({{"cluster", "c"}});
  EXPECT_EQ(Fields(ValidatePostgresDatabase(Database({{"cluster", "c"}, {"name", "x"}}), &old)),
            std::vector<std::string>{"spec.name"});
}

TEST(PostgresObjectsTest, AllowedExtensionsAreSortedAndShipped) {
  std::span<const std::string_view> all = AllowedExtensions();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_TRUE(IsAllowedExtension("pg_stat_statements"));
  EXPECT_TRUE(IsAllowedExtension("uuid-ossp"));
  EXPECT_FALSE(IsAllowedExtension("adminpack"));  // gone in PostgreSQL 17
}

}  // namespace
}  // namespace quorum::api
