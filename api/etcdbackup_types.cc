#include "api/etcdbackup_types.h"

#include "api/decode.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::Decoder;
using internal::Join;

void DecodeDestination(Decoder& d, const Json* o, const std::string& path, BackupDestination& out) {
  if (const Json* s3 = d.Member(o, path, "s3")) {
    const std::string at = Join(path, "s3");
    BackupS3& b = out.s3.emplace();
    d.String(s3, at, "endpoint", b.endpoint);
    d.String(s3, at, "bucket", b.bucket);
    d.String(s3, at, "key", b.key);
    d.String(s3, at, "region", b.region);
    d.Bool(s3, at, "forcePathStyle", b.force_path_style);
    d.String(d.Member(s3, at, "credentialsSecretRef"), Join(at, "credentialsSecretRef"), "name",
             b.credentials_secret);
  }
  if (const Json* pvc = d.Member(o, path, "pvc")) {
    const std::string at = Join(path, "pvc");
    BackupPvc& p = out.pvc.emplace();
    d.String(pvc, at, "claimName", p.claim_name);
    d.String(pvc, at, "subPath", p.sub_path);
  }
}

void DecodeStatus(Decoder& d, const Json* status, EtcdBackupStatus& out) {
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  d.String(status, "status", "phase", out.phase);
  d.String(status, "status", "jobName", out.job_name);
  internal::DecodeStatusConditions(d, status, out.conditions);
  if (const Json* snap = d.Member(status, "status", "snapshot")) {
    BackupSnapshotStatus& s = out.snapshot.emplace();
    d.String(snap, "status.snapshot", "uri", s.uri);
    d.Int64(snap, "status.snapshot", "revision", s.revision);
    d.Int64(snap, "status.snapshot", "size", s.size);
    d.String(snap, "status.snapshot", "sha256", s.sha256);
    d.String(snap, "status.snapshot", "takenAt", s.taken_at);
  }
}

}  // namespace

BackupDestination DecodeBackupDestination(const Json* obj, const std::string& path,
                                          std::vector<FieldError>& errors) {
  Decoder d;
  BackupDestination out;
  if (obj != nullptr) DecodeDestination(d, obj, path, out);
  errors.insert(errors.end(), d.errors().begin(), d.errors().end());
  return out;
}

absl::StatusOr<EtcdBackup> ParseEtcdBackup(const Json& obj) {
  if (!obj.is_object()) return absl::InvalidArgumentError("an EtcdBackup must be a JSON object");
  if (std::vector<FieldError> errors = ValidateEtcdBackup(obj, nullptr); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  Decoder d;
  EtcdBackup out;
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
  DecodeDestination(d, d.Member(spec, "spec", "destination"), "spec.destination",
                    out.spec.destination);
  DecodeStatus(d, d.Member(&obj, "", "status"), out.status);
  if (absl::Status s = d.ToStatus(); !s.ok()) return s;
  return out;
}

Json ToJson(const BackupDestination& d) {
  Json out = Json::object();
  if (d.s3) {
    Json s3 = {{"endpoint", d.s3->endpoint},
               {"bucket", d.s3->bucket},
               {"credentialsSecretRef", {{"name", d.s3->credentials_secret}}}};
    if (!d.s3->key.empty()) s3["key"] = d.s3->key;
    if (!d.s3->region.empty()) s3["region"] = d.s3->region;
    if (d.s3->force_path_style) s3["forcePathStyle"] = true;
    out["s3"] = s3;
  }
  if (d.pvc) {
    Json pvc = {{"claimName", d.pvc->claim_name}};
    if (!d.pvc->sub_path.empty()) pvc["subPath"] = d.pvc->sub_path;
    out["pvc"] = pvc;
  }
  return out;
}

Json ToJson(const EtcdBackupStatus& s) {
  Json conditions = Json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  Json out = {{"observedGeneration", s.observed_generation},
              {"phase", s.phase},
              {"conditions", conditions}};
  if (!s.job_name.empty()) out["jobName"] = s.job_name;
  if (s.snapshot) {
    out["snapshot"] = {{"uri", s.snapshot->uri},
                       {"revision", s.snapshot->revision},
                       {"size", s.snapshot->size},
                       {"sha256", s.snapshot->sha256},
                       {"takenAt", s.snapshot->taken_at},
                       // aenix v0.4.4+'s names for the same facts.
                       {"sizeBytes", s.snapshot->size},
                       {"checksum", "sha256:" + s.snapshot->sha256}};
  }
  return out;
}

}  // namespace quorum::api
