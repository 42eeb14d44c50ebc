#include "test/integration/controllers/controller_fixture.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "src/controllers/common/cache_scopes.h"
#include "test/testmain/paths.h"

namespace quorum::testenv {

void ControllerTest::StartControllers(const std::vector<std::string>& crds, const Setup& setup) {
  ASSERT_EQ(manager_, nullptr) << "StartControllers runs once per test";
  for (const std::string& crd : crds) {
    ASSERT_TRUE(InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd).ok())
        << crd;
  }
  // The operator's own client: its writes are the manager's to count.
  absl::StatusOr<std::unique_ptr<kube::Client>> c = kube::Client::Create(control_plane().config);
  ASSERT_TRUE(c.ok()) << c.status();
  operator_client_ = *std::move(c);
  manager_ = std::make_unique<runtime::Manager>(
      *operator_client_,
      runtime::ManagerOptions{.namespaces = {ns()},
                              .metrics_bind_address = "0",
                              .health_probe_bind_address = "0",
                              // What the binary caches: tests see what users run.
                              .cache_scopes = controllers::CacheScopes()});
  controller_ = &setup(*operator_client_, *manager_);
  runner_ = std::thread([this] {
    absl::Status result = manager_->Run(cancel_);
    absl::MutexLock lock(&mu_);
    run_result_ = std::move(result);
  });
}

void ControllerTest::StopManager() {
  cancel_.Cancel();
  if (runner_.joinable()) runner_.join();
}

void ControllerTest::TearDown() {
  StopManager();
  IntegrationTest::TearDown();
}

::testing::AssertionResult WaitIdle(runtime::Controller& controller, absl::Duration timeout) {
  if (Eventually([&] { return controller.queue().Idle(); }, timeout)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "controller " << controller.name() << " still busy after "
         << absl::FormatDuration(timeout) << ": " << controller.queue().Len()
         << " request(s) ready, or a reconcile in flight";
}

::testing::AssertionResult ControllerTest::WaitIdle(absl::Duration timeout) {
  if (controller_ == nullptr) {
    return ::testing::AssertionFailure() << "WaitIdle before StartControllers";
  }
  ::testing::AssertionResult idle = testenv::WaitIdle(*controller_, timeout);
  if (idle) return idle;
  absl::MutexLock lock(&mu_);
  if (run_result_.has_value()) idle << "; the manager had stopped: " << *run_result_;
  return idle;
}

}  // namespace quorum::testenv
