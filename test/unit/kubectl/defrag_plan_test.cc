// defrag's pure half: reading etcdctl's endpoint status JSON and the order —
// followers by name, the leader last.
#include "src/kubectl/defrag_plan.h"

#include <gtest/gtest.h>

namespace quorum::kubectl {
namespace {

TEST(ParseEndpointStatusTest, ReadsIdsAndSizesOrRefuses) {
  // As etcdctl 3.6 prints `endpoint status -w json` (ids beyond 2^53 stay exact).
  const std::string out =
      R"([{"Endpoint":"https://e-0.e-headless.ns.svc:2379","Status":{"header":{"cluster_id":1,)"
      R"("member_id":18249187646912138824,"revision":9,"raft_term":2},"version":"3.6.5",)"
      R"("dbSize":25001984,"leader":18249187646912138824,"raftIndex":10,"dbSizeInUse":98304}}])";
  absl::StatusOr<EndpointStatus> s = ParseEndpointStatus(out);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->member_id, 18249187646912138824ull);
  EXPECT_EQ(s->leader_id, 18249187646912138824ull);
  EXPECT_EQ(s->db_size, 25001984);
  EXPECT_EQ(s->db_size_in_use, 98304);
  for (const char* bad : {"", "{}", "[]", R"([{"Status":{}}])", "not json"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseEndpointStatus(bad).status())) << bad;
  }
}

TEST(PlanDefragTest, FollowersByNameThenTheLeader) {
  const std::vector<EtcdMemberEndpoint> members = {{"e-0", "u0"}, {"e-1", "u1"}, {"e-2", "u2"}};
  struct Case {
    std::map<std::string, EndpointStatus> statuses;
    std::vector<std::string> want;
    std::string leader;
  };
  const std::vector<Case> cases = {
      {{{"e-0", {1, 1}}, {"e-1", {2, 1}}, {"e-2", {3, 1}}}, {"e-1", "e-2", "e-0"}, "e-0"},
      {{{"e-0", {1, 2}}, {"e-1", {2, 2}}, {"e-2", {3, 2}}}, {"e-0", "e-2", "e-1"}, "e-1"},
      {{{"e-0", {1, 3}}, {"e-1", {2, 3}}, {"e-2", {3, 3}}}, {"e-0", "e-1", "e-2"}, "e-2"},
      // No leader known (an election): name order, no member marked leader.
      {{{"e-0", {1, 0}}, {"e-1", {2, 0}}}, {"e-0", "e-1", "e-2"}, ""},
  };
  for (const Case& c : cases) {
    std::vector<std::string> got;
    std::string leader;
    for (const DefragStep& s : PlanDefrag(members, c.statuses)) {
      got.push_back(s.member.name);
      if (s.leader) leader += s.member.name;
    }
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(leader, c.leader);
  }
}

}  // namespace
}  // namespace quorum::kubectl
