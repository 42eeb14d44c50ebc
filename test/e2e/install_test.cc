// The operator installed the two ways docs/install.md tells users to: the
// bundle (`kubectl apply -f deploy/quorum.yaml`, namespace quorum-system) and the
// Helm chart (`helm install` into a namespace of the test's choosing). Each run
// uses the operator image built from this tree (hack/images.sh), serves the
// admission webhooks from its pods (a webhook-only rule refuses a bad
// EtcdCluster, naming the field) and brings an EtcdCluster to Ready. Both
// installs own the same cluster-scoped names, so each is removed at the end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const kube::GroupVersionResource kDeployments{"apps", "v1", "deployments"};
const kube::GroupVersionResource kValidatingWebhooks{"admissionregistration.k8s.io", "v1",
                                                     "validatingwebhookconfigurations"};
constexpr char kValidatingName[] = "quorum-validating-webhook-configuration";

std::string Source(const std::string& path) { return std::string(QUORUM_SOURCE_DIR) + "/" + path; }

class InstallE2E : public E2ETest {
 protected:
  CommandResult Kubectl(std::vector<std::string> args,
                        absl::Duration timeout = absl::Seconds(120)) {
    const testenv::ControlPlane* cp = testenv::GetControlPlane();
    args.insert(args.begin(), {cp->bin_dir + "/kubectl", "--kubeconfig=" + cp->kubeconfig});
    return RunCommand(args, timeout);
  }
  CommandResult Helm(std::vector<std::string> args, absl::Duration timeout = absl::Minutes(5)) {
    const testenv::ControlPlane* cp = testenv::GetControlPlane();
    args.insert(args.begin(), {cp->bin_dir + "/helm", "--kubeconfig=" + cp->kubeconfig});
    return RunCommand(args, timeout);
  }

  void TearDown() override {
    if (HasFailure() && !install_ns_.empty()) {
      CommandResult pods = Kubectl({"-n", install_ns_, "get", "pods", "-o", "wide"});
      CommandResult logs = Kubectl({"-n", install_ns_, "logs", "deployment/quorum-operator",
                                    "--all-containers", "--tail=60"});
      std::cerr << pods.output << "\n" << logs.output << "\n";
    }
    if (!release_.empty()) {
      CommandResult un = Helm({"uninstall", release_, "-n", install_ns_, "--wait"});
      if (un.exit_code != 0) std::cerr << "helm uninstall: " << un.output << "\n";
    }
    // What both installs leave cluster-wide (the CRDs stay: every e2e test uses them).
    Kubectl({"delete", "--ignore-not-found", "--wait=false",
             "mutatingwebhookconfiguration/quorum-mutating-webhook-configuration",
             std::string("validatingwebhookconfiguration/") + kValidatingName});
    Kubectl({"delete", "--ignore-not-found", "--wait=false", "clusterrole,clusterrolebinding", "-l",
             "app.kubernetes.io/part-of=quorum"});
    if (!install_ns_.empty()) {
      auto s = client().Delete(kNamespaces, "", install_ns_);
      (void)s;
      // The next test may use the same namespace (quorum-system): leave it
      // gone, not Terminating.
      const bool gone = testenv::Eventually(
          [&] { return absl::IsNotFound(client().Get(kNamespaces, "", install_ns_).status()); },
          absl::Minutes(3));
      if (!gone) std::cerr << "namespace " << install_ns_ << " still there after 3 min\n";
    }
    E2ETest::TearDown();
  }

  // The operator's Deployment in install_ns_ has every replica available.
  void ExpectOperatorAvailable(int replicas) {
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          auto d = client().Get(kDeployments, install_ns_, "quorum-operator");
          if (!d.ok()) return false;
          return (*d)["status"].value("availableReplicas", 0) == replicas &&
                 (*d)["status"].value("updatedReplicas", 0) == replicas;
        },
        absl::Minutes(4)))
        << "the operator Deployment in " << install_ns_ << " never had " << replicas
        << " available replicas";
    // The pods run the image this tree built, on the node.
    CommandResult images =
        Kubectl({"-n", install_ns_, "get", "pods", "-l", "app.kubernetes.io/name=quorum-operator",
                 "-o", "jsonpath={.items[*].status.containerStatuses[*].imageID}"});
    ASSERT_EQ(images.exit_code, 0) << images.output;
    EXPECT_TRUE(absl::StrContains(images.output, "sha256:")) << images.output;
  }

  // The operator set the webhooks' caBundle at start-up (the API server then
  // trusts the pods' serving certificate).
  void ExpectWebhooksConfigured() {
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          auto v = client().Get(kValidatingWebhooks, "", kValidatingName);
          if (!v.ok()) return false;
          for (const Json& w : (*v)["webhooks"])
            if (w["clientConfig"].value("caBundle", "").empty()) return false;
          return true;
        },
        absl::Minutes(1)))
        << "no caBundle on " << kValidatingName;
  }

  // A rule only the validating webhook knows (not the CRD schema): the pods
  // answer the API server's admission call and name the field.
  void ExpectWebhookRefusesEtcdCommand() {
    const Json bad = {
        {"apiVersion", "etcd.aenix.io/v1alpha1"},
        {"kind", "EtcdCluster"},
        {"metadata", {{"name", "bad-command"}, {"namespace", ns()}}},
        {"spec",
         {{"replicas", 1},
          {"storage", {{"emptyDir", Json::object()}}},
          {"podTemplate",
           {{"spec",
             {{"containers",
               Json::array({{{"name", "etcd"}, {"command", Json::array({"/bin/true"})}}})}}}}}}}};
    absl::Status refused = absl::OkStatus();
    // The Service's endpoints can trail the Deployment's availability by a moment.
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          auto r = client().Create(kEtcdClusters, ns(), bad);
          refused = r.status();
          return !r.ok() && absl::StrContains(refused.message(), "denied the request");
        },
        absl::Minutes(1)))
        << "the webhook did not refuse the etcd container's command: " << refused;
    EXPECT_TRUE(absl::StrContains(refused.message(), "spec.podTemplate.spec.containers[0].command"))
        << refused;
  }

  void ExpectEtcdClusterReady(const std::string& name) {
    ASSERT_TRUE(
        client()
            .Create(kEtcdClusters, ns(),
                    {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                     {"kind", "EtcdCluster"},
                     {"metadata", {{"name", name}, {"namespace", ns()}}},
                     {"spec", {{"replicas", 3}, {"storage", {{"emptyDir", Json::object()}}}}}})
            .ok());
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          if (!EtcdClusterReady(name)) return false;
          int voters = 0;
          for (const Member& m : MemberList(ns(), name)) voters += m.learner ? 0 : 1;
          return voters == 3;
        },
        absl::Minutes(4)))
        << "the installed operator did not bring EtcdCluster " << name << " to Ready";
  }

  std::string install_ns_;
  std::string release_;
};

TEST_F(InstallE2E, BundleFromDeployQuorumYaml) {
  install_ns_ = "quorum-system";
  CommandResult apply =
      Kubectl({"apply", "--server-side", "--force-conflicts", "-f", Source("deploy/quorum.yaml")});
  ASSERT_EQ(apply.exit_code, 0) << apply.output;
  ASSERT_NO_FATAL_FAILURE(ExpectOperatorAvailable(2));
  ASSERT_NO_FATAL_FAILURE(ExpectWebhooksConfigured());
  ASSERT_NO_FATAL_FAILURE(ExpectWebhookRefusesEtcdCommand());
  ASSERT_NO_FATAL_FAILURE(ExpectEtcdClusterReady("bundle"));
}

TEST_F(InstallE2E, HelmChartIntoItsOwnNamespace) {
  install_ns_ = "qh-" + ns();
  release_ = "quorum";
  CommandResult install = Helm({"install", release_, Source("charts/quorum-operator"), "-n",
                                install_ns_, "--create-namespace", "--set", "replicas=1", "--set",
                                "watchNamespaces[0]=" + ns(), "--wait", "--timeout", "4m"});
  ASSERT_EQ(install.exit_code, 0) << install.output;
  ASSERT_NO_FATAL_FAILURE(ExpectOperatorAvailable(1));
  ASSERT_NO_FATAL_FAILURE(ExpectWebhooksConfigured());
  ASSERT_NO_FATAL_FAILURE(ExpectWebhookRefusesEtcdCommand());
  ASSERT_NO_FATAL_FAILURE(ExpectEtcdClusterReady("helm"));

  // Uninstalling leaves no webhook behind that would refuse (failurePolicy Fail)
  // every EtcdCluster once its pods are gone.
  CommandResult un = Helm({"uninstall", release_, "-n", install_ns_, "--wait"});
  ASSERT_EQ(un.exit_code, 0) << un.output;
  release_.clear();
  EXPECT_TRUE(absl::IsNotFound(client().Get(kValidatingWebhooks, "", kValidatingName).status()));
}

}  // namespace
}  // namespace quorum::e2e
