#include "api/etcdcluster_validation.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster.h"
#include "api/network_policy_peers.h"
#include "api/quantity.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

// The container Quorum builds and merges podTemplate's container of this name into.
constexpr std::string_view kEtcdContainerName = "etcd";
using json_access::Child;
using json_access::Display;
using json_access::Dump;
using json_access::Int;
using json_access::Path;
using json_access::Str;

constexpr char kPdb[] = "spec.podDisruptionBudgetTemplate";
constexpr char kTls[] = "spec.security.tls";
constexpr char kStorageRequest[] =
    "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

class Validator {
 public:
  explicit Validator(std::vector<FieldError>& errors) : errors_(errors) {}

  void Add(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }

  void Name(const Json& obj) {
    const std::string name = Str(Child(&obj, "metadata"), "name");
    if (name.empty()) return;  // generateName: the API server checks the generated one
    if (!IsDns1035Label(name) || name.size() > kMaxEtcdClusterNameLength) {
      Add("metadata.name",
          absl::StrCat("\"", name, "\" cannot name the cluster's StatefulSet and Services; use at ",
                       "most ", kMaxEtcdClusterNameLength,
                       " lowercase letters, digits and '-', starting with a letter"));
    }
  }

  // Returns the replicas (default 3 when absent), or -1 when invalid.
  int Replicas(const Json& spec) {
    const Json* r = Child(&spec, "replicas");
    if (r == nullptr) return kDefaultReplicas;
    std::optional<int64_t> n = Int(r);
    if (!n.has_value() || *n < 0 || *n > INT32_MAX) {
      Add("spec.replicas", absl::StrCat("must be a whole number of members, 0 or more (got ",
                                        Dump(*r), "); use an odd number such as 3 or 5"));
      return -1;
    }
    if (*n > kMaxReplicas) {
      Add("spec.replicas",
          absl::StrCat("at most ", kMaxReplicas, " members (got ", *n,
                       "): every write waits for a majority, so more members only slow etcd "
                       "down; use 3, 5 or 7"));
      return -1;
    }
    return static_cast<int>(*n);
  }

  void Options(const Json& spec) {
    const Json* options = Child(&spec, "options");
    if (options == nullptr) return;
    if (!options->is_object()) {
      Add("spec.options",
          "must be a map of etcd flag names to values, e.g. {election-timeout: \"1000\"}");
      return;
    }
    for (const auto& [key, value] : options->items()) {
      const std::string field = absl::StrCat("spec.options[", key, "]");
      if (!value.is_string()) {
        Add(field,
            absl::StrCat("the value must be a string; quote it, e.g. \"", Dump(value), "\""));
      }
      if (key.empty()) {
        Add("spec.options", "a flag name is empty; remove that entry");
        continue;
      }
      if (key.front() == '-' || key.back() == '-') {
        Add(field,
            "a flag name must not start or end with '-'; write it without the leading dashes, "
            "e.g. \"election-timeout\" for --election-timeout");
        continue;
      }
      bool ok = true;
      for (char c : key) ok &= IsLowerAlnum(c) || c == '-';
      if (!ok) {
        Add(field, "a flag name has only lowercase letters, digits and '-', e.g. \"max-wals\"");
        continue;
      }
      if (IsReservedEtcdOption(key)) Add(field, ReservedHint(key));
    }
  }

  // The etcd container's identity (its command line and ETCD_* environment)
  // is Quorum's: a podTemplate that replaces it silently breaks the member
  // (pod_merge.h lets user fields override ours).
  void PodTemplate(const Json& spec) {
    const Json* containers = Path(&spec, {"podTemplate", "spec", "containers"});
    if (containers == nullptr || !containers->is_array()) return;
    for (size_t i = 0; i < containers->size(); ++i) {
      const Json& c = (*containers)[i];
      if (Str(&c, "name") != kEtcdContainerName) continue;
      const std::string field = absl::StrCat("spec.podTemplate.spec.containers[", i, "]");
      for (const char* key : {"command", "args"}) {
        if (Child(&c, key) != nullptr) {
          Add(field + "." + key,
              "Quorum builds the etcd container's command line (member name, URLs, TLS, "
              "cluster state); remove it and set etcd flags in spec.options");
        }
      }
      if (Child(&c, "envFrom") != nullptr) {
        Add(field + ".envFrom",
            "could set ETCD_* variables that override the member's identity; remove it (set "
            "etcd flags in spec.options, other variables one by one in env)");
      }
      const Json* env = Child(&c, "env");
      if (env == nullptr || !env->is_array()) continue;
      for (size_t j = 0; j < env->size(); ++j) {
        const std::string name = Str(&(*env)[j], "name");
        if (name.rfind("ETCD_", 0) == 0) {
          Add(absl::StrCat(field, ".env[", j, "].name"),
              absl::StrCat("\"", name,
                           "\" would override how Quorum configures the member; set etcd flags "
                           "in spec.options instead"));
        }
      }
    }
  }

  // Like aenix, emptyDir wins when both kinds are set (the template is then
  // ignored, and EtcdClusterWarnings says so); neither cannot reach here, as
  // defaulting fills in the PVC template.
  void Storage(const Json& spec, const Json* old_spec) {
    const Json* storage = Child(&spec, "storage");
    if (storage == nullptr || !storage->is_object()) {
      Add("spec.storage",
          "required: set emptyDir: {} or a volumeClaimTemplate (or omit spec.storage for a "
          "4Gi ReadWriteOnce PVC per member)");
      return;
    }
    const Json* empty_dir = Child(storage, "emptyDir");
    const Json* vct = empty_dir == nullptr ? Child(storage, "volumeClaimTemplate") : nullptr;
    if (empty_dir == nullptr && vct == nullptr) {
      Add("spec.storage", "set either emptyDir: {} or a volumeClaimTemplate");
    }
    if (empty_dir != nullptr) {
      if (const Json* limit = Child(empty_dir, "sizeLimit")) {
        absl::StatusOr<Quantity> q = QuantityFromJson(*limit);
        if (!q.ok()) Add("spec.storage.emptyDir.sizeLimit", std::string(q.status().message()));
      }
    }
    std::optional<Quantity> size;
    const Json* request = Path(vct, {"spec", "resources", "requests", "storage"});
    if (vct != nullptr) {
      if (request == nullptr) {
        Add(kStorageRequest, "required: set the size of each member's volume, e.g. 4Gi");
      } else if (absl::StatusOr<Quantity> q = QuantityFromJson(*request); !q.ok()) {
        Add(kStorageRequest, std::string(q.status().message()));
      } else if (q->nano() <= 0) {
        Add(kStorageRequest, "must be larger than 0, e.g. 4Gi");
      } else {
        size = *q;
      }
    }
    if (old_spec != nullptr) {
      StorageChange(Child(old_spec, "storage"), empty_dir != nullptr, size, request);
    }
  }

  // The kind in use (emptyDir or a PVC) is fixed; a PVC's request only grows.
  void StorageChange(const Json* old_storage, bool empty_dir, std::optional<Quantity> size,
                     const Json* request) {
    const bool old_empty_dir = Child(old_storage, "emptyDir") != nullptr;
    if (old_empty_dir != empty_dir) {
      Add("spec.storage",
          absl::StrCat("cannot switch between emptyDir and volumeClaimTemplate after creation (the "
                       "members' data lives there); keep ",
                       old_empty_dir ? "emptyDir" : "volumeClaimTemplate",
                       ", or create a new EtcdCluster to change the storage type"));
      return;
    }
    const Json* old_request =
        Path(old_storage, {"volumeClaimTemplate", "spec", "resources", "requests", "storage"});
    if (empty_dir || !size.has_value() || old_request == nullptr) return;
    absl::StatusOr<Quantity> old_size = QuantityFromJson(*old_request);
    if (old_size.ok() && *size < *old_size) {
      Add(kStorageRequest,
          absl::StrCat("cannot shrink from ", Display(*old_request), " to ", Display(*request),
                       "; a PersistentVolumeClaim can only grow: keep ", Display(*old_request),
                       " or more"));
    }
  }

  void DisruptionBudget(const Json& spec, int replicas) {
    const Json* pdb = Child(&spec, "podDisruptionBudgetTemplate");
    if (pdb == nullptr) return;
    MetadataName(pdb, kPdb, /*service=*/false);
    const Json* pspec = Child(pdb, "spec");
    const Json* min = Child(pspec, "minAvailable");
    const Json* max = Child(pspec, "maxUnavailable");
    const std::string min_field = absl::StrCat(kPdb, ".spec.minAvailable");
    const std::string max_field = absl::StrCat(kPdb, ".spec.maxUnavailable");
    if (min != nullptr && max != nullptr) {
      Add(min_field,
          "minAvailable and maxUnavailable are mutually exclusive; set only one (or neither, for "
          "minAvailable = quorum)");
      return;
    }
    if (min != nullptr) Budget(*min, min_field, replicas);
    if (max != nullptr) Budget(*max, max_field, replicas);
  }

  void Services(const Json& spec) {
    const std::string client = MetadataName(Child(&spec, "serviceTemplate"), "spec.serviceTemplate",
                                            /*service=*/true);
    const std::string headless = MetadataName(Child(&spec, "headlessServiceTemplate"),
                                              "spec.headlessServiceTemplate", /*service=*/true);
    if (!client.empty() && client == headless) {
      Add("spec.headlessServiceTemplate.metadata.name",
          absl::StrCat(
              "\"", headless,
              "\" is also the client Service's name; the two Services need different names"));
    }
  }

  void Security(const Json& spec) {
    const Json* security = Child(&spec, "security");
    if (security == nullptr) return;
    const Json* tls = Child(security, "tls");
    for (const char* key : {"peerTrustedCASecret", "peerSecret", "serverTrustedCASecret",
                            "serverSecret", "clientTrustedCASecret", "clientSecret"}) {
      const std::string name = Str(tls, key);
      if (!name.empty() && !IsDns1123Subdomain(name)) {
        Add(absl::StrCat(kTls, ".", key),
            absl::StrCat("\"", name,
                         "\" is not a valid Secret name; use lowercase letters, digits, ",
                         "'-' and '.'"));
      }
    }
    const Json* managed = Child(tls, "managed");
    const bool is_managed = managed != nullptr && managed->is_boolean() && managed->get<bool>();
    if (is_managed) {
      for (const char* key : {"peerTrustedCASecret", "peerSecret", "serverTrustedCASecret",
                              "serverSecret", "clientTrustedCASecret", "clientSecret"}) {
        if (!Str(tls, key).empty()) {
          Add(absl::StrCat(kTls, ".", key),
              "cannot be set with managed: true (Quorum issues every certificate then); remove "
              "it, or remove managed to bring all your own Secrets");
        }
      }
      return;  // peer, server and client TLS are all on: enableAuth is satisfied
    }
    Pair(tls, "peerSecret", "peerTrustedCASecret", "peer TLS");
    Pair(tls, "clientSecret", "clientTrustedCASecret", "client certificate auth");

    // As aenix: auth needs the operator's client certificate (clientSecret,
    // so clientTrustedCASecret by the pair rule) and server TLS. Without
    // serverTrustedCASecret the members are verified against serverSecret's
    // ca.crt, as cert-manager writes it and aenix reads it.
    const Json* auth = Child(security, "enableAuth");
    if (auth != nullptr && auth->is_boolean() && auth->get<bool>()) {
      std::vector<std::string> missing;
      for (const char* key : {"clientSecret", "serverSecret"}) {
        if (Str(tls, key).empty()) missing.push_back(key);
      }
      if (!missing.empty()) {
        Add("spec.security.enableAuth",
            absl::StrCat("requires client and server TLS; set security.tls.managed: true (Quorum "
                         "issues the certificates), or security.tls.clientSecret/"
                         "clientTrustedCASecret and serverSecret (missing: ",
                         absl::StrJoin(missing, ", "), ")"));
      }
    }
  }

 private:
  static std::string ReservedHint(const std::string& key) {
    std::string_view why = "Quorum derives it from the cluster's members; remove it";
    if (key.find("file") != std::string::npos || key.find("tls") != std::string::npos ||
        key.find("cert-auth") != std::string::npos) {
      why = "Quorum sets it from spec.security.tls; configure TLS there and remove this option";
    } else if (key == "data-dir" || key == "wal-dir") {
      why = "the data lives on the member's volume (spec.storage); remove this option";
    } else if (key == "config-file") {
      why = "it would replace every flag Quorum sets; remove it and list the flags in spec.options";
    }
    return absl::StrCat("--", key, " is set by Quorum: ", Absl(why));
  }

  // Validates o.metadata.name if set; returns it.
  std::string MetadataName(const Json* o, std::string_view base, bool service) {
    const std::string name = Str(Child(o, "metadata"), "name");
    if (name.empty()) return name;
    if (service ? !IsDns1035Label(name) : !IsDns1123Subdomain(name)) {
      Add(absl::StrCat(Absl(base), ".metadata.name"),
          absl::StrCat("\"", name, "\" is not a valid ", service ? "Service" : "object",
                       " name; use lowercase letters, digits and '-'",
                       service ? ", starting with a letter, at most 63 characters" : ""));
    }
    return name;
  }

  void Budget(const Json& value, const std::string& field, int replicas) {
    int n = 0;
    const bool ok = ResolveIntOrPercent(value, replicas < 0 ? 0 : replicas, n);
    const bool percent = value.is_string() && !value.get_ref<const std::string&>().empty() &&
                         value.get_ref<const std::string&>().back() == '%';
    const bool in_range = percent || replicas < 0 || (n >= 0 && n <= replicas);
    if (!ok || !in_range) {
      Add(field, absl::StrCat("must be a number of members between 0 and spec.replicas (",
                              replicas < 0 ? 0 : replicas,
                              ") or a percentage such as \"50%\"; got ", Dump(value)));
    }
  }

  void Pair(const Json* tls, const char* secret, const char* ca, const char* what) {
    const bool has_secret = !Str(tls, secret).empty();
    const bool has_ca = !Str(tls, ca).empty();
    if (has_secret == has_ca) return;
    const char* missing = has_secret ? ca : secret;
    const char* present = has_secret ? secret : ca;
    Add(absl::StrCat(kTls, ".", missing),
        absl::StrCat("required when ", present, " is set (", what, " needs both ", secret, " and ",
                     ca, "); set it or remove ", present));
  }

  std::vector<FieldError>& errors_;
};

}  // namespace

bool IsDns1035Label(const std::string& s) {
  return IsDns1123Label(s) && s.front() >= 'a' && s.front() <= 'z';
}

bool IsDns1123Subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label = std::string_view(s).substr(
        start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!IsDns1123Label(label)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

bool ResolveIntOrPercent(const Json& value, int replicas, int& out) {
  if (value.is_number_integer()) {
    std::optional<int64_t> n = Int(&value);
    if (!n.has_value() || *n < 0 || *n > INT32_MAX) return false;
    out = static_cast<int>(*n);
    return true;
  }
  if (!value.is_string()) return false;
  const std::string& s = value.get_ref<const std::string&>();
  if (std::optional<int> count = CountString(s)) {
    out = *count;
    return true;
  }
  if (s.size() < 2 || s.size() > 4 || s.back() != '%') return false;
  int percent = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    percent = percent * 10 + (s[i] - '0');
  }
  if (percent > 100) return false;
  out = static_cast<int>((static_cast<int64_t>(replicas) * percent + 99) / 100);
  return true;
}

std::optional<int> CountString(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// What a running cluster cannot switch (the CRD's transition rules say the same):
// peer TLS, server TLS, and authentication from on to off.
static void ValidateSecurityChanges(const Json& spec, const Json& old_spec,
                                    std::vector<FieldError>& errors) {
  const auto managed = [](const Json& s) {
    const Json* m = Child(Child(Child(&s, "security"), "tls"), "managed");
    return m != nullptr && m->is_boolean() && m->get<bool>();
  };
  const auto tls_set = [&](const Json& s, const char* key) {
    return managed(s) || !Str(Child(Child(&s, "security"), "tls"), key).empty();
  };
  if (managed(spec) != managed(old_spec)) {
    errors.push_back({"spec.security.tls.managed", kManagedTlsChangeMessage});
    return;
  }
  const auto auth = [](const Json& s) {
    const Json* a = Child(Child(&s, "security"), "enableAuth");
    return a != nullptr && a->is_boolean() && a->get<bool>();
  };
  if (tls_set(spec, "peerSecret") != tls_set(old_spec, "peerSecret")) {
    errors.push_back({"spec.security.tls.peerSecret", kPeerTlsChangeMessage});
  }
  if (tls_set(spec, "serverSecret") != tls_set(old_spec, "serverSecret")) {
    errors.push_back({"spec.security.tls.serverSecret", kServerTlsChangeMessage});
  }
  if (auth(old_spec) && !auth(spec)) {
    errors.push_back({"spec.security.enableAuth", kAuthOffMessage});
  }
}

// spec.bootstrap.restore.source: a usable snapshot location; fixed once created
// (it only matters when the first member starts).
static void ValidateBootstrap(const Json& spec, const Json* old_spec,
                              std::vector<FieldError>& errors) {
  const Json* bootstrap = Child(&spec, "bootstrap");
  if (old_spec != nullptr) {
    const Json* old_bootstrap = Child(old_spec, "bootstrap");
    if ((bootstrap == nullptr) != (old_bootstrap == nullptr) ||
        (bootstrap != nullptr && *bootstrap != *old_bootstrap)) {
      errors.push_back({"spec.bootstrap",
                        "is immutable: it only applies when a cluster is "
                        "created; restore into a new EtcdCluster"});
    }
  }
  const Json* restore = Child(bootstrap, "restore");
  if (restore == nullptr) return;
  for (FieldError& e :
       ValidateBackupDestination(Child(restore, "source"), "spec.bootstrap.restore.source", true)) {
    errors.push_back(std::move(e));
  }
}

std::vector<FieldError> ValidateEtcdCluster(const Json& obj, const Json* old) {
  std::vector<FieldError> errors;
  Validator v(errors);
  if (!obj.is_object()) {
    v.Add("<root>", "an EtcdCluster must be a JSON object");
    return errors;
  }
  const Json* spec = Child(&obj, "spec");
  const Json* old_spec = old != nullptr ? Child(old, "spec") : nullptr;
  if (old_spec != nullptr && spec != nullptr && *spec == *old_spec) return errors;
  v.Name(obj);
  if (spec == nullptr || !spec->is_object()) {
    v.Add("spec", "required: an EtcdCluster needs a spec (spec: {} gives 3 members on 4Gi PVCs)");
    return errors;
  }
  const int replicas = v.Replicas(*spec);
  v.Options(*spec);
  v.PodTemplate(*spec);
  v.Storage(*spec, old_spec != nullptr && old_spec->is_object() ? old_spec : nullptr);
  v.DisruptionBudget(*spec, replicas);
  v.Services(*spec);
  v.Security(*spec);
  if (old_spec != nullptr && old_spec->is_object())
    ValidateSecurityChanges(*spec, *old_spec, errors);
  ValidateBootstrap(*spec, old_spec, errors);
  ValidateNetworkPolicySpec(*spec, "clientFrom", errors);
  return errors;
}

}  // namespace quorum::api
