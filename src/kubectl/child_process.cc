#include "src/kubectl/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace quorum::kubectl {
namespace {

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// This process's environment with `env` applied, as NAME=VALUE strings.
std::vector<std::string> ChildEnvironment(const EnvChanges& env) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : env) {
    if (value.empty()) {
      vars.erase(key);
    } else {
      vars[key] = value;
    }
  }
  std::vector<std::string> out;
  for (const auto& [key, value] : vars) out.push_back(absl::StrCat(key, "=", value));
  return out;
}

// Reads both pipes until both end (poll, so that neither fills and blocks the child).
void Drain(int out_fd, int err_fd, CapturedRun& run) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open = 2;
  char buf[8192];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

std::string FindOnPath(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? program : "";
  }
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  return FindOnPath(program, path == nullptr ? "" : path);
}

absl::StatusOr<int> HoldInMemory(const std::string& label, const std::string& text) {
  const int fd = memfd_create(label.c_str(), 0);  // no MFD_CLOEXEC: the child inherits it
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot hold ", label, " (memfd)"));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      close(fd);
      return absl::InternalError(absl::StrCat("cannot hold ", label, " (write)"));
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

absl::Status ExecReplacing(const std::string& path, const std::vector<std::string>& argv,
                           const EnvChanges& env) {
  for (const auto& [key, value] : env) {
    if (value.empty()) {
      unsetenv(key.c_str());
    } else {
      setenv(key.c_str(), value.c_str(), 1);
    }
  }
  std::vector<std::string> args = argv;
  std::vector<char*> ptrs = Pointers(args);
  execv(path.c_str(), ptrs.data());
  const int err = errno;
  for (const auto& change : env) unsetenv(change.first.c_str());
  return absl::InternalError(absl::StrCat("cannot run ", path, ": ", std::strerror(err)));
}

absl::StatusOr<CapturedRun> RunCaptured(const std::string& path,
                                        const std::vector<std::string>& argv,
                                        const EnvChanges& env) {
  std::vector<std::string> args = argv, vars = ChildEnvironment(env);
  std::vector<char*> arg_ptrs = Pointers(args), env_ptrs = Pointers(vars);
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return absl::InternalError("pipe failed");
  }
  const pid_t pid = fork();
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execve(path.c_str(), arg_ptrs.data(), env_ptrs.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    return absl::InternalError(absl::StrCat("cannot start ", path, ": fork failed"));
  }
  CapturedRun run;
  Drain(out[0], err[0], run);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace quorum::kubectl
