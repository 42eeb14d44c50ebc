// Kubernetes objects the Patroni data-plane tests need in the real API
// server: member Pod objects (no scheduler places them, so they stay Pending, but their
// labels can be patched), a ServiceAccount with a Role/RoleBinding like the
// controller's, and a token for it, so that the role callback and Patroni's
// kubernetes DCS act with a pod's rights rather than as admin.
#ifndef QUORUM_TEST_INTEGRATION_PATRONI_KUBE_OBJECTS_H_
#define QUORUM_TEST_INTEGRATION_PATRONI_KUBE_OBJECTS_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/kube/client.h"

namespace quorum::patroni::testing {

inline const kube::GroupVersionResource kPodsGvr{"", "v1", "pods"};
inline const kube::GroupVersionResource kRoleBindingsGvr{"rbac.authorization.k8s.io", "v1",
                                                         "rolebindings"};

inline absl::Status CreatePod(kube::Client& c, const std::string& ns, const std::string& name,
                              const std::map<std::string, std::string>& labels) {
  kube::Json l = kube::Json::object();
  for (const auto& [k, v] : labels) l[k] = v;
  kube::Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", l}}},
      // No scheduler places it: the e2e node may have joined the control plane.
      {"spec",
       {{"schedulerName", "quorum-test-unscheduled"},
        {"containers",
         kube::Json::array({{{"name", "patroni"}, {"image", "quorum.invalid/none"}}})}}}};
  return c.Create(kPodsGvr, ns, pod).status();
}

// The pod's role label, nullopt when it has none or the pod cannot be read.
inline std::optional<std::string> RoleLabel(kube::Client& c, const std::string& ns,
                                            const std::string& pod) {
  absl::StatusOr<kube::Json> p = c.Get(kPodsGvr, ns, pod);
  if (!p.ok()) return std::nullopt;
  const kube::Json labels = (*p)["metadata"].value("labels", kube::Json::object());
  auto it = labels.find("role");
  if (it == labels.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// A ServiceAccount `name` bound to a Role with what the callback and
// Patroni's kubernetes DCS use; returns a token for it.
inline absl::StatusOr<std::string> CreateServiceAccountToken(kube::Client& c, const std::string& ns,
                                                             const std::string& name) {
  absl::Status s =
      c.Create({"", "v1", "serviceaccounts"}, ns,
               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}})
          .status();
  if (!s.ok()) return s;
  const kube::Json all = {"get", "list", "watch", "create", "update", "patch", "delete"};
  s = c.Create({"rbac.authorization.k8s.io", "v1", "roles"}, ns,
               {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "Role"},
                {"metadata", {{"name", name}}},
                {"rules",
                 kube::Json::array(
                     {{{"apiGroups", {""}},
                       {"resources", {"pods", "endpoints", "configmaps"}},
                       {"verbs", all}},
                      {{"apiGroups", {""}}, {"resources", {"services"}}, {"verbs", {"create"}}}})}})
          .status();
  if (!s.ok()) return s;
  s = c.Create(
           kRoleBindingsGvr, ns,
           {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "RoleBinding"},
            {"metadata", {{"name", name}}},
            {"roleRef",
             {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
            {"subjects",
             kube::Json::array({{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}}})}})
          .status();
  if (!s.ok()) return s;
  absl::StatusOr<kube::Json> t =
      c.CreateSubresource({"", "v1", "serviceaccounts"}, ns, name, "token",
                          {{"apiVersion", "authentication.k8s.io/v1"},
                           {"kind", "TokenRequest"},
                           {"spec", {{"expirationSeconds", 3600}}}});
  if (!t.ok()) return t.status();
  const std::string token = (*t)["status"].value("token", "");
  if (token.empty()) return absl::InternalError("TokenRequest returned no token");
  return token;
}

}  // namespace quorum::patroni::testing

#endif  // QUORUM_TEST_INTEGRATION_PATRONI_KUBE_OBJECTS_H_
