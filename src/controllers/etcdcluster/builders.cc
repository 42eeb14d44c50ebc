#include "src/controllers/etcdcluster/builders.h"

#include <map>

#include "src/controllers/etcdcluster/json_path.h"
#include "src/controllers/etcdcluster/pod_merge.h"

namespace quorum::etcdcluster {
namespace {

constexpr char kPki[] = "/etc/etcd/pki";

Json StringMap(const Json& j) {
  Json out = Json::object();
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_string()) out[it.key()] = *it;
  }
  return out;
}

// metadata for an owned object: user labels/annotations first, ours win.
Json Metadata(const Json& cluster, const std::string& name, const Json& user_meta = Json()) {
  Json labels = StringMap(At(user_meta, {"labels"}));
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  Json meta = {{"name", name},
               {"namespace", NamesOf(cluster).ns},
               {"labels", labels},
               {"ownerReferences", Json::array({OwnerReference(cluster)})}};
  Json annotations = StringMap(At(user_meta, {"annotations"}));
  if (!annotations.empty()) meta["annotations"] = annotations;
  return meta;
}

Json Selector(const Json& cluster) {
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

std::vector<std::string> BuildEtcdArgs(const Json& cluster) {
  const Names n = NamesOf(cluster);
  const TlsMode tls = TlsOf(cluster);
  const std::string peer = tls.peer ? "https" : "http";
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
  const Json& options = At(cluster, {"spec", "options"});
  if (options.is_object()) {
    std::map<std::string, std::string> sorted;
    for (auto it = options.begin(); it != options.end(); ++it) sorted[it.key()] = Str(*it);
    for (const auto& [k, v] : sorted) args.push_back(v.empty() ? "--" + k : "--" + k + "=" + v);
  }
  return args;
}

Json BuildHeadlessService(const Json& cluster) {
  const Names n = NamesOf(cluster);
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(cluster, n.headless_service,
                                At(cluster, {"spec", "headlessServiceTemplate", "metadata"}))},
          {"spec",
           {{"clusterIP", "None"},
            // Peers must resolve each other before they are ready, or the
            // first quorum never forms.
            {"publishNotReadyAddresses", true},
            {"selector", Selector(cluster)},
            {"ports", Ports()}}}};
}

Json BuildClientService(const Json& cluster) {
  const Names n = NamesOf(cluster);
  const Json& tmpl = At(cluster, {"spec", "serviceTemplate"});
  Json spec = {{"selector", Selector(cluster)},
               {"ports", Json::array({{{"name", "client"},
                                       {"port", kClientPort},
                                       {"targetPort", kClientPort},
                                       {"protocol", "TCP"}}})}};
  const Json& user = At(tmpl, {"spec"});
  if (user.is_object()) {
    for (auto it = user.begin(); it != user.end(); ++it) {
      if (it.key() != "selector") spec[it.key()] = *it;  // the selector stays ours
    }
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(cluster, n.client_service, At(tmpl, {"metadata"}))},
          {"spec", spec}};
}

Json BuildStateConfigMap(const Json& cluster, const BootstrapState& state) {
  const Names n = NamesOf(cluster);
  std::string initial;
  for (const auto& [name, url] : state.members) {
    initial += (initial.empty() ? "" : ",") + name + "=" + url;
  }
  const std::string uid = Str(At(cluster, {"metadata", "uid"}));
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", Metadata(cluster, n.state_configmap)},
          {"data",
           {{"ETCD_INITIAL_CLUSTER", initial},
            {"ETCD_INITIAL_CLUSTER_STATE", state.state},
            {"ETCD_INITIAL_CLUSTER_TOKEN", n.cluster + "-" + uid.substr(0, 8)}}}};
}

Json BuildStatefulSet(const Json& cluster, int replicas) {
  const Names n = NamesOf(cluster);
  const TlsMode tls = TlsOf(cluster);
  const Json& spec = At(cluster, {"spec"});
  const Json& pod_meta = At(spec, {"podTemplate", "metadata"});

  Json mounts = Json::array({{{"name", kDataVolume}, {"mountPath", kDataDir}}});
  Json volumes = Json::array();
  const Json& sec = At(spec, {"security", "tls"});
  auto add_secret = [&](const char* volume, const char* secret_field, const char* dir) {
    const std::string secret = Str(At(sec, {secret_field}));
    if (secret.empty()) return;
    volumes.push_back(SecretVolume(volume, secret));
    mounts.push_back(
        {{"name", volume}, {"mountPath", std::string(kPki) + "/" + dir}, {"readOnly", true}});
  };
  if (tls.peer) {
    add_secret("peer-tls", "peerSecret", "peer");
    add_secret("peer-ca", "peerTrustedCASecret", "peer-ca");
  }
  if (tls.server) add_secret("server-tls", "serverSecret", "server");
  if (tls.client) add_secret("client-ca", "clientTrustedCASecret", "client-ca");

  Json container = {
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
      {"envFrom", Json::array({{{"configMapRef", {{"name", n.state_configmap}}}}})},
      {"ports", Json::array({{{"name", "client"}, {"containerPort", kClientPort}},
                             {{"name", "peer"}, {"containerPort", kPeerPort}},
                             {{"name", "metrics"}, {"containerPort", kMetricsPort}}})},
      {"volumeMounts", mounts},
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
  Json pod_spec = {{"containers", Json::array({container})},
                   {"securityContext",
                    {{"runAsNonRoot", true},
                     {"fsGroup", 65532},
                     {"seccompProfile", {{"type", "RuntimeDefault"}}}}}};
  const Json& storage = At(spec, {"storage"});
  const Json& empty_dir = At(storage, {"emptyDir"});
  if (empty_dir.is_object()) volumes.push_back({{"name", kDataVolume}, {"emptyDir", empty_dir}});
  if (!volumes.empty()) pod_spec["volumes"] = volumes;
  pod_spec = MergePodSpec(std::move(pod_spec), At(spec, {"podTemplate", "spec"}));

  Json pod_labels = StringMap(At(pod_meta, {"labels"}));
  for (const auto& [k, v] : SelectorLabels(cluster)) pod_labels[k] = v;
  Json pod_template_meta = {{"labels", pod_labels}};
  Json pod_annotations = StringMap(At(pod_meta, {"annotations"}));
  if (!pod_annotations.empty()) pod_template_meta["annotations"] = pod_annotations;

  Json sts_spec = {{"replicas", replicas},
                   {"serviceName", n.headless_service},
                   // Members join one at a time under the planner's control;
                   // ordered start would block behind a learner that is not ready.
                   {"podManagementPolicy", "Parallel"},
                   {"selector", {{"matchLabels", Selector(cluster)}}},
                   {"template", {{"metadata", pod_template_meta}, {"spec", pod_spec}}}};
  if (!empty_dir.is_object()) {
    const Json& vct = At(storage, {"volumeClaimTemplate"});
    Json claim_spec = At(vct, {"spec"});
    if (!claim_spec.is_object()) {
      claim_spec = {{"accessModes", Json::array({"ReadWriteOnce"})},
                    {"resources", {{"requests", {{"storage", "4Gi"}}}}}};
    }
    Json claim_meta = {{"name", kDataVolume}};
    const Json labels = StringMap(At(vct, {"metadata", "labels"}));
    const Json annotations = StringMap(At(vct, {"metadata", "annotations"}));
    if (!labels.empty()) claim_meta["labels"] = labels;
    if (!annotations.empty()) claim_meta["annotations"] = annotations;
    sts_spec["volumeClaimTemplates"] = Json::array({{{"apiVersion", "v1"},
                                                     {"kind", "PersistentVolumeClaim"},
                                                     {"metadata", claim_meta},
                                                     {"spec", claim_spec}}});
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", Metadata(cluster, n.statefulset)},
          {"spec", sts_spec}};
}

std::optional<Json> BuildPodDisruptionBudget(const Json& cluster, int voting_members) {
  const Json& tmpl = At(cluster, {"spec", "podDisruptionBudgetTemplate"});
  if (!tmpl.is_object()) return std::nullopt;
  Json spec = {{"selector", {{"matchLabels", Selector(cluster)}}}};
  const Json& user = At(tmpl, {"spec"});
  const bool has_min = user.is_object() && user.contains("minAvailable");
  const bool has_max = user.is_object() && user.contains("maxUnavailable");
  if (has_min) spec["minAvailable"] = user["minAvailable"];
  if (has_max) spec["maxUnavailable"] = user["maxUnavailable"];
  if (!has_min && !has_max) spec["minAvailable"] = voting_members / 2 + 1;
  return Json{{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", Metadata(cluster, NamesOf(cluster).pdb, At(tmpl, {"metadata"}))},
              {"spec", spec}};
}

}  // namespace quorum::etcdcluster
