// The admission rules of EtcdBackup and of a restore source (etcdbackup_types.h).
#include <cctype>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/etcdbackup_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

const Json* Child(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  return it == o->end() || it->is_null() ? nullptr : &*it;
}

std::string Str(const Json* o, const char* key) {
  const Json* v = Child(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

bool IsDnsLabelish(std::string_view s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
      return false;
    }
  }
  return s.front() != '-' && s.front() != '.' && s.back() != '-' && s.back() != '.';
}

// http(s)://host[:port], nothing after.
bool IsEndpoint(absl::string_view e) {
  if (!absl::ConsumePrefix(&e, "https://") && !absl::ConsumePrefix(&e, "http://")) return false;
  absl::ConsumeSuffix(&e, "/");
  return !e.empty() && !absl::StrContains(e, "/") && !absl::StrContains(e, "@") &&
         !absl::StrContains(e, "?") && !absl::StrContains(e, "#");
}

// A relative path without "." or ".." parts (it is joined under a mount).
bool IsSafeRelativePath(absl::string_view p) {
  if (p.empty()) return true;
  if (p.front() == '/' || p.size() > 1024) return false;
  for (absl::string_view part : absl::StrSplit(p, '/')) {
    if (part == ".." || part == ".") return false;
  }
  return !absl::StrContains(p, absl::string_view("\0", 1));
}

void ValidateS3(const Json* s3, const std::string& at, std::vector<FieldError>& out) {
  if (!IsEndpoint(Str(s3, "endpoint"))) {
    out.push_back({at + ".endpoint", "want http(s)://host[:port] of the object store"});
  }
  if (!IsDnsLabelish(Str(s3, "bucket"), 63)) {
    out.push_back({at + ".bucket",
                   "want an S3 bucket name (3-63 lower-case letters, digits, "
                   "'-' and '.')"});
  }
  const std::string key = Str(s3, "key");
  if (!key.empty() && (key.front() == '/' || key.size() > 1024 || !IsSafeRelativePath(key))) {
    out.push_back({at + ".key", "want an object key without a leading '/' or '.'/'..' parts"});
  }
  if (Str(Child(s3, "credentialsSecretRef"), "name").empty()) {
    out.push_back({at + ".credentialsSecretRef.name",
                   "name the Secret holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"});
  }
}

}  // namespace

std::vector<FieldError> ValidateBackupDestination(const Json* obj, const std::string& path,
                                                  bool restore_source) {
  std::vector<FieldError> out;
  const Json* s3 = Child(obj, "s3");
  const Json* pvc = Child(obj, "pvc");
  if ((s3 == nullptr) == (pvc == nullptr)) {
    out.push_back({path, "set exactly one of s3 and pvc"});
    return out;
  }
  if (s3 != nullptr) ValidateS3(s3, path + ".s3", out);
  if (restore_source && s3 != nullptr && Str(s3, "key").empty()) {
    out.push_back({path + ".s3.key", "name the snapshot object to restore"});
  }
  if (pvc != nullptr) {
    if (!IsDnsLabelish(Str(pvc, "claimName"), 253)) {
      out.push_back({path + ".pvc.claimName", "name a PersistentVolumeClaim in this namespace"});
    }
    if (!IsSafeRelativePath(Str(pvc, "subPath"))) {
      out.push_back({path + ".pvc.subPath",
                     "want a relative folder inside the claim, without '.' or '..' parts"});
    }
  }
  std::vector<FieldError> types;
  DecodeBackupDestination(obj, path, types);
  out.insert(out.end(), types.begin(), types.end());
  return out;
}

std::vector<FieldError> ValidateEtcdBackup(const Json& obj, const Json* old) {
  std::vector<FieldError> out;
  const Json* spec = Child(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) {
    out.push_back({"spec", "required"});
    return out;
  }
  if (!IsDnsLabelish(Str(Child(spec, "clusterRef"), "name"), 253)) {
    out.push_back({"spec.clusterRef.name", "name an EtcdCluster in this namespace"});
  }
  for (FieldError& e : ValidateBackupDestination(Child(spec, "destination"), "spec.destination")) {
    out.push_back(std::move(e));
  }
  if (old != nullptr) {
    const Json* old_spec = Child(old, "spec");
    if (old_spec != nullptr && *old_spec != *spec) {
      out.push_back({"spec", "is immutable: a backup is one snapshot; create a new EtcdBackup"});
    }
  }
  return out;
}

}  // namespace quorum::api
