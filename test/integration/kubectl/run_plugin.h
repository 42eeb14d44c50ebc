// Runs the built kubectl-quorum as a subprocess, as kubectl runs a plugin:
// arguments, an environment (KUBECONFIG), stdout and stderr captured, the
// exit code returned. Header-only, for the tests of this folder.
#ifndef QUORUM_TEST_INTEGRATION_KUBECTL_RUN_PLUGIN_H_
#define QUORUM_TEST_INTEGRATION_KUBECTL_RUN_PLUGIN_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test/testmain/paths.h"

extern char** environ;

namespace quorum::kubectl::testing {

struct PluginRun {
  int exit_code = -1;
  std::string out, err;
};

inline std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `env` entries replace the process's own (an empty value removes it).
inline PluginRun RunPlugin(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env = {}) {
  const std::string bin = std::string(QUORUM_BINARY_DIR) + "/cmd/kubectl-quorum";
  char dir_template[] = "/tmp/kubectl-quorum-run-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string out_path = dir + "/out", err_path = dir + "/err";
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (!env.contains(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : env) {
    if (!v.empty()) env_strings.push_back(k + "=" + v);
  }
  std::vector<char*> argv = {const_cast<char*>(bin.c_str())}, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  PluginRun run;
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  run.out = ReadWhole(out_path);
  run.err = ReadWhole(err_path);
  std::filesystem::remove_all(dir);
  return run;
}

}  // namespace quorum::kubectl::testing

#endif  // QUORUM_TEST_INTEGRATION_KUBECTL_RUN_PLUGIN_H_
