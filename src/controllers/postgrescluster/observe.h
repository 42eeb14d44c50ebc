// The observe phases of a PostgresCluster reconcile: the DCS resolution, the
// DCS leader key, the member pods and what their Patroni REST APIs say. They
// read the cache, the DCS and the members; they write nothing (a DCS problem
// is evented). Thread-safety: as the clients they are given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBSERVE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBSERVE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/certs.h"

namespace quorum::postgrescluster {

// A member's GET /patroni answers within milliseconds when it is up; one
// that does not answer within this is treated as unreachable this round.
inline constexpr absl::Duration kMemberProbeTimeout = absl::Seconds(1);
inline constexpr absl::Duration kLeaderReadTimeout = absl::Seconds(2);

// The member's REST API from its pod IP; "" before it has one. https when
// the pod carries kRestSchemeLabel=https (tls.h: pods made since the REST
// API serves TLS), http for a pod made before (until it is rolled).
std::string DefaultMemberUrl(const Json& pod);

// What the operator connects to for member `pod` at `url`: with https, the
// certificate must carry the pod's DNS name (MemberDnsName, tls.h) and chain
// to `ca_pem` (the cluster's CA), while the connection goes to the URL's
// address (the pod IP: no cluster DNS needed, and a changed pod IP is simply
// a new URL). `client`: the operator's client certificate for the members'
// unsafe calls (none: empty). Pure.
patroni::Endpoint MemberEndpoint(const PostgresCluster& cluster, const std::string& pod,
                                 const std::string& url, const std::string& ca_pem,
                                 const runtime::CertKeyPair& client = {});

// Reads key `key` of Secret `name` in `ns` from the cache, decoded.
SecretValue SecretValueFrom(const runtime::Cache& cache, const std::string& ns);

// Asks the members at once (short timeouts), pods on NotReady nodes skipped;
// `leader` is the DCS leader key as observed (nullopt: unknown); the members'
// certificates are checked against `ca_pem` and `client` is presented
// (MemberEndpoint).
Members Observe(patroni::RestClient& rest, const runtime::Cache& cache,
                const std::vector<runtime::ObjectPtr>& pods, const MemberUrlFunc& member_url,
                const PostgresCluster& cluster, const std::string& ca_pem,
                const runtime::CertKeyPair& client, std::optional<std::string> leader);

// The DCS (Secrets checked, clusterRef followed); a problem is a Warning
// event and DCSReady=False, never a crash loop.
DcsResolution ObserveDcs(const Phase& p);

// Sets cluster.status.patroni.dcsObjects (dcs_objects.h: PlanDcsObjects)
// from the cluster's ConfigMap, StatefulSets and pods in `cache`, before
// anything is built from the cluster; WriteStatus then keeps it.
void RecordDcsObjects(const runtime::Cache& cache, PostgresCluster& cluster);

// Sets cluster.spec.monitoring.exporter.enabled (in this copy only) to what
// PlanExporter (monitoring.h) makes of it given the cluster's member
// StatefulSets in `cache`, before anything is built from the cluster.
void ResolveExporter(const runtime::Cache& cache, PostgresCluster& cluster);

// The DCS leader key: etcd read with a short deadline, or the kubernetes
// DCS's leader Endpoints from the cache; nullopt when unknown.
std::optional<std::string> ObserveLeader(const Phase& p, const DcsResolution& dcs);

// The cluster's member pods that are not being deleted.
std::vector<runtime::ObjectPtr> ObservePods(const Phase& p);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_OBSERVE_H_
