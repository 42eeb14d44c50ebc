#include "src/controllers/common/cache_scopes.h"

#include "src/runtime/transforms.h"

namespace quorum::controllers {

std::map<std::string, runtime::ResourceScope> CacheScopes() {
  const std::string owned = "app.kubernetes.io/managed-by=quorum-operator";
  const std::string members = "app.kubernetes.io/name in (etcd,postgres)";
  std::map<std::string, runtime::ResourceScope> scopes;
  scopes[runtime::ResourceKey({"apps", "v1", "statefulsets"})] = {
      .label_selector = owned, .transform = runtime::StripStatefulSetStatus};
  for (const kube::GroupVersionResource& gvr :
       {kube::GroupVersionResource{"", "v1", "configmaps"},
        kube::GroupVersionResource{"", "v1", "serviceaccounts"},
        kube::GroupVersionResource{"batch", "v1", "jobs"},
        kube::GroupVersionResource{"rbac.authorization.k8s.io", "v1", "roles"},
        kube::GroupVersionResource{"rbac.authorization.k8s.io", "v1", "rolebindings"},
        kube::GroupVersionResource{"networking.k8s.io", "v1", "networkpolicies"}}) {
    scopes[runtime::ResourceKey(gvr)] = {.label_selector = owned};
  }
  for (const kube::GroupVersionResource& gvr :
       {kube::GroupVersionResource{"", "v1", "services"},
        kube::GroupVersionResource{"policy", "v1", "poddisruptionbudgets"}}) {
    scopes[runtime::ResourceKey(gvr)] = {.label_selector = owned, .transform = runtime::DropStatus};
  }
  scopes[runtime::ResourceKey({"", "v1", "secrets"})] = {
      .label_selector = owned, .read_through = true, .sensitive = true};
  scopes[runtime::ResourceKey({"", "v1", "pods"})] = {.label_selector = members,
                                                      .transform = runtime::StripPod};
  // With the PostgreSQL repository hosts' claims (their storage grows as the members' does).
  scopes[runtime::ResourceKey({"", "v1", "persistentvolumeclaims"})] = {
      .label_selector = "app.kubernetes.io/name in (etcd,postgres,postgres-repo-host)"};
  // Only the kubernetes DCS's Endpoints are read (Patroni's leader Endpoints,
  // labelled with the cluster's common labels); the Endpoints of every other
  // Service, ours (etcd's) or not, stay out of the cache.
  scopes[runtime::ResourceKey({"", "v1", "endpoints"})] = {
      .label_selector = "app.kubernetes.io/name=postgres," + owned};
  return scopes;
}

}  // namespace quorum::controllers
