#include "src/controllers/postgrescluster/leader_watch.h"

#include <spdlog/spdlog.h>

#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/cancellation.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/etcd/watch.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {
namespace {

constexpr absl::Duration kEtcdRequestTimeout = absl::Seconds(5);  // authenticate

std::string Describe(const etcd::WatchOptions& w, const etcd::ClientConfig& c) {
  return absl::StrCat(w.range_end.empty() ? "key " : "prefix ", w.key, " on ",
                      absl::StrJoin(c.endpoints, ","));
}

}  // namespace

std::string LeaderWatchTarget::group() const {
  // Everything that makes two clusters' watches differ; kept in memory only.
  return absl::StrCat(absl::StrJoin(config.endpoints, ","), "\n", config.ca_pem, "\n",
                      config.cert_pem, "\n", config.key_pem, "\n", config.username, "\n",
                      config.password, "\n", prefix);
}

std::optional<LeaderWatchTarget> LeaderWatchTargetFor(const PostgresCluster& cluster,
                                                      const DcsResolution& dcs,
                                                      const SecretValue& secret) {
  if (!dcs.ready) return std::nullopt;
  absl::StatusOr<etcd::ClientConfig> config = EtcdClientConfigFor(dcs, secret, kEtcdRequestTimeout);
  if (!config.ok() || config->endpoints.empty()) return std::nullopt;
  const patroni::ConfigInput input = BuildPatroniInput(cluster, dcs);
  LeaderWatchTarget t;
  t.config = *std::move(config);
  t.leader_key = patroni::LeaderKey(input.key_namespace, input.scope);
  // "/<namespace>/<scope>/leader" -> "/<namespace>/"
  const size_t tail = input.scope.size() + std::string_view("/leader").size();
  t.prefix = t.leader_key.size() > tail ? t.leader_key.substr(0, t.leader_key.size() - tail)
                                        : std::string("/");
  return t;
}

// One etcd watch on its own thread, waking the source's followers.
class LeaderWatchSource::Stream {
 public:
  Stream(LeaderWatchSource& source, std::string group, std::unique_ptr<etcd::Client> client,
         etcd::WatchOptions options)
      : group(std::move(group)),
        narrow(options.range_end.empty()),
        source_(source),
        client_(std::move(client)),
        describe_(Describe(options, client_->config())) {
    options.on_error = [this](const absl::Status& s, absl::Duration backoff) {
      spdlog::warn("DCS leader watch ({}): {}; again in {}", describe_, std::string(s.message()),
                   absl::FormatDuration(backoff));
    };
    // The first stream starts after its followers read the leader: wake them
    // once it is established so that no change in between is lost.
    options.on_connected = [this](int64_t revision) {
      if (connected_) return;
      connected_ = true;
      spdlog::info("DCS leader watch ({}) established at revision {}", describe_, revision);
      Wake(source_.Woken(this, {}, /*all=*/true));
    };
    watcher_ = std::make_unique<etcd::KeyWatcher>(*client_, std::move(options));
  }

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void StopAndJoin() {
    cancel_.Cancel();
    if (thread_.joinable()) thread_.join();
  }

  const std::string group;
  const bool narrow;  // one leader key, not the prefix
  // leader key -> request keys following it; guarded by the source's mu_.
  std::map<std::string, std::set<std::string>> followers;

 private:
  void Run() {
    absl::Status s = watcher_->Run(
        [this](const etcd::WatchUpdate& update) {
          std::set<std::string> keys;
          for (const etcd::KeyEvent& e : update.events) keys.insert(e.key);
          Wake(source_.Woken(this, keys, update.resync));
          return true;
        },
        cancel_);
    if (absl::IsCancelled(s)) return;
    spdlog::warn("DCS leader watch ({}) ended: {}", describe_, std::string(s.message()));
    if (absl::IsPermissionDenied(s)) source_.Denied(this);
  }
  void Wake(const std::set<std::string>& requests) {
    for (const std::string& r : requests) source_.enqueue_(runtime::Request::FromKey(r));
  }

  LeaderWatchSource& source_;
  std::unique_ptr<etcd::Client> client_;
  const std::string describe_;
  std::unique_ptr<etcd::KeyWatcher> watcher_;
  Cancellation cancel_;
  std::thread thread_;
  bool connected_ = false;  // only the stream's thread touches it
};

LeaderWatchSource::LeaderWatchSource(Enqueue enqueue) : enqueue_(std::move(enqueue)) {}

LeaderWatchSource::~LeaderWatchSource() {
  std::map<std::string, std::unique_ptr<Stream>> streams;
  {
    absl::MutexLock lock(&mu_);
    streams.swap(streams_);
    following_.clear();
  }
  for (auto& [id, stream] : streams) stream->StopAndJoin();
}

std::string LeaderWatchSource::StreamId(const LeaderWatchTarget& target) const {
  const std::string group = target.group();
  return narrow_groups_.contains(group) ? absl::StrCat(group, "\n", target.leader_key) : group;
}

void LeaderWatchSource::Follow(const runtime::Request& request,
                               const std::optional<LeaderWatchTarget>& target) {
  const std::string rk = request.Key();
  std::unique_ptr<Stream> stopped;
  {
    absl::MutexLock lock(&mu_);
    std::optional<std::pair<std::string, std::string>> want;
    if (target.has_value()) want.emplace(StreamId(*target), target->leader_key);
    auto it = following_.find(rk);
    if (it == following_.end() ? !want.has_value() : want == it->second) return;
    if (it != following_.end()) {
      const auto& [id, key] = it->second;
      auto s = streams_.find(id);
      if (s != streams_.end()) {
        auto f = s->second->followers.find(key);
        if (f != s->second->followers.end()) {
          f->second.erase(rk);
          if (f->second.empty()) s->second->followers.erase(f);
        }
        if (s->second->followers.empty()) {
          stopped = std::move(s->second);
          streams_.erase(s);
        }
      }
      following_.erase(it);
    }
    if (want.has_value()) {
      std::unique_ptr<Stream>& stream = streams_[want->first];
      if (stream == nullptr) {
        absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(target->config);
        if (!client.ok()) {
          streams_.erase(want->first);
          spdlog::warn("DCS leader watch for {}: {}", rk, std::string(client.status().message()));
        } else {
          const bool narrow = want->first != target->group();
          etcd::WatchOptions options{
              .key = narrow ? target->leader_key : target->prefix,
              .range_end = narrow ? "" : etcd::PrefixRangeEnd(target->prefix)};
          stream = std::make_unique<Stream>(*this, target->group(), *std::move(client),
                                            std::move(options));
          stream->Start();
        }
      }
      if (streams_.contains(want->first)) {
        streams_[want->first]->followers[want->second].insert(rk);
        following_[rk] = *want;
      }
    }
  }
  if (stopped != nullptr) stopped->StopAndJoin();
}

std::set<std::string> LeaderWatchSource::Woken(const Stream* stream,
                                               const std::set<std::string>& keys, bool all) const {
  std::set<std::string> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, requests] : stream->followers) {
    if (all || keys.contains(key)) out.insert(requests.begin(), requests.end());
  }
  return out;
}

void LeaderWatchSource::Denied(const Stream* stream) {
  std::set<std::string> requests;
  {
    absl::MutexLock lock(&mu_);
    if (stream->narrow) return;  // nothing narrower to try; probes and requeues remain
    narrow_groups_.insert(stream->group);
    for (const auto& [key, r] : stream->followers) requests.insert(r.begin(), r.end());
  }
  // Their next reconcile follows again, one key each.
  for (const std::string& r : requests) enqueue_(runtime::Request::FromKey(r));
}

size_t LeaderWatchSource::streams() const {
  absl::MutexLock lock(&mu_);
  return streams_.size();
}

size_t LeaderWatchSource::followers() const {
  absl::MutexLock lock(&mu_);
  return following_.size();
}

}  // namespace quorum::postgrescluster
