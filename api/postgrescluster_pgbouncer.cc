#include "api/postgrescluster_pgbouncer.h"

#include <array>

#include "api/postgrescluster.h"
#include "api/postgrescluster_types.h"

namespace quorum::api {
namespace {

constexpr std::array<std::string_view, 19> kOwned = {
    "listen_addr",   "listen_port",     "unix_socket_dir", "unix_socket_mode", "unix_socket_group",
    "user",          "pidfile",         "logfile",         "auth_type",        "auth_file",
    "auth_hba_file", "auth_ident_file", "auth_query",      "auth_user",        "auth_dbname",
    "admin_users",   "stats_users",     "pool_mode",       "conffile"};
constexpr std::array<std::string_view, 2> kOwnedPrefixes = {"client_tls_", "server_tls_"};

}  // namespace

bool IsPgBouncerOwnedSetting(std::string_view key) {
  for (std::string_view owned : kOwned) {
    if (key == owned) return true;
  }
  for (std::string_view prefix : kOwnedPrefixes) {
    if (key.starts_with(prefix)) return true;
  }
  return false;
}

std::string PgBouncerOwnedSettingsText() {
  std::string out;
  for (std::string_view owned : kOwned) {
    out += std::string(owned) + ", ";
  }
  return out + "client_tls_* and server_tls_*";
}

std::string PgBouncerImage(const PgBouncerSpec& spec) {
  return spec.image.empty() ? std::string(kDefaultPgBouncerImage) : spec.image;
}

}  // namespace quorum::api
