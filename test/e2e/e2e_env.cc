#include "test/e2e/e2e_env.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kEvents{"", "v1", "events"};
const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};

std::string Env(const char* name, const std::string& fallback = "") {
  const char* v = getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The command prefix that runs a host command with the node's cluster names.
std::vector<std::string> NodeExecPrefix() {
  return {std::string(QUORUM_SOURCE_DIR) + "/hack/node.sh", "exec", testenv::GetControlPlane()->dir,
          "--"};
}

}  // namespace

std::string OperatorBinary() { return Env("QUORUM_OPERATOR_BIN", QUORUM_OPERATOR_BIN); }

CommandResult Kubectl(const std::string& ns, const std::vector<std::string>& args,
                      absl::Duration timeout) {
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  std::vector<std::string> argv = {cp->bin_dir + "/kubectl", "--kubeconfig=" + cp->kubeconfig};
  if (!ns.empty()) argv.insert(argv.end(), {"-n", ns});
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, timeout);
}

CommandResult RunCommand(const std::vector<std::string>& argv, absl::Duration timeout) {
  CommandResult r;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return r;
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(p[1], 1);
    dup2(p[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(p[1]);
  const absl::Time deadline = absl::Now() + timeout;
  char buf[4096];
  while (true) {
    const int ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now()));
    pollfd pfd{p[0], POLLIN, 0};
    int rc = poll(&pfd, 1, ms);
    if (rc == 0) {
      kill(-pid, SIGKILL);
      r.output += "\n(timed out)";
      break;
    }
    if (rc < 0) continue;
    ssize_t n = read(p[0], buf, sizeof(buf));
    if (n <= 0) break;
    r.output.append(buf, n);
  }
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

CommandResult NodeExec(const std::vector<std::string>& argv, absl::Duration timeout) {
  std::vector<std::string> full = NodeExecPrefix();
  full.insert(full.end(), argv.begin(), argv.end());
  return RunCommand(full, timeout);
}

CommandResult KubectlQuorum(const std::string& ns, const std::vector<std::string>& args,
                            absl::Duration timeout) {
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  std::vector<std::string> argv = {
      "env",
      "KUBECONFIG=" + cp->kubeconfig,
      "PATH=" + cp->bin_dir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      std::string(QUORUM_BINARY_DIR) + "/cmd/kubectl-quorum",
      "-n",
      ns};
  argv.insert(argv.end(), args.begin(), args.end());
  return NodeExec(argv, timeout);
}

AckedWriter::AckedWriter(std::function<bool(int)> write, absl::Duration pace)
    : thread_([this, write = std::move(write), pace] {
        for (int i = 1; !stop_.load(); ++i) {
          if (write(i)) acknowledged_.push_back(i);
          absl::SleepFor(pace);  // paces the writer; waits for nothing
        }
      }) {}

AckedWriter::~AckedWriter() { Stop(); }

std::vector<int> AckedWriter::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return acknowledged_;
}

OperatorProcess::OperatorProcess(std::string ns, std::string binary)
    : HostProcess(absl::StrCat(testenv::GetControlPlane()->dir, "/operator-", ns, ".log")),
      ns_(std::move(ns)),
      binary_(std::move(binary)) {}

void OperatorProcess::Start(const std::vector<std::string>& env,
                            const std::vector<std::string>& args) {
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  std::vector<std::string> argv = {binary_,
                                   "--kubeconfig=" + cp->kubeconfig,
                                   "--namespaces=" + ns_,
                                   "--leader-elect=false",
                                   "--metrics-bind-address=0",
                                   "--health-probe-bind-address=0",
                                   "--log-level=debug"};
  for (const std::string& arg : args) {  // --name=value replaces the default --name=
    const std::string flag = arg.substr(0, arg.find('=') + 1);
    std::erase_if(argv, [&](const std::string& a) { return a.starts_with(flag); });
    argv.push_back(arg);
  }
  Spawn(argv, env);
}

void HostProcess::Spawn(const std::vector<std::string>& command,
                        const std::vector<std::string>& env) {
  std::vector<std::string> argv = NodeExecPrefix();
  argv.insert(argv.end(), command.begin(), command.end());
  const std::string log = log_;
  pid_ = fork();
  if (pid_ == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    const std::string msg = "cannot start " + argv[0] + "\n";
    ssize_t ignored = write(2, msg.data(), msg.size());
    (void)ignored;
    _exit(127);
  }
}

int HostProcess::WaitExit(absl::Duration timeout) {
  if (pid_ <= 0) return -1;
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return -1;
}

void HostProcess::Kill() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = 0;
}

void HostProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = 0;
      return;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  Kill();
}

CommandResult Psql(kube::Client& client, const std::string& ns, const std::string& secret,
                   const std::string& host, const std::string& sql, absl::Duration timeout) {
  auto s = client.Get({"", "v1", "secrets"}, ns, secret);
  if (!s.ok()) return {1, std::string(s.status().message())};
  std::string uri, ca;
  absl::Base64Unescape(s->value("data", Json::object()).value("uri", ""), &uri);
  absl::Base64Unescape(s->value("data", Json::object()).value("ca.crt", ""), &ca);
  const size_t at = uri.find('@'), colon = uri.find(':', at);
  if (at == std::string::npos || colon == std::string::npos) return {1, "no uri in " + secret};
  if (!host.empty()) uri = uri.substr(0, at + 1) + host + uri.substr(colon);
  if (!ca.empty()) {  // the node shares this file system
    const std::string ca_file = absl::StrCat("/tmp/quorum-e2e-", ns, "-", secret, "-ca.crt");
    std::ofstream(ca_file) << ca;
    uri += (uri.find('?') == std::string::npos ? "?" : "&") + std::string("sslrootcert=") + ca_file;
  }
  return NodeExec({"psql", uri, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql}, timeout);
}

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult Etcdctl(const std::string& ns, const std::string& name,
                      const std::vector<std::string>& args, const std::vector<std::string>& flags,
                      const std::string& scheme) {
  std::vector<std::string> argv = {testenv::GetControlPlane()->bin_dir + "/etcdctl",
                                   "--dial-timeout=3s", "--command-timeout=10s"};
  const bool own_endpoints = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
    return absl::StartsWith(f, "--endpoints=");
  });
  if (!own_endpoints) {
    argv.push_back(absl::StrCat("--endpoints=", scheme, "://", name, ".", ns, ".svc:2379"));
  }
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return NodeExec(argv, absl::Seconds(30));
}

CommandResult FillUntilNoSpace(const std::string& ns, const std::string& name) {
  const std::string put = absl::StrCat(
      "head -c 700000 /dev/urandom | base64 -w0 | ", testenv::GetControlPlane()->bin_dir,
      "/etcdctl --endpoints=http://", name, ".", ns, ".svc:2379 --command-timeout=20s put big");
  CommandResult last;
  for (int i = 0; i < 60; ++i) {
    last = NodeExec({"bash", "-c", put});
    if (last.exit_code != 0 && absl::StrContains(last.output, "database space exceeded")) break;
  }
  return last;
}

std::vector<Member> MemberList(const std::string& ns, const std::string& name,
                               const std::vector<std::string>& flags, const std::string& scheme) {
  std::vector<Member> out;
  CommandResult r = Etcdctl(ns, name, {"member", "list", "-w", "json"}, flags, scheme);
  if (r.exit_code != 0) return out;
  Json j = Json::parse(r.output, nullptr, false);
  if (j.is_discarded()) return out;
  for (const Json& m : j.value("members", Json::array())) {
    Member mem;
    mem.name = m.value("name", "");
    mem.id = m.value("ID", uint64_t{0});
    mem.learner = m.value("isLearner", false);
    for (const Json& u : m.value("clientURLs", Json::array())) mem.client_urls.push_back(u);
    out.push_back(mem);
  }
  return out;
}

void E2ETest::SetUp() {
  testenv::IntegrationTest::SetUp();
  // QUORUM_E2E_ETCD_CRD: another CRD file (e.g. one being regenerated).
  const std::string crd =
      Env("QUORUM_E2E_ETCD_CRD",
          std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/etcd.aenix.io_etcdclusters.yaml");
  absl::Status installed = testenv::InstallCrd(client(), crd);
  ASSERT_TRUE(installed.ok()) << installed;
}

void E2ETest::TearDown() {
  if (HasFailure()) DumpNamespace();
  testenv::IntegrationTest::TearDown();
}

absl::StatusOr<Json> E2ETest::GetEtcdCluster(const std::string& name) {
  return client().Get(kEtcdClusters, ns(), name);
}

bool E2ETest::EtcdClusterReady(const std::string& name) {
  auto c = GetEtcdCluster(name);
  if (!c.ok()) return false;
  const Json& status = c->value("status", Json::object());
  if (status.value("observedGeneration", int64_t{-1}) !=
      (*c)["metadata"].value("generation", int64_t{0}))
    return false;
  for (const Json& cond : status.value("conditions", Json::array()))
    if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
  return false;
}

std::vector<std::pair<std::string, std::string>> E2ETest::EtcdPods(const std::string& name) {
  std::vector<std::pair<std::string, std::string>> out;
  auto pods = client().List(kPods, ns(), {.label_selector = "app.kubernetes.io/instance=" + name});
  if (!pods.ok()) return out;
  for (const Json& p : pods->value("items", Json::array()))
    out.emplace_back(p["metadata"]["name"], p["metadata"]["uid"]);
  return out;
}

namespace {

// The status of every object of `gvr` in `ns` (none when its CRD is absent).
void DumpStatuses(kube::Client& client, const kube::GroupVersionResource& gvr,
                  const std::string& kind, const std::string& ns) {
  absl::StatusOr<Json> list = client.List(gvr, ns);
  if (!list.ok()) return;
  for (const Json& obj : list->value("items", Json::array()))
    std::cerr << kind << " " << obj["metadata"].value("name", "")
              << " status: " << obj.value("status", Json()).dump(2) << "\n";
}

bool AllContainersReady(const Json& pod) {
  for (const Json& c : pod["status"].value("containerStatuses", Json::array()))
    if (!c.value("ready", false)) return false;
  return true;
}

}  // namespace

void E2ETest::DumpNamespace() {
  DumpStatuses(client(), kEtcdClusters, "EtcdCluster", ns());
  DumpStatuses(client(), kPostgresClusters, "PostgresCluster", ns());
  auto pods = client().List(kPods, ns());
  if (pods.ok()) {
    for (const Json& p : pods->value("items", Json::array())) {
      const std::string name = p["metadata"].value("name", "");
      std::cerr << "pod " << name << ": phase " << p["status"].value("phase", "") << " ip "
                << p["status"].value("podIP", "") << " containers "
                << p["status"].value("containerStatuses", Json()).dump() << "\n";
      // What a pod that is not ready last said is usually why.
      if (AllContainersReady(p)) continue;
      CommandResult logs = Kubectl(ns(), {"logs", name, "--all-containers", "--tail=40"});
      std::cerr << "pod " << name << " log tail:\n" << logs.output << "\n";
    }
  }
  auto events = client().List(kEvents, ns());
  if (events.ok()) {
    for (const Json& e : events->value("items", Json::array())) {
      std::cerr << "event " << e.value("type", "") << " " << e.value("reason", "") << " "
                << e["involvedObject"].value("name", "") << ": " << e.value("message", "") << "\n";
    }
  }
  std::cerr << "operator log: " << ns() << " (see " << testenv::GetControlPlane()->dir
            << "/operator-" << ns() << ".log), pod logs under "
            << testenv::GetControlPlane()->dir + "/node/pod-logs"
            << "/\n";
}

}  // namespace quorum::e2e
