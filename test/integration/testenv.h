// Test environment for integration tests: the real control plane that CTest
// started (hack/controlplane.sh, state in $QUORUM_CONTROLPLANE_DIR), a client
// for it, and a fresh namespace per test. A missing control plane is a test
// failure, never a skip.
#ifndef QUORUM_TEST_INTEGRATION_TESTENV_H_
#define QUORUM_TEST_INTEGRATION_TESTENV_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kube/config.h"

namespace quorum::testenv {

struct ControlPlane {
  std::string dir;
  std::string kubeconfig;
  std::string etcd_endpoint;  // http://127.0.0.1:PORT of the control plane's etcd
  std::string bin_dir;        // kubectl, etcdctl, ...
  kube::RestConfig config;    // admin
};

// Loads the control plane description once. Fails the test fatally (and
// returns nullptr) when it is not available.
const ControlPlane* GetControlPlane();

// Reads a YAML file (one document) as JSON: plain scalars become bools,
// integers, floats or null where they look like one; quoted ones stay strings.
absl::StatusOr<kube::Json> LoadYamlAsJson(const std::string& path);

// Installs the CRD manifest at `path` (server-side apply) and waits until it
// is Established and served.
absl::Status InstallCrd(kube::Client& client, const std::string& path);

// Polls `condition` every 100 ms until it holds or `timeout` passes.
bool Eventually(const std::function<bool()>& condition, absl::Duration timeout);

// A test with an admin client and its own namespace, deleted afterwards.
class IntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  kube::Client& client() { return *client_; }
  const std::string& ns() const { return ns_; }
  const ControlPlane& control_plane() const { return *cp_; }

 private:
  const ControlPlane* cp_ = nullptr;
  std::unique_ptr<kube::Client> client_;
  std::string ns_;
};

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_TESTENV_H_
