#include "api/network_policy_peers.h"

#include <arpa/inet.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/etcdcluster_validation.h"
#include "api/schema_nodes.h"
#include "src/base/json_access.h"

namespace quorum::api {

using json_access::Child;
using json_access::Dump;
using nlohmann::json;

namespace {

// "base[i]", as kubectl names a list element.
std::string Indexed(const std::string& base, size_t i) { return absl::StrCat(base, "[", i, "]"); }

// Where the rules put their findings.
class ErrorList {
 public:
  explicit ErrorList(std::vector<FieldError>& errors) : errors_(errors) {}
  void Add(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }

 private:
  std::vector<FieldError>& errors_;
};

// A parsed CIDR: the family (AF_INET or AF_INET6) and the address bytes.
struct Cidr {
  int family = 0;
  unsigned char addr[16] = {};
  int bits = 0;
};

// A CIDR in canonical form: an address, '/', a prefix length, no host bits set.
bool ParseCidr(const std::string& s, Cidr& out) {
  const size_t slash = s.find('/');
  if (slash == std::string::npos) return false;
  const std::string ip = s.substr(0, slash);
  const std::string bits = s.substr(slash + 1);
  out.family = absl::StrContains(ip, ':') ? AF_INET6 : AF_INET;
  if (inet_pton(out.family, ip.c_str(), out.addr) != 1) return false;
  const int max_bits = out.family == AF_INET ? 32 : 128;
  if (bits.empty() || bits.size() > 3 ||
      bits.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(bits, &out.bits) || out.bits > max_bits) {
    return false;
  }
  for (int bit = out.bits; bit < max_bits; ++bit) {
    if (out.addr[bit / 8] & (0x80 >> (bit % 8))) return false;
  }
  return true;
}

// Whether `inner` lies inside `outer` (same family, longer or equal prefix).
bool Contains(const Cidr& outer, const Cidr& inner) {
  if (outer.family != inner.family || inner.bits < outer.bits) return false;
  for (int bit = 0; bit < outer.bits; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((outer.addr[bit / 8] & mask) != (inner.addr[bit / 8] & mask)) return false;
  }
  return true;
}

bool IsLabelName(std::string_view s) {  // [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, <= 63
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsLabelKey(const std::string& s) {  // [prefix/]name, the prefix a DNS subdomain
  const size_t slash = s.find('/');
  if (slash == std::string::npos) return IsLabelName(s);
  return IsDns1123Subdomain(s.substr(0, slash)) &&
         IsLabelName(std::string_view(s).substr(slash + 1));
}

bool IsLabelValue(const std::string& s) { return s.empty() || IsLabelName(s); }

void ValidateSelector(const json& sel, const std::string& field, ErrorList& errors) {
  if (!sel.is_object()) {
    errors.Add(field, absl::StrCat("must be a label selector, e.g. {matchLabels: {app: web}} (got ",
                                   Dump(sel), ")"));
    return;
  }
  if (const json* labels = Child(&sel, "matchLabels"); labels != nullptr && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      const std::string at = absl::StrCat(field, ".matchLabels[", key, "]");
      if (!IsLabelKey(key)) errors.Add(at, absl::StrCat("\"", key, "\" is not a valid label key"));
      if (!value.is_string() || !IsLabelValue(value.get<std::string>())) {
        errors.Add(at, absl::StrCat(Dump(value),
                                    " is not a valid label value (at most 63 "
                                    "letters, digits, '-', '_' or '.')"));
      }
    }
  }
  const json* exprs = Child(&sel, "matchExpressions");
  if (exprs == nullptr || !exprs->is_array()) return;
  for (size_t i = 0; i < exprs->size(); ++i) {
    const std::string at = Indexed(field + ".matchExpressions", i);
    const json& e = (*exprs)[i];
    const json* key = Child(&e, "key");
    if (key == nullptr || !key->is_string() || !IsLabelKey(key->get<std::string>())) {
      errors.Add(at + ".key", "must be a valid label key");
    }
    const json* op = Child(&e, "operator");
    const std::string op_name = op != nullptr && op->is_string() ? op->get<std::string>() : "";
    const json* values = Child(&e, "values");
    const size_t n = values != nullptr && values->is_array() ? values->size() : 0;
    if (op_name == "In" || op_name == "NotIn") {
      if (n == 0) errors.Add(at + ".values", absl::StrCat("must not be empty with ", op_name));
    } else if (op_name == "Exists" || op_name == "DoesNotExist") {
      if (n != 0) errors.Add(at + ".values", absl::StrCat("must be empty with ", op_name));
    } else {
      errors.Add(at + ".operator", "must be In, NotIn, Exists or DoesNotExist");
    }
    for (size_t v = 0; v < n; ++v) {
      const json& value = (*values)[v];
      if (!value.is_string() || !IsLabelValue(value.get<std::string>())) {
        errors.Add(Indexed(at + ".values", v),
                   absl::StrCat(Dump(value), " is not a valid label value"));
      }
    }
  }
}

void ValidateIpBlock(const json& block, const std::string& field, ErrorList& errors) {
  const json* cidr = Child(&block, "cidr");
  Cidr range;
  if (cidr == nullptr || !cidr->is_string() || !ParseCidr(cidr->get<std::string>(), range)) {
    errors.Add(field + ".cidr",
               absl::StrCat("must be a CIDR without host bits, such as 10.0.0.0/8 (got ",
                            cidr == nullptr ? "nothing" : Dump(*cidr), ")"));
    return;
  }
  const json* except = Child(&block, "except");
  if (except == nullptr || !except->is_array()) return;
  for (size_t i = 0; i < except->size(); ++i) {
    const json& e = (*except)[i];
    Cidr inner;
    if (!e.is_string() || !ParseCidr(e.get<std::string>(), inner) || !Contains(range, inner) ||
        inner.bits == range.bits) {
      errors.Add(Indexed(field + ".except", i),
                 absl::StrCat(Dump(e), " must be a CIDR strictly inside ", Dump(*cidr)));
    }
  }
}

void ValidatePeer(const json& peer, const std::string& field, ErrorList& errors) {
  if (!peer.is_object()) {
    errors.Add(field, absl::StrCat("must be an object with podSelector, namespaceSelector or "
                                   "ipBlock (got ",
                                   Dump(peer), ")"));
    return;
  }
  const json* pods = Child(&peer, "podSelector");
  const json* namespaces = Child(&peer, "namespaceSelector");
  const json* block = Child(&peer, "ipBlock");
  if (pods == nullptr && namespaces == nullptr && block == nullptr) {
    errors.Add(field, "set podSelector, namespaceSelector or ipBlock");
  }
  if (block != nullptr && (pods != nullptr || namespaces != nullptr)) {
    errors.Add(field + ".ipBlock", "cannot be combined with podSelector or namespaceSelector");
  }
  if (pods != nullptr) ValidateSelector(*pods, field + ".podSelector", errors);
  if (namespaces != nullptr) ValidateSelector(*namespaces, field + ".namespaceSelector", errors);
  if (block != nullptr) ValidateIpBlock(*block, field + ".ipBlock", errors);
}

}  // namespace

bool IsCanonicalCidr(const std::string& s) {
  Cidr cidr;
  return ParseCidr(s, cidr);
}

void ValidateNetworkPolicySpec(const json& spec, const std::string& peers_key,
                               std::vector<FieldError>& out) {
  ErrorList errors(out);
  const json* np = Child(&spec, "networkPolicy");
  if (np == nullptr) return;
  if (!np->is_object()) {
    errors.Add("spec.networkPolicy", "must be an object, e.g. {enabled: true}");
    return;
  }
  if (const json* enabled = Child(np, "enabled"); enabled != nullptr && !enabled->is_boolean()) {
    errors.Add("spec.networkPolicy.enabled",
               absl::StrCat("must be true or false (got ", Dump(*enabled), ")"));
  }
  const json* from = Child(np, peers_key);
  if (from == nullptr) return;
  const std::string field = "spec.networkPolicy." + peers_key;
  if (!from->is_array()) {
    errors.Add(field,
               absl::StrCat("must be a list of NetworkPolicy peers (got ", Dump(*from), ")"));
    return;
  }
  if (from->size() > kMaxNetworkPolicyPeers) {
    errors.Add(field,
               absl::StrCat("has ", from->size(), " peers; at most ", kMaxNetworkPolicyPeers));
    return;
  }
  for (size_t i = 0; i < from->size(); ++i) ValidatePeer((*from)[i], Indexed(field, i), errors);
}

json NetworkPolicyPeersSchema(const char* description) {
  using namespace internal::schema;  // NOLINT(build/namespaces): schema literals
  const std::string selector = std::string(kMeta) + "LabelSelector";
  Json except = {{"type", "array"},
                 {"description", "CIDRs inside cidr that are not admitted."},
                 {"items", {{"type", "string"}}},
                 {"maxItems", 64}};
  Json ip_block =
      Object("A range of IP addresses (pod IPs are not stable: prefer selectors).",
             {{"cidr", String("A CIDR, e.g. 10.0.0.0/8 or 2001:db8::/32.")}, {"except", except}});
  ip_block["required"] = Json::array({"cidr"});
  Json peer = Object(
      "One source: pods by podSelector (in the cluster's namespace, or in the namespaces "
      "namespaceSelector picks), or an ipBlock alone.",
      {{"podSelector", Ref(selector, "Pods with these labels.")},
       {"namespaceSelector", Ref(selector, "Pods of namespaces with these labels.")},
       {"ipBlock", ip_block}});
  peer["x-kubernetes-validations"] = Json::array(
      {Rule("has(self.podSelector) || has(self.namespaceSelector) || has(self.ipBlock)",
            "set podSelector, namespaceSelector or ipBlock"),
       Rule("!has(self.ipBlock) || !(has(self.podSelector) || has(self.namespaceSelector))",
            "ipBlock cannot be combined with podSelector or namespaceSelector")});
  return {{"type", "array"},
          {"description", description},
          {"items", peer},
          {"maxItems", kMaxNetworkPolicyPeers}};
}

}  // namespace quorum::api
