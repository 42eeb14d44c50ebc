#include "src/controllers/postgresobjects/role_cert.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/etcd_user.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgresobjects/role_reconciler.h"
#include "src/kube/resources.h"

namespace quorum::postgresobjects {
namespace {

using Json = nlohmann::json;
using json_access::At;
using json_access::Str;

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// Owned by the PostgresRole `stored` (garbage-collected with it).
bool OwnedBy(const Json& secret, const Json& stored) {
  const std::string uid = Str(At(stored, {"metadata", "uid"}));
  for (const Json& ref : At(secret, {"metadata", "ownerReferences"})) {
    if (Str(At(ref, {"uid"})) == uid) return true;
  }
  return false;
}

absl::Status DeleteCertificate(kube::Client& client, const runtime::Cache& cache,
                               const Json& stored, const std::string& ns, const std::string& name) {
  runtime::ObjectPtr secret = cache.Get(kube::kSecrets, ns, name);
  if (secret == nullptr || !OwnedBy(*secret, stored)) return absl::OkStatus();
  absl::Status s = client.Delete(kube::kSecrets, ns, name);
  return absl::IsNotFound(s) ? absl::OkStatus() : s;
}

}  // namespace

std::string RoleCertSecretName(const std::string& cluster, const std::string& role) {
  return RoleSecretName(cluster, role) + "-cert";
}

RoleCertVerdict JudgeRoleCertificate(const std::string& cert_pem, const std::string& stored_ca_pem,
                                     const std::string& ca_pem, absl::Time now) {
  RoleCertVerdict out;
  if (cert_pem.empty()) {
    out.reissue_because = "no certificate yet";
    return out;
  }
  absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(cert_pem);
  if (!info.ok()) {
    out.reissue_because = "the stored certificate cannot be read";
    return out;
  }
  out.not_after = info->not_after;
  out.renew_at = info->not_after - (info->not_after - info->not_before) / 3;
  if (stored_ca_pem != ca_pem) {
    out.reissue_because = "the cluster's CA changed";
  } else if (absl::Status v = runtime::VerifyCertificate(cert_pem, ca_pem, now); !v.ok()) {
    out.reissue_because =
        absl::StrCat("it does not verify against the cluster's CA (", v.message(), ")");
  } else if (now >= out.renew_at) {
    out.reissue_because = absl::StrCat("it expires at ", Rfc3339(out.not_after));
  }
  return out;
}

absl::StatusOr<runtime::CertKeyPair> ReadIssuingCa(const runtime::Cache& cache,
                                                   const api::PostgresCluster& cluster) {
  const std::string& ns = cluster.metadata.ns;
  if (!cluster.spec.tls.custom_secret.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "spec.clientCertificate: PostgresCluster ", cluster.metadata.name,
        " serves spec.tls.customSecret, so Quorum holds no CA key to issue a certificate from"));
  }
  const std::string& user_ca = cluster.spec.tls.ca_secret;
  const std::string name = user_ca.empty() ? postgrescluster::NamesOf(cluster).ca_secret : user_ca;
  runtime::ObjectPtr secret = cache.Get(kube::kSecrets, ns, name);
  if (secret == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("the cluster's CA (Secret ", name, ") is not there yet"));
  }
  const postgrescluster::SigningCa ca = postgrescluster::SigningCaFrom(*secret);
  if (ca.key_pem.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("spec.clientCertificate: Secret ", name, " holds no CA key"));
  }
  return runtime::CertKeyPair{ca.cert_pem, ca.key_pem};
}

absl::StatusOr<std::optional<absl::Time>> EnsureRoleCertificate(
    kube::Client& client, const runtime::Cache& cache, runtime::EventRecorder& recorder,
    const Json& stored, const api::PostgresRole& role, const api::PostgresCluster& cluster,
    absl::Time now, api::PostgresObjectStatus& status) {
  const std::string& ns = role.metadata.ns;
  const std::string name = RoleCertSecretName(role.spec.cluster, role.spec.name);
  if (!role.spec.client_certificate) {
    status.certificate_secret.clear();
    status.certificate_not_after.clear();
    if (absl::Status s = DeleteCertificate(client, cache, stored, ns, name); !s.ok()) return s;
    return std::nullopt;
  }
  absl::StatusOr<runtime::CertKeyPair> ca = ReadIssuingCa(cache, cluster);
  if (!ca.ok()) return ca.status();
  runtime::ObjectPtr existing = cache.Get(kube::kSecrets, ns, name);
  RoleCertVerdict verdict = JudgeRoleCertificate(
      existing ? controllers::SecretValue(*existing, "tls.crt") : "",
      existing ? controllers::SecretValue(*existing, "ca.crt") : "", ca->cert_pem, now);
  if (!verdict.reissue_because.empty()) {
    absl::StatusOr<runtime::CertKeyPair> cert =
        runtime::GenerateClientCert(*ca, "quorum", kRoleCertValidity, now, role.spec.name);
    if (!cert.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "spec.clientCertificate: cannot issue the certificate: ", cert.status().message()));
    }
    Json secret = {{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"metadata", RoleSecretMetadata(stored, ns, name)},
                   {"type", "kubernetes.io/tls"},
                   {"data", controllers::EncodedSecretData({{"ca.crt", ca->cert_pem},
                                                            {"tls.crt", cert->cert_pem},
                                                            {"tls.key", cert->key_pem},
                                                            {"username", role.spec.name}})}};
    absl::StatusOr<Json> wrote;
    if (existing == nullptr) {
      wrote = client.Create(kube::kSecrets, ns, secret);
    } else {
      secret["metadata"]["resourceVersion"] = At(*existing, {"metadata", "resourceVersion"});
      wrote = client.Update(kube::kSecrets, ns, secret);  // Conflict: looked at again
    }
    if (!wrote.ok()) return wrote.status();
    const std::string why = verdict.reissue_because;
    verdict = JudgeRoleCertificate(cert->cert_pem, ca->cert_pem, ca->cert_pem, now);
    recorder.Normal(stored, existing == nullptr ? "CertificateIssued" : "CertificateRenewed",
                    absl::StrCat("Secret ", name, ": ",
                                 existing == nullptr ? "issued" : "reissued (" + why + ")",
                                 ", valid until ", Rfc3339(verdict.not_after)));
  }
  status.certificate_secret = name;
  status.certificate_not_after = Rfc3339(verdict.not_after);
  return verdict.renew_at;
}

}  // namespace quorum::postgresobjects
