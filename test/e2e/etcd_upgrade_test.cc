// Issue 36 (first part): an etcd image change is judged before it rolls. A
// 3-member PVC cluster on etcd 3.5 (the node's 3.5 image, a late 3.5 patch)
// asked for 3.7 keeps its image (a skipped minor: condition VersionSupported
// False naming the rule, no pod restarted); asked for 3.6.16 it rolls, the
// members answer 3.6.16, and every write a client had acknowledged
// throughout is still there.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/e2e/e2e_env.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
// hack/images.sh etcd-3.5 and etcd-3.6.
constexpr char kEtcd35[] = "quay.io/coreos/etcd:v3.5.35";
constexpr char kEtcd36[] = "quay.io/coreos/etcd:v3.6.16";

class EtcdUpgradeE2E : public E2ETest {
 protected:
  Json PodTemplate(const std::string& image) {
    return {{"spec", {{"containers", Json::array({{{"name", "etcd"}, {"image", image}}})}}}};
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
  std::map<std::string, std::string> PodUids(const std::string& name) {
    std::map<std::string, std::string> out;
    for (const auto& [pod, uid] : EtcdPods(name)) out[pod] = uid;
    return out;
  }
};

TEST_F(EtcdUpgradeE2E, ASkippedMinorIsRefusedAndOneMinorUpRollsKeepingEveryWrite) {
  OperatorProcess op(ns());
  op.Start();
  const Json cluster = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                        {"kind", "EtcdCluster"},
                        {"metadata", {{"name", "up"}, {"namespace", ns()}}},
                        {"spec",
                         {{"replicas", 3},
                          {"podTemplate", PodTemplate(kEtcd35)},
                          {"storage",
                           {{"volumeClaimTemplate",
                             {{"spec",
                               {{"accessModes", {"ReadWriteOnce"}},
                                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), cluster).ok());
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
  SetImage("up", "quay.io/coreos/etcd:v3.7.0");
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

  // 3.5.35 → 3.6.16: one minor up from a late 3.5 patch rolls.
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
  absl::SleepFor(absl::Seconds(2));
  const std::vector<int> acknowledged = writer.Stop();
  ASSERT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
  CommandResult keys;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        keys = Etcdctl(ns(), "up", {"get", "w/", "--prefix", "--keys-only"});
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

}  // namespace
}  // namespace quorum::e2e
