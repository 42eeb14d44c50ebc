// The families of series deploy/monitoring may read: etcd's, postgres_exporter's,
// the operator's (docs/metrics.md and the quorum_ backup and certificate
// series) and Prometheus's own `up`. A name outside them is a typo or a label
// the metric-name scan mistook for a series. Header-only, shared by this
// folder's tests. Thread-safe: constants.
#ifndef QUORUM_TEST_UNIT_MONITORING_METRIC_PREFIXES_H_
#define QUORUM_TEST_UNIT_MONITORING_METRIC_PREFIXES_H_

#include <string>

namespace quorum::monitoring {

inline bool HasKnownPrefix(const std::string& name) {
  if (name == "up") return true;
  for (const char* prefix :
       {"etcd_", "pg_", "quorum_", "controller_runtime_", "workqueue_", "rest_client_", "informer_",
        "leader_election_", "events_dropped_", "webhook_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace quorum::monitoring

#endif  // QUORUM_TEST_UNIT_MONITORING_METRIC_PREFIXES_H_
