#include "src/controllers/postgrescluster/observe.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

std::string DefaultMemberUrl(const Json& pod) {
  const std::string ip = Str(At(pod, {"status", "podIP"}));
  return ip.empty() ? "" : absl::StrCat("http://", ip, ":", kPatroniPort);
}

SecretValue SecretValueFrom(const runtime::Cache& cache, const std::string& ns) {
  return [&cache, ns](const std::string& name, const char* key) {
    ObjectPtr secret = cache.Get(kSecrets, ns, name);
    std::string out;
    const Json& v = secret ? At(*secret, {"data", key}) : Json();
    if (!v.is_string() || !absl::Base64Unescape(v.get<std::string>(), &out)) return std::string();
    return out;
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
                std::optional<std::string> leader) {
  Members m;
  m.leader = std::move(leader);
  std::map<std::string, std::string> ask;
  for (const ObjectPtr& pod : pods) {
    const std::string name = Str(At(*pod, {"metadata", "name"}));
    const std::string url = member_url(*pod);
    if (url.empty()) continue;
    m.urls[name] = url;
    m.roles[name] = {.reachable = false};
    if (!OnNotReadyNode(cache, *pod)) ask[name] = url;
  }
  for (const auto& [name, s] : patroni::ProbeMembers(rest, ask)) {
    if (!s.ok()) continue;
    m.roles[name] = {.reachable = true, .role = s->role, .state = s->state};
    if (patroni::ServesAsPrimary(m.roles[name]) && (!m.leader || *m.leader == name)) {
      m.primary = name;
    }
    if (!s->database_system_identifier.empty()) m.system_identifier = s->database_system_identifier;
  }
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

// The DCS leader key: etcd read with a short deadline, or the kubernetes
// DCS's leader Endpoints from the cache; nullopt when unknown.
std::optional<std::string> ObserveLeader(const Phase& p, const DcsResolution& dcs) {
  if (!dcs.ready) return std::nullopt;
  if (UsesEtcd(p.cluster)) {
    return ReadDcsLeader(p.cluster, dcs, SecretValueFrom(p.cache, p.n.ns), kLeaderReadTimeout);
  }
  ObjectPtr endpoints = p.cache.Get(kEndpoints, p.n.ns, p.n.primary_service);
  return LeaderFromEndpoints(endpoints.get());
}

// The cluster's member pods that are not being deleted.
std::vector<ObjectPtr> ObservePods(const Phase& p) {
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : p.cache.ByInstance(kPods, p.n.ns, p.n.cluster)) {
    if (Str(At(*pod, {"metadata", "labels", std::string(api::kClusterLabel).c_str()})) ==
            p.n.cluster &&
        !(*pod)["metadata"].contains("deletionTimestamp")) {
      pods.push_back(pod);
    }
  }
  return pods;
}

}  // namespace quorum::postgrescluster
