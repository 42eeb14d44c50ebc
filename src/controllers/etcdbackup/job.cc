#include "src/controllers/etcdbackup/job.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdbackup.h"
#include "api/etcdcluster.h"
#include "src/controllers/common/job_outcome.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/controllers/etcdcluster/names.h"

namespace quorum::etcdbackup {
namespace {

constexpr char kTlsDir[] = "/etc/quorum/etcd-tls";
constexpr char kCaDir[] = "/etc/quorum/etcd-ca";
constexpr char kClaimDir[] = "/backup";
constexpr char kWorkDir[] = "/work";

Json SecretEnv(const std::string& name, const std::string& secret, const std::string& key) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

// On the Job and its pod; kSnapshotClientLabel gets the pod through the
// cluster's NetworkPolicy to the members' client port.
Json Labels(const api::EtcdBackup& b) {
  return {{"app.kubernetes.io/name", kBackupLabelName},
          {"app.kubernetes.io/instance", b.metadata.name},
          {"app.kubernetes.io/managed-by", "quorum-operator"},
          {"app.kubernetes.io/part-of", b.spec.cluster_ref},
          {etcdcluster::kSnapshotClientLabel, b.spec.cluster_ref}};
}

}  // namespace

std::string JobName(const api::EtcdBackup& backup) {
  return controllers::OneShotJobName(backup.metadata.name, "snapshot");
}

std::string DefaultS3Key(const api::EtcdBackup& b) {
  return absl::StrCat(b.metadata.ns, "/", b.spec.cluster_ref, "/", b.metadata.name, ".db");
}

std::string SnapshotFileName(const api::EtcdBackup& b) {
  return absl::StrCat(b.spec.cluster_ref, "-", b.metadata.name, ".db");
}

Json BuildSnapshotJob(const api::EtcdBackup& b, const api::EtcdCluster& cluster,
                      const std::string& image) {
  const etcdcluster::TlsMode tls = etcdcluster::TlsOf(cluster);
  const api::EtcdTlsSpec tls_spec = api::EffectiveTls(cluster);
  std::vector<std::string> endpoints;
  for (int i = 0; i < std::max(1, etcdcluster::DesiredReplicas(cluster)); ++i) {
    endpoints.push_back(etcdcluster::MemberClientUrl(cluster, i));
  }
  Json args = Json::array({"etcd-snapshot", "--endpoints=" + absl::StrJoin(endpoints, ","),
                           absl::StrCat("--work-dir=", kWorkDir)});
  Json env = Json::array();
  Json volumes = Json::array({{{"name", "work"}, {"emptyDir", Json::object()}}});
  Json mounts = Json::array({{{"name", "work"}, {"mountPath", kWorkDir}}});
  if (tls.server) {
    // Only ca.crt: without serverTrustedCASecret this is the serverSecret,
    // whose key is the members' own.
    Json items = Json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}});
    volumes.push_back(
        {{"name", "etcd-ca"},
         {"secret", {{"secretName", api::ServerCaSecret(cluster)}, {"items", items}}}});
    mounts.push_back({{"name", "etcd-ca"}, {"mountPath", kCaDir}, {"readOnly", true}});
    args.push_back(absl::StrCat("--ca-file=", kCaDir, "/ca.crt"));
  }
  if (tls.client && !tls_spec.client_secret.empty()) {
    volumes.push_back({{"name", "etcd-tls"}, {"secret", {{"secretName", tls_spec.client_secret}}}});
    mounts.push_back({{"name", "etcd-tls"}, {"mountPath", kTlsDir}, {"readOnly", true}});
    args.push_back(absl::StrCat("--cert-file=", kTlsDir, "/tls.crt"));
    args.push_back(absl::StrCat("--key-file=", kTlsDir, "/tls.key"));
  }
  if (etcdcluster::AuthEnabledInSpec(cluster)) {
    const std::string secret = etcdcluster::AuthSecretName(cluster);
    env.push_back(SecretEnv("ETCD_USERNAME", secret, "username"));
    env.push_back(SecretEnv("ETCD_PASSWORD", secret, "password"));
  }
  const api::BackupDestination& d = b.spec.destination;
  if (d.s3) {
    args.push_back("--s3-endpoint=" + d.s3->endpoint);
    args.push_back("--s3-bucket=" + d.s3->bucket);
    args.push_back("--s3-key=" + (d.s3->key.empty() ? DefaultS3Key(b) : d.s3->key));
    if (!d.s3->region.empty()) args.push_back("--s3-region=" + d.s3->region);
    if (d.s3->force_path_style) args.push_back("--s3-force-path-style");
    env.push_back(SecretEnv("AWS_ACCESS_KEY_ID", d.s3->credentials_secret,
                            std::string(api::kS3AccessKeyIdKey)));
    env.push_back(SecretEnv("AWS_SECRET_ACCESS_KEY", d.s3->credentials_secret,
                            std::string(api::kS3SecretAccessKeyKey)));
  }
  if (d.pvc) {
    volumes.push_back(
        {{"name", "backup"}, {"persistentVolumeClaim", {{"claimName", d.pvc->claim_name}}}});
    mounts.push_back({{"name", "backup"}, {"mountPath", kClaimDir}});
    args.push_back(d.pvc->sub_path.empty()
                       ? absl::StrCat("--dir=", kClaimDir)
                       : absl::StrCat("--dir=", kClaimDir, "/", d.pvc->sub_path));
    args.push_back("--name=" + SnapshotFileName(b));
  }
  Json container = {
      {"name", "snapshot"},
      {"image", image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", args},
      {"env", env},
      {"volumeMounts", mounts},
      {"terminationMessagePolicy", "File"},
      {"resources", {{"requests", {{"cpu", "50m"}, {"memory", "64Mi"}}}}},
      {"securityContext", controllers::RestrictedContainerSecurity()},
  };
  const Json pod_spec = controllers::OneShotPodSpec(container, volumes, 65532);
  return controllers::BuildOneShotJob(JobName(b), b.metadata.ns, Labels(b),
                                      {.api_version = std::string(api::kEtcdApiVersion),
                                       .kind = std::string(api::kEtcdBackupKind),
                                       .name = b.metadata.name,
                                       .uid = b.metadata.uid},
                                      kJobDeadlineSeconds, pod_spec);
}

}  // namespace quorum::etcdbackup
