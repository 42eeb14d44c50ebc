#include "src/backup/delete_files.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace quorum::backup {
namespace {

bool IsSafeRelative(absl::string_view p) {
  if (p.empty() || p.front() == '/') return false;
  for (absl::string_view part : absl::StrSplit(p, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

}  // namespace

absl::Status DeleteSnapshotFiles(const std::string& dir, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (!IsSafeRelative(p)) {
      return absl::InvalidArgumentError(absl::StrCat("refusing path \"", p, "\""));
    }
  }
  for (const std::string& p : paths) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(dir) / p, ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot remove ", p, ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace quorum::backup
