// Validation of an EtcdCluster, as the validating admission webhook applies it:
// every rule of API.md "rules (admission)" plus what the objects Quorum builds
// from the spec need to be creatable (names that are valid Service and Secret
// names, a storage size that parses). Each error names the field and says how
// to fix it. Validation runs on the defaulted object (the mutating webhook
// comes first), so "neither emptyDir nor volumeClaimTemplate" is an error
// here. Where the aenix operator v0.4.5 admits a spec, so does this (both
// storage kinds: emptyDir wins, with a warning; budgets written as digit
// strings; enableAuth without serverTrustedCASecret); docs/aenix-compatibility.md
// lists the deliberate differences.
//
// Updates: storage cannot switch between emptyDir and a PVC (whether emptyDir
// is set decides), and the PVC storage request cannot shrink; peer TLS and server (client-port) TLS
// cannot be turned on or off, nor authentication off (the messages below, which the CRD's
// transition rules carry too, so the API server refuses the same edits without the webhook). An
// update that leaves `spec` unchanged is never refused (metadata, finalizers and status must stay
// writable even if an older object would fail a newer rule).
//
// Thread-safety: pure functions. Never throw, whatever the JSON holds.
#ifndef QUORUM_API_ETCDCLUSTER_VALIDATION_H_
#define QUORUM_API_ETCDCLUSTER_VALIDATION_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/field_error.h"

namespace quorum::api {

// Why a running cluster refuses these edits, and what to do instead.
inline constexpr char kPeerTlsChangeMessage[] =
    "peer TLS cannot be turned on or off in a running cluster: members rolled one at a time "
    "would speak TLS to peers that still speak plain HTTP (or the reverse) and the cluster would "
    "lose quorum. Create a new EtcdCluster with the setting and restore a snapshot of this one "
    "into it (spec.bootstrap.restore), then move the clients";
inline constexpr char kServerTlsChangeMessage[] =
    "client TLS (serverSecret) cannot be turned on or off in a running cluster: the client URL "
    "changes between http:// and https:// under every client and member at once. Create a new "
    "EtcdCluster with the setting and restore a snapshot of this one into it "
    "(spec.bootstrap.restore), then move the clients";
inline constexpr char kManagedTlsChangeMessage[] =
    "tls.managed cannot change in a running cluster: the members would switch to other CAs one "
    "at a time and stop trusting each other. Create a new EtcdCluster with the setting and "
    "restore a snapshot of this one into it (spec.bootstrap.restore), then move the clients";
inline constexpr char kAuthOffMessage[] =
    "authentication cannot be turned off in a running cluster: etcd keeps it on in its data and "
    "Quorum would lose its root access. Create a new EtcdCluster without enableAuth and restore "
    "a snapshot of this one into it (spec.bootstrap.restore)";

// Every error in `obj` (a whole EtcdCluster); `old` is the stored object on
// update, null on create. Empty when valid.
std::vector<FieldError> ValidateEtcdCluster(const nlohmann::json& obj, const nlohmann::json* old);

struct EtcdClusterSpec;  // api/etcdcluster_types.h

// Things that are allowed but probably not meant, each naming the field: a
// disruption budget that lets the cluster lose quorum, an even number of
// members, TLS settings that have no effect. Read from the typed spec (the
// webhook decodes the object once, as the reconciler does).
std::vector<std::string> EtcdClusterWarnings(const EtcdClusterSpec& spec);

// Kubernetes name rules, exposed for tests and other resources.
bool IsDns1035Label(const std::string& s);      // Service names: [a-z]([-a-z0-9]*[a-z0-9])?, <= 63
bool IsDns1123Subdomain(const std::string& s);  // Secret names: dot-separated labels, <= 253

// A PodDisruptionBudget count: an integer, a string of digits (aenix reads
// "2" as 2, as intstr's IntValue does), or a string "N%" with N in 0..100,
// resolved against `replicas` rounding up as the disruption controller does.
// Returns false (and leaves `out` alone) when malformed.
bool ResolveIntOrPercent(const nlohmann::json& value, int replicas, int& out);

// The count a string of 1 to 9 decimal digits stands for ("0" -> 0); nullopt
// for anything else. The decoder turns such budget strings into integers,
// since a PodDisruptionBudget takes only integers and percentages.
std::optional<int> CountString(const std::string& s);

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDCLUSTER_VALIDATION_H_
