// The operator-state metrics of issue 38 (docs/metrics.md), which the alert
// rules in deploy/monitoring/quorum-rules.yaml read:
//
//   quorum_backup_last_success_timestamp_seconds{namespace,name,kind}
//   quorum_backup_schedule_interval_seconds{namespace,name,kind}
//   quorum_certificate_expiry_timestamp_seconds{namespace,secret}
//
// They are collector families (runtime::CollectorFamily): computed at every
// scrape from the objects in the manager's cache, so a deleted object's
// series vanish with it, nothing is kept up to date in between, and they
// cost no API request and no write. Every replica serves them (every replica
// caches); the rules take the max over replicas.
//
// Thread-safety: the pure functions are; the registered collectors may run
// concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_STATE_METRICS_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_STATE_METRICS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "src/base/clock.h"
#include "src/controllers/common/backup_metrics.h"
#include "src/controllers/common/certificate_metrics.h"
#include "src/runtime/cache.h"
#include "src/runtime/metrics.h"

namespace quorum::controllers {

// One object's backup series: kind is "EtcdBackupSchedule" (name = the
// schedule) or "PostgresCluster" (name = the cluster).
struct BackupSeries {
  std::string ns, name, kind;
  BackupState state;
  bool operator==(const BackupSeries&) const = default;
};

// Every EtcdBackupSchedule, and every PostgresCluster that schedules backups
// (PostgresClusterBackupState), judged at `now`. Objects that do not decode
// are left out (admission refuses them; there is nothing sound to report).
std::vector<BackupSeries> BackupSeriesOf(const std::vector<runtime::ObjectPtr>& schedules,
                                         const std::vector<runtime::ObjectPtr>& clusters,
                                         absl::Time now);

// Samples with labels {namespace, name, kind}: the last success as Unix
// seconds, for the objects that have one; the interval in seconds, for the
// objects that have one.
std::vector<runtime::Sample> LastSuccessSamples(const std::vector<BackupSeries>& series);
std::vector<runtime::Sample> IntervalSamples(const std::vector<BackupSeries>& series);

// Samples with labels {namespace, secret}: notAfter as Unix seconds.
std::vector<runtime::Sample> CertificateExpirySamples(
    const std::vector<CertificateExpiry>& expiries);

// Registers the three families on `registry`, reading `cache` (the
// EtcdBackupSchedules, PostgresClusters and Secrets its informers hold; none
// when a type has no informer) at `clock`'s time. `cache` and `clock` must
// outlive every Render of `registry` (the manager's cache does: it stops
// serving /metrics before the cache goes).
void RegisterOperatorStateMetrics(runtime::Registry& registry, const runtime::Cache& cache,
                                  const Clock& clock);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_STATE_METRICS_H_
