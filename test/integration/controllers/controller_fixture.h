// ControllerTest: a controller under a real runtime::Manager against the real
// control plane, as the operator binary runs it — one namespace (the test's),
// the binary's cache scopes (controllers::CacheScopes()), no metrics or health
// listeners. The test builds its reconciler(s) and registers their
// controller(s) in a setup function; the fixture owns the operator's client,
// the manager and the thread it runs on, and stops them in TearDown (in-flight
// reconciles finish first). WaitIdle() is what a test waits on instead of
// sleeping until the controller has settled.
//
// Thread-safety: use from the test's thread; the manager runs on its own.
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_CONTROLLER_FIXTURE_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_CONTROLLER_FIXTURE_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/kube/client.h"
#include "src/runtime/controller.h"
#include "src/runtime/manager.h"
#include "test/integration/testenv.h"

namespace quorum::testenv {

// Waits until `controller`'s queue is idle — no request ready and no
// reconcile in flight; requeues delayed into the future may wait — for at most
// `timeout`. The failure names the controller and what its queue still held.
// Idle says nothing of events the informers have not delivered yet: after a
// write of its own, a test first waits for what that write causes
// (Eventually, or api_writes.h's WritesOfATouch), then for idle.
::testing::AssertionResult WaitIdle(runtime::Controller& controller, absl::Duration timeout);

class ControllerTest : public IntegrationTest {
 protected:
  // Builds the test's reconciler(s) on the operator's client and the
  // manager's cache, registers their controller(s) on the manager, and
  // returns the controller the fixture waits on (WaitIdle, controller()).
  using Setup =
      std::function<runtime::Controller&(kube::Client& client, runtime::Manager& manager)>;

  // Installs the CRDs `crds` (file names in deploy/crds), then creates the
  // operator's own client and the manager, runs `setup` and starts the
  // manager. Failures are fatal test failures; call it at most once per test.
  void StartControllers(const std::vector<std::string>& crds, const Setup& setup);

  // Stops the manager (if started) and joins its thread, then deletes the
  // namespace. A derived TearDown that must act between the two (say, drop
  // its reconciler) calls StopManager() first.
  void TearDown() override;
  void StopManager();

  // Valid after StartControllers() succeeded.
  kube::Client& operator_client() { return *operator_client_; }
  runtime::Manager& manager() { return *manager_; }
  runtime::Controller& controller() { return *controller_; }

  // WaitIdle(controller(), timeout); a failure also says whether the manager
  // had stopped, and with what status.
  ::testing::AssertionResult WaitIdle(absl::Duration timeout = absl::Seconds(30));

 private:
  std::unique_ptr<kube::Client> operator_client_;
  std::unique_ptr<runtime::Manager> manager_;
  runtime::Controller* controller_ = nullptr;
  Cancellation cancel_;
  std::thread runner_;
  absl::Mutex mu_;
  // What Manager::Run returned; nullopt while it runs.
  std::optional<absl::Status> run_result_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_CONTROLLER_FIXTURE_H_
