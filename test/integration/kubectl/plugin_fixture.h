// The fixture of the kubectl tests that act on a cluster (switchover,
// backup): Quorum's CRDs installed on the real control plane, objects
// created with the status the operator would write, and the built plugin
// run as a subprocess — blocking, or in the background while the test plays
// the operator's part.
#ifndef QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_
#define QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "src/kube/client.h"
#include "test/integration/kubectl/objects.h"
#include "test/integration/kubectl/run_plugin.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::kubectl::testing {

class PluginTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    for (const char* crd : {"etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml",
                            "postgres.quorum.dev_postgresclusters.yaml",
                            "postgres.quorum.dev_postgresbackups.yaml"}) {
      ASSERT_TRUE(
          testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd)
              .ok())
          << crd;
    }
  }

  void Create(const kube::GroupVersionResource& gvr, const Json& object, const Json& status) {
    const std::string name = object["metadata"]["name"];
    auto created = client().Create(gvr, ns(), object);
    ASSERT_TRUE(created.ok()) << name << ": " << created.status();
    if (status.is_null()) return;
    WriteStatus(gvr, name, status);
  }

  // What the operator would do: a merge patch of the status subresource.
  void WriteStatus(const kube::GroupVersionResource& gvr, const std::string& name,
                   const Json& status) {
    auto patched =
        client().Patch(gvr, ns(), name, kube::PatchType::kMerge, status, {.subresource = "status"});
    ASSERT_TRUE(patched.ok()) << name << " status: " << patched.status();
  }

  // The plugin with the control plane's kubeconfig and -n <the test's namespace>.
  PluginRun Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--kubeconfig", control_plane().kubeconfig, "-n", ns()});
    return RunPlugin(args, {{"KUBECONFIG", ""}});
  }

  std::future<PluginRun> RunInBackground(std::vector<std::string> args,
                                         const std::string& kubeconfig = "") {
    if (kubeconfig.empty())
      return std::async(std::launch::async, [this, args] { return Run(args); });
    return std::async(std::launch::async, [kubeconfig, args] {
      return RunPlugin(args, {{"KUBECONFIG", kubeconfig}});
    });
  }

  // A kubeconfig (its path) whose user is ServiceAccount `user` of the
  // test's namespace, with a bound token and a Role of `rules` only.
  std::string KubeconfigWithRules(const std::string& user, const Json& rules) {
    const kube::GroupVersionResource sas{"", "v1", "serviceaccounts"},
        roles{"rbac.authorization.k8s.io", "v1", "roles"},
        bindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
    EXPECT_TRUE(client().Create(sas, ns(), {{"metadata", {{"name", user}}}}).ok());
    EXPECT_TRUE(
        client().Create(roles, ns(), {{"metadata", {{"name", user}}}, {"rules", rules}}).ok());
    EXPECT_TRUE(
        client()
            .Create(
                bindings, ns(),
                {{"metadata", {{"name", user}}},
                 {"roleRef",
                  {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", user}}},
                 {"subjects", {{{"kind", "ServiceAccount"}, {"name", user}, {"namespace", ns()}}}}})
            .ok());
    auto token = client().CreateSubresource(sas, ns(), user, "token",
                                            {{"apiVersion", "authentication.k8s.io/v1"},
                                             {"kind", "TokenRequest"},
                                             {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_TRUE(token.ok()) << token.status();
    if (!token.ok()) return "";
    const std::string path = std::string(QUORUM_BINARY_DIR) + "/kubeconfig-" + user + "-" + ns();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                        << "    server: " << control_plane().config.server
                        << "\n    certificate-authority-data: "
                        << absl::Base64Escape(control_plane().config.ca_pem)
                        << "\nusers:\n- name: u\n  user:\n    token: "
                        << (*token)["status"]["token"].get<std::string>()
                        << "\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: "
                        << ns() << "}\ncurrent-context: c\n";
    kubeconfigs_.push_back(path);
    return path;
  }

  void TearDown() override {
    for (const std::string& path : kubeconfigs_) std::filesystem::remove(path);
    IntegrationTest::TearDown();
  }

 private:
  std::vector<std::string> kubeconfigs_;
};

}  // namespace quorum::kubectl::testing

#endif  // QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_
