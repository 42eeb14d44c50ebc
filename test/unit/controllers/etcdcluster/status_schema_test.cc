// The status the controller writes must fit the CRD's status schema, or the
// API server refuses the whole status apply (every field, members included).
#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "api/etcdcluster_schema.h"
#include "src/controllers/etcdcluster/status.h"
#include "test/unit/schema_fit.h"

namespace quorum::etcdcluster {
namespace {

TEST(StatusSchemaTest, AFullStatusFitsTheCrd) {
  const Json obj = {{"metadata", {{"name", "kv"}, {"namespace", "db"}, {"generation", 3}}},
                    {"spec",
                     {{"replicas", 2},
                      {"security",
                       {{"enableAuth", true},
                        {"tls",
                         {{"clientSecret", "cli"},
                          {"clientTrustedCASecret", "ca"},
                          {"serverSecret", "srv"}}}}}}}};
  absl::StatusOr<EtcdCluster> decoded = api::DecodeEtcdCluster(obj);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const EtcdCluster cluster = *decoded;
  EtcdView view;
  view.members_known = true;
  view.split_brain = true;
  view.leader_id = 1;
  for (uint64_t id : {1, 2}) {
    etcd::StatusResponse status;
    status.version = "3.6.16";
    status.leader = 1;
    view.members.push_back({.member = {.id = id,
                                       .name = "kv-" + std::to_string(id - 1),
                                       .peer_urls = {"https://kv-0.kv-headless.db.svc:2380"}},
                            .status = status});
  }
  const Json status = api::ToJson(BuildStatus({.cluster = &cluster,
                                               .etcd = &view,
                                               .ready_pods = 2,
                                               .converged = true,
                                               .storage_uids = {{0, "uid-0"}, {1, "uid-1"}},
                                               .now = absl::Now()}));
  ASSERT_TRUE(status["members"][0].contains("dataUID")) << status.dump();
  ASSERT_TRUE(status.contains("authSecretName"));
  const Json schema = api::EtcdClusterSchemaSource()["properties"]["status"];
  EXPECT_EQ(testing::UndeclaredFields(status, schema), std::vector<std::string>{}) << status.dump();
}

}  // namespace
}  // namespace quorum::etcdcluster
