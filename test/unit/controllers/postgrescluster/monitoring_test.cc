// The exporter of spec.monitoring.exporter (src/controllers/postgrescluster/
// monitoring.h): what an unset `enabled` means for new and running clusters,
// the container (no secret in its environment or arguments, no probe that
// could take the member out of its Services), the role's rights and where
// pg_hba admits it, and that turning it off leaves no trace in the pods.
#include "src/controllers/postgrescluster/monitoring.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/users.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Cluster(Json monitoring = nullptr) {
  Json c = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "hippo"}, {"namespace", "db"}, {"uid", "u1"}}},
      {"spec",
       {{"postgresVersion", 17},
        {"authentication", {{"rules", {{{"connection", "hostssl"}, {"method", "reject"}}}}}},
        {"instances",
         {{{"name", "main"},
           {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}};
  if (!monitoring.is_null()) c["spec"]["monitoring"] = monitoring;
  absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : PostgresCluster{};
}

Json Exporter(bool enabled) { return {{"exporter", {{"enabled", enabled}}}}; }

TEST(PlanExporterTest, UnsetIsOnForANewClusterAndKeepsWhatARunningOneRuns) {
  struct Case {
    const char* name;
    Json monitoring;
    ExporterEvidence evidence;
    bool want;
  } cases[] = {
      {"new cluster, unset", nullptr, {}, true},
      {"running without it (an earlier Quorum), unset", nullptr, {.has_statefulset = true}, false},
      {"running with it, unset", nullptr, {.has_statefulset = true, .runs_exporter = true}, true},
      {"running without it, enabled", Exporter(true), {.has_statefulset = true}, true},
      {"running with it, disabled",
       Exporter(false),
       {.has_statefulset = true, .runs_exporter = true},
       false},
      {"new cluster, disabled", Exporter(false), {}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PlanExporter(Cluster(c.monitoring), c.evidence), c.want) << c.name;
  }
}

TEST(ExporterContainerTest, ReadsItsPasswordFromAFileAndHasNoProbe) {
  const PostgresCluster c = Cluster();
  const Json container = ExporterContainer(c);
  EXPECT_EQ(container["name"], kExporterContainerName);
  EXPECT_EQ(container["image"], std::string(api::kDefaultExporterImage));
  EXPECT_EQ(container["ports"][0], Json({{"name", "exporter"}, {"containerPort", 9187}}));
  const std::string dump = container.dump();
  EXPECT_EQ(dump.find("secretKeyRef"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("DATA_SOURCE_NAME"), std::string::npos) << "a URI with a password";
  EXPECT_FALSE(container.contains("readinessProbe"));
  EXPECT_FALSE(container.contains("livenessProbe"));
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  const Json volume = ExporterVolume(c);
  EXPECT_EQ(volume["secret"]["secretName"], "hippo-monitoring");
  EXPECT_EQ(volume["secret"]["defaultMode"], 0440);
  const Json custom =
      ExporterContainer(Cluster({{"exporter",
                                  {{"image", "example.org/exporter:1"},
                                   {"resources", {{"limits", {{"memory", "64Mi"}}}}}}}}));
  EXPECT_EQ(custom["image"], "example.org/exporter:1");
  EXPECT_EQ(custom["resources"], Json({{"limits", {{"memory", "64Mi"}}}}));
}

TEST(ExporterMembersTest, OnAddsContainerSecretAndRoleOffRemovesThem) {
  for (bool on : {true, false}) {
    const PostgresCluster c = Cluster(Exporter(on));
    EXPECT_EQ(ExporterOn(c), on);
    const Json sts = BuildStatefulSet(c, c.spec.instances[0], {}, {});
    const Json& containers = sts["spec"]["template"]["spec"]["containers"];
    const bool has = std::any_of(containers.begin(), containers.end(),
                                 [](const Json& x) { return x["name"] == kExporterContainerName; });
    EXPECT_EQ(has, on);
    EXPECT_EQ(sts["spec"]["template"]["metadata"].contains("annotations"), on);
    if (on) {
      EXPECT_EQ(sts["spec"]["template"]["metadata"]["annotations"]
                   ["kubectl.kubernetes.io/default-container"],
                "database");
    }
    const std::vector<CredentialSpec> secrets = CredentialSecrets(c);
    const bool secret = std::any_of(secrets.begin(), secrets.end(), [](const CredentialSpec& s) {
      return s.secret == "hippo-monitoring" && s.username == "quorum_monitor";
    });
    EXPECT_EQ(secret, on);
    const std::vector<UserSpec> users = UsersOf(c, [](const std::string&) { return "pw"; });
    EXPECT_EQ(users.size(), on ? 1u : 0u);
    // Prometheus is admitted by a policy of the user's (docs/monitoring.md).
    const std::string policy = BuildNetworkPolicy(c, {})->dump();
    EXPECT_EQ(policy.find("9187"), std::string::npos) << policy;
  }
}

TEST(ExporterMembersTest, TheRoleMonitorsAndNothingMore) {
  const std::vector<UserSpec> users = UsersOf(Cluster(), [](const std::string& s) { return s; });
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(users[0].name, "quorum_monitor");
  EXPECT_EQ(users[0].password, "hippo-monitoring");
  EXPECT_TRUE(users[0].databases.empty());
  EXPECT_EQ(users[0].member_of, std::vector<std::string>{"pg_monitor"});
  const std::vector<std::string> sql =
      PlanUserSql(users, {}, {}, [](const UserSpec&) { return std::string("v"); });
  EXPECT_EQ(sql, (std::vector<std::string>{
                     "CREATE ROLE \"quorum_monitor\" WITH LOGIN NOSUPERUSER NOCREATEDB "
                     "NOCREATEROLE CONNECTION LIMIT 3 PASSWORD 'v'",
                     "GRANT \"pg_monitor\" TO \"quorum_monitor\""}));
}

TEST(ExporterMembersTest, PgHbaAdmitsTheRoleFromLoopbackOnlyBeforeAnyUserRule) {
  const std::vector<std::string> hba = PgHba(Cluster());
  auto at = [&](const std::string& line) {
    return std::find(hba.begin(), hba.end(), line) - hba.begin();
  };
  const auto admit = at("hostssl postgres quorum_monitor 127.0.0.1/32 scram-sha-256");
  const auto reject = at("host all quorum_monitor all reject");
  const auto user_rule = at("hostssl all all all reject");
  ASSERT_LT(admit, static_cast<long>(hba.size()));
  ASSERT_LT(user_rule, static_cast<long>(hba.size()));
  EXPECT_LT(admit, reject);
  EXPECT_LT(reject, user_rule);
  EXPECT_LT(at("local all quorum_monitor reject"), user_rule);
  for (const std::string& line : PgHba(Cluster(Exporter(false)))) {
    EXPECT_EQ(line.find("quorum_monitor"), std::string::npos) << line;
  }
}

TEST(ExporterApiTest, UnsetStaysUnsetAndFalseIsKept) {
  EXPECT_FALSE(Cluster().spec.monitoring.exporter.enabled.has_value());
  EXPECT_FALSE(api::ToJson(Cluster().spec).contains("monitoring"));
  EXPECT_EQ(api::ToJson(Cluster(Exporter(false)).spec)["monitoring"], Exporter(false));
}

}  // namespace
}  // namespace quorum::postgrescluster
