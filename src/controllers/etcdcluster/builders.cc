#include "src/controllers/etcdcluster/builders.h"

#include <map>

#include "src/controllers/etcdcluster/pod_merge.h"
#include "src/controllers/etcdcluster/restore.h"

namespace quorum::etcdcluster {
namespace {

constexpr char kPki[] = "/etc/etcd/pki";

Json Selector(const EtcdCluster& cluster) {
  Json s = Json::object();
  for (const auto& [k, v] : SelectorLabels(cluster)) s[k] = v;
  return s;
}

Json Ports() {
  return Json::array(
      {{{"name", "client"},
        {"port", kClientPort},
        {"targetPort", kClientPort},
        {"protocol", "TCP"}},
       {{"name", "peer"}, {"port", kPeerPort}, {"targetPort", kPeerPort}, {"protocol", "TCP"}}});
}

Json SecretVolume(const std::string& name, const std::string& secret) {
  return {{"name", name}, {"secret", {{"secretName", secret}, {"defaultMode", 0440}}}};
}

Json Probe(const std::string& path, int period, int failures) {
  return {{"httpGet", {{"path", path}, {"port", kMetricsPort}, {"scheme", "HTTP"}}},
          {"periodSeconds", period},
          {"timeoutSeconds", 5},
          {"failureThreshold", failures}};
}

}  // namespace

Json Metadata(const EtcdCluster& cluster, const std::string& name, const api::TemplateMeta& user) {
  Json labels = user.labels;
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  Json meta = {{"name", name},
               {"namespace", NamesOf(cluster).ns},
               {"labels", labels},
               {"ownerReferences", Json::array({OwnerReference(cluster)})}};
  if (!user.annotations.empty()) meta["annotations"] = user.annotations;
  return meta;
}

std::vector<std::string> BuildEtcdArgs(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  const TlsMode tls = TlsOf(cluster);
  const std::string peer = PeerScheme(cluster);
  const std::string client = tls.server ? "https" : "http";
  const std::string host = "$(POD_NAME)." + n.headless_service + ".$(POD_NAMESPACE).svc";
  std::vector<std::string> args = {
      "--name=$(POD_NAME)",
      std::string("--data-dir=") + kDataDir + "/default.etcd",
      "--listen-peer-urls=" + peer + "://0.0.0.0:" + std::to_string(kPeerPort),
      "--listen-client-urls=" + client + "://0.0.0.0:" + std::to_string(kClientPort),
      "--initial-advertise-peer-urls=" + peer + "://" + host + ":" + std::to_string(kPeerPort),
      "--advertise-client-urls=" + client + "://" + host + ":" + std::to_string(kClientPort),
      "--listen-metrics-urls=http://0.0.0.0:" + std::to_string(kMetricsPort),
  };
  if (tls.peer_auto) args.push_back("--peer-auto-tls");
  if (tls.peer) {
    args.push_back(std::string("--peer-cert-file=") + kPki + "/peer/tls.crt");
    args.push_back(std::string("--peer-key-file=") + kPki + "/peer/tls.key");
    args.push_back(std::string("--peer-trusted-ca-file=") + kPki + "/peer-ca/ca.crt");
    args.push_back("--peer-client-cert-auth");
  }
  if (tls.server) {
    args.push_back(std::string("--cert-file=") + kPki + "/server/tls.crt");
    args.push_back(std::string("--key-file=") + kPki + "/server/tls.key");
  }
  if (tls.client) {
    args.push_back(std::string("--trusted-ca-file=") + kPki + "/client-ca/ca.crt");
    args.push_back("--client-cert-auth");
  }
  // etcd keeps every revision unless told otherwise: a long-lived cluster
  // then grows to its quota (NOSPACE). Compact by default; options override.
  const auto& options = cluster.spec.options;
  if (!options.contains("auto-compaction-mode")) {
    args.push_back(std::string("--auto-compaction-mode=") + kDefaultAutoCompactionMode);
  }
  if (!options.contains("auto-compaction-retention")) {
    auto mode = options.find("auto-compaction-mode");
    const bool by_revision = mode != options.end() && mode->second == "revision";
    args.push_back(
        std::string("--auto-compaction-retention=") +
        (by_revision ? kDefaultAutoCompactionRevisions : kDefaultAutoCompactionRetention));
  }
  for (const auto& [k, v] : options) {  // a std::map: sorted by key
    args.push_back(v.empty() ? "--" + k : "--" + k + "=" + v);
  }
  return args;
}

Json BuildHeadlessService(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  return {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", Metadata(cluster, n.headless_service, cluster.spec.headless_service_metadata)},
      {"spec",
       {{"clusterIP", "None"},
        // Peers must resolve each other before they are ready, or the
        // first quorum never forms.
        {"publishNotReadyAddresses", true},
        {"selector", Selector(cluster)},
        {"ports", Ports()}}}};
}

Json BuildClientService(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  const api::ObjectTemplate& tmpl = cluster.spec.service_template;
  Json spec = {{"selector", Selector(cluster)},
               {"ports", Json::array({{{"name", "client"},
                                       {"port", kClientPort},
                                       {"targetPort", kClientPort},
                                       {"protocol", "TCP"}}})}};
  for (auto it = tmpl.spec.begin(); it != tmpl.spec.end(); ++it) {
    if (it.key() != "selector") spec[it.key()] = *it;  // the selector stays ours
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(cluster, n.client_service, tmpl.metadata)},
          {"spec", spec}};
}

Json BuildStateConfigMap(const EtcdCluster& cluster, const BootstrapState& state) {
  const Names n = NamesOf(cluster);
  std::string initial;
  for (const auto& [name, url] : state.members) {
    initial += (initial.empty() ? "" : ",") + name + "=" + url;
  }
  const std::string& uid = cluster.metadata.uid;
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", Metadata(cluster, n.state_configmap)},
          {"data",
           {{"ETCD_INITIAL_CLUSTER", initial},
            {"ETCD_INITIAL_CLUSTER_STATE", state.state},
            {"ETCD_INITIAL_CLUSTER_TOKEN", n.cluster + "-" + uid.substr(0, 8)}}}};
}

namespace {

// The etcd container, mounting `mounts`.
Json EtcdContainer(const EtcdCluster& cluster, Json mounts) {
  return {
      {"name", kContainerName},
      {"image", kDefaultImage},
      {"imagePullPolicy", "IfNotPresent"},
      {"command", Json::array({"etcd"})},
      {"args", BuildEtcdArgs(cluster)},
      {"env",
       Json::array(
           {{{"name", "POD_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
            {{"name", "POD_NAMESPACE"},
             {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}}})},
      {"envFrom", Json::array({{{"configMapRef", {{"name", NamesOf(cluster).state_configmap}}}}})},
      {"ports", Json::array({{{"name", "client"}, {"containerPort", kClientPort}},
                             {{"name", "peer"}, {"containerPort", kPeerPort}},
                             {{"name", "metrics"}, {"containerPort", kMetricsPort}}})},
      {"volumeMounts", std::move(mounts)},
      {"startupProbe", Probe("/livez", 2, 60)},
      {"livenessProbe", Probe("/livez", 10, 3)},
      {"readinessProbe", Probe("/readyz", 5, 3)},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", 65532},
        {"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}},
  };
}

// The member pod's spec: our container and volumes, the user's podTemplate
// spec merged over them.
Json PodSpec(const EtcdCluster& cluster, const std::string& operator_image) {
  const TlsMode tls = TlsOf(cluster);
  Json mounts = Json::array({{{"name", kDataVolume}, {"mountPath", kDataDir}}});
  Json volumes = Json::array();
  const api::EtcdTlsSpec sec = api::EffectiveTls(cluster);
  auto add_secret = [&](const char* volume, const std::string& secret, const char* dir) {
    if (secret.empty()) return;
    volumes.push_back(SecretVolume(volume, secret));
    mounts.push_back(
        {{"name", volume}, {"mountPath", std::string(kPki) + "/" + dir}, {"readOnly", true}});
  };
  if (tls.peer) {
    add_secret("peer-tls", sec.peer_secret, "peer");
    add_secret("peer-ca", sec.peer_trusted_ca_secret, "peer-ca");
  }
  if (tls.server) add_secret("server-tls", sec.server_secret, "server");
  if (tls.client) add_secret("client-ca", sec.client_trusted_ca_secret, "client-ca");

  Json pod_spec = {{"containers", Json::array({EtcdContainer(cluster, std::move(mounts))})},
                   {"securityContext",
                    {{"runAsNonRoot", true},
                     {"fsGroup", 65532},
                     {"seccompProfile", {{"type", "RuntimeDefault"}}}}}};
  const std::optional<Json>& empty_dir = cluster.spec.storage.empty_dir;
  if (empty_dir) volumes.push_back({{"name", kDataVolume}, {"emptyDir", *empty_dir}});
  RestorePodParts restore = BuildRestorePodParts(cluster, operator_image);
  if (!restore.init_containers.empty()) pod_spec["initContainers"] = restore.init_containers;
  for (Json& v : restore.volumes) volumes.push_back(std::move(v));
  if (!volumes.empty()) pod_spec["volumes"] = volumes;
  return MergePodSpec(std::move(pod_spec), cluster.spec.pod_template.spec);
}

// The data PVC template, as parsed: api::ParseEtcdCluster applied the defaults.
Json ClaimTemplate(const EtcdCluster& cluster) {
  const api::ObjectTemplate& vct = cluster.spec.storage.volume_claim_template;
  Json claim_meta = {{"name", kDataVolume}};
  if (!vct.metadata.labels.empty()) claim_meta["labels"] = vct.metadata.labels;
  if (!vct.metadata.annotations.empty()) claim_meta["annotations"] = vct.metadata.annotations;
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", claim_meta},
          {"spec", vct.spec}};
}

}  // namespace

Json BuildStatefulSet(const EtcdCluster& cluster, int replicas, const std::string& operator_image) {
  const Names n = NamesOf(cluster);
  const api::TemplateMeta& pod_meta = cluster.spec.pod_template.metadata;
  Json pod_labels = pod_meta.labels;
  for (const auto& [k, v] : SelectorLabels(cluster)) pod_labels[k] = v;
  Json pod_template_meta = {{"labels", pod_labels}};
  if (!pod_meta.annotations.empty()) pod_template_meta["annotations"] = pod_meta.annotations;

  Json sts_spec = {
      {"replicas", replicas},
      {"serviceName", n.headless_service},
      // Members join one at a time under the planner's control;
      // ordered start would block behind a learner that is not ready.
      {"podManagementPolicy", "Parallel"},
      // The operator rolls the members one at a time, leader last (roll.h).
      {"updateStrategy", {{"type", "OnDelete"}}},
      {"selector", {{"matchLabels", Selector(cluster)}}},
      {"template", {{"metadata", pod_template_meta}, {"spec", PodSpec(cluster, operator_image)}}}};
  if (!cluster.spec.storage.empty_dir) {
    sts_spec["volumeClaimTemplates"] = Json::array({ClaimTemplate(cluster)});
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", Metadata(cluster, n.statefulset)},
          {"spec", sts_spec}};
}

std::optional<Json> BuildPodDisruptionBudget(const EtcdCluster& cluster, int voting_members) {
  const std::optional<api::EtcdPdbTemplate>& tmpl = cluster.spec.pdb_template;
  if (!tmpl) return std::nullopt;
  Json spec = {{"selector", {{"matchLabels", Selector(cluster)}}}};
  if (tmpl->min_available) spec["minAvailable"] = *tmpl->min_available;
  if (tmpl->max_unavailable) spec["maxUnavailable"] = *tmpl->max_unavailable;
  if (!tmpl->min_available && !tmpl->max_unavailable) {
    spec["minAvailable"] = voting_members / 2 + 1;
  }
  return Json{{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", Metadata(cluster, NamesOf(cluster).pdb, tmpl->metadata)},
              {"spec", spec}};
}

}  // namespace quorum::etcdcluster
