// What both views share: conditions, phase, health and the backup summary.
#include "src/kubectl/status_view.h"

#include "absl/time/time.h"

namespace quorum::kubectl {
namespace {

absl::Time TimeOf(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) return absl::InfinitePast();
  return t;
}

bool Newer(const BackupRow& a, const BackupRow& b) {
  const absl::Time ta = TimeOf(a.time), tb = TimeOf(b.time);
  if (ta != tb) return ta > tb;
  return a.name > b.name;  // a stable choice between two of the same second
}

const api::Condition* Find(const std::vector<api::Condition>& conditions, const char* type) {
  for (const api::Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

std::vector<ConditionRow> ConditionRows(const std::vector<api::Condition>& conditions) {
  std::vector<ConditionRow> rows;
  for (const api::Condition& c : conditions) {
    rows.push_back({c.type, c.status, c.reason, c.message, c.last_transition_time});
  }
  return rows;
}

std::string PhaseOf(const std::vector<api::Condition>& conditions, bool deleting) {
  if (deleting) return "Deleting";
  const api::Condition* ready = Find(conditions, "Ready");
  if (ready == nullptr) return "Pending";
  return ready->status == "True" ? "Ready" : "NotReady";
}

Health HealthOf(const std::vector<api::Condition>& conditions, bool deleting) {
  return PhaseOf(conditions, deleting) == "Ready" ? Health::kHealthy : Health::kDegraded;
}

BackupsView SummarizeBackups(const std::vector<BackupRow>& rows) {
  BackupsView out;
  out.count = static_cast<int32_t>(rows.size());
  for (const BackupRow& row : rows) {
    if (!out.last || Newer(row, *out.last)) out.last = row;
    if (row.phase == api::kBackupComplete && (!out.last_complete || Newer(row, *out.last_complete)))
      out.last_complete = row;
  }
  return out;
}

BackupsView SummarizeBackups(const std::vector<BackupRow>& rows, const std::string& unreadable) {
  if (!unreadable.empty()) return {.unreadable = unreadable};
  return SummarizeBackups(rows);
}

}  // namespace quorum::kubectl
