// A control plane of the test binary's own, with the opt-in audit log on
// (hack/controlplane.sh, QUORUM_CONTROLPLANE_AUDIT=1), for tests that install
// cluster-wide objects the shared one must not get — the bundle's webhook
// configurations would send every EtcdCluster write of other tests to a
// Service nothing serves here — and that read the audit log.
//
// Register with ::testing::AddGlobalTestEnvironment before the tests run,
// passing __FILE__: it starts only when a test of that file runs (the folder's
// program holds other files' tests too, test/testmain/source_filter.h), and
// points QUORUM_CONTROLPLANE_DIR (testenv::GetControlPlane) at the private
// control plane, whose watchdog stops it if the test binary dies.
#ifndef QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_PRIVATE_CONTROL_PLANE_H_
#define QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_PRIVATE_CONTROL_PLANE_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "test/testmain/paths.h"
#include "test/testmain/registry.h"

namespace quorum::deploytest {

class PrivateControlPlane : public ::testing::Environment {
 public:
  PrivateControlPlane(std::string name, std::string owner_file)
      : dir_(std::string(QUORUM_BINARY_DIR) + "/" + std::move(name)),
        owner_file_(std::move(owner_file)) {}

  void SetUp() override {
    started_ = AnyTestRunsFrom(owner_file_);
    if (!started_) return;
    const std::string cmd =
        "QUORUM_CONTROLPLANE_AUDIT=1 QUORUM_OWNER_PID=" + std::to_string(getpid()) + " " +
        std::string(QUORUM_SOURCE_DIR) + "/hack/controlplane.sh start " + dir_ + " >&2";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    setenv("QUORUM_CONTROLPLANE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (!started_) return;
    const std::string cmd =
        std::string(QUORUM_SOURCE_DIR) + "/hack/controlplane.sh stop " + dir_ + " >&2";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  const std::string& dir() const { return dir_; }

 private:
  static bool AnyTestRunsFrom(const std::string& file) {
    for (const testmain::TestCase& t : testmain::RegisteredTests()) {
      if (t.should_run && t.file == file) return true;
    }
    return false;
  }

  std::string dir_;
  std::string owner_file_;
  bool started_ = false;
};

}  // namespace quorum::deploytest

#endif  // QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_PRIVATE_CONTROL_PLANE_H_
