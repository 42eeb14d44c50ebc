// Helpers for the end-to-end tests: commands on the host with the node's
// names (hack/node.sh exec), the operator as a host process that a test
// can kill and restart, etcdctl against an EtcdCluster, and the E2ETest
// fixture (an IntegrationTest with the EtcdCluster CRD installed).
#ifndef QUORUM_TEST_E2E_E2E_ENV_H_
#define QUORUM_TEST_E2E_E2E_ENV_H_

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "test/integration/testenv.h"

namespace quorum::e2e {

using kube::Json;

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs argv (argv[0] looked up in PATH) with a timeout.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         absl::Duration timeout = absl::Seconds(60));
// The whole file at `path` ("" when it cannot be read).
std::string FileText(const std::string& path);

// The same as RunCommand through `hack/node.sh exec`:
// cluster names resolve.
CommandResult NodeExec(const std::vector<std::string>& argv,
                       absl::Duration timeout = absl::Seconds(60));

std::string OperatorBinary();

// The control plane's kubectl with its admin kubeconfig, in namespace `ns`
// ("" for none: cluster-scoped objects, or `-n` among `args`).
CommandResult Kubectl(const std::string& ns, const std::vector<std::string>& args,
                      absl::Duration timeout = absl::Seconds(60));

// The built kubectl-quorum with `args` in namespace `ns` through NodeExec
// (cluster names resolve), with the control plane's kubeconfig and its
// binaries (etcdctl) first on PATH.
CommandResult KubectlQuorum(const std::string& ns, const std::vector<std::string>& args,
                            absl::Duration timeout = absl::Minutes(4));

// psql through `hack/node.sh exec` with the URI of Secret `secret` (a
// PostgresCluster's <cluster>-superuser, say) in namespace `ns`, over TLS
// verified by the Secret's CA; `host` ("" keeps the URI's) names the Service
// to reach, e.g. the replicas' one. Output unaligned, tuples only.
CommandResult Psql(kube::Client& client, const std::string& ns, const std::string& secret,
                   const std::string& host, const std::string& sql,
                   absl::Duration timeout = absl::Seconds(30));

// A program on the host run with the node's cluster names (hack/node.sh
// exec), its output appended to a log file; stopped when destroyed.
class HostProcess {
 public:
  explicit HostProcess(std::string log_path) : log_(std::move(log_path)) {}
  virtual ~HostProcess() { Stop(); }
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;
  // Starts argv (argv[0] an absolute path); `env`: extra NAME=VALUE entries.
  void Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});
  // Waits up to `timeout` for the process to end by itself; its exit status,
  // or -1 if it is still running (or ended by a signal).
  int WaitExit(absl::Duration timeout);
  void Kill();  // SIGKILL, as a crash
  void Stop();  // SIGTERM, then SIGKILL after 10 s
  bool running() const { return pid_ > 0; }
  const std::string& log_path() const { return log_; }

 private:
  std::string log_;
  pid_t pid_ = 0;
};

// quorum-operator on the host, watching one namespace, log in the build dir.
class OperatorProcess : public HostProcess {
 public:
  // `binary`: another build of the operator (an earlier version, say).
  explicit OperatorProcess(std::string ns, std::string binary = OperatorBinary());
  // `env`: extra NAME=VALUE entries, e.g. QUORUM_FAILPOINTS=... ; `args`:
  // --name=value flags, each replacing the default of that name (e.g. a
  // metrics address).
  void Start(const std::vector<std::string>& env = {}, const std::vector<std::string>& args = {});

 private:
  std::string ns_;
  std::string binary_;
};

// etcdctl with `args` against the client Service of EtcdCluster `name`
// (plus `flags`, e.g. TLS files and --user; an --endpoints= among them
// replaces the Service).
CommandResult Etcdctl(const std::string& ns, const std::string& name,
                      const std::vector<std::string>& args,
                      const std::vector<std::string>& flags = {},
                      const std::string& scheme = "http");

// Puts ~1 MB values under one key of EtcdCluster `name` (plain HTTP, through
// its client Service) until etcd refuses a write for space (NOSPACE), at most
// 60 times; the last etcdctl run, whose exit code is non-zero and whose
// output says "database space exceeded" when it did.
CommandResult FillUntilNoSpace(const std::string& ns, const std::string& name);

// Parsed `etcdctl member list -w json`; empty on failure.
struct Member {
  std::string name;
  uint64_t id = 0;
  bool learner = false;
  std::vector<std::string> client_urls;
};
std::vector<Member> MemberList(const std::string& ns, const std::string& name,
                               const std::vector<std::string>& flags = {},
                               const std::string& scheme = "http");

// A client writing throughout an edit: calls write(i) for i = 1, 2, ... on
// its own thread, paced by `pace`, until Stop(), which returns the i whose
// write was acknowledged (write returned true).
class AckedWriter {
 public:
  AckedWriter(std::function<bool(int)> write, absl::Duration pace);
  ~AckedWriter();  // stops it
  AckedWriter(const AckedWriter&) = delete;
  AckedWriter& operator=(const AckedWriter&) = delete;
  std::vector<int> Stop();

 private:
  std::atomic<bool> stop_{false};
  std::vector<int> acknowledged_;  // written by the thread until it is joined
  std::thread thread_;
};

class E2ETest : public testenv::IntegrationTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The EtcdCluster's Ready condition is True for the current generation.
  bool EtcdClusterReady(const std::string& name);
  absl::StatusOr<Json> GetEtcdCluster(const std::string& name);
  // Pod names and uids of the cluster (via the API).
  std::vector<std::pair<std::string, std::string>> EtcdPods(const std::string& name);
  // Logs what helps a failure: the status of every EtcdCluster and
  // PostgresCluster in the namespace, its pods (with the last log lines of
  // those not ready) and its events.
  void DumpNamespace();
};

}  // namespace quorum::e2e

#endif  // QUORUM_TEST_E2E_E2E_ENV_H_
