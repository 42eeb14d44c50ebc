// The EtcdCluster as typed C++ values: what the reconciler, the builders and
// the status code read instead of JSON paths. An object is parsed once per
// reconcile (ParseEtcdCluster): defaults applied (DefaultEtcdCluster, the one
// place for them), validated (ValidateEtcdCluster, the admission rules), then
// decoded; any problem is an InvalidArgument status naming the field path.
//
// Embedded Kubernetes types (a PodSpec, a ServiceSpec, a PVC spec, an
// EmptyDirVolumeSource) stay JSON: Quorum passes them through or merges them
// and never interprets most of their fields.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_ETCDCLUSTER_TYPES_H_
#define QUORUM_API_ETCDCLUSTER_TYPES_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/backup_destination.h"

namespace quorum::api {

// The parts of metadata the controllers use.
struct ObjectMeta {
  std::string name;
  std::string ns;
  std::string uid;
  int64_t generation = 0;
  bool deleting = false;  // deletionTimestamp is set
  // RFC 3339 as the API server set it ("" unknown); decoded for EtcdCluster,
  // EtcdBackup, PostgresBackup and PostgresCluster.
  std::string creation_timestamp;
  std::map<std::string, std::string> annotations;
};

// metadata of a template: labels and annotations (string values only), and
// the name where the template may rename the object.
struct TemplateMeta {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

// {metadata, spec} of an embedded object; `spec` is an object (maybe empty).
struct ObjectTemplate {
  TemplateMeta metadata;
  nlohmann::json spec = nlohmann::json::object();
};

struct EtcdTlsSpec {
  std::string peer_trusted_ca_secret;
  std::string peer_secret;
  std::string server_trusted_ca_secret;
  std::string server_secret;
  std::string client_trusted_ca_secret;
  std::string client_secret;  // the operator's own client certificate
  // Quorum's extension: Quorum makes the CAs and issues (and renews) every
  // certificate; then none of the six Secrets above is set (EffectiveTls).
  bool managed = false;
};

struct EtcdSecuritySpec {
  bool enable_auth = false;
  EtcdTlsSpec tls;
};

struct EtcdStorageSpec {
  // Set: data on an emptyDir (the EmptyDirVolumeSource). Unset: a PVC per
  // member from volume_claim_template (defaulted: ReadWriteOnce, 4Gi).
  std::optional<nlohmann::json> empty_dir;
  ObjectTemplate volume_claim_template;
};

struct EtcdPdbTemplate {
  TemplateMeta metadata;
  // IntOrString values as written; both unset means minAvailable = quorum.
  std::optional<nlohmann::json> min_available;
  std::optional<nlohmann::json> max_unavailable;
};

// spec.networkPolicy, Quorum's extension (src/controllers/etcdcluster/
// network_policy.h): absent, as in every aenix manifest, means enabled with
// the default client allow list.
struct EtcdNetworkPolicySpec {
  bool enabled = true;  // a NetworkPolicy guards the members' ports
  // networking.k8s.io/v1 NetworkPolicyPeers admitted to the client port, kept
  // as written; null when absent (then every pod of the namespace is).
  nlohmann::json client_from;
};

struct EtcdClusterSpec {
  int32_t replicas = 3;
  std::map<std::string, std::string> options;  // etcd flags without "--"
  EtcdStorageSpec storage;
  ObjectTemplate pod_template;                  // spec: a PodSpec to merge over ours
  ObjectTemplate service_template;              // the client Service
  TemplateMeta headless_service_metadata;       // headlessServiceTemplate.metadata
  std::optional<EtcdPdbTemplate> pdb_template;  // absent: no PodDisruptionBudget
  EtcdSecuritySpec security;
  // spec.bootstrap.restore.source: the snapshot a new cluster starts from
  // (s3.key is the object, pvc.subPath the snapshot file inside the claim).
  std::optional<BackupDestination> restore_source;
  EtcdNetworkPolicySpec network_policy;
};

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // "True" | "False"
  std::string reason;
  std::string message;
  int64_t observed_generation = 0;
  std::string last_transition_time;  // RFC 3339
  bool operator==(const Condition&) const = default;
};

struct EtcdMemberStatus {
  std::string name;
  std::string id;  // hex
  std::string peer_url;
  std::string client_url;  // "" until the member has joined
  bool is_learner = false;
  bool is_leader = false;
  bool healthy = false;
  std::string version;   // "" when the member did not answer
  std::string data_uid;  // storage identity the member started on; "" unknown
  bool operator==(const EtcdMemberStatus&) const = default;
};

struct EtcdClusterStatus {
  int64_t observed_generation = 0;
  std::vector<Condition> conditions;
  int32_t ready_replicas = 0;
  int32_t replicas = 0;  // members the StatefulSet runs (the /scale subresource's)
  std::string selector;  // the member pods' label selector (the /scale subresource's)
  std::vector<EtcdMemberStatus> members;
  std::string leader;
  std::string client_endpoint;
  std::string client_secret_name;
  std::string auth_secret_name;
  // The lowest etcd version any member answered since the operator first
  // saw the cluster, kept across upgrades ("" before any answered).
  std::string lowest_version;
  // Since when every member runs its current minor version: recorded when
  // all members first answered it. Entries after `raft_index` were written by
  // that minor or later (the upgrade rules read it: version_path.h).
  struct MinorSince {
    std::string minor;       // "3.6"
    int64_t raft_index = 0;  // the highest Raft index a member reported then
    bool operator==(const MinorSince&) const = default;
  };
  std::optional<MinorSince> minor_since;
  bool operator==(const EtcdClusterStatus&) const = default;
};

struct EtcdCluster {
  ObjectMeta metadata;
  EtcdClusterSpec spec;
  EtcdClusterStatus status;  // as stored (the previous reconcile's)
};

// Defaults, validates and decodes a whole EtcdCluster. InvalidArgument with
// "field: message; ..." when the object breaks an admission rule or a field
// has the wrong type. Never throws.
absl::StatusOr<EtcdCluster> ParseEtcdCluster(const nlohmann::json& obj);

// Decodes without defaulting or validating (type errors still name the
// field): for objects already defaulted, and for tests of single fields.
absl::StatusOr<EtcdCluster> DecodeEtcdCluster(const nlohmann::json& obj);

// The serialised forms, as the API server stores them (absent fields
// omitted).
nlohmann::json ToJson(const EtcdClusterSpec& spec);
nlohmann::json ToJson(const EtcdClusterStatus& status);
nlohmann::json ToJson(const Condition& condition);

// The TLS Secrets the cluster uses: spec.security.tls as written, or, with
// tls.managed, the ones Quorum issues (ManagedTlsNames): peer TLS, server TLS
// and client certificate auth all on, every Secret a kubernetes.io/tls one
// whose ca.crt is the CA its certificate chains to.
struct ManagedTlsNames {
  std::string peer_ca;    // <cluster>-peer-ca: the peer CA (ca.crt, ca.key)
  std::string peer;       // <cluster>-peer-tls: the members' peer certificate
  std::string server_ca;  // <cluster>-server-ca: the client port's CA (ca.crt, ca.key)
  std::string server;     // <cluster>-server-tls: the members' server certificate
  std::string client;     // <cluster>-client-tls: the operator's client certificate
};
ManagedTlsNames ManagedTlsNamesOf(const std::string& cluster);
EtcdTlsSpec EffectiveTls(const EtcdCluster& cluster);
// The Secret whose ca.crt verifies the members' client-port certificates:
// serverTrustedCASecret, else the serverSecret itself (cert-manager writes its
// issuer's CA there; aenix reads it too); "" without server TLS. Read only its
// ca.crt: the serverSecret also holds the members' private key.
std::string ServerCaSecret(const EtcdCluster& cluster);
// The Secret that may hold the key of the CA client certificates are checked
// against (to issue the database pods their own): with tls.managed
// <cluster>-server-ca, else clientTrustedCASecret ("" when none).
std::string ClientCaKeySecret(const EtcdCluster& cluster);

// The condition `type` in `status`, or null.
const Condition* FindCondition(const EtcdClusterStatus& status, const std::string& type);

// Whether the cluster serves reads and writes as its status tells: Ready, or
// Initialized with a majority of its voting members healthy (one member of
// three down still serves; backups and Patroni need a quorum, not every
// member).
bool HasQuorum(const EtcdClusterStatus& status);

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDCLUSTER_TYPES_H_
