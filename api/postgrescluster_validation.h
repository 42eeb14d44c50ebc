// Validation of a PostgresCluster, as the validating admission webhook
// applies it: every rule of API.md plus what the objects Quorum builds from
// the spec need to be creatable (name lengths, Secret names, storage sizes
// that parse). Each error names the field as kubectl shows it
// ("spec.patroni.dcs.etcd.endpoints[1]") and says how to fix it. Validation
// runs on the defaulted object (the mutating webhook comes first). The CRD's
// CEL rules (postgrescluster_schema.h) refuse the same things where CEL can
// express them; this code is the fuller version with better messages.
//
// The rules: postgresVersion 13..18; 1..16 instance sets with unique DNS-label
// names, "<cluster>-<set>" at most 52 characters, replicas >= 0, a
// dataVolumeClaimSpec with a storage request > 0; Patroni timings
// (leaderLeaseDurationSeconds >= 20, the others >= 1, syncPeriodSeconds +
// 2*retryTimeoutSeconds <= leaderLeaseDurationSeconds); dcs.type kubernetes
// or etcd, the etcd block only and always with etcd, exactly one of (1..7)
// endpoints and clusterRef, endpoints all http:// or all https://, tlsSecret
// only with https:// endpoints, neither tlsSecret nor authSecret with
// clusterRef; podAPIAccess false only with etcd; switchover type Failover
// needs targetInstance; users with unique PostgreSQL identifiers that are not
// Quorum's roles (postgres, replicator) nor pg_*, databases likewise (not
// template0/1), options from AllowedRoleOptions() without contradictions and
// CREATEROLE only from PostgreSQL 16; authentication.rules as pg_hba lines
// PostgreSQL parses (no trust or password on the network, host only with
// tls.allowPlaintext, never for Quorum's roles); service.type ClusterIP,
// NodePort or LoadBalancer.
//
// Updates: the DCS type cannot change — an absent dcs counts as kubernetes,
// so adding `dcs: {type: etcd}` later is a change; postgresVersion goes up
// only, from a major the image can upgrade from, not during an upgrade, and
// back down only to the data's major (status.postgresVersion, after a failed
// upgrade); an instance set's storage request cannot shrink. An update that leaves
// `spec` unchanged is never refused (metadata, finalizers and status must
// stay writable even if an older object would fail a newer rule).
//
// Thread-safety: pure functions. Never throw, whatever the JSON holds.
#ifndef QUORUM_API_POSTGRESCLUSTER_VALIDATION_H_
#define QUORUM_API_POSTGRESCLUSTER_VALIDATION_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "api/field_error.h"

namespace quorum::api {

// Every error in `obj` (a whole PostgresCluster); `old` is the stored object
// on update, null on create. Empty when valid.
std::vector<FieldError> ValidatePostgresCluster(const nlohmann::json& obj,
                                                const nlohmann::json* old);

// Admission only (the webhook applies it, the reconciler's parse does not, so
// an object stored before this rule keeps reconciling): a
// spec.patroni.switchover.targetInstance that cannot name a member — not
// <cluster>-<instance set>-<ordinal> for a set of the spec. The reconciler
// answers a trigger naming a pod the spec does not ask for Failed at once.
// Nothing on an update that leaves `spec` unchanged.
std::vector<FieldError> ValidateSwitchoverTarget(const nlohmann::json& obj,
                                                 const nlohmann::json* old);

// Things that are allowed but probably not meant, each naming the field: a
// single instance (no failover), https:// endpoints without tlsSecret,
// credentials over http://, dynamicConfiguration keys Quorum owns (stored
// before admission refused them; api/postgrescluster_owned_config.h), which
// the reconciler ignores. Read from the typed spec (the webhook decodes the object
// once, as the reconciler does).
struct PostgresClusterSpec;  // api/postgrescluster_types.h
std::vector<std::string> PostgresClusterWarnings(const PostgresClusterSpec& spec);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_VALIDATION_H_
