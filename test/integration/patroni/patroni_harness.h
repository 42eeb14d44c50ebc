// PatroniHarness: real Patroni members (PyPI venv from hack/deps.sh) with real
// PostgreSQL (Debian) on loopback ports, each with its own folder under one
// temporary folder, configured with src/patroni's RenderConfig output and the
// environment PodEnv() lists, resolved for local paths and ports.
//
// PostgreSQL refuses to run as root: when the test runs as root, Patroni runs
// as the `postgres` user and the folders it needs are handed to that user.
// Patroni starts postgres in a session of its own, so Kill() and the
// destructor also kill the postmaster named in the data folder.
//
// Thread-safety: none; use from the test's thread.
#ifndef QUORUM_TEST_INTEGRATION_PATRONI_PATRONI_HARNESS_H_
#define QUORUM_TEST_INTEGRATION_PATRONI_PATRONI_HARNESS_H_

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "src/patroni/config.h"
#include "src/patroni/rest_client.h"
#include "src/patroni/role_callback.h"
#include "test/testmain/paths.h"

namespace quorum::patroni::testing {

inline std::string RunCapture(const std::string& cmd, int* rc = nullptr) {
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (rc != nullptr) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

inline std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Where hack/patroni-env.sh says Patroni and PostgreSQL are.
struct Binaries {
  std::string patroni_bin_dir;  // patroni, patronictl
  std::string pg_bin_dir;       // postgres, initdb, psql, ...
};

// FailedPrecondition, with what to run, when either is missing.
inline absl::StatusOr<Binaries> FindBinaries() {
  const std::string env = std::string(QUORUM_SOURCE_DIR) + "/hack/patroni-env.sh";
  int rc = 0;
  const std::string why = RunCapture(env + " check 2>&1", &rc);
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("Patroni/PostgreSQL are not installed (run hack/deps.sh): ", why));
  }
  Binaries b;
  b.patroni_bin_dir = Trim(RunCapture(env + " bin"));
  b.pg_bin_dir = Trim(RunCapture(env + " pg-bin"));
  return b;
}

// Per-member values a pod would get from Kubernetes, and the cluster's secrets.
struct MemberEnv {
  std::string pod_name, pod_namespace, pod_ip = "127.0.0.1";
  std::string superuser_password, replication_password, rewind_password;
  std::string etcd_username, etcd_password;
  std::string restapi_username, restapi_password;
  std::map<std::string, std::string> extra;  // e.g. the callback's API overrides
};

// Resolves PodEnv(in) the way the kubelet would for this member.
inline std::map<std::string, std::string> ResolveEnv(const ConfigInput& in, const MemberEnv& m) {
  std::map<std::string, std::string> out;
  for (const EnvVar& e : PodEnv(in)) {
    std::string v;
    switch (e.source) {
      case EnvSource::kLiteral:
        v = absl::StrReplaceAll(e.value, {{"$(POD_IP)", m.pod_ip}, {"$(POD_NAME)", m.pod_name}});
        break;
      case EnvSource::kPodName:
        v = m.pod_name;
        break;
      case EnvSource::kPodNamespace:
        v = m.pod_namespace;
        break;
      case EnvSource::kPodIp:
        v = m.pod_ip;
        break;
      case EnvSource::kSuperuserPassword:
        v = m.superuser_password;
        break;
      case EnvSource::kReplicationPassword:
        v = m.replication_password;
        break;
      case EnvSource::kRewindPassword:
        v = m.rewind_password;
        break;
      case EnvSource::kEtcdUsername:
        v = m.etcd_username;
        break;
      case EnvSource::kEtcdPassword:
        v = m.etcd_password;
        break;
      case EnvSource::kRestApiUsername:
        v = m.restapi_username;
        break;
      case EnvSource::kRestApiPassword:
        v = m.restapi_password;
        break;
    }
    out[e.name] = v;
  }
  for (const auto& [k, v] : m.extra) out[k] = v;
  return out;
}

// The index of the one member (of `api_urls`, its REST API addresses) that
// reports itself running as primary; -1 when none or more than one does.
// Endpoints (https with a CA and name) or plain URLs.
template <typename Url>
int RunningPrimary(RestClient& rest, const std::vector<Url>& api_urls) {
  int primary = -1, count = 0;
  for (int k = 0; k < static_cast<int>(api_urls.size()); ++k) {
    absl::StatusOr<MemberStatus> s = rest.GetPatroni(api_urls[k]);
    if (s.ok() && s->role == "primary" && s->state == "running") {
      primary = k;
      ++count;
    }
  }
  return count == 1 ? primary : -1;
}

class PatroniHarness {
 public:
  PatroniHarness() = default;
  ~PatroniHarness() {
    for (size_t k = 0; k < members_.size(); ++k) Stop(k, absl::Seconds(20));
    if (!root_.empty() && std::getenv("QUORUM_KEEP_PATRONI_DIRS") == nullptr) {
      std::error_code ec;
      std::filesystem::remove_all(root_, ec);
    }
  }
  PatroniHarness(const PatroniHarness&) = delete;
  PatroniHarness& operator=(const PatroniHarness&) = delete;

  absl::Status Init(int members) {
    absl::StatusOr<Binaries> b = FindBinaries();
    if (!b.ok()) return b.status();
    bins_ = *b;
    SweepAbandoned();
    char tmpl[] = "/tmp/quorum-patroni-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return absl::InternalError("mkdtemp failed");
    root_ = tmpl;
    chmod(root_.c_str(), 0755);
    std::ofstream(root_ + "/owner.pid") << getpid() << "\n";
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("postgres");
      if (pw == nullptr)
        return absl::FailedPreconditionError("running as root and no postgres user");
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      home_ = pw->pw_dir;
    }
    callback_ = root_ + "/role-callback.sh";
    std::ofstream(callback_, std::ios::binary) << RoleCallbackScript();
    chmod(callback_.c_str(), 0755);
    members_.resize(members);
    for (int k = 0; k < members; ++k) {
      const std::string dir = MemberDir(k);
      std::filesystem::create_directories(dir);
      GiveAway(dir);
    }
    return absl::OkStatus();
  }

  const Binaries& binaries() const { return bins_; }
  const std::string& root() const { return root_; }
  const std::string& callback_script() const { return callback_; }
  std::string MemberDir(int k) const { return absl::StrCat(root_, "/member-", k); }
  std::string DataDir(int k) const { return MemberDir(k) + "/data"; }
  std::string LogFile(int k) const { return MemberDir(k) + "/patroni.log"; }

  // Member k of a cluster on this host: PostgreSQL and the REST API on
  // 127.0.0.1 at the given ports, its socket, data and pgpass under the
  // member's folder, small PostgreSQL settings, password authentication on
  // loopback. Scope, DCS and timings are the caller's.
  ConfigInput LocalMember(int k, int restapi_port, int postgres_port) const {
    ConfigInput in;
    in.parameters = {{"max_connections", "30"}, {"shared_buffers", "16MB"}};
    in.pg_hba = {"local all all trust", "host replication replicator 127.0.0.1/32 scram-sha-256",
                 "host all all 127.0.0.1/32 scram-sha-256"};
    in.local_parameters = {{"unix_socket_directories", MemberDir(k)}};
    in.listen_host = "127.0.0.1";
    in.restapi_port = restapi_port;
    in.postgres_port = postgres_port;
    in.data_dir = DataDir(k);
    in.bin_dir = bins_.pg_bin_dir;
    in.pgpass = MemberDir(k) + "/pgpass";
    return in;
  }

  // Makes `path` (a file or folder the member processes use) theirs.
  void GiveAway(const std::string& path) const {
    if (uid_ != 0 && chown(path.c_str(), uid_, gid_) != 0) {
      std::fprintf(stderr, "chown %s failed\n", path.c_str());
    }
  }

  // Writes member k's configuration and starts Patroni with `env`.
  absl::Status Start(int k, const std::string& config_yaml,
                     const std::map<std::string, std::string>& env) {
    if (Running(k)) return absl::FailedPreconditionError("member already runs");
    const std::string config = MemberDir(k) + "/patroni.yml";
    std::ofstream(config, std::ios::binary) << config_yaml;
    GiveAway(config);
    std::vector<std::string> envs = {
        "PATH=" + bins_.patroni_bin_dir + ":" + bins_.pg_bin_dir + ":/usr/bin:/bin",
        "HOME=" + (home_.empty() ? MemberDir(k) : home_), "LC_ALL=C.UTF-8", "LANG=C.UTF-8",
        "PYTHONUNBUFFERED=1"};
    for (const auto& [name, value] : env) envs.push_back(name + "=" + value);
    std::vector<std::string> args = {bins_.patroni_bin_dir + "/patroni", config};
    std::vector<char*> argv, envp;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string log = LogFile(k);
    { std::ofstream(log, std::ios::app) << "=== start\n"; }
    GiveAway(log);
    const std::string dir = MemberDir(k);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {  // async-signal-safe calls only
      setpgid(0, 0);
      if (uid_ != 0) {
        if (setgroups(0, nullptr) != 0 || setgid(gid_) != 0 || setuid(uid_) != 0) _exit(126);
      }
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // after setuid, which clears it
      if (getppid() != parent) _exit(127);
      if (chdir(dir.c_str()) != 0) _exit(125);
      const int fd = open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
      execve(argv[0], argv.data(), envp.data());
      static const char kMsg[] = "patroni_harness: exec of patroni failed\n";
      (void)!write(2, kMsg, sizeof kMsg - 1);
      _exit(127);
    }
    setpgid(pid, pid);
    members_[k].pid = pid;
    return absl::OkStatus();
  }

  bool Running(int k) {
    pid_t& pid = members_[k].pid;
    if (pid == 0) return false;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) pid = 0;
    return pid != 0;
  }

  // The postmaster's pid from the data folder (0 when none).
  pid_t PostmasterPid(int k) const {
    std::ifstream in(DataDir(k) + "/postmaster.pid");
    long pid = 0;
    in >> pid;
    return static_cast<pid_t>(pid);
  }

  // SIGKILL to Patroni and to its postgres: a crash of the whole member.
  void Kill(int k) {
    const pid_t pm = PostmasterPid(k);
    if (members_[k].pid != 0) {
      kill(-members_[k].pid, SIGKILL);
      int status = 0;
      waitpid(members_[k].pid, &status, 0);
      members_[k].pid = 0;
    }
    if (pm > 0 && kill(pm, 0) == 0 && IsPostgres(pm)) {
      kill(pm, SIGKILL);
      // Backends leave once they notice that the postmaster died.
      const absl::Time deadline = absl::Now() + absl::Seconds(10);
      while (kill(pm, 0) == 0 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(50));
    }
  }

  // SIGTERM (Patroni stops postgres and runs on_stop), SIGKILL after `grace`.
  void Stop(int k, absl::Duration grace) {
    if (Running(k)) {
      kill(members_[k].pid, SIGTERM);
      const absl::Time deadline = absl::Now() + grace;
      while (Running(k) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(100));
    }
    Kill(k);
  }

  // Every member's log tail, each under a "--- <name(k)> ---" heading.
  template <typename NameOf>
  std::string LogTails(NameOf name, size_t bytes = 2500) const {
    std::string out;
    for (int k = 0; k < static_cast<int>(members_.size()); ++k) {
      out += absl::StrCat("--- ", name(k), " ---\n", LogTail(k, bytes));
    }
    return out;
  }

  std::string LogTail(int k, size_t bytes = 4000) const {
    const std::string all = ReadAll(LogFile(k));
    return all.size() > bytes ? all.substr(all.size() - bytes) : all;
  }

  // Runs one SQL statement with psql as the superuser; returns its unaligned output.
  absl::StatusOr<std::string> Sql(int port, const std::string& password, const std::string& sql) {
    const std::string file = root_ + "/query.sql";
    std::ofstream(file, std::ios::binary) << sql << "\n";
    const std::string cmd =
        absl::StrCat("PGPASSWORD='", password, "' PGCONNECT_TIMEOUT=3 '", bins_.pg_bin_dir,
                     "/psql' -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p ", port,
                     " -U postgres -d postgres -f '", file, "' 2>&1");
    int rc = 0;
    std::string out = RunCapture(cmd, &rc);
    if (rc != 0) return absl::UnavailableError(absl::StrCat("psql: ", out));
    return Trim(out);
  }

 private:
  // A test that crashed ran no destructor, and the postmasters Patroni
  // started (in sessions of their own) outlived it. Kills those of folders
  // whose owner process is gone, and removes the folders.
  static void SweepAbandoned() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
      const std::string dir = entry.path().string();
      if (dir.rfind("/tmp/quorum-patroni-", 0) != 0) continue;
      std::ifstream in(dir + "/owner.pid");
      long owner = 0;
      if (!(in >> owner) || owner <= 0 || kill(static_cast<pid_t>(owner), 0) == 0) continue;
      for (const auto& member : std::filesystem::directory_iterator(dir, ec)) {
        std::ifstream pidfile(member.path().string() + "/data/postmaster.pid");
        long pm = 0;
        if (pidfile >> pm && pm > 0 && IsPostgres(static_cast<pid_t>(pm))) {
          kill(static_cast<pid_t>(pm), SIGKILL);
        }
      }
      std::filesystem::remove_all(dir, ec);
    }
  }

  static bool IsPostgres(pid_t pid) {
    const std::string comm = Trim(ReadAll(absl::StrCat("/proc/", pid, "/comm")));
    return comm.rfind("postgres", 0) == 0;
  }

  struct Member {
    pid_t pid = 0;
  };

  Binaries bins_;
  std::string root_, callback_, home_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  std::vector<Member> members_;
};

}  // namespace quorum::patroni::testing

#endif  // QUORUM_TEST_INTEGRATION_PATRONI_PATRONI_HARNESS_H_
