// ValidateBackups (postgrescluster_validation_internal.h): the rules of
// spec.backups.pgbackrest. Every value ends up in pgBackRest's configuration
// file, so a value that could break the file (a line break) or a key that
// would take over what Quorum sets (the stanza, the paths, the repository
// types) is refused here, naming the field; secrets are refused outside a
// Secret.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/etcdcluster_validation.h"
#include "api/postgrescluster_validation_internal.h"
#include "src/base/json_access.h"

namespace quorum::api::internal {

using json_access::Child;
using json_access::Dump;
using nlohmann::json;

namespace {

constexpr char kAt[] = "spec.backups.pgbackrest";
constexpr size_t kMaxRepos = 4;

// A host name or IPv4 address, then an optional :port (1..65535).
bool IsEndpoint(const std::string& s) {
  std::string_view host = s;
  if (const size_t colon = s.rfind(':'); colon != std::string::npos) {
    host = std::string_view(s).substr(0, colon);
    int port = 0;
    const std::string digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 5 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        !absl::SimpleAtoi(digits, &port) || port < 1 || port > 65535) {
      return false;
    }
  }
  if (host.empty() || host.size() > 253 || host.front() == '-' || host.front() == '.' ||
      host.back() == '-' || host.back() == '.') {
    return false;
  }
  for (char c : host) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') return false;
  }
  return true;
}

// The repository number of a "repoN-..." key (0 when the key is not one).
int RepoNumber(std::string_view key) {
  if (!key.starts_with("repo")) return 0;
  size_t i = 4;
  int n = 0;
  while (i < key.size() && absl::ascii_isdigit(static_cast<unsigned char>(key[i]))) {
    n = n * 10 + (key[i] - '0');
    if (++i > 7) return 0;
  }
  return (i > 4 && i < key.size() && key[i] == '-') ? n : 0;
}

// What follows "repoN-" or "pgN-" in an indexed key.
std::string_view IndexedOption(std::string_view key) {
  const size_t dash = key.find('-');
  return dash == std::string_view::npos ? std::string_view() : key.substr(dash + 1);
}

bool IsIndexed(std::string_view key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return false;
  size_t i = prefix.size();
  while (i < key.size() && absl::ascii_isdigit(static_cast<unsigned char>(key[i]))) ++i;
  return i > prefix.size() && i < key.size() && key[i] == '-';
}

// Why Quorum refuses a global key ("" when it is allowed).
std::string RefusedKey(const std::string& key, const std::set<int>& repos) {
  static const std::set<std::string_view> kOwned = {
      "stanza",   "config",    "config-path", "config-include-path",
      "log-path", "lock-path", "spool-path",  "archive-async",
      "pg-path",  "pg-host",   "pg-port",     "pg-socket-path"};
  static const std::set<std::string_view> kRepoOwned = {"type",      "s3-bucket", "s3-endpoint",
                                                        "s3-region", "host",      "host-type"};
  static const std::set<std::string_view> kRepoSecret = {"s3-key",      "s3-key-secret", "s3-token",
                                                         "cipher-pass", "azure-key",     "gcs-key"};
  if (kOwned.contains(key) || key.starts_with("tls-") || IsIndexed(key, "pg")) {
    return "is set by Quorum (the stanza, the data directory's host and paths, where logs, "
           "locks and the spool go); remove it";
  }
  if (key.starts_with("repo-")) {
    return "names no repository: write repoN-" + key.substr(5) + " for repository N";
  }
  if (const int n = RepoNumber(key); n != 0) {
    const std::string_view option = IndexedOption(key);
    if (kRepoSecret.contains(option)) {
      return "is a secret: put it into a Secret listed in spec.backups.pgbackrest.configuration "
             "(a key such as s3.conf holding \"[global]\\n" +
             key + "=...\"), never into the PostgresCluster";
    }
    if (kRepoOwned.contains(option) || option.starts_with("host-")) {
      return "is set by Quorum from spec.backups.pgbackrest.repos (s3.bucket, s3.endpoint, "
             "s3.region); remove it";
    }
    if (!repos.contains(n)) {
      return absl::StrCat("names repo", n, ", which spec.backups.pgbackrest.repos does not have");
    }
  }
  return "";
}

void ValidateRepos(const json& pgbr, std::set<int>& numbers, ErrorList& errors) {
  const std::string at = absl::StrCat(kAt, ".repos");
  const json* repos = Child(&pgbr, "repos");
  if (repos == nullptr || !repos->is_array() || repos->empty()) {
    errors.Add(at,
               "required: 1 to 4 repositories, e.g. [{name: repo1, s3: {bucket: backups, "
               "endpoint: s3.eu-west-1.amazonaws.com, region: eu-west-1}}]");
    return;
  }
  if (repos->size() > kMaxRepos) {
    errors.Add(at, absl::StrCat("has ", repos->size(), " entries; pgBackRest takes at most 4"));
  }
  for (size_t i = 0; i < repos->size(); ++i) {
    const std::string field = IndexedField(at, i);
    const json& repo = (*repos)[i];
    if (!repo.is_object()) {
      errors.Add(field, "must be an object with name and s3");
      continue;
    }
    const json* name = Child(&repo, "name");
    const std::string n = name != nullptr && name->is_string() ? name->get<std::string>() : "";
    if (n.size() != 5 || !n.starts_with("repo") || n[4] < '1' || n[4] > '4') {
      errors.Add(field + ".name", absl::StrCat("must be repo1, repo2, repo3 or repo4 (got ",
                                               name != nullptr ? Dump(*name) : "nothing", ")"));
    } else if (!numbers.insert(n[4] - '0').second) {
      errors.Add(field + ".name", absl::StrCat("\"", n, "\" is listed twice"));
    }
    const json* s3 = Child(&repo, "s3");
    if (s3 == nullptr || !s3->is_object()) {
      errors.Add(field + ".s3",
                 "required: the repository's bucket, endpoint and region (S3 is the only "
                 "repository type so far)");
      continue;
    }
    for (const char* key : {"bucket", "endpoint", "region"}) {
      const json* v = Child(s3, key);
      const std::string f = absl::StrCat(field, ".s3.", key);
      if (v == nullptr || !v->is_string() || v->get<std::string>().empty()) {
        errors.Add(f, "required: a non-empty string");
        continue;
      }
      const std::string s = v->get<std::string>();
      if (std::string_view(key) == "endpoint" && !IsEndpoint(s)) {
        errors.Add(f, absl::StrCat("\"", s,
                                   "\" is not host or host:port; write it without scheme or "
                                   "path, e.g. s3.eu-west-1.amazonaws.com or minio:9000"));
      } else if (std::string_view(key) != "endpoint" &&
                 s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") !=
                     std::string::npos) {
        errors.Add(f, absl::StrCat("\"", s,
                                   "\" may hold only lowercase letters, digits, '.' "
                                   "and '-'"));
      }
    }
  }
}

void ValidateConfiguration(const json& pgbr, ErrorList& errors) {
  const std::string at = absl::StrCat(kAt, ".configuration");
  const json* list = Child(&pgbr, "configuration");
  if (list == nullptr) return;
  if (!list->is_array()) {
    errors.Add(at, "must be a list, e.g. [{secret: {name: pgbackrest-s3}}]");
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string field = IndexedField(at, i) + ".secret.name";
    const json* name = json_access::Path(&(*list)[i], {"secret", "name"});
    if (name == nullptr || !name->is_string() || !IsDns1123Subdomain(name->get<std::string>())) {
      errors.Add(field, absl::StrCat("must name a Secret in the cluster's namespace (got ",
                                     name != nullptr ? Dump(*name) : "nothing",
                                     "); only Secrets can be listed"));
    } else if (!seen.insert(name->get<std::string>()).second) {
      errors.Add(field, absl::StrCat("\"", name->get<std::string>(), "\" is listed twice"));
    }
  }
}

void ValidateGlobal(const json& pgbr, const std::set<int>& repos, ErrorList& errors) {
  const std::string at = absl::StrCat(kAt, ".global");
  const json* global = Child(&pgbr, "global");
  if (global == nullptr) return;
  if (!global->is_object()) {
    errors.Add(at, "must be a map of pgBackRest options, e.g. {repo1-retention-full: \"7\"}");
    return;
  }
  for (const auto& [key, value] : global->items()) {
    const std::string field = absl::StrCat(at, ".", key);
    if (key.empty() ||
        key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
      errors.Add(field, "is not a pgBackRest option name (lowercase letters, digits and '-')");
      continue;
    }
    if (!value.is_string()) {
      errors.Add(field, absl::StrCat("must be a string (got ", Dump(value), "); quote numbers"));
      continue;
    }
    const std::string v = value.get<std::string>();
    if (v.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) {
      errors.Add(field, "must be one line");
      continue;
    }
    if (std::string why = RefusedKey(key, repos); !why.empty()) {
      errors.Add(field, std::move(why));
      continue;
    }
    if (RepoNumber(key) != 0 && IndexedOption(key) == "path" && (v.empty() || v.front() != '/')) {
      errors.Add(field, absl::StrCat("\"", v,
                                     "\" must be an absolute path in the bucket, e.g. "
                                     "/pgbackrest/db"));
    }
  }
}

}  // namespace

void ValidateBackups(const json& spec, ErrorList& errors) {
  const json* backups = Child(&spec, "backups");
  if (backups == nullptr) return;
  if (!backups->is_object()) {
    errors.Add("spec.backups", "must be an object, e.g. {pgbackrest: {repos: [...]}}");
    return;
  }
  const json* pgbr = Child(backups, "pgbackrest");
  if (pgbr == nullptr) return;
  if (!pgbr->is_object()) {
    errors.Add(kAt, "must be an object with repos (and optionally configuration and global)");
    return;
  }
  std::set<int> repos;
  ValidateRepos(*pgbr, repos, errors);
  ValidateConfiguration(*pgbr, errors);
  ValidateGlobal(*pgbr, repos, errors);
}

}  // namespace quorum::api::internal
