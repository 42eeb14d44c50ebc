// ProxySchema and ProxyStatusSchema (postgrescluster_proxy_internal.h): the
// schema of spec.proxy and status.proxy. The keys of config Quorum owns, the
// setting names and one-line values are the webhook's to refuse (as
// EtcdCluster's options): a CEL rule over a map's keys has no length bound
// for the API server's cost estimate.
#include <nlohmann/json.hpp>
#include <string>

#include "api/postgrescluster.h"
#include "api/postgrescluster_proxy_internal.h"
#include "api/schema_nodes.h"

namespace quorum::api::internal {

using schema::CoreRef;
using schema::Int32;
using schema::Json;
using schema::Object;
using schema::String;
using schema::StringMap;

Json ProxySchema() {
  Json replicas = Int32(
      "PgBouncer pods (a Deployment <cluster>-pgbouncer), 0 to 16; default 2, spread over nodes "
      "where it can (preferred anti-affinity).");
  replicas["default"] = kDefaultPgBouncerReplicas;
  replicas["minimum"] = 0;
  replicas["maximum"] = kMaxPgBouncerReplicas;
  Json pool_mode = String(
      "When a server connection returns to the pool: transaction (default: after each "
      "transaction), session (when the client leaves) or statement (after each statement; "
      "no multi-statement transactions).");
  pool_mode["enum"] = Json::array({"session", "transaction", "statement"});
  pool_mode["default"] = std::string(kDefaultPgBouncerPoolMode);
  Json config = StringMap(
      "Extra [pgbouncer] settings of pgbouncer.ini, e.g. max_client_conn: \"1000\", "
      "default_pool_size: \"20\". A change rolls the pooler's pods. Quorum sets where it "
      "listens, authentication (auth_*, admin_users, stats_users), TLS (client_tls_*, "
      "server_tls_*), its files and pool_mode itself; those keys are refused.");
  config["additionalProperties"]["maxLength"] = 1024;
  config["maxProperties"] = kMaxPgBouncerConfigKeys;
  Json pgbouncer = Object(
      "A PgBouncer connection pooler in front of the primary (docs/pooler.md): Service "
      "<cluster>-pgbouncer (port 5432, TLS with a certificate from the cluster's CA), "
      "passwords looked up through auth_query as role quorum_pooler, TLS verify-full to the "
      "primary. Connection Secrets of spec.users get pgbouncer-uri, pgbouncer-host and "
      "pgbouncer-port. Remove it to remove the pooler.",
      {{"replicas", replicas},
       {"poolMode", pool_mode},
       {"config", config},
       {"resources", CoreRef("ResourceRequirements", "CPU and memory of the PgBouncer container.")},
       {"image", String("Image with PgBouncer 1.19 or later. Empty: "
                        "ghcr.io/quorum-dev/pgbouncer:1-trixie (Debian's pgbouncer).")}});
  return Object("Connection poolers in front of the cluster.", {{"pgBouncer", pgbouncer}});
}

Json ProxyStatusSchema() {
  Json pgbouncer = Object("The PgBouncer Deployment as last observed.",
                          {{"replicas", Int32("Pods of the Deployment.")},
                           {"readyReplicas", Int32("Pods that are ready to serve.")},
                           {"service", String("The Service clients connect to (port 5432).")}});
  return Object("The connection poolers (spec.proxy).", {{"pgBouncer", pgbouncer}});
}

}  // namespace quorum::api::internal
