// EtcdBackupScheduleReconciler: a cron schedule of EtcdBackups with history
// limits and snapshot retention. Each reconcile, in order:
//   parse    api::ParseEtcdBackupSchedule (a bad object: Ready=False, once)
//   observe  the cache: the schedule and the EtcdBackups it controls
//   plan     plan.h PlanSchedule: pure; the backup to create (named from its
//            cron time, so a repeat never doubles it), objects and snapshots
//            to delete, the status, the next cron time
//   act      create the EtcdBackup; delete pruned snapshots (prune.h: S3 from
//            here, PVC files by a Job); delete EtcdBackups past the limits
//   status   server-side apply of status, only when it changed
// Nothing polls: the result asks to be woken exactly at the next cron time
// (RequeueAfter), and the owned EtcdBackups' and prune Jobs' watches wake it
// when a backup finishes. A reconcile between cron times with nothing to
// prune makes zero API writes.
// Thread-safety: Reconcile may run concurrently for different schedules.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RECONCILER_H_

#include <string>
#include <vector>

#include "api/etcdbackupschedule_types.h"
#include "src/base/clock.h"
#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::etcdbackupschedule {

using controllers::kEtcdBackupSchedules;

class EtcdBackupScheduleReconciler : public runtime::Reconciler {
 public:
  // `image`: the operator's own image, which PVC prune Jobs run.
  // `s3_ca_file`: CA bundle for https S3 endpoints when deleting snapshots
  // (empty: the system store). `clock`: the time cron times, retention and
  // conditions are computed from (tests advance a FakeClock instead of
  // waiting for the wall clock's next minute).
  EtcdBackupScheduleReconciler(kube::Client& client, runtime::Cache& cache,
                               runtime::EventRecorder& recorder, std::string image,
                               std::string s3_ca_file = "", Clock& clock = RealClock());
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  // Deletes `prune` from the store; returns those not deleted (yet): an S3
  // error (also in `error`), a PVC Job still running or failed.
  std::vector<api::ScheduledSnapshot> Prune(const kube::Json& stored,
                                            const api::EtcdBackupSchedule& schedule,
                                            const std::vector<api::ScheduledSnapshot>& prune,
                                            absl::Status& error);
  std::vector<api::ScheduledSnapshot> PruneS3(const kube::Json& stored,
                                              const api::EtcdBackupSchedule& schedule,
                                              const std::vector<api::ScheduledSnapshot>& prune,
                                              absl::Status& error);
  std::vector<api::ScheduledSnapshot> PrunePvc(const kube::Json& stored,
                                               const api::EtcdBackupSchedule& schedule,
                                               const std::vector<api::ScheduledSnapshot>& prune,
                                               absl::Status& error);
  absl::Status RefuseInvalid(const kube::Json& stored, const absl::Status& why);

  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  const std::string image_;
  const std::string s3_ca_file_;
  Clock& clock_;
};

// Registers the informers, the controller and its watches on `manager`.
runtime::Controller& SetupEtcdBackupScheduleController(runtime::Manager& manager,
                                                       EtcdBackupScheduleReconciler& reconciler,
                                                       int workers);

}  // namespace quorum::etcdbackupschedule

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RECONCILER_H_
