// Table tests of the EtcdCluster status phase: Ready's reason tells a cluster
// that never formed from one that lost its quorum.
#include "src/controllers/etcdcluster/status.h"

#include <gtest/gtest.h>

#include "src/controllers/etcdcluster/names.h"

namespace quorum::etcdcluster {
namespace {

EtcdCluster Cluster(bool initialized) {
  EtcdCluster c;
  c.metadata = {.name = "kv", .ns = "db", .uid = "u-1", .generation = 1};
  c.spec.replicas = 3;
  if (initialized) c.status.conditions.push_back({.type = "Initialized", .status = "True"});
  return c;
}

// Three voters; the first `healthy` of them answered their status call.
EtcdView View(const EtcdCluster& c, int healthy) {
  EtcdView v{.members_known = true, .cluster_id = 7, .leader_id = 1};
  for (int k = 0; k < 3; ++k) {
    MemberStatus m{.member = {.id = static_cast<uint64_t>(k + 1), .name = MemberName(c, k)}};
    if (k < healthy) m.status = etcd::StatusResponse{.version = "3.6.16", .leader = 1};
    v.members.push_back(m);
  }
  return v;
}

std::pair<std::string, std::string> Ready(const EtcdCluster& c, const EtcdView& v,
                                          bool converged = true) {
  const api::EtcdClusterStatus s = BuildStatus(
      {.cluster = &c, .etcd = &v, .ready_pods = 3, .converged = converged, .now = absl::Now()});
  const api::Condition* r = api::FindCondition(s, "Ready");
  return r == nullptr ? std::pair<std::string, std::string>{}
                      : std::pair<std::string, std::string>{r->status, r->reason};
}

TEST(StatusTest, ReadyReasonByObservation) {
  const EtcdView unreachable{.members_known = false, .error = "context deadline exceeded"};
  struct Case {
    const char* name;
    bool initialized;
    EtcdView view;
    std::pair<std::string, std::string> want;
  };
  const EtcdCluster fresh = Cluster(false), formed = Cluster(true);
  const std::vector<Case> cases = {
      {"never formed, nobody answers", false, unreachable, {"False", "WaitingForFirstQuorum"}},
      {"formed, nobody answers", true, unreachable, {"False", "QuorumLost"}},
      {"formed, 1 of 3 voters answers", true, View(formed, 1), {"False", "QuorumLost"}},
      {"formed, 2 of 3 voters answer", true, View(formed, 2), {"False", "StatefulSetNotReady"}},
      {"formed, all answer", true, View(formed, 3), {"True", "StatefulSetReady"}},
  };
  for (const Case& tc : cases) {
    EXPECT_EQ(Ready(tc.initialized ? formed : fresh, tc.view), tc.want) << tc.name;
  }
}

TEST(StatusTest, QuorumLostKeepsTheClusterInitializedAndSaysWhy) {
  const EtcdCluster c = Cluster(true);
  const EtcdView v{.members_known = false, .error = "context deadline exceeded"};
  const api::EtcdClusterStatus s =
      BuildStatus({.cluster = &c, .etcd = &v, .ready_pods = 0, .now = absl::Now()});
  EXPECT_EQ(api::FindCondition(s, "Initialized")->status, "True");
  EXPECT_NE(api::FindCondition(s, "Ready")->message.find("context deadline exceeded"),
            std::string::npos);
}

}  // namespace
}  // namespace quorum::etcdcluster
