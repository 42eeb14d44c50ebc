#include "api/postgresbackup_types.h"

#include <cctype>

#include "api/decode.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::Decoder;

const Json* Child(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  return it == o->end() || it->is_null() ? nullptr : &*it;
}

// A Kubernetes object name (DNS subdomain): lower-case letters, digits, '-'
// and '.', starting and ending with a letter or digit.
bool IsObjectName(const Json* v) {
  if (v == nullptr || !v->is_string()) return false;
  const std::string& s = v->get_ref<const std::string&>();
  if (s.empty() || s.size() > 253) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
      return false;
    }
  }
  return std::isalnum(static_cast<unsigned char>(s.front())) &&
         std::isalnum(static_cast<unsigned char>(s.back()));
}

void DecodeStatus(Decoder& d, const Json* status, PostgresBackupStatus& out) {
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  d.String(status, "status", "phase", out.phase);
  d.String(status, "status", "jobName", out.job_name);
  internal::DecodeStatusConditions(d, status, out.conditions);
  if (const Json* b = d.Member(status, "status", "backup")) {
    const std::string at = "status.backup";
    PgBackRestBackupInfo& i = out.backup.emplace();
    d.String(b, at, "label", i.label);
    d.String(b, at, "type", i.type);
    d.String(b, at, "repo", i.repo);
    d.String(b, at, "startTime", i.start_time);
    d.String(b, at, "stopTime", i.stop_time);
    d.String(b, at, "lsnStart", i.lsn_start);
    d.String(b, at, "lsnStop", i.lsn_stop);
    d.String(b, at, "walStart", i.wal_start);
    d.String(b, at, "walStop", i.wal_stop);
    d.Int64(b, at, "size", i.size);
    d.Int64(b, at, "repoSize", i.repo_size);
    d.String(b, at, "prior", i.prior);
    const Json* r = d.Member(b, at, "repository");
    d.String(r, at + ".repository", "walMin", i.repo_wal_min);
    d.String(r, at + ".repository", "walMax", i.repo_wal_max);
    d.String(r, at + ".repository", "oldestStopTime", i.repo_oldest_stop_time);
  }
}

}  // namespace

std::vector<FieldError> ValidatePostgresBackup(const Json& obj, const Json* old) {
  std::vector<FieldError> out;
  const Json* spec = Child(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) {
    out.push_back({"spec", "required"});
    return out;
  }
  if (!IsObjectName(Child(Child(spec, "clusterRef"), "name"))) {
    out.push_back({"spec.clusterRef.name", "name a PostgresCluster in this namespace"});
  }
  const Json* repo = Child(spec, "repoName");
  const bool repo_ok =
      repo != nullptr && repo->is_string() &&
      (*repo == "repo1" || *repo == "repo2" || *repo == "repo3" || *repo == "repo4");
  if (!repo_ok) {
    out.push_back({"spec.repoName",
                   "want repo1, repo2, repo3 or repo4: a repository of the cluster's "
                   "spec.backups.pgbackrest.repos"});
  }
  if (const Json* type = Child(spec, "type"); type != nullptr) {
    if (!type->is_string() ||
        (*type != kBackupTypeFull && *type != kBackupTypeDiff && *type != kBackupTypeIncr)) {
      out.push_back({"spec.type", "want full, diff or incr"});
    }
  }
  for (const auto& [key, value] : spec->items()) {
    if (key != "clusterRef" && key != "repoName" && key != "type") {
      out.push_back({"spec." + key, "unknown field"});
    }
  }
  if (old != nullptr) {
    const Json* old_spec = Child(old, "spec");
    if (old_spec != nullptr && *old_spec != *spec) {
      out.push_back({"spec", "is immutable: one PostgresBackup is one backup; create another"});
    }
  }
  return out;
}

absl::StatusOr<PostgresBackup> ParsePostgresBackup(const Json& obj) {
  if (!obj.is_object()) return absl::InvalidArgumentError("a PostgresBackup must be a JSON object");
  if (std::vector<FieldError> errors = ValidatePostgresBackup(obj, nullptr); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  Decoder d;
  PostgresBackup out;
  const Json* meta = d.Member(&obj, "", "metadata");
  d.String(meta, "metadata", "name", out.metadata.name);
  d.String(meta, "metadata", "namespace", out.metadata.ns);
  d.String(meta, "metadata", "uid", out.metadata.uid);
  d.Int64(meta, "metadata", "generation", out.metadata.generation);
  d.String(meta, "metadata", "creationTimestamp", out.metadata.creation_timestamp);
  out.metadata.deleting = d.Member(meta, "metadata", "deletionTimestamp") != nullptr;
  d.StringMap(meta, "metadata", "annotations", out.metadata.annotations);
  const Json* spec = d.Member(&obj, "", "spec");
  d.String(d.Member(spec, "spec", "clusterRef"), "spec.clusterRef", "name", out.spec.cluster_ref);
  d.String(spec, "spec", "repoName", out.spec.repo_name);
  d.String(spec, "spec", "type", out.spec.type);
  DecodeStatus(d, d.Member(&obj, "", "status"), out.status);
  if (absl::Status s = d.ToStatus(); !s.ok()) return s;
  return out;
}

Json ToJson(const PostgresBackupStatus& s) {
  Json conditions = Json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  Json out = {{"observedGeneration", s.observed_generation},
              {"phase", s.phase},
              {"conditions", conditions}};
  if (!s.job_name.empty()) out["jobName"] = s.job_name;
  if (s.backup) {
    const PgBackRestBackupInfo& b = *s.backup;
    Json j = {{"label", b.label},        {"type", b.type},
              {"repo", b.repo},          {"startTime", b.start_time},
              {"stopTime", b.stop_time}, {"lsnStart", b.lsn_start},
              {"lsnStop", b.lsn_stop},   {"walStart", b.wal_start},
              {"walStop", b.wal_stop},   {"size", b.size},
              {"repoSize", b.repo_size}};
    if (!b.prior.empty()) j["prior"] = b.prior;
    Json repository = Json::object();
    if (!b.repo_wal_min.empty()) repository["walMin"] = b.repo_wal_min;
    if (!b.repo_wal_max.empty()) repository["walMax"] = b.repo_wal_max;
    if (!b.repo_oldest_stop_time.empty()) repository["oldestStopTime"] = b.repo_oldest_stop_time;
    if (!repository.empty()) j["repository"] = repository;
    out["backup"] = j;
  }
  return out;
}

}  // namespace quorum::api
