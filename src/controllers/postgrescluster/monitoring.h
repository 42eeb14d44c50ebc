// The PostgreSQL metrics exporter of spec.monitoring.exporter
// (docs/monitoring.md), pure builders: a container `exporter` beside
// PostgreSQL in every member pod, running prometheus-postgres-exporter on
// port api::kExporterPort (named `exporter`) as role quorum_monitor, a
// member of pg_monitor. Its password is in the credential Secret
// <cluster>-monitoring (made once, like every credential Secret), mounted as
// a file; pg_hba admits the role only over TLS from the pod's own loopback,
// to the database postgres, and rejects it from anywhere else.
//
// An unset `enabled` means on for a new cluster. A cluster whose member
// StatefulSets were made without the exporter (by a Quorum before it) keeps
// running without it: adding a container rolls every member, and an
// operator upgrade restarts no database pod (docs/upgrades.md). The
// reconciler resolves `enabled` from what runs (PlanExporter) before it
// builds anything, so every builder below reads one definite answer.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MONITORING_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MONITORING_H_

#include <string>
#include <vector>

#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

inline constexpr char kExporterContainerName[] = "exporter";
// Where the exporter container reads the role's password.
inline constexpr char kExporterSecretDir[] = "/etc/quorum-exporter";

// What the cluster's member StatefulSets show.
struct ExporterEvidence {
  bool has_statefulset = false;  // any of the cluster's member StatefulSets exists
  bool runs_exporter = false;    // any of them has the exporter container
};

// spec.monitoring.exporter.enabled when set; unset: true for a new cluster
// (no member StatefulSet yet), otherwise whether its StatefulSets run it.
bool PlanExporter(const PostgresCluster& cluster, const ExporterEvidence& evidence);

// Whether the members run the exporter (enabled, or unset: on).
bool ExporterOn(const PostgresCluster& cluster);

// <cluster>-monitoring: quorum_monitor's credential Secret.
std::string MonitoringSecretName(const PostgresCluster& cluster);

// The pg_hba lines for quorum_monitor, to go before any user's rule; empty
// when the exporter is off.
std::vector<std::string> MonitorHba(const PostgresCluster& cluster);

// The exporter container and the Secret volume it reads its password from.
Json ExporterContainer(const PostgresCluster& cluster);
Json ExporterVolume(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MONITORING_H_
