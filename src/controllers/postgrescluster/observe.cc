#include "src/controllers/postgrescluster/observe.h"

#include <spdlog/spdlog.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/monitoring.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

std::string DefaultMemberUrl(const Json& pod) {
  const std::string ip = Str(At(pod, {"status", "podIP"}));
  if (ip.empty()) return "";
  const std::string scheme =
      Str(At(pod, {"metadata", "labels", kRestSchemeLabel})) == "https" ? "https" : "http";
  const std::string host = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
  return absl::StrCat(scheme, "://", host, ":", kPatroniPort);
}

patroni::Endpoint MemberEndpoint(const PostgresCluster& cluster, const std::string& pod,
                                 const std::string& url, const std::string& ca_pem,
                                 const runtime::CertKeyPair& client) {
  patroni::Endpoint e(url);
  if (url.starts_with("https://")) {
    e.tls_server_name = MemberDnsName(cluster, pod);
    e.ca_pem = ca_pem;
    e.client_cert_pem = client.cert_pem;
    e.client_key_pem = client.key_pem;
  }
  return e;
}

SecretValue SecretValueFrom(const runtime::Cache& cache, const std::string& ns) {
  return [&cache, ns](const std::string& name, const char* key) {
    ObjectPtr secret = cache.Get(kSecrets, ns, name);
    return secret ? controllers::SecretValue(*secret, key) : std::string();
  };
}

namespace {

// Whether the pod runs on a node that is known and not Ready (its member is
// not asked: it would only cost a timeout).
bool OnNotReadyNode(const runtime::Cache& cache, const Json& pod) {
  const std::string node = controllers::PodNodeName(pod);
  if (node.empty()) return false;
  ObjectPtr n = cache.Get(kNodes, "", node);
  if (n == nullptr) return false;
  for (const Json& c : At(*n, {"status", "conditions"})) {
    if (Str(At(c, {"type"})) == "Ready") return Str(At(c, {"status"})) != "True";
  }
  return false;
}

}  // namespace

// Asks the members at once (short timeouts), pods on NotReady nodes skipped.
Members Observe(patroni::RestClient& rest, const runtime::Cache& cache,
                const std::vector<ObjectPtr>& pods, const MemberUrlFunc& member_url,
                const PostgresCluster& cluster, const std::string& ca_pem,
                const runtime::CertKeyPair& client, std::optional<std::string> leader) {
  Members m;
  m.leader = std::move(leader);
  std::map<std::string, patroni::Endpoint> ask;
  for (const ObjectPtr& pod : pods) {
    const std::string name = Str(At(*pod, {"metadata", "name"}));
    const std::string url = member_url(*pod);
    if (url.empty()) continue;
    m.urls[name] = MemberEndpoint(cluster, name, url, ca_pem, client);
    m.roles[name] = {.reachable = false};
    if (!OnNotReadyNode(cache, *pod)) ask[name] = m.urls[name];
  }
  std::set<std::string> ready;
  for (const ObjectPtr& pod : pods) {
    if (controllers::PodReady(*pod)) ready.insert(Str(At(*pod, {"metadata", "name"})));
  }
  for (const auto& [name, s] : patroni::ProbeMembers(rest, ask)) {
    if (!s.ok()) {
      // The kubelet finds it ready, the operator cannot ask it: most often a
      // certificate that does not name the pod or another CA (or a policy).
      if (ready.contains(name)) {
        spdlog::warn(
            "{}/{}: member {} is ready but its REST API at {} (checked as {}) did not "
            "answer: {}",
            cluster.metadata.ns, cluster.metadata.name, name, m.urls[name].url,
            m.urls[name].tls_server_name, std::string(s.status().message()));
      }
      continue;
    }
    m.roles[name] = {
        .reachable = true, .role = s->role, .state = s->state, .streaming_to = s->streaming_to};
    if (patroni::ServesAsPrimary(m.roles[name]) && (!m.leader || *m.leader == name)) {
      m.primary = name;
    }
    if (!s->database_system_identifier.empty()) m.system_identifier = s->database_system_identifier;
  }
  m.primary_ready = !m.primary.empty() && ready.contains(m.primary);
  return m;
}

// The DCS (Secrets checked, clusterRef followed); a problem is a Warning
// event and DCSReady=False, never a crash loop.
DcsResolution ObserveDcs(const Phase& p) {
  const DcsResolution dcs =
      ResolveDcs(p.cluster, [&](const std::string& kind, const std::string& name) -> ObjectPtr {
        return p.cache.Get(kind == "Secret" ? kSecrets : kEtcdClusters, p.n.ns, name);
      });
  if (!dcs.ready) p.recorder.Warning(p.stored, dcs.reason, dcs.message);
  return dcs;
}

void RecordDcsObjects(const runtime::Cache& cache, PostgresCluster& cluster) {
  if (UsesEtcd(cluster)) return;
  const Names n = NamesOf(cluster);
  DcsObjectsEvidence evidence;
  if (ObjectPtr config = cache.Get(kConfigMaps, n.ns, n.config_map)) {
    evidence.patroni_yaml = Str(At(*config, {"data", "patroni.yaml"}));
  }
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    if (cache.Get(kStatefulSets, n.ns, StatefulSetName(cluster, set.name)) != nullptr) {
      evidence.has_statefulset = true;
    }
  }
  for (const ObjectPtr& pod : cache.ByInstance(kPods, n.ns, n.cluster)) {  // not the repo host
    const Json& label = At(*pod, {"metadata", "labels", std::string(api::kClusterLabel).c_str()});
    if (label.is_string() && label.get<std::string>() == n.cluster) evidence.has_member_pods = true;
  }
  const std::string planned = PlanDcsObjects(cluster, evidence);
  if (!cluster.status.patroni.dcs_objects.empty() &&
      planned != cluster.status.patroni.dcs_objects) {
    spdlog::warn("{}/{}: status.patroni.dcsObjects {} kept as {} while members run", n.ns,
                 n.cluster, cluster.status.patroni.dcs_objects, planned);
  }
  cluster.status.patroni.dcs_objects = planned;
}

void ResolveExporter(const runtime::Cache& cache, PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  ExporterEvidence evidence;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    ObjectPtr sts = cache.Get(kStatefulSets, n.ns, StatefulSetName(cluster, set.name));
    if (sts == nullptr) continue;
    evidence.has_statefulset = true;
    const Json& containers = At(*sts, {"spec", "template", "spec", "containers"});
    if (!containers.is_array()) continue;
    for (const Json& c : containers) {
      if (Str(At(c, {"name"})) == kExporterContainerName) evidence.runs_exporter = true;
    }
  }
  cluster.spec.monitoring.exporter.enabled = PlanExporter(cluster, evidence);
}

// The DCS leader key: etcd read with a short deadline, or the kubernetes
// DCS's leader Endpoints or ConfigMap from the cache; nullopt when unknown.
std::optional<std::string> ObserveLeader(const Phase& p, const DcsResolution& dcs) {
  if (!dcs.ready) return std::nullopt;
  if (UsesEtcd(p.cluster)) {
    return ReadDcsLeader(p.cluster, dcs, SecretValueFrom(p.cache, p.n.ns), kLeaderReadTimeout);
  }
  ObjectPtr lock = p.cache.Get(UsesConfigMaps(p.cluster) ? kConfigMaps : kEndpoints, p.n.ns,
                               LeaderObjectName(p.cluster));
  return LeaderFromObject(lock.get());
}

// The cluster's member pods that are not being deleted.
std::vector<ObjectPtr> ObservePods(const Phase& p) {
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : p.cache.ByInstance(kPods, p.n.ns, p.n.cluster)) {
    if (Str(At(*pod, {"metadata", "labels", std::string(api::kClusterLabel).c_str()})) ==
            p.n.cluster &&
        !controllers::BeingDeleted(*pod)) {
      pods.push_back(pod);
    }
  }
  return pods;
}

}  // namespace quorum::postgrescluster
