#include "api/postgrescluster_schema.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/network_policy_peers.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_monitoring_internal.h"
#include "api/postgrescluster_proxy_internal.h"
#include "api/schema_nodes.h"

namespace quorum::api {
namespace {

using internal::schema::Bool;
using internal::schema::CoreRef;
using internal::schema::Int32;
using internal::schema::Json;
using internal::schema::kMeta;
using internal::schema::Object;
using internal::schema::Ref;
using internal::schema::Rule;
using internal::schema::String;
using internal::schema::StringMap;
using internal::schema::Typed;

// Kubernetes name grammars as patterns (empty allowed where "" means unset).
constexpr char kDns1123Label[] = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
constexpr char kOptionalDns1123Subdomain[] =
    "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$";
constexpr char kDns1123Subdomain[] =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
constexpr char kPostgresIdentifier[] = "^[a-z_][a-z0-9_]{0,62}$";
// scheme://host[:port][/] — a host name, an IPv4 address or a bracketed IPv6
// address; Patroni's etcd3 client takes no path.
constexpr char kEtcdUrl[] =
    "^https?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?)(:[0-9]{1,5})?/?$";

Json WithPattern(Json node, const char* pattern, int max_length) {
  node["pattern"] = pattern;
  node["maxLength"] = max_length;
  return node;
}

// A point-in-time recovery's target (dataSource and the in-place restore).
Json RestoreTarget() {
  Json target = Object(
      "Where recovery stops (then the cluster is promoted). Exactly one; leave it out to "
      "recover to the end of the archived WAL.",
      {{"time", String("An RFC 3339 time, e.g. 2026-12-04T10:15:00Z: the last transaction "
                       "committed at or before it is kept.")},
       {"lsn", String("A WAL position, e.g. 0/5000100.")},
       {"xid", String("A transaction id: recovery stops after it commits.")}});
  target["maxProperties"] = 1;
  target["minProperties"] = 1;
  return target;
}

Json BackupSet() {
  return String(
      "A backup label (a PostgresBackup's status.backup.label). Empty: pgBackRest picks the "
      "newest backup that ends before a time target, else the newest.");
}

// spec.backups.pgbackrest (Crunchy PGO v5's field names). The webhook checks
// what a schema cannot say well: repo names unique, global keys Quorum owns or
// that hold secrets, and repo numbers in global keys that name no repo.
// NOLINTNEXTLINE(readability-function-size): one declarative schema literal.
Json PgBackRest() {
  Json repo_name = String("repo1, repo2, repo3 or repo4: pgBackRest's repository number.");
  repo_name["pattern"] = "^repo[1-4]$";
  repo_name["maxLength"] = 5;
  Json s3 = Object(
      "An S3 bucket, reached over HTTPS. Keys go into a Secret under configuration "
      "(repoN-s3-key, repoN-s3-key-secret), never here.",
      {{"bucket", WithPattern(String("The bucket; it must exist."), "^[a-z0-9][a-z0-9.-]*$", 63)},
       {"endpoint", WithPattern(String("host or host:port of the S3 API, without scheme, e.g. "
                                       "s3.eu-west-1.amazonaws.com or minio.backup.svc:9000."),
                                "^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?(:[0-9]{1,5})?$", 253)},
       {"region",
        WithPattern(String("The bucket's region, e.g. us-east-1."), "^[a-z0-9-]+$", 63)}});
  s3["required"] = Json::array({"bucket", "endpoint", "region"});
  Json schedules = Object(
      "Backups on a schedule: five-field cron lines in UTC (minute hour day-of-month month "
      "day-of-week, e.g. \"0 1 * * 0\"). At each time Quorum creates a PostgresBackup of that "
      "type into this repository.",
      {{"full", String("When to take full backups.")},
       {"differential", String("When to take differential backups (changes since the last full).")},
       {"incremental",
        String("When to take incremental backups (changes since the last backup).")}});
  Json claim = CoreRef(
      "PersistentVolumeClaimSpec",
      "The repository's claim: resources.requests.storage is required and may grow but never "
      "shrink; accessModes defaults to [ReadWriteOnce] (ReadWriteOncePod is refused: backup Jobs "
      "mount the claim next to the repository host).");
  claim["x-kubernetes-validations"] = Json::array({
      Rule("self.?resources.?requests[?'storage'].hasValue()",
           "resources.requests.storage is required: the size of the repository, e.g. 50Gi"),
  });
  Json volume = Object(
      "A PersistentVolumeClaim of the cluster's repository host (<cluster>-repo-host, one "
      "pod running pgBackRest's TLS server), named repoN-<cluster>-repo-host-0. Members archive "
      "through the host; backup Jobs mount the claim on the host's node. The claim outlives "
      "the cluster, like the members' volumes.",
      {{"volumeClaimSpec", claim}});
  volume["required"] = Json::array({"volumeClaimSpec"});
  Json repo = Object(
      "A pgBackRest repository: an S3 bucket (its path is repoN-path from global, default "
      "/pgbackrest/<namespace>/<cluster>/repoN) or a volume. Exactly one of s3 and volume; "
      "a repository cannot change from one to the other.",
      {{"name", repo_name}, {"s3", s3}, {"volume", volume}, {"schedules", schedules}});
  repo["required"] = Json::array({"name"});
  repo["x-kubernetes-validations"] = Json::array({
      Rule("has(self.s3) != has(self.volume)", "set exactly one of s3 and volume"),
  });
  Json repos = Typed("array", "Where backups and archived WAL go: 1 to 4 repositories.");
  repos["items"] = repo;
  repos["minItems"] = 1;
  repos["maxItems"] = 4;
  repos["x-kubernetes-list-type"] = "map";
  repos["x-kubernetes-list-map-keys"] = Json::array({"name"});

  Json secret =
      Object("A Secret in the cluster's namespace.",
             {{"name", WithPattern(String("The Secret's name."), kDns1123Subdomain, 253)}});
  secret["required"] = Json::array({"name"});
  Json projection = Object(
      "A Secret whose keys become files in /etc/pgbackrest/conf.d: those ending in .conf are "
      "pgBackRest configuration (e.g. s3.conf with [global] repo1-s3-key=... and "
      "repo1-s3-key-secret=...), others can be named by options (repo1-storage-ca-file="
      "/etc/pgbackrest/conf.d/ca.crt).",
      {{"secret", secret}});
  projection["required"] = Json::array({"secret"});
  Json configuration = Typed("array", "Secrets with pgBackRest configuration and files.");
  configuration["items"] = projection;
  configuration["maxItems"] = 8;

  Json global = StringMap(
      "pgBackRest options for every command, e.g. repo1-retention-full: \"7\", "
      "repo1-s3-uri-style: path, repo1-storage-ca-file. Quorum sets stanza, pg*, "
      "repoN-type, repoN-s3-bucket/endpoint/region and the paths of logs and locks itself; "
      "secrets (repoN-s3-key, repoN-s3-key-secret, repoN-cipher-pass) belong in a Secret "
      "under configuration.");
  global["maxProperties"] = 64;
  Json restore = Object(
      "An in-place restore of this cluster from one of its repositories, done when the "
      "annotation postgres.quorum.dev/pgbackrest-restore gets a new value: the members stop, "
      "their volumes and Patroni's state in the DCS are removed, the first member restores and "
      "recovers (to target), the others are cloned from it. Everything written after the "
      "restored point is lost.",
      {{"enabled", Bool("Allow restores through the annotation.")},
       {"repoName", repo_name},
       {"set", BackupSet()},
       {"target", RestoreTarget()}});
  restore["required"] = Json::array({"enabled", "repoName"});
  Json out = Object(
      "pgBackRest: WAL archived continuously from the primary (archive_command) to every repo, "
      "the stanza (\"db\") created by the first archive.",
      {{"repos", repos},
       {"configuration", configuration},
       {"global", global},
       {"restore", restore}});
  out["required"] = Json::array({"repos"});
  return out;
}

// spec.dataSource: one repository of the shape above, where it is, and how
// far to recover.
Json DataSource() {
  const Json pgbr = PgBackRest();
  Json repo = pgbr["properties"]["repos"]["items"];
  repo["properties"].erase("schedules");
  // Only buckets: a volume belongs to the cluster that wrote it.
  repo["properties"].erase("volume");
  repo.erase("x-kubernetes-validations");
  repo["required"] = Json::array({"name", "s3"});
  repo["description"] =
      "The repository holding the backup: its name in the cluster that wrote it and its bucket.";
  Json src = Object(
      "Restore a pgBackRest backup into the new cluster's first member, recover (to target), "
      "then promote; the other members are cloned from it.",
      {{"clusterName", String("The PostgresCluster that wrote the repository (it may be "
                              "deleted): its path is /pgbackrest/<clusterNamespace>/"
                              "<clusterName>/repoN. Or set repoN-path in global.")},
       {"clusterNamespace", String("Its namespace. Empty: this cluster's.")},
       {"repo", repo},
       {"configuration", pgbr["properties"]["configuration"]},
       {"global", pgbr["properties"]["global"]},
       {"set", BackupSet()},
       {"target", RestoreTarget()}});
  src["required"] = Json::array({"repo"});
  Json out = Object("Where the cluster's data comes from when it is created. Immutable.",
                    {{"pgbackrest", src}});
  out["required"] = Json::array({"pgbackrest"});
  out["x-kubernetes-validations"] = Json::array(
      {Rule("self == oldSelf", "dataSource cannot change: it only says how the cluster was created",
            "", "FieldValueForbidden")});
  return out;
}

Json Metadata(const char* what) {
  return Object(what,
                {
                    {"labels", StringMap("Labels added next to the ones Quorum sets (Quorum's "
                                         "own labels win on conflict).")},
                    {"annotations", StringMap("Annotations added to the generated objects.")},
                });
}

Json InstanceSet() {
  Json name = WithPattern(String("Name of the instance set, unique in the cluster: a DNS label. "
                                 "Its StatefulSet is <cluster>-<name> and must fit 52 "
                                 "characters. Defaults to \"main\", so a single instance set "
                                 "needs no name."),
                          kDns1123Label, 63);
  name["default"] = std::string(kDefaultInstanceSetName);

  Json replicas = Int32(
      "PostgreSQL instances (pods) in this set. Patroni elects one primary across all sets; the "
      "others stream from it. 0 stops the set and keeps its volumes. At most 32.");
  replicas["default"] = kDefaultInstanceReplicas;
  replicas["minimum"] = 0;
  replicas["maximum"] = kMaxInstanceReplicas;

  Json data =
      CoreRef("PersistentVolumeClaimSpec",
              "The volume each instance keeps its data directory on, one claim per pod. "
              "resources.requests.storage is required and may grow but never shrink; accessModes "
              "defaults to [ReadWriteOnce].");
  // Only presence: the size rules (> 0, never shrinking) parse quantities,
  // which CEL's cost estimate cannot bound inside the Kubernetes type (its
  // strings have no maxLength); the validating webhook enforces those.
  data["x-kubernetes-validations"] = Json::array({
      Rule("self.?resources.?requests[?'storage'].hasValue()",
           "resources.requests.storage is required: the size of each instance's data volume, "
           "e.g. 10Gi"),
  });

  Json tolerations = {
      {"type", "array"},
      {"description", "Tolerations of the instances' pods."},
      {"items", CoreRef("Toleration", "A toleration.")},
      {"x-kubernetes-list-type", "atomic"},
  };
  Json spread = {
      {"type", "array"},
      {"description",
       "How the instances' pods spread across zones, nodes or other topology domains."},
      {"items", CoreRef("TopologySpreadConstraint", "A spread constraint.")},
      {"x-kubernetes-list-type", "map"},
      {"x-kubernetes-list-map-keys", Json::array({"topologyKey", "whenUnsatisfiable"})},
  };

  Json set =
      Object("A group of identical PostgreSQL instances (one StatefulSet).",
             {
                 {"name", name},
                 {"replicas", replicas},
                 {"dataVolumeClaimSpec", data},
                 {"resources", CoreRef("ResourceRequirements",
                                       "CPU and memory of the database container (PostgreSQL and "
                                       "Patroni).")},
                 {"affinity", CoreRef("Affinity", "Scheduling affinity of the instances' pods.")},
                 {"tolerations", tolerations},
                 {"topologySpreadConstraints", spread},
                 {"metadata", Metadata("Labels and annotations for the instances' pods.")},
             });
  set["required"] = Json::array({"dataVolumeClaimSpec"});
  return set;
}

// Just over 80 lines: one schema literal with its CEL transition rules (the
// DCS location cannot move), read top to bottom like the CRD it generates.
// NOLINTNEXTLINE(readability-function-size): one declarative schema literal.
Json Etcd() {
  Json endpoints = {
      {"type", "array"},
      {"description",
       "URLs of the etcd members Patroni talks to, e.g. https://etcd-0.etcd:2379: 1 to 7, all "
       "http:// or all https://, no path. Exactly one of endpoints and clusterRef. Cannot change "
       "after creation (reordering is fine)."},
      {"items", WithPattern(String("scheme://host[:port]"), kEtcdUrl, 512)},
      {"maxItems", kMaxEtcdEndpoints},
      {"x-kubernetes-list-type", "set"},
      {"x-kubernetes-validations",
       Json::array({Rule("self.all(e, e.startsWith('https://')) || "
                         "self.all(e, e.startsWith('http://'))",
                         "use one scheme for every endpoint: all http:// or all https://")})},
  };
  Json cluster_ref = Object(
      "An EtcdCluster run by Quorum in the same namespace. Its client endpoint, TLS material and "
      "credentials are used; the PostgresCluster waits until it is Ready. Exactly one of "
      "endpoints and clusterRef. Cannot change after creation.",
      {{"name", WithPattern(String("Name of the EtcdCluster."), kDns1123Subdomain, 253)}});
  cluster_ref["required"] = Json::array({"name"});

  Json etcd = Object(
      "Where the etcd DCS is. Only with type etcd.",
      {
          {"clusterRef", cluster_ref},
          {"endpoints", endpoints},
          {"tlsSecret",
           WithPattern(String("Secret with ca.crt (to verify the etcd servers) and tls.crt, "
                              "tls.key (the client certificate Patroni presents). Needs https:// "
                              "endpoints; not with clusterRef."),
                       kOptionalDns1123Subdomain, 253)},
          {"authSecret",
           WithPattern(String("Secret with username and password of an etcd user; they reach "
                              "Patroni only as environment variables. Not with clusterRef."),
                       kOptionalDns1123Subdomain, 253)},
          {"namespace",
           WithPattern(String("Key prefix of this cluster in etcd (Patroni's namespace). Empty: "
                              "derived from the Kubernetes namespace, so clusters of the same "
                              "name in different namespaces can share one etcd. Cannot change "
                              "after creation."),
                       "^[A-Za-z0-9/_.-]*$", 253)},
      });
  etcd["x-kubernetes-validations"] = Json::array({
      Rule("has(self.clusterRef) != (size(self.?endpoints.orValue([])) > 0)",
           "set exactly one of endpoints (etcd URLs) and clusterRef (an EtcdCluster in this "
           "namespace)"),
      Rule("!has(self.clusterRef) || "
           "(self.?tlsSecret.orValue('') == '' && self.?authSecret.orValue('') == '')",
           "tlsSecret and authSecret cannot be used with clusterRef: Quorum takes TLS and "
           "credentials from the EtcdCluster; remove them",
           ".clusterRef"),
      Rule("self.?tlsSecret.orValue('') == '' || !has(self.endpoints) || "
           "self.endpoints.all(e, e.startsWith('https://'))",
           "tlsSecret needs https:// endpoints; change the endpoints to https:// or remove "
           "tlsSecret",
           ".tlsSecret"),
      // Transition rules (they run on updates that keep the etcd block; the
      // rule on spec refuses dropping it): where the keys live is fixed, or
      // members at the old and the new location could both lead. has()
      // rather than optionals keeps CEL's cost estimate bounded.
      Rule("has(self.clusterRef) == has(oldSelf.clusterRef) && "
           "(!has(self.clusterRef) || self.clusterRef.name == oldSelf.clusterRef.name)",
           "clusterRef cannot change after creation: Patroni's leader lock and cluster state live "
           "in that etcd; to move, create a new PostgresCluster",
           ".clusterRef", "FieldValueForbidden"),
      Rule("(has(self.endpoints) ? size(self.endpoints) : 0) == "
           "(has(oldSelf.endpoints) ? size(oldSelf.endpoints) : 0) && "
           "(!has(self.endpoints) || !has(oldSelf.endpoints) || "
           "self.endpoints.all(e, e in oldSelf.endpoints))",
           "endpoints cannot change after creation: Patroni's leader lock and cluster state live "
           "in that etcd; to move, create a new PostgresCluster",
           ".endpoints", "FieldValueForbidden"),
      Rule("(has(self.__namespace__) && self.__namespace__ != '') == "
           "(has(oldSelf.__namespace__) && oldSelf.__namespace__ != '') && "
           "(!has(self.__namespace__) || !has(oldSelf.__namespace__) || "
           "self.__namespace__ == oldSelf.__namespace__)",
           "namespace (the key prefix) cannot change after creation: Patroni's leader lock and "
           "cluster state live under it; to move, create a new PostgresCluster",
           ".namespace", "FieldValueForbidden"),
  });
  return etcd;
}

// spec.networkPolicy.postgresFrom: NetworkPolicyPeers as networking.k8s.io/v1
// writes them (network_policy_peers.h).
Json PostgresFrom() {
  return NetworkPolicyPeersSchema(
      "Who may connect to PostgreSQL besides the members and the operator. Absent: every pod of "
      "the namespace (ClusterIP) or anyone (NodePort, LoadBalancer). An empty list: nobody "
      "else.");
}

// Longer than 80 lines on purpose: one declarative schema literal that reads
// top to bottom like the CRD it generates; splitting it would scatter fields.
// NOLINTNEXTLINE(readability-function-size): one declarative schema literal.
Json Patroni() {
  Json ttl = Int32(
      "How long the leader lock lasts without renewal, in seconds (Patroni's ttl): a primary "
      "that cannot renew it for this long demotes itself, and a replica may take over.");
  ttl["default"] = kDefaultLeaderLeaseDurationSeconds;
  ttl["minimum"] = kMinLeaderLeaseDurationSeconds;
  Json loop =
      Int32("Seconds between two runs of Patroni's HA loop (loop_wait); each run renews the lock.");
  loop["default"] = kDefaultSyncPeriodSeconds;
  loop["minimum"] = 1;
  Json retry = Int32(
      "Seconds Patroni retries DCS and PostgreSQL operations before giving up "
      "(retry_timeout). syncPeriodSeconds + 2*retryTimeoutSeconds must not exceed "
      "leaderLeaseDurationSeconds.");
  retry["default"] = kDefaultRetryTimeoutSeconds;
  retry["minimum"] = 1;

  Json dynamic = Typed("object",
                       "Patroni's dynamic configuration (bootstrap.dcs), merged over Quorum's: "
                       "postgresql.parameters, pg_hba and the like, e.g. {postgresql: "
                       "{parameters: {max_connections: \"200\"}}}. The timings above win.");
  dynamic["x-kubernetes-preserve-unknown-fields"] = true;

  // No schema default: it depends on dcs.type (the webhook and the operator
  // apply it).
  Json pod_api = Bool(
      "Whether the instances' pods get a ServiceAccount token and a Role. false: no token and no "
      "Role at all, Quorum alone keeps the pods' role labels; only with the etcd DCS (the "
      "kubernetes DCS keeps the leader lock in the Kubernetes API). Default: true with the "
      "kubernetes DCS, false with etcd.");

  Json type = String(
      "kubernetes (default): Patroni keeps its leader lock and state in the Kubernetes API. "
      "etcd: in an etcd cluster (etcd block). Cannot change after creation, and adding dcs later "
      "counts as a change from kubernetes.");
  type["enum"] = Json::array({std::string(kDcsKubernetes), std::string(kDcsEtcd)});
  type["maxLength"] = 16;  // bounds the CEL cost of comparing it
  type["default"] = std::string(kDcsKubernetes);
  Json dcs = Object("Where Patroni keeps its leader lock and cluster state.",
                    {{"type", type}, {"etcd", Etcd()}});
  dcs["default"] = Json::object();
  dcs["x-kubernetes-validations"] = Json::array({
      Rule("self.?type.orValue('kubernetes') != 'etcd' || has(self.etcd)",
           "type etcd needs the etcd block: set etcd.endpoints or etcd.clusterRef", ".etcd",
           "FieldValueRequired"),
      Rule("self.?type.orValue('kubernetes') == 'etcd' || !has(self.etcd)",
           "the etcd block is only for type etcd; remove it (the DCS type cannot change after "
           "creation)",
           ".etcd"),
  });

  Json switchover_type = String(
      "Switchover (default): a planned change of primary, refused when the cluster is "
      "unhealthy. Failover: promote targetInstance even then.");
  switchover_type["enum"] = Json::array({"Switchover", "Failover"});
  switchover_type["maxLength"] = 16;
  switchover_type["default"] = std::string(kDefaultSwitchoverType);
  Json switchover = Object(
      "A change of primary, performed when enabled and the trigger annotation "
      "postgres.quorum.dev/trigger-switchover gets a new value.",
      {
          {"enabled", Bool("Allow switchovers through the trigger annotation.")},
          {"targetInstance",
           WithPattern(String("The pod to promote; empty lets Patroni choose a healthy replica "
                              "(Switchover only)."),
                       kOptionalDns1123Subdomain, 253)},
          {"type", switchover_type},
      });
  switchover["x-kubernetes-validations"] = Json::array({
      Rule("self.?type.orValue('Switchover') != 'Failover' || "
           "self.?targetInstance.orValue('') != ''",
           "type Failover needs targetInstance: the pod to promote", ".targetInstance",
           "FieldValueRequired"),
  });

  Json patroni = Object("How Patroni runs the cluster.", {
                                                             {"leaderLeaseDurationSeconds", ttl},
                                                             {"syncPeriodSeconds", loop},
                                                             {"retryTimeoutSeconds", retry},
                                                             {"dynamicConfiguration", dynamic},
                                                             {"podAPIAccess", pod_api},
                                                             {"dcs", dcs},
                                                             {"switchover", switchover},
                                                         });
  patroni["default"] = Json::object();
  patroni["x-kubernetes-validations"] = Json::array({
      Rule("self.?syncPeriodSeconds.orValue(10) + 2 * self.?retryTimeoutSeconds.orValue(10) <= "
           "self.?leaderLeaseDurationSeconds.orValue(30)",
           "syncPeriodSeconds + 2*retryTimeoutSeconds must not exceed leaderLeaseDurationSeconds "
           "(Patroni: loop_wait + 2*retry_timeout <= ttl); raise leaderLeaseDurationSeconds or "
           "lower the others",
           ".leaderLeaseDurationSeconds"),
      Rule("self.?podAPIAccess.orValue(true) || self.?dcs.?type.orValue('kubernetes') == 'etcd'",
           "podAPIAccess: false needs dcs.type etcd: with the kubernetes DCS Patroni keeps its "
           "leader lock in the Kubernetes API; set podAPIAccess: true or use the etcd DCS",
           ".podAPIAccess"),
  });
  return patroni;
}

Json User() {
  Json name = WithPattern(
      String("Role name: lowercase letters, digits and _, not starting with a digit, at most 63 "
             "characters. Not postgres, replicator, quorum_pooler or quorum_pooler_admin "
             "(Quorum's own roles) and not starting with pg_."),
      kPostgresIdentifier, 63);
  name["x-kubernetes-validations"] = Json::array({
      Rule("!(self in ['postgres', 'replicator', 'quorum_pooler', 'quorum_pooler_admin']) && "
           "!self.startsWith('pg_')",
           "postgres, replicator, quorum_pooler and quorum_pooler_admin are Quorum's own roles "
           "and names starting with pg_ are reserved by PostgreSQL; choose another name"),
  });
  Json databases = {
      {"type", "array"},
      {"description",
       "Databases created for this user, who owns them. Same naming rule as the user name; not "
       "template0 or template1."},
      {"items", WithPattern(String("A database name."), kPostgresIdentifier, 63)},
      {"maxItems", kMaxDatabasesPerUser},
      {"x-kubernetes-list-type", "set"},
      {"x-kubernetes-validations",
       Json::array({Rule("self.all(d, !(d in ['template0', 'template1']))",
                         "template0 and template1 are PostgreSQL's templates; choose another "
                         "database name")})},
  };
  Json option = String("A role attribute.");
  Json allowed = Json::array();
  for (std::string_view o : AllowedRoleOptions()) allowed.push_back(std::string(o));
  option["enum"] = allowed;
  option["maxLength"] = 16;  // bounds the CEL cost of comparing it
  Json options = {
      {"type", "array"},
      {"description",
       "Role attributes: CREATEDB, CREATEROLE (postgresVersion 16 or later), INHERIT, LOGIN and "
       "their NO forms. Superuser, replication and RLS bypass are not offered. Empty: a role "
       "that can log in."},
      {"items", option},
      {"maxItems", AllowedRoleOptions().size()},
      {"x-kubernetes-list-type", "set"},
      {"x-kubernetes-validations",
       Json::array({Rule("!('CREATEDB' in self && 'NOCREATEDB' in self) && "
                         "!('CREATEROLE' in self && 'NOCREATEROLE' in self) && "
                         "!('INHERIT' in self && 'NOINHERIT' in self) && "
                         "!('LOGIN' in self && 'NOLOGIN' in self)",
                         "an attribute and its NO form contradict each other (e.g. LOGIN and "
                         "NOLOGIN); keep one")})},
  };
  Json user = Object("A PostgreSQL role Quorum creates, with a generated password in a Secret.",
                     {{"name", name}, {"databases", databases}, {"options", options}});
  user["required"] = Json::array({"name"});
  return user;
}

// spec.authentication: pg_hba rules of the user's (the webhook checks every
// token; these rules are what CEL can say without it).
Json Authentication() {
  Json connection = String(
      "hostssl (default: TLS only), host (TLS or not; needs "
      "tls.allowPlaintext) or local (the pods' unix socket).");
  connection["enum"] = Json::array({"hostssl", "host", "local"});
  connection["default"] = std::string(kDefaultHbaConnection);
  Json method = String(
      "scram-sha-256, md5, cert (hostssl) or reject; on local rules also peer, "
      "trust or password.");
  method["enum"] =
      Json::array({"scram-sha-256", "md5", "cert", "reject", "peer", "trust", "password"});
  auto names = [](const char* d) {
    Json item =
        WithPattern(String("A name, or a keyword (all, ...)."), "^[+]?[A-Za-z0-9_$.-]{1,63}$", 64);
    return Json{{"type", "array"},
                {"description", d},
                {"items", item},
                {"minItems", 1},
                {"maxItems", kMaxHbaNames}};
  };
  Json options = StringMap(
      "clientcert (verify-ca or verify-full; cert: verify-full) or map (a "
      "postgresql.pg_ident map, with cert or peer).");
  options["maxProperties"] = 2;
  Json rule = Object(
      "One pg_hba line.",
      {{"connection", connection},
       {"databases", names("Databases it matches (names, all, sameuser, samerole, replication). "
                           "Leave out for all.")},
       {"users", names("Roles it matches (names, +role for its members, all); not postgres or "
                       "replicator, whose rules come first. Leave out for all.")},
       {"address", WithPattern(String("Where clients come from: a CIDR without host bits, all "
                                      "(default), samehost or samenet. Not for local."),
                               "^[0-9A-Fa-f.:/a-z]+$", 64)},
       {"method", method},
       {"options", options}});
  rule["required"] = Json::array({"method"});
  rule["x-kubernetes-validations"] = Json::array({
      Rule("self.connection == 'local' || !(self.method in ['trust', 'password', 'peer'])",
           "trust, password and peer are for local rules only: trust admits anyone from the "
           "network, password sends it in clear text; use scram-sha-256 or cert",
           ".method"),
      Rule("self.connection != 'local' || !has(self.address)",
           "local rules (the unix socket) take no address", ".address"),
  });
  Json rules = {{"type", "array"},
                {"description",
                 "pg_hba rules, in order, after Quorum's rules for its own roles and before the "
                 "catch-all rules (every role by scram-sha-256, over TLS)."},
                {"items", rule},
                {"maxItems", kMaxHbaRules}};
  return Object("Who may connect how (pg_hba.conf).", {{"rules", rules}});
}

// NOLINTNEXTLINE(readability-function-size): one declarative schema literal.
Json Spec() {
  Json version = Int32(
      "PostgreSQL major version, 13 to 18. Chooses the default image and the binaries' path. "
      "Raising it upgrades the data in place with pg_upgrade (status.majorUpgrade, "
      "docs/upgrades.md); it goes down only back to the data's major after a failed upgrade "
      "(the admission webhook checks, the status being needed).");
  version["minimum"] = kMinPostgresMajor;
  version["maximum"] = kMaxPostgresMajor;

  Json instances = {
      {"type", "array"},
      {"description",
       "Sets of PostgreSQL instances, 1 to 16, each a StatefulSet; names are unique."},
      {"items", InstanceSet()},
      {"minItems", 1},
      {"maxItems", kMaxInstanceSets},
      {"x-kubernetes-list-type", "map"},
      {"x-kubernetes-list-map-keys", Json::array({"name"})},
  };
  Json users = {
      {"type", "array"},
      {"description", "PostgreSQL roles (and their databases) Quorum creates; names are unique."},
      {"items", User()},
      {"maxItems", kMaxUsers},
      {"x-kubernetes-list-type", "map"},
      {"x-kubernetes-list-map-keys", Json::array({"name"})},
  };
  Json service_type = String("ClusterIP (default), NodePort or LoadBalancer.");
  service_type["enum"] = Json::array({"ClusterIP", "NodePort", "LoadBalancer"});
  service_type["default"] = std::string(kDefaultServiceType);
  Json service = Object(
      "The primary Service that clients connect to (port 5432).",
      {{"type", service_type}, {"metadata", Metadata("Labels and annotations of the Service.")}});

  Json tls = Object(
      "PostgreSQL's TLS, always on. By default Quorum makes a CA per cluster (Secret "
      "<name>-ca) and issues the members' certificate (Secret <name>-tls, renewed when a third "
      "of its lifetime is left); connection Secrets carry ca.crt and sslmode=verify-full.",
      {{"customSecret",
        String("A kubernetes.io/tls Secret of yours (ca.crt, tls.crt, tls.key) the members "
               "serve as it is; you renew it. Excludes caSecret.")},
       {"caSecret",
        String("A Secret with your CA (tls.crt + tls.key, or ca.crt + ca.key) from which "
               "Quorum issues the members' certificate instead of a CA of its own. Excludes "
               "customSecret.")},
       {"allowPlaintext",
        Bool("Also accept client connections without TLS (pg_hba host rules after the "
             "hostssl ones). Default false: only TLS. Replication is TLS in any case.")}});
  Json network_policy = Object(
      "A NetworkPolicy <name> for the members: Patroni's REST API (8008) only from the "
      "cluster's own pods and the operator's pods; PostgreSQL (5432) from the members, the "
      "operator and postgresFrom (default: every pod of the cluster's namespace, or anywhere "
      "with a NodePort or LoadBalancer Service).",
      {{"enabled", Bool("Create the NetworkPolicy (default true).")},
       {"postgresFrom", PostgresFrom()}});

  Json backups = Object("Backups of the cluster (docs/backup.md).", {{"pgbackrest", PgBackRest()}});

  Json spec = Object(
      "The PostgreSQL cluster you want.",
      {
          {"postgresVersion", version},
          {"image", String("Image of the database container (PostgreSQL with Patroni 4). Empty: "
                           "ghcr.io/quorum-dev/postgres:<postgresVersion>-patroni4.")},
          {"instances", instances},
          {"patroni", Patroni()},
          {"users", users},
          {"authentication", Authentication()},
          {"service", service},
          {"tls", tls},
          {"networkPolicy", network_policy},
          {"backups", backups},
          {"dataSource", DataSource()},
          {"proxy", internal::ProxySchema()},
          {"monitoring", internal::MonitoringSchema()},
      });
  spec["required"] = Json::array({"postgresVersion", "instances"});
  spec["x-kubernetes-validations"] = Json::array({
      // On spec, not on dcs or type: a transition rule runs only when the
      // old object had the field it sits on (REFERENCE.md section 2), and
      // an absent dcs means kubernetes.
      // has() rather than optionals: CEL's cost estimate keeps the type's
      // maxLength only on the plain field.
      Rule("(has(self.patroni) && has(self.patroni.dcs) && has(self.patroni.dcs.type) && "
           "self.patroni.dcs.type == 'etcd') == "
           "(has(oldSelf.patroni) && has(oldSelf.patroni.dcs) && has(oldSelf.patroni.dcs.type) && "
           "oldSelf.patroni.dcs.type == 'etcd')",
           "the DCS type cannot change after creation (an absent dcs means kubernetes): "
           "Patroni's leader lock and cluster state live there; create a new PostgresCluster to "
           "use another DCS",
           ".patroni.dcs.type", "FieldValueForbidden"),
      Rule("self.postgresVersion >= 16 || !has(self.users) || "
           "self.users.all(u, !has(u.options) || !('CREATEROLE' in u.options))",
           "the CREATEROLE option needs postgresVersion 16 or later: before 16 such a role can "
           "make itself a member of any non-superuser role",
           ".users"),
      Rule("!has(self.authentication) || !has(self.authentication.rules) || "
           "(has(self.tls) && has(self.tls.allowPlaintext) && self.tls.allowPlaintext) || "
           "self.authentication.rules.all(r, r.connection != 'host')",
           "a host rule also admits connections without TLS, which this cluster refuses; use "
           "hostssl, or set tls.allowPlaintext: true",
           ".authentication.rules"),
  });
  return spec;
}

}  // namespace

Json PostgresClusterSchemaSource() {
  Json root = Object(
      "A highly available PostgreSQL cluster run by Patroni, with its leader lock in the "
      "Kubernetes API or in etcd.",
      {
          {"apiVersion", String("Versioned schema of this object: postgres.quorum.dev/v1alpha1.")},
          {"kind", String("Always PostgresCluster.")},
          // A CRD may only say that metadata.name is a string; the rules
          // below name it through fieldPath.
          {"metadata", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}},
          {"spec", Spec()},
          {"status", PostgresClusterStatusSchema()},
      });
  root["required"] = Json::array({"spec"});
  root["x-kubernetes-validations"] = Json::array({
      Rule("size(self.metadata.name) <= 50 && "
           "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
           "metadata.name must be at most 50 lowercase letters, digits and '-', starting with a "
           "letter: it names the cluster's Services and StatefulSets",
           ".metadata.name"),
      Rule("self.spec.instances.all(i, size(self.metadata.name) + size(i.name) < 52)",
           "metadata.name + \"-\" + spec.instances[].name names a StatefulSet and must be at most "
           "52 characters; shorten the cluster or the instance set name",
           ".metadata.name"),
  });
  return root;
}

}  // namespace quorum::api
