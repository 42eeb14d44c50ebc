// The built-in Kubernetes resources Quorum reads and writes, named once. The
// controllers bring the names they use into their own namespace with
// using-declarations; Quorum's own resources are in
// src/controllers/common/resources.h.
#ifndef QUORUM_SRC_KUBE_RESOURCES_H_
#define QUORUM_SRC_KUBE_RESOURCES_H_

#include "src/kube/resource.h"

namespace quorum::kube {

// core/v1
inline const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
inline const GroupVersionResource kEndpoints{"", "v1", "endpoints"};
inline const GroupVersionResource kEvents{"", "v1", "events"};
inline const GroupVersionResource kNodes{"", "v1", "nodes"};
inline const GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};
inline const GroupVersionResource kPods{"", "v1", "pods"};
inline const GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};
inline const GroupVersionResource kServices{"", "v1", "services"};
// Workloads, policy, networking, storage
inline const GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
inline const GroupVersionResource kJobs{"batch", "v1", "jobs"};
inline const GroupVersionResource kPdbs{"policy", "v1", "poddisruptionbudgets"};
inline const GroupVersionResource kNetworkPolicies{"networking.k8s.io", "v1", "networkpolicies"};
inline const GroupVersionResource kStorageClasses{"storage.k8s.io", "v1", "storageclasses"};
// Control
inline const GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};
inline const GroupVersionResource kRoles{"rbac.authorization.k8s.io", "v1", "roles"};
inline const GroupVersionResource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
inline const GroupVersionResource kValidatingWebhookConfigurations{
    "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"};
inline const GroupVersionResource kMutatingWebhookConfigurations{
    "admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"};

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_RESOURCES_H_
