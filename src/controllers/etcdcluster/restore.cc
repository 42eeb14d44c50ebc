#include "src/controllers/etcdcluster/restore.h"

#include "absl/strings/str_cat.h"

namespace quorum::etcdcluster {
namespace {

constexpr char kRestoreVolume[] = "restore";
constexpr char kRestoreDir[] = "/restore";
constexpr char kSourceVolume[] = "restore-source";
constexpr char kSourceDir[] = "/restore-source";

// Shell glue in the etcd image: restore once, into place atomically.
constexpr char kRestoreScript[] = R"(set -eu
data=/var/run/etcd/default.etcd
if [ -e "$data" ] || [ "$ETCD_INITIAL_CLUSTER_STATE" != new ]; then exit 0; fi
if [ ! -f /restore/snapshot.db ]; then echo "no snapshot was fetched" >&2; exit 1; fi
rm -rf /var/run/etcd/restore.tmp
etcdutl snapshot restore /restore/snapshot.db --name "$POD_NAME" \
  --initial-cluster "$ETCD_INITIAL_CLUSTER" --initial-cluster-token "$ETCD_INITIAL_CLUSTER_TOKEN" \
  --initial-advertise-peer-urls "$PEER_URL" --data-dir /var/run/etcd/restore.tmp
mv /var/run/etcd/restore.tmp "$data"
)";

Json SecretEnv(const std::string& name, const std::string& secret, const std::string& key) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

Json FieldEnv(const std::string& name, const std::string& path) {
  return {{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}};
}

Json RestrictedSecurityContext() {
  return {{"runAsNonRoot", true},
          {"runAsUser", 65532},
          {"allowPrivilegeEscalation", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", {{"drop", Json::array({"ALL"})}}}};
}

}  // namespace

RestorePodParts BuildRestorePodParts(const EtcdCluster& cluster,
                                     const std::string& operator_image) {
  RestorePodParts parts;
  if (!cluster.spec.restore_source || operator_image.empty()) return parts;
  const api::BackupDestination& src = *cluster.spec.restore_source;
  const Names n = NamesOf(cluster);
  const Json state_env = Json::array({{{"configMapRef", {{"name", n.state_configmap}}}}});
  const Json data_mount = {{"name", kDataVolume}, {"mountPath", kDataDir}};
  const Json restore_mount = {{"name", kRestoreVolume}, {"mountPath", kRestoreDir}};
  parts.volumes.push_back({{"name", kRestoreVolume}, {"emptyDir", Json::object()}});

  Json args = Json::array({"fetch-snapshot", absl::StrCat("--out=", kRestoreDir, "/snapshot.db"),
                           absl::StrCat("--skip-if-exists=", kDataDir, "/default.etcd"),
                           "--skip-unless-env=ETCD_INITIAL_CLUSTER_STATE=new"});
  Json env = Json::array();
  Json fetch_mounts = Json::array({data_mount, restore_mount});
  if (src.s3) {
    args.push_back("--s3-endpoint=" + src.s3->endpoint);
    args.push_back("--s3-bucket=" + src.s3->bucket);
    args.push_back("--s3-key=" + src.s3->key);
    if (!src.s3->region.empty()) args.push_back("--s3-region=" + src.s3->region);
    if (src.s3->force_path_style) args.push_back("--s3-force-path-style");
    env.push_back(SecretEnv("AWS_ACCESS_KEY_ID", src.s3->credentials_secret, "AWS_ACCESS_KEY_ID"));
    env.push_back(
        SecretEnv("AWS_SECRET_ACCESS_KEY", src.s3->credentials_secret, "AWS_SECRET_ACCESS_KEY"));
  }
  if (src.pvc) {
    parts.volumes.push_back(
        {{"name", kSourceVolume},
         {"persistentVolumeClaim", {{"claimName", src.pvc->claim_name}, {"readOnly", true}}}});
    fetch_mounts.push_back(
        {{"name", kSourceVolume}, {"mountPath", kSourceDir}, {"readOnly", true}});
    args.push_back(absl::StrCat(
        "--file=", kSourceDir, "/",
        src.pvc->sub_path.empty() ? api::kDefaultRestoreSnapshotFile : src.pvc->sub_path));
  }
  parts.init_containers.push_back({{"name", "fetch-snapshot"},
                                   {"image", operator_image},
                                   {"args", args},
                                   {"env", env},
                                   {"envFrom", state_env},
                                   {"volumeMounts", fetch_mounts},
                                   {"securityContext", RestrictedSecurityContext()}});

  const std::string scheme = PeerScheme(cluster);
  parts.init_containers.push_back(
      {{"name", "restore"},
       {"image", kDefaultImage},
       {"imagePullPolicy", "IfNotPresent"},
       {"command", Json::array({"sh", "-c", kRestoreScript})},
       {"env", Json::array({FieldEnv("POD_NAME", "metadata.name"),
                            FieldEnv("POD_NAMESPACE", "metadata.namespace"),
                            {{"name", "PEER_URL"},
                             {"value", absl::StrCat(scheme, "://$(POD_NAME).", n.headless_service,
                                                    ".$(POD_NAMESPACE).svc:", kPeerPort)}}})},
       {"envFrom", state_env},
       {"volumeMounts", Json::array({data_mount, restore_mount})},
       {"securityContext", RestrictedSecurityContext()}});
  return parts;
}

}  // namespace quorum::etcdcluster
