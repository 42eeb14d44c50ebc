#include "api/postgrescluster_validation.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdcluster_validation.h"
#include "api/network_policy_peers.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_proxy_internal.h"
#include "api/postgrescluster_validation_internal.h"
#include "api/quantity.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"

namespace quorum::api {
namespace internal {

std::string IndexedField(std::string_view base, size_t i) {
  return absl::StrCat(Absl(base), "[", i, "]");
}

std::string DcsType(const nlohmann::json* spec) {
  const nlohmann::json* type = json_access::Path(spec, {"patroni", "dcs", "type"});
  if (type == nullptr) return std::string(kDcsKubernetes);
  if (!type->is_string()) return json_access::Dump(*type);
  return type->get<std::string>().empty() ? std::string(kDcsKubernetes) : type->get<std::string>();
}

}  // namespace internal

namespace {

using Json = nlohmann::json;
using internal::ErrorList;
using json_access::Child;
using json_access::Display;
using json_access::Dump;
using json_access::Int;
using json_access::Path;
using json_access::Str;

bool IsDns1123Label(const std::string& s) {
  return s.size() <= 63 && s.find('.') == std::string::npos && IsDns1123Subdomain(s);
}

// An instance set's name; absent means the default, as everywhere (the CRD
// defaults it).
std::string InstanceSetName(const Json& set) {
  return Child(&set, "name") == nullptr ? std::string(kDefaultInstanceSetName) : Str(&set, "name");
}

// The rules of metadata.name and of spec outside patroni and users.
class Validator {
 public:
  explicit Validator(ErrorList& errors) : errors_(errors) {}

  void Add(std::string field, std::string message) {
    errors_.Add(std::move(field), std::move(message));
  }

  std::string Name(const Json& obj) {
    const std::string name = Str(Child(&obj, "metadata"), "name");
    if (name.empty()) return name;  // generateName: the API server checks the generated one
    if (!IsDns1035Label(name) || name.size() > kMaxPostgresClusterNameLength) {
      Add("metadata.name",
          absl::StrCat("\"", name,
                       "\" cannot name the cluster's Services and StatefulSets; use at ", "most ",
                       kMaxPostgresClusterNameLength,
                       " lowercase letters, digits and '-', starting with a letter"));
    }
    return name;
  }

  // Returns the major, or nullopt when missing or invalid.
  std::optional<int> Version(const Json& spec) {
    const Json* v = Child(&spec, "postgresVersion");
    std::optional<int64_t> n = Int(v);
    if (v == nullptr) {
      Add("spec.postgresVersion",
          absl::StrCat("required: the PostgreSQL major version, ", kMinPostgresMajor, " to ",
                       kMaxPostgresMajor, ", e.g. 17"));
      return std::nullopt;
    }
    if (!n.has_value() || *n < kMinPostgresMajor || *n > kMaxPostgresMajor) {
      Add("spec.postgresVersion",
          absl::StrCat("must be a supported PostgreSQL major version, ", kMinPostgresMajor, " to ",
                       kMaxPostgresMajor, " (got ", Dump(*v), ")"));
      return std::nullopt;
    }
    return static_cast<int>(*n);
  }

  void Image(const Json& spec) {
    const Json* image = Child(&spec, "image");
    if (image != nullptr && !image->is_string()) {
      Add("spec.image", "must be a string: an image reference, or empty for the default");
    }
  }

  void Instances(const Json& spec, const Json* old_spec, const std::string& cluster) {
    const Json* sets = Child(&spec, "instances");
    if (sets == nullptr || !sets->is_array() || sets->empty()) {
      Add("spec.instances",
          "required: at least one instance set, e.g. [{name: main, replicas: 3, "
          "dataVolumeClaimSpec: {resources: {requests: {storage: 10Gi}}}}]");
      return;
    }
    if (sets->size() > kMaxInstanceSets) {
      Add("spec.instances", absl::StrCat("at most ", kMaxInstanceSets, " instance sets (got ",
                                         sets->size(), "); merge some of them"));
    }
    std::map<std::string, const Json*> old_sets;
    if (const Json* old = Child(old_spec, "instances"); old != nullptr && old->is_array()) {
      for (const Json& s : *old) old_sets[InstanceSetName(s)] = &s;
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < sets->size(); ++i) {
      const Json& set = (*sets)[i];
      const std::string base = internal::IndexedField("spec.instances", i);
      if (!set.is_object()) {
        Add(base, "must be an object with name, replicas and dataVolumeClaimSpec");
        continue;
      }
      const std::string name = InstanceSetName(set);
      if (!IsDns1123Label(name)) {
        Add(base + ".name",
            absl::StrCat("\"", name,
                         "\" is not a valid instance set name; use lowercase letters, digits and "
                         "'-' (a DNS label), e.g. \"main\""));
      } else if (!seen.insert(name).second) {
        Add(base + ".name",
            absl::StrCat("duplicate \"", name, "\"; give each instance set its own name"));
      } else if (!cluster.empty() && cluster.size() + 1 + name.size() > kMaxStatefulSetNameLength) {
        Add(base + ".name",
            absl::StrCat("the StatefulSet \"", cluster, "-", name, "\" would have ",
                         cluster.size() + 1 + name.size(), " characters, more than ",
                         kMaxStatefulSetNameLength, "; shorten the instance set or cluster name"));
      }
      if (const Json* r = Child(&set, "replicas")) {
        std::optional<int64_t> n = Int(r);
        if (!n.has_value() || *n < 0 || *n > INT32_MAX) {
          Add(base + ".replicas",
              absl::StrCat("must be a whole number of instances, 0 or more (got ", Dump(*r), ")"));
        } else if (*n > kMaxInstanceReplicas) {
          Add(base + ".replicas",
              absl::StrCat("at most ", kMaxInstanceReplicas, " instances per set (got ", *n,
                           "): each replica streams from the one primary"));
        }
      }
      auto old = old_sets.find(name);
      DataVolume(set, base, old == old_sets.end() ? nullptr : old->second);
    }
  }

  void Service(const Json& spec) {
    const Json* service = Child(&spec, "service");
    if (service == nullptr) return;
    const Json* type = Child(service, "type");
    if (type == nullptr) return;
    const std::string t = type->is_string() ? type->get<std::string>() : Dump(*type);
    if (t != "ClusterIP" && t != "NodePort" && t != "LoadBalancer") {
      Add("spec.service.type",
          absl::StrCat("must be ClusterIP, NodePort or LoadBalancer (got \"", t, "\")"));
    }
  }

 private:
  void DataVolume(const Json& set, const std::string& base, const Json* old_set) {
    const std::string field = base + ".dataVolumeClaimSpec";
    const Json* pvc = Child(&set, "dataVolumeClaimSpec");
    if (pvc == nullptr || !pvc->is_object()) {
      Add(field,
          "required: the volume of each instance's data, e.g. {resources: {requests: {storage: "
          "10Gi}}}");
      return;
    }
    const std::string size_field = field + ".resources.requests.storage";
    const Json* request = Path(pvc, {"resources", "requests", "storage"});
    if (request == nullptr) {
      Add(size_field, "required: the size of each instance's data volume, e.g. 10Gi");
      return;
    }
    absl::StatusOr<Quantity> size = QuantityFromJson(*request);
    if (!size.ok()) {
      Add(size_field, std::string(size.status().message()));
      return;
    }
    if (size->nano() <= 0) {
      Add(size_field, "must be larger than 0, e.g. 10Gi");
      return;
    }
    const Json* old_request =
        Path(old_set, {"dataVolumeClaimSpec", "resources", "requests", "storage"});
    if (old_request == nullptr) return;
    absl::StatusOr<Quantity> old_size = QuantityFromJson(*old_request);
    if (old_size.ok() && *size < *old_size) {
      Add(size_field,
          absl::StrCat("cannot shrink from ", Display(*old_request), " to ", Display(*request),
                       "; a PersistentVolumeClaim can only grow: keep ", Display(*old_request),
                       " or more"));
    }
  }

  // A timing in seconds: the default when absent, -1 when invalid.
  ErrorList& errors_;
};

}  // namespace

std::vector<FieldError> ValidatePostgresCluster(const Json& obj, const Json* old) {
  std::vector<FieldError> errors;
  ErrorList list(errors);
  Validator v(list);
  if (!obj.is_object()) {
    v.Add("<root>", "a PostgresCluster must be a JSON object");
    return errors;
  }
  const Json* spec = Child(&obj, "spec");
  const Json* old_spec = old != nullptr ? Child(old, "spec") : nullptr;
  internal::ValidateRestoreTrigger(obj, old, list);
  if (old_spec != nullptr && spec != nullptr && *spec == *old_spec) return errors;
  if (old_spec != nullptr && !old_spec->is_object()) old_spec = nullptr;
  const std::string name = v.Name(obj);
  if (spec == nullptr || !spec->is_object()) {
    v.Add("spec",
          "required: a PostgresCluster needs a spec with postgresVersion and instances, e.g. "
          "{postgresVersion: 17, instances: [{dataVolumeClaimSpec: {resources: {requests: "
          "{storage: 10Gi}}}}]}");
    return errors;
  }
  const std::optional<int> version = v.Version(*spec);
  if (version.has_value()) internal::ValidateMajorChange(*spec, old, list);
  v.Image(*spec);
  v.Instances(*spec, old_spec, name);
  internal::ValidatePatroni(*spec, old_spec, list);
  internal::ValidateUsers(*spec, version, list);
  internal::ValidateAuthentication(*spec, list);
  v.Service(*spec);
  internal::ValidateTls(*spec, list);
  ValidateNetworkPolicySpec(*spec, "postgresFrom", errors);
  internal::ValidateBackups(*spec, old_spec, name, list);
  internal::ValidateDataSource(*spec, old_spec, list);
  internal::ValidateProxy(*spec, list);
  return errors;
}

std::vector<FieldError> ValidateSwitchoverTarget(const Json& obj, const Json* old) {
  std::vector<FieldError> errors;
  const Json* spec = Child(&obj, "spec");
  const Json* old_spec = old != nullptr ? Child(old, "spec") : nullptr;
  if (spec == nullptr || (old_spec != nullptr && *spec == *old_spec)) return errors;
  const std::string cluster = Str(Child(&obj, "metadata"), "name");
  const std::string target = Str(Child(Child(spec, "patroni"), "switchover"), "targetInstance");
  if (target.empty() || cluster.empty()) return errors;
  std::vector<std::string> sets;
  if (const Json* instances = Child(spec, "instances"); instances && instances->is_array()) {
    for (const Json& set : *instances) {
      std::string set_name = Str(&set, "name");
      if (set_name.empty()) set_name = std::string(kDefaultInstanceSetName);
      const std::string prefix = absl::StrCat(cluster, "-", set_name, "-");
      if (target.size() > prefix.size() && target.compare(0, prefix.size(), prefix) == 0 &&
          std::all_of(target.begin() + prefix.size(), target.end(),
                      [](char c) { return c >= '0' && c <= '9'; })) {
        return errors;
      }
      sets.push_back(prefix + "N");
    }
  }
  errors.push_back(
      {"spec.patroni.switchover.targetInstance",
       absl::StrCat("\"", target, "\" cannot be a member of this cluster: members are named ",
                    absl::StrJoin(sets, " or "), " (N = 0, 1, ...)")});
  return errors;
}

}  // namespace quorum::api
