#include "src/controllers/postgrescluster/sync_config.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/patroni/config.h"
#include "src/patroni/dynamic_config.h"

namespace quorum::postgrescluster {

void DynamicConfigSync::Sync(const Phase& ctx, const DcsResolution& dcs, const Members& members,
                             patroni::RestClient& rest) {
  if (members.primary.empty()) return;
  auto url = members.urls.find(members.primary);
  if (url == members.urls.end()) return;
  const std::string key = ctx.n.ns + "/" + ctx.n.cluster;
  const Json desired = DesiredDynamicConfig(ctx.cluster, dcs);
  const std::string text = desired.dump();
  {
    absl::MutexLock lock(&mu_);
    auto it = confirmed_.find(key);
    if (it != confirmed_.end() && it->second == text) return;
  }
  absl::StatusOr<Json> current = rest.GetConfig(url->second);
  if (!current.ok()) {
    spdlog::warn("{}: reading Patroni's dynamic configuration from {}: {}", key, members.primary,
                 std::string(current.status().message()));
    return;
  }
  const Json patch = patroni::DynamicConfigPatch(desired, *current);
  if (!patch.empty()) {
    const std::string paths = absl::StrJoin(patroni::PatchPaths(patch), ", ");
    if (absl::Status s = rest.PatchConfig(url->second, patch, ctx.rest_auth); !s.ok()) {
      ctx.recorder.Warning(
          ctx.stored, "DynamicConfigurationFailed",
          absl::StrCat("Patroni refused the spec's ", paths, " (PATCH /config on ", members.primary,
                       "): ", s.message(), "; retrying on the next reconcile"));
      return;
    }
    ctx.recorder.Normal(
        ctx.stored, "DynamicConfigurationApplied",
        absl::StrCat("Patroni's dynamic configuration now has the spec's ", paths,
                     "; members apply it within loop_wait (parameters that need a restart are "
                     "pending_restart until the member restarts)"));
  }
  absl::MutexLock lock(&mu_);
  confirmed_[key] = text;
}

void DynamicConfigSync::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  confirmed_.erase(key);
}

size_t DynamicConfigSync::size() const {
  absl::MutexLock lock(&mu_);
  return confirmed_.size();
}

}  // namespace quorum::postgrescluster
