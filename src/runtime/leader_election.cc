#include "src/runtime/leader_election.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/kube/errors.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"

namespace quorum::runtime {
namespace {

using kube::kLeases;
// client-go's JitterFactor for campaign retries.
constexpr double kJitterFactor = 1.2;

int64_t WholeSeconds(absl::Duration d) {
  return std::max<int64_t>(1, absl::ToInt64Seconds(absl::Ceil(d, absl::Seconds(1))));
}

std::string StringField(const kube::Json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t IntField(const kube::Json& o, const char* key) {
  if (!o.is_object()) return 0;
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

// ---------------------------------------------------------------- pure part

LeaseObservation Observe(const LeaseObservation& previous, const LeaderElectionRecord& seen,
                         absl::Time now) {
  if (previous.exists && previous.record == seen && previous.observed_at != absl::InfinitePast()) {
    return previous;
  }
  return {.exists = true, .record = seen, .observed_at = now};
}

LeaseAction DecideLeaseAction(const LeaseObservation& observation, absl::Time now,
                              std::string_view identity, absl::Duration lease_duration) {
  if (!observation.exists) return LeaseAction::kAcquire;
  const LeaderElectionRecord& r = observation.record;
  if (r.holder_identity == identity) return LeaseAction::kRenew;
  if (r.holder_identity.empty()) return LeaseAction::kAcquire;  // released
  // Never observed: we cannot know for how long it has been unchanged.
  if (observation.observed_at == absl::InfinitePast()) return LeaseAction::kWait;
  const absl::Duration valid_for =
      r.lease_duration_seconds > 0 ? absl::Seconds(r.lease_duration_seconds) : lease_duration;
  return now >= observation.observed_at + valid_for ? LeaseAction::kAcquire : LeaseAction::kWait;
}

LeaderElectionRecord BuildNextRecord(const LeaseObservation& observation, absl::Time now,
                                     std::string_view identity, absl::Duration lease_duration) {
  LeaderElectionRecord next;
  next.holder_identity = std::string(identity);
  next.lease_duration_seconds = WholeSeconds(lease_duration);
  next.renew_time = now;
  const LeaderElectionRecord& old = observation.record;
  if (observation.exists && old.holder_identity == identity) {
    next.acquire_time = old.acquire_time == absl::InfinitePast() ? now : old.acquire_time;
    next.lease_transitions = old.lease_transitions;
  } else {
    next.acquire_time = now;
    next.lease_transitions = observation.exists ? old.lease_transitions + 1 : 0;
  }
  return next;
}

LeaderElectionRecord BuildReleasedRecord(const LeaderElectionRecord& current, absl::Time now) {
  return {.holder_identity = "",
          .lease_duration_seconds = 1,
          .acquire_time = now,
          .renew_time = now,
          .lease_transitions = current.lease_transitions};
}

LeaderElectionRecord RecordFromLease(const kube::Json& lease) {
  LeaderElectionRecord r;
  if (!lease.is_object()) return r;
  auto spec = lease.find("spec");
  if (spec == lease.end() || !spec->is_object()) return r;
  r.holder_identity = StringField(*spec, "holderIdentity");
  r.lease_duration_seconds = IntField(*spec, "leaseDurationSeconds");
  r.acquire_time = ParseMicroTime(StringField(*spec, "acquireTime"));
  r.renew_time = ParseMicroTime(StringField(*spec, "renewTime"));
  r.lease_transitions = IntField(*spec, "leaseTransitions");
  return r;
}

void WriteRecordToLease(const LeaderElectionRecord& record, kube::Json& lease) {
  if (!lease.is_object()) lease = kube::Json::object();
  kube::Json& spec = lease["spec"];
  if (!spec.is_object()) spec = kube::Json::object();
  spec["holderIdentity"] = record.holder_identity;
  spec["leaseDurationSeconds"] = record.lease_duration_seconds;
  spec["leaseTransitions"] = record.lease_transitions;
  auto set_time = [&spec](const char* key, absl::Time t) {
    if (t == absl::InfinitePast()) {
      spec.erase(key);
    } else {
      spec[key] = FormatMicroTime(t);
    }
  };
  set_time("acquireTime", record.acquire_time);
  set_time("renewTime", record.renew_time);
}

std::string FormatMicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

absl::Time ParseMicroTime(std::string_view s) {
  absl::Time t;
  std::string err;
  if (s.empty() || !absl::ParseTime(absl::RFC3339_full, Absl(s), &t, &err)) {
    return absl::InfinitePast();
  }
  return t;
}

// ---------------------------------------------------------------- elector

LeaderElector::LeaderElector(kube::Client& client, LeaderElectionConfig config, Clock& clock,
                             Registry* metrics)
    : client_(client), config_(std::move(config)), clock_(clock), rng_(std::random_device{}()) {
  if (metrics != nullptr) {
    master_status_ = &metrics
                          ->Gauge("leader_election_master_status",
                                  "1 while this process holds the lease, else 0.", {"name"})
                          .With({config_.lease_name});
    master_status_->Set(0);
  }
}

LeaderElector::~LeaderElector() = default;

bool LeaderElector::IsLeader() const {
  absl::MutexLock lock(&mu_);
  return is_leader_;
}

std::string LeaderElector::ObservedHolder() const {
  absl::MutexLock lock(&mu_);
  return observed_.record.holder_identity;
}

void LeaderElector::SetLeader(bool leader) {
  {
    absl::MutexLock lock(&mu_);
    is_leader_ = leader;
  }
  if (master_status_ != nullptr) master_status_->Set(leader ? 1 : 0);
}

absl::Status LeaderElector::ValidateConfig() const {
  if (config_.lease_namespace.empty() || config_.lease_name.empty() || config_.identity.empty()) {
    return absl::InvalidArgumentError(
        "leader election needs lease_namespace, lease_name and identity");
  }
  if (config_.retry_period <= absl::ZeroDuration() ||
      config_.renew_deadline <= config_.retry_period * kJitterFactor ||
      config_.lease_duration <= config_.renew_deadline) {
    return absl::InvalidArgumentError(
        absl::StrCat("leader election needs lease_duration > renew_deadline > 1.2 * retry_period "
                     "> 0; got ",
                     absl::FormatDuration(config_.lease_duration), ", ",
                     absl::FormatDuration(config_.renew_deadline), ", ",
                     absl::FormatDuration(config_.retry_period)));
  }
  return absl::OkStatus();
}

bool LeaderElector::Sleep(absl::Duration d, Cancellation& cancel) {
  if (&clock_ == &RealClock()) return cancel.WaitFor(d);
  clock_.Sleep(d);
  return cancel.cancelled();
}

absl::Duration LeaderElector::Jittered(absl::Duration d) {
  std::uniform_real_distribution<double> u(0, kJitterFactor);
  return d + d * u(rng_);
}

absl::StatusOr<kube::Json> LeaderElector::Call(const std::string& method, const std::string& path,
                                               const kube::Json* body, absl::Time deadline) {
  const absl::Duration left = std::min(deadline - clock_.Now(), client_.config().timeout);
  if (left <= absl::ZeroDuration()) {
    return absl::DeadlineExceededError(absl::StrCat(method, " ", path, ": no time left"));
  }
  kube::HttpRequest req;
  req.method = method;
  req.path = path;
  req.timeout = std::max(left, absl::Milliseconds(1));
  if (body != nullptr) {
    req.path += kube::EncodeQuery({{"fieldManager", client_.field_manager()}});
    req.body = body->dump(-1, ' ', false, kube::Json::error_handler_t::replace);
    req.content_type = "application/json";
  }
  absl::StatusOr<kube::HttpResponse> resp = client_.transport().Do(req);
  if (!resp.ok()) return resp.status();
  absl::Status status = kube::StatusFromResponse(resp->code, resp->body, resp->retry_after);
  if (!status.ok()) return status;
  kube::Json parsed = kube::Json::parse(resp->body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return absl::InternalError(absl::StrCat("malformed response from API server to ", method, " ",
                                            path, ": body is not a JSON object"));
  }
  return parsed;
}

absl::StatusOr<bool> LeaderElector::TryAcquireOrRenew(Phase phase, absl::Duration timeout) {
  const absl::Time deadline = clock_.Now() + timeout;
  const std::string path = kube::ResourcePath(kLeases, config_.lease_namespace, config_.lease_name);
  absl::StatusOr<kube::Json> got = Call("GET", path, nullptr, deadline);
  const absl::Time now = clock_.Now();

  absl::StatusOr<kube::Json> written;
  if (absl::IsNotFound(got.status())) {
    kube::Json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}}};
    WriteRecordToLease(BuildNextRecord({}, now, config_.identity, config_.lease_duration), lease);
    // AlreadyExists: another candidate created it first.
    written = Call("POST", kube::ResourcePath(kLeases, config_.lease_namespace), &lease, deadline);
  } else {
    if (!got.ok()) return got.status();
    LeaseObservation observation;
    {
      absl::MutexLock lock(&mu_);
      observed_ = Observe(observed_, RecordFromLease(*got), now);
      observation = observed_;
    }
    if (phase == Phase::kLeading && observation.record.holder_identity != config_.identity) {
      return false;
    }
    if (DecideLeaseAction(observation, now, config_.identity, config_.lease_duration) ==
        LeaseAction::kWait) {
      return false;
    }
    kube::Json lease = *std::move(got);
    WriteRecordToLease(BuildNextRecord(observation, now, config_.identity, config_.lease_duration),
                       lease);
    // The resourceVersion read above makes this a compare-and-swap: Aborted
    // (Conflict) means another candidate wrote first.
    written = Call("PUT", path, &lease, deadline);
  }
  if (!written.ok()) return written.status();
  {
    absl::MutexLock lock(&mu_);
    observed_ = {.exists = true, .record = RecordFromLease(*written), .observed_at = now};
  }
  last_lease_ = std::make_unique<kube::Json>(*std::move(written));
  return true;
}

absl::Status LeaderElector::Release(absl::Duration timeout) {
  if (last_lease_ == nullptr) return absl::OkStatus();
  const absl::Time deadline = clock_.Now() + timeout;
  kube::Json lease = *last_lease_;
  WriteRecordToLease(BuildReleasedRecord(RecordFromLease(lease), clock_.Now()), lease);
  absl::StatusOr<kube::Json> written =
      Call("PUT", kube::ResourcePath(kLeases, config_.lease_namespace, config_.lease_name), &lease,
           deadline);
  if (!written.ok()) return written.status();
  absl::MutexLock lock(&mu_);
  observed_ = {.exists = true, .record = RecordFromLease(*written), .observed_at = clock_.Now()};
  return absl::OkStatus();
}

// NOLINTNEXTLINE(readability-function-size): campaign/renew/step-down as one loop
absl::Status LeaderElector::Run(Cancellation& cancel, std::function<void()> on_started_leading,
                                std::function<void()> on_stopped_leading) {
  if (absl::Status valid = ValidateConfig(); !valid.ok()) return valid;
  const std::string lease = absl::StrCat(config_.lease_namespace, "/", config_.lease_name);
  spdlog::info("leader election: campaigning lease={} identity={}", lease, config_.identity);

  // Campaign until the lease is ours.
  absl::Time last_renew;
  while (true) {
    if (cancel.cancelled()) return absl::OkStatus();
    const absl::Time start = clock_.Now();
    absl::StatusOr<bool> acquired = TryAcquireOrRenew(Phase::kCampaigning, config_.renew_deadline);
    if (acquired.ok() && *acquired) {
      last_renew = start;
      break;
    }
    if (!acquired.ok() && !kube::IsConflict(acquired.status()) &&
        !absl::IsAlreadyExists(acquired.status())) {
      spdlog::warn("leader election: cannot read or write lease={} identity={} error=\"{}\"", lease,
                   config_.identity, acquired.status().ToString());
    }
    if (Sleep(Jittered(config_.retry_period), cancel)) return absl::OkStatus();
  }
  if (cancel.cancelled()) {
    // Won the lease while shutting down: hand it straight back.
    if (config_.release_on_cancel) (void)Release(config_.renew_deadline);
    return absl::OkStatus();
  }

  spdlog::info("leader election: became leader lease={} identity={}", lease, config_.identity);
  SetLeader(true);
  if (on_started_leading) on_started_leading();

  // Renew until cancelled or until renewals fail for renew_deadline.
  absl::Status lost;
  while (lost.ok()) {
    if (Sleep(config_.retry_period, cancel)) break;
    const absl::Time start = clock_.Now();
    const absl::Duration left = last_renew + config_.renew_deadline - start;
    if (left <= absl::ZeroDuration()) {
      lost = absl::AbortedError(absl::StrCat("leadership of lease ", lease,
                                             " lost: not renewed within the renew deadline"));
      break;
    }
    absl::StatusOr<bool> renewed = TryAcquireOrRenew(Phase::kLeading, left);
    if (renewed.ok() && *renewed) {
      last_renew = start;
    } else if (renewed.ok()) {
      lost = absl::AbortedError(
          absl::StrCat("leadership of lease ", lease, " lost: now held by ", ObservedHolder()));
    } else {
      spdlog::warn("leader election: renewal failed lease={} identity={} error=\"{}\"", lease,
                   config_.identity, renewed.status().ToString());
      if (clock_.Now() - last_renew >= config_.renew_deadline) {
        lost = absl::AbortedError(absl::StrCat(
            "leadership of lease ", lease,
            " lost: not renewed within the renew deadline: ", renewed.status().ToString()));
      }
    }
  }

  SetLeader(false);
  if (!lost.ok()) {
    spdlog::error("leader election: {} identity={}", lost.ToString(), config_.identity);
  }
  if (on_stopped_leading) on_stopped_leading();
  if (!lost.ok()) return lost;

  spdlog::info("leader election: stopped leading on shutdown lease={} identity={}", lease,
               config_.identity);
  if (config_.release_on_cancel) {
    // After on_stopped_leading returned, so the successor never overlaps with
    // our leader-only work. Conflict: the lease changed since our last
    // renewal, so it is no longer ours to release.
    absl::Status released = Release(config_.renew_deadline);
    if (!released.ok()) {
      spdlog::warn("leader election: release failed lease={} identity={} error=\"{}\"", lease,
                   config_.identity, released.ToString());
    }
  }
  return absl::OkStatus();
}

}  // namespace quorum::runtime
