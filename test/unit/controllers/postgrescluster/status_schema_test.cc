// The status the controller writes must fit the CRD's status schema, or the
// API server refuses the whole status apply.
#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "api/postgrescluster_schema.h"
#include "src/controllers/postgrescluster/status.h"
#include "test/unit/schema_fit.h"

namespace quorum::postgrescluster {
namespace {

TEST(StatusSchemaTest, AFullStatusFitsTheCrd) {
  PostgresCluster cluster;
  cluster.metadata = {.name = "hippo", .ns = "db", .generation = 2};
  cluster.spec.instances = {{.name = "main", .replicas = 2}};
  cluster.spec.users = {{.name = "app", .databases = {"app"}}};
  DcsResolution dcs{.ready = true, .reason = "Resolved", .message = "ok"};
  const Json sts = {
      {"metadata", {{"generation", 1}}},
      {"status",
       {{"observedGeneration", 1}, {"replicas", 2}, {"readyReplicas", 2}, {"updatedReplicas", 2}}}};
  const Json status = api::ToJson(
      BuildStatus({.cluster = &cluster,
                   .dcs = &dcs,
                   .statefulsets = {{"main", sts}},
                   .primary = "hippo-main-0",
                   .primary_ready = true,
                   .system_identifier = "7301234567890123456",
                   .switchover = api::PostgresSwitchoverStatus{.trigger = "1",
                                                               .type = "Switchover",
                                                               .from = "hippo-main-0",
                                                               .to = "",
                                                               .time = "2026-11-30T00:00:00Z",
                                                               .result = "Succeeded",
                                                               .message = "ok"},
                   .now = absl::Now()}));
  const Json schema = api::PostgresClusterSchemaSource()["properties"]["status"];
  EXPECT_EQ(testing::UndeclaredFields(status, schema), std::vector<std::string>{}) << status.dump();
  EXPECT_EQ(status["readyInstances"], "2/2");
}

}  // namespace
}  // namespace quorum::postgrescluster
