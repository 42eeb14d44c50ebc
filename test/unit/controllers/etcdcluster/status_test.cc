// Table tests of the EtcdCluster status phase: Ready's reason tells a cluster
// that never formed from one that lost its quorum.
#include "src/controllers/etcdcluster/status.h"

#include <gtest/gtest.h>

#include "src/controllers/etcdcluster/names.h"
#include "src/runtime/conditions.h"

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

// The cluster with a Ready condition as an earlier pass wrote it.
EtcdCluster WithReady(const std::string& status, const std::string& reason, absl::Time since) {
  EtcdCluster c = Cluster(true);
  c.status.conditions.push_back({.type = "Ready",
                                 .status = status,
                                 .reason = reason,
                                 .last_transition_time = runtime::Rfc3339(since)});
  return c;
}

// The status a converged pass with every pod ready writes at `now`.
api::EtcdClusterStatus StatusAt(const EtcdCluster& c, const EtcdView& v, absl::Time now) {
  return BuildStatus({.cluster = &c, .etcd = &v, .ready_pods = 3, .converged = true, .now = now});
}

api::Condition ReadyAt(const EtcdCluster& c, const EtcdView& v, absl::Time now) {
  return *api::FindCondition(StatusAt(c, v, now), "Ready");
}

TEST(StatusTest, ReadyComesBackOnlyOnceTheQuorumHeld) {
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  const EtcdCluster lost = WithReady("False", "QuorumLost", t0);
  const EtcdView all = View(lost, 3), two = View(lost, 2), one = View(lost, 1);
  struct Case {
    const char* name;
    EtcdCluster cluster;
    EtcdView view;
    absl::Duration later;
    std::pair<std::string, std::string> want;
  };
  const std::vector<Case> cases = {
      {"lost, all answer again", lost, all, absl::Seconds(30), {"Unknown", "QuorumRecovering"}},
      {"lost, a majority answers", lost, two, absl::Seconds(1), {"Unknown", "QuorumRecovering"}},
      {"lost, still a minority", lost, one, absl::Seconds(1), {"False", "QuorumLost"}},
      {"recovering 3 s, all answer",
       WithReady("Unknown", "QuorumRecovering", t0),
       all,
       absl::Seconds(3),
       {"Unknown", "QuorumRecovering"}},
      {"recovering 10 s, all answer",
       WithReady("Unknown", "QuorumRecovering", t0),
       all,
       kQuorumSettle,
       {"True", "StatefulSetReady"}},
      {"recovering 10 s, a majority",
       WithReady("Unknown", "QuorumRecovering", t0),
       two,
       kQuorumSettle,
       {"Unknown", "QuorumRecovering"}},
      {"recovering, lost again",
       WithReady("Unknown", "QuorumRecovering", t0),
       one,
       absl::Seconds(30),
       {"False", "QuorumLost"}},
      {"a member restarts (no quorum loss)",
       WithReady("False", "StatefulSetNotReady", t0),
       all,
       absl::Seconds(1),
       {"True", "StatefulSetReady"}},
      {"ready stays ready",
       WithReady("True", "StatefulSetReady", t0),
       all,
       absl::Seconds(1),
       {"True", "StatefulSetReady"}},
  };
  for (const Case& tc : cases) {
    const api::Condition r = ReadyAt(tc.cluster, tc.view, t0 + tc.later);
    EXPECT_EQ(std::make_pair(r.status, r.reason), tc.want) << tc.name;
  }
}

TEST(StatusTest, RecoveringKeepsItsStartAndSaysWhenToLookAgain) {
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  const EtcdCluster lost = WithReady("False", "QuorumLost", t0);
  const EtcdView all = View(lost, 3);
  const api::EtcdClusterStatus first = StatusAt(lost, all, t0);
  EXPECT_EQ(RecheckReadyAfter(first, t0), kQuorumSettle);
  EXPECT_NE(api::FindCondition(first, "Ready")->message.find("majority answers again"),
            std::string::npos);
  // A later pass keeps the transition time, so the wait is not restarted.
  EtcdCluster again = lost;
  again.status = first;
  const api::EtcdClusterStatus second = StatusAt(again, all, t0 + absl::Seconds(4));
  EXPECT_EQ(api::FindCondition(second, "Ready")->last_transition_time, runtime::Rfc3339(t0));
  EXPECT_EQ(RecheckReadyAfter(second, t0 + absl::Seconds(4)), absl::Seconds(6));
  EXPECT_EQ(RecheckReadyAfter(second, t0 + absl::Seconds(30)), absl::Seconds(1));
  // Nothing to wait for once Ready is decided.
  const EtcdCluster ready = WithReady("True", "StatefulSetReady", t0);
  const api::EtcdClusterStatus settled = StatusAt(ready, all, t0);
  EXPECT_EQ(RecheckReadyAfter(settled, t0), absl::ZeroDuration());
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

// Issue 33: the storage identity each member started on is evidence. A pass
// that cannot read the member list keeps the recorded members (none healthy)
// instead of wiping them, so the next pass still sees a recreated volume as
// data loss.
TEST(StatusTest, AnUnreadableMemberListKeepsTheMembersStorageIdentity) {
  EtcdCluster c = Cluster(true);
  c.status.members = {{.name = "kv-0",
                       .id = "1",
                       .is_leader = true,
                       .healthy = true,
                       .version = "3.6.16",
                       .data_uid = "pvc-0"},
                      {.name = "kv-1", .id = "2", .healthy = true, .data_uid = "pvc-1"}};
  const EtcdView down{.members_known = false, .error = "context deadline exceeded"};
  const api::EtcdClusterStatus s =
      BuildStatus({.cluster = &c, .etcd = &down, .ready_pods = 0, .now = absl::Now()});
  ASSERT_EQ(s.members.size(), 2u);
  EXPECT_EQ(s.members[0].data_uid, "pvc-0");
  EXPECT_EQ(s.members[1].data_uid, "pvc-1");
  EXPECT_FALSE(s.members[0].healthy || s.members[0].is_leader) << "nothing is known of them now";
  EXPECT_EQ(s.leader, "");
  c.status = s;
  EXPECT_EQ(RecordedStorageUids(c, down), (std::map<int, std::string>{{0, "pvc-0"}, {1, "pvc-1"}}));

  // Read again: a listed member keeps its record even when another volume
  // is offered now (a recreated claim is data loss, not a new identity).
  const EtcdView back = View(c, 3);
  const api::EtcdClusterStatus again =
      BuildStatus({.cluster = &c,
                   .etcd = &back,
                   .ready_pods = 3,
                   .converged = true,
                   .storage_uids = {{0, "pvc-0-new"}, {2, "pvc-2"}},
                   .now = absl::Now()});
  ASSERT_EQ(again.members.size(), 3u);
  EXPECT_EQ(again.members[0].data_uid, "pvc-0");
  EXPECT_EQ(again.members[2].data_uid, "pvc-2");
}

// A member replaced at its ordinal (an emptyDir roll: removed, then a new
// member joins from the new pod) has a new ID: it records the storage it
// started on, never the one of the member it replaced, even when a pass that
// could not read the member list kept the old record.
TEST(StatusTest, AMemberReplacedAtItsOrdinalStartsACleanRecord) {
  EtcdCluster c = Cluster(true);
  c.status.members = {{.name = "kv-0", .id = "1", .healthy = true, .data_uid = "pod-0-old"},
                      {.name = "kv-1", .id = "2", .healthy = true, .data_uid = "pod-1"},
                      {.name = "kv-2", .id = "3", .healthy = true, .data_uid = "pod-2"}};
  EtcdView replaced = View(c, 3);
  replaced.members[0].member.id = 9;  // kv-0 is a new member now
  replaced.leader_id = 2;
  for (MemberStatus& m : replaced.members) m.status->leader = 2;
  EXPECT_EQ(RecordedStorageUids(c, replaced),
            (std::map<int, std::string>{{1, "pod-1"}, {2, "pod-2"}}));
  const api::EtcdClusterStatus s = BuildStatus({.cluster = &c,
                                                .etcd = &replaced,
                                                .ready_pods = 3,
                                                .converged = true,
                                                .storage_uids = {{0, "pod-0-new"}},
                                                .now = absl::Now()});
  ASSERT_EQ(s.members.size(), 3u);
  EXPECT_EQ(s.members[0].data_uid, "pod-0-new");
}

}  // namespace
}  // namespace quorum::etcdcluster
