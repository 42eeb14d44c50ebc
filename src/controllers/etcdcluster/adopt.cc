#include "src/controllers/etcdcluster/adopt.h"

#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "src/base/json_access.h"

namespace quorum::etcdcluster {
namespace {

bool HasPeerAutoTlsFlag(const Json& sts) {
  const Json* containers = json_access::Path(&sts, {"spec", "template", "spec", "containers"});
  if (containers == nullptr || !containers->is_array()) return false;
  for (const Json& c : *containers) {
    if (c.value("name", "") != kContainerName) continue;
    for (const char* list : {"command", "args"}) {
      if (!c.contains(list) || !c[list].is_array()) continue;
      for (const Json& arg : c[list]) {
        if (arg == "--peer-auto-tls" || arg == "--peer-auto-tls=true") return true;
      }
    }
  }
  return false;
}

}  // namespace

bool RunsPeerAutoTls(const EtcdCluster& cluster, const Json* live_sts, const EtcdView& view) {
  if (TlsOf(cluster).peer) return false;
  if (live_sts != nullptr && HasPeerAutoTlsFlag(*live_sts)) return true;
  for (const MemberStatus& m : view.members) {
    for (const std::string& url : m.member.peer_urls) {
      if (absl::StartsWith(url, "https://")) return true;
    }
  }
  return false;
}

EtcdCluster WithInferredPeerAutoTls(EtcdCluster cluster, const Json* live_sts,
                                    const EtcdView& view) {
  if (!TlsOf(cluster).peer_auto && RunsPeerAutoTls(cluster, live_sts, view)) {
    cluster.metadata.annotations[kPeerAutoTlsAnnotation] = "true";
  }
  return cluster;
}

bool MayAdopt(const Json& live, const EtcdCluster& cluster) {
  const Json* refs = json_access::Path(&live, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return false;
  return std::any_of(refs->begin(), refs->end(), [&](const Json& ref) {
    return ref.is_object() && ref.value("uid", "") == cluster.metadata.uid &&
           !cluster.metadata.uid.empty();
  });
}

Json KeepLiveSelector(Json desired, const Json* live) {
  const Json* live_selector = json_access::Path(live, {"spec", "selector"});
  if (live_selector == nullptr) return desired;
  const Json& selector = *live_selector;
  if (json_access::At(desired, {"spec", "selector"}) == selector) return desired;
  desired["spec"]["selector"] = selector;
  Json& labels = desired["spec"]["template"]["metadata"]["labels"];
  const Json* match = json_access::Child(&selector, "matchLabels");
  if (match == nullptr || !match->is_object()) return desired;
  for (auto it = match->begin(); it != match->end(); ++it) labels[it.key()] = it.value();
  return desired;
}

}  // namespace quorum::etcdcluster
