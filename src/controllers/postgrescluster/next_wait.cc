#include "src/controllers/postgrescluster/next_wait.h"

#include <variant>

#include "absl/strings/str_cat.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;
using runtime::Result;

std::string RolesSignature(const Members& members) {
  std::string out = members.primary + "|leader=" + members.leader.value_or("(unread)");
  for (const auto& [pod, role] : members.roles) {
    absl::StrAppend(&out, "|", pod, "=", role.reachable ? role.role : "(unreachable)");
  }
  return out;
}

// Wait: nothing while a watch signals the next change, capped backoff for
// what only the members' REST APIs show and for a user's Secret.
Result NextWait(controllers::WaitBackoff& backoff, const runtime::Request& req,
                const DcsResolution& dcs, const Members& members) {
  // A referenced Secret is read through the API server, not watched: look
  // again with backoff. A referenced EtcdCluster is watched, and without a
  // reachable member a pod must start (watched): neither is polled.
  if (!dcs.ready &&
      (dcs.reason == "SecretNotFound" || dcs.reason == "SecretIncomplete" ||
       dcs.reason == "EtcdClientCertUnavailable" || dcs.reason == "EtcdUserNotReady")) {
    return Result{.requeue_after =
                      backoff.Next(req.Key(), dcs.message, controllers::kMaxSecretWait)};
  }
  if (!dcs.ready || members.urls.empty()) {
    backoff.Reset(req.Key());
    return Result{};
  }
  // Members run. Patroni itself (kubernetes DCS) or its role callback (etcd
  // DCS, when the pods may patch themselves) relabels the pods, and those
  // events reconcile; the roles are also re-read with capped backoff. A
  // change of roles restarts the backoff.
  const bool etcd_dcs = std::holds_alternative<patroni::EtcdDcs>(dcs.dcs);
  return Result{.requeue_after = backoff.Next(req.Key(), RolesSignature(members),
                                              etcd_dcs ? kMaxRoleWait : controllers::kMaxWait)};
}

}  // namespace quorum::postgrescluster
