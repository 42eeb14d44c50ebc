// kubectl-quorum: the kubectl plugin of Quorum (`kubectl quorum ...`). main
// only: flags, the kubeconfig as kubectl reads it, and exit codes; the
// commands live in src/kubectl.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/status_command.h"

namespace {

using namespace quorum;  // NOLINT(build/namespaces): main only

struct Flags {
  std::string kubeconfig, context, ns, output = "text", cluster;
  bool no_color = false, all_namespaces = false;
};

int Fail(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return kubectl::ExitCodeFor(status);
}

// Like kubectl: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else in-cluster.
absl::StatusOr<kube::RestConfig> LoadConfig(const Flags& f) {
  absl::StatusOr<kube::RestConfig> config = f.kubeconfig.empty()
                                                ? kube::LoadDefaultConfig(f.context)
                                                : kube::LoadKubeconfigFile(f.kubeconfig, f.context);
  if (!config.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("kubeconfig: ", config.status().message()));
  }
  config->user_agent = "kubectl-quorum";
  return config;
}

int RunStatus(const Flags& f) {
  absl::StatusOr<kubectl::Target> target =
      f.cluster.empty() ? kubectl::Target{} : kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  if (f.all_namespaces && !f.cluster.empty()) {
    return Fail(absl::InvalidArgumentError("-A/--all-namespaces lists clusters: give no name"));
  }
  if (f.output != "text" && f.output != "json") {
    return Fail(absl::InvalidArgumentError("-o/--output: want text or json"));
  }
  absl::StatusOr<kube::RestConfig> config = LoadConfig(f);
  if (!config.ok()) return Fail(config.status());
  absl::StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::Create(*config);
  if (!client.ok()) return Fail(absl::FailedPreconditionError(client.status().message()));
  kubectl::StatusOptions options{
      .ns = f.ns.empty() ? config->namespace_name : f.ns,
      .target = *target,
      .all_namespaces = f.all_namespaces,
      .format = f.output == "json" ? kubectl::OutputFormat::kJson : kubectl::OutputFormat::kText,
      .colour = !f.no_color && std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO) == 1,
      .now = absl::Now()};
  if (options.ns.empty()) options.ns = "default";
  absl::StatusOr<kubectl::CommandOutput> out = kubectl::RunStatus(**client, options);
  if (!out.ok()) return Fail(out.status());
  std::cout << out->text << std::flush;
  return out->exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kubectl quorum: see Quorum's EtcdClusters and PostgresClusters"};
  app.name("kubectl quorum");
  app.footer(kubectl::kExitCodesHelp);
  app.require_subcommand(1);
  Flags f;
  app.add_option("--kubeconfig", f.kubeconfig,
                 "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)");
  app.add_option("-n,--namespace", f.ns, "Namespace (default: the context's namespace)");
  CLI::App* status = app.add_subcommand(
      "status",
      "One screen on a cluster: members, roles, versions, backups, conditions; without a "
      "name, one line per cluster");
  status->add_option("cluster", f.cluster,
                     "KIND/NAME (etcdcluster|ec|postgrescluster|pg) or NAME when only one kind "
                     "has it; none: list every cluster of the namespace");
  status->add_flag("-A,--all-namespaces", f.all_namespaces,
                   "Without a name: list the clusters of every namespace");
  status->add_option("-o,--output", f.output, "text or json")->capture_default_str();
  status->add_flag("--no-color", f.no_color, "Never colour the text (also: NO_COLOR set)");
  status->footer(kubectl::kExitCodesHelp);
  status->fallthrough();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kubectl::kExitUsage;
  }
  if (status->parsed()) return RunStatus(f);
  return kubectl::kExitUsage;
}
