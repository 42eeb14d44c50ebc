#include "api/postgrescluster.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace quorum::api {
namespace {

struct MajorImage {
  int major;
  std::string_view image;
};

// The one table of default images: a major is supported when it is here.
constexpr std::array<MajorImage, 6> kImages = {{
    {13, "ghcr.io/quorum-dev/postgres:13-patroni4"},
    {14, "ghcr.io/quorum-dev/postgres:14-patroni4"},
    {15, "ghcr.io/quorum-dev/postgres:15-patroni4"},
    {16, "ghcr.io/quorum-dev/postgres:16-patroni4"},
    {17, "ghcr.io/quorum-dev/postgres:17-patroni4"},
    {18, "ghcr.io/quorum-dev/postgres:18-patroni4"},
}};

constexpr std::array<int, kImages.size()> Majors() {
  std::array<int, kImages.size()> out{};
  for (size_t i = 0; i < kImages.size(); ++i) out[i] = kImages[i].major;
  return out;
}

constexpr std::array<int, kImages.size()> kMajors = Majors();

// The table covers exactly kMinPostgresMajor..kMaxPostgresMajor, ascending.
constexpr bool TableIsContiguous() {
  for (size_t i = 0; i < kImages.size(); ++i) {
    if (kImages[i].major != kMinPostgresMajor + static_cast<int>(i)) return false;
  }
  return kImages.back().major == kMaxPostgresMajor;
}
static_assert(TableIsContiguous());

// Opposites come in pairs (CREATEDB/NOCREATEDB, ...): validation refuses a
// list that holds both of one pair. Sorted.
constexpr std::array<std::string_view, 8> kRoleOptions = {
    "CREATEDB",   "CREATEROLE",   "INHERIT",   "LOGIN",
    "NOCREATEDB", "NOCREATEROLE", "NOINHERIT", "NOLOGIN",
};

}  // namespace

std::span<const int> SupportedPostgresMajors() { return kMajors; }

namespace {
// The default images' upgrade binaries (hack/images.sh builds postgres-17
// with PG_UPGRADE_FROM=15).
struct UpgradeSource {
  int to;
  int from;
};
constexpr std::array<UpgradeSource, 1> kUpgradeSources = {{{17, 15}}};
}  // namespace

bool DefaultImageUpgradesFrom(int to, int from) {
  for (const UpgradeSource& s : kUpgradeSources) {
    if (s.to == to && s.from == from) return true;
  }
  return false;
}

std::string DefaultUpgradeSources(int to) {
  std::string from;
  for (const UpgradeSource& s : kUpgradeSources) {
    if (s.to == to) absl::StrAppend(&from, from.empty() ? "" : ", ", s.from);
  }
  return from.empty() ? "it carries no older major's binaries"
                      : "it carries the binaries of " + from;
}

std::optional<std::string> DefaultPostgresImage(int major) {
  for (const MajorImage& m : kImages) {
    if (m.major == major) return std::string(m.image);
  }
  return std::nullopt;
}

std::span<const std::string_view> AllowedRoleOptions() { return kRoleOptions; }

bool IsPostgresIdentifier(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  const char first = s.front();
  if (!((first >= 'a' && first <= 'z') || first == '_')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace quorum::api
