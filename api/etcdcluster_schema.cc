#include "api/etcdcluster_schema.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdbackup_schema.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_validation.h"
#include "api/network_policy_peers.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr char kCore[] = "#/components/schemas/io.k8s.api.core.v1.";
constexpr char kMeta[] = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.";

Json Typed(const char* type, const char* description) {
  return {{"type", type}, {"description", description}};
}
Json String(const char* d) { return Typed("string", d); }
Json Bool(const char* d) { return Typed("boolean", d); }
Json Int32(const char* d) {
  Json j = Typed("integer", d);
  j["format"] = "int32";
  return j;
}
Json Int64(const char* d) {
  Json j = Typed("integer", d);
  j["format"] = "int64";
  return j;
}
Json Object(const char* d, Json properties) {
  Json j = Typed("object", d);
  j["properties"] = std::move(properties);
  return j;
}
Json StringMap(const char* d) {
  Json j = Typed("object", d);
  j["additionalProperties"] = {{"type", "string"}};
  return j;
}
Json Ref(const std::string& ref, const char* d) { return {{"$ref", ref}, {"description", d}}; }
Json IntOrString(const char* d) {
  return {{"description", d},
          {"x-kubernetes-int-or-string", true},
          {"anyOf", Json::array({{{"type", "integer"}}, {{"type", "string"}}})}};
}

// name/labels/annotations of an object Quorum creates from a template.
Json TemplateMetadata(const char* what, bool with_name) {
  Json props = {
      {"labels", StringMap("Labels added to the generated object, next to the ones Quorum sets "
                           "(Quorum's own labels win on conflict).")},
      {"annotations", StringMap("Annotations added to the generated object.")},
  };
  if (with_name) {
    props["name"] = String(
        "Name of the generated object instead of the one Quorum derives from "
        "the EtcdCluster's name.");
  }
  return Object(what, std::move(props));
}

// Longer than 80 lines on purpose: one declarative schema literal that reads
// top to bottom like the CRD it generates; splitting it would scatter fields.
// NOLINTNEXTLINE(readability-function-size): one declarative schema literal.
Json Spec() {
  Json storage = Object(
      "Where each member keeps its data: emptyDir, or volumeClaimTemplate (when both are set, "
      "emptyDir is used, as in the aenix operator). When storage is omitted or empty every "
      "member gets a 4Gi ReadWriteOnce PersistentVolumeClaim. The choice cannot be changed "
      "after creation, and the claim's size can only grow.",
      {
          {"emptyDir",
           Ref(std::string(kCore) + "EmptyDirVolumeSource",
               "Keep the data in an emptyDir volume. A member whose pod is recreated comes back "
               "empty; Quorum removes it from the cluster and adds it again as a new member, "
               "so data survives only while a quorum of members keeps running.")},
          {"volumeClaimTemplate",
           Object("Keep the data on a PersistentVolumeClaim per member, made from this template "
                  "by the StatefulSet. The claims outlive the EtcdCluster (delete them to "
                  "reclaim the space). The storage request may grow, never shrink.",
                  {
                      {"metadata", TemplateMetadata("Metadata of each claim.", true)},
                      {"spec", Ref(std::string(kCore) + "PersistentVolumeClaimSpec",
                                   "The claim: storageClassName, accessModes (default "
                                   "[ReadWriteOnce]), resources.requests.storage (default 4Gi).")},
                  })},
      });
  // No "exactly one" rule: aenix admits both (emptyDir wins, the webhook
  // warns) and `storage: {}` (the parser defaults it as the webhook would).
  storage["default"] = DefaultEtcdStorage();

  Json pod_spec = Ref(std::string(kCore) + "PodSpec",
                      "Merged over the pod Quorum generates: containers and volumes are merged by "
                      "name (a container named \"etcd\" changes the etcd container), other fields "
                      "of the user replace Quorum's. Use it for resources, the image, affinity, "
                      "tolerations, sidecars and the like.");
  pod_spec["x-quorum-partial"] = true;

  auto secret_field = [](const char* d) { return String(d); };

  Json tls = Object(
      "TLS material, each a Secret in the EtcdCluster's namespace. Certificates and keys are read "
      "from the keys tls.crt and tls.key, CA bundles from ca.crt. The peer secrets go together, "
      "and so do the client secrets.",
      {
          {"peerTrustedCASecret",
           secret_field("Secret with the CA (ca.crt) that signs the members' peer certificates. "
                        "Set together with peerSecret to encrypt and authenticate member-to-member "
                        "traffic.")},
          {"peerSecret", secret_field("Secret with the certificate and key (tls.crt, tls.key) "
                                      "each member presents to the other members. Its names "
                                      "must cover the members' peer addresses.")},
          {"serverTrustedCASecret",
           secret_field("Secret with the CA (ca.crt) that signs serverSecret; Quorum uses it to "
                        "verify the members when it talks to them. Unset: the ca.crt of "
                        "serverSecret (as cert-manager writes it), as in the aenix operator.")},
          {"serverSecret",
           secret_field("Secret with the certificate and key (tls.crt, tls.key) the members "
                        "serve clients with on port 2379. Without it clients use plain HTTP.")},
          {"clientTrustedCASecret",
           secret_field("Secret with the CA (ca.crt) that client certificates must be signed by: "
                        "members then require a client certificate from every client. Set "
                        "together with clientSecret; needs serverSecret.")},
          {"clientSecret",
           secret_field("Secret with the client certificate and key (tls.crt, tls.key) that "
                        "Quorum itself uses to talk to the members. Set together with "
                        "clientTrustedCASecret.")},
          {"managed",
           Bool("Quorum's extension: Quorum makes the CAs and issues and renews every "
                "certificate (peer, server, its own client certificate; client certificate auth "
                "on), in Secrets <name>-peer-ca, <name>-peer-tls, <name>-server-ca, "
                "<name>-server-tls and <name>-client-tls. Excludes the six Secret fields. Cannot "
                "change after creation.")},
      });
  tls["x-kubernetes-validations"] = Json::array({
      {{"rule",
        "!self.?managed.orValue(false) || (!has(self.peerTrustedCASecret) && "
        "!has(self.peerSecret) && !has(self.serverTrustedCASecret) && !has(self.serverSecret) && "
        "!has(self.clientTrustedCASecret) && !has(self.clientSecret))"},
       {"message",
        "managed: true excludes the Secret fields (Quorum issues every certificate then); remove "
        "them, or remove managed to bring all your own Secrets"}},
  });

  Json pdb_spec = Object(
      "At most one of minAvailable and maxUnavailable. Both empty: minAvailable is the quorum "
      "(replicas/2+1), recomputed when the cluster scales.",
      {
          {"minAvailable",
           IntOrString(
               "Members that must stay available during voluntary disruptions: a count "
               "from 0 to replicas (a string of digits such as \"2\" counts too) or a percentage "
               "such as \"60%\" (rounded up). Less "
               "than the quorum lets an eviction stop the cluster.")},
          {"maxUnavailable",
           IntOrString("Members that may be unavailable during voluntary disruptions: a count "
                       "from 0 to replicas (also as a string, e.g. \"0\") or a percentage (rounded "
                       "up).")},
      });
  pdb_spec["x-kubernetes-validations"] = Json::array({{
      {"rule", "!(has(self.minAvailable) && has(self.maxUnavailable))"},
      {"message", "minAvailable and maxUnavailable are mutually exclusive; set only one"},
  }});

  Json network_policy = Object(
      "Quorum's extension: a NetworkPolicy <name> selecting the members, Ingress only. The peer "
      "port (2380) admits the members only; the metrics port (2381) the members and the "
      "operator; the client port (2379) the members, the operator, the pods of the "
      "PostgresClusters whose spec.patroni.dcs.etcd.clusterRef names this cluster, its "
      "EtcdBackup Jobs, and clientFrom (default: every pod of the cluster's namespace, or "
      "anyone with a NodePort or LoadBalancer client Service). Absent: enabled with that "
      "default.",
      {{"enabled", Bool("Create the NetworkPolicy (default true). false: the operator deletes "
                        "it; write your own policy.")},
       {"clientFrom",
        NetworkPolicyPeersSchema(
            "Who may connect to the client port (2379) besides the members, the operator, the "
            "PostgresClusters that reference this cluster and its backup Jobs. Absent: every pod "
            "of the cluster's namespace (ClusterIP) or anyone (NodePort, LoadBalancer). An empty "
            "list: nobody else. Clients in other namespaces (e.g. a Kamaji tenant control plane, "
            "Kamaji's controller) need an entry here.")}});

  Json replicas = Int32(
      "Number of etcd members. Changing it scales the cluster one member at a time (a new member "
      "joins as a learner and is promoted once it caught up; a removed member hands over "
      "leadership first). 0 stops every member and keeps their volumes. Odd numbers make sense: "
      "3 members survive 1 failure, 5 survive 2. At most 9.");
  replicas["default"] = kDefaultReplicas;
  replicas["minimum"] = 0;
  replicas["maximum"] = kMaxReplicas;

  Json spec = Object(
      "The etcd cluster you want.",
      {
          {"replicas", replicas},
          {"options",
           StringMap("Extra etcd flags, as flag name (without \"--\") to value, e.g. "
                     "{election-timeout: \"1000\", quota-backend-bytes: \"8589934592\"}. An "
                     "empty value gives a bare --flag. Flags Quorum sets itself (name, data-dir, "
                     "listen and advertise URLs, initial-cluster*, discovery*, auto-tls, the TLS "
                     "file flags, config-file) are refused.")},
          {"storage", storage},
          {"podTemplate",
           Object("Customizes the member pods.",
                  {
                      {"metadata",
                       TemplateMetadata("Labels and annotations for the member pods.", true)},
                      {"spec", pod_spec},
                  })},
          {"serviceTemplate",
           Object("Customizes the client Service (port 2379) that consumers connect to.",
                  {
                      {"metadata", TemplateMetadata("Metadata of the client Service; name renames "
                                                    "it.",
                                                    true)},
                      {"spec", Ref(std::string(kCore) + "ServiceSpec",
                                   "Merged over the Service Quorum generates, e.g. type: "
                                   "LoadBalancer or extra ports.")},
                  })},
          {"headlessServiceTemplate",
           Object("Customizes the headless Service that gives each member its stable DNS name "
                  "for peer traffic.",
                  {{"metadata", TemplateMetadata("Metadata of the headless Service; name renames "
                                                 "it.",
                                                 true)}})},
          {"podDisruptionBudgetTemplate",
           Object("When set, Quorum creates a PodDisruptionBudget for the members so that drains "
                  "and other voluntary evictions keep the cluster serving. Omit it for no budget; "
                  "an empty spec keeps a quorum available.",
                  {
                      {"metadata", TemplateMetadata("Metadata of the PodDisruptionBudget.", true)},
                      {"spec", pdb_spec},
                  })},
          {"bootstrap",
           Object("How a new cluster starts. Read once, when the first member starts with an "
                  "empty data folder; changing it later has no effect.",
                  {{"restore",
                    Object("Start from an etcd snapshot (an EtcdBackup's) instead of empty: the "
                           "first member restores it with a new cluster ID, the others join it.",
                           {{"source",
                             BackupDestinationSchema(
                                 "Where the snapshot is: s3 (key: the object) or pvc "
                                 "(subPath: the snapshot file inside the claim; empty: snapshot.db "
                                 "at its root).")}})}})},
          {"security",
           Object("Transport security and authentication.",
                  {
                      {"tls", tls},
                      {"enableAuth",
                       Bool("Turn on etcd's role-based access control: Quorum creates the root "
                            "user and role and enables auth, then authenticates with its client "
                            "certificate. Requires client and server TLS: tls.managed, or "
                            "clientSecret, clientTrustedCASecret and serverSecret.")},
                  })},
          {"networkPolicy", network_policy},
      });
  spec["default"] = Json::object();
  // Transition rules sit on spec, not on storage: a rule runs only when the
  // old object had the field it is placed on (REFERENCE.md section 2).
  spec["x-kubernetes-validations"] = Json::array({
      {{"rule", "self.?storage.?emptyDir.hasValue() == oldSelf.?storage.?emptyDir.hasValue()"},
       {"message",
        "storage cannot switch between emptyDir and volumeClaimTemplate after creation (the "
        "members' data lives there); create a new EtcdCluster to change the storage type"},
       {"fieldPath", ".storage"},
       {"reason", "FieldValueForbidden"}},
      // An absent request is the default size, as the webhook and the parser
      // fill it in.
      {{"rule",
        "self.?storage.?emptyDir.hasValue() || oldSelf.?storage.?emptyDir.hasValue() || "
        "quantity(self.?storage.?volumeClaimTemplate.?spec.?resources.?requests[?'storage']"
        ".hasValue() ? string(self.storage.volumeClaimTemplate.spec.resources.requests["
        "'storage']) : '4Gi').compareTo(quantity(oldSelf.?storage.?volumeClaimTemplate.?spec."
        "?resources.?requests[?'storage'].hasValue() ? string(oldSelf.storage."
        "volumeClaimTemplate.spec.resources.requests['storage']) : '4Gi')) >= 0"},
       {"message",
        "the storage request cannot shrink: a PersistentVolumeClaim can only grow; keep the "
        "previous size or more (an absent request means 4Gi)"},
       {"fieldPath", ".storage.volumeClaimTemplate.spec.resources.requests['storage']"},
       {"reason", "FieldValueForbidden"}},
      // Security settings a running cluster cannot change in place (issue 33,
      // docs/operations.md "Edits to a running cluster"); the webhook says the same.
      {{"rule",
        "(self.?security.?tls.?peerSecret.orValue('') != '') == "
        "(oldSelf.?security.?tls.?peerSecret.orValue('') != '')"},
       {"message", std::string(kPeerTlsChangeMessage)},
       {"fieldPath", ".security.tls.peerSecret"},
       {"reason", "FieldValueForbidden"}},
      {{"rule",
        "(self.?security.?tls.?serverSecret.orValue('') != '') == "
        "(oldSelf.?security.?tls.?serverSecret.orValue('') != '')"},
       {"message", std::string(kServerTlsChangeMessage)},
       {"fieldPath", ".security.tls.serverSecret"},
       {"reason", "FieldValueForbidden"}},
      {{"rule",
        "!oldSelf.?security.?enableAuth.orValue(false) || "
        "self.?security.?enableAuth.orValue(false)"},
       {"message", std::string(kAuthOffMessage)},
       {"fieldPath", ".security.enableAuth"},
       {"reason", "FieldValueForbidden"}},
      {{"rule",
        "self.?security.?tls.?managed.orValue(false) == "
        "oldSelf.?security.?tls.?managed.orValue(false)"},
       {"message", std::string(kManagedTlsChangeMessage)},
       {"fieldPath", ".security.tls.managed"},
       {"reason", "FieldValueForbidden"}},
  });
  return spec;
}

Json Status() {
  Json conditions = {
      {"type", "array"},
      {"description",
       "Initialized (InitializationStarted, InitializationComplete), Ready "
       "(WaitingForFirstQuorum, QuorumLost, QuorumRecovering: Unknown for 10 s after a quorum "
       "loss ends, StatefulSetReady, StatefulSetNotReady, ...) and Error "
       "(Splitbrain: members report different cluster IDs)."},
      {"items", {{"$ref", std::string(kMeta) + "Condition"}}},
      {"x-kubernetes-list-type", "map"},
      {"x-kubernetes-list-map-keys", Json::array({"type"})},
  };
  Json member =
      Object("One etcd member as Quorum last saw it.",
             {
                 {"name", String("Member name (the pod's name).")},
                 {"id", String("Member ID, in hexadecimal as etcdctl prints it.")},
                 {"peerURL", String("URL the other members reach it on.")},
                 {"clientURL", String("URL clients reach it on.")},
                 {"isLearner", Bool("A learner receives the log but does not vote yet.")},
                 {"isLeader", Bool("This member is the Raft leader.")},
                 {"healthy", Bool("The member answered its health check.")},
                 {"version", String("etcd server version the member reports.")},
                 {"dataUID", String("UID of the storage (PVC, or the pod for emptyDir) the member "
                                    "first started on; a different UID later means its data is "
                                    "gone and the member is replaced.")},
             });
  return Object(
      "What Quorum observed. Written by Quorum only.",
      {
          {"conditions", conditions},
          {"observedGeneration", Int64("The metadata.generation this status describes.")},
          {"readyReplicas", Int32("Members that are running and healthy.")},
          {"replicas",
           Int32("Members the StatefulSet runs: reaches spec.replicas one membership step at a "
                 "time (the /scale subresource's status replicas).")},
          {"selector",
           String("Label selector of the member pods, for the /scale subresource (autoscalers).")},
          {"leader", String("Name of the member that is the Raft leader, if any.")},
          {"members",
           {{"type", "array"},
            {"description", "Every member of the etcd cluster."},
            {"items", member},
            {"x-kubernetes-list-type", "atomic"}}},
          {"clientEndpoint",
           String("Where clients connect, e.g. https://NAME.NAMESPACE.svc:2379 (the client "
                  "Service).")},
          {"clientSecretName",
           String("Secret holding a client certificate (tls.crt, tls.key, ca.crt) a consumer "
                  "such as a PostgresCluster can use; empty without client certificate auth.")},
          {"authSecretName",
           String("With enableAuth, once etcd enforces authentication: the Secret "
                  "(kubernetes.io/basic-auth: username, password) holding the etcd root "
                  "credentials the operator generated. Delete it only together with etcd's "
                  "root user.")},
          {"lowestVersion",
           String("The lowest etcd version any member answered since the operator first saw "
                  "the cluster, kept across upgrades: a cluster that ran 3.5 cannot be upgraded "
                  "in place to 3.7 (its members' logs may hold entries 3.7 cannot replay).")},
          {"minorSince",
           Object("Since when every member runs the cluster's current minor version, "
                  "recorded when all members first answered it: entries after raftIndex were "
                  "written by that minor or later. A cluster that ran 3.5 goes to 3.7 once "
                  "each member has taken a Raft snapshot after it.",
                  {{"minor", String("The minor version, e.g. 3.6.")},
                   {"raftIndex", Int64("The highest Raft index a member reported then.")}})},
      });
}

}  // namespace

Json EtcdClusterSchemaSource() {
  return Object(
      "An etcd cluster run by Quorum: a StatefulSet of members with a peer and a client Service, "
      "scaled and repaired one safe membership step at a time.",
      {
          {"apiVersion", String("Versioned schema of this object: etcd.aenix.io/v1alpha1.")},
          {"kind", String("Always EtcdCluster.")},
          {"metadata", {{"type", "object"}}},
          {"spec", Spec()},
          {"status", Status()},
      });
}

Json EtcdClusterPrinterColumns() {
  return Json::array({
      {{"name", "Replicas"},
       {"type", "integer"},
       {"jsonPath", ".spec.replicas"},
       {"description", "Desired members"}},
      {{"name", "Ready"},
       {"type", "integer"},
       {"jsonPath", ".status.readyReplicas"},
       {"description", "Healthy members"}},
      {{"name", "Leader"},
       {"type", "string"},
       {"jsonPath", ".status.leader"},
       {"description", "Raft leader"}},
      {{"name", "Version"},
       {"type", "string"},
       {"jsonPath", ".status.lowestVersion"},
       {"description", "Lowest etcd version any member runs"}},
      {{"name", "Status"},
       {"type", "string"},
       {"jsonPath", ".status.conditions[?(@.type==\"Ready\")].reason"},
       {"description", "Reason of the Ready condition"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace quorum::api
