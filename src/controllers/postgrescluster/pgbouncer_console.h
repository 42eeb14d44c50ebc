// The pooler's admin console (PgBouncer's virtual database "pgbouncer"),
// reached at each pooler pod's IP as api::kPoolerAdminName, over TLS
// verified against the cluster's CA (the name checked is the pooler
// Service's, which its certificate carries). A planned switchover pauses
// every pod first — PAUSE lets running transactions finish, then holds new
// ones instead of failing them — and resumes them once Patroni answered
// (docs/pooler.md). PgBouncer has no timeout of its own on a pause: one left
// by an operator that stopped between the two is undone by ResumeAll, which
// the reconciler runs once per cluster after it starts (pgbouncer_phase.h).
//
// Thread-safety: a PgBouncerConsole is used by one thread at a time.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_CONSOLE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_CONSOLE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/pg_connection.h"

namespace quorum::postgrescluster {

// What a switchover needs of the pooler; an interface so that the
// switchover's tests can watch the order of the steps.
class PoolerPause {
 public:
  virtual ~PoolerPause() = default;
  // PAUSE on every pod, each waiting until `deadline` for its running
  // transactions (in session mode: its clients) to end. OK: every pod is
  // paused. Otherwise every pod paused or pausing is resumed before it
  // returns, and the error names the pod and why.
  virtual absl::Status Pause(absl::Time deadline) = 0;
  // RESUME on every pod Pause reached. Errors: Unavailable naming a pod that
  // could not be reached; it stays paused until ResumeAll reaches it.
  virtual absl::Status Resume() = 0;
};

struct PoolerPod {
  std::string name;
  std::string ip;
};

class PgBouncerConsole : public PoolerPause {
 public:
  // `admin`: host (the name the certificate must carry), user, password and
  // CA; its hostaddr and port are each pod's.
  PgBouncerConsole(std::vector<PoolerPod> pods, PostgresTarget admin, int port);

  absl::Status Pause(absl::Time deadline) override;
  absl::Status Resume() override;
  // RESUME on every pod, paused or not (a pooler that is not paused answers
  // with an error, which is no failure). OK when every pod answered;
  // `resumed` counts the pods that were paused. Errors: Unavailable naming a
  // pod that could not be reached.
  absl::Status ResumeAll(int& resumed);

  const std::vector<PoolerPod>& pods() const { return pods_; }

 private:
  // Unavailable when `pod` cannot be reached; OK otherwise, with
  // `was_paused` whether RESUME found it paused.
  absl::Status ResumeOne(const PoolerPod& pod, bool& was_paused);
  absl::Status ResumeThese(const std::vector<PoolerPod>& pods, int& resumed);

  std::vector<PoolerPod> pods_;
  PostgresTarget admin_;
  std::vector<PoolerPod> pausing_;  // reached by Pause: resumed by Resume
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_CONSOLE_H_
