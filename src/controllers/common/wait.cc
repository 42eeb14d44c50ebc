#include "src/controllers/common/wait.h"

#include <algorithm>
#include <functional>

namespace quorum::controllers {

absl::Duration BackoffDelay(int attempt, absl::Duration first, absl::Duration max) {
  absl::Duration d = first;
  for (int i = 0; i < attempt && d < max; ++i) d *= 2;
  return std::min(d, max);
}

absl::Duration Spread(absl::Duration base, const std::string& key) {
  const size_t h = std::hash<std::string>{}(key);
  return base + base * (static_cast<double>(h % 1000) / 10000.0);
}

absl::Duration WaitBackoff::Next(const std::string& key, const std::string& what,
                                 absl::Duration max) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  auto [it, added] = entries_.try_emplace(key, Entry{.what = what, .since = now});
  if (!added && it->second.what != what) it->second = Entry{.what = what, .since = now};
  return std::clamp(now - it->second.since, kFirstWait, std::max(max, kFirstWait));
}

void WaitBackoff::Reset(const std::string& key) {
  absl::MutexLock lock(&mu_);
  entries_.erase(key);
}

size_t WaitBackoff::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

void RetryGate::Failed(const std::string& key, const std::string& what, const std::string& error,
                       absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  entries_[key] = Entry{.what = what, .error = error, .retry_at = clock_.Now() + delay};
}

std::optional<RetryGate::Held> RetryGate::Wait(const std::string& key,
                                               const std::string& what) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.what != what) return std::nullopt;
  const absl::Duration remaining = it->second.retry_at - clock_.Now();
  if (remaining <= absl::ZeroDuration()) return std::nullopt;
  return Held{.remaining = remaining, .error = it->second.error};
}

void RetryGate::Reset(const std::string& key) {
  absl::MutexLock lock(&mu_);
  entries_.erase(key);
}

size_t RetryGate::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace quorum::controllers
