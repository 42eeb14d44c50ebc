// The pieces both text screens share.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/kubectl/render_text.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl::text {
namespace {

Colour ConditionColour(const ConditionRow& c) {
  // For these types True is the bad news.
  const bool inverted = c.type == "Error" || c.type == "SpaceAlarm" || c.type == "Progressing";
  if (c.status == "Unknown") return Colour::kYellow;
  const bool good = (c.status == "True") != inverted;
  if (c.type == "Progressing") return good ? Colour::kNone : Colour::kYellow;
  return good ? Colour::kGreen : Colour::kRed;
}

}  // namespace

Colour PhaseColour(const std::string& phase) {
  if (phase == "Ready" || phase == "Complete") return Colour::kGreen;
  if (phase == "NotReady" || phase == "Failed") return Colour::kRed;
  return Colour::kYellow;
}

std::string BackupLine(const BackupRow& row, const TextOptions& options) {
  std::string out =
      absl::StrCat(row.name, " ", Paint(row.phase, PhaseColour(row.phase), options.colour));
  if (!row.type.empty()) absl::StrAppend(&out, " ", row.type);
  if (!row.time.empty()) {
    absl::StrAppend(&out, " ", row.time);
    const std::string age = Age(row.time, options.now);
    if (!age.empty()) absl::StrAppend(&out, " (", age, " ago)");
  }
  if (row.size > 0) absl::StrAppend(&out, ", ", HumanBytes(row.size));
  if (!row.detail.empty()) absl::StrAppend(&out, ", ", row.detail);
  return out;
}

std::vector<std::pair<std::string, std::string>> BackupFields(const BackupsView& b,
                                                              const TextOptions& options) {
  if (!b.unreadable.empty()) {
    return {{"backup", Paint(absl::StrCat("not readable (", b.unreadable, ")"), Colour::kYellow,
                             options.colour)}};
  }
  if (!b.last) return {{"backup", "none"}};
  std::vector<std::pair<std::string, std::string>> out = {{"backup", BackupLine(*b.last, options)}};
  if (b.last->phase != api::kBackupComplete) {
    out.push_back(
        {"last complete", b.last_complete ? BackupLine(*b.last_complete, options) : "none"});
  }
  return out;
}

std::string ConditionsTable(const std::vector<ConditionRow>& rows, const TextOptions& options) {
  if (rows.empty()) return "";
  std::vector<std::vector<Cell>> table = {{{"CONDITION", Colour::kBold},
                                           {"STATUS", Colour::kBold},
                                           {"REASON", Colour::kBold},
                                           {"AGE", Colour::kBold},
                                           {"MESSAGE", Colour::kBold}}};
  for (const ConditionRow& c : rows) {
    table.push_back({{c.type},
                     {c.status, ConditionColour(c)},
                     {c.reason},
                     {Age(c.last_transition_time, options.now)},
                     {c.message}});
  }
  return "\n" + FormatTable(table, options.colour);
}

std::string Fields(const std::vector<std::pair<std::string, std::string>>& fields) {
  size_t width = 0;
  for (const auto& [label, value] : fields) width = std::max(width, label.size());
  std::string out;
  for (const auto& [label, value] : fields) {
    out += absl::StrCat("  ", label, std::string(width - label.size() + 2, ' '), value, "\n");
  }
  return out;
}

}  // namespace quorum::kubectl::text
