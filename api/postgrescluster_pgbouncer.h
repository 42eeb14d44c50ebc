// spec.proxy.pgBouncer's rules that both admission and the builders need: the
// pgbouncer.ini [pgbouncer] settings Quorum owns (spec.proxy.pgBouncer.config
// may not set them) and the image a pooler runs. docs/pooler.md is the
// contract.
//
// Thread-safety: constants and pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_PGBOUNCER_H_
#define QUORUM_API_POSTGRESCLUSTER_PGBOUNCER_H_

#include <string>
#include <string_view>

namespace quorum::api {

struct PgBouncerSpec;  // api/postgrescluster_types.h

// Whether Quorum writes setting `key` itself: where PgBouncer listens, how it
// authenticates clients and itself (auth_*, admin and stats users), every
// TLS setting (client_tls_*, server_tls_*), its files (logfile, pidfile,
// unix_socket_*), the OS user, and pool_mode (a field of its own).
bool IsPgBouncerOwnedSetting(std::string_view key);

// The settings above in words, for error messages.
std::string PgBouncerOwnedSettingsText();

// spec.proxy.pgBouncer.image, or kDefaultPgBouncerImage when empty.
std::string PgBouncerImage(const PgBouncerSpec& spec);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_PGBOUNCER_H_
