// The fault table's checkers, each a background thread recording into a
// timeline (test/faults/timeline.h):
//   PgWriter        INSERTs one row every `interval` through a connection
//                   string (the primary Service) and records every attempt;
//                   Present() reads back which ids the table holds.
//   EtcdWriter      puts one key every `interval` through one client URL (the
//                   EtcdCluster's Service); its failures are the windows in
//                   which etcd had no quorum as clients see it; ReadBack()
//                   checks every acknowledged put is there, in order.
//   PrimaryWatch    watches the cluster's pods and the primary Service's
//                   EndpointSlices; counts pods labelled role=primary at once.
//   ReadySampler    reads a resource's Ready condition every `interval`.
// Start() begins, Stop() ends and joins; results are read after Stop().
#ifndef QUORUM_TEST_FAULTS_CHECKERS_H_
#define QUORUM_TEST_FAULTS_CHECKERS_H_

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "src/base/cancellation.h"
#include "src/etcd/client.h"
#include "src/kube/client.h"
#include "test/faults/timeline.h"

namespace quorum::faults {

class PgWriter {
 public:
  // `conninfo`: a libpq connection string or URI. Ids are `first_id`,
  // `first_id + 1`, ... into table `table` (created if missing).
  PgWriter(std::string conninfo, std::string table, int64_t first_id,
           absl::Duration interval = absl::Milliseconds(50));
  ~PgWriter() { Stop(); }
  void Start();
  void Stop();
  std::vector<WriteAttempt> attempts() const;
  // Consecutive acknowledged writes at the end of the record, counting only
  // those made at or after `since`.
  int trailing_successes(absl::Time since = absl::InfinitePast()) const;
  // The ids in [first_id, next id) that the table holds, read through the
  // same connection string (retried until `timeout`).
  absl::StatusOr<std::set<int64_t>> Present(absl::Duration timeout) const;

 private:
  void Run();
  const std::string conninfo_, table_;
  const int64_t first_id_;
  const absl::Duration interval_;
  Cancellation stop_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::vector<WriteAttempt> attempts_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

class EtcdWriter {
 public:
  // Keys `prefix` + a zero-padded id, from 1, through `access` (the
  // EtcdCluster's client URL with its TLS and root credentials, as the
  // operator reaches it; the per-request timeout is set here).
  EtcdWriter(etcd::ClientConfig access, std::string prefix,
             absl::Duration interval = absl::Milliseconds(200));
  ~EtcdWriter() { Stop(); }
  void Start();
  void Stop();
  std::vector<WriteAttempt> attempts() const;
  // After Stop(): "" when every acknowledged put reads back with its
  // revision, in order (EtcdReadBackProblem); else the problem, or why the
  // keys could not be read within `timeout`. Then deletes the keys.
  std::string ReadBack(absl::Duration timeout) const;

 private:
  void Run();
  std::string Key(int64_t id) const;
  const etcd::ClientConfig access_;
  const std::string prefix_;
  const absl::Duration interval_;
  Cancellation stop_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::vector<WriteAttempt> attempts_ ABSL_GUARDED_BY(mu_);
};

class PrimaryWatch {
 public:
  // Pods labelled app.kubernetes.io/instance=<cluster>, name=postgres, and
  // the EndpointSlices of Service <cluster>, in namespace `ns`.
  PrimaryWatch(kube::Client& client, std::string ns, std::string cluster);
  ~PrimaryWatch() { Stop(); }
  void Start();
  void Stop();
  int max_labelled() const;
  int max_addresses() const;
  absl::Duration two_primaries() const;
  absl::Duration two_addresses() const;

 private:
  void WatchPods();
  void WatchSlices();
  kube::Client& client_;
  const std::string ns_, cluster_;
  Cancellation stop_;
  std::vector<std::thread> threads_;
  mutable absl::Mutex mu_;
  PrimaryTracker tracker_ ABSL_GUARDED_BY(mu_);
};

class ReadySampler {
 public:
  ReadySampler(kube::Client& client, kube::GroupVersionResource gvr, std::string ns,
               std::string name, absl::Duration interval = absl::Seconds(1));
  ~ReadySampler() { Stop(); }
  void Start();
  void Stop();
  std::vector<ReadySample> samples() const;
  // The latest sample's verdict (false before the first).
  bool ready() const;

 private:
  kube::Client& client_;
  const kube::GroupVersionResource gvr_;
  const std::string ns_, name_;
  const absl::Duration interval_;
  Cancellation stop_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::vector<ReadySample> samples_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::faults

#endif  // QUORUM_TEST_FAULTS_CHECKERS_H_
