#include "src/controllers/postgrescluster/restore_check.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::postgrescluster {
namespace {

// The 24-hex-digit segment a WAL file name starts with ("" when none: a
// .history file). A .backup or .partial file names its segment first.
std::string SegmentOf(const std::string& name) {
  if (name.size() < 24) return "";
  for (size_t i = 0; i < 24; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return "";
  }
  if (name.size() > 24 && name[24] != '.') return "";
  std::string out = name.substr(0, 24);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string Seconds(absl::Duration d) { return absl::StrCat(absl::ToInt64Seconds(d), "s"); }

// With restore.set: Failed when the repository does not list it, or when
// pgBackRest could not say within kArchiveWait; nullopt to go on.
std::optional<ArchiveDecision> DecideSet(const api::PgBackRestInPlaceRestore& restore,
                                         const ArchiverView& view, absl::Time started,
                                         absl::Time now) {
  if (restore.set.empty() || !view.backup_labels.has_value()) return std::nullopt;
  const absl::StatusOr<std::vector<std::string>>& labels = *view.backup_labels;
  if (!labels.ok()) {
    if (now - started < kArchiveWait) {
      return ArchiveDecision{
          api::kRestoreChecking,
          absl::StrCat("asking pgBackRest whether ", restore.repo_name, " holds backup set ",
                       restore.set, " (", labels.status().message(), ")")};
    }
    return ArchiveDecision{
        api::kRestoreFailed,
        absl::StrCat("pgBackRest could not say within ", Seconds(kArchiveWait), " whether ",
                     restore.repo_name, " holds backup set ", restore.set, " (",
                     labels.status().message(),
                     "); nothing was stopped. Give the annotation a new value to try again")};
  }
  if (std::find(labels->begin(), labels->end(), restore.set) != labels->end()) return std::nullopt;
  return ArchiveDecision{
      api::kRestoreFailed,
      absl::StrCat("backup set ", restore.set, " (spec.backups.pgbackrest.restore.set) is not in ",
                   restore.repo_name, ", which holds ",
                   labels->empty() ? std::string("no backup") : absl::StrJoin(*labels, ", "),
                   "; nothing was stopped. Name one of those (a PostgresBackup's "
                   "status.backup.label) or remove set to let pgBackRest choose, and give the "
                   "annotation a new value")};
}

}  // namespace

std::string BackupInfoCommand(const std::string& options, int repo) {
  return absl::StrCat("pgbackrest ", options, " --repo=", repo, " --output=json info");
}

absl::StatusOr<std::vector<std::string>> BackupLabels(const std::string& info_json) {
  const nlohmann::json info = nlohmann::json::parse(info_json, nullptr, /*allow_exceptions=*/false);
  if (!info.is_array()) {
    return absl::InvalidArgumentError("pgbackrest info printed no JSON array of stanzas");
  }
  std::vector<std::string> labels;
  for (const nlohmann::json& stanza : info) {
    const nlohmann::json* backups =
        stanza.is_object() && stanza.contains("backup") ? &stanza["backup"] : nullptr;
    if (backups == nullptr || !backups->is_array()) continue;
    for (const nlohmann::json& b : *backups) {
      if (b.is_object() && b.contains("label") && b["label"].is_string()) {
        labels.push_back(b["label"].get<std::string>());
      }
    }
  }
  return labels;
}

bool ArchivedThrough(const std::string& archived, const std::string& segment) {
  const std::string a = SegmentOf(archived), s = SegmentOf(segment);
  return !a.empty() && !s.empty() && a >= s;
}

ArchiveDecision DecideArchiveCheck(const api::PgBackRestInPlaceRestore& restore,
                                   const absl::StatusOr<ArchiverView>& view, absl::Time started,
                                   absl::Time now) {
  const std::string stopping =
      absl::StrCat("stopping the members to restore from ", restore.repo_name);
  if (!view.ok()) {
    if (now - started < kNoPrimaryWait) {
      return {api::kRestoreChecking, absl::StrCat("asking the primary whether ", restore.repo_name,
                                                  " holds its newest WAL before anything stops (",
                                                  view.status().message(), ")")};
    }
    return {
        api::kRestoreStopping,
        absl::StrCat(stopping, "; no primary answered within ", Seconds(kNoPrimaryWait), " (",
                     view.status().message(), "), so the restore uses what the repository holds")};
  }
  if (std::optional<ArchiveDecision> set = DecideSet(restore, *view, started, now)) return *set;
  if (ArchivedThrough(view->last_archived, view->switched)) {
    return {api::kRestoreStopping,
            absl::StrCat(stopping, " (the primary's WAL up to ", view->switched, " is archived)")};
  }
  const bool failing =
      view->last_failed_at.has_value() &&
      (!view->last_archived_at.has_value() || *view->last_failed_at > *view->last_archived_at);
  absl::Time target;
  std::string bad;
  const bool before_last_archive =
      !restore.target.time.empty() && view->last_archived_at.has_value() &&
      absl::ParseTime(absl::RFC3339_full, restore.target.time, &target, &bad) &&
      target < *view->last_archived_at;
  if (failing && before_last_archive) {
    return {api::kRestoreStopping,
            absl::StrCat(stopping, "; WAL archiving fails since ", Rfc3339(*view->last_failed_at),
                         ", but the target time comes before the last archived segment (",
                         view->last_archived, " at ", Rfc3339(*view->last_archived_at), ")")};
  }
  const std::string last = view->last_archived.empty()
                               ? std::string("none archived yet")
                               : absl::StrCat("last archived ", view->last_archived,
                                              view->last_archived_at.has_value()
                                                  ? " at " + Rfc3339(*view->last_archived_at)
                                                  : std::string());
  const std::string escape =
      "; nothing was stopped. Fix archiving (the primary's log says why) and give the "
      "annotation a new value, or set restore.target.time before the last archived segment";
  if (failing) {
    return {api::kRestoreFailed,
            absl::StrCat("WAL archiving into the repositories fails (segment ", view->last_failed,
                         " at ", Rfc3339(*view->last_failed_at), "; ", last,
                         "): the newest WAL would be lost with the members' volumes", escape)};
  }
  if (now - started < kArchiveWait) {
    return {api::kRestoreChecking,
            absl::StrCat("waiting for the primary's WAL up to ", view->switched, " to reach ",
                         restore.repo_name, " before anything stops (", last, ")")};
  }
  return {api::kRestoreFailed,
          absl::StrCat("the primary's WAL up to ", view->switched, " did not reach the archive in ",
                       Seconds(kArchiveWait), " (", last,
                       "): it would be lost with the members' volumes", escape)};
}

}  // namespace quorum::postgrescluster
