#include "src/controllers/postgresbackup/info.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace quorum::postgresbackup {
namespace {

using Json = nlohmann::json;

const Json& Field(const Json& o, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* at = &o;
  for (const char* key : path) {
    if (!at->is_object()) return kNull;
    auto it = at->find(key);
    if (it == at->end()) return kNull;
    at = &*it;
  }
  return *at;
}

std::string Text(const Json& v) { return v.is_string() ? v.get<std::string>() : ""; }
int64_t Number(const Json& v) { return v.is_number_integer() ? v.get<int64_t>() : 0; }

std::string Rfc3339(const Json& unix_seconds) {
  if (!unix_seconds.is_number_integer()) return "";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(unix_seconds.get<int64_t>()),
                          absl::UTCTimeZone());
}

}  // namespace

absl::StatusOr<api::PgBackRestBackupInfo> ParseBackupInfo(std::string_view json_text) {
  const Json message = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  // {"info": [...], "repository": {...}}, or the info alone (older Jobs).
  const Json& doc = message.is_object() ? Field(message, {"info"}) : message;
  if (message.is_discarded() || !doc.is_array()) {
    return absl::InvalidArgumentError("not the JSON of pgbackrest info");
  }
  const Json* newest = nullptr;
  for (const Json& stanza : doc) {
    const Json& backups = Field(stanza, {"backup"});
    if (!backups.is_array()) continue;
    for (const Json& b : backups) {
      if (!b.is_object()) continue;
      if (newest == nullptr || Number(Field(b, {"timestamp", "stop"})) >=
                                   Number(Field(*newest, {"timestamp", "stop"}))) {
        newest = &b;
      }
    }
  }
  if (newest == nullptr) return absl::InvalidArgumentError("pgbackrest info lists no backup");
  const Json& b = *newest;
  api::PgBackRestBackupInfo out;
  out.label = Text(Field(b, {"label"}));
  if (out.label.empty()) return absl::InvalidArgumentError("the backup has no label");
  out.type = Text(Field(b, {"type"}));
  if (const Json& key = Field(b, {"database", "repo-key"}); key.is_number_integer()) {
    out.repo = absl::StrCat("repo", key.get<int64_t>());
  }
  out.start_time = Rfc3339(Field(b, {"timestamp", "start"}));
  out.stop_time = Rfc3339(Field(b, {"timestamp", "stop"}));
  out.lsn_start = Text(Field(b, {"lsn", "start"}));
  out.lsn_stop = Text(Field(b, {"lsn", "stop"}));
  out.wal_start = Text(Field(b, {"archive", "start"}));
  out.wal_stop = Text(Field(b, {"archive", "stop"}));
  out.size = Number(Field(b, {"info", "size"}));
  out.repo_size = Number(Field(b, {"info", "repository", "delta"}));
  out.prior = Text(Field(b, {"prior"}));
  const Json& repo = Field(message, {"repository"});
  out.repo_wal_min = Text(Field(repo, {"walMin"}));
  out.repo_wal_max = Text(Field(repo, {"walMax"}));
  if (Number(Field(repo, {"oldestStop"})) > 0) {
    out.repo_oldest_stop_time = Rfc3339(Field(repo, {"oldestStop"}));
  }
  return out;
}

}  // namespace quorum::postgresbackup
