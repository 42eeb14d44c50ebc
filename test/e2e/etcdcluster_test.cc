// Scenario 1 of issue 6: a 3-member EtcdCluster on emptyDir becomes Ready on
// real etcd pods; data written survives scaling to 5 and back to 3; a member
// pod deleted is replaced and the cluster returns to 3 healthy voters.
// Scenario 5: the operator killed in the middle of a scale-up and restarted
// completes it. And a crash at each membership failpoint (src/base/failpoint.h)
// leaves a cluster that a restarted operator converges, data intact. And a
// full backend quota (NOSPACE) is compacted, defragmented and disarmed.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "src/base/failpoint.h"
#include "test/e2e/e2e_env.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
constexpr absl::Duration kConverge = absl::Minutes(4);

Json Cluster(const std::string& ns, const std::string& name, int replicas) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"replicas", replicas}, {"storage", {{"emptyDir", Json::object()}}}}}};
}

class EtcdClusterE2E : public E2ETest {
 protected:
  // Ready, `n` members that are all voters, all with a client URL, and the
  // cluster healthy through every member.
  bool Converged(const std::string& name, int n) {
    if (!EtcdClusterReady(name)) return false;
    std::vector<Member> members = MemberList(ns(), name);
    if (static_cast<int>(members.size()) != n) return false;
    for (const Member& m : members)
      if (m.learner || m.client_urls.empty()) return false;
    CommandResult health = Etcdctl(ns(), name, {"endpoint", "health", "--cluster"});
    return health.exit_code == 0;
  }

  void Scale(const std::string& name, int replicas) {
    auto r = client().Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge,
                            {{"spec", {{"replicas", replicas}}}});
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // Pod name -> uid of the cluster's members.
  std::map<std::string, std::string> PodUids(const std::string& name) {
    std::map<std::string, std::string> out;
    for (const auto& [pod, uid] : EtcdPods(name)) out[pod] = uid;
    return out;
  }

  // The reason of the Storage condition ("" none).
  std::string StorageReason(const std::string& name) {
    absl::StatusOr<Json> got = GetEtcdCluster(name);
    if (!got.ok()) return "";
    for (const Json& c : got->value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == "Storage") return c.value("reason", "");
    }
    return "";
  }

  std::string Get(const std::string& name, const std::string& key) {
    CommandResult r = Etcdctl(ns(), name, {"get", key, "--print-value-only"});
    return r.exit_code == 0 ? r.output : "(error) " + r.output;
  }

  // `key` reads back `want` through the client Service. Right after a
  // scale-down the Service may still route to a removed member's pod for a
  // probe period (its etcd has exited; the kubelet has not yet seen it), so a
  // connection error is retried; a wrong value is not.
  void ExpectValue(const std::string& name, const std::string& key, const std::string& want) {
    std::string got;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          got = Get(name, key);
          return got.rfind("(error)", 0) != 0;
        },
        absl::Minutes(1)))
        << got;
    EXPECT_EQ(got, want);
  }
  void ExpectSurvivor(const std::string& name) {
    ExpectValue(name, "survivor", "before-scaling\n");
  }
};

TEST_F(EtcdClusterE2E, ThreeMembersScaleAndReplace) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Cluster(ns(), "kv", 3)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("kv", 3); }, kConverge))
      << "3 members did not converge";

  CommandResult put = Etcdctl(ns(), "kv", {"put", "survivor", "before-scaling"});
  ASSERT_EQ(put.exit_code, 0) << put.output;

  Scale("kv", 5);
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("kv", 5); }, kConverge))
      << "scale to 5 did not converge";
  ExpectSurvivor("kv");

  Scale("kv", 3);
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("kv", 3); }, kConverge))
      << "scale back to 3 did not converge";
  ExpectSurvivor("kv");
  // A kubelet gives the scaled-away members' pods their grace period: they go soon
  // after the cluster has converged, not necessarily before.
  EXPECT_TRUE(testenv::Eventually([&] { return EtcdPods("kv").size() == 3u; }, kConverge))
      << EtcdPods("kv").size() << " pods";

  // A member's pod (and with emptyDir its data) is lost.
  std::string old_uid;
  for (const auto& [pod, uid] : EtcdPods("kv"))
    if (pod == "kv-1") old_uid = uid;
  ASSERT_FALSE(old_uid.empty());
  std::set<uint64_t> ids_before;
  for (const Member& m : MemberList(ns(), "kv")) ids_before.insert(m.id);
  ASSERT_TRUE(client().Delete(kPods, ns(), "kv-1").ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        bool replaced = false;
        for (const auto& [pod, uid] : EtcdPods("kv")) replaced |= pod == "kv-1" && uid != old_uid;
        return replaced && Converged("kv", 3);
      },
      kConverge))
      << "the deleted member was not replaced";
  std::set<uint64_t> ids_after;
  for (const Member& m : MemberList(ns(), "kv")) ids_after.insert(m.id);
  EXPECT_NE(ids_before, ids_after) << "kv-1 came back with empty data: it must be a new member";
  ExpectSurvivor("kv");
  for (const Member& m : MemberList(ns(), "kv")) {
    CommandResult status = NodeExec({testenv::GetControlPlane()->bin_dir + "/etcdctl",
                                     "--endpoints=" + m.client_urls[0], "endpoint", "status"});
    EXPECT_EQ(status.exit_code, 0) << m.name << ": " << status.output;
  }
}

TEST_F(EtcdClusterE2E, OperatorKilledMidScaleResumes) {
  auto op = std::make_unique<OperatorProcess>(ns());
  op->Start();
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Cluster(ns(), "mid", 3)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("mid", 3); }, kConverge));
  ASSERT_EQ(Etcdctl(ns(), "mid", {"put", "k", "v"}).exit_code, 0);

  Scale("mid", 5);
  // Kill the operator as soon as the scale-up is under way: a 4th member
  // exists (learner or voter) but the fifth does not yet.
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        size_t n = MemberList(ns(), "mid").size();
        return n == 4;
      },
      kConverge))
      << "the scale-up never reached 4 members";
  op->Kill();
  std::vector<Member> frozen = MemberList(ns(), "mid");
  EXPECT_LT(frozen.size(), 5u);

  op = std::make_unique<OperatorProcess>(ns());
  op->Start();
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("mid", 5); }, kConverge))
      << "the restarted operator did not finish the scale-up";
  ExpectValue("mid", "k", "v\n");
}

TEST_F(EtcdClusterE2E, CrashAtEachMembershipStepResumes) {
  {
    OperatorProcess op(ns());
    op.Start();
    ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Cluster(ns(), "fp", 1)).ok());
    ASSERT_TRUE(testenv::Eventually([&] { return Converged("fp", 1); }, kConverge));
    ASSERT_EQ(Etcdctl(ns(), "fp", {"put", "k", "v"}).exit_code, 0);
  }
  // Each line: a failpoint that the change to `replicas` must reach.
  const std::vector<std::pair<std::string, int>> steps = {
      {"etcdcluster/after-AddLearner", 3},
      {"etcdcluster/after-RemoveMember", 1},
      {"etcdcluster/after-Promote", 3},
      {"etcdcluster/before-RemoveMember", 1},
  };
  for (const auto& [failpoint, replicas] : steps) {
    SCOPED_TRACE(failpoint);
    OperatorProcess crashing(ns());
    crashing.Start({"QUORUM_FAILPOINTS=" + failpoint});
    Scale("fp", replicas);
    ASSERT_EQ(crashing.WaitExit(kConverge), kFailpointExitCode)
        << "the operator never reached " << failpoint << "; log " << crashing.log_path();
    OperatorProcess op(ns());
    op.Start();
    ASSERT_TRUE(testenv::Eventually([&] { return Converged("fp", replicas); }, kConverge))
        << "no convergence to " << replicas << " after a crash at " << failpoint;
    ExpectValue("fp", "k", "v\n");
  }
}

// Issue 14.11: an etcd with a small backend quota, one key rewritten with
// large values until the history fills the quota: etcd raises NOSPACE and
// refuses writes. The operator compacts, defragments every member (followers
// first), disarms the alarm and says so in events; writes succeed again.
TEST_F(EtcdClusterE2E, NoSpaceAlarmIsCompactedDefragmentedAndDisarmed) {
  OperatorProcess op(ns());
  op.Start();
  Json full = Cluster(ns(), "full", 3);
  full["spec"]["options"] = {{"quota-backend-bytes", "16777216"}};  // 16 MiB
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), full).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("full", 3); }, kConverge))
      << "the 3-member cluster did not converge";

  const CommandResult last = FillUntilNoSpace(ns(), "full");
  ASSERT_TRUE(absl::StrContains(last.output, "database space exceeded"))
      << "etcd never refused a write for space: " << last.output;

  CommandResult write;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        write = Etcdctl(ns(), "full", {"put", "after", "ok"});
        return write.exit_code == 0;
      },
      absl::Minutes(5)))
      << "writes never succeeded again: " << write.output;
  EXPECT_EQ(Get("full", "after"), "ok\n");
  CommandResult alarms = Etcdctl(ns(), "full", {"alarm", "list"});
  EXPECT_EQ(alarms.exit_code, 0) << alarms.output;
  EXPECT_FALSE(absl::StrContains(alarms.output, "NOSPACE")) << alarms.output;
  // The events of a reconcile are recorded after its steps (and sent by the
  // recorder in the background): the write above may succeed before they land.
  std::set<std::string> reasons;
  const std::vector<std::string> wanted = {"Compacted", "Defragmented", "NoSpaceAlarmDisarmed"};
  auto all_told = [&] {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) reasons.insert(e.value("reason", ""));
    for (const std::string& want : wanted)
      if (!reasons.count(want)) return false;
    return true;
  };
  EXPECT_TRUE(testenv::Eventually(all_told, absl::Seconds(30)))
      << "events seen: " << absl::StrJoin(reasons, ", ");
}

// Issue 33, the EtcdCluster half of the day-2 matrix: edits users make to a
// running, PVC-backed cluster while a writer puts a key every 200 ms through
// the client Service. Scaling 3 -> 5 -> 3, a pod-template change (rolled) and
// growing storage (claims raised, the StatefulSet re-created, no member
// restarted) are carried out; switching on client TLS, shrinking storage and switching
// the storage type are refused naming their field. After each, the cluster
// converges at its new generation; quorum is never reported lost; every
// acknowledged write reads back at the end.
TEST_F(EtcdClusterE2E, DayTwoEditsUnderAWriterKeepEveryAcknowledgedWrite) {
  OperatorProcess op(ns());
  op.Start();
  Json cluster = Cluster(ns(), "d2", 3);
  cluster["spec"]["storage"] = {{"volumeClaimTemplate",
                                 {{"spec",
                                   {{"accessModes", {"ReadWriteOnce"}},
                                    {"resources", {{"requests", {{"storage", "2Gi"}}}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), cluster).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("d2", 3); }, kConverge))
      << "3 members did not converge";

  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), "d2", {"put", absl::StrCat("w/", i), "v"}).exit_code == 0;
      },
      absl::Milliseconds(200));
  // Each wait also looks for a reported quorum loss.
  std::vector<std::string> quorum_lost;
  auto converged = [&](const std::string& edit, int n) {
    auto got = GetEtcdCluster("d2");
    if (got.ok()) {
      for (const Json& c :
           got->value("status", Json::object()).value("conditions", Json::array())) {
        if (c.value("type", "") == "Ready" && c.value("reason", "") == "QuorumLost") {
          quorum_lost.push_back(edit + ": " + c.value("message", ""));
        }
      }
    }
    return Converged("d2", n);
  };
  auto refused = [&](const Json& patch, const std::string& field) {
    auto r = client().Patch(kEtcdClusters, ns(), "d2", kube::PatchType::kMerge, patch);
    EXPECT_FALSE(r.ok()) << "accepted: " << patch.dump();
    if (!r.ok()) {
      EXPECT_TRUE(absl::StrContains(r.status().message(), field)) << r.status();
    }
  };

  Scale("d2", 5);
  ASSERT_TRUE(testenv::Eventually([&] { return converged("scale to 5", 5); }, kConverge))
      << "scale to 5 did not converge";

  // A pod-template change: the StatefulSet rolls the members one at a time.
  ASSERT_TRUE(client()
                  .Patch(kEtcdClusters, ns(), "d2", kube::PatchType::kMerge,
                         {{"spec",
                           {{"podTemplate",
                             {{"metadata", {{"annotations", {{"e2e.quorum.dev/roll", "1"}}}}}}}}}})
                  .ok());
  auto rolled = [&] {
    kube::ListOptions o{.label_selector = "app.kubernetes.io/instance=d2"};
    auto pods = client().List(kPods, ns(), o);
    if (!pods.ok() || (*pods)["items"].size() != 5) return false;
    for (const Json& p : (*pods)["items"]) {
      const Json& a = p["metadata"].value("annotations", Json::object());
      if (a.value("e2e.quorum.dev/roll", "") != "1") return false;
    }
    return converged("roll", 5);
  };
  ASSERT_TRUE(testenv::Eventually(rolled, kConverge)) << "the roll did not finish";

  // Grow storage: each claim is asked for more, and the StatefulSet is
  // re-created with the new claim template while its pods keep running (the
  // test bed's 20Gi volumes have room: docs/testbed.md).
  const std::map<std::string, std::string> before_grow = PodUids("d2");
  ASSERT_TRUE(
      client()
          .Patch(kEtcdClusters, ns(), "d2", kube::PatchType::kMerge,
                 {{"spec",
                   {{"storage",
                     {{"volumeClaimTemplate",
                       {{"spec", {{"resources", {{"requests", {{"storage", "3Gi"}}}}}}}}}}}}}})
          .ok());
  auto grown = [&] {
    for (int i = 0; i < 5; ++i) {
      auto pvc = client().Get(kPvcs, ns(), absl::StrCat("data-d2-", i));
      if (!pvc.ok() || (*pvc)["spec"]["resources"]["requests"].value("storage", "") != "3Gi") {
        return false;
      }
    }
    auto sts = client().Get(kStatefulSets, ns(), "d2");
    if (!sts.ok() ||
        (*sts)["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"].value(
            "storage", "") != "3Gi") {
      return false;
    }
    return StorageReason("d2") == "AsRequested" && converged("grow storage", 5);
  };
  ASSERT_TRUE(testenv::Eventually(grown, kConverge))
      << "storage did not grow; Storage: " << StorageReason("d2");
  EXPECT_EQ(PodUids("d2"), before_grow) << "growing storage restarted a member";

  refused({{"spec", {{"security", {{"tls", {{"serverSecret", "d2-server"}}}}}}}},
          "spec.security.tls.serverSecret");
  refused({{"spec",
            {{"storage",
              {{"volumeClaimTemplate",
                {{"spec", {{"resources", {{"requests", {{"storage", "512Mi"}}}}}}}}}}}}}},
          "storage");
  refused(
      {{"spec", {{"storage", {{"volumeClaimTemplate", nullptr}, {"emptyDir", Json::object()}}}}}},
      "spec.storage");

  Scale("d2", 3);
  ASSERT_TRUE(testenv::Eventually([&] { return converged("scale to 3", 3); }, kConverge))
      << "scale back to 3 did not converge";
  const std::vector<int> acknowledged = writer.Stop();
  EXPECT_TRUE(quorum_lost.empty()) << absl::StrJoin(quorum_lost, "\n");

  ASSERT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
  CommandResult keys;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        keys = Etcdctl(ns(), "d2", {"get", "w/", "--prefix", "--keys-only"});
        return keys.exit_code == 0;
      },
      absl::Minutes(1)))
      << keys.output;
  std::set<std::string> present;
  for (absl::string_view line : absl::StrSplit(keys.output, '\n', absl::SkipWhitespace())) {
    present.insert(std::string(line));
  }
  std::vector<int> lost;
  for (int i : acknowledged) {
    if (!present.contains(absl::StrCat("w/", i))) lost.push_back(i);
  }
  EXPECT_TRUE(lost.empty()) << "acknowledged writes lost: " << absl::StrJoin(lost, ", ");
}

}  // namespace
}  // namespace quorum::e2e
