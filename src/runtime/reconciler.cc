#include "src/runtime/reconciler.h"

namespace quorum::runtime {
namespace {
constexpr char kTerminalUrl[] = "type.quorum.dev/runtime.Terminal";
}  // namespace

Request Request::FromKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

absl::Status TerminalError(absl::Status status) {
  if (status.ok()) status = absl::UnknownError("terminal error");
  status.SetPayload(kTerminalUrl, absl::Cord("1"));
  return status;
}

bool IsTerminal(const absl::Status& status) { return status.GetPayload(kTerminalUrl).has_value(); }

}  // namespace quorum::runtime
