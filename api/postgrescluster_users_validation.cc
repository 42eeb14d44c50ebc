// ValidateUsers (postgrescluster_validation_internal.h): the rules of
// spec.users — role names, their databases and role attributes.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

class UserRules {
 public:
  explicit UserRules(ErrorList& errors) : errors_(errors) {}

  void Add(std::string field, std::string message) {
    errors_.Add(std::move(field), std::move(message));
  }

  void Check(const Json& spec, std::optional<int> version) {
    const Json* users = Child(&spec, "users");
    if (users == nullptr) return;
    if (!users->is_array()) {
      Add("spec.users", "must be a list of users, e.g. [{name: app, databases: [app]}]");
      return;
    }
    if (users->size() > kMaxUsers) {
      Add("spec.users", absl::StrCat("at most ", kMaxUsers, " users (got ", users->size(), ")"));
    }
    std::set<std::string> names;
    for (size_t i = 0; i < users->size(); ++i) {
      const Json& user = (*users)[i];
      const std::string base = IndexedField("spec.users", i);
      if (!user.is_object()) {
        Add(base, "must be an object with name, databases and options");
        continue;
      }
      const std::string name = Str(&user, "name");
      if (!IsPostgresIdentifier(name)) {
        Add(base + ".name",
            absl::StrCat("\"", name, "\" is not a valid role name; ", IdentifierRule()));
      } else if (name == kSuperuserName || name == kReplicationUserName ||
                 name == kPoolerUserName || name == kPoolerAdminName || name == kMonitorUserName) {
        Add(base + ".name", absl::StrCat("\"", name, "\" is one of Quorum's own roles (",
                                         Absl(kSuperuserName), ", ", Absl(kReplicationUserName),
                                         ", ", Absl(kPoolerUserName), ", ", Absl(kPoolerAdminName),
                                         ", ", Absl(kMonitorUserName), "); choose another name"));
      } else if (name.starts_with("pg_")) {
        Add(base + ".name", absl::StrCat("\"", name,
                                         "\": names starting with pg_ are reserved by "
                                         "PostgreSQL; choose another name"));
      } else if (!names.insert(name).second) {
        Add(base + ".name",
            absl::StrCat("duplicate \"", name, "\"; list each user once (with all its databases)"));
      }
      Databases(Child(&user, "databases"), base + ".databases");
      Options(Child(&user, "options"), base + ".options", version);
    }
  }

 private:
  static const char* IdentifierRule() {
    return "use lowercase letters, digits and '_', starting with a letter or '_', at most 63 "
           "characters";
  }

  void Databases(const Json* databases, const std::string& field) {
    if (databases == nullptr) return;
    if (!databases->is_array()) {
      Add(field, "must be a list of database names, e.g. [app]");
      return;
    }
    if (databases->size() > kMaxDatabasesPerUser) {
      Add(field, absl::StrCat("at most ", kMaxDatabasesPerUser, " databases"));
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < databases->size(); ++i) {
      const Json& db = (*databases)[i];
      const std::string name = db.is_string() ? db.get<std::string>() : "";
      if (!IsPostgresIdentifier(name)) {
        Add(IndexedField(field, i),
            absl::StrCat("\"", Display(db), "\" is not a valid database name; ", IdentifierRule()));
      } else if (name == "template0" || name == "template1") {
        Add(IndexedField(field, i),
            absl::StrCat("\"", name,
                         "\" is one of PostgreSQL's templates; choose another "
                         "database name"));
      } else if (!seen.insert(name).second) {
        Add(IndexedField(field, i),
            absl::StrCat("duplicate \"", name, "\"; list each database once"));
      }
    }
  }

  void Options(const Json* options, const std::string& field, std::optional<int> version) {
    if (options == nullptr) return;
    if (!options->is_array()) {
      Add(field, "must be a list of role attributes, e.g. [CREATEDB]");
      return;
    }
    std::set<std::string> seen;
    const auto allowed = AllowedRoleOptions();
    for (size_t i = 0; i < options->size(); ++i) {
      const Json& o = (*options)[i];
      const std::string option = o.is_string() ? o.get<std::string>() : "";
      if (std::find(allowed.begin(), allowed.end(), option) == allowed.end()) {
        std::vector<std::string> names(allowed.begin(), allowed.end());
        Add(IndexedField(field, i),
            absl::StrCat("\"", Display(o), "\" is not an allowed role attribute; ", "use one of ",
                         absl::StrJoin(names, ", ")));
        continue;
      }
      if (!seen.insert(option).second) {
        Add(IndexedField(field, i), absl::StrCat("duplicate ", option, "; list it once"));
      }
      if (option == "CREATEROLE" && version.has_value() && *version < kMinMajorForCreateRole) {
        Add(IndexedField(field, i),
            absl::StrCat("CREATEROLE needs postgresVersion ", kMinMajorForCreateRole,
                         " or later: before that such a role can make itself a member of any "
                         "non-superuser role; remove it"));
      }
    }
    for (const char* positive : {"CREATEDB", "CREATEROLE", "INHERIT", "LOGIN"}) {
      const std::string negative = absl::StrCat("NO", positive);
      if (seen.count(positive) != 0 && seen.count(negative) != 0) {
        Add(field,
            absl::StrCat(positive, " and ", negative, " contradict each other; keep one of them"));
      }
    }
  }

  ErrorList& errors_;
};

}  // namespace

void ValidateUsers(const Json& spec, std::optional<int> major, ErrorList& errors) {
  UserRules(errors).Check(spec, major);
}

}  // namespace quorum::api::internal
