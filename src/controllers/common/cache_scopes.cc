#include "src/controllers/common/cache_scopes.h"

#include "src/kube/resources.h"
#include "src/runtime/transforms.h"

namespace quorum::controllers {

std::map<std::string, runtime::ResourceScope> CacheScopes() {
  const std::string owned = "app.kubernetes.io/managed-by=quorum-operator";
  const std::string members = "app.kubernetes.io/name in (etcd,postgres)";
  std::map<std::string, runtime::ResourceScope> scopes;
  // Deployments (a PostgresCluster's PgBouncer): the same counters are read.
  const kube::GroupVersionResource deployments{"apps", "v1", "deployments"};
  for (const kube::GroupVersionResource& gvr : {kube::kStatefulSets, deployments}) {
    scopes[runtime::ResourceKey(gvr)] = {.label_selector = owned,
                                         .transform = runtime::StripStatefulSetStatus};
  }
  for (const kube::GroupVersionResource& gvr :
       {kube::kConfigMaps, kube::kServiceAccounts, kube::kJobs, kube::kRoles, kube::kRoleBindings,
        kube::kNetworkPolicies}) {
    scopes[runtime::ResourceKey(gvr)] = {.label_selector = owned};
  }
  for (const kube::GroupVersionResource& gvr : {kube::kServices, kube::kPdbs}) {
    scopes[runtime::ResourceKey(gvr)] = {.label_selector = owned, .transform = runtime::DropStatus};
  }
  scopes[runtime::ResourceKey(kube::kSecrets)] = {
      .label_selector = owned, .read_through = true, .sensitive = true};
  scopes[runtime::ResourceKey(kube::kPods)] = {.label_selector = members,
                                               .transform = runtime::StripPod};
  // With the PostgreSQL repository hosts' claims (their storage grows as the members' does).
  scopes[runtime::ResourceKey(kube::kPvcs)] = {
      .label_selector = "app.kubernetes.io/name in (etcd,postgres,postgres-repo-host)"};
  // Only the kubernetes DCS's Endpoints are read (Patroni's leader Endpoints,
  // labelled with the cluster's common labels); the Endpoints of every other
  // Service, ours (etcd's) or not, stay out of the cache.
  scopes[runtime::ResourceKey(kube::kEndpoints)] = {.label_selector =
                                                        "app.kubernetes.io/name=postgres," + owned};
  return scopes;
}

}  // namespace quorum::controllers
