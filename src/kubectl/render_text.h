// The human screen of `kubectl quorum status`: a summary, the members, the
// backups and the conditions of one cluster, from its status view. Colour
// only when asked (the caller decides: a TTY, no --no-color, no NO_COLOR).
// Ages are computed against `now`, which the caller passes (tests pin it).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_RENDER_TEXT_H_
#define QUORUM_SRC_KUBECTL_RENDER_TEXT_H_

#include <string>

#include "absl/time/time.h"
#include "src/kubectl/status_view.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl {

struct TextOptions {
  bool colour = false;
  absl::Time now;
};

std::string RenderText(const EtcdStatusView& view, const TextOptions& options);
std::string RenderText(const PostgresStatusView& view, const TextOptions& options);

// Pieces both screens use (render_text_common.cc).
namespace text {
Colour PhaseColour(const std::string& phase);
// "name Complete 2026-12-06T15:00:00Z (1h ago), 12.0 MiB, <detail>".
std::string BackupLine(const BackupRow& row, const TextOptions& options);
// Summary fields: "backup" (the newest backup object, or "none") and, when
// that one is not Complete, "last complete" (the newest Complete one or "none").
std::vector<std::pair<std::string, std::string>> BackupFields(const BackupsView& backups,
                                                              const TextOptions& options);
// The CONDITIONS table, with a blank line before it; "" without conditions.
std::string ConditionsTable(const std::vector<ConditionRow>& rows, const TextOptions& options);
// "  label     value" lines, the labels padded to one width.
std::string Fields(const std::vector<std::pair<std::string, std::string>>& fields);
}  // namespace text

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_RENDER_TEXT_H_
