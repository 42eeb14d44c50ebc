// quorum-operator: runs Quorum's controllers (and, when configured, its
// admission webhooks) against one Kubernetes cluster.
//
//   quorum-operator [flags]   run the operator
//   quorum-operator crds      print the CustomResourceDefinitions (YAML)
//   quorum-operator version   print the version
//   quorum-operator etcd-snapshot | fetch-snapshot | delete-snapshots   see snapshot_commands.h
//
// SIGTERM/SIGINT: stop taking work, finish in-flight reconciles, release the
// leader lease, exit 0. A second signal exits at once.
#include <malloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cmd/quorum-operator/embedded.h"
#include "cmd/quorum-operator/snapshot_commands.h"
#include "src/base/cancellation.h"
#include "src/base/clock.h"
#include "src/base/logging.h"
#include "src/controllers/common/cache_scopes.h"
#include "src/controllers/common/operator_state_metrics.h"
#include "src/controllers/common/resources.h"
#include "src/controllers/etcdbackup/reconciler.h"
#include "src/controllers/etcdbackupschedule/reconciler.h"
#include "src/controllers/etcdcluster/reconciler.h"
#include "src/controllers/postgresbackup/reconciler.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgresobjects/database_reconciler.h"
#include "src/controllers/postgresobjects/role_reconciler.h"
#include "src/etcd/process.h"
#include "src/kube/config.h"
#include "src/runtime/manager.h"
#include "src/runtime/webhook_cert_renewal.h"
#include "src/runtime/webhook_certs.h"
#include "src/webhooks/etcdbackup_webhook.h"
#include "src/webhooks/etcdbackupschedule_webhook.h"
#include "src/webhooks/etcdcluster_webhook.h"
#include "src/webhooks/postgres_objects_webhook.h"
#include "src/webhooks/postgresbackup_webhook.h"
#include "src/webhooks/postgrescluster_webhook.h"

namespace quorum {
namespace {

constexpr char kVersion[] = "0.1.0-dev";
// The release image of this version (deploy/manager/deployment.yaml, hack/images.sh).
constexpr char kDefaultOperatorImage[] = "ghcr.io/quorum-dev/quorum-operator:0.1.0";

// Jobs run the operator image with imagePullPolicy IfNotPresent: a moving tag
// would leave each node with whichever build it first pulled.
bool MovingImageTag(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return false;  // a digest
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) {
    return true;  // no tag: latest
  }
  return image.substr(colon + 1) == "latest";
}

struct Flags {
  std::string kubeconfig, context;
  std::string namespaces;
  bool leader_elect = true;
  std::string leader_election_namespace, leader_election_id = "quorum-operator";
  std::string leader_election_identity;
  std::string lease_duration = "15s", renew_deadline = "10s", retry_period = "2s";
  std::string metrics_bind_address = ":8080", health_probe_bind_address = ":8081";
  int webhook_port = 0;
  std::string webhook_cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  bool webhook_self_managed_certs = false;
  std::string webhook_secret = "quorum-webhook-server-cert", webhook_service;
  std::vector<std::string> validating_configurations, mutating_configurations;
  std::string log_format = "text", log_level = "info";
  // Reconciles are I/O bound (API round trips of a few ms, etcd/Patroni calls
  // up to their timeouts), not CPU bound: 4 workers keep a 1,000-cluster
  // create burst moving while one member is slow, and still fit a 2-core pod.
  int workers = 4;
  std::string controllers =
      "etcdcluster,etcdbackup,etcdbackupschedule,postgrescluster,postgresbackup,postgresrole,"
      "postgresdatabase";
  // The image backup Jobs run (the operator's own; the Deployment passes it).
  std::string operator_image = kDefaultOperatorImage;
  // Trust for https S3 endpoints when the operator deletes old snapshots.
  std::string s3_ca_file;
  // 0: no client-side limit; the API server's Priority and Fairness queues
  // the operator's requests fairly against everyone else's (the server's
  // answer, not a fixed client guess). Set >0 for servers without APF.
  double qps = 0;
  int burst = 100;
  bool scoped_cache = true;
};

// What the operator caches of each type it watches (issues 15.5 and 17):
// owned objects by the managed-by label every builder sets; member pods and
// their claims by the app.kubernetes.io/name label of our pod templates;
// Secrets only when owned — a Secret that a spec names (a user's TLS or
// credentials) is read on demand from the API server, never listed, so
// unrelated objects in the cluster cost no memory and no events.
absl::StatusOr<absl::Duration> Duration(const std::string& flag, const std::string& value) {
  absl::Duration d;
  if (!absl::ParseDuration(value, &d) || d <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--" + flag + ": want a positive duration like 15s, got \"" +
                                      value + "\"");
  }
  return d;
}

std::string PodNamespace() {
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  std::getline(in, ns);
  return ns;
}

std::string Identity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::mt19937_64 rng{std::random_device{}()};
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(rng()));
  return std::string(host) + "_" + suffix;
}

int Fail(const absl::Status& s) {
  spdlog::error("{}", std::string(s.message()));
  return 1;
}

int PrintCrds() {
  bool first = true;
  for (const EmbeddedFile& f : EmbeddedCrds()) {
    if (!first) std::fputs("---\n", stdout);
    first = false;
    std::fwrite(f.content.data(), 1, f.content.size(), stdout);
  }
  return 0;
}

// NOLINTNEXTLINE(readability-function-size): wiring, one block per component.
int Run(const Flags& f) {
  // glibc gives each thread that allocates its own arena (up to 8 per core);
  // the operator's threads mostly wait, and per-thread arenas only hold
  // freed memory hostage. Two arenas keep RSS near what is actually in use.
  mallopt(M_ARENA_MAX, 2);
  // No fastbins: glibc consolidates every fastbin whenever a chunk of 64 KiB
  // or more is freed or a large one is asked for (watch and pack buffers do
  // both all the time); malloc_consolidate alone was 5 % of the operator's
  // CPU while 1,000 clusters settled. Small blocks still go through each
  // thread's tcache. Measured in docs/performance.md (twelfth session).
  mallopt(M_MXFAST, 0);
  // Debian's Abseil is built with Mutex deadlock detection on (upstream turns
  // it off in release builds): every lock of every Mutex consulted a global
  // lock-order graph under a global lock (about 1 % of the operator's CPU
  // while settling). The tests keep it; the operator does not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  if (absl::Status s = SetupLogging(f.log_format, f.log_level); !s.ok()) {
    std::fprintf(stderr, "quorum-operator: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  // Signals go to a dedicated thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Cancellation cancel;
  std::thread([&signals, &cancel] {
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("received signal {}: shutting down", sig);
    cancel.Cancel();
    sigwait(&signals, &sig);
    spdlog::warn("second signal: exiting now");
    _exit(1);
  }).detach();

  absl::StatusOr<kube::RestConfig> config = f.kubeconfig.empty()
                                                ? kube::LoadDefaultConfig(f.context)
                                                : kube::LoadKubeconfigFile(f.kubeconfig, f.context);
  if (!config.ok()) return Fail(config.status());
  config->qps = f.qps;
  config->burst = f.burst;
  config->user_agent = std::string("quorum-operator/") + kVersion;
  absl::StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::Create(*config);
  if (!client.ok()) return Fail(client.status());
  (*client)->set_field_manager("quorum-operator");

  runtime::ManagerOptions options;
  if (f.scoped_cache) options.cache_scopes = controllers::CacheScopes();
  for (absl::string_view ns : absl::StrSplit(f.namespaces, ',', absl::SkipWhitespace())) {
    options.namespaces.emplace_back(ns);
  }
  options.metrics_bind_address = f.metrics_bind_address;
  options.health_probe_bind_address = f.health_probe_bind_address;
  if (f.leader_elect) {
    runtime::LeaderElectionConfig le;
    le.lease_name = f.leader_election_id;
    le.lease_namespace = f.leader_election_namespace;
    if (le.lease_namespace.empty()) le.lease_namespace = PodNamespace();
    if (le.lease_namespace.empty()) le.lease_namespace = config->namespace_name;
    if (le.lease_namespace.empty()) le.lease_namespace = "default";
    le.identity = f.leader_election_identity.empty() ? Identity() : f.leader_election_identity;
    auto lease = Duration("leader-elect-lease-duration", f.lease_duration);
    auto renew = Duration("leader-elect-renew-deadline", f.renew_deadline);
    auto retry = Duration("leader-elect-retry-period", f.retry_period);
    for (const auto* d : {&lease, &renew, &retry}) {
      if (!d->ok()) return Fail(d->status());
    }
    le.lease_duration = *lease;
    le.renew_deadline = *renew;
    le.retry_period = *retry;
    spdlog::info("leader election on Lease {}/{} as {}", le.lease_namespace, le.lease_name,
                 le.identity);
    options.leader_election = le;
  }
  // The self-managed webhook certificates, renewed while the operator runs.
  std::optional<runtime::SelfManagedCertOptions> self_managed;
  if (f.webhook_port > 0) {
    if (f.webhook_self_managed_certs) {
      const std::string ns = PodNamespace().empty() ? config->namespace_name : PodNamespace();
      runtime::SelfManagedCertOptions certs{
          .secret_namespace = ns,
          .secret_name = f.webhook_secret,
          .cert_dir = f.webhook_cert_dir,
          .dns_names = {f.webhook_service, f.webhook_service + "." + ns,
                        f.webhook_service + "." + ns + ".svc"},
          .validating_configurations = f.validating_configurations,
          .mutating_configurations = f.mutating_configurations};
      if (f.webhook_service.empty()) {
        return Fail(absl::InvalidArgumentError(
            "--webhook-self-managed-certs needs --webhook-service (the webhook Service's name)"));
      }
      if (absl::Status s = runtime::EnsureWebhookCertificates(**client, certs, RealClock().Now());
          !s.ok()) {
        return Fail(s);
      }
      self_managed = certs;
    }
    options.webhook = runtime::WebhookServer::Options{.port = f.webhook_port,
                                                      .cert_file = f.webhook_cert_dir + "/tls.crt",
                                                      .key_file = f.webhook_cert_dir + "/tls.key"};
  }

  runtime::Manager manager(**client, std::move(options));
  // Backup and certificate series (issue 38), computed at each scrape from the cache.
  controllers::RegisterOperatorStateMetrics(manager.metrics(), manager.cache(), RealClock());
  if (runtime::WebhookServer* webhooks = manager.webhook_server()) {
    if (absl::Status s = webhooks::RegisterEtcdClusterWebhooks(*webhooks); !s.ok()) return Fail(s);
    if (absl::Status s = webhooks::RegisterEtcdBackupWebhooks(*webhooks); !s.ok()) return Fail(s);
    if (absl::Status s = webhooks::RegisterEtcdBackupScheduleWebhooks(*webhooks); !s.ok()) {
      return Fail(s);
    }
    // The clusterRef's EtcdCluster from the cache, for the insecure-DCS warning.
    runtime::Cache& cache = manager.cache();
    auto etcd_clusters = [&cache](const std::string& ns, const std::string& name) {
      return cache.Get(controllers::kEtcdClusters, ns, name);
    };
    if (absl::Status s = webhooks::RegisterPostgresClusterWebhooks(*webhooks, etcd_clusters);
        !s.ok()) {
      return Fail(s);
    }
    if (absl::Status s = webhooks::RegisterPostgresBackupWebhooks(*webhooks); !s.ok()) {
      return Fail(s);
    }
    if (absl::Status s = webhooks::RegisterPostgresObjectWebhooks(*webhooks); !s.ok()) {
      return Fail(s);
    }
  }
  // A controller runs only when its resource is served: an operator started
  // before a CRD is installed says so instead of never becoming ready.
  const std::set<std::string> wanted = absl::StrSplit(f.controllers, ',', absl::SkipEmpty());
  auto served = [&](const kube::GroupVersionResource& gvr) {
    return !absl::IsNotFound((*client)->List(gvr, "", {.limit = 1}).status());
  };
  auto enabled = [&](const std::string& name, const kube::GroupVersionResource& gvr) {
    if (!wanted.contains(name)) return false;
    if (!served(gvr)) {
      spdlog::error(
          "controller {} disabled: {}.{} is not served (install the CRDs: "
          "quorum-operator crds | kubectl apply --server-side -f -), then restart",
          name, gvr.resource, gvr.group);
      return false;
    }
    return true;
  };
  etcdcluster::EtcdClusterReconciler etcd_reconciler(**client, manager.cache(), manager.recorder(),
                                                     nullptr, f.operator_image);
  // The members' NetworkPolicy admits the client port from this namespace.
  etcd_reconciler.SetOperatorNamespace(PodNamespace());
  if (enabled("etcdcluster", etcdcluster::kEtcdClusters)) {
    runtime::Controller& c =
        etcdcluster::SetupEtcdClusterController(manager, etcd_reconciler, f.workers);
    // ... and from the pods of the PostgresClusters that reference a cluster.
    if (served(postgrescluster::kPostgresClusters)) etcdcluster::WatchPostgresClients(manager, c);
  }
  etcdbackup::EtcdBackupReconciler backup_reconciler(**client, manager.cache(), manager.recorder(),
                                                     f.operator_image);
  if (enabled("etcdbackup", etcdbackup::kEtcdBackups)) {
    etcdbackup::SetupEtcdBackupController(manager, backup_reconciler, f.workers);
  }
  etcdbackupschedule::EtcdBackupScheduleReconciler schedule_reconciler(
      **client, manager.cache(), manager.recorder(), f.operator_image, f.s3_ca_file);
  if (enabled("etcdbackupschedule", etcdbackupschedule::kEtcdBackupSchedules)) {
    etcdbackupschedule::SetupEtcdBackupScheduleController(manager, schedule_reconciler, f.workers);
  }
  postgrescluster::PostgresClusterReconciler pg_reconciler(**client, manager.cache(),
                                                           manager.recorder());
  // The members' NetworkPolicy admits Patroni's REST API from this namespace.
  pg_reconciler.SetOperatorNamespace(PodNamespace());
  if (enabled("postgrescluster", postgrescluster::kPostgresClusters)) {
    runtime::Controller& c =
        postgrescluster::SetupPostgresClusterController(manager, pg_reconciler, f.workers);
    // Scheduled backups need the PostgresBackup resource.
    if (served(postgrescluster::kPostgresBackups)) {
      postgrescluster::WatchScheduledBackups(manager, c, pg_reconciler);
    }
  }
  postgresbackup::PostgresBackupReconciler pg_backup_reconciler(**client, manager.cache(),
                                                                manager.recorder());
  if (enabled("postgresbackup", postgresbackup::kPostgresBackups)) {
    postgresbackup::SetupPostgresBackupController(manager, pg_backup_reconciler, f.workers);
  }
  postgresobjects::PostgresRoleReconciler pg_role_reconciler(**client, manager.cache(),
                                                             manager.recorder());
  if (enabled("postgresrole", controllers::kPostgresRoles)) {
    postgresobjects::SetupPostgresRoleController(manager, pg_role_reconciler, f.workers);
  }
  postgresobjects::PostgresDatabaseReconciler pg_database_reconciler(**client, manager.cache(),
                                                                     manager.recorder());
  if (enabled("postgresdatabase", controllers::kPostgresDatabases)) {
    postgresobjects::SetupPostgresDatabaseController(manager, pg_database_reconciler, f.workers);
  }
  if (MovingImageTag(f.operator_image)) {
    spdlog::warn(
        "--operator-image {} has no version tag: backup Jobs pull it only if the node lacks it, so "
        "nodes may run different builds; name a versioned tag or a digest",
        f.operator_image);
  }
  spdlog::info("quorum-operator {} starting; namespaces: {}", kVersion,
               f.namespaces.empty() ? "all" : f.namespaces);
  std::thread renewer;
  if (self_managed.has_value()) {
    renewer = std::thread(
        [&] { runtime::RenewWebhookCertificates(**client, *self_managed, RealClock(), cancel); });
  }
  absl::Status s = manager.Run(cancel);
  if (renewer.joinable()) {
    cancel.Cancel();
    renewer.join();
  }
  if (!s.ok()) return Fail(s);
  spdlog::info("stopped cleanly");
  return 0;
}

}  // namespace
}  // namespace quorum

// NOLINTNEXTLINE(readability-function-size): flags, one per line, and the subcommands.
int main(int argc, char** argv) {
  quorum::etcd::UseNativeNameResolution();  // before any thread starts (process.h)
  quorum::Flags f;
  CLI::App app{"quorum-operator: etcd clusters and Patroni PostgreSQL clusters on Kubernetes"};
  app.set_version_flag("--version", quorum::kVersion);
  app.require_subcommand(0, 1);
  auto* crds = app.add_subcommand("crds", "Print the CustomResourceDefinitions as YAML");
  auto* version = app.add_subcommand("version", "Print the version");
  const quorum::SnapshotCommands snapshots = quorum::AddSnapshotCommands(app);
  app.add_option("--kubeconfig", f.kubeconfig,
                 "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)");
  app.add_option("--namespaces", f.namespaces, "Comma-separated namespaces to watch (default: all)")
      ->envname("WATCH_NAMESPACES");
  app.add_option("--leader-elect", f.leader_elect, "Elect a leader on a Lease before reconciling")
      ->default_val(true);
  app.add_option("--leader-election-namespace", f.leader_election_namespace,
                 "Namespace of the Lease (default: the pod's namespace)");
  app.add_option("--leader-election-id", f.leader_election_id, "Name of the Lease")
      ->capture_default_str();
  app.add_option("--leader-election-identity", f.leader_election_identity,
                 "This candidate's identity (default: hostname and a random suffix)");
  app.add_option("--leader-elect-lease-duration", f.lease_duration)->capture_default_str();
  app.add_option("--leader-elect-renew-deadline", f.renew_deadline)->capture_default_str();
  app.add_option("--leader-elect-retry-period", f.retry_period)->capture_default_str();
  app.add_option("--metrics-bind-address", f.metrics_bind_address,
                 "host:port for /metrics (\"0\" disables)")
      ->capture_default_str();
  app.add_option("--health-probe-bind-address", f.health_probe_bind_address,
                 "host:port for /healthz and /readyz (\"0\" disables)")
      ->capture_default_str();
  app.add_option("--webhook-port", f.webhook_port, "HTTPS port of the admission webhooks (0: off)")
      ->capture_default_str();
  app.add_option("--webhook-cert-dir", f.webhook_cert_dir, "Folder with tls.crt and tls.key")
      ->capture_default_str();
  app.add_flag("--webhook-self-managed-certs", f.webhook_self_managed_certs,
               "Create the webhook CA and certificate and patch the configurations' caBundle");
  app.add_option("--webhook-secret", f.webhook_secret, "Secret holding self-managed certificates")
      ->capture_default_str();
  app.add_option("--webhook-service", f.webhook_service, "Name of the webhook Service");
  app.add_option("--validating-webhook-configuration", f.validating_configurations,
                 "ValidatingWebhookConfiguration to patch with the CA (repeatable)");
  app.add_option("--mutating-webhook-configuration", f.mutating_configurations,
                 "MutatingWebhookConfiguration to patch with the CA (repeatable)");
  app.add_option("--log-format", f.log_format, "text or json")->capture_default_str();
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn or error")
      ->capture_default_str();
  app.add_option("--controllers", f.controllers,
                 "Comma-separated controllers to run: etcdcluster, etcdbackup, etcdbackupschedule, "
                 "postgrescluster, postgresbackup, postgresrole, postgresdatabase")
      ->capture_default_str();
  app.add_option("--operator-image", f.operator_image,
                 "Image of backup Jobs (the operator's own image)")
      ->envname("QUORUM_OPERATOR_IMAGE")
      ->capture_default_str();
  app.add_option("--s3-ca-file", f.s3_ca_file,
                 "CA bundle for https S3 endpoints when schedules delete old snapshots "
                 "(default: the system store)")
      ->envname("QUORUM_S3_CA_FILE");
  app.add_option("--workers", f.workers, "Concurrent reconciles per controller")
      ->capture_default_str();
  app.add_option("--kube-api-qps", f.qps,
                 "Client-side rate limit (0: none, rely on the server's Priority and Fairness)")
      ->capture_default_str();
  app.add_option("--kube-api-burst", f.burst, "Client-side burst (with --kube-api-qps > 0)")
      ->capture_default_str();
  app.add_option("--scoped-cache", f.scoped_cache,
                 "Cache only labelled owned objects, our pods, owned Secrets (false: whole types)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (crds->parsed()) return quorum::PrintCrds();
  if (snapshots.take->parsed()) return snapshots.run_take();
  if (snapshots.fetch->parsed()) return snapshots.run_fetch();
  if (snapshots.remove->parsed()) return snapshots.run_remove();
  if (version->parsed()) {
    std::printf("quorum-operator %s\n", quorum::kVersion);
    return 0;
  }
  return quorum::Run(f);
}
