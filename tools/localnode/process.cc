#include "tools/localnode/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace quorum::localnode {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reports a failing step to the parent through the pipe and exits.
[[noreturn]] void ChildFail(int fd, const char* step) {
  int err = errno;
  char buf[256];
  size_t n = 0;
  for (const char* p = step; *p != '\0' && n < 200; ++p) buf[n++] = *p;
  buf[n++] = ':';
  buf[n++] = ' ';
  const char* msg = strerror(err);  // no allocation in glibc for known errnos
  for (const char* p = msg; *p != '\0' && n < sizeof(buf); ++p) buf[n++] = *p;
  ssize_t ignored = write(fd, buf, n);
  (void)ignored;
  _exit(127);
}

// "/proc/self/fd/<fd>" into `out` (at least 32 bytes) without allocating.
void FdPath(int fd, char* out) {
  const char prefix[] = "/proc/self/fd/";
  size_t n = 0;
  for (const char* p = prefix; *p != '\0'; ++p) out[n++] = *p;
  char digits[16];
  int k = 0;
  do {
    digits[k++] = static_cast<char>('0' + fd % 10);
    fd /= 10;
  } while (fd > 0);
  while (k > 0) out[n++] = digits[--k];
  out[n] = '\0';
}

// Paths of `dir` and its ancestors below /root, outermost first.
std::vector<std::string> DirsBelowRoot(const std::string& dir) {
  std::vector<std::string> out;
  std::filesystem::path p(dir);
  std::filesystem::path acc("/root");
  auto rel = p.lexically_relative("/root");
  for (const auto& part : rel) {
    acc /= part;
    out.push_back(acc.string());
  }
  return out;
}

}  // namespace

absl::StatusOr<pid_t> Spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("empty command");
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env = spec.env;
  std::vector<char*> cargv = CStrings(argv);
  std::vector<char*> cenv = CStrings(env);
  const std::string out = spec.output_path.empty() ? "/dev/null" : spec.output_path;
  const std::string workdir = spec.workdir.empty() ? "/" : spec.workdir;

  // /root exposure: each directory is opened (O_PATH) in the child before /root
  // is hidden, then bound back from its descriptor. Nothing is staged on the host,
  // so the pod's own state may live under /root too (the demo keeps it in
  // $HOME/.cache/quorum).
  struct Exposed {
    std::string dir;
    std::vector<std::string> mkdirs;
  };
  std::vector<Exposed> exposed;
  for (const std::string& dir : spec.root_exposed) exposed.push_back({dir, DirsBelowRoot(dir)});
  std::vector<int> exposed_fds(exposed.size(), -1);

  // Mount sources are opened (in the child, once in its own mount namespace)
  // before anything is mounted: neither the tmpfs over /root nor a volume
  // mounted at /tmp may hide the source of a later mount.
  std::vector<int> source_fds(spec.mounts.size(), -1);

  // Opened here: the pod's mounts may hide the log's folder (a volume at /tmp).
  const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto close_io = [out_fd, in] {
    if (out_fd >= 0) close(out_fd);
    if (in >= 0) close(in);
  };
  int netns_fd = -1;
  if (!spec.netns_path.empty()) {
    netns_fd = open(spec.netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (netns_fd < 0) {
      close_io();
      return absl::InternalError(absl::StrCat("open ", spec.netns_path, ": ", strerror(errno)));
    }
  }
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    if (netns_fd >= 0) close(netns_fd);
    close_io();
    return absl::InternalError("pipe failed");
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    if (netns_fd >= 0) close(netns_fd);
    close_io();
    return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  }
  if (pid == 0) {
    const int fd = pipefd[1];
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail(fd, "prctl");
    if (getppid() != parent) _exit(1);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) ChildFail(fd, "setns");
    if (unshare(CLONE_NEWNS | CLONE_NEWUTS) != 0) ChildFail(fd, "unshare");
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      ChildFail(fd, "make / private");
    for (size_t i = 0; i < spec.mounts.size(); ++i) {
      source_fds[i] = open(spec.mounts[i].source.c_str(), O_PATH | O_CLOEXEC);
      if (source_fds[i] < 0) ChildFail(fd, spec.mounts[i].source.c_str());
    }
    for (size_t i = 0; i < exposed.size(); ++i) {
      exposed_fds[i] = open(exposed[i].dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (exposed_fds[i] < 0) ChildFail(fd, exposed[i].dir.c_str());
    }
    if (!exposed.empty()) {
      if (mount("tmpfs", "/root", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
        ChildFail(fd, "tmpfs over /root");
      for (size_t i = 0; i < exposed.size(); ++i) {
        for (const std::string& d : exposed[i].mkdirs) mkdir(d.c_str(), 0755);
        char source[64];
        FdPath(exposed_fds[i], source);
        if (mount(source, exposed[i].dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
          ChildFail(fd, "bind exposed dir");
      }
    }
    for (size_t i = 0; i < spec.mounts.size(); ++i) {
      const BindMount& m = spec.mounts[i];
      char source[64];
      FdPath(source_fds[i], source);
      if (mount(source, m.target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
        ChildFail(fd, m.target.c_str());
      if (m.read_only &&
          mount(nullptr, m.target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0)
        ChildFail(fd, "read-only remount");
    }
    if (!spec.hostname.empty() && sethostname(spec.hostname.data(), spec.hostname.size()) != 0)
      ChildFail(fd, "sethostname");
    if (out_fd < 0 || in < 0) ChildFail(fd, "open output");
    const int o = out_fd;
    dup2(in, 0);
    dup2(o, 1);
    dup2(o, 2);
    if (spec.gid || !spec.groups.empty() || spec.uid) {
      if (setgroups(spec.groups.size(), spec.groups.data()) != 0) ChildFail(fd, "setgroups");
    }
    if (spec.gid && setresgid(*spec.gid, *spec.gid, *spec.gid) != 0) ChildFail(fd, "setgid");
    if (spec.uid && setresuid(*spec.uid, *spec.uid, *spec.uid) != 0) ChildFail(fd, "setuid");
    if (chdir(workdir.c_str()) != 0) ChildFail(fd, "chdir");
    execve(cargv[0], cargv.data(), cenv.data());
    ChildFail(fd, "exec");
  }
  close(pipefd[1]);
  if (netns_fd >= 0) close(netns_fd);
  close_io();
  char buf[256];
  ssize_t n;
  do {
    n = read(pipefd[0], buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n > 0) {
    waitpid(pid, nullptr, 0);
    return absl::FailedPreconditionError(
        absl::StrCat("starting ", spec.argv[0], ": ", std::string(buf, n)));
  }
  return pid;
}

RunResult Run(const std::vector<std::string>& argv, absl::Duration timeout) {
  RunResult r;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return r;
  std::vector<std::string> args = argv;
  std::vector<char*> cargv = CStrings(args);
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(p[1], 1);
    dup2(p[1], 2);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    execvp(cargv[0], cargv.data());
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
      kill(pid, SIGKILL);
      break;
    }
    if (rc < 0 && errno == EINTR) continue;
    ssize_t n = read(p[0], buf, sizeof(buf));
    if (n <= 0) break;
    r.output.append(buf, n);
  }
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

absl::Status RunOk(const std::vector<std::string>& argv) {
  RunResult r = Run(argv);
  if (r.exit_code == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(absl::StrJoin(argv, " "), " exited ", r.exit_code, ": ", r.output));
}

void SignalGroup(pid_t pgid, int signal) {
  if (pgid <= 0) return;
  kill(-pgid, signal);
  kill(pgid, signal);
}

std::vector<pid_t> ProcessesInNetns(const std::string& netns_path) {
  std::vector<pid_t> out;
  struct stat ns;
  if (stat(netns_path.c_str(), &ns) != 0) return out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    struct stat st;
    std::string p = absl::StrCat("/proc/", pid, "/ns/net");
    if (stat(p.c_str(), &st) == 0 && st.st_ino == ns.st_ino && st.st_dev == ns.st_dev) {
      out.push_back(static_cast<pid_t>(pid));
    }
  }
  closedir(d);
  return out;
}

void KillNetnsProcesses(const std::string& netns_path, absl::Duration wait) {
  const absl::Time deadline = absl::Now() + wait;
  while (true) {
    std::vector<pid_t> pids = ProcessesInNetns(netns_path);
    if (pids.empty()) return;
    for (pid_t p : pids) kill(p, SIGKILL);
    if (absl::Now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string LookPath(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace quorum::localnode
