#include "src/controllers/etcdcluster/certificates.h"

#include <algorithm>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/runtime/certs.h"

namespace quorum::etcdcluster {
namespace {

using runtime::ObjectPtr;

constexpr char kClusterDomain[] = "cluster.local";

// A cached Secret of ours, nullptr when absent; FailedPrecondition when one
// of that name belongs to something else (never used, never overwritten).
absl::StatusOr<ObjectPtr> Owned(const runtime::Cache& cache, const EtcdCluster& cluster,
                                const std::string& name) {
  ObjectPtr s = cache.Get(kSecrets, cluster.metadata.ns, name);
  if (s == nullptr) return s;
  const Json refs = s->value("metadata", Json::object()).value("ownerReferences", Json::array());
  for (const Json& r : refs) {
    if (r.is_object() && r.value("controller", false) &&
        r.value("uid", "") == cluster.metadata.uid) {
      return s;
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("Secret ", name,
                   " exists and does not belong to this EtcdCluster; Quorum keeps the managed "
                   "certificates there (spec.security.tls.managed): rename or delete that Secret"));
}

class Issuer {
 public:
  Issuer(kube::Client& client, const runtime::Cache& cache, runtime::EventRecorder& recorder,
         const Json& stored, const EtcdCluster& cluster, absl::Time now,
         controllers::CertRenewalMemo& memo)
      : client_(client),
        cache_(cache),
        recorder_(recorder),
        stored_(stored),
        cluster_(cluster),
        now_(now),
        memo_(memo) {}

  // The CA in Secret `name`, generated once. A CA whose Secret is gone
  // while certificates it issued (`issued`) are in use is not replaced:
  // members switched to a new CA one kubelet sync at a time would stop
  // trusting each other.
  absl::StatusOr<runtime::CertKeyPair> Ca(const std::string& name, const char* what,
                                          const std::vector<std::string>& issued) {
    absl::StatusOr<ObjectPtr> have = Owned(cache_, cluster_, name);
    if (!have.ok()) return have.status();
    if (*have != nullptr) {
      return runtime::CertKeyPair{controllers::SecretValue(**have, "ca.crt"),
                                  controllers::SecretValue(**have, "ca.key")};
    }
    for (const std::string& leaf : issued) {
      if (cache_.Get(kSecrets, cluster_.metadata.ns, leaf) == nullptr) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "Secret ", name, " (the ", what, " CA) is gone while Secret ", leaf,
          " holds a certificate it issued; Quorum does not make a new CA under running members "
          "(they would stop trusting each other one by one). Restore ",
          name, " from a backup, or move to a new EtcdCluster (spec.bootstrap.restore)"));
    }
    absl::StatusOr<runtime::CertKeyPair> ca = runtime::GenerateCA(
        absl::StrCat("quorum-etcd ", what, " ", cluster_.metadata.name).substr(0, 64),
        kEtcdCaValidity, now_);
    if (!ca.ok()) return ca.status();
    absl::StatusOr<Json> made = client_.Create(
        kSecrets, cluster_.metadata.ns, BuildCaSecret(cluster_, name, ca->cert_pem, ca->key_pem));
    if (absl::IsAlreadyExists(made.status())) {  // the cache lags: use the stored one
      made = client_.Get(kSecrets, cluster_.metadata.ns, name);
      if (!made.ok()) return made.status();
      return runtime::CertKeyPair{controllers::SecretValue(*made, "ca.crt"),
                                  controllers::SecretValue(*made, "ca.key")};
    }
    if (!made.ok()) return made.status();
    out_.wrote = true;
    recorder_.Normal(stored_, "CertificateIssued",
                     absl::StrCat("created the ", what, " CA in Secret ", name));
    return *ca;
  }

  // The certificate in Secret `name` from `ca`: issued when missing,
  // rewritten when due. `dns` empty: a client certificate.
  absl::Status Leaf(const std::string& name, const runtime::CertKeyPair& ca,
                    const std::vector<std::string>& dns, const std::vector<std::string>& ips) {
    absl::StatusOr<ObjectPtr> have = Owned(cache_, cluster_, name);
    if (!have.ok()) return have.status();
    std::string why = "no certificate yet";
    if (*have != nullptr) {
      std::optional<absl::Time> due;
      why = controllers::SecretValue(**have, "ca.crt") != ca.cert_pem
                ? "the CA changed"
                : memo_.RenewalReason(absl::StrCat(cluster_.metadata.ns, "/", name),
                                      controllers::SecretValue(**have, "tls.crt"),
                                      controllers::SecretValue(**have, "tls.key"), ca.cert_pem, dns,
                                      now_, due, /*want_client_auth=*/true);
      if (why.empty()) {
        if (due && (!out_.renew_at || *due < *out_.renew_at)) out_.renew_at = due;
        return absl::OkStatus();
      }
    }
    absl::StatusOr<runtime::CertKeyPair> cert =
        dns.empty()
            ? runtime::GenerateClientCert(ca, kOperatorClientOrganization, kEtcdCertValidity, now_)
            : runtime::GenerateMemberCert(ca, "quorum-etcd", dns, ips, kEtcdCertValidity, now_);
    if (!cert.ok()) return cert.status();
    Json secret = BuildTlsSecret(cluster_, name, ca.cert_pem, cert->cert_pem, cert->key_pem);
    absl::StatusOr<Json> wrote;
    if (*have == nullptr) {
      wrote = client_.Create(kSecrets, cluster_.metadata.ns, secret);
      if (absl::IsAlreadyExists(wrote.status())) return absl::OkStatus();  // next time
    } else {
      // In place: the kubelet swaps the files under the running members.
      secret["metadata"]["resourceVersion"] =
          json_access::Str(json_access::At(**have, {"metadata", "resourceVersion"}));
      wrote = client_.Update(kSecrets, cluster_.metadata.ns, secret);
    }
    if (!wrote.ok()) return wrote.status();
    out_.wrote = true;
    recorder_.Normal(stored_, *have == nullptr ? "CertificateIssued" : "CertificateRenewed",
                     absl::StrCat("Secret ", name, ": ", why));
    return absl::OkStatus();
  }

  CertificatesOutcome outcome() const { return out_; }

 private:
  kube::Client& client_;
  const runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  const Json& stored_;
  const EtcdCluster& cluster_;
  absl::Time now_;
  controllers::CertRenewalMemo& memo_;
  CertificatesOutcome out_;
};

}  // namespace

std::vector<std::string> PeerCertDnsNames(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  const std::string pods = absl::StrCat("*.", n.headless_service, ".", n.ns, ".svc");
  return {pods, absl::StrCat(pods, ".", kClusterDomain)};
}

std::vector<std::string> ServerCertDnsNames(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  std::vector<std::string> peer = PeerCertDnsNames(cluster);
  std::set<std::string> names(peer.begin(), peer.end());
  names.insert("localhost");
  const std::string& svc = n.client_service;
  for (const std::string& name :
       {svc, absl::StrCat(svc, ".", n.ns), absl::StrCat(svc, ".", n.ns, ".svc"),
        absl::StrCat(svc, ".", n.ns, ".svc.", kClusterDomain)}) {
    names.insert(name);
  }
  return {names.begin(), names.end()};
}

Json BuildCaSecret(const EtcdCluster& cluster, const std::string& name, const std::string& ca_pem,
                   const std::string& key_pem) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", Metadata(cluster, name)},
      {"type", "Opaque"},
      {"data", {{"ca.crt", absl::Base64Escape(ca_pem)}, {"ca.key", absl::Base64Escape(key_pem)}}}};
}

Json BuildTlsSecret(const EtcdCluster& cluster, const std::string& name, const std::string& ca_pem,
                    const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, name)},
          {"type", "kubernetes.io/tls"},
          {"data",
           {{"ca.crt", absl::Base64Escape(ca_pem)},
            {"tls.crt", absl::Base64Escape(cert_pem)},
            {"tls.key", absl::Base64Escape(key_pem)}}}};
}

absl::StatusOr<CertificatesOutcome> EnsureCertificates(kube::Client& client,
                                                       const runtime::Cache& cache,
                                                       runtime::EventRecorder& recorder,
                                                       const Json& stored,
                                                       const EtcdCluster& cluster, absl::Time now,
                                                       controllers::CertRenewalMemo& memo) {
  if (!cluster.spec.security.tls.managed) return CertificatesOutcome{};
  const api::ManagedTlsNames names = api::ManagedTlsNamesOf(cluster.metadata.name);
  Issuer issuer(client, cache, recorder, stored, cluster, now, memo);
  absl::StatusOr<runtime::CertKeyPair> peer_ca = issuer.Ca(names.peer_ca, "peer", {names.peer});
  if (!peer_ca.ok()) return peer_ca.status();
  absl::StatusOr<runtime::CertKeyPair> server_ca =
      issuer.Ca(names.server_ca, "client port", {names.server, names.client});
  if (!server_ca.ok()) return server_ca.status();
  if (absl::Status s = issuer.Leaf(names.peer, *peer_ca, PeerCertDnsNames(cluster), {}); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          issuer.Leaf(names.server, *server_ca, ServerCertDnsNames(cluster), {"127.0.0.1"});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = issuer.Leaf(names.client, *server_ca, {}, {}); !s.ok()) return s;
  return issuer.outcome();
}

}  // namespace quorum::etcdcluster
