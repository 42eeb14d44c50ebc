// The fixture of the kubectl tests that act on a cluster (switchover,
// backup): Quorum's CRDs installed on the real control plane, objects
// created with the status the operator would write, and the built plugin
// run as a subprocess — blocking, or in the background while the test plays
// the operator's part.
#ifndef QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_
#define QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

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

  std::future<PluginRun> RunInBackground(std::vector<std::string> args) {
    return std::async(std::launch::async, [this, args] { return Run(args); });
  }
};

}  // namespace quorum::kubectl::testing

#endif  // QUORUM_TEST_INTEGRATION_KUBECTL_PLUGIN_FIXTURE_H_
