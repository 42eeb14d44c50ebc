#include "src/controllers/etcdcluster/version_path.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"

namespace quorum::etcdcluster {
namespace {

// The 3.5 patch etcd's guide asks for before 3.6.
constexpr EtcdVersion kMinimum35For36{3, 5, 26};

std::string Text(EtcdVersion v) { return absl::StrCat(v.major, ".", v.minor, ".", v.patch); }

// The etcd container's object in a pod spec's containers, or null.
const Json* EtcdContainerIn(const Json* pod_spec) {
  const Json* containers = json_access::Child(pod_spec, "containers");
  if (containers == nullptr || !containers->is_array()) return nullptr;
  for (const Json& c : *containers) {
    if (c.is_object() && c.value("name", "") == kContainerName) return &c;
  }
  return nullptr;
}

// Why a cluster that ran `lowest_run` (3.5) may not go to `target` (3.7+)
// yet; "" once `log` shows every member has snapshotted since all ran 3.6+.
std::string LogNotClean(const std::string& from, EtcdVersion target, EtcdVersion lowest_run,
                        const LogEvidence& log) {
  const std::string head = "etcd " + from + " to " + Text(target) + ": this cluster ran etcd " +
                           Text(lowest_run) + ", and etcd " +
                           absl::StrCat(target.major, ".", target.minor) +
                           " cannot replay Raft log entries that version wrote. ";
  const std::string restore =
      "Or restore a snapshot into a new EtcdCluster on 3.6 (spec.bootstrap.restore), which "
      "starts a clean log";
  std::optional<EtcdVersion> since_minor =
      log.since ? ParseEtcdVersion(log.since->minor + ".0") : std::nullopt;
  if (!since_minor || *since_minor < EtcdVersion{3, 6, 0}) {
    return head +
           "Each member drops them at its first Raft snapshot after every member runs 3.6; "
           "not every member has answered 3.6 yet. " +
           restore;
  }
  const uint64_t clean_at =
      static_cast<uint64_t>(log.since->raft_index) + static_cast<uint64_t>(log.snapshot_count);
  if (log.lowest_applied && *log.lowest_applied > clean_at) return "";
  return head + absl::StrCat(
                    "Each member drops them at its first Raft snapshot after index ",
                    log.since->raft_index, " (when every member ran ", log.since->minor,
                    "); etcd takes one every --snapshot-count=", log.snapshot_count,
                    " applied entries, so every member has by index ", clean_at + 1, "; ",
                    log.lowest_applied
                        ? absl::StrCat("the slowest member has applied ", *log.lowest_applied, " (",
                                       clean_at + 1 - *log.lowest_applied, " writes to go). ")
                        : std::string("not every member answered. "),
                    restore);
}

}  // namespace

std::optional<EtcdVersion> ParseEtcdVersion(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  text = text.substr(0, text.find_first_of("-+"));
  const std::vector<absl::string_view> parts = absl::StrSplit(Absl(text), '.');
  if (parts.size() != 3) return std::nullopt;
  EtcdVersion v;
  if (!absl::SimpleAtoi(parts[0], &v.major) || !absl::SimpleAtoi(parts[1], &v.minor) ||
      !absl::SimpleAtoi(parts[2], &v.patch) || v.major < 0 || v.minor < 0 || v.patch < 0) {
    return std::nullopt;
  }
  return v;
}

std::optional<EtcdVersion> ImageVersion(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return std::nullopt;
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) {
    return std::nullopt;
  }
  return ParseEtcdVersion(image.substr(colon + 1));
}

std::string UnsupportedVersionPath(const std::vector<EtcdVersion>& running, EtcdVersion target,
                                   std::optional<EtcdVersion> lowest_run, const LogEvidence& log) {
  if (running.empty()) return "";
  const EtcdVersion low = *std::min_element(running.begin(), running.end());
  const EtcdVersion high = *std::max_element(running.begin(), running.end());
  const std::string from = low == high ? Text(low) : Text(low) + " to " + Text(high);
  if (target.major != low.major || target.major != high.major) {
    return "etcd " + from + " cannot become " + Text(target) + ": the major version changes";
  }
  if (target.minor > low.minor + 1) {
    return "etcd " + from + " to " + Text(target) +
           " skips a minor version: etcd upgrades one minor at a time (e.g. 3.5 to 3.6 to 3.7)";
  }
  if (target.minor < high.minor) {
    return "etcd " + from + " to " + Text(target) +
           " is a minor downgrade: it needs etcd's downgrade procedure (etcdctl downgrade), "
           "which Quorum does not run";
  }
  if (target.minor == low.minor + 1 && low.major == 3 && low.minor == 5 && low < kMinimum35For36) {
    return "etcd " + from + " to " + Text(target) + ": etcd upgrades to 3.6 only from " +
           Text(kMinimum35For36) + " or later; move every member to the newest 3.5 patch first";
  }
  if (lowest_run && lowest_run->major == 3 && lowest_run->minor <= 5 && target.major == 3 &&
      target.minor >= 7 && target.minor > high.minor) {
    return LogNotClean(from, target, *lowest_run, log);
  }
  return "";
}

std::optional<api::EtcdClusterStatus::MinorSince> MinorSince(
    const std::optional<api::EtcdClusterStatus::MinorSince>& recorded, const EtcdView& view) {
  if (!view.members_known || view.members.empty()) return recorded;
  std::optional<EtcdVersion> low;
  uint64_t highest_index = 0;
  for (const MemberStatus& m : view.members) {
    std::optional<EtcdVersion> v = m.status ? ParseEtcdVersion(m.status->version) : std::nullopt;
    if (!v) return recorded;  // not every member answered
    if (!low || *v < *low) low = v;
    highest_index = std::max(highest_index, m.status->raft_index);
  }
  const std::string minor = absl::StrCat(low->major, ".", low->minor);
  if (recorded && recorded->minor == minor) return recorded;
  return api::EtcdClusterStatus::MinorSince{.minor = minor,
                                            .raft_index = static_cast<int64_t>(highest_index)};
}

LogEvidence LogEvidenceOf(const EtcdCluster& cluster, const EtcdView& view) {
  LogEvidence e{.since = MinorSince(cluster.status.minor_since, view)};
  const bool all_answered =
      view.members_known && std::all_of(view.members.begin(), view.members.end(),
                                        [](const MemberStatus& m) { return m.status.has_value(); });
  for (const MemberStatus& m : view.members) {
    if (!all_answered) break;
    const uint64_t applied = m.status->raft_applied_index;
    e.lowest_applied = std::min(e.lowest_applied.value_or(applied), applied);
  }
  auto option = cluster.spec.options.find("snapshot-count");
  int64_t count = 0;
  if (option != cluster.spec.options.end() && absl::SimpleAtoi(option->second, &count) &&
      count > 0) {
    e.snapshot_count = count;
  }
  return e;
}

std::string LowestVersion(const std::string& recorded, const EtcdView& view) {
  std::optional<EtcdVersion> low = ParseEtcdVersion(recorded);
  for (const MemberStatus& m : view.members) {
    if (!m.status) continue;
    std::optional<EtcdVersion> v = ParseEtcdVersion(m.status->version);
    if (v && (!low || *v < *low)) low = v;
  }
  return low ? Text(*low) : "";
}

std::string DesiredEtcdImage(const EtcdCluster& cluster) {
  const Json* c = EtcdContainerIn(&cluster.spec.pod_template.spec);
  const Json* image = json_access::Child(c, "image");
  return image != nullptr && image->is_string() && !image->get<std::string>().empty()
             ? image->get<std::string>()
             : std::string(kDefaultImage);
}

std::string LiveEtcdImage(const Json* sts) {
  const Json* c = EtcdContainerIn(json_access::Path(sts, {"spec", "template", "spec"}));
  const Json* image = json_access::Child(c, "image");
  return image != nullptr && image->is_string() ? image->get<std::string>() : "";
}

VersionGate JudgeVersionPath(const EtcdCluster& cluster, const EtcdView& view, const Json* sts) {
  const std::string desired = DesiredEtcdImage(cluster);
  const std::string live = LiveEtcdImage(sts);
  if (live.empty() || live == desired) return {};
  const std::optional<EtcdVersion> target = ImageVersion(desired);
  if (!target) return {};
  std::vector<EtcdVersion> running;
  for (const MemberStatus& m : view.members) {
    if (!m.status) continue;
    if (std::optional<EtcdVersion> v = ParseEtcdVersion(m.status->version)) running.push_back(*v);
  }
  std::string rule = UnsupportedVersionPath(
      running, *target, ParseEtcdVersion(LowestVersion(cluster.status.lowest_version, view)),
      LogEvidenceOf(cluster, view));
  if (rule.empty()) return {};
  return {.rule = "image " + desired + ": " + rule, .held = live};
}

EtcdCluster WithEtcdImage(EtcdCluster cluster, const std::string& image) {
  Json& spec = cluster.spec.pod_template.spec;
  if (!spec.is_object()) spec = Json::object();
  Json& containers = spec["containers"];  // created when missing: the image goes in it
  if (!containers.is_array()) containers = Json::array();
  for (Json& c : containers) {
    if (c.is_object() && c.value("name", "") == kContainerName) {
      c["image"] = image;
      return cluster;
    }
  }
  containers.push_back({{"name", kContainerName}, {"image", image}});
  return cluster;
}

}  // namespace quorum::etcdcluster
