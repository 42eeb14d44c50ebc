// The operator as a pod of the real node: in-cluster config (the
// service-account token and CA the kubelet mounts, kubernetes.default through
// kube-proxy), the shipped RBAC (deploy/rbac), leader election on its
// Lease, and an EtcdCluster it brings to Ready.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const kube::GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};
constexpr char kSystem[] = "quorum-system";

class OperatorPodE2E : public E2ETest {
 protected:
  void TearDown() override {
    auto s = client().Delete(kPods, kSystem, pod_);
    (void)s;
    E2ETest::TearDown();
  }
  std::string pod_;
};

TEST_F(OperatorPodE2E, InClusterOperatorReconciles) {
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  // Another test (the install test) may have just deleted quorum-system:
  // wait until it is gone before making it again.
  absl::Status sys_ns;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        auto existing = client().Get(kNamespaces, "", kSystem);
        if (existing.ok()) {
          sys_ns = absl::OkStatus();
          return (*existing)["status"].value("phase", "") != "Terminating";
        }
        sys_ns = client()
                     .Create(kNamespaces, "",
                             {{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", kSystem}}}})
                     .status();
        return sys_ns.ok();
      },
      absl::Minutes(3)))
      << "namespace " << kSystem << " not usable: " << sys_ns;
  CommandResult rbac = RunCommand({cp->bin_dir + "/kubectl", "--kubeconfig=" + cp->kubeconfig,
                                   "apply", "--server-side", "--force-conflicts", "-f",
                                   std::string(QUORUM_SOURCE_DIR) + "/deploy/rbac/", "-f",
                                   std::string(QUORUM_SOURCE_DIR) + "/deploy/rbac/clusterroles/"});
  ASSERT_EQ(rbac.exit_code, 0) << rbac.output;

  pod_ = "quorum-operator-" + ns();
  const std::string lease = "quorum-operator-" + ns();
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", pod_}, {"labels", {{"app.kubernetes.io/name", "quorum-operator"}}}}},
      {"spec",
       {{"serviceAccountName", "quorum-operator"},
        {"securityContext", {{"runAsNonRoot", true}, {"runAsUser", 65532}, {"runAsGroup", 65532}}},
        {"containers",
         Json::array(
             {{{"name", "operator"},
               {"image", "ghcr.io/quorum-dev/quorum-operator:0.1.0"},
               {"args",
                Json::array({"--leader-elect=true", "--leader-election-namespace=" + ns(),
                             "--leader-election-id=" + lease, "--namespaces=" + ns(),
                             "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081"})},
               {"ports", Json::array({{{"name", "probes"}, {"containerPort", 8081}}})},
               {"readinessProbe",
                {{"httpGet", {{"path", "/readyz"}, {"port", "probes"}}},
                 {"periodSeconds", 2}}}}})}}}};
  // The Lease lives in the test namespace: let the operator's account use it there.
  CommandResult role = RunCommand({cp->bin_dir + "/kubectl", "--kubeconfig=" + cp->kubeconfig, "-n",
                                   ns(), "create", "role", "lease", "--verb=get,create,update",
                                   "--resource=leases.coordination.k8s.io"});
  ASSERT_EQ(role.exit_code, 0) << role.output;
  CommandResult binding =
      RunCommand({cp->bin_dir + "/kubectl", "--kubeconfig=" + cp->kubeconfig, "-n", ns(), "create",
                  "rolebinding", "lease", "--role=lease",
                  absl::StrCat("--serviceaccount=", kSystem, ":quorum-operator")});
  ASSERT_EQ(binding.exit_code, 0) << binding.output;
  auto created = client().Create(kPods, kSystem, pod);
  ASSERT_TRUE(created.ok()) << created.status();

  ASSERT_TRUE(testenv::Eventually(
      [&] {
        auto p = client().Get(kPods, kSystem, pod_);
        if (!p.ok()) return false;
        for (const Json& c : (*p)["status"].value("conditions", Json::array()))
          if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
        return false;
      },
      absl::Minutes(2)))
      << "the operator pod never became Ready";
  // It elected itself through the API server, in-cluster.
  ASSERT_TRUE(testenv::Eventually([&] { return client().Get(kLeases, ns(), lease).ok(); },
                                  absl::Minutes(1)));

  ASSERT_TRUE(
      client()
          .Create(kEtcdClusters, ns(),
                  {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                   {"kind", "EtcdCluster"},
                   {"metadata", {{"name", "inpod"}, {"namespace", ns()}}},
                   {"spec", {{"replicas", 3}, {"storage", {{"emptyDir", Json::object()}}}}}})
          .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        if (!EtcdClusterReady("inpod")) return false;
        int voters = 0;
        for (const Member& m : MemberList(ns(), "inpod")) voters += m.learner ? 0 : 1;
        return voters == 3;
      },
      absl::Minutes(4)))
      << "the in-cluster operator did not bring the EtcdCluster to Ready";
}

}  // namespace
}  // namespace quorum::e2e
