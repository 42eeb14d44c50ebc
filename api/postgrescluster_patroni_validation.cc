// ValidatePatroni (postgrescluster_validation_internal.h): the rules of
// spec.patroni, its DCS and switchover.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster_validation.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_etcd_url.h"
#include "api/postgrescluster_validation_internal.h"
#include "src/base/json_access.h"

namespace quorum::api::internal {

using json_access::Child;
using json_access::Display;
using json_access::Dump;
using json_access::Int;
using json_access::Path;
using json_access::Str;
namespace {

using Json = nlohmann::json;

constexpr char kPatroni[] = "spec.patroni";
constexpr char kEtcd[] = "spec.patroni.dcs.etcd";

class PatroniRules {
 public:
  explicit PatroniRules(ErrorList& errors) : errors_(errors) {}

  void Add(std::string field, std::string message) {
    errors_.Add(std::move(field), std::move(message));
  }

  void Check(const Json& spec, const Json* old_spec) {
    const Json* patroni = Child(&spec, "patroni");
    if (patroni != nullptr && !patroni->is_object()) {
      Add(kPatroni, "must be an object");
      return;
    }
    const int64_t ttl = Seconds(patroni, "leaderLeaseDurationSeconds",
                                kDefaultLeaderLeaseDurationSeconds, kMinLeaderLeaseDurationSeconds);
    const int64_t loop = Seconds(patroni, "syncPeriodSeconds", kDefaultSyncPeriodSeconds, 1);
    const int64_t retry = Seconds(patroni, "retryTimeoutSeconds", kDefaultRetryTimeoutSeconds, 1);
    if (ttl > 0 && loop > 0 && retry > 0 && loop + 2 * retry > ttl) {
      Add(absl::StrCat(kPatroni, ".leaderLeaseDurationSeconds"),
          absl::StrCat("syncPeriodSeconds + 2*retryTimeoutSeconds (", loop, " + 2*", retry, " = ",
                       loop + 2 * retry, ") must not exceed leaderLeaseDurationSeconds (", ttl,
                       "), as Patroni requires loop_wait + 2*retry_timeout <= ttl; set "
                       "leaderLeaseDurationSeconds to at least ",
                       loop + 2 * retry, " or lower the others"));
    }
    if (const Json* d = Child(patroni, "dynamicConfiguration"); d != nullptr && !d->is_object()) {
      Add(absl::StrCat(kPatroni, ".dynamicConfiguration"),
          "must be an object (Patroni's dynamic configuration), e.g. {postgresql: {parameters: "
          "{max_connections: \"200\"}}}");
    }

    const std::string type = DcsType(&spec);
    const bool etcd = type == kDcsEtcd;
    if (type != kDcsKubernetes && !etcd) {
      Add(absl::StrCat(kPatroni, ".dcs.type"),
          absl::StrCat("must be kubernetes or etcd (got \"", type, "\")"));
    }
    if (const Json* api = Child(patroni, "podAPIAccess")) {
      if (!api->is_boolean()) {
        Add(absl::StrCat(kPatroni, ".podAPIAccess"), "must be true or false");
      } else if (!api->get<bool>() && !etcd) {
        Add(absl::StrCat(kPatroni, ".podAPIAccess"),
            "false needs the etcd DCS: with the kubernetes DCS Patroni keeps its leader lock in "
            "the Kubernetes API, so the pods need API access; set podAPIAccess: true, or use "
            "dcs.type etcd");
      }
    }
    const Json* etcd_block = Path(patroni, {"dcs", "etcd"});
    if (etcd && etcd_block == nullptr) {
      Add(kEtcd,
          "required for dcs.type etcd: set endpoints (etcd URLs) or clusterRef (an "
          "EtcdCluster in this namespace)");
    } else if (!etcd && etcd_block != nullptr && type == kDcsKubernetes) {
      Add(kEtcd, "only for dcs.type etcd; remove it (the DCS type cannot change after creation)");
    } else if (etcd) {
      Etcd(*etcd_block);
    }
    if (old_spec != nullptr) {
      const std::string old_type = DcsType(old_spec);
      if (old_type != type) {
        Add(absl::StrCat(kPatroni, ".dcs.type"),
            absl::StrCat("cannot change from ", old_type, " to ", type,
                         " after creation (an absent dcs means kubernetes): Patroni's leader lock "
                         "and cluster state live there; keep ",
                         old_type, ", or create a new PostgresCluster to use another DCS"));
      } else if (etcd && etcd_block != nullptr) {
        EtcdLocation(*etcd_block, Path(old_spec, {"patroni", "dcs", "etcd"}));
      }
    }
    Switchover(Child(patroni, "switchover"));
  }

 private:
  int64_t Seconds(const Json* patroni, const char* key, int64_t fallback, int64_t min) {
    const Json* v = Child(patroni, key);
    if (v == nullptr) return fallback;
    std::optional<int64_t> n = Int(v);
    if (!n.has_value() || *n < min || *n > INT32_MAX) {
      Add(absl::StrCat(kPatroni, ".", key),
          absl::StrCat("must be a whole number of seconds, at least ", min, " (got ", Dump(*v),
                       ")"));
      return -1;
    }
    return *n;
  }

  void SecretName(const Json* etcd, const char* key) {
    const std::string name = Str(etcd, key);
    if (!name.empty() && !IsDns1123Subdomain(name)) {
      Add(absl::StrCat(kEtcd, ".", key),
          absl::StrCat("\"", name,
                       "\" is not a valid Secret name; use lowercase letters, digits, '-' and "
                       "'.'"));
    }
  }

  // Where the cluster's keys live cannot move while it runs: members still
  // holding the leader lock at the old location and members that find an
  // empty new one would each believe they lead. tlsSecret and authSecret may
  // change (credential rotation).
  void EtcdLocation(const Json& etcd, const Json* old_etcd) {
    if (old_etcd == nullptr) return;
    auto endpoints = [](const Json* e) {
      std::set<std::string> out;
      const Json* list = Child(e, "endpoints");
      for (size_t i = 0; list != nullptr && list->is_array() && i < list->size(); ++i) {
        out.insert(Display((*list)[i]));
      }
      return out;
    };
    auto show = [](const std::string& v) { return v.empty() ? std::string("(unset)") : v; };
    const std::string why =
        " after creation: Patroni's leader lock and cluster state live there, and members at the "
        "old and the new location could both lead; to move, create a new PostgresCluster "
        "(docs/etcd-dcs.md)";
    const std::string ref = Str(Child(&etcd, "clusterRef"), "name");
    const std::string old_ref = Str(Child(old_etcd, "clusterRef"), "name");
    if (ref != old_ref) {
      Add(absl::StrCat(kEtcd, ".clusterRef"),
          absl::StrCat("cannot change from ", show(old_ref), " to ", show(ref), why));
    }
    if (endpoints(&etcd) != endpoints(old_etcd)) {
      Add(absl::StrCat(kEtcd, ".endpoints"), "cannot change" + why);
    }
    const std::string ns = Str(&etcd, "namespace");
    const std::string old_ns = Str(old_etcd, "namespace");
    if (ns != old_ns) {
      Add(absl::StrCat(kEtcd, ".namespace"),
          absl::StrCat("cannot change from ", show(old_ns), " to ", show(ns), why));
    }
  }

  void Etcd(const Json& etcd) {
    if (!etcd.is_object()) {
      Add(kEtcd, "must be an object with endpoints or clusterRef");
      return;
    }
    const Json* ref = Child(&etcd, "clusterRef");
    const Json* endpoints = Child(&etcd, "endpoints");
    const bool has_endpoints = endpoints != nullptr && endpoints->is_array() && !endpoints->empty();
    if ((ref != nullptr) == has_endpoints) {
      Add(kEtcd, ref != nullptr ? "set either endpoints or clusterRef, not both: clusterRef takes "
                                  "the endpoints from the EtcdCluster; remove endpoints"
                                : "set exactly one of endpoints (etcd URLs, e.g. "
                                  "https://etcd-0.etcd:2379) and clusterRef (an EtcdCluster in "
                                  "this namespace)");
    }
    SecretName(&etcd, "tlsSecret");
    SecretName(&etcd, "authSecret");
    const bool tls = !Str(&etcd, "tlsSecret").empty();
    if (ref != nullptr) {
      const std::string name = Str(ref, "name");
      if (!IsDns1123Subdomain(name)) {
        Add(absl::StrCat(kEtcd, ".clusterRef.name"),
            absl::StrCat("\"", name, "\" is not a valid EtcdCluster name; name an EtcdCluster in ",
                         "this namespace"));
      }
      for (const char* key : {"tlsSecret", "authSecret"}) {
        if (!Str(&etcd, key).empty()) {
          Add(absl::StrCat(kEtcd, ".", key),
              "cannot be used with clusterRef: Quorum takes TLS and credentials from the "
              "EtcdCluster; remove it");
        }
      }
    }
    if (endpoints != nullptr) Endpoints(*endpoints, tls && ref == nullptr);
    const std::string ns = Str(&etcd, "namespace");
    for (char c : ns) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '/' || c == '_' || c == '.' || c == '-';
      if (!ok) {
        Add(absl::StrCat(kEtcd, ".namespace"),
            absl::StrCat("\"", ns, "\" may hold only letters, digits, '/', '_', '.' and '-'"));
        break;
      }
    }
  }

  void Endpoints(const Json& endpoints, bool tls) {
    const std::string field = absl::StrCat(kEtcd, ".endpoints");
    if (!endpoints.is_array()) {
      Add(field, "must be a list of etcd URLs, e.g. [https://etcd-0.etcd:2379]");
      return;
    }
    if (endpoints.size() > kMaxEtcdEndpoints) {
      Add(field, absl::StrCat("at most ", kMaxEtcdEndpoints, " endpoints (got ", endpoints.size(),
                              "); list some of the members, Patroni discovers the others"));
    }
    std::set<std::string> schemes, seen;
    for (size_t i = 0; i < endpoints.size(); ++i) {
      const std::string url = endpoints[i].is_string() ? endpoints[i].get<std::string>() : "";
      std::optional<EtcdUrl> parsed = ParseEtcdUrl(url);
      if (!parsed.has_value()) {
        Add(IndexedField(field, i),
            absl::StrCat("\"", Display(endpoints[i]),
                         "\" is not an etcd URL; write http:// or https:// with a host and an "
                         "optional port and no path, e.g. https://etcd-0.etcd:2379"));
        continue;
      }
      schemes.insert(parsed->scheme);
      if (!seen.insert(url).second) {
        Add(IndexedField(field, i),
            absl::StrCat("duplicate \"", url, "\"; list each endpoint once"));
      }
    }
    if (schemes.size() > 1) {
      Add(field,
          "mixes http:// and https://; Patroni uses one protocol for every endpoint, so use "
          "https:// (with tlsSecret) or http:// for all of them");
    } else if (tls && schemes.count("http") != 0) {
      Add(absl::StrCat(kEtcd, ".tlsSecret"),
          "needs https:// endpoints; change the endpoints to https:// or remove tlsSecret");
    }
  }

  void Switchover(const Json* switchover) {
    if (switchover == nullptr) return;
    const std::string base = absl::StrCat(kPatroni, ".switchover");
    const std::string type = Str(switchover, "type");
    if (!type.empty() && type != "Switchover" && type != "Failover") {
      Add(base + ".type", absl::StrCat("must be Switchover or Failover (got \"", type, "\")"));
    }
    const std::string target = Str(switchover, "targetInstance");
    if (!target.empty() && !IsDns1123Subdomain(target)) {
      Add(base + ".targetInstance",
          absl::StrCat("\"", target, "\" is not a pod name; name one of the cluster's pods"));
    }
    if (type == "Failover" && target.empty()) {
      Add(base + ".targetInstance",
          "required for type Failover: the pod to promote (a Switchover may leave it empty)");
    }
  }

  ErrorList& errors_;
};

}  // namespace

void ValidatePatroni(const Json& spec, const Json* old_spec, ErrorList& errors) {
  PatroniRules(errors).Check(spec, old_spec);
}

}  // namespace quorum::api::internal
