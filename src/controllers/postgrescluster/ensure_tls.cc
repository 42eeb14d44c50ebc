#include "src/controllers/postgrescluster/ensure_tls.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/etcd_user.h"
#include "src/controllers/postgrescluster/pgbouncer.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/runtime/certs.h"
#include "src/runtime/random.h"

namespace quorum::postgrescluster {
namespace {

using runtime::ObjectPtr;

// A Secret a spec names: read through the API server (never cached).
absl::StatusOr<Json> UserSecret(const Phase& p, const std::string& name, const char* field) {
  absl::StatusOr<Json> s = p.client.Get(kSecrets, p.n.ns, name);
  if (absl::IsNotFound(s.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("Secret ", name, " (", field, ") does not exist"));
  }
  return s;
}

// The CA that issues the members' certificate: the user's caSecret, or the
// cluster's own, generated once.
absl::StatusOr<runtime::CertKeyPair> IssuingCa(const Phase& p) {
  const std::string& user_ca = p.cluster.spec.tls.ca_secret;
  if (!user_ca.empty()) {
    absl::StatusOr<Json> s = UserSecret(p, user_ca, "spec.tls.caSecret");
    if (!s.ok()) return s.status();
    const SigningCa ca = SigningCaFrom(*s);  // tls.crt + tls.key, or ca.crt + ca.key
    if (ca.key_pem.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Secret ", user_ca,
                       " (spec.tls.caSecret) holds no CA key: give tls.crt + tls.key or "
                       "ca.crt + ca.key"));
    }
    return runtime::CertKeyPair{ca.cert_pem, ca.key_pem};
  }
  if (ObjectPtr own = p.cache.Get(kSecrets, p.n.ns, p.n.ca_secret)) {
    return runtime::CertKeyPair{controllers::SecretValue(*own, "ca.crt"),
                                controllers::SecretValue(*own, "ca.key")};
  }
  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA(CaCommonName(p.cluster), kClusterCaValidity, p.now);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<Json> made =
      p.client.Create(kSecrets, p.n.ns, BuildCaSecret(p.cluster, ca->cert_pem, ca->key_pem));
  if (absl::IsAlreadyExists(made.status())) {  // another reconcile won: use its CA
    made = p.client.Get(kSecrets, p.n.ns, p.n.ca_secret);
    if (!made.ok()) return made.status();
    return runtime::CertKeyPair{controllers::SecretValue(*made, "ca.crt"),
                                controllers::SecretValue(*made, "ca.key")};
  }
  if (!made.ok()) return made.status();
  p.recorder.Normal(p.stored, "CACreated", "created the cluster's CA in Secret " + p.n.ca_secret);
  return *ca;
}

// spec.tls.customSecret: used as it is, once it holds the three files.
absl::StatusOr<TlsState> CustomTls(const Phase& p) {
  const std::string& name = p.cluster.spec.tls.custom_secret;
  absl::StatusOr<Json> s = UserSecret(p, name, "spec.tls.customSecret");
  if (!s.ok()) return s.status();
  TlsState out;
  out.ca_pem = controllers::SecretValue(*s, "ca.crt");
  const std::string cert = controllers::SecretValue(*s, "tls.crt"),
                    key = controllers::SecretValue(*s, "tls.key");
  if (out.ca_pem.empty() || cert.empty() || key.empty() ||
      !runtime::CheckKeyMatchesCertificate(cert, key).ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("Secret ", name,
                     " (spec.tls.customSecret) needs ca.crt, tls.crt and the matching tls.key"));
  }
  out.custom_digest = absl::HashOf(out.ca_pem, cert, key);
  out.pgbouncer_tls_digest = PgBouncerDigest({cert});  // the pooler serves it too
  return out;
}

}  // namespace

absl::StatusOr<TlsState> EnsureTls(const Phase& p, ServerCertMemo& memo,
                                   OperatorClientCerts& client_certs) {
  const absl::Time now = p.now;
  if (!p.cluster.spec.tls.custom_secret.empty()) return CustomTls(p);
  absl::StatusOr<runtime::CertKeyPair> ca = IssuingCa(p);
  if (!ca.ok()) return ca.status();
  TlsState out;
  out.ca_pem = ca->cert_pem;
  out.ca = *ca;
  absl::StatusOr<runtime::CertKeyPair> client =
      client_certs.For(p.n.ns + "/" + p.n.cluster, *ca, now);
  if (!client.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot issue the operator's REST API client certificate: ", client.status().message()));
  }
  out.operator_client = *std::move(client);
  const std::vector<std::string> dns = ServerCertDnsNames(p.cluster);
  ObjectPtr stored = p.cache.Get(kSecrets, p.n.ns, p.n.tls_secret);
  std::string reason = "no certificate yet";
  if (stored != nullptr) {
    reason = controllers::SecretValue(*stored, "ca.crt") != ca->cert_pem
                 ? "the CA changed"
                 : memo.RenewalReason(p.n.ns + "/" + p.n.cluster,
                                      controllers::SecretValue(*stored, "tls.crt"),
                                      controllers::SecretValue(*stored, "tls.key"), ca->cert_pem,
                                      dns, now, out.renew_at,
                                      /*want_client_auth=*/true);
    if (reason.empty()) return out;
  }
  // serverAuth and clientAuth: the members present it to each other's REST
  // API (Patroni's ctl certfile), which demands one for unsafe calls.
  absl::StatusOr<runtime::CertKeyPair> cert = runtime::GenerateMemberCert(
      *ca, "quorum-postgres", dns, {"127.0.0.1"}, kServerCertValidity, now);
  if (!cert.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot issue the members' certificate: ", cert.status().message()));
  }
  Json secret = BuildServerTlsSecret(p.cluster, ca->cert_pem, cert->cert_pem, cert->key_pem);
  absl::StatusOr<Json> wrote;
  if (stored == nullptr) {
    wrote = p.client.Create(kSecrets, p.n.ns, secret);
    if (absl::IsAlreadyExists(wrote.status())) return out;  // the cache lags; next time
  } else {
    // Update, not delete + create: the kubelet swaps the mounted files in
    // place and the members keep serving. The resourceVersion makes a
    // concurrent writer's change win (Conflict: retried).
    secret["metadata"]["resourceVersion"] = At(*stored, {"metadata", "resourceVersion"});
    wrote = p.client.Update(kSecrets, p.n.ns, secret);
  }
  if (!wrote.ok()) return wrote.status();
  out.renewed = stored != nullptr;
  absl::StatusOr<absl::Time> not_after = runtime::CertificateNotAfter(cert->cert_pem);
  if (not_after.ok()) out.renew_at = RenewalTime(now, *not_after);
  p.recorder.Normal(p.stored, stored == nullptr ? "CertificateIssued" : "CertificateRenewed",
                    absl::StrCat("Secret ", p.n.tls_secret, ": ", reason));
  return out;
}

absl::Status EnsurePgBackRestClient(const Phase& p) {
  if (!p.cluster.spec.backups.pgbackrest.has_value()) return absl::OkStatus();
  if (p.cache.Get(kSecrets, p.n.ns, p.n.pgbackrest_client_secret) != nullptr) {
    return absl::OkStatus();
  }
  std::string ca_name = p.n.cluster + " pgbackrest clients";
  if (ca_name.size() > 64) ca_name = ca_name.substr(ca_name.size() - 64);
  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA(ca_name, kPgBackRestClientValidity, p.now);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<runtime::CertKeyPair> client = runtime::GenerateClientCert(
      *ca, "quorum", kPgBackRestClientValidity, p.now, kPgBackRestClientCn);
  if (!client.ok()) return client.status();
  absl::StatusOr<Json> made = p.client.Create(
      kSecrets, p.n.ns,
      BuildPgBackRestClientSecret(p.cluster, ca->cert_pem, client->cert_pem, client->key_pem));
  if (absl::IsAlreadyExists(made.status())) return absl::OkStatus();  // the cache lagged
  if (!made.ok()) return made.status();
  p.recorder.Normal(p.stored, "SecretCreated",
                    "created the backup Jobs' pgBackRest client certificate in Secret " +
                        p.n.pgbackrest_client_secret);
  return absl::OkStatus();
}

absl::StatusOr<patroni::BasicAuth> EnsureRestApiSecret(const Phase& p) {
  ObjectPtr cached = p.cache.Get(kSecrets, p.n.ns, p.n.restapi_secret);
  Json secret;
  if (cached != nullptr) {
    secret = *cached;
  } else {
    absl::StatusOr<std::string> password = runtime::RandomPassword();
    if (!password.ok()) return password.status();
    absl::StatusOr<Json> made =
        p.client.Create(kSecrets, p.n.ns, BuildRestApiSecret(p.cluster, *password));
    if (absl::IsAlreadyExists(made.status())) {
      made = p.client.Get(kSecrets, p.n.ns, p.n.restapi_secret);
    }
    if (!made.ok()) return made.status();
    secret = *std::move(made);
  }
  return patroni::BasicAuth{controllers::SecretValue(secret, "username"),
                            controllers::SecretValue(secret, "password")};
}

}  // namespace quorum::postgrescluster
