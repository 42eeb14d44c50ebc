#include "src/controllers/postgrescluster/sync_config.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/controllers/common/wait.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/patroni/config.h"
#include "src/patroni/dynamic_config.h"

namespace quorum::postgrescluster {

namespace {

// Attempts at a PATCH that Patroni answers 409: the DCS copy changed between
// its read and its compare-and-set write (the leader writes the timeline
// history there right after a promotion); each attempt reads it again.
constexpr int kConflictAttempts = 3;

}  // namespace

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
  std::string paths;
  absl::Status s = absl::OkStatus();
  for (int attempt = 0; attempt < kConflictAttempts; ++attempt) {
    absl::StatusOr<Json> current = rest.GetConfig(url->second);
    s = current.status();
    if (!s.ok()) break;
    const Json patch = patroni::DynamicConfigPatch(desired, *current);
    if (patch.empty()) break;  // nothing (left) to send
    paths = absl::StrJoin(patroni::PatchPaths(patch), ", ");
    s = rest.PatchConfig(url->second, patch, ctx.rest_auth);
    if (!absl::IsAborted(s)) break;
  }
  if (!s.ok()) {
    // Looked at again soon (RetryAfter), whatever else the reconcile waits on.
    int failures = 0;
    {
      absl::MutexLock lock(&mu_);
      failures = ++failures_[key];
    }
    const std::string message = absl::StrCat(
        paths.empty() ? "reading Patroni's dynamic configuration"
                      : absl::StrCat("Patroni refused the spec's ", paths, " (PATCH /config)"),
        " on ", members.primary, ": ", s.message(), "; retrying in ",
        absl::FormatDuration(controllers::BackoffDelay(failures - 1, kFirstRetry)));
    spdlog::warn("{}: {}", key, message);
    ctx.recorder.Warning(ctx.stored, "DynamicConfigurationFailed", message);
    return;
  }
  if (!paths.empty()) {
    ctx.recorder.Normal(
        ctx.stored, "DynamicConfigurationApplied",
        absl::StrCat("Patroni's dynamic configuration now has the spec's ", paths,
                     "; members apply it within loop_wait (parameters that need a restart are "
                     "pending_restart until the member restarts)"));
  }
  absl::MutexLock lock(&mu_);
  failures_.erase(key);
  confirmed_[key] = text;
}

std::optional<absl::Duration> DynamicConfigSync::RetryAfter(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(key);
  if (it == failures_.end()) return std::nullopt;
  return controllers::BackoffDelay(it->second - 1, kFirstRetry);
}

void DynamicConfigSync::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  confirmed_.erase(key);
  failures_.erase(key);
}

size_t DynamicConfigSync::size() const {
  absl::MutexLock lock(&mu_);
  return confirmed_.size();
}

}  // namespace quorum::postgrescluster
