// kubectl-quorum: the kubectl plugin of Quorum (`kubectl quorum ...`). main
// only: flags, the kubeconfig as kubectl reads it, and exit codes; the
// commands live in src/kubectl.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"
#include "src/kubectl/backup_command.h"
#include "src/kubectl/defrag_command.h"
#include "src/kubectl/etcdctl_command.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/logs_command.h"
#include "src/kubectl/psql_exec.h"
#include "src/kubectl/report_command.h"
#include "src/kubectl/restart_command.h"
#include "src/kubectl/restore_command.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/switchover_command.h"

namespace {

using namespace quorum;  // NOLINT(build/namespaces): main only

constexpr int64_t kTailUnset = std::numeric_limits<int64_t>::min();  // --tail not given

struct Flags {
  std::string kubeconfig, context, ns, output = "text", cluster;
  bool no_color = false, all_namespaces = false;
  // switchover
  std::string to, wait = "3m";
  bool failover = false;
  // restart
  std::string restart_wait = "10m";
  // restore
  std::string set, to_time, to_lsn, to_xid, restore_wait = "30m";
  bool yes = false;
  // backup
  std::string repo, type = "full", timeout = "1h";
  bool wait_backup = false;
  // psql
  std::string user, host, port;
  std::vector<std::string> psql_args;
  // logs, report, etcdctl, defrag
  std::string container, since, report_file, defrag_wait = "2m";
  int64_t tail = kTailUnset;
  bool follow = false;
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

// A client for the kubeconfig; the namespace is -n, else the context's, else "default".
absl::StatusOr<std::unique_ptr<kube::Client>> Connect(const Flags& f, std::string& ns) {
  absl::StatusOr<kube::RestConfig> config = LoadConfig(f);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::Create(*config);
  if (!client.ok()) return absl::FailedPreconditionError(client.status().message());
  (*client)->set_field_manager("kubectl-quorum");
  ns = f.ns.empty() ? config->namespace_name : f.ns;
  if (ns.empty()) ns = "default";
  return client;
}

// A duration flag ("3m", "90s", "0"). Errors: InvalidArgument naming the flag.
absl::StatusOr<absl::Duration> ParseWait(const std::string& flag, const std::string& value) {
  absl::Duration d;
  if (!absl::ParseDuration(value, &d) || d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " \"", value, "\": want a duration such as 3m, 90s or 0"));
  }
  return d;
}

int Print(const absl::StatusOr<kubectl::CommandOutput>& out) {
  if (!out.ok()) return Fail(out.status());
  std::cout << out->text << std::flush;
  return out->exit_code;
}

int RunSwitchover(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<absl::Duration> wait = ParseWait("--wait", f.wait);
  if (!wait.ok()) return Fail(wait.status());
  kubectl::SwitchoverOptions options{
      .target = *target, .to = f.to, .failover = f.failover, .wait = *wait, .now = absl::Now()};
  if (absl::Status s = kubectl::ValidateSwitchoverOptions(options); !s.ok()) return Fail(s);
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunSwitchover(**client, options));
}

int RunRestart(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<absl::Duration> wait = ParseWait("--wait", f.restart_wait);
  if (!wait.ok()) return Fail(wait.status());
  kubectl::RestartOptions options{.target = *target, .wait = *wait, .now = absl::Now()};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunRestart(**client, options));
}

int RunRestore(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<absl::Duration> wait = ParseWait("--wait", f.restore_wait);
  if (!wait.ok()) return Fail(wait.status());
  kubectl::RestoreOptions options{.target = *target,
                                  .repo = f.repo,
                                  .set = f.set,
                                  .to = {.time = f.to_time, .lsn = f.to_lsn, .xid = f.to_xid},
                                  .yes = f.yes,
                                  .wait = *wait,
                                  .now = absl::Now()};
  if (absl::Status s = kubectl::ValidateRestoreOptions(options); !s.ok()) return Fail(s);
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunRestore(**client, options));
}

int RunBackup(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<absl::Duration> timeout = ParseWait("--timeout", f.timeout);
  if (!timeout.ok()) return Fail(timeout.status());
  kubectl::BackupOptions options{.target = *target,
                                 .repo = f.repo,
                                 .type = f.type,
                                 .wait = f.wait_backup,
                                 .timeout = *timeout,
                                 .now = absl::Now()};
  if (absl::Status s = kubectl::ValidateBackupOptions(options); !s.ok()) return Fail(s);
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunBackup(**client, options));
}

int RunPsql(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  kubectl::PsqlOptions options{
      .target = *target, .user = f.user, .host = f.host, .port = f.port, .psql_args = f.psql_args};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Fail(kubectl::RunPsql(**client, options));  // returns only when psql did not start
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
  kubectl::StatusOptions options{
      .target = *target,
      .all_namespaces = f.all_namespaces,
      .format = f.output == "json" ? kubectl::OutputFormat::kJson : kubectl::OutputFormat::kText,
      .colour = !f.no_color && std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO) == 1,
      .now = absl::Now()};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunStatus(**client, options));
}

int RunLogs(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  kubectl::LogsOptions options{.target = *target, .container = f.container, .follow = f.follow};
  if (!f.since.empty()) {
    absl::StatusOr<absl::Duration> since = ParseWait("--since", f.since);
    if (!since.ok()) return Fail(since.status());
    options.since = *since;
  }
  if (f.tail != kTailUnset) options.tail = f.tail;  // a negative one is refused
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  absl::Status s = kubectl::RunLogs(**client, options, std::cout, std::cerr);
  return s.ok() ? kubectl::kExitHealthy : Fail(s);
}

int RunReport(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  kubectl::ReportOptions options{.target = *target, .output = f.report_file, .now = absl::Now()};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Print(kubectl::RunReport(**client, options));
}

int RunEtcdctl(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  kubectl::EtcdctlOptions options{
      .target = *target, .host = f.host, .port = f.port, .args = f.psql_args};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  return Fail(kubectl::RunEtcdctl(**client, options));  // returns only when etcdctl did not start
}

int RunDefrag(const Flags& f) {
  absl::StatusOr<kubectl::Target> target = kubectl::ParseTarget(f.cluster);
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<absl::Duration> wait = ParseWait("--wait", f.defrag_wait);
  if (!wait.ok()) return Fail(wait.status());
  kubectl::DefragOptions options{.target = *target, .wait = *wait};
  auto client = Connect(f, options.ns);
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<int> code = kubectl::RunDefrag(**client, options, std::cout, std::cerr);
  return code.ok() ? *code : Fail(code.status());
}

constexpr char kClusterHelp[] =
    "KIND/NAME (etcdcluster|ec|postgrescluster|pg) or NAME when only one kind has it";
constexpr char kActionExitCodes[] =
    "Exit codes: 0 done (Succeeded, Complete, or requested without waiting), 1 failed or not\n"
    "finished in time, 2 usage error or not found, 3 API error (unreachable, unauthorized,\n"
    "forbidden, bad kubeconfig).";

CLI::App* AddStatus(CLI::App& app, Flags& f) {
  CLI::App* status = app.add_subcommand(
      "status",
      "One screen on a cluster: members, roles, versions, backups, conditions; without a "
      "name, one line per cluster");
  status->add_option("cluster", f.cluster,
                     std::string(kClusterHelp) + "; none: list every cluster of the namespace");
  status->add_flag("-A,--all-namespaces", f.all_namespaces,
                   "Without a name: list the clusters of every namespace");
  status->add_option("-o,--output", f.output, "text or json")->capture_default_str();
  status->add_flag("--no-color", f.no_color, "Never colour the text (also: NO_COLOR set)");
  status->footer(kubectl::kExitCodesHelp);
  return status;
}

CLI::App* AddSwitchover(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "switchover",
      "Move a PostgresCluster's primary (Patroni switchover, or failover with --failover) and "
      "wait for the operator's result");
  cmd->add_option("cluster", f.cluster, "The PostgresCluster (NAME or pg/NAME)")->required();
  cmd->add_option("--to", f.to, "The member pod to promote (default: Patroni chooses)");
  cmd->add_flag("--failover", f.failover,
                "Type Failover: promote --to even when the primary is unhealthy");
  cmd->add_option("--wait", f.wait, "How long to wait for the result; 0: do not wait")
      ->capture_default_str();
  cmd->footer(kActionExitCodes);
  return cmd;
}

CLI::App* AddRestart(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "restart",
      "Restart every member pod through the operator's rolling update (one at a time, each "
      "once the cluster is healthy; PostgreSQL's primary last, after a switchover) and wait");
  cmd->add_option("cluster", f.cluster, kClusterHelp)->required();
  cmd->add_option("--wait", f.restart_wait,
                  "How long to wait until every member restarted and is Ready; 0: do not wait")
      ->capture_default_str();
  cmd->footer(kActionExitCodes);
  return cmd;
}

CLI::App* AddRestore(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "restore",
      "Restore a PostgresCluster in place from one of its repositories, to a point in time or "
      "the end of the archive, and wait for the operator's result (needs --yes: what was "
      "written after the target is lost)");
  cmd->add_option("cluster", f.cluster, "The PostgresCluster (NAME or pg/NAME)")->required();
  cmd->add_option("--repo", f.repo, "repo1..repo4 (default: the cluster's first repository)");
  cmd->add_option("--time", f.to_time,
                  "Recover up to this time (RFC 3339, e.g. 2026-12-04T10:15:00Z)");
  cmd->add_option("--lsn", f.to_lsn, "Recover up to this WAL position (e.g. 0/5000100)");
  cmd->add_option("--xid", f.to_xid, "Recover up to this transaction id");
  cmd->add_option("--set", f.set, "Start from this backup (a label, e.g. 20261204-101500F)");
  cmd->add_flag("--yes", f.yes, "Go on: every member stops and later writes are lost");
  cmd->add_option("--wait", f.restore_wait, "How long to wait for the result; 0: do not wait")
      ->capture_default_str();
  cmd->footer(kActionExitCodes);
  return cmd;
}

CLI::App* AddBackup(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "backup", "Create a PostgresBackup <cluster>-<UTC time> of a PostgresCluster");
  cmd->add_option("cluster", f.cluster, "The PostgresCluster (NAME or pg/NAME)")->required();
  cmd->add_option("--repo", f.repo, "repo1..repo4 (default: the cluster's first repository)");
  cmd->add_option("--type", f.type, "full, diff or incr")->capture_default_str();
  cmd->add_flag("--wait", f.wait_backup, "Wait until the backup is Complete or Failed");
  cmd->add_option("--timeout", f.timeout, "With --wait: how long at most")->capture_default_str();
  cmd->footer(kActionExitCodes);
  return cmd;
}

CLI::App* AddPsql(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "psql",
      "Run the local psql on a PostgresCluster's primary as one of its users, TLS verified "
      "with the cluster's CA (no Secret decoding by hand; the password only in psql's "
      "environment)");
  cmd->add_option("cluster", f.cluster, "The PostgresCluster (NAME or pg/NAME)")->required();
  cmd->add_option("args", f.psql_args, "After --: psql's own arguments (e.g. -- -c 'select 1')");
  cmd->add_option("--user", f.user, "A user of spec.users (default: the superuser, postgres)");
  cmd->add_option("--host", f.host,
                  "Connect here instead of the Service's DNS name <cluster>.<namespace>.svc, "
                  "which this machine must otherwise resolve (cluster DNS). An IP keeps the "
                  "certificate checked against the Service's name (e.g. a port-forward: "
                  "--host 127.0.0.1)");
  cmd->add_option("--port", f.port, "Connect to this port (default: the Secret's, 5432)");
  cmd->footer(
      "Needs psql (Debian: postgresql-client) on PATH. Exit codes: psql's own once it runs; "
      "2 usage error or not found (cluster, user, Secret), 3 API error or psql missing.");
  return cmd;
}

CLI::App* AddLogs(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "logs", "The logs of every member pod of a cluster, each line prefixed with its pod");
  cmd->add_option("cluster", f.cluster, kClusterHelp)->required();
  cmd->add_option("-c,--container", f.container, "Only this container (default: every one)");
  cmd->add_option("--since", f.since, "Only lines newer than this (e.g. 10m, 1h)");
  cmd->add_option("--tail", f.tail, "Only the last N lines of each container");
  cmd->add_flag("-f,--follow", f.follow, "Follow every member at once until interrupted");
  cmd->footer(
      "Pods that are gone or not started are named on stderr, not fatal. Exit codes: 0 read, "
      "2 usage error or not found, 3 API error.");
  return cmd;
}

CLI::App* AddReport(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write a .tar.gz for a bug report: the cluster, its objects, events, member logs and "
      "status; every Secret value redacted");
  cmd->add_option("cluster", f.cluster, kClusterHelp)->required();
  cmd->add_option("-o,--output", f.report_file,
                  "The file (default: quorum-report-<kind>-<name>-<UTC time>.tar.gz)");
  cmd->footer("Exit codes: 0 written, 2 usage error or not found, 3 API error or not writable.");
  return cmd;
}

CLI::App* AddEtcdctl(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "etcdctl",
      "Run the local etcdctl against an EtcdCluster's client Service with its CA, client "
      "certificate and root credentials (these only in etcdctl's environment)");
  cmd->add_option("cluster", f.cluster, "The EtcdCluster (NAME or ec/NAME)")->required();
  cmd->add_option("args", f.psql_args,
                  "After --: etcdctl's own arguments (e.g. -- get / --prefix)");
  cmd->add_option("--host", f.host,
                  "Connect here instead of the Service's DNS name <service>.<namespace>.svc "
                  "(e.g. a port-forward); the server certificate must name it");
  cmd->add_option("--port", f.port, "Connect to this port (default: 2379)");
  cmd->footer(
      "Needs etcdctl on PATH. Exit codes: etcdctl's own once it runs; 2 usage error, not "
      "found or etcdctl missing; 3 API error or a Secret missing.");
  return cmd;
}

CLI::App* AddDefrag(CLI::App& app, Flags& f) {
  CLI::App* cmd = app.add_subcommand(
      "defrag",
      "Defragment an EtcdCluster's members one at a time, followers first, the leader last");
  cmd->add_option("cluster", f.cluster, "The EtcdCluster (NAME or ec/NAME)")->required();
  cmd->add_option("--wait", f.defrag_wait, "How long each member may take to be healthy again")
      ->capture_default_str();
  cmd->footer(
      "Needs etcdctl on PATH and the members' names <pod>.<cluster>-headless.<namespace>.svc "
      "resolvable. Exit codes: 0 every member done, 1 any failed, 2 usage error, not found or "
      "etcdctl missing, 3 API error.");
  return cmd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kubectl quorum: see and operate Quorum's EtcdClusters and PostgresClusters"};
  app.name("kubectl quorum");
  app.footer(kubectl::kExitCodesHelp);
  app.require_subcommand(1);
  Flags f;
  app.add_option("--kubeconfig", f.kubeconfig,
                 "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)");
  app.add_option("-n,--namespace", f.ns, "Namespace (default: the context's namespace)");
  CLI::App* status = AddStatus(app, f);
  CLI::App* switchover = AddSwitchover(app, f);
  CLI::App* restart = AddRestart(app, f);
  CLI::App* restore = AddRestore(app, f);
  CLI::App* backup = AddBackup(app, f);
  CLI::App* psql = AddPsql(app, f);
  CLI::App* logs = AddLogs(app, f);
  CLI::App* report = AddReport(app, f);
  CLI::App* etcdctl = AddEtcdctl(app, f);
  CLI::App* defrag = AddDefrag(app, f);
  for (CLI::App* cmd :
       {status, switchover, restart, restore, backup, psql, logs, report, etcdctl, defrag}) {
    cmd->fallthrough();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kubectl::kExitUsage;
  }
  if (status->parsed()) return RunStatus(f);
  if (switchover->parsed()) return RunSwitchover(f);
  if (restart->parsed()) return RunRestart(f);
  if (restore->parsed()) return RunRestore(f);
  if (backup->parsed()) return RunBackup(f);
  if (psql->parsed()) return RunPsql(f);
  if (logs->parsed()) return RunLogs(f);
  if (report->parsed()) return RunReport(f);
  if (etcdctl->parsed()) return RunEtcdctl(f);
  if (defrag->parsed()) return RunDefrag(f);
  return kubectl::kExitUsage;
}
