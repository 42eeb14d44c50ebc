// A backup controller (EtcdBackup, PostgresBackup) under a real manager
// (ControllerTest), its time a FakeClock the test advances, so
// the start bound (api::kBackupStartTimeout) runs out without waiting for it.
// Header-only.
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_BACKUP_CONTROLLER_FIXTURE_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_BACKUP_CONTROLLER_FIXTURE_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/base/clock.h"
#include "src/controllers/common/backup_reconciler.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"

namespace quorum::testenv {

class BackupControllerTest : public ControllerTest {
 protected:
  // Installs `crds` (deploy/crds file names), then starts the reconciler
  // `make` returns, registered by `setup`.
  template <typename Reconciler>
  void Start(const std::vector<std::string>& crds,
             const std::function<std::unique_ptr<Reconciler>(kube::Client&, runtime::Manager&,
                                                             Clock&)>& make,
             const std::function<runtime::Controller&(runtime::Manager&, Reconciler&)>& setup) {
    StartControllers(crds,
                     [&](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
                       std::unique_ptr<Reconciler> r = make(client, manager, clock_);
                       runtime::Controller& controller = setup(manager, *r);
                       reconciler_ = std::move(r);
                       return controller;
                     });
  }

  // "<phase>/<reason of the first condition>" of the backup `gvr` ns/name.
  std::string Reason(const kube::GroupVersionResource& gvr, const std::string& name) {
    absl::StatusOr<nlohmann::json> b = client().Get(gvr, ns(), name);
    if (!b.ok()) return "";
    const nlohmann::json status = b->value("status", nlohmann::json::object());
    const nlohmann::json conditions = status.value("conditions", nlohmann::json::array());
    return status.value("phase", "") + "/" +
           (conditions.empty() ? "" : conditions[0].value("reason", ""));
  }

  // Advances the operator's clock by `d`, then has the backup reconciled
  // (an annotation touch) and waits until it was. False when it was not.
  bool AdvanceAndReconcile(absl::Duration d, const kube::GroupVersionResource& gvr,
                           const std::string& name) {
    clock_.Advance(d);
    return WritesOfATouch(client(), manager(), controller(), gvr, ns(), name).has_value();
  }

  // The API server stamps creationTimestamp from its own clock: start there.
  FakeClock clock_{absl::Now()};
  std::unique_ptr<runtime::Reconciler> reconciler_;
};

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_BACKUP_CONTROLLER_FIXTURE_H_
