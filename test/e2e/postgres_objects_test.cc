// PostgresRole and PostgresDatabase end to end (issue 39, part 2): on a
// running PostgresCluster, a role with a generated password and a database
// with a schema, an extension and grants are created; the grants are checked
// by connecting as the role through the cluster's primary Service; an edit
// adds a grant, another removes it (revoked); a grant to a missing role shows in status; deleting
// with reclaimPolicy delete drops the SQL object and retain keeps it; once the cluster is gone a
// finalizer no longer holds its objects. A role with clientCertificate and disablePassword logs in
// with its certificate only (the cluster's pg_hba has a cert rule for it), and loses the
// certificate's Secret when the field goes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/e2e/postgres_e2e.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kRoles{"postgres.quorum.dev", "v1alpha1", "postgresroles"};
const kube::GroupVersionResource kDatabases{"postgres.quorum.dev", "v1alpha1", "postgresdatabases"};

class PostgresObjectsE2E : public PostgresClusterE2E {
 protected:
  void SetUp() override {
    PostgresClusterE2E::SetUp();
    for (const char* crd : {"postgresroles", "postgresdatabases"}) {
      absl::Status s = testenv::InstallCrd(
          client(),
          absl::StrCat(QUORUM_SOURCE_DIR, "/deploy/crds/postgres.quorum.dev_", crd, ".yaml"));
      ASSERT_TRUE(s.ok()) << s;
    }
  }

  Json Object(const char* kind, const std::string& name, Json spec) {
    return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", kind},
            {"metadata", {{"name", name}, {"namespace", ns()}}},
            {"spec", std::move(spec)}};
  }

  Json Status(const kube::GroupVersionResource& gvr, const std::string& name) {
    auto o = client().Get(gvr, ns(), name);
    return o.ok() ? o->value("status", Json::object()) : Json::object();
  }
  bool Applied(const kube::GroupVersionResource& gvr, const std::string& name) {
    auto o = client().Get(gvr, ns(), name);
    if (!o.ok()) return false;
    const Json st = o->value("status", Json::object());
    return st.value("applied", false) &&
           st.value("observedGeneration", 0) == (*o)["metadata"].value("generation", -1);
  }
  bool Gone(const kube::GroupVersionResource& gvr, const std::string& name) {
    return absl::IsNotFound(client().Get(gvr, ns(), name).status());
  }

  // psql as the user of Secret `secret` into database `db` through the
  // primary Service, verify-full against the Secret's CA.
  CommandResult SqlAs(const std::string& secret, const std::string& db, const std::string& sql) {
    auto s = client().Get(kSecrets, ns(), secret);
    if (!s.ok()) return {1, std::string(s.status().message())};
    std::string user, password, ca;
    const Json data = s->value("data", Json::object());
    absl::Base64Unescape(data.value("username", ""), &user);
    absl::Base64Unescape(data.value("password", ""), &password);
    absl::Base64Unescape(data.value("ca.crt", ""), &ca);
    const std::string ca_file = absl::StrCat("/tmp/quorum-e2e-", ns(), "-", secret, "-ca.crt");
    std::ofstream(ca_file) << ca;
    const std::string uri =
        absl::StrCat("postgresql://", user, ":", password, "@objs.", ns(), ".svc:5432/", db,
                     "?sslmode=verify-full&sslrootcert=", ca_file);
    return NodeExec({"psql", uri, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql}, absl::Seconds(20));
  }
  // psql as the role of certificate Secret `secret` (CommonName: the role),
  // into database postgres, without a password.
  CommandResult CertSqlAs(const std::string& secret, const std::string& sql) {
    auto s = client().Get(kSecrets, ns(), secret);
    if (!s.ok()) return {1, std::string(s.status().message())};
    const Json data = s->value("data", Json::object());
    std::string user;
    absl::Base64Unescape(data.value("username", ""), &user);
    const std::string base = absl::StrCat("/tmp/quorum-e2e-", ns(), "-", secret);
    for (const char* key : {"ca.crt", "tls.crt", "tls.key"}) {
      std::string value;
      absl::Base64Unescape(data.value(key, ""), &value);
      const std::string file = absl::StrCat(base, "-", key);
      std::ofstream(file) << value;
      std::filesystem::permissions(
          file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    }
    const std::string uri =
        absl::StrCat("postgresql://", user, "@objs.", ns(),
                     ".svc:5432/postgres?sslmode=verify-full&sslrootcert=", base,
                     "-ca.crt&sslcert=", base, "-tls.crt&sslkey=", base, "-tls.key");
    return NodeExec({"psql", uri, "-XAtq", "-v", "ON_ERROR_STOP=1", "-w", "-c", sql},
                    absl::Seconds(20));
  }
  // As the superuser, in database postgres.
  std::string Superuser(const std::string& sql) {
    CommandResult r = Sql("objs-superuser", absl::StrCat("objs.", ns(), ".svc"), sql);
    return r.exit_code == 0 ? std::string(absl::StripAsciiWhitespace(r.output)) : "<failed>";
  }
};

TEST_F(PostgresObjectsE2E, RolesAndDatabasesAreCreatedGrantedEditedAndReclaimed) {
  OperatorProcess op(ns());
  op.Start();
  Json pg = KubernetesPostgres("objs", 1);
  pg["spec"]["authentication"] = {
      {"rules", Json::array({{{"users", Json::array({"certuser"})}, {"method", "cert"}}})}};
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("objs") && !Primary("objs").empty(); },
                                  absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";

  // A login role with a generated password (deleted with its resource), a
  // role kept on delete, and a database owned by the latter.
  ASSERT_TRUE(client()
                  .Create(kRoles, ns(),
                          Object("PostgresRole", "reader",
                                 {{"cluster", "objs"}, {"reclaimPolicy", "delete"}}))
                  .ok());
  ASSERT_TRUE(client()
                  .Create(kRoles, ns(),
                          Object("PostgresRole", "keeper", {{"cluster", "objs"}, {"login", false}}))
                  .ok());
  ASSERT_TRUE(
      client()
          .Create(
              kDatabases, ns(),
              Object("PostgresDatabase", "appdb",
                     {{"cluster", "objs"},
                      {"owner", "keeper"},
                      {"schemas", {{{"name", "reports"}}}},
                      {"extensions", {{{"name", "pg_trgm"}}}},
                      {"grants",
                       {{{"role", "reader"}, {"privileges", {"CONNECT"}}},
                        {{"role", "reader"}, {"privileges", {"USAGE"}}, {"schema", "reports"}}}},
                      {"reclaimPolicy", "delete"}}))
          .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Applied(kRoles, "reader") && Applied(kRoles, "keeper") &&
               Applied(kDatabases, "appdb");
      },
      absl::Minutes(3)))
      << "not applied: reader " << Status(kRoles, "reader").dump() << ", keeper "
      << Status(kRoles, "keeper").dump() << ", appdb " << Status(kDatabases, "appdb").dump();
  EXPECT_EQ(Status(kRoles, "reader").value("secretName", ""), "objs-role-reader");

  // The grants, as the role sees them through the primary Service (which
  // follows the primary's label and readiness with a lag: retried).
  CommandResult r;
  testenv::Eventually(
      [&] {
        r = SqlAs("objs-role-reader", "appdb",
                  "select current_user, has_schema_privilege('reports', 'USAGE'), "
                  "(select count(*) from pg_extension where extname = 'pg_trgm');");
        return r.exit_code == 0;
      },
      absl::Minutes(1));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(absl::StrContains(r.output, "reader|t|1")) << r.output;
  r = SqlAs("objs-role-reader", "appdb", "create schema mine;");
  EXPECT_NE(r.exit_code, 0) << "CREATE on the database was not granted: " << r.output;

  // Edited: CREATE on the database is granted, then the role may make a schema.
  ASSERT_TRUE(
      client()
          .Patch(kDatabases, ns(), "appdb", kube::PatchType::kMerge,
                 {{"spec",
                   {{"grants",
                     {{{"role", "reader"}, {"privileges", {"CONNECT", "CREATE"}}},
                      {{"role", "reader"}, {"privileges", {"USAGE"}}, {"schema", "reports"}}}}}}})
          .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return SqlAs("objs-role-reader", "appdb", "create schema if not exists mine;").exit_code ==
               0;
      },
      absl::Minutes(2)))
      << "the edited grant did not reach PostgreSQL: " << Status(kDatabases, "appdb").dump();

  // Removed from the list: the grant Quorum made is revoked.
  ASSERT_TRUE(
      client()
          .Patch(kDatabases, ns(), "appdb", kube::PatchType::kMerge,
                 {{"spec",
                   {{"grants",
                     {{{"role", "reader"}, {"privileges", {"CONNECT"}}},
                      {{"role", "reader"}, {"privileges", {"USAGE"}}, {"schema", "reports"}}}}}}})
          .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        CommandResult c =
            SqlAs("objs-role-reader", "appdb", "select has_database_privilege('appdb', 'CREATE');");
        return c.exit_code == 0 && absl::StrContains(c.output, "f");
      },
      absl::Minutes(2)))
      << "CREATE removed from spec.grants was not revoked: " << Status(kDatabases, "appdb").dump();

  // A failing statement shows in status, naming the grant and the role.
  ASSERT_TRUE(client()
                  .Create(kDatabases, ns(),
                          Object("PostgresDatabase", "broken",
                                 {{"cluster", "objs"},
                                  {"grants", {{{"role", "ghost"}, {"privileges", {"CONNECT"}}}}},
                                  {"reclaimPolicy", "delete"}}))
                  .ok());
  std::string message;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        message = Status(kDatabases, "broken").value("message", "");
        return absl::StrContains(message, "role \"ghost\" does not exist");
      },
      absl::Minutes(2)))
      << "status: " << Status(kDatabases, "broken").dump();
  EXPECT_TRUE(absl::StrContains(message, "grant on database broken to ghost")) << message;
  EXPECT_FALSE(Status(kDatabases, "broken").value("applied", true));

  // A role that logs in by certificate only.
  ASSERT_TRUE(client()
                  .Create(kRoles, ns(),
                          Object("PostgresRole", "certuser",
                                 {{"cluster", "objs"},
                                  {"clientCertificate", true},
                                  {"disablePassword", true},
                                  {"reclaimPolicy", "delete"}}))
                  .ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Applied(kRoles, "certuser"); }, absl::Minutes(2)))
      << Status(kRoles, "certuser").dump();
  const Json cert_status = Status(kRoles, "certuser");
  EXPECT_EQ(cert_status.value("certificateSecret", ""), "objs-role-certuser-cert");
  EXPECT_NE(cert_status.value("certificateNotAfter", ""), "") << cert_status.dump();
  EXPECT_EQ(cert_status.value("secretName", ""), "") << "a password Secret for a role without one";
  r = CertSqlAs("objs-role-certuser-cert", "select current_user;");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(absl::StrContains(r.output, "certuser")) << r.output;
  EXPECT_TRUE(absl::IsNotFound(client().Get(kSecrets, ns(), "objs-role-certuser").status()));
  EXPECT_EQ(Superuser("select rolpassword is null from pg_authid where rolname = 'certuser';"),
            "t");
  // Without clientCertificate, its Secret goes.
  ASSERT_TRUE(client()
                  .Patch(kRoles, ns(), "certuser", kube::PatchType::kMerge,
                         {{"spec", {{"clientCertificate", false}}}})
                  .ok());
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        return absl::IsNotFound(client().Get(kSecrets, ns(), "objs-role-certuser-cert").status());
      },
      absl::Minutes(1)))
      << "the certificate's Secret stayed: " << Status(kRoles, "certuser").dump();

  // retain keeps the role; delete drops the database and the role.
  ASSERT_TRUE(client().Delete(kRoles, ns(), "keeper").ok());
  ASSERT_TRUE(client().Delete(kDatabases, ns(), "appdb").ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Gone(kDatabases, "appdb"); }, absl::Minutes(2)))
      << Status(kDatabases, "appdb").dump();
  EXPECT_EQ(Superuser("select count(*) from pg_database where datname = 'appdb';"), "0");
  ASSERT_TRUE(client().Delete(kRoles, ns(), "reader").ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Gone(kRoles, "reader") && Gone(kRoles, "keeper"); },
                                  absl::Minutes(2)))
      << Status(kRoles, "reader").dump();
  EXPECT_EQ(Superuser("select string_agg(rolname, ',' order by rolname) from pg_roles "
                      "where rolname in ('keeper', 'reader');"),
            "keeper");

  // With the cluster gone, the broken database's finalizer lets it go.
  ASSERT_TRUE(client().Delete(kPostgres, ns(), "objs").ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Gone(kPostgres, "objs"); }, absl::Minutes(3)));
  ASSERT_TRUE(client().Delete(kDatabases, ns(), "broken").ok());
  EXPECT_TRUE(testenv::Eventually([&] { return Gone(kDatabases, "broken"); }, absl::Minutes(1)))
      << "the finalizer held a PostgresDatabase of a deleted cluster";
}

}  // namespace
}  // namespace quorum::e2e
