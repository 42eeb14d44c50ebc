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
                                       .peer_urls = {"https://kv-0.kv-headless.db.svc:2380"},
                                       .client_urls = {"https://kv-0.kv-headless.db.svc:2379"}},
                            .status = status});
  }
  const Json status = api::ToJson(BuildStatus({.cluster = &cluster,
                                               .etcd = &view,
                                               .ready_pods = 2,
                                               .statefulset_replicas = 2,
                                               .converged = true,
                                               .storage_uids = {{0, "uid-0"}, {1, "uid-1"}},
                                               .space_alarm = true,
                                               .space_message = "compacting",
                                               .auth_on = true,
                                               .now = absl::Now()}));
  ASSERT_TRUE(status["members"][0].contains("dataUID")) << status.dump();
  EXPECT_EQ(status["members"][0].value("clientURL", ""), "https://kv-0.kv-headless.db.svc:2379");
  ASSERT_TRUE(status.contains("authSecretName"));
  EXPECT_EQ(status["replicas"], 2);
  EXPECT_EQ(status["selector"], "app.kubernetes.io/instance=kv,app.kubernetes.io/name=etcd");
  const Json schema = api::EtcdClusterSchemaSource()["properties"]["status"];
  EXPECT_EQ(testing::UndeclaredFields(status, schema), std::vector<std::string>{}) << status.dump();
}

// SpaceAlarm appears with a NOSPACE alarm and stays (False) after it is
// disarmed; a cluster that never had one does not get the condition.
TEST(StatusTest, SpaceAlarmCondition) {
  EtcdCluster cluster;
  cluster.metadata = {.name = "kv", .ns = "db", .generation = 1};
  EtcdView view;
  auto find = [](const api::EtcdClusterStatus& s) { return api::FindCondition(s, "SpaceAlarm"); };
  StatusInput in{.cluster = &cluster, .etcd = &view, .now = absl::Now()};
  EXPECT_EQ(find(BuildStatus(in)), nullptr);
  in.space_alarm = true;
  in.space_message = "compacting the key history";
  cluster.status = BuildStatus(in);
  ASSERT_NE(find(cluster.status), nullptr);
  EXPECT_EQ(find(cluster.status)->status, "True");
  EXPECT_NE(find(cluster.status)->message.find("compacting"), std::string::npos);
  in.space_alarm = false;
  const api::EtcdClusterStatus after = BuildStatus(in);
  ASSERT_NE(find(after), nullptr);
  EXPECT_EQ(find(after)->status, "False");
  EXPECT_EQ(find(after)->reason, "NoAlarm");
}

}  // namespace
}  // namespace quorum::etcdcluster
