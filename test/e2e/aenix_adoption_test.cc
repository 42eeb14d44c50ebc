// Issue 35, point 4: a cluster created and run by the real aenix
// etcd-operator (v0.4.5) is taken over in place by Quorum once aenix is
// stopped. aenix runs on the host as the operator does here (hack/node.sh
// exec, webhooks off) against its own CRDs; it makes a 3-member EtcdCluster
// on PVCs, which gets data. Then aenix stops, Quorum's CRDs go over aenix's
// (same group and kinds) and Quorum starts. The test asserts: the same
// StatefulSet, Services, state ConfigMap and claims (by UID), the same member
// IDs, every key (those written under aenix and those acknowledged during the
// takeover) still there, and the EtcdCluster Ready under Quorum with three
// voters. Which pods Quorum rolled (its pod template differs from aenix's)
// is recorded, not asserted: rolled or not, no member is replaced.
//
// The aenix program and CRDs are not part of this repository: the test runs
// when QUORUM_AENIX_MANAGER names aenix's manager binary and QUORUM_AENIX_CRDS
// the folder of its CRD manifests (config/crd/bases), and is skipped otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};
constexpr char kName[] = "legacy";
constexpr int kKeys = 50;
constexpr char kCrds[][40] = {"etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml",
                              "etcd.aenix.io_etcdbackupschedules.yaml"};

std::string Env(const char* name) {
  const char* v = getenv(name);
  return v == nullptr ? "" : v;
}

// The EtcdCluster as an aenix user writes it: 3 members on 1Gi claims. The
// node has only images built here, so the pod template names Quorum's etcd
// image (aenix's default is quay.io/coreos/etcd:v3.5.12); that image runs as
// uid 65532, and aenix sets no fsGroup, so the template adds it for the data
// volume to be writable.
Json AenixCluster(const std::string& ns) {
  return {
      {"apiVersion", "etcd.aenix.io/v1alpha1"},
      {"kind", "EtcdCluster"},
      {"metadata", {{"name", kName}, {"namespace", ns}}},
      {"spec",
       {{"replicas", 3},
        {"storage",
         {{"volumeClaimTemplate",
           {{"spec",
             {{"accessModes", {"ReadWriteOnce"}},
              {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}},
        {"podTemplate",
         {{"spec",
           {{"securityContext", {{"fsGroup", 65532}}},
            {"containers",
             Json::array({{{"name", "etcd"}, {"image", "quay.io/coreos/etcd:v3.6.16"}}})}}}}}}}};
}

std::string Uid(const absl::StatusOr<Json>& obj) {
  return obj.ok() ? (*obj)["metadata"].value("uid", "") : "(missing)";
}

std::string MemberIds(const std::vector<Member>& members) {
  std::vector<std::string> ids;
  for (const Member& m : members) ids.push_back(absl::StrCat(m.name, "=", m.id));
  std::sort(ids.begin(), ids.end());
  return absl::StrJoin(ids, ",");
}

class AenixAdoptionE2E : public E2ETest {
 protected:
  void TearDown() override {
    // Whatever happened, the next test finds Quorum's CRDs.
    for (const char* crd : kCrds) {
      absl::Status s =
          testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd);
      EXPECT_TRUE(s.ok()) << crd << ": " << s;
    }
    E2ETest::TearDown();
  }

  // aenix's Ready condition (it writes no observedGeneration).
  bool AenixReady() {
    absl::StatusOr<Json> c = GetEtcdCluster(kName);
    if (!c.ok()) return false;
    for (const Json& cond : c->value("status", Json::object()).value("conditions", Json::array()))
      if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
    return false;
  }

  // The StatefulSet's roll has ended: every replica ready at the current revision.
  bool RolledOut() {
    absl::StatusOr<Json> sts = client().Get(kStatefulSets, ns(), kName);
    if (!sts.ok()) return false;
    const Json& st = sts->value("status", Json::object());
    // Every pod runs the update revision. (Quorum rolls the members itself,
    // OnDelete: the StatefulSet controller never moves currentRevision then.)
    return st.value("observedGeneration", int64_t{-1}) ==
               (*sts)["metadata"].value("generation", int64_t{0}) &&
           st.value("readyReplicas", 0) == 3 && st.value("updatedReplicas", 0) == 3;
  }

  // UIDs of everything the takeover must keep, by "kind/name".
  std::map<std::string, std::string> Identities() {
    std::map<std::string, std::string> ids;
    ids["statefulset/legacy"] = Uid(client().Get(kStatefulSets, ns(), kName));
    for (const std::string svc : {"legacy", "legacy-headless"})
      ids["service/" + svc] = Uid(client().Get(kServices, ns(), svc));
    ids["configmap/legacy-cluster-state"] =
        Uid(client().Get(kConfigMaps, ns(), "legacy-cluster-state"));
    for (int k = 0; k < 3; ++k) {
      const std::string pvc = absl::StrCat("data-legacy-", k);
      ids["pvc/" + pvc] = Uid(client().Get(kPvcs, ns(), pvc));
    }
    return ids;
  }

  std::string Get(const std::string& key) {
    CommandResult r = Etcdctl(ns(), kName, {"get", key, "--print-value-only"});
    return r.exit_code == 0 ? r.output : "(error) " + r.output;
  }
};

TEST_F(AenixAdoptionE2E, QuorumAdoptsARunningAenixClusterWithoutReplacingAMember) {
  const std::string manager = Env("QUORUM_AENIX_MANAGER");
  const std::string crds = Env("QUORUM_AENIX_CRDS");
  if (manager.empty() || crds.empty() || !std::filesystem::exists(manager)) {
    GTEST_SKIP() << "set QUORUM_AENIX_MANAGER (aenix's manager binary) and QUORUM_AENIX_CRDS "
                    "(its config/crd/bases folder)";
  }
  for (const char* crd : kCrds) {
    absl::Status s = testenv::InstallCrd(client(), crds + "/" + crd);
    ASSERT_TRUE(s.ok()) << "aenix CRD " << crd << ": " << s;
  }

  // aenix makes the cluster; it gets data.
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  HostProcess aenix(absl::StrCat(cp->dir, "/aenix-", ns(), ".log"));
  aenix.Spawn({manager, "--disable-webhooks", "--leader-elect=false", "--metrics-bind-address=0",
               "--health-probe-bind-address=0", "--log-level=debug"},
              {"KUBECONFIG=" + cp->kubeconfig});
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), AenixCluster(ns())).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return AenixReady() && RolledOut(); }, absl::Minutes(5)))
      << "aenix did not make the cluster Ready (log: " << aenix.log_path() << ")";
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(
        Etcdctl(ns(), kName, {"put", absl::StrCat("aenix/", i), absl::StrCat("v", i)}).exit_code,
        0);
  }
  const std::vector<Member> before = MemberList(ns(), kName);
  ASSERT_EQ(before.size(), 3u);
  const std::map<std::string, std::string> ids_before = Identities();
  const std::vector<std::pair<std::string, std::string>> pods_before = EtcdPods(kName);
  aenix.Stop();

  // Quorum takes over, with a client writing throughout.
  for (const char* crd : kCrds) {
    absl::Status s =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd);
    ASSERT_TRUE(s.ok()) << crd << ": " << s;
  }
  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), kName, {"put", absl::StrCat("takeover/", i), "v"}).exit_code == 0;
      },
      absl::Milliseconds(250));
  const absl::Time start = absl::Now();
  OperatorProcess quorum(ns());
  quorum.Start();
  std::optional<absl::Duration> first_ready;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        if (!EtcdClusterReady(kName)) return false;
        if (!first_ready) first_ready = absl::Now() - start;
        return RolledOut() && MemberList(ns(), kName).size() == 3;
      },
      absl::Minutes(10)))
      << "Quorum did not bring the adopted cluster to Ready";
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdClusterReady(kName); }, absl::Minutes(2)));
  const absl::Duration settled = absl::Now() - start;
  const std::vector<int> acknowledged = writer.Stop();

  // Nothing was re-created, no member replaced.
  EXPECT_EQ(Identities(), ids_before);
  const std::vector<Member> after = MemberList(ns(), kName);
  EXPECT_EQ(MemberIds(after), MemberIds(before));
  for (const Member& m : after) EXPECT_FALSE(m.learner) << m.name;
  EXPECT_EQ(Etcdctl(ns(), kName, {"endpoint", "health", "--cluster"}).exit_code, 0);
  for (int i = 0; i < kKeys; ++i)
    EXPECT_EQ(Get(absl::StrCat("aenix/", i)), absl::StrCat("v", i, "\n"));
  ASSERT_FALSE(acknowledged.empty()) << "no write succeeded during the takeover";
  for (int i : acknowledged) EXPECT_EQ(Get(absl::StrCat("takeover/", i)), "v\n") << i;

  // What Quorum rolled: pods whose UID changed.
  std::map<std::string, std::string> uid_after;
  for (const auto& [pod, uid] : EtcdPods(kName)) uid_after[pod] = uid;
  std::vector<std::string> rolled;
  for (const auto& [pod, uid] : pods_before)
    if (uid_after[pod] != uid) rolled.push_back(pod);
  std::sort(rolled.begin(), rolled.end());
  const std::string first = first_ready ? absl::FormatDuration(*first_ready) : "?";
  std::cout << "adoption: member IDs kept " << MemberIds(after) << "; pods rolled: ["
            << absl::StrJoin(rolled, ",") << "]; Ready under Quorum after " << first
            << ", roll finished after " << absl::FormatDuration(settled) << "; "
            << acknowledged.size() << " writes acknowledged during the takeover\n";
  RecordProperty("pods_rolled", absl::StrJoin(rolled, ","));
  RecordProperty("ready_after", first);
  RecordProperty("rolled_out_after", absl::FormatDuration(settled));
}

}  // namespace
}  // namespace quorum::e2e
