// etcd authentication for `spec.security.enableAuth` (API.md).
//
// The operator owns a Secret `<cluster>-root-auth` (type kubernetes.io/basic-auth,
// keys username=root and a generated password) that it creates once and never
// rewrites, so the password survives operator restarts. Once the cluster has
// converged, EnsureAuthEnabled makes the root user and role and turns auth on;
// from then on every call authenticates with those credentials, together with
// the operator's client certificate (clientSecret). status.authSecretName tells
// consumers (a PostgresCluster's clusterRef) where the credentials are.
//
// A clientSecret whose certificate has CommonName "root" (aenix's cert-only
// root) makes the operator authenticate by that certificate instead of the
// password (access.h); root still gets the Secret's password, so that
// password-based consumers work the same either way.
//
// Thread-safety: pure functions, except EnsureAuthEnabled which calls etcd.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_AUTH_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_AUTH_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/controllers/etcdcluster/names.h"
#include "src/etcd/client.h"

namespace quorum::etcdcluster {

inline constexpr char kRootUser[] = "root";

bool AuthEnabledInSpec(const EtcdCluster& cluster);

// <cluster>-root-auth
std::string AuthSecretName(const EtcdCluster& cluster);

// The owned Secret holding the root credentials.
Json BuildAuthSecret(const EtcdCluster& cluster, const std::string& password);

// Idempotent: when auth is off, adds (or re-passwords) the root user, the root
// role and the grant, then enables auth. Returns true when it enabled auth,
// false when auth was already on. Safe to repeat after a crash at any point:
// each step tolerates having been done before.
absl::StatusOr<bool> EnsureAuthEnabled(etcd::Client& client, std::string_view root_password);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_AUTH_H_
