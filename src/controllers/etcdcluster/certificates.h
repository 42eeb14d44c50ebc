// The certificates Quorum issues for an EtcdCluster with
// spec.security.tls.managed (issue 34): two CAs and three certificates, each
// in an owned Secret (api::ManagedTlsNamesOf):
//
//   <cluster>-peer-ca     the peer CA (ca.crt, ca.key; 10 years, made once,
//                         never rewritten, never mounted)
//   <cluster>-peer-tls    the members' peer certificate (serverAuth and
//                         clientAuth; *.<cluster>-headless.<ns>.svc[.cluster.local])
//   <cluster>-server-ca   the client port's CA (as the peer CA): signs the
//                         members' server certificate and every client
//                         certificate, the operator's and the database pods'
//   <cluster>-server-tls  the members' server certificate (serverAuth and
//                         clientAuth: etcd's gateway dials its own gRPC
//                         server with it; the headless wildcard, the client
//                         Service's names, localhost, 127.0.0.1)
//   <cluster>-client-tls  the operator's client certificate (O=quorum-operator,
//                         no CommonName: with auth on etcd would take one
//                         as a user name)
//
// The leaf Secrets are kubernetes.io/tls with ca.crt, so they are the trust
// bundles too (api::EffectiveTls). Certificates live 90 days and are
// rewritten in place (update with the read resourceVersion) when a third of
// their lifetime is left, their names or CA changed, or they do not verify:
// the kubelet swaps the mounted files, and etcd reads its certificate files
// at every new TLS handshake, so nothing restarts and no member leaves. The
// peer and client-port CAs are separate: a database pod's client certificate
// is no peer certificate.
//
// Thread-safety: the pure functions are; EnsureCertificates as its clients.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_CERTIFICATES_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_CERTIFICATES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/controllers/common/cert_renewal.h"
#include "src/controllers/etcdcluster/names.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"

namespace quorum::etcdcluster {

inline constexpr absl::Duration kEtcdCaValidity = absl::Hours(24 * 365 * 10);
inline constexpr absl::Duration kEtcdCertValidity = absl::Hours(24 * 90);
inline constexpr char kOperatorClientOrganization[] = "quorum-operator";

// The names each certificate carries.
std::vector<std::string> PeerCertDnsNames(const EtcdCluster& cluster);
std::vector<std::string> ServerCertDnsNames(const EtcdCluster& cluster);

// An owned CA Secret (Opaque: ca.crt, ca.key) and an owned kubernetes.io/tls
// Secret (ca.crt, tls.crt, tls.key).
Json BuildCaSecret(const EtcdCluster& cluster, const std::string& name, const std::string& ca_pem,
                   const std::string& key_pem);
Json BuildTlsSecret(const EtcdCluster& cluster, const std::string& name, const std::string& ca_pem,
                    const std::string& cert_pem, const std::string& key_pem);

struct CertificatesOutcome {
  bool wrote = false;                  // a Secret was created or rewritten now
  std::optional<absl::Time> renew_at;  // the earliest renewal of those that still serve
};

// Makes what is missing and renews what is due (a Normal event,
// CertificateIssued / CertificateRenewed, names the Secret and why). Nothing
// without tls.managed. `memo` spares checking unchanged certificates again.
// Errors: FailedPrecondition when a Secret of these names belongs to another
// object (named); the API server's and OpenSSL's otherwise.
absl::StatusOr<CertificatesOutcome> EnsureCertificates(kube::Client& client,
                                                       const runtime::Cache& cache,
                                                       runtime::EventRecorder& recorder,
                                                       const Json& stored,
                                                       const EtcdCluster& cluster, absl::Time now,
                                                       controllers::CertRenewalMemo& memo);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_CERTIFICATES_H_
