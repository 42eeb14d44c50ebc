// ParsePostgresCluster: defaults in one place, errors naming the field path,
// and a serialised form that reads back the same.
#include "api/postgrescluster_types.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Object(Json spec) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata",
           {{"name", "hippo"},
            {"namespace", "db"},
            {"uid", "u"},
            {"generation", 4},
            {"annotations", {{"postgres.quorum.dev/trigger-switchover", "1"}}}}},
          {"spec", std::move(spec)}};
}

Json MinimalSpec() {
  return {{"postgresVersion", 15},
          {"instances",
           {{{"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}};
}

TEST(ParsePostgresClusterTest, AppliesTheDefaults) {
  absl::StatusOr<PostgresCluster> c = ParsePostgresCluster(Object(MinimalSpec()));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->metadata.name, "hippo");
  EXPECT_EQ(c->metadata.ns, "db");
  EXPECT_EQ(c->metadata.generation, 4);
  EXPECT_EQ(c->metadata.annotations.at("postgres.quorum.dev/trigger-switchover"), "1");
  const PostgresClusterSpec& s = c->spec;
  EXPECT_EQ(s.postgres_version, 15);
  EXPECT_EQ(s.image, "") << "the image follows postgresVersion, never frozen by a default";
  ASSERT_EQ(s.instances.size(), 1u);
  EXPECT_EQ(s.instances[0].name, "main");
  EXPECT_EQ(s.instances[0].replicas, 1);
  EXPECT_EQ(s.instances[0].data_volume_claim_spec["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_TRUE(s.instances[0].resources.is_null());
  EXPECT_EQ(s.patroni.leader_lease_duration_seconds, 30);
  EXPECT_EQ(s.patroni.sync_period_seconds, 10);
  EXPECT_EQ(s.patroni.retry_timeout_seconds, 10);
  EXPECT_TRUE(s.patroni.pod_api_access);
  EXPECT_EQ(s.patroni.dcs.type, "kubernetes");
  EXPECT_FALSE(s.patroni.dcs.UsesEtcd());
  EXPECT_TRUE(s.patroni.dynamic_configuration.is_null());
  EXPECT_FALSE(s.patroni.switchover.enabled);
  EXPECT_EQ(s.patroni.switchover.type, "Switchover");
  EXPECT_EQ(s.service.type, "ClusterIP");
  EXPECT_TRUE(s.users.empty());
}

TEST(ParsePostgresClusterTest, ReadsTheDesignExample) {
  absl::StatusOr<PostgresCluster> c =
      ParsePostgresCluster(examples::PostgresClusterDesignExample());
  ASSERT_TRUE(c.ok()) << c.status();
  const PostgresClusterSpec& s = c->spec;
  EXPECT_EQ(s.postgres_version, 17);
  EXPECT_EQ(s.instances[0].replicas, 3);
  EXPECT_EQ(s.instances[0].resources, Json::object());
  EXPECT_TRUE(s.patroni.dcs.UsesEtcd());
  EXPECT_EQ(s.patroni.dcs.etcd.cluster_ref, "dcs");
  EXPECT_TRUE(s.patroni.dcs.etcd.endpoints.empty());
  EXPECT_EQ(s.patroni.dynamic_configuration["postgresql"]["parameters"]["max_connections"], "200");
  ASSERT_EQ(s.users.size(), 1u);
  EXPECT_EQ(s.users[0].name, "app");
  EXPECT_EQ(s.users[0].databases, std::vector<std::string>{"app"});
}

TEST(ParsePostgresClusterTest, ReadsEveryField) {
  Json spec = MinimalSpec();
  spec["image"] = "example/pg:15";
  spec["instances"][0].update(
      {{"name", "east"},
       {"replicas", 2},
       {"resources", {{"limits", {{"cpu", "1"}}}}},
       {"affinity", {{"podAntiAffinity", Json::object()}}},
       {"tolerations", {{{"key", "k"}, {"operator", "Exists"}}}},
       {"topologySpreadConstraints",
        {{{"maxSkew", 1}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "DoNotSchedule"}}}},
       {"metadata", {{"labels", {{"env", "prod"}}}, {"annotations", {{"a", "b"}}}}}});
  spec["patroni"] = {
      {"leaderLeaseDurationSeconds", 40},
      {"syncPeriodSeconds", 5},
      {"retryTimeoutSeconds", 6},
      {"podAPIAccess", false},
      {"dcs",
       {{"type", "etcd"},
        {"etcd",
         {{"endpoints", {"https://e0:2379", "https://e1:2379"}},
          {"tlsSecret", "tls"},
          {"authSecret", "auth"},
          {"namespace", "/mine/"}}}}},
      {"switchover",
       {{"enabled", true}, {"targetInstance", "hippo-east-1"}, {"type", "Failover"}}}};
  spec["users"] = {{{"name", "app"}, {"databases", {"app", "logs"}}, {"options", {"CREATEDB"}}}};
  spec["service"] = {{"type", "LoadBalancer"}, {"metadata", {{"annotations", {{"lb", "x"}}}}}};
  absl::StatusOr<PostgresCluster> c = ParsePostgresCluster(Object(spec));
  ASSERT_TRUE(c.ok()) << c.status();
  const PostgresClusterSpec& s = c->spec;
  EXPECT_EQ(s.image, "example/pg:15");
  const PostgresInstanceSet& set = s.instances[0];
  EXPECT_EQ(set.name, "east");
  EXPECT_EQ(set.replicas, 2);
  EXPECT_EQ(set.resources["limits"]["cpu"], "1");
  EXPECT_TRUE(set.affinity.contains("podAntiAffinity"));
  EXPECT_EQ(set.tolerations.size(), 1u);
  EXPECT_EQ(set.topology_spread_constraints.size(), 1u);
  EXPECT_EQ(set.metadata.labels.at("env"), "prod");
  EXPECT_EQ(set.metadata.annotations.at("a"), "b");
  EXPECT_EQ(s.patroni.leader_lease_duration_seconds, 40);
  EXPECT_EQ(s.patroni.sync_period_seconds, 5);
  EXPECT_EQ(s.patroni.retry_timeout_seconds, 6);
  EXPECT_FALSE(s.patroni.pod_api_access);
  EXPECT_EQ(s.patroni.dcs.etcd.endpoints,
            (std::vector<std::string>{"https://e0:2379", "https://e1:2379"}));
  EXPECT_EQ(s.patroni.dcs.etcd.tls_secret, "tls");
  EXPECT_EQ(s.patroni.dcs.etcd.auth_secret, "auth");
  EXPECT_EQ(s.patroni.dcs.etcd.key_namespace, "/mine/");
  EXPECT_TRUE(s.patroni.switchover.enabled);
  EXPECT_EQ(s.patroni.switchover.target_instance, "hippo-east-1");
  EXPECT_EQ(s.patroni.switchover.type, "Failover");
  EXPECT_EQ(s.users[0].options, std::vector<std::string>{"CREATEDB"});
  EXPECT_EQ(s.service.type, "LoadBalancer");
  EXPECT_EQ(s.service.metadata.annotations.at("lb"), "x");

  // What ToJson writes reads back to the same thing.
  absl::StatusOr<PostgresCluster> again = ParsePostgresCluster(Object(ToJson(s)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ToJson(again->spec), ToJson(s));
}

// Wrong JSON types: every error names the field as kubectl would.
TEST(DecodePostgresClusterTest, TypeErrorsNameTheFieldPath) {
  struct Case {
    const char* what;
    Json spec;
    const char* field;
  };
  const Json base = MinimalSpec();
  auto with = [&](const Json& patch) {
    Json s = base;
    s.merge_patch(patch);
    return s;
  };
  Json bad_replicas = base;
  bad_replicas["instances"][0]["replicas"] = "3";
  Json bad_database = base;
  bad_database["users"] = {{{"name", "app"}, {"databases", {"app", 5}}}};
  Json bad_user = base;
  bad_user["users"] = {"app"};
  Json bad_label = base;
  bad_label["instances"][0]["metadata"] = {{"labels", {{"env", 1}}}};
  const std::vector<Case> cases = {
      {"a version as text", with({{"postgresVersion", "15"}}), "spec.postgresVersion: "},
      {"replicas as text", bad_replicas, "spec.instances[0].replicas: "},
      {"instances not a list", with({{"instances", {{"name", "x"}}}}), "spec.instances: "},
      {"a database not a string", bad_database, "spec.users[0].databases[1]: "},
      {"a user not an object", bad_user, "spec.users[0]: "},
      {"a label not a string", bad_label, "spec.instances[0].metadata.labels[env]: "},
      {"endpoints not a list",
       with({{"patroni",
              {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", "http://e:2379"}}}}}}}}),
       "spec.patroni.dcs.etcd.endpoints: "},
      {"podAPIAccess as text", with({{"patroni", {{"podAPIAccess", "yes"}}}}),
       "spec.patroni.podAPIAccess: "},
      {"clusterRef name a number",
       with(
           {{"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", 7}}}}}}}}}}),
       "spec.patroni.dcs.etcd.clusterRef.name: "},
      {"service not an object", with({{"service", "ClusterIP"}}), "spec.service: "},
      {"ttl too large for int32",
       with({{"patroni", {{"leaderLeaseDurationSeconds", int64_t{1} << 40}}}}),
       "spec.patroni.leaderLeaseDurationSeconds: "},
  };
  for (const Case& c : cases) {
    absl::StatusOr<PostgresCluster> got = DecodePostgresCluster(Object(c.spec));
    ASSERT_FALSE(got.ok()) << c.what;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_TRUE(absl::StrContains(got.status().message(), c.field))
        << c.what << ": " << got.status().message();
  }
}

// Parse refuses what admission refuses, with the same field names.
TEST(ParsePostgresClusterTest, AdmissionRulesNameTheField) {
  struct Case {
    const char* what;
    Json patch;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"an unsupported major", {{"postgresVersion", 99}}, "spec.postgresVersion"},
      {"both endpoints and clusterRef",
       {{"patroni",
         {{"dcs",
           {{"type", "etcd"},
            {"etcd", {{"endpoints", {"http://e:2379"}}, {"clusterRef", {{"name", "dcs"}}}}}}}}}},
       "spec.patroni.dcs.etcd"},
      {"a reserved user", {{"users", {{{"name", "postgres"}}}}}, "spec.users[0].name"},
      {"an unknown service type", {{"service", {{"type", "Magic"}}}}, "spec.service.type"},
  };
  for (const Case& c : cases) {
    Json spec = MinimalSpec();
    spec.merge_patch(c.patch);
    absl::StatusOr<PostgresCluster> got = ParsePostgresCluster(Object(spec));
    ASSERT_FALSE(got.ok()) << c.what;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_TRUE(absl::StrContains(got.status().message(), c.field))
        << c.what << ": " << got.status().message();
  }
}

TEST(PostgresClusterStatusTest, SerialisesAndReadsBack) {
  PostgresClusterStatus s{
      .observed_generation = 3,
      .conditions = {{.type = "Ready",
                      .status = "True",
                      .reason = "AllInstancesReady",
                      .message = "2/2 members ready",
                      .observed_generation = 3,
                      .last_transition_time = "2026-12-01T00:00:00Z"}},
      .instances = {{.name = "main", .replicas = 2, .ready_replicas = 2, .updated_replicas = 2}},
      .ready_instances = "2/2",
      .primary = "hippo-main-0",
      .primary_service = "hippo",
      .replica_service = "hippo-replicas",
      .users = {{.name = "app", .secret_name = "hippo-user-app"}},
      .patroni = {.system_identifier = "7301",
                  .switchover = PostgresSwitchoverStatus{.trigger = "1",
                                                         .type = "Switchover",
                                                         .from = "hippo-main-0",
                                                         .result = "Succeeded"}},
      .backup_repos = {{.name = "repo1",
                        .full = PgBackRestBackupRef{.backup = "hippo-repo1-full-29939100",
                                                    .label = "20261204-010000F",
                                                    .stop_time = "2026-12-04T01:00:05Z"}},
                       {.name = "repo2"}}};
  Json obj = Object(MinimalSpec());
  obj["status"] = ToJson(s);
  absl::StatusOr<PostgresCluster> c = DecodePostgresCluster(obj);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->status, s);
  EXPECT_EQ(FindCondition(c->status, "Ready")->reason, "AllInstancesReady");
  EXPECT_EQ(FindCondition(c->status, "DCSReady"), nullptr);
  EXPECT_FALSE(ToJson(PostgresClusterStatus{}).contains("primary")) << "absent until known";
  EXPECT_FALSE(ToJson(PostgresClusterStatus{}).contains("backups")) << "absent without backups";
}

}  // namespace
}  // namespace quorum::api
