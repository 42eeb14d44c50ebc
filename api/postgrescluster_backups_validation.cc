// ValidateBackups (postgrescluster_validation_internal.h): the rules of
// spec.backups.pgbackrest. Every value ends up in pgBackRest's configuration
// file, so a value that could break the file (a line break) or a key that
// would take over what Quorum sets (the stanza, the paths, the repository
// types) is refused here, naming the field; secrets are refused outside a
// Secret.
#include <cstddef>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "api/cron.h"
#include "api/etcdcluster_validation.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation_internal.h"
#include "api/quantity.h"
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
// `parent`: the object holding the key (and its configuration); `at`: where
// its repositories are.
std::string RefusedKey(const std::string& key, const std::set<int>& repos,
                       const std::string& parent, const std::string& at) {
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
      return "is a secret: put it into a Secret listed in " + parent +
             ".configuration "
             "(a key such as s3.conf holding \"[global]\\n" +
             key + "=...\"), never into the PostgresCluster";
    }
    if (kRepoOwned.contains(option) || option.starts_with("host-")) {
      return "is set by Quorum from " + at + " (s3.bucket, s3.endpoint, s3.region); remove it";
    }
    if (!repos.contains(n)) {
      return absl::StrCat("names repo", n, ", which ", at, " does not have");
    }
  }
  return "";
}

// repos[].volume at `field`: a claim spec with a storage request above 0,
// and not ReadWriteOncePod (backup Jobs mount the claim beside the repository
// host); `old_volume` (the same repository before an update, or null): the
// request never shrinks.
void ValidateVolume(const json& volume, const std::string& field, const json* old_volume,
                    ErrorList& errors) {
  const json* pvc = Child(&volume, "volumeClaimSpec");
  if (!volume.is_object() || pvc == nullptr || !pvc->is_object()) {
    errors.Add(field + ".volumeClaimSpec",
               "required: the repository's claim, e.g. {resources: {requests: {storage: 50Gi}}}");
    return;
  }
  if (const json* modes = Child(pvc, "accessModes"); modes != nullptr && modes->is_array()) {
    for (const json& m : *modes) {
      if (m == "ReadWriteOncePod") {
        errors.Add(field + ".volumeClaimSpec.accessModes",
                   "ReadWriteOncePod cannot serve a repository: backup Jobs mount the claim on "
                   "the repository host's node while the host runs; use ReadWriteOnce");
      }
    }
  }
  const std::string size_field = field + ".volumeClaimSpec.resources.requests.storage";
  const json* request = json_access::Path(pvc, {"resources", "requests", "storage"});
  if (request == nullptr) {
    errors.Add(size_field, "required: the size of the repository, e.g. 50Gi");
    return;
  }
  absl::StatusOr<Quantity> size = QuantityFromJson(*request);
  if (!size.ok() || size->nano() <= 0) {
    errors.Add(size_field, size.ok() ? "must be larger than 0, e.g. 50Gi"
                                     : std::string(size.status().message()));
    return;
  }
  const json* old_request =
      json_access::Path(old_volume, {"volumeClaimSpec", "resources", "requests", "storage"});
  if (old_request == nullptr) return;
  absl::StatusOr<Quantity> old_size = QuantityFromJson(*old_request);
  if (old_size.ok() && *size < *old_size) {
    errors.Add(size_field, absl::StrCat("cannot shrink from ", json_access::Display(*old_request),
                                        " to ", json_access::Display(*request),
                                        "; a PersistentVolumeClaim can only grow"));
  }
}

// The S3 bucket of one repository at `field` + ".s3".
void ValidateS3(const json& s3, const std::string& field, ErrorList& errors) {
  for (const char* key : {"bucket", "endpoint", "region"}) {
    const json* v = Child(&s3, key);
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
               s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos) {
      errors.Add(f, absl::StrCat("\"", s,
                                 "\" may hold only lowercase letters, digits, '.' "
                                 "and '-'"));
    }
  }
}

// One repository object (name, and s3 or, where `old_repos` is given,
// volume) at `field`; its number joins `numbers`. `old_repos`: the
// repositories before an update (an array), or null on create, or null with
// `volumes` false where only buckets are allowed (a dataSource).
void ValidateRepo(const json& repo, const std::string& field, std::set<int>& numbers,
                  ErrorList& errors, bool volumes = false, const json* old_repos = nullptr) {
  if (!repo.is_object()) {
    errors.Add(field, volumes ? "must be an object with name and s3 or volume"
                              : "must be an object with name and s3");
    return;
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
  const json* volume = Child(&repo, "volume");
  if (!volumes && volume != nullptr) {
    errors.Add(field + ".volume",
               "a volume repository cannot be restored into a new cluster (its claim belongs to "
               "the cluster that wrote it): restore that cluster in place "
               "(spec.backups.pgbackrest.restore), or from an S3 repository");
    return;
  }
  if (s3 != nullptr && volume != nullptr) {
    errors.Add(field, "set exactly one of s3 and volume");
    return;
  }
  const json* old = nullptr;
  if (old_repos != nullptr && old_repos->is_array()) {
    for (const json& r : *old_repos) {
      if (r.is_object() && Child(&r, "name") != nullptr && *Child(&r, "name") == n) old = &r;
    }
  }
  if (old != nullptr && (Child(old, "volume") != nullptr) != (volume != nullptr)) {
    errors.Add(field + (volume != nullptr ? ".volume" : ".s3"),
               absl::StrCat(n, " was ", volume != nullptr ? "an S3" : "a volume",
                            " repository: a repository cannot change between s3 and volume; add "
                            "the new one under another name (repo1..repo4)"));
    return;
  }
  if (volume != nullptr) {
    ValidateVolume(*volume, field + ".volume", old != nullptr ? Child(old, "volume") : nullptr,
                   errors);
    return;
  }
  if (s3 == nullptr || !s3->is_object()) {
    errors.Add(field + ".s3", volumes ? "required: the repository's bucket, endpoint and region "
                                        "(or a volume instead of s3)"
                                      : "required: the repository's bucket, endpoint and region");
    return;
  }
  ValidateS3(*s3, field, errors);
}

// repos[].schedules: each a cron line that parses and fires.
void ValidateSchedules(const json& repo, const std::string& at, ErrorList& errors) {
  const json* schedules = Child(&repo, "schedules");
  if (schedules == nullptr) return;
  if (!schedules->is_object()) {
    errors.Add(at, "must be an object, e.g. {full: \"0 1 * * 0\", incremental: \"0 1 * * 1-6\"}");
    return;
  }
  for (const auto& [key, value] : schedules->items()) {
    const std::string field = absl::StrCat(at, ".", key);
    if (key != "full" && key != "differential" && key != "incremental") {
      errors.Add(field, "is not a backup type: full, differential or incremental");
      continue;
    }
    if (!value.is_string()) {
      errors.Add(field,
                 absl::StrCat("must be a cron line such as \"0 1 * * 0\" (got ", Dump(value), ")"));
      continue;
    }
    if (absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(value.get<std::string>());
        !cron.ok()) {
      errors.Add(field, std::string(cron.status().message()));
    }
  }
}

// The repository host's StatefulSet, <cluster>-repo-host, must fit
// kMaxStatefulSetNameLength.
constexpr char kRepoHostSuffix[] = "-repo-host";

void ValidateRepos(const json& pgbr, const json* old_pgbr, const std::string& cluster_name,
                   std::set<int>& numbers, ErrorList& errors) {
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
    ValidateRepo((*repos)[i], IndexedField(at, i), numbers, errors, /*volumes=*/true,
                 old_pgbr != nullptr ? Child(old_pgbr, "repos") : nullptr);
    if ((*repos)[i].is_object() && Child(&(*repos)[i], "volume") != nullptr &&
        cluster_name.size() + std::strlen(kRepoHostSuffix) > kMaxStatefulSetNameLength) {
      errors.Add(IndexedField(at, i) + ".volume",
                 absl::StrCat("needs a repository host, ", cluster_name, kRepoHostSuffix,
                              ", whose name would exceed ", kMaxStatefulSetNameLength,
                              " characters: name the cluster with at most ",
                              kMaxStatefulSetNameLength - std::strlen(kRepoHostSuffix),
                              " characters, or use an S3 repository"));
    }
    ValidateSchedules((*repos)[i], IndexedField(at, i) + ".schedules", errors);
  }
}

void ValidateConfiguration(const json& pgbr, const std::string& parent, ErrorList& errors) {
  const std::string at = parent + ".configuration";
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

void ValidateGlobal(const json& pgbr, const std::string& parent, const std::string& repos_at,
                    const std::set<int>& repos, ErrorList& errors) {
  const std::string at = parent + ".global";
  const json* global = Child(&pgbr, "global");
  if (global == nullptr) return;
  if (!global->is_object()) {
    errors.Add(at, "must be a map of pgBackRest options, e.g. {repo1-retention-full: \"7\"}");
    return;
  }
  std::set<int> volumes;  // the numbers of volume repositories
  if (const json* list = Child(&pgbr, "repos"); list != nullptr && list->is_array()) {
    for (const json& r : *list) {
      const json* name = r.is_object() ? Child(&r, "name") : nullptr;
      if (name != nullptr && name->is_string() && Child(&r, "volume") != nullptr) {
        volumes.insert(RepoNumber(name->get<std::string>() + "-"));
      }
    }
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
    if (std::string why = RefusedKey(key, repos, parent, repos_at); !why.empty()) {
      errors.Add(field, std::move(why));
      continue;
    }
    const std::string_view option = IndexedOption(key);
    if (volumes.contains(RepoNumber(key)) &&
        (option == "path" || option.starts_with("s3-") || option.starts_with("storage-"))) {
      errors.Add(field, absl::StrCat("applies to S3 repositories, and repo", RepoNumber(key),
                                     " is a volume (its path is its claim); remove it"));
      continue;
    }
    if (RepoNumber(key) != 0 && option == "path" && (v.empty() || v.front() != '/')) {
      errors.Add(field, absl::StrCat("\"", v,
                                     "\" must be an absolute path in the bucket, e.g. "
                                     "/pgbackrest/db"));
    }
  }
}

// `set` under `parent`: a pgBackRest backup label.
void ValidateSet(const json& parent, const std::string& at, ErrorList& errors) {
  const json* set = Child(&parent, "set");
  if (set == nullptr) return;
  const bool ok = set->is_string() && !set->get<std::string>().empty() &&
                  set->get<std::string>().size() <= 64 &&
                  set->get<std::string>().find_first_not_of(
                      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") == std::string::npos;
  if (!ok) {
    errors.Add(absl::StrCat(at, ".set"),
               absl::StrCat("must be a backup label such as 20261204-101500F (a "
                            "PostgresBackup's status.backup.label; got ",
                            Dump(*set), ")"));
  }
}

// `target` under `parent`: exactly one of time (RFC 3339), lsn, xid.
void ValidateTarget(const json& parent, const std::string& at, ErrorList& errors) {
  const json* target = Child(&parent, "target");
  if (target == nullptr) return;
  const std::string tat = absl::StrCat(at, ".target");
  if (!target->is_object() || target->size() != 1) {
    errors.Add(tat,
               "must set exactly one of time, lsn and xid (or leave target out: the end "
               "of the archived WAL)");
    return;
  }
  const auto first = target->begin();
  const std::string kind = first.key();
  const json& value = first.value();
  const std::string v = value.is_string() ? value.get<std::string>() : "";
  const std::string field = absl::StrCat(tat, ".", kind);
  if (kind == "time") {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, v, &t, &err)) {
      errors.Add(field, absl::StrCat("must be an RFC 3339 time such as 2026-12-04T10:15:00Z (got ",
                                     Dump(value), ")"));
    }
  } else if (kind == "lsn") {
    const size_t slash = v.find('/');
    const auto hex = [](std::string_view h) {
      return !h.empty() && h.size() <= 8 &&
             h.find_first_not_of("0123456789ABCDEFabcdef") == std::string_view::npos;
    };
    if (slash == std::string::npos || !hex(std::string_view(v).substr(0, slash)) ||
        !hex(std::string_view(v).substr(slash + 1))) {
      errors.Add(field,
                 absl::StrCat("must be a WAL position such as 0/5000100 (got ", Dump(value), ")"));
    }
  } else if (kind == "xid") {
    uint64_t xid = 0;
    if (!absl::SimpleAtoi(v, &xid) || xid == 0) {
      errors.Add(field, absl::StrCat("must be a transaction id, digits (got ", Dump(value), ")"));
    }
  } else {
    errors.Add(field, "is not a target: set time, lsn or xid");
  }
}

// restore: the in-place restore's repository must be one of `repos`.
void ValidateRestore(const json& pgbr, const std::set<int>& repos, ErrorList& errors) {
  const json* restore = Child(&pgbr, "restore");
  if (restore == nullptr) return;
  const std::string at = absl::StrCat(kAt, ".restore");
  if (!restore->is_object()) {
    errors.Add(at, "must be an object, e.g. {enabled: true, repoName: repo1, target: {time: ...}}");
    return;
  }
  if (const json* enabled = Child(restore, "enabled");
      enabled != nullptr && !enabled->is_boolean()) {
    errors.Add(at + ".enabled", absl::StrCat("must be true or false (got ", Dump(*enabled), ")"));
  }
  const json* repo = Child(restore, "repoName");
  const std::string name = repo != nullptr && repo->is_string() ? repo->get<std::string>() : "";
  if (name.size() != 5 || !name.starts_with("repo") || !repos.contains(name[4] - '0')) {
    errors.Add(at + ".repoName", absl::StrCat("must name one of ", kAt, ".repos (got ",
                                              repo != nullptr ? Dump(*repo) : "nothing", ")"));
  }
  ValidateSet(*restore, at, errors);
  ValidateTarget(*restore, at, errors);
}

}  // namespace

void ValidateBackups(const json& spec, const json* old_spec, const std::string& cluster_name,
                     ErrorList& errors) {
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
  ValidateRepos(*pgbr, json_access::Path(old_spec, {"backups", "pgbackrest"}), cluster_name, repos,
                errors);
  ValidateConfiguration(*pgbr, kAt, errors);
  ValidateGlobal(*pgbr, kAt, absl::StrCat(kAt, ".repos"), repos, errors);
  ValidateRestore(*pgbr, repos, errors);
}

void ValidateRestoreTrigger(const json& obj, const json* old, ErrorList& errors) {
  if (old == nullptr) return;
  const std::string key(kRestoreTriggerAnnotation);
  auto value = [&](const json& o) {
    const json* v = json_access::Path(&o, {"metadata", "annotations", key.c_str()});
    return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
  };
  const std::string now = value(obj);
  const bool triggered = !now.empty() && now != value(*old);
  const json* restore = json_access::Path(&obj, {"spec", "backups", "pgbackrest", "restore"});
  if (triggered) {
    const json* enabled = Child(restore, "enabled");
    if (enabled == nullptr || !enabled->is_boolean() || !enabled->get<bool>()) {
      errors.Add(absl::StrCat("metadata.annotations[", key, "]"),
                 absl::StrCat("asks for an in-place restore, but ", kAt,
                              ".restore.enabled is not true: set restore {enabled: true, "
                              "repoName: repoN, target: ...} first (in the same apply or "
                              "before)"));
    }
    return;
  }
  // A restore under way runs what the spec says: it changes only with a new
  // trigger (which starts over).
  const json* phase =
      json_access::Path(old, {"status", "backups", "pgbackrest", "restore", "phase"});
  const std::string running =
      phase != nullptr && phase->is_string() ? phase->get<std::string>() : "";
  if (running != kRestoreStopping && running != kRestoreRestoring) return;
  const json* before = json_access::Path(old, {"spec", "backups", "pgbackrest", "restore"});
  if ((restore == nullptr) == (before == nullptr) && (restore == nullptr || *restore == *before)) {
    return;
  }
  errors.Add(absl::StrCat(kAt, ".restore"),
             absl::StrCat("cannot change while an in-place restore is ", running,
                          ": to restore something else, give the annotation ", key,
                          " a new value in the same update (the restore starts over)"));
}

void ValidateDataSource(const json& spec, const json* old_spec, ErrorList& errors) {
  if (old_spec != nullptr && Child(old_spec, "dataSource") != nullptr &&
      (Child(&spec, "dataSource") == nullptr ||
       *Child(&spec, "dataSource") != *Child(old_spec, "dataSource"))) {
    errors.Add("spec.dataSource", "is immutable: it only says how the cluster was created");
    return;
  }
  if (old_spec != nullptr && Child(old_spec, "dataSource") == nullptr &&
      Child(&spec, "dataSource") != nullptr) {
    errors.Add("spec.dataSource",
               "cannot be added to an existing cluster: create a new PostgresCluster to restore");
    return;
  }
  const json* source = Child(&spec, "dataSource");
  if (source == nullptr) return;
  constexpr char kSrc[] = "spec.dataSource.pgbackrest";
  const json* src = Child(source, "pgbackrest");
  if (!source->is_object() || src == nullptr || !src->is_object()) {
    errors.Add(kSrc,
               "required: the repository to restore from, e.g. {clusterName: old, repo: "
               "{name: repo1, s3: {...}}, configuration: [...]}");
    return;
  }
  std::set<int> repos;
  const json* repo = Child(src, "repo");
  if (repo == nullptr) {
    errors.Add(absl::StrCat(kSrc, ".repo"),
               "required: {name: repoN, s3: {bucket, endpoint, region}}");
  } else {
    ValidateRepo(*repo, absl::StrCat(kSrc, ".repo"), repos, errors);
  }
  ValidateConfiguration(*src, kSrc, errors);
  ValidateGlobal(*src, kSrc, absl::StrCat(kSrc, ".repo"), repos, errors);
  // Where the repository is: the writer's default path, or repoN-path.
  const json* cluster = Child(src, "clusterName");
  bool has_path = false;
  if (const json* global = Child(src, "global"); global != nullptr && global->is_object()) {
    for (const auto& [key, value] : global->items()) {
      has_path = has_path || (RepoNumber(key) != 0 && IndexedOption(key) == "path");
    }
  }
  if (cluster != nullptr &&
      (!cluster->is_string() || !IsDns1123Subdomain(cluster->get<std::string>()))) {
    errors.Add(absl::StrCat(kSrc, ".clusterName"),
               absl::StrCat("must be a PostgresCluster's name (got ", Dump(*cluster), ")"));
  } else if (cluster == nullptr && !has_path) {
    errors.Add(absl::StrCat(kSrc, ".clusterName"),
               "required: the cluster that wrote the repository (its path is "
               "/pgbackrest/<namespace>/<clusterName>/repoN), or repoN-path in global");
  }
  if (const json* ns = Child(src, "clusterNamespace");
      ns != nullptr && (!ns->is_string() || !IsDns1123Subdomain(ns->get<std::string>()) ||
                        ns->get<std::string>().size() > 63 ||
                        ns->get<std::string>().find('.') != std::string::npos)) {
    errors.Add(absl::StrCat(kSrc, ".clusterNamespace"),
               absl::StrCat("must be a namespace's name (got ", Dump(*ns), ")"));
  }
  ValidateSet(*src, kSrc, errors);
  ValidateTarget(*src, kSrc, errors);
}

}  // namespace quorum::api::internal
