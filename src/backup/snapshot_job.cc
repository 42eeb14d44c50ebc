#include "src/backup/snapshot_job.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/etcd/snapshot.h"

namespace quorum::backup {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool Healthy(const etcd::StatusResponse& s) {
  return !s.is_learner && s.leader != 0 && s.errors.empty();
}

bool NoneAnswered(const std::vector<MemberProbe>& probes) {
  for (const MemberProbe& p : probes) {
    const absl::Status& s = p.status.status();
    if (p.status.ok() || !(absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s))) return false;
  }
  return true;
}

// Every endpoint's status; while none answers, again each second until
// `grace` has passed.
std::vector<MemberProbe> Probe(etcd::Client& client, const std::vector<std::string>& endpoints,
                               absl::Duration grace) {
  const absl::Time deadline = absl::Now() + grace;
  while (true) {
    std::vector<MemberProbe> probes;
    for (const std::string& e : endpoints) probes.push_back({e, client.Status(e)});
    if (!NoneAnswered(probes) || absl::Now() >= deadline) return probes;
    absl::SleepFor(absl::Seconds(1));
  }
}

}  // namespace

absl::StatusOr<std::string> ChooseMember(const std::vector<MemberProbe>& probes) {
  const MemberProbe* leader = nullptr;
  for (const MemberProbe& p : probes) {
    if (!p.status.ok() || !Healthy(*p.status)) continue;
    if (p.status->leader != p.status->member_id) return p.endpoint;
    if (leader == nullptr) leader = &p;
  }
  if (leader != nullptr) return leader->endpoint;
  std::string why;
  for (const MemberProbe& p : probes) {
    absl::StrAppend(&why, why.empty() ? "" : "; ", p.endpoint, ": ",
                    p.status.ok() ? (p.status->is_learner    ? "a learner"
                                     : p.status->leader == 0 ? "no leader"
                                                             : "alarm raised")
                                  : p.status.status().message());
  }
  return absl::UnavailableError(absl::StrCat("no healthy member to snapshot (", why, ")"));
}

std::string ResultJson(const SnapshotJobResult& r) {
  return json{{"uri", r.uri},
              {"revision", r.revision},
              {"size", r.size},
              {"sha256", r.sha256},
              {"takenAt", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", r.taken_at, absl::UTCTimeZone())},
              {"member", r.member}}
      .dump();
}

absl::StatusOr<SnapshotJobResult> ParseResultJson(std::string_view text) {
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("uri") || !j["uri"].is_string() ||
      !j.contains("sha256") || !j["sha256"].is_string() || !j.contains("size") ||
      !j["size"].is_number_unsigned() || !j.contains("revision") ||
      !j["revision"].is_number_integer() || !j.contains("takenAt") || !j["takenAt"].is_string()) {
    return absl::InvalidArgumentError("not a snapshot result");
  }
  SnapshotJobResult r;
  r.uri = j["uri"];
  r.sha256 = j["sha256"];
  r.size = j["size"];
  r.revision = j["revision"];
  r.member = j.value("member", "");
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, j["takenAt"].get<std::string>(), &r.taken_at, &err)) {
    return absl::InvalidArgumentError(absl::StrCat("takenAt: ", err));
  }
  return r;
}

absl::StatusOr<SnapshotJobResult> TakeSnapshot(const SnapshotJobOptions& o) {
  if (o.directory.empty() == !o.s3.has_value()) {
    return absl::InvalidArgumentError("want exactly one destination: a directory or S3");
  }
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(o.etcd);
  if (!client.ok()) return client.status();
  const std::vector<MemberProbe> probes = Probe(**client, o.etcd.endpoints, o.unreachable_grace);
  absl::StatusOr<std::string> member = ChooseMember(probes);
  if (!member.ok()) return member.status();

  std::error_code ec;
  fs::create_directories(o.work_dir, ec);
  const std::string part = (fs::path(o.work_dir) / (o.name + ".part")).string();
  std::ofstream out(part, std::ios::binary | std::ios::trunc);
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", part));
  const absl::Time started = absl::Now();
  absl::StatusOr<etcd::SnapshotInfo> info = etcd::StreamSnapshot(
      **client, *member,
      [&](std::string_view bytes) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return out ? absl::OkStatus() : absl::InternalError(absl::StrCat("writing ", part));
      },
      nullptr);
  out.close();
  if (!info.ok() || !out) {
    fs::remove(part, ec);
    return info.ok() ? absl::InternalError(absl::StrCat("writing ", part)) : info.status();
  }
  // The stream carries no revision (etcd 3.6 sends no header): the member's
  // revision just before it began, a lower bound of what the snapshot holds.
  int64_t revision = info->revision;
  for (const MemberProbe& p : probes) {
    if (revision == 0 && p.endpoint == *member && p.status.ok()) revision = p.status->revision;
  }
  SnapshotJobResult r{.revision = revision,
                      .size = info->digest.size,
                      .sha256 = info->digest.sha256,
                      .taken_at = started,
                      .member = *member};
  if (o.s3.has_value()) {
    absl::Status s = PutObject(*o.s3, o.s3_credentials, part, r.sha256, absl::Now());
    fs::remove(part, ec);
    if (!s.ok()) return s;
    r.uri = UriOf(*o.s3);
    return r;
  }
  fs::create_directories(o.directory, ec);
  const fs::path target = fs::path(o.directory) / o.name;
  // Copy then rename inside the destination, so a reader never sees half a file.
  const fs::path tmp = fs::path(o.directory) / (o.name + ".part");
  if (!fs::copy_file(part, tmp, fs::copy_options::overwrite_existing, ec) ||
      (fs::rename(tmp, target, ec), ec)) {
    fs::remove(part, ec);
    return absl::InternalError(absl::StrCat("storing ", target.string(), ": ", ec.message()));
  }
  fs::remove(part, ec);
  r.uri = absl::StrCat("file://", target.string());
  return r;
}

}  // namespace quorum::backup
