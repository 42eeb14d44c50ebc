#include "src/patroni/pgbackrest.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace quorum::patroni {
namespace {

using Section = std::map<std::string, std::string>;

void Append(std::string& out, const std::string& name, const Section& section) {
  absl::StrAppend(&out, "[", name, "]\n");
  for (const auto& [key, value] : section) absl::StrAppend(&out, key, "=", value, "\n");
}

Section StanzaSection(const PgBackRestInput& in) {
  return {{"pg1-path", in.pg_path},
          {"pg1-port", absl::StrCat(in.pg_port)},
          {"pg1-socket-path", in.socket_dir},
          {"pg1-user", in.pg_user}};
}

Section TlsServerSection(const PgBackRestInput& in) {
  const PgBackRestTlsServer& t = *in.tls_server;
  return {{"lock-path", in.lock_dir},          {"log-level-file", "off"},
          {"tls-server-address", "*"},         {"tls-server-auth", t.client_cn + "=" + in.stanza},
          {"tls-server-ca-file", t.ca_file},   {"tls-server-cert-file", t.cert_file},
          {"tls-server-key-file", t.key_file}, {"tls-server-port", absl::StrCat(t.port)}};
}

}  // namespace

std::string RenderPgBackRestConfig(const PgBackRestInput& in) {
  Section global = {{"log-level-file", "off"}, {"lock-path", in.lock_dir}};
  for (const PgBackRestRepoInput& r : in.repos) {
    const std::string repo = absl::StrCat("repo", r.index, "-");
    if (r.posix || r.host.has_value()) {
      global[repo + "path"] = r.path;
      if (r.posix) global[repo + "type"] = "posix";
      if (const std::optional<PgBackRestRepoHost>& h = r.host) {
        global[repo + "host"] = h->address;
        global[repo + "host-type"] = "tls";
        global[repo + "host-port"] = absl::StrCat(h->port);
        global[repo + "host-ca-file"] = h->ca_file;
        global[repo + "host-cert-file"] = h->cert_file;
        global[repo + "host-key-file"] = h->key_file;
      }
      continue;
    }
    std::string host = r.endpoint;
    if (const size_t colon = host.rfind(':'); colon != std::string::npos) {
      global[repo + "storage-port"] = host.substr(colon + 1);
      host.resize(colon);
    }
    global[repo + "type"] = "s3";
    global[repo + "path"] = r.path;
    global[repo + "s3-bucket"] = r.bucket;
    global[repo + "s3-endpoint"] = host;
    global[repo + "s3-region"] = r.region;
  }
  for (const auto& [key, value] : in.global) global[key] = value;
  std::string out = "# Written by Quorum (spec.backups.pgbackrest); secrets come from conf.d.\n";
  Append(out, "global", global);
  out += "\n";
  Append(out, in.stanza, StanzaSection(in));
  return out;
}

std::string RenderPgBackRestServerConfig(const PgBackRestInput& in) {
  if (!in.tls_server.has_value()) return "";
  std::string out =
      "# Written by Quorum: pgBackRest's TLS server in the member (backup Jobs connect);\n"
      "# no repository: the server's side only reads the data directory.\n";
  Append(out, "global", TlsServerSection(in));
  out += "\n";
  Append(out, in.stanza, StanzaSection(in));
  return out;
}

std::string RenderPgBackRestRepoHostConfig(const PgBackRestInput& in) {
  if (!in.tls_server.has_value()) return "";
  std::string out =
      "# Written by Quorum: pgBackRest's TLS server on the repository host (the members\n"
      "# archive and restore through it); clients send the repositories' options.\n";
  Append(out, "global", TlsServerSection(in));
  return out;
}

std::string CommandOptions(std::string_view config_path, std::string_view include_dir,
                           std::string_view stanza) {
  return "--config=" + std::string(config_path) +
         " --config-include-path=" + std::string(include_dir) + " --stanza=" + std::string(stanza);
}

std::string ArchiveCommand(std::string_view script_path, std::string_view options) {
  return std::string(script_path) + " \"%p\" " + std::string(options);
}

std::string RestoreCommand(std::string_view options) {
  return "pgbackrest " + std::string(options) + " archive-get %f \"%p\"";
}

}  // namespace quorum::patroni
