#include "src/controllers/common/operator_state_metrics.h"

#include <memory>

#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"

namespace quorum::controllers {
namespace {

double UnixSeconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

}  // namespace

std::vector<BackupSeries> BackupSeriesOf(const std::vector<runtime::ObjectPtr>& schedules,
                                         const std::vector<runtime::ObjectPtr>& clusters,
                                         absl::Time now) {
  std::vector<BackupSeries> out;
  for (const runtime::ObjectPtr& object : schedules) {
    absl::StatusOr<api::EtcdBackupSchedule> s = api::ParseEtcdBackupSchedule(*object);
    if (!s.ok()) continue;
    out.push_back({s->metadata.ns, s->metadata.name, std::string(api::kEtcdBackupScheduleKind),
                   EtcdBackupScheduleBackupState(*s, now)});
  }
  for (const runtime::ObjectPtr& object : clusters) {
    absl::StatusOr<api::PostgresCluster> c = api::DecodePostgresCluster(*object);
    if (!c.ok()) continue;
    std::optional<BackupState> state = PostgresClusterBackupState(*c, now);
    if (!state) continue;
    out.push_back(
        {c->metadata.ns, c->metadata.name, std::string(api::kPostgresClusterKind), *state});
  }
  return out;
}

std::vector<runtime::Sample> LastSuccessSamples(const std::vector<BackupSeries>& series) {
  std::vector<runtime::Sample> out;
  for (const BackupSeries& s : series) {
    if (s.state.last_success) {
      out.push_back({{s.ns, s.name, s.kind}, UnixSeconds(*s.state.last_success)});
    }
  }
  return out;
}

std::vector<runtime::Sample> IntervalSamples(const std::vector<BackupSeries>& series) {
  std::vector<runtime::Sample> out;
  for (const BackupSeries& s : series) {
    if (s.state.interval) {
      out.push_back({{s.ns, s.name, s.kind}, absl::ToDoubleSeconds(*s.state.interval)});
    }
  }
  return out;
}

std::vector<runtime::Sample> CertificateExpirySamples(
    const std::vector<CertificateExpiry>& expiries) {
  std::vector<runtime::Sample> out;
  out.reserve(expiries.size());
  for (const CertificateExpiry& e : expiries) {
    out.push_back({{e.ns, e.secret}, UnixSeconds(e.not_after)});
  }
  return out;
}

void RegisterOperatorStateMetrics(runtime::Registry& registry, const runtime::Cache& cache,
                                  const Clock& clock) {
  auto backups = [&cache, &clock] {
    return BackupSeriesOf(cache.List(kEtcdBackupSchedules), cache.List(kPostgresClusters),
                          clock.Now());
  };
  registry.Collector(
      "quorum_backup_last_success_timestamp_seconds",
      "When the newest successful backup of a backup schedule or scheduled PostgresCluster ended "
      "(Unix seconds).",
      runtime::MetricType::kGauge, {"namespace", "name", "kind"},
      [backups] { return LastSuccessSamples(backups()); });
  registry.Collector("quorum_backup_schedule_interval_seconds",
                     "The period of the backup schedule at its last success (the shortest over a "
                     "PostgresCluster's schedules).",
                     runtime::MetricType::kGauge, {"namespace", "name", "kind"},
                     [backups] { return IntervalSamples(backups()); });
  // std::function must be copyable, so the memo is shared by the copies of
  // the one collector that owns it.
  auto memo = std::make_shared<CertificateExpiryMemo>();
  registry.Collector(
      "quorum_certificate_expiry_timestamp_seconds",
      "When the certificate in a TLS Secret the operator issues expires (notAfter, Unix seconds).",
      runtime::MetricType::kGauge, {"namespace", "secret"}, [&cache, memo] {
        return CertificateExpirySamples(memo->Collect(cache.List(kube::kSecrets)));
      });
}

}  // namespace quorum::controllers
