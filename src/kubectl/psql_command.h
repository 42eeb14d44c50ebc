// `kubectl quorum psql CLUSTER [--user NAME] [-- psql args...]`: runs the
// local psql against a PostgresCluster's primary Service with the
// credentials and CA of the user's Secret (<cluster>-superuser for the
// superuser, status.users[].secretName for a spec.users user), TLS verified
// (sslmode=verify-full). Everything but the user's own psql arguments goes
// through the environment (PGHOST, PGPASSWORD...): no password in argv, so
// none in `ps` or a shell history, and nothing is printed.
//
// The host is the Service's DNS name <cluster>.<ns>.svc: the machine must
// resolve cluster DNS, or --host gives the address to connect to (an IP is
// used as hostaddr, so the certificate is still checked against the
// Service's name; a name replaces it and must be in the certificate).
//
// Thread-safety: the builders are pure; PreparePsql as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_PSQL_COMMAND_H_
#define QUORUM_SRC_KUBECTL_PSQL_COMMAND_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "api/postgrescluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct PsqlOptions {
  std::string ns;
  Target target;
  std::string user;  // "" or "postgres": the superuser
  std::string host;  // "" the Secret's host; else an IP (hostaddr) or a name
  std::string port;  // "" the Secret's port
  std::vector<std::string> psql_args;
};

// What a user's Secret holds for a client (postgrescluster/builders.cc).
struct Credentials {
  std::string host, port, dbname, user, password, ca_pem;
};

struct PsqlInvocation {
  std::vector<std::string> argv;  // psql and the user's arguments
  // Set over the inherited environment; an empty value removes the variable.
  std::vector<std::pair<std::string, std::string>> env;
};

// The Secret of `user`. Errors: NotFound when the cluster has no such user
// (the message lists spec.users); Unavailable when the user is in spec.users
// but the operator has not made its Secret yet (status.users).
absl::StatusOr<std::string> UserSecretName(const api::PostgresCluster& cluster,
                                           const std::string& user);

// Reads a Secret's data (base64). Errors: FailedPrecondition naming the
// Secret and the missing keys (username, password, host, port, ca.crt).
absl::StatusOr<Credentials> ParseCredentials(const nlohmann::json& secret);

// The argv and environment of psql. `ca_file` is the path libpq reads the CA
// from. The password is only in env, as PGPASSWORD.
PsqlInvocation BuildPsqlInvocation(const Credentials& credentials, const PsqlOptions& options,
                                   const std::string& ca_file);

// Whether `host` is an IPv4 or IPv6 literal.
bool IsIpLiteral(const std::string& host);

// Reads the cluster and the Secret. Errors: InvalidArgument for an
// EtcdCluster target; NotFound naming the PostgresCluster, the user or the
// Secret; as UserSecretName and ParseCredentials; DataLoss when the stored
// cluster does not decode; other codes as the API answered.
absl::StatusOr<Credentials> FetchPsqlCredentials(kube::Client& client, const PsqlOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_PSQL_COMMAND_H_
