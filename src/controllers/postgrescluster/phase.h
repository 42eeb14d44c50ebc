// What the phases of one PostgresCluster reconcile share (reconciler.cc
// lists the phases; each lives in its own file): the clients and the parsed
// cluster (Phase), and what the members said (Members). Internal to the
// controller. Thread-safety: a Phase belongs to one reconcile.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PHASE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PHASE_H_

#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/kube/client.h"
#include "src/patroni/rest_client.h"
#include "src/patroni/role_plan.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgrescluster {

// What the members' REST APIs and the DCS leader key say.
struct Members {
  std::map<std::string, patroni::ObservedRole> roles;  // pod name → role
  std::map<std::string, patroni::Endpoint> urls;       // pod name → REST API (https, verified)
  // The leader key's member ("" none); nullopt when not read (kubernetes DCS,
  // or etcd unreachable): the members' own word decides then.
  std::optional<std::string> leader;
  std::string primary;  // the leader that accepts writes: routed as primary
  // Whether `primary`'s pod is Ready (its readiness probe: writable), i.e. in
  // the primary Service's endpoints. Read from the pod, not the StatefulSet's
  // readyReplicas, which trails it by the StatefulSet controller's update.
  bool primary_ready = false;
  std::string system_identifier;
};

// Everything a phase of one reconcile needs.
struct Phase {
  kube::Client& client;
  runtime::Cache& cache;
  runtime::EventRecorder& recorder;
  const Json& stored;              // as read from the cache
  const PostgresCluster& cluster;  // parsed: defaulted, validated, typed
  Names n;
  OperatorPeer operator_peer;  // who may call the members (NetworkPolicy)
  // The reconciler's clock, read once: every decision of this reconcile
  // (certificate expiry, deadlines, timestamps) is made at this time.
  absl::Time now;
  patroni::BasicAuth rest_auth;  // the members' REST API credentials (once known)
  // spec.proxy.pgBouncer: the digest of the certificate the pooler serves
  // (ensure_tls.h TlsState), which the Deployment's pods carry.
  std::string pgbouncer_tls_digest;
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PHASE_H_
