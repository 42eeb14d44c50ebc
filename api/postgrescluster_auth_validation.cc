// ValidateAuthentication (postgrescluster_validation_internal.h): the rules of
// spec.authentication.rules. A pg_hba.conf that PostgreSQL cannot parse keeps
// it from starting, so every token is checked here, where the user sees the
// answer, and only what PostgreSQL accepts for the method passes.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "api/network_policy_peers.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_validation_internal.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"

namespace quorum::api::internal {

using json_access::Child;
using json_access::Display;
using json_access::Str;
namespace {

using Json = nlohmann::json;

constexpr char kRules[] = "spec.authentication.rules";

// A database or role name as pg_hba reads it unquoted: letters, digits, '_',
// '$', '.', '-', at most 63 characters. Users may start with '+' (members of
// a role).
bool IsHbaName(std::string_view s, bool user) {
  if (user && s.starts_with('+')) s.remove_prefix(1);
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '$' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

class AuthRules {
 public:
  AuthRules(ErrorList& errors, bool allow_plaintext)
      : errors_(errors), allow_plaintext_(allow_plaintext) {}

  void Check(const Json* authentication) {
    if (authentication == nullptr) return;
    if (!authentication->is_object()) {
      errors_.Add("spec.authentication", "must be an object with rules");
      return;
    }
    const Json* rules = Child(authentication, "rules");
    if (rules == nullptr) return;
    if (!rules->is_array()) {
      errors_.Add(kRules,
                  "must be a list of rules, e.g. [{users: [app], address: 10.0.0.0/8, method: "
                  "scram-sha-256}]");
      return;
    }
    if (rules->size() > kMaxHbaRules) {
      errors_.Add(kRules,
                  absl::StrCat("at most ", kMaxHbaRules, " rules (got ", rules->size(), ")"));
    }
    for (size_t i = 0; i < rules->size(); ++i) Rule((*rules)[i], IndexedField(kRules, i));
  }

 private:
  void Rule(const Json& rule, const std::string& at) {
    if (!rule.is_object()) {
      errors_.Add(at, "must be an object with connection, databases, users, address and method");
      return;
    }
    std::string connection = Str(&rule, "connection");
    if (connection.empty()) connection = std::string(kDefaultHbaConnection);
    const bool local = connection == "local";
    if (connection == "host" && !allow_plaintext_) {
      errors_.Add(at + ".connection",
                  "host also admits connections without TLS, which this cluster refuses; use "
                  "hostssl, or set spec.tls.allowPlaintext: true");
    } else if (connection != "hostssl" && connection != "host" && !local) {
      errors_.Add(
          at + ".connection",
          absl::StrCat("must be hostssl (default), host or local (got \"", connection, "\")"));
    }
    Names(Child(&rule, "databases"), at + ".databases", false);
    Names(Child(&rule, "users"), at + ".users", true);
    Address(Child(&rule, "address"), at + ".address", local);
    const std::string method = Str(&rule, "method");
    Method(method, at + ".method", local, connection == "hostssl");
    Options(Child(&rule, "options"), at + ".options", method);
  }

  void Names(const Json* names, const std::string& at, bool users) {
    if (names == nullptr) return;
    if (!names->is_array() || names->empty() || names->size() > kMaxHbaNames) {
      errors_.Add(at, absl::StrCat("must be a list of 1 to ", kMaxHbaNames,
                                   " names; leave it out to mean all"));
      return;
    }
    for (size_t i = 0; i < names->size(); ++i) {
      const Json& n = (*names)[i];
      const std::string name = n.is_string() ? n.get<std::string>() : "";
      if (!IsHbaName(name, users)) {
        errors_.Add(
            IndexedField(at, i),
            absl::StrCat("\"", Display(n),
                         "\" is not a name pg_hba can match: use "
                         "letters, digits, '_', '$', '.' and '-'",
                         users ? " (a leading + means members of that role)" : "",
                         ", at most 63 characters; all",
                         users ? "" : ", sameuser, samerole and replication", " are keywords"));
      } else if (const std::string role = name.substr(name.starts_with('+') ? 1 : 0);
                 users && (role == kSuperuserName || role == kReplicationUserName)) {
        errors_.Add(IndexedField(at, i),
                    absl::StrCat("\"", name, "\" is one of Quorum's own roles (",
                                 Absl(kSuperuserName), ", ", Absl(kReplicationUserName),
                                 "), whose rules come first and cannot be changed"));
      }
    }
  }

  void Address(const Json* address, const std::string& at, bool local) {
    if (address == nullptr) return;
    const std::string a = address->is_string() ? address->get<std::string>() : "";
    if (local) {
      errors_.Add(at, "local rules (the unix socket) take no address; remove it");
    } else if (a != "all" && a != "samehost" && a != "samenet" && !IsCanonicalCidr(a)) {
      errors_.Add(at, absl::StrCat("\"", Display(*address),
                                   "\" must be all, samehost, samenet or a CIDR without host "
                                   "bits, e.g. 10.0.0.0/8 or fd00::/8"));
    }
  }

  void Method(const std::string& method, const std::string& at, bool local, bool hostssl) {
    static const std::set<std::string, std::less<>> kRemote = {"scram-sha-256", "md5", "cert",
                                                               "reject"};
    static const std::set<std::string, std::less<>> kLocal = {"scram-sha-256", "md5",   "peer",
                                                              "reject",        "trust", "password"};
    if (method.empty()) {
      errors_.Add(at,
                  "required: scram-sha-256, md5, cert or reject (local: also peer, trust, "
                  "password)");
    } else if (!local && (method == "trust" || method == "password")) {
      errors_.Add(
          at, absl::StrCat(method,
                           method == "trust" ? " admits anyone from the network without a password"
                                             : " sends the password in clear text",
                           "; use scram-sha-256 or cert (trust and password are "
                           "allowed on local rules only)"));
    } else if (local ? kLocal.count(method) == 0 : kRemote.count(method) == 0) {
      errors_.Add(at, absl::StrCat("\"", method, "\" is not supported on ",
                                   local ? "local" : "host", " rules; use scram-sha-256, md5, ",
                                   local ? "peer, trust, password" : "cert", " or reject"));
    } else if (method == "cert" && !hostssl) {
      errors_.Add(at, "cert needs connection hostssl (a client certificate comes with TLS)");
    }
  }

  void Options(const Json* options, const std::string& at, const std::string& method) {
    if (options == nullptr) return;
    if (!options->is_object()) {
      errors_.Add(at, "must be a map of option names to values, e.g. {clientcert: verify-full}");
      return;
    }
    for (const auto& [key, value] : options->items()) {
      const std::string field = at + "." + key;
      const std::string v = value.is_string() ? value.get<std::string>() : "";
      if (key == "clientcert" &&
          (method == "scram-sha-256" || method == "md5" || method == "cert")) {
        if (v != "verify-full" && (v != "verify-ca" || method == "cert")) {
          errors_.Add(field, method == "cert"
                                 ? "must be verify-full with method cert"
                                 : "must be verify-ca or verify-full (the client also needs a "
                                   "certificate from the cluster's CA)");
        }
      } else if (key == "map" && (method == "cert" || method == "peer")) {
        if (!IsHbaName(v, false)) {
          errors_.Add(field, "must name a map of postgresql.pg_ident (letters, digits, '_')");
        }
      } else {
        errors_.Add(field, absl::StrCat("not supported with method \"", method,
                                        "\"; supported: clientcert (scram-sha-256, md5, cert), "
                                        "map (cert, peer)"));
      }
    }
  }

  ErrorList& errors_;
  bool allow_plaintext_;
};

}  // namespace

void ValidateAuthentication(const Json& spec, ErrorList& errors) {
  const Json* plaintext = Child(Child(&spec, "tls"), "allowPlaintext");
  const bool allow = plaintext != nullptr && plaintext->is_boolean() && plaintext->get<bool>();
  AuthRules(errors, allow).Check(Child(&spec, "authentication"));
}

}  // namespace quorum::api::internal
