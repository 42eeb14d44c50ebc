#include "src/controllers/postgrescluster/dcs.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdcluster_types.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/patroni/dcs_cleanup.h"
#include "src/patroni/role.h"

namespace quorum::postgrescluster {
namespace {

// "" when `secret` (named by `field`) exists with every key; else the problem.
bool CheckSecret(const Lookup& lookup, const std::string& name, const std::string& field,
                 const std::vector<std::string>& keys, DcsResolution& out) {
  std::shared_ptr<const Json> secret = lookup("Secret", name);
  if (secret == nullptr) {
    out.reason = "SecretNotFound";
    out.message = "Secret " + name + " (" + field + ") does not exist";
    return false;
  }
  std::vector<std::string> missing;
  const Json& data = At(*secret, {"data"});
  for (const std::string& key : keys) {
    std::string value;
    if (!data.is_object() || !data.contains(key) || !data[key].is_string() ||
        !absl::Base64Unescape(data[key].get<std::string>(), &value) || value.empty()) {
      missing.push_back(key);
    }
  }
  if (!missing.empty()) {
    out.reason = "SecretIncomplete";
    out.message = "Secret " + name + " (" + field + ") lacks " + absl::StrJoin(missing, ", ");
    return false;
  }
  return true;
}

// A Secret's key, decoded; "" when absent.
std::string SecretKey(const std::shared_ptr<const Json>& secret, const std::string& key) {
  return secret == nullptr ? "" : controllers::SecretValue(*secret, key);
}

// Whether the client CA Secret holds a CA's key: tls.key beside tls.crt (a
// cert-manager CA Certificate's Secret), or ca.key beside ca.crt.
bool HoldsCaKey(const Lookup& lookup, const std::string& name) {
  const std::shared_ptr<const Json> secret = lookup("Secret", name);
  return (!SecretKey(secret, "tls.key").empty() && !SecretKey(secret, "tls.crt").empty()) ||
         (!SecretKey(secret, "ca.key").empty() && !SecretKey(secret, "ca.crt").empty());
}

// host:port of an http(s) URL, and its scheme.
std::pair<std::string, std::string> HostAndScheme(const std::string& url) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return {url, "http"};
  std::string rest = url.substr(sep + 3);
  rest = rest.substr(0, rest.find('/'));
  return {rest, url.substr(0, sep)};
}

patroni::EtcdDcs EtcdFrom(const std::vector<std::string>& urls, bool with_tls_files, bool ca_only,
                          bool auth) {
  patroni::EtcdDcs etcd;
  for (const std::string& url : urls) {
    auto [host, scheme] = HostAndScheme(url);
    etcd.hosts.push_back(host);
    etcd.protocol = scheme;
  }
  if (with_tls_files) {
    etcd.cacert = std::string(kEtcdTlsDir) + "/ca.crt";
    if (!ca_only) {
      etcd.cert = std::string(kEtcdTlsDir) + "/tls.crt";
      etcd.key = std::string(kEtcdTlsDir) + "/tls.key";
    }
  }
  etcd.auth = auth;
  return etcd;
}

// Patroni needs etcd to answer, not every member to be up (api::HasQuorum).
bool ServesTheDcs(const api::EtcdCluster& etcd_cluster) {
  return api::HasQuorum(etcd_cluster.status);
}

}  // namespace

std::vector<std::string> ReferencedSecrets(const PostgresCluster& cluster) {
  std::vector<std::string> out;
  const api::PostgresEtcdDcs& etcd = cluster.spec.patroni.dcs.etcd;
  for (const std::string* name : {&etcd.tls_secret, &etcd.auth_secret,
                                  &cluster.spec.tls.custom_secret, &cluster.spec.tls.ca_secret}) {
    if (!name->empty()) out.push_back(*name);
  }
  return out;
}

std::string ReferencedEtcdCluster(const PostgresCluster& cluster) {
  return cluster.spec.patroni.dcs.etcd.cluster_ref;
}

namespace {

// Patroni on the Kubernetes API: always usable.
DcsResolution ResolveKubernetesDcs(const PostgresCluster& cluster) {
  DcsResolution out;
  const Names n = NamesOf(cluster);
  patroni::KubernetesDcs k8s;
  k8s.namespace_ = n.ns;
  for (const auto& [key, value] : CommonLabels(cluster)) k8s.labels[key] = value;
  k8s.scope_label = "postgres.quorum.dev/cluster";
  k8s.role_label = std::string(patroni::kRoleLabel);
  k8s.use_endpoints = UsesEndpoints(cluster);
  if (k8s.use_endpoints) {  // the leader's address goes into the primary Service's Endpoints
    k8s.port_name = kPostgresPortName;
    k8s.port = kPostgresPort;
  }
  out.dcs = k8s;
  out.ready = true;
  out.reason = "Resolved";
  out.message =
      absl::StrCat("Patroni keeps its leader lock in the Kubernetes API (",
                   k8s.use_endpoints ? "Endpoints " : "ConfigMap ", LeaderObjectName(cluster), ")");
  return out;
}

// With auth on (status.authSecretName): the pods' own etcd user and, when
// etcd wants client certificates, their own certificate; `out` holds the
// operator's Secrets. False (with the reason in `out`) when the pods cannot
// get a certificate of their own.
bool ResolvePodAccess(const PostgresCluster& cluster, const api::EtcdCluster& etcd_cluster,
                      const Lookup& lookup, DcsResolution& out) {
  const std::string& ref = etcd_cluster.metadata.name;
  const std::string& client_secret = etcd_cluster.status.client_secret_name;
  const std::string server_ca = api::EffectiveTls(etcd_cluster).server_trusted_ca_secret;
  PodEtcdAccess access{
      .user = EtcdUserName(cluster),
      .key_prefix = patroni::ClusterKeyPrefix(KeyNamespace(cluster), NamesOf(cluster).cluster),
      .password_secret = EtcdUserSecretName(cluster)};
  out.auth_secret = access.password_secret;
  out.pod_access = access;       // known even when unusable: the finalizer removes the user
  if (!client_secret.empty()) {  // etcd --client-cert-auth
    const std::string client_ca = api::ClientCaKeySecret(etcd_cluster);
    access.cert_secret = EtcdClientSecretName(cluster);
    access.client_ca_secret = client_ca;
    access.server_ca_secret = server_ca.empty() ? client_secret : server_ca;
    out.tls_secret = access.cert_secret;
    out.pod_access = access;
    // Issued already (an owned Secret, cached): the user's CA Secrets, read
    // through the API server, are not needed on every reconcile.
    if (lookup("Secret", access.cert_secret) != nullptr) return true;
    if (client_ca.empty() || !HoldsCaKey(lookup, client_ca)) {
      out.reason = "EtcdClientCertUnavailable";
      out.message =
          "EtcdCluster " + ref +
          " wants client certificates and has auth on: the database pods get a certificate of "
          "their own only when Secret " +
          (client_ca.empty() ? std::string("<spec.security.tls.clientTrustedCASecret>")
                             : client_ca) +
          " (the EtcdCluster's spec.security.tls.clientTrustedCASecret) holds the CA's key "
          "(tls.key beside the CA certificate in tls.crt, or ca.key beside ca.crt); Quorum "
          "never hands them its own client certificate or the root credentials";
      return false;
    }
    if (!server_ca.empty() &&
        !CheckSecret(lookup, server_ca, "EtcdCluster " + ref + " serverTrustedCASecret", {"ca.crt"},
                     out)) {
      return false;
    }
  }
  out.pod_access = std::move(access);
  return true;
}

// spec.patroni.dcs.etcd.clusterRef: the EtcdCluster `ref`, Ready, with the
// Secrets its status names.
DcsResolution ResolveEtcdClusterRef(const PostgresCluster& cluster, const std::string& ref,
                                    const Lookup& lookup) {
  DcsResolution out;
  out.security = api::DcsSecurityOf(cluster.spec, nullptr);
  std::shared_ptr<const Json> stored = lookup("EtcdCluster", ref);
  if (stored == nullptr) {
    out.reason = "EtcdClusterNotFound";
    out.message = "EtcdCluster " + ref + " (spec.patroni.dcs.etcd.clusterRef) does not exist";
    return out;
  }
  absl::StatusOr<api::EtcdCluster> etcd_cluster = api::DecodeEtcdCluster(*stored);
  if (!etcd_cluster.ok()) {
    out.reason = "EtcdClusterNotReady";
    out.message = "EtcdCluster " + ref + " (spec.patroni.dcs.etcd.clusterRef) cannot be read: " +
                  std::string(etcd_cluster.status().message());
    return out;
  }
  out.security = api::DcsSecurityOf(cluster.spec, &*etcd_cluster);
  if (!ServesTheDcs(*etcd_cluster)) {
    out.reason = "EtcdClusterNotReady";
    out.message = "waiting for EtcdCluster " + ref +
                  " (spec.patroni.dcs.etcd.clusterRef) to be Ready or to have a quorum";
    return out;
  }
  const std::string& endpoint = etcd_cluster->status.client_endpoint;
  const std::string& client_secret = etcd_cluster->status.client_secret_name;
  const std::string& auth_secret = etcd_cluster->status.auth_secret_name;
  const std::string server_ca = api::EffectiveTls(*etcd_cluster).server_trusted_ca_secret;
  const std::string field = "EtcdCluster " + ref + " status";
  if (endpoint.empty()) {
    out.reason = "EtcdClusterNotReady";
    out.message = "EtcdCluster " + ref + " reports no clientEndpoint yet";
    return out;
  }
  if (etcd_cluster->spec.security.enable_auth && auth_secret.empty()) {
    // Not before etcd enforces it: the pods would start without their user.
    out.reason = "EtcdClusterNotReady";
    out.message =
        "waiting for EtcdCluster " + ref + " to turn on the authentication its spec asks for";
    return out;
  }
  const bool https = absl::StartsWith(endpoint, "https://");
  if (!client_secret.empty()) {
    if (!CheckSecret(lookup, client_secret, field + ".clientSecretName",
                     {"ca.crt", "tls.crt", "tls.key"}, out)) {
      return out;
    }
    out.tls_secret = client_secret;
  } else if (https && !server_ca.empty()) {
    if (!CheckSecret(lookup, server_ca, "EtcdCluster " + ref + " serverTrustedCASecret", {"ca.crt"},
                     out)) {
      return out;
    }
    out.tls_secret = server_ca;
  }
  if (!auth_secret.empty()) {
    if (!CheckSecret(lookup, auth_secret, field + ".authSecretName", {"username", "password"},
                     out)) {
      return out;
    }
    out.auth_secret = auth_secret;
  }
  out.operator_tls_secret = out.tls_secret;
  out.operator_auth_secret = out.auth_secret;
  out.etcd_urls = {endpoint};
  out.dcs = EtcdFrom(out.etcd_urls, !out.tls_secret.empty(), client_secret.empty(),
                     !out.auth_secret.empty());
  out.operator_access = true;
  if (!auth_secret.empty() && !ResolvePodAccess(cluster, *etcd_cluster, lookup, out)) return out;
  const bool pods_have_cert =
      out.pod_access ? !out.pod_access->cert_secret.empty() : !client_secret.empty();
  out.dcs =
      EtcdFrom(out.etcd_urls, !out.tls_secret.empty(), !pods_have_cert, !out.auth_secret.empty());
  out.ready = true;
  out.reason = "Resolved";
  out.message = "Patroni uses EtcdCluster " + ref + " at " + endpoint;
  return out;
}

// spec.patroni.dcs.etcd.endpoints: etcd the user runs, with the Secrets the
// spec names.
DcsResolution ResolveEtcdEndpoints(const api::PostgresEtcdDcs& spec, const Lookup& lookup) {
  DcsResolution out;
  const std::string& tls = spec.tls_secret;
  const std::string& auth = spec.auth_secret;
  if (!tls.empty() && !CheckSecret(lookup, tls, "spec.patroni.dcs.etcd.tlsSecret",
                                   {"ca.crt", "tls.crt", "tls.key"}, out)) {
    return out;
  }
  if (!auth.empty() && !CheckSecret(lookup, auth, "spec.patroni.dcs.etcd.authSecret",
                                    {"username", "password"}, out)) {
    return out;
  }
  out.etcd_urls = spec.endpoints;
  out.tls_secret = out.operator_tls_secret = tls;
  out.auth_secret = out.operator_auth_secret = auth;
  out.dcs = EtcdFrom(out.etcd_urls, !tls.empty(), /*ca_only=*/false, !auth.empty());
  out.operator_access = true;
  out.ready = true;
  out.reason = "Resolved";
  out.message = "Patroni uses etcd at " + absl::StrJoin(out.etcd_urls, ",");
  return out;
}

}  // namespace

DcsResolution ResolveDcs(const PostgresCluster& cluster, const Lookup& lookup) {
  if (!UsesEtcd(cluster)) {
    DcsResolution out = ResolveKubernetesDcs(cluster);
    out.security = api::DcsSecurityOf(cluster.spec, nullptr);
    return out;
  }
  const std::string ref = ReferencedEtcdCluster(cluster);
  if (ref.empty()) {
    DcsResolution out = ResolveEtcdEndpoints(cluster.spec.patroni.dcs.etcd, lookup);
    out.security = api::DcsSecurityOf(cluster.spec, nullptr);
    return out;
  }
  return ResolveEtcdClusterRef(cluster, ref, lookup);  // sets the security itself
}

}  // namespace quorum::postgrescluster
