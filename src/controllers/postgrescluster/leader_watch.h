// LeaderWatchSource: an event source (like an informer's handler) that wakes
// a PostgresCluster's reconcile the moment its Patroni leader key changes in
// an etcd DCS, so the role labels follow a switchover or failover without
// waiting for a probe or a requeue (issue 14.7). The reconcile then reads the
// leader key as the truth for `primary`, as before.
//
// Streams are shared: clusters whose DCS has the same endpoints, TLS material,
// credentials and Patroni key namespace share one etcd watch on the namespace
// prefix (`/<namespace>/`), and each leader-key event wakes only the clusters
// whose `/<namespace>/<scope>/leader` changed (the member and status keys
// under the prefix are dropped as they arrive). So the streams are bounded by
// the distinct DCS locations, not by the clusters: 100 clusters on one etcd
// are one stream. When the credentials may not read the whole prefix (etcd
// answers PermissionDenied), that group falls back to one watch per leader
// key, which needs only what Patroni itself may read.
//
// A stream starts when the first cluster follows it and stops (cancelled and
// joined) when the last one leaves: the reconciler calls Follow on every
// reconcile (a no-op when nothing changed) and with nullopt when the cluster
// is gone or does not use an etcd DCS. Idle streams cost no CPU (a parked
// connection; see etcd/watch.h). A watch that resumes after a compaction
// wakes every cluster of its stream.
//
// Thread-safety: all methods may be called concurrently; `enqueue` is called
// from the streams' threads, never under the source's lock.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_WATCH_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_WATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/etcd/client.h"
#include "src/runtime/reconciler.h"

namespace quorum::postgrescluster {

// What one cluster follows: the leader key, and the stream that carries it.
struct LeaderWatchTarget {
  etcd::ClientConfig config;  // the DCS's endpoints, TLS and credentials
  std::string prefix;         // Patroni's key namespace, e.g. "/service/"
  std::string leader_key;     // e.g. "/service/hippo/leader"
  // Clusters with equal groups share a stream (no secret in it is logged).
  std::string group() const;
  bool operator==(const LeaderWatchTarget& o) const {
    return group() == o.group() && leader_key == o.leader_key;
  }
};

// The target of `cluster` with its resolved DCS, or nullopt when it does not
// use an etcd DCS or the DCS is not ready. Pure (`secret` reads the cache).
std::optional<LeaderWatchTarget> LeaderWatchTargetFor(const PostgresCluster& cluster,
                                                      const DcsResolution& dcs,
                                                      const SecretValue& secret);

class LeaderWatchSource {
 public:
  using Enqueue = std::function<void(const runtime::Request&)>;
  explicit LeaderWatchSource(Enqueue enqueue);
  ~LeaderWatchSource();  // stops every stream
  LeaderWatchSource(const LeaderWatchSource&) = delete;
  LeaderWatchSource& operator=(const LeaderWatchSource&) = delete;

  // Makes `request` follow `target` (nullopt: nothing), starting and stopping
  // streams as needed. Cheap when the target did not change.
  void Follow(const runtime::Request& request, const std::optional<LeaderWatchTarget>& target);

  // Streams running now and clusters following; for tests and benchmarks.
  size_t streams() const;
  size_t followers() const;

 private:
  class Stream;
  // The stream id a target uses now (its group, or group + key once the
  // group's prefix watch was denied).
  std::string StreamId(const LeaderWatchTarget& target) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Called by a stream: the request keys to wake for `keys` changed (every
  // follower when `all`).
  std::set<std::string> Woken(const Stream* stream, const std::set<std::string>& keys,
                              bool all) const;
  void Denied(const Stream* stream);

  const Enqueue enqueue_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
  // request key -> (stream id, leader key)
  std::map<std::string, std::pair<std::string, std::string>> following_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> narrow_groups_ ABSL_GUARDED_BY(mu_);  // prefix watch denied
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_WATCH_H_
