// EtcdHarness: real etcd processes for tests, on loopback ports chosen at
// random, each member with its own data folder under one temporary folder,
// optionally with TLS everywhere (a CA, a server/peer certificate for
// 127.0.0.1 and a client certificate, made with the openssl CLI). Members
// can be started, stopped, killed, wiped and restarted by ordinal.
//
// Every process runs in its own process group and dies with the test (a
// parent-death signal covers crashes); the destructor kills what is left and
// removes the folder. Header-only so that each test binary compiles it in
// without extra CMake wiring.
//
// Thread-safety: none; use from the test's thread.
#ifndef QUORUM_TEST_INTEGRATION_ETCD_ETCD_HARNESS_H_
#define QUORUM_TEST_INTEGRATION_ETCD_ETCD_HARNESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "src/etcd/client.h"
#include "test/testmain/paths.h"

namespace quorum::etcd::testing {

// The folder with etcd and etcdctl: $QUORUM_ETCD_BIN_DIR, else the last line
// that hack/build-tools.sh prints. "" when neither works.
inline std::string EtcdBinDir() {
  if (const char* env = std::getenv("QUORUM_ETCD_BIN_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const std::string cmd = std::string(QUORUM_SOURCE_DIR) + "/hack/build-tools.sh 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out, last;
  char buf[512];
  while (fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (pclose(p) != 0) return "";
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Free TCP ports on 127.0.0.1, all distinct (held open together while chosen).
inline std::vector<int> FreePorts(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      if (fd >= 0) close(fd);
      break;
    }
    fds.push_back(fd);
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : fds) close(fd);
  return ports;
}

struct TlsMaterial {
  std::string ca_file, cert_file, key_file;  // the members' (server and peer) identity
  std::string ca_pem;
  // A client certificate without a CommonName: with auth on, etcd knows no
  // user for it (a call without a token is refused).
  std::string client_cert_pem, client_key_pem;
  std::string named_client_cert_pem, named_client_key_pem;  // CN=root
  std::string app_client_cert_pem, app_client_key_pem;      // CN=app
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A CA, a certificate for 127.0.0.1/localhost usable as server and peer, and
// three client certificates, written under `dir`.
inline absl::StatusOr<TlsMaterial> MakeTls(const std::string& dir) {
  const std::string log = dir + "/openssl.log";
  auto run = [&](const std::string& cmd) -> absl::Status {
    const std::string full = "cd '" + dir + "' && (" + cmd + ") >>'" + log + "' 2>&1";
    if (std::system(full.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("openssl failed: ", cmd, "\n", ReadFile(log)));
    }
    return absl::OkStatus();
  };
  {
    std::ofstream(dir + "/member.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                          "extendedKeyUsage=serverAuth,clientAuth\n"
                                          "keyUsage=critical,digitalSignature,keyEncipherment\n";
    std::ofstream(dir + "/client.ext") << "extendedKeyUsage=clientAuth\n"
                                          "keyUsage=critical,digitalSignature,keyEncipherment\n";
  }
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  auto sign = [&](const std::string& name, const std::string& subject, const std::string& ext) {
    return run("openssl req " + key + " -keyout " + name + ".key -out " + name + ".csr -subj " +
               subject + " && openssl x509 -req -in " + name +
               ".csr -CA ca.crt -CAkey ca.key -CAcreateserial -out " + name +
               ".crt -days 2 -extfile " + ext);
  };
  absl::Status s =
      run("openssl req -x509 " + key + " -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca");
  if (s.ok()) s = sign("member", "/CN=etcd-member", "member.ext");
  if (s.ok()) s = sign("client", "/O=quorum", "client.ext");
  if (s.ok()) s = sign("named-client", "/CN=root", "client.ext");
  if (s.ok()) s = sign("app-client", "/CN=app", "client.ext");
  if (!s.ok()) return s;
  TlsMaterial t;
  t.ca_file = dir + "/ca.crt";
  t.cert_file = dir + "/member.crt";
  t.key_file = dir + "/member.key";
  t.ca_pem = ReadFile(t.ca_file);
  t.client_cert_pem = ReadFile(dir + "/client.crt");
  t.client_key_pem = ReadFile(dir + "/client.key");
  t.named_client_cert_pem = ReadFile(dir + "/named-client.crt");
  t.named_client_key_pem = ReadFile(dir + "/named-client.key");
  t.app_client_cert_pem = ReadFile(dir + "/app-client.crt");
  t.app_client_key_pem = ReadFile(dir + "/app-client.key");
  return t;
}

struct HarnessOptions {
  int max_members = 5;
  bool tls = false;
  std::string name_prefix = "test";
  std::vector<std::string> extra_flags;  // e.g. "--auth-token-ttl=1"
};

class EtcdHarness {
 public:
  explicit EtcdHarness(HarnessOptions options = {}) : options_(std::move(options)) {}
  ~EtcdHarness() {
    for (int k = 0; k < static_cast<int>(pids_.size()); ++k) Kill(k);
    if (!root_.empty() && std::getenv("QUORUM_KEEP_ETCD_DIRS") == nullptr) {
      std::error_code ec;
      std::filesystem::remove_all(root_, ec);
    }
  }
  EtcdHarness(const EtcdHarness&) = delete;
  EtcdHarness& operator=(const EtcdHarness&) = delete;

  // Finds the binary, makes the folders, the ports and (with tls) the certificates.
  absl::Status Init() {
    const std::string bin_dir = EtcdBinDir();
    if (bin_dir.empty()) {
      return absl::NotFoundError("no etcd: set QUORUM_ETCD_BIN_DIR or run hack/build-tools.sh");
    }
    etcd_ = bin_dir + "/etcd";
    if (access(etcd_.c_str(), X_OK) != 0) return absl::NotFoundError(etcd_ + " is missing");
    char tmpl[] = "/tmp/quorum-etcd-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return absl::InternalError("mkdtemp failed");
    root_ = tmpl;
    const int n = options_.max_members;
    ports_ = FreePorts(2 * n);
    if (static_cast<int>(ports_.size()) != 2 * n) return absl::InternalError("no free ports");
    pids_.assign(n, 0);
    if (options_.tls) {
      absl::StatusOr<TlsMaterial> t = MakeTls(root_);
      if (!t.ok()) return t.status();
      tls_ = *std::move(t);
    }
    return absl::OkStatus();
  }

  int max_members() const { return options_.max_members; }
  const std::string& root() const { return root_; }
  std::string Scheme() const { return options_.tls ? "https" : "http"; }
  std::string Name(int k) const { return absl::StrCat(options_.name_prefix, "-", k); }
  // Ordinals past max_members() have no port; their URLs match nothing.
  std::string ClientUrl(int k) const { return Url(2 * k); }
  std::string PeerUrl(int k) const { return Url(2 * k + 1); }
  std::string DataDir(int k) const { return absl::StrCat(root_, "/", Name(k), ".data"); }
  std::string LogFile(int k) const { return absl::StrCat(root_, "/", Name(k), ".log"); }
  std::vector<std::string> ClientUrls() const {
    std::vector<std::string> out;
    for (int k = 0; k < options_.max_members; ++k) out.push_back(ClientUrl(k));
    return out;
  }
  // "name=peer" for the given ordinals, the --initial-cluster of a new cluster.
  std::string InitialCluster(const std::vector<int>& ordinals) const {
    std::vector<std::string> parts;
    for (int k : ordinals) parts.push_back(Name(k) + "=" + PeerUrl(k));
    return absl::StrJoin(parts, ",");
  }

  // A client for `endpoints` (all members when empty) with the harness's TLS
  // material (CA and client certificate).
  ClientConfig Config(std::vector<std::string> endpoints = {}) const {
    ClientConfig c;
    c.endpoints = endpoints.empty() ? ClientUrls() : std::move(endpoints);
    c.ca_pem = tls_.ca_pem;
    c.cert_pem = tls_.client_cert_pem;
    c.key_pem = tls_.client_key_pem;
    c.timeout = absl::Seconds(3);
    return c;
  }
  const TlsMaterial& tls() const { return tls_; }

  // Starts member k's process (it must not run). Does not wait for it.
  absl::Status Start(int k, bool new_cluster, const std::string& initial_cluster) {
    if (Running(k)) return absl::FailedPreconditionError(Name(k) + " already runs");
    std::vector<std::string> args = {
        etcd_,
        "--name=" + Name(k),
        "--data-dir=" + DataDir(k),
        "--listen-client-urls=" + ClientUrl(k),
        "--advertise-client-urls=" + ClientUrl(k),
        "--listen-peer-urls=" + PeerUrl(k),
        "--initial-advertise-peer-urls=" + PeerUrl(k),
        "--initial-cluster=" + initial_cluster,
        std::string("--initial-cluster-state=") + (new_cluster ? "new" : "existing"),
        "--initial-cluster-token=quorum-test",
        "--unsafe-no-fsync=true",
        "--heartbeat-interval=50",
        "--election-timeout=500",
        "--log-level=warn",
    };
    if (options_.tls) {
      for (const char* prefix : {"--", "--peer-"}) {
        args.push_back(absl::StrCat(prefix, "cert-file=", tls_.cert_file));
        args.push_back(absl::StrCat(prefix, "key-file=", tls_.key_file));
        args.push_back(absl::StrCat(prefix, "trusted-ca-file=", tls_.ca_file));
        args.push_back(absl::StrCat(prefix, "client-cert-auth=true"));
      }
    }
    for (const std::string& f : options_.extra_flags) args.push_back(f);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = LogFile(k);
    { std::ofstream(log, std::ios::app) << "=== start: " << absl::StrJoin(args, " ") << "\n"; }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {  // only async-signal-safe calls from here on
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      const int fd = open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    setpgid(pid, pid);
    pids_[k] = pid;
    return absl::OkStatus();
  }

  // Whether member k's process runs (reaps it when it has exited).
  bool Running(int k) {
    if (pids_[k] == 0) return false;
    int status = 0;
    if (waitpid(pids_[k], &status, WNOHANG) == pids_[k]) pids_[k] = 0;
    return pids_[k] != 0;
  }

  // SIGTERM, then SIGKILL if it has not exited after 5 s.
  void Stop(int k) {
    if (!Running(k)) return;
    kill(-pids_[k], SIGTERM);
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (Running(k) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
    Kill(k);
  }

  void Kill(int k) {
    if (pids_[k] == 0) return;
    kill(-pids_[k], SIGKILL);
    int status = 0;
    waitpid(pids_[k], &status, 0);
    pids_[k] = 0;
  }

  void WipeData(int k) {
    std::error_code ec;
    std::filesystem::remove_all(DataDir(k), ec);
  }

  // Polls until member k's process has exited; false on timeout.
  bool WaitExited(int k, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (Running(k)) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return true;
  }

  // Polls member k's status until it answers; fails early when it exits.
  absl::Status WaitReady(Client& client, int k, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    absl::Status last;
    while (absl::Now() < deadline) {
      absl::StatusOr<StatusResponse> s = client.Status(ClientUrl(k));
      if (s.ok() && s->leader != 0) return absl::OkStatus();
      last = s.ok() ? absl::UnavailableError("no leader yet") : s.status();
      if (!Running(k)) {
        return absl::UnavailableError(absl::StrCat(Name(k), " exited:\n", LogTail(k)));
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    return absl::DeadlineExceededError(
        absl::StrCat(Name(k), " not ready: ", last.ToString(), "\n", LogTail(k)));
  }

  // Starts ordinals 0..n-1 as a new cluster and waits until all answer.
  absl::Status StartNewCluster(Client& client, int n) {
    std::vector<int> ordinals;
    for (int k = 0; k < n; ++k) ordinals.push_back(k);
    const std::string ic = InitialCluster(ordinals);
    for (int k = 0; k < n; ++k) {
      if (absl::Status s = Start(k, true, ic); !s.ok()) return s;
    }
    for (int k = 0; k < n; ++k) {
      if (absl::Status s = WaitReady(client, k, absl::Seconds(20)); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::string LogTail(int k, size_t bytes = 3000) const {
    const std::string all = ReadFile(LogFile(k));
    return all.size() > bytes ? all.substr(all.size() - bytes) : all;
  }

 private:
  std::string Url(int port_index) const {
    if (port_index < 0 || port_index >= static_cast<int>(ports_.size())) {
      return absl::StrCat(Scheme(), "://127.0.0.1:1/none-", port_index);
    }
    return absl::StrCat(Scheme(), "://127.0.0.1:", ports_[port_index]);
  }

  HarnessOptions options_;
  std::string etcd_;
  std::string root_;
  std::vector<int> ports_;
  std::vector<pid_t> pids_;
  TlsMaterial tls_;
};

}  // namespace quorum::etcd::testing

#endif  // QUORUM_TEST_INTEGRATION_ETCD_ETCD_HARNESS_H_
