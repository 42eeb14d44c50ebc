// Issue 36: an etcd image change is judged before it rolls, and rolls one
// member at a time, followers first and the leader last after leadership
// moved (src/controllers/etcdcluster/roll.h). A 3-member PVC cluster on etcd
// 3.5 (the node's 3.5 image, a late 3.5 patch) asked for 3.7 keeps its image
// (a skipped minor: condition VersionSupported False naming the rule, no pod
// restarted); asked for 3.6.16 it rolls, the members answer 3.6.16; 3.7 is
// then refused because the cluster ran 3.5 (its logs may hold entries 3.7
// cannot replay) until every member has taken a Raft snapshot since all ran
// 3.6, and then it rolls on to 3.7.3; every write a client had acknowledged
// throughout is still there. A cluster born on 3.6 rolls to 3.7.3. An
// emptyDir cluster goes 3.5 -> 3.6 -> 3.7 by replacing each member.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/e2e/e2e_env.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kEvents{"", "v1", "events"};
// hack/images.sh etcd-3.5, etcd-3.6 and etcd-3.7.
constexpr char kEtcd35[] = "quay.io/coreos/etcd:v3.5.35";
constexpr char kEtcd36[] = "quay.io/coreos/etcd:v3.6.16";
constexpr char kEtcd37[] = "quay.io/coreos/etcd:v3.7.3";

class EtcdUpgradeE2E : public E2ETest {
 protected:
  Json PodTemplate(const std::string& image) {
    return {{"spec", {{"containers", Json::array({{{"name", "etcd"}, {"image", image}}})}}}};
  }
  // A 3-member EtcdCluster `name` on `image`, on 1Gi claims or on emptyDir.
  void Create3Members(const std::string& name, const std::string& image, bool claims,
                      const Json& options = Json::object()) {
    const Json storage = claims ? Json{{"volumeClaimTemplate",
                                        {{"spec",
                                          {{"accessModes", {"ReadWriteOnce"}},
                                           {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}
                                : Json{{"emptyDir", Json::object()}};
    const Json cluster = {
        {"apiVersion", "etcd.aenix.io/v1alpha1"},
        {"kind", "EtcdCluster"},
        {"metadata", {{"name", name}, {"namespace", ns()}}},
        {"spec", {{"replicas", 3}, {"podTemplate", PodTemplate(image)}, {"storage", storage}}}};
    Json with_options = cluster;
    if (!options.empty()) with_options["spec"]["options"] = options;
    ASSERT_TRUE(client().Create(kEtcdClusters, ns(), with_options).ok());
  }
  void SetImage(const std::string& name, const std::string& image) {
    ASSERT_TRUE(client()
                    .Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge,
                           {{"spec", {{"podTemplate", PodTemplate(image)}}}})
                    .ok());
  }
  // The versions the members answer, as status reports them.
  std::set<std::string> Versions(const std::string& name) {
    std::set<std::string> out;
    auto c = GetEtcdCluster(name);
    if (!c.ok()) return out;
    for (const Json& m : c->value("status", Json::object()).value("members", Json::array())) {
      out.insert(m.value("version", ""));
    }
    return out;
  }
  Json Condition(const std::string& name, const std::string& type) {
    auto c = GetEtcdCluster(name);
    if (!c.ok()) return Json::object();
    for (const Json& cond : c->value("status", Json::object()).value("conditions", Json::array())) {
      if (cond.value("type", "") == type) return cond;
    }
    return Json::object();
  }
  std::string StatefulSetImage(const std::string& name) {
    auto sts = client().Get(kStatefulSets, ns(), name);
    if (!sts.ok()) return "";
    for (const Json& c : (*sts)["spec"]["template"]["spec"]["containers"]) {
      if (c.value("name", "") == "etcd") return c.value("image", "");
    }
    return "";
  }
  std::string Leader(const std::string& name) {
    auto c = GetEtcdCluster(name);
    return c.ok() ? c->value("status", Json::object()).value("leader", "") : "";
  }
  // The EtcdCluster's events of these reasons, oldest first: "Reason: message".
  std::vector<std::string> Steps(const std::string& name, const std::set<std::string>& reasons) {
    std::vector<std::pair<std::pair<std::string, uint64_t>, std::string>> found;
    auto events = client().List(kEvents, ns());
    if (!events.ok()) return {};
    for (const Json& e : events->value("items", Json::array())) {
      const std::string reason = e.value("reason", "");
      if (e["involvedObject"].value("name", "") != name || !reasons.contains(reason)) continue;
      uint64_t rv = 0;
      (void)absl::SimpleAtoi(e["metadata"].value("resourceVersion", "0"), &rv);
      found.push_back({{e["metadata"].value("creationTimestamp", ""), rv},
                       reason + ": " + e.value("message", "")});
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& [at, text] : found) out.push_back(text);
    return out;
  }
  // Followers first, the leader last after leadership moved away from it:
  // `steps` (Steps of RollPod/ReplaceMember/MoveLeader) roll every pod of
  // `pods` once, `leader`'s last and after a MoveLeader away from it.
  void ExpectLeaderLast(const std::vector<std::string>& steps, const std::vector<std::string>& pods,
                        const std::string& leader, const std::string& roll_reason) {
    std::string all;
    for (const std::string& st : steps) all += "\n  " + st;
    std::vector<std::string> rolled;
    bool moved_before_leader_rolled = false;
    for (const std::string& st : steps) {
      if (absl::StartsWith(st, "MoveLeader: ") && absl::StrContains(st, "from " + leader + " ")) {
        moved_before_leader_rolled = true;
      }
      if (!absl::StartsWith(st, roll_reason + ": ")) continue;
      for (const std::string& pod : pods) {
        if (absl::StrContains(st, " " + pod + " ")) rolled.push_back(pod);
      }
      if (!rolled.empty() && rolled.back() == leader) {
        EXPECT_TRUE(moved_before_leader_rolled) << "the leader rolled while leading:" << all;
      }
    }
    ASSERT_EQ(rolled.size(), pods.size()) << "each pod rolls once:" << all;
    EXPECT_EQ(rolled.back(), leader) << "the leader rolls last:" << all;
  }
  void ExpectEveryAcknowledgedWrite(const std::string& name, const std::vector<int>& acknowledged) {
    ASSERT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
    CommandResult keys;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          keys = Etcdctl(ns(), name, {"get", "w/", "--prefix", "--keys-only"});
          return keys.exit_code == 0;
        },
        absl::Minutes(1)))
        << keys.output;
    std::set<std::string> stored;
    for (absl::string_view line : absl::StrSplit(keys.output, '\n', absl::SkipWhitespace())) {
      stored.insert(std::string(line));
    }
    std::vector<int> lost;
    for (int i : acknowledged) {
      if (!stored.contains(absl::StrCat("w/", i))) lost.push_back(i);
    }
    EXPECT_TRUE(lost.empty()) << lost.size() << " acknowledged writes lost";
  }
  std::map<std::string, std::string> PodUids(const std::string& name) {
    std::map<std::string, std::string> out;
    for (const auto& [pod, uid] : EtcdPods(name)) out[pod] = uid;
    return out;
  }
};

TEST_F(EtcdUpgradeE2E, ASkippedMinorIsRefusedAndEachMinorUpRollsKeepingEveryWrite) {
  OperatorProcess op(ns());
  op.Start();
  // A Raft snapshot every 300 applied entries (etcd's default is 10,000), so
  // that the test can write past the snapshot that lets 3.7 in.
  ASSERT_NO_FATAL_FAILURE(
      Create3Members("up", kEtcd35, /*claims=*/true, {{"snapshot-count", "300"}}));
  ASSERT_TRUE(testenv::Eventually(
      [&] { return EtcdClusterReady("up") && Versions("up") == std::set<std::string>{"3.5.35"}; },
      absl::Minutes(6)))
      << "the 3.5 cluster did not become Ready";

  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), "up", {"put", absl::StrCat("w/", i), "v"}).exit_code == 0;
      },
      absl::Milliseconds(200));

  // 3.5 → 3.7 skips a minor: refused, nothing rolls.
  const std::map<std::string, std::string> before = PodUids("up");
  SetImage("up", kEtcd37);
  ASSERT_TRUE(testenv::Eventually(
      [&] { return Condition("up", "VersionSupported").value("status", "") == "False"; },
      absl::Minutes(1)))
      << Condition("up", "VersionSupported");
  EXPECT_EQ(Condition("up", "VersionSupported").value("reason", ""), "UnsupportedVersionPath");
  EXPECT_TRUE(
      absl::StrContains(Condition("up", "VersionSupported").value("message", ""), "skips a minor"))
      << Condition("up", "VersionSupported");
  absl::SleepFor(absl::Seconds(10));  // a roll, if one had started, would show by now
  EXPECT_EQ(StatefulSetImage("up"), kEtcd35);
  EXPECT_EQ(PodUids("up"), before) << "a member was restarted for a refused image";

  // 3.5.35 → 3.6.16: one minor up from a late 3.5 patch rolls, followers
  // first, the leader last after leadership moved.
  const std::string leader = Leader("up");
  ASSERT_FALSE(leader.empty());
  SetImage("up", kEtcd36);
  const absl::Time t0 = absl::Now();
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return StatefulSetImage("up") == kEtcd36 && EtcdClusterReady("up") &&
               Versions("up") == std::set<std::string>{"3.6.16"};
      },
      absl::Minutes(8)))
      << "the upgrade to 3.6.16 did not finish";
  std::printf("upgrade 3.5.35 -> 3.6.16 of 3 members: %.1f s\n",
              absl::ToDoubleSeconds(absl::Now() - t0));
  EXPECT_EQ(Condition("up", "VersionSupported").value("status", ""), "True");
  const std::vector<std::string> to36 = Steps("up", {"RollPod", "MoveLeader"});
  ExpectLeaderLast(to36, {"up-0", "up-1", "up-2"}, leader, "RollPod");

  // 3.6.16 → 3.7.3 right after is refused for a cluster that ran 3.5: its
  // members' logs still hold entries 3.7 cannot replay, until each member
  // has taken a Raft snapshot after all ran 3.6 (status.minorSince).
  const std::map<std::string, std::string> on36 = PodUids("up");
  SetImage("up", kEtcd37);
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return absl::StrContains(Condition("up", "VersionSupported").value("message", ""),
                                 "ran etcd 3.5.35");
      },
      absl::Minutes(1)))
      << Condition("up", "VersionSupported");
  EXPECT_TRUE(
      absl::StrContains(Condition("up", "VersionSupported").value("message", ""), "writes to go"))
      << Condition("up", "VersionSupported");
  absl::SleepFor(absl::Seconds(10));  // a roll, if one had started, would show by now
  EXPECT_EQ(StatefulSetImage("up"), kEtcd36);
  EXPECT_EQ(PodUids("up"), on36) << "a member was restarted for a refused image";

  // Past the snapshot: the image held back rolls on to 3.7.3 by itself.
  for (int i = 0; i < 350; ++i) {
    ASSERT_EQ(Etcdctl(ns(), "up", {"put", absl::StrCat("b/", i), "v"}).exit_code, 0);
  }
  const absl::Time t1 = absl::Now();
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return StatefulSetImage("up") == kEtcd37 && EtcdClusterReady("up") &&
               Versions("up") == std::set<std::string>{"3.7.3"};
      },
      absl::Minutes(8)))
      << "the upgrade to 3.7.3 did not finish: " << Condition("up", "VersionSupported");
  std::printf("then 3.6.16 -> 3.7.3 once every member snapshotted: %.1f s\n",
              absl::ToDoubleSeconds(absl::Now() - t1));
  EXPECT_EQ(Condition("up", "VersionSupported").value("status", ""), "True");
  absl::SleepFor(absl::Seconds(2));
  ExpectEveryAcknowledgedWrite("up", writer.Stop());
}

// A cluster born on 3.6 goes on to 3.7 the same way, leader last.
TEST_F(EtcdUpgradeE2E, AClusterBornOn36RollsTo37LeaderLast) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(Create3Members("next", kEtcd36, /*claims=*/true));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return EtcdClusterReady("next") && Versions("next") == std::set<std::string>{"3.6.16"};
      },
      absl::Minutes(6)))
      << "the 3.6 cluster did not become Ready";
  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), "next", {"put", absl::StrCat("w/", i), "v"}).exit_code == 0;
      },
      absl::Milliseconds(200));
  absl::SleepFor(absl::Seconds(2));
  const std::string leader = Leader("next");
  ASSERT_FALSE(leader.empty());
  SetImage("next", kEtcd37);
  const absl::Time t0 = absl::Now();
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return StatefulSetImage("next") == kEtcd37 && EtcdClusterReady("next") &&
               Versions("next") == std::set<std::string>{"3.7.3"};
      },
      absl::Minutes(8)))
      << "the upgrade to 3.7.3 did not finish";
  std::printf("upgrade 3.6.16 -> 3.7.3 of 3 members: %.1f s\n",
              absl::ToDoubleSeconds(absl::Now() - t0));
  ExpectLeaderLast(Steps("next", {"RollPod", "MoveLeader"}), {"next-0", "next-1", "next-2"}, leader,
                   "RollPod");
  absl::SleepFor(absl::Seconds(2));
  ExpectEveryAcknowledgedWrite("next", writer.Stop());
}

// An emptyDir member has no data to keep: each is removed and comes back
// with the new image as a new member (learner, promoted), one at a time,
// followers first and the leader last, and no acknowledged write is lost.
TEST_F(EtcdUpgradeE2E, AnEmptyDirClusterUpgradesByReplacingOneMemberAtATime) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(
      Create3Members("em", kEtcd35, /*claims=*/false, {{"snapshot-count", "300"}}));
  ASSERT_TRUE(testenv::Eventually(
      [&] { return EtcdClusterReady("em") && Versions("em") == std::set<std::string>{"3.5.35"}; },
      absl::Minutes(6)))
      << "the 3.5 cluster did not become Ready";
  std::set<uint64_t> ids_before;
  for (const Member& m : MemberList(ns(), "em")) ids_before.insert(m.id);
  ASSERT_EQ(ids_before.size(), 3u);
  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), "em", {"put", absl::StrCat("w/", i), "v"}).exit_code == 0;
      },
      absl::Milliseconds(200));
  absl::SleepFor(absl::Seconds(2));
  const std::string leader = Leader("em");
  ASSERT_FALSE(leader.empty());
  SetImage("em", kEtcd36);
  const absl::Time t0 = absl::Now();
  ASSERT_TRUE(testenv::Eventually(
      [&] { return EtcdClusterReady("em") && Versions("em") == std::set<std::string>{"3.6.16"}; },
      absl::Minutes(10)))
      << "the upgrade to 3.6.16 did not finish";
  std::printf("emptyDir upgrade 3.5.35 -> 3.6.16 of 3 members: %.1f s\n",
              absl::ToDoubleSeconds(absl::Now() - t0));
  ExpectLeaderLast(Steps("em", {"ReplaceMember", "MoveLeader"}), {"em-0", "em-1", "em-2"}, leader,
                   "ReplaceMember");
  std::vector<Member> after = MemberList(ns(), "em");
  ASSERT_EQ(after.size(), 3u);
  for (const Member& m : after) {
    EXPECT_FALSE(ids_before.contains(m.id)) << m.name << " kept its member ID: not replaced";
    EXPECT_FALSE(m.learner) << m.name;
  }

  // On to 3.7.3 once every member has snapshotted since all ran 3.6 (the
  // replaced members joined with the leader's log, 3.5's entries included).
  // The writes that drive those snapshots go first: once the image changes,
  // the client Service may route a put to a member that is being replaced.
  for (int i = 0; i < 350; ++i) {
    ASSERT_EQ(Etcdctl(ns(), "em", {"put", absl::StrCat("b/", i), "v"}).exit_code, 0);
  }
  SetImage("em", kEtcd37);
  const absl::Time t1 = absl::Now();
  ASSERT_TRUE(testenv::Eventually(
      [&] { return EtcdClusterReady("em") && Versions("em") == std::set<std::string>{"3.7.3"}; },
      absl::Minutes(10)))
      << "the upgrade to 3.7.3 did not finish: " << Condition("em", "VersionSupported");
  std::printf("then emptyDir 3.6.16 -> 3.7.3: %.1f s\n", absl::ToDoubleSeconds(absl::Now() - t1));
  absl::SleepFor(absl::Seconds(2));
  ExpectEveryAcknowledgedWrite("em", writer.Stop());
}

}  // namespace
}  // namespace quorum::e2e
