// API writes a controller's manager made, and the "a no-op reconcile writes
// nothing" check built on them, without sleeping: tests wait for the
// controller's own state (a reconcile counted, its queue idle) instead.
// ApiWrites counts every create/update/patch/delete the manager's client sent,
// whatever the answer (refused ones — 403, 404, 409, 422, 500 — and those that
// got no answer count too). Header-only; WaitIdle is quorum_controllertest's.
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_

#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/runtime/controller.h"
#include "src/runtime/manager.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/testenv.h"

namespace quorum::testenv {

inline double ApiWrites(runtime::Manager& manager) {
  return manager.metrics().Counter("rest_client_writes_total", "", {}).Total();
}

// Reconciles of `controller` that have ended, whatever their outcome.
inline double ReconcilesEnded(runtime::Manager& manager, const runtime::Controller& controller) {
  auto& total = manager.metrics().Counter("controller_runtime_reconcile_total", "", {});
  double n = 0;
  for (const char* outcome : {"success", "requeue_after", "requeue", "error", "cancelled"}) {
    n += total.Value({controller.name(), outcome});
  }
  return n;
}

// Wakes the object `gvr` ns/name with an annotation change that touches
// nothing the controller owns, waits until `controller` has reconciled since
// and its queue is idle (nothing ready, nothing being reconciled: any
// follow-up of a write has run too), and returns the API writes `manager`
// made meanwhile; nullopt when either did not happen within 30 s.
inline std::optional<double> WritesOfATouch(kube::Client& client, runtime::Manager& manager,
                                            runtime::Controller& controller,
                                            const kube::GroupVersionResource& gvr,
                                            const std::string& ns, const std::string& name) {
  const double writes = ApiWrites(manager), reconciles = ReconcilesEnded(manager, controller);
  const std::string touch = std::to_string(reconciles) + "-" + std::to_string(writes);
  const absl::Status patched =
      client
          .Patch(gvr, ns, name, kube::PatchType::kMerge,
                 {{"metadata", {{"annotations", {{"example.com/touched", touch}}}}}})
          .status();
  if (!patched.ok()) return std::nullopt;
  // A reconcile that ended after the touch stays counted: then the queue
  // drains (WaitIdle, controller_fixture.h).
  if (!Eventually([&] { return ReconcilesEnded(manager, controller) > reconciles; },
                  absl::Seconds(30)) ||
      !WaitIdle(controller, absl::Seconds(30))) {
    return std::nullopt;
  }
  return ApiWrites(manager) - writes;
}

// The rest_client_writes_total{verb,resource} lines of `manager`'s metrics,
// for a failure message: which writes a touch made (compare two of them).
inline std::string WriteSeries(runtime::Manager& manager) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(manager.metrics().Render(), '\n')) {
    if (absl::StartsWith(line, "rest_client_writes_total{")) absl::StrAppend(&out, line, "\n");
  }
  return out;
}

// Touches the object until a touch's reconcile writes nothing — the
// controller has settled after its last change — within `timeout`; false if
// it kept writing. Then a test checks one more touch writes nothing either.
inline bool SettlesToZeroWrites(kube::Client& client, runtime::Manager& manager,
                                runtime::Controller& controller,
                                const kube::GroupVersionResource& gvr, const std::string& ns,
                                const std::string& name,
                                absl::Duration timeout = absl::Seconds(60)) {
  return Eventually(
      [&] { return WritesOfATouch(client, manager, controller, gvr, ns, name) == 0.0; }, timeout);
}

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_
