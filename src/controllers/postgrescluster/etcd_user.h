// The database pods' own etcd user (issue 15.3): with clusterRef to an
// EtcdCluster that has auth on, Patroni connects as "quorum-pg.<ns>.<name>",
// whose role of the same name may read and write only the cluster's Patroni
// keys ([prefix, prefix end) of patroni::ClusterKeyPrefix) — never as root,
// and never with the operator's client certificate. ResolveDcs decides that
// (DcsResolution::pod_access); this file makes it true:
//
//   1. the Secret <cluster>-etcd-user (kubernetes.io/basic-auth, owned), with
//      a generated password, created once and never rewritten;
//   2. when etcd wants client certificates, the Secret <cluster>-etcd-client
//      (kubernetes.io/tls, owned: ca.crt, tls.crt, tls.key), a certificate
//      without CommonName issued from the EtcdCluster's client CA, valid as
//      long as that CA; rewritten in place (update, so the kubelet swaps the
//      pods' files and Patroni's etcd client reads them at its next
//      connection; event EtcdClientCertRenewed) when it no longer verifies
//      against the CA, the members' CA changed, or less than
//      kClientCertRenewBefore (or a third of its lifetime) is left;
//   3. in etcd, as root: the role, its one readwrite permission, the user
//      with the Secret's password, the grant. Each call tolerates having been
//      done before (a crash anywhere resumes), so the sequence runs again as
//      a whole; it runs once per password Secret version per operator
//      process, so converged clusters cost no etcd writes.
//
// A failure leaves DCSReady False (reason EtcdUserNotReady) with a Warning
// that names the step and never carries Secret data; the objects already
// running are left alone. On delete, the finalizer removes the user and the
// role (RemovePodEtcdUser) after Patroni's keys.
//
// Thread-safety: PodEtcdAccessKeeper may be used concurrently for different
// clusters; the Build* and NeedsNewClientCert functions are pure.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ETCD_USER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ETCD_USER_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/etcd/client.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgrescluster {

// Capped at the CA's own expiry.
inline constexpr absl::Duration kClientCertValidity = absl::Hours(24 * 365 * 10);
inline constexpr absl::Duration kClientCertRenewBefore = absl::Hours(24 * 30);

// <cluster>-etcd-user: username (the etcd user) and password.
Json BuildEtcdUserSecret(const PostgresCluster& cluster, const std::string& user,
                         const std::string& password);
// <cluster>-etcd-client: the members' CA (ca.crt) and the pods' certificate.
Json BuildEtcdClientSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                           const std::string& cert_pem, const std::string& key_pem);

// Whether the stored certificate no longer serves: missing or
// unparsable, not signed by `signing_ca_pem` (or not valid at `now`), less
// than kClientCertRenewBefore (or a third of its lifetime, if shorter) left,
// or the stored members' CA differs from `server_ca_pem`.
bool NeedsNewClientCert(const std::string& stored_cert_pem, const std::string& stored_ca_pem,
                        const std::string& signing_ca_pem, const std::string& server_ca_pem,
                        absl::Time now);

// The CA that signs the pods' certificates, from the client CA Secret:
// tls.crt + tls.key when tls.key is there, else ca.crt + ca.key; both ""
// when neither pair is present.
struct SigningCa {
  std::string cert_pem, key_pem;
};
SigningCa SigningCaFrom(const Json& client_ca_secret);

class PodEtcdAccessKeeper {
 public:
  // Steps 1-3 for a ready `dcs` with pod_access; nothing otherwise. A
  // problem sets dcs.ready false (EtcdUserNotReady) and is evented. Returns
  // an error only for what a requeue fixes (a Kubernetes write that failed).
  // The client certificate's expiry is judged, and a new one issued, at `now`.
  absl::Status Ensure(kube::Client& client, const runtime::Cache& cache,
                      runtime::EventRecorder& recorder, const Json& stored,
                      const PostgresCluster& cluster, DcsResolution& dcs, absl::Time now);
  // Drops what is remembered for namespace/name.
  void Forget(const std::string& key);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  // namespace/name -> the password Secret version whose user etcd has.
  std::map<std::string, std::string> done_ ABSL_GUARDED_BY(mu_);
};

// Deletes the pods' user and role through `root` (OK when already gone).
// Errors: those of etcd::Client (Unavailable, PermissionDenied, ...).
absl::Status RemovePodEtcdUser(etcd::Client& root, const PodEtcdAccess& access);

// Makes the pods' role, its permission and the user with `password`, and
// grants the role; safe to repeat after a crash at any point.
absl::Status EnsurePodEtcdUser(etcd::Client& root, const PodEtcdAccess& access,
                               const std::string& password);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ETCD_USER_H_
