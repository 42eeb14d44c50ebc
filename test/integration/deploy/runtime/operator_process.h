// The real quorum-operator binary as a child process with its stderr in a
// file, stopped with SIGTERM (or SIGKILL when the test ends first).
#ifndef QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_OPERATOR_PROCESS_H_
#define QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_OPERATOR_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/testmain/paths.h"

extern char** environ;

namespace quorum::deploytest {

inline std::string OperatorBinary() {
  return std::string(QUORUM_BINARY_DIR) + "/cmd/quorum-operator";
}

class OperatorProcess {
 public:
  // Starts OperatorBinary() with `args`; `log` receives its stderr.
  OperatorProcess(const std::vector<std::string>& args, std::string log) : log_(std::move(log)) {
    std::vector<std::string> all = {OperatorBinary()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;
  ~OperatorProcess() {
    if (pid_ > 0) Stop(SIGKILL);
  }

  bool started() const { return pid_ > 0; }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == 0) return true;
    pid_ = -1;
    exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return false;
  }
  // Sends `sig`, waits, and returns the exit code (or -signal).
  int Stop(int sig = SIGTERM) {
    if (pid_ <= 0) return exit_;
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return exit_;
  }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  pid_t pid_ = -1;
  int exit_ = -1;
  std::string log_;
};

}  // namespace quorum::deploytest

#endif  // QUORUM_TEST_INTEGRATION_DEPLOY_RUNTIME_OPERATOR_PROCESS_H_
