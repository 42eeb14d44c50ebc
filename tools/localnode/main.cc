// quorum-localnode: runs the pods of a local control plane as processes
// (docs/localnode.md).
//
//   quorum-localnode run --kubeconfig K --state-dir D --images FILE [--node-name N] [--instance I]
//   quorum-localnode cleanup --state-dir D [--instance I]    remove what a crashed run left
//   quorum-localnode exec --state-dir D -- CMD ARGS...       run CMD on the host with the
//                                                            node's names in /etc/hosts
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "src/base/logging.h"
#include "src/kube/config.h"
#include "tools/localnode/node.h"

namespace {

using quorum::localnode::Backend;

absl::StatusOr<Backend> ParseServer(const std::string& server) {
  std::string rest = server;
  if (size_t p = rest.find("://"); p != std::string::npos) rest = rest.substr(p + 3);
  if (size_t p = rest.find('/'); p != std::string::npos) rest = rest.substr(0, p);
  size_t colon = rest.rfind(':');
  Backend b;
  b.host = rest.substr(0, colon);
  b.port = 443;
  if (colon != std::string::npos && !absl::SimpleAtoi(rest.substr(colon + 1), &b.port))
    return absl::InvalidArgumentError("cannot parse the API server address " + server);
  return b;
}

int Exec(const std::string& state_dir, std::vector<std::string> argv) {
  if (argv.empty()) {
    std::cerr << "exec: no command\n";
    return 2;
  }
  const std::string hosts = state_dir + "/hosts";
  if (!std::filesystem::exists(hosts)) {
    std::cerr << "exec: " << hosts << " does not exist (is the node running?)\n";
    return 1;
  }
  if (unshare(CLONE_NEWNS) != 0 ||
      mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      mount(hosts.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
    std::cerr << "exec: cannot set up the mount namespace: " << strerror(errno) << "\n";
    return 1;
  }
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  std::cerr << "exec " << argv[0] << ": " << strerror(errno) << "\n";
  return 127;
}

int RunNode(quorum::localnode::NodeOptions options, const std::string& kubeconfig) {
  auto config = quorum::kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    spdlog::error("kubeconfig: {}", std::string(config.status().message()));
    return 1;
  }
  auto backend = ParseServer(config->server);
  if (!backend.ok()) {
    spdlog::error("{}", std::string(backend.status().message()));
    return 1;
  }
  auto client = quorum::kube::Client::Create(*config);
  if (!client.ok()) {
    spdlog::error("client: {}", std::string(client.status().message()));
    return 1;
  }
  (*client)->set_field_manager("quorum-localnode");
  // Signals are taken by sigwait below; every thread inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  quorum::localnode::Node node(options, **client, *backend, config->ca_pem);
  if (absl::Status s = node.Start(); !s.ok()) {
    spdlog::error("starting the node: {}", std::string(s.message()));
    node.Stop();
    return 1;
  }
  {
    std::ofstream ready(options.state_dir + "/ready");
    ready << getpid() << "\n";
  }
  int sig = 0;
  sigwait(&set, &sig);
  spdlog::info("signal {}: shutting down", sig);
  std::filesystem::remove(options.state_dir + "/ready");
  node.Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quorum-localnode: a kubelet stand-in running pods as local processes"};
  app.require_subcommand(1);
  quorum::localnode::NodeOptions options;
  std::string kubeconfig, log_level = "info";
  int grace_seconds = 10;
  std::vector<std::string> command;

  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--state-dir", options.state_dir, "Folder for pods, volumes and hosts files")
        ->required();
    sub->add_option("--instance", options.network.instance,
                    "Prefix of namespaces and bridge (at most 10 characters)")
        ->capture_default_str();
    sub->add_option("--pod-prefix", options.network.pod_prefix, "The pods' /24, as A.B.C")
        ->capture_default_str();
    sub->add_option("--service-cidr", options.network.service_cidr)->capture_default_str();
  };
  CLI::App* run = app.add_subcommand("run", "Register the node and run its pods until SIGTERM");
  add_common(run);
  run->add_option("--kubeconfig", kubeconfig, "Admin kubeconfig")->required();
  run->add_option("--images", options.images_file, "Image table (docs/localnode.md)")->required();
  run->add_option("--node-name", options.node_name)->capture_default_str();
  run->add_option("--shutdown-grace", grace_seconds, "Max seconds for pods to stop on shutdown")
      ->capture_default_str();
  run->add_option("--log-level", log_level)->capture_default_str();
  CLI::App* cleanup = app.add_subcommand("cleanup", "Remove what an instance left behind");
  add_common(cleanup);
  CLI::App* exec = app.add_subcommand("exec", "Run a command with the node's /etc/hosts");
  exec->add_option("--state-dir", options.state_dir)->required();
  exec->add_option("command", command)->required();
  exec->prefix_command(false);
  CLI11_PARSE(app, argc, argv);

  if (exec->parsed()) return Exec(options.state_dir, command);
  if (absl::Status s = quorum::SetupLogging("text", log_level); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 2;
  }
  if (options.network.instance.size() > 10) {
    spdlog::error("--instance must have at most 10 characters");
    return 2;
  }
  if (cleanup->parsed()) {
    quorum::localnode::CleanupInstance(options.network);
    return 0;
  }
  options.shutdown_grace = absl::Seconds(grace_seconds);
  return RunNode(options, kubeconfig);
}
