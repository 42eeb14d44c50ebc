#include "src/kube/config.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace quorum::kube {
namespace {

namespace fs = std::filesystem;

// Abseil here is built with its own string_view type, distinct from std's.
absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Reads a whole file. Errors carry only the reason ("no such file"); callers
// add which file it was. NotFound when missing, PermissionDenied when
// unreadable, FailedPrecondition otherwise (a folder, an I/O error).
absl::StatusOr<std::string> ReadWholeFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError("no such file");
    if (err == EACCES) return absl::PermissionDeniedError("permission denied");
    return absl::FailedPreconditionError(std::strerror(err));
  }
  std::string data;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return absl::FailedPreconditionError(err == EISDIR ? "is a directory" : std::strerror(err));
    }
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

fs::path Resolve(const fs::path& base_dir, const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute() || base_dir.empty()) return p;
  return (base_dir / p).lexically_normal();
}

std::string Quote(std::string_view s) { return absl::StrCat("\"", Av(s), "\""); }

// One kubeconfig document being turned into a RestConfig. Every message starts
// with `source_` ("kubeconfig" or `kubeconfig "<path>"`) and names the entry.
class KubeconfigParser {
 public:
  KubeconfigParser(std::string source, fs::path base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  absl::StatusOr<RestConfig> Parse(std::string_view yaml, std::string_view context) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
      return Invalid(absl::StrCat("malformed YAML: ",
                                  absl::StripPrefix(absl::string_view(e.what()), "yaml-cpp: ")));
    }
    if (!root.IsDefined() || root.IsNull()) return Invalid("empty document");
    if (!root.IsMap()) return Invalid("the document must be a map of clusters, users, contexts");

    std::string context_name(context);
    if (context_name.empty()) {
      absl::StatusOr<std::string> current = String(root, "current-context", "");
      if (!current.ok()) return current.status();
      context_name = *std::move(current);
      if (context_name.empty()) {
        return Invalid("no context given and current-context is not set");
      }
    }

    absl::StatusOr<Entry> ctx = FindNamed(root, "contexts", "context", context_name);
    if (!ctx.ok()) return ctx.status();
    if (!ctx->found) return Invalid(absl::StrCat("context ", Quote(context_name), " not found"));
    const std::string ctx_where = absl::StrCat("context ", Quote(context_name));

    absl::StatusOr<std::string> cluster_name = String(ctx->body, "cluster", ctx->where);
    if (!cluster_name.ok()) return cluster_name.status();
    absl::StatusOr<std::string> user_name = String(ctx->body, "user", ctx->where);
    if (!user_name.ok()) return user_name.status();
    absl::StatusOr<std::string> ns = String(ctx->body, "namespace", ctx->where);
    if (!ns.ok()) return ns.status();
    if (cluster_name->empty()) return Invalid(absl::StrCat(ctx_where, ": cluster is not set"));

    RestConfig config;
    config.namespace_name = ns->empty() ? "default" : *ns;

    absl::StatusOr<Entry> cluster = FindNamed(root, "clusters", "cluster", *cluster_name);
    if (!cluster.ok()) return cluster.status();
    if (!cluster->found) {
      return Invalid(absl::StrCat(ctx_where, ": cluster ", Quote(*cluster_name), " not found"));
    }
    if (absl::Status s = ApplyCluster(*cluster, config); !s.ok()) return s;

    // An empty user is allowed: anonymous access, or credentials set later.
    if (!user_name->empty()) {
      absl::StatusOr<Entry> user = FindNamed(root, "users", "user", *user_name);
      if (!user.ok()) return user.status();
      if (!user->found) {
        return Invalid(absl::StrCat(ctx_where, ": user ", Quote(*user_name), " not found"));
      }
      if (absl::Status s = ApplyUser(*user, config); !s.ok()) return s;
    }
    return config;
  }

 private:
  // A `{name: ..., <kind>: {...}}` list entry. `body` is a map or null.
  struct Entry {
    bool found = false;
    YAML::Node body;
    std::string where;  // e.g. `users[0] ("admin")`
  };

  absl::Status Invalid(std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", Av(what)));
  }
  absl::Status Invalid(std::string_view where, std::string_view what) const {
    if (where.empty()) return Invalid(what);
    return Invalid(absl::StrCat(Av(where), ": ", Av(what)));
  }

  // The scalar at map[key]; "" when the map or the key is absent or null.
  absl::StatusOr<std::string> String(const YAML::Node& map, const char* key,
                                     std::string_view where) const {
    if (!map.IsDefined() || !map.IsMap()) return std::string();
    const YAML::Node value = map[key];
    if (!value.IsDefined() || value.IsNull()) return std::string();
    if (!value.IsScalar()) return Invalid(where, absl::StrCat(key, " must be a string"));
    return value.Scalar();
  }

  absl::StatusOr<bool> Bool(const YAML::Node& map, const char* key, std::string_view where) const {
    if (!map.IsDefined() || !map.IsMap()) return false;
    const YAML::Node value = map[key];
    if (!value.IsDefined() || value.IsNull()) return false;
    bool result = false;
    if (!value.IsScalar() || !YAML::convert<bool>::decode(value, result)) {
      return Invalid(where, absl::StrCat(key, " must be true or false"));
    }
    return result;
  }

  // Finds the entry of root[list] whose name is `name`.
  absl::StatusOr<Entry> FindNamed(const YAML::Node& root, const char* list, const char* kind,
                                  std::string_view name) const {
    Entry entry;
    const YAML::Node items = root[list];
    if (!items.IsDefined() || items.IsNull()) return entry;
    if (!items.IsSequence()) return Invalid(absl::StrCat(list, " must be a list"));
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node item = items[i];
      const std::string index = absl::StrCat(list, "[", i, "]");
      if (!item.IsMap()) return Invalid(index, "must be a map with name and " + std::string(kind));
      absl::StatusOr<std::string> item_name = String(item, "name", index);
      if (!item_name.ok()) return item_name.status();
      if (*item_name != name) continue;
      entry.found = true;
      entry.where = absl::StrCat(index, " (", Quote(name), ")");
      entry.body = item[kind];
      if (entry.body.IsDefined() && !entry.body.IsNull() && !entry.body.IsMap()) {
        return Invalid(entry.where, absl::StrCat(kind, " must be a map"));
      }
      return entry;
    }
    return entry;
  }

  // PEM bytes from `<data_key>` (base64, wins when both are set, as in
  // client-go) or from the file named by `<file_key>`; "" when neither is set.
  absl::StatusOr<std::string> DataOrFile(const Entry& entry, const char* data_key,
                                         const char* file_key) const {
    absl::StatusOr<std::string> data = String(entry.body, data_key, entry.where);
    if (!data.ok()) return data.status();
    std::string compact = *std::move(data);
    std::erase_if(compact,
                  [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); });
    if (!compact.empty()) {
      std::string decoded;
      if (!absl::Base64Unescape(compact, &decoded)) {
        return Invalid(entry.where, absl::StrCat(data_key, " is not valid base64"));
      }
      return decoded;
    }
    absl::StatusOr<std::string> file = String(entry.body, file_key, entry.where);
    if (!file.ok()) return file.status();
    if (file->empty()) return std::string();
    return ReadReferenced(entry.where, file_key, *file);
  }

  absl::StatusOr<std::string> ReadReferenced(std::string_view where, std::string_view field,
                                             const std::string& path) const {
    absl::StatusOr<std::string> content = ReadWholeFile(Resolve(base_dir_, path));
    if (!content.ok()) {
      return absl::Status(content.status().code(),
                          absl::StrCat(source_, ": ", Av(where), ": ", Av(field), " ", Quote(path),
                                       ": ", content.status().message()));
    }
    return content;
  }

  absl::Status ApplyCluster(const Entry& cluster, RestConfig& config) const {
    absl::StatusOr<std::string> server = String(cluster.body, "server", cluster.where);
    if (!server.ok()) return server.status();
    std::string_view trimmed = *server;
    while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
    if (trimmed.empty()) return Invalid(cluster.where, "server is not set");
    config.server = std::string(trimmed);

    absl::StatusOr<std::string> sni = String(cluster.body, "tls-server-name", cluster.where);
    if (!sni.ok()) return sni.status();
    config.tls_server_name = *std::move(sni);

    absl::StatusOr<bool> insecure = Bool(cluster.body, "insecure-skip-tls-verify", cluster.where);
    if (!insecure.ok()) return insecure.status();
    config.insecure_skip_tls_verify = *insecure;

    absl::StatusOr<std::string> ca =
        DataOrFile(cluster, "certificate-authority-data", "certificate-authority");
    if (!ca.ok()) return ca.status();
    config.ca_pem = *std::move(ca);
    return absl::OkStatus();
  }

  absl::Status ApplyUser(const Entry& user, RestConfig& config) const {
    absl::StatusOr<std::string> cert =
        DataOrFile(user, "client-certificate-data", "client-certificate");
    if (!cert.ok()) return cert.status();
    config.client_cert_pem = *std::move(cert);
    absl::StatusOr<std::string> key = DataOrFile(user, "client-key-data", "client-key");
    if (!key.ok()) return key.status();
    config.client_key_pem = *std::move(key);
    if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
      return Invalid(user.where, "a client certificate needs a client key and vice versa");
    }

    absl::StatusOr<std::string> token = String(user.body, "token", user.where);
    if (!token.ok()) return token.status();
    config.bearer_token = *std::move(token);

    absl::StatusOr<std::string> token_file = String(user.body, "tokenFile", user.where);
    if (!token_file.ok()) return token_file.status();
    if (!token_file->empty()) {
      // Kept as a path so that rotated tokens are picked up, but checked now
      // so that a typo fails at startup rather than on the first request.
      const fs::path resolved = Resolve(base_dir_, *token_file);
      std::error_code ec;
      if (!fs::exists(resolved, ec)) {
        return absl::NotFoundError(absl::StrCat(source_, ": ", user.where, ": tokenFile ",
                                                Quote(*token_file), ": no such file"));
      }
      config.bearer_token_file = resolved.string();
    }

    if (user.body.IsDefined() && user.body.IsMap()) {
      const YAML::Node exec = user.body["exec"];
      if (exec.IsDefined() && !exec.IsNull()) {
        absl::StatusOr<ExecConfig> parsed = ParseExec(exec, user.where);
        if (!parsed.ok()) return parsed.status();
        config.exec = *std::move(parsed);
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ExecConfig> ParseExec(const YAML::Node& exec, const std::string& user) const {
    const std::string where = absl::StrCat(user, ": exec");
    if (!exec.IsMap()) return Invalid(where, "must be a map");
    ExecConfig out;

    absl::StatusOr<std::string> api_version = String(exec, "apiVersion", where);
    if (!api_version.ok()) return api_version.status();
    if (*api_version != "client.authentication.k8s.io/v1" &&
        *api_version != "client.authentication.k8s.io/v1beta1") {
      return Invalid(where, absl::StrCat("apiVersion ", Quote(*api_version),
                                         " is not supported (want client.authentication.k8s.io/v1 "
                                         "or client.authentication.k8s.io/v1beta1)"));
    }
    out.api_version = *std::move(api_version);

    absl::StatusOr<std::string> command = String(exec, "command", where);
    if (!command.ok()) return command.status();
    if (command->empty()) return Invalid(where, "command is not set");
    // A bare name is looked up in PATH; a relative path with a folder in it
    // belongs next to the kubeconfig, as in client-go.
    out.command =
        command->find('/') == std::string::npos ? *command : Resolve(base_dir_, *command).string();

    const YAML::Node args = exec["args"];
    if (args.IsDefined() && !args.IsNull()) {
      if (!args.IsSequence()) return Invalid(where, "args must be a list of strings");
      for (size_t i = 0; i < args.size(); ++i) {
        if (!args[i].IsScalar()) {
          return Invalid(where, absl::StrCat("args[", i, "] must be a string"));
        }
        out.args.push_back(args[i].Scalar());
      }
    }

    const YAML::Node env = exec["env"];
    if (env.IsDefined() && !env.IsNull()) {
      if (!env.IsSequence()) return Invalid(where, "env must be a list of {name, value}");
      for (size_t i = 0; i < env.size(); ++i) {
        const std::string item_where = absl::StrCat(where, ".env[", i, "]");
        if (!env[i].IsMap()) return Invalid(item_where, "must be a map with name and value");
        absl::StatusOr<std::string> name = String(env[i], "name", item_where);
        if (!name.ok()) return name.status();
        if (name->empty() || name->find('=') != std::string::npos) {
          return Invalid(item_where, "name must be set and contain no '='");
        }
        absl::StatusOr<std::string> value = String(env[i], "value", item_where);
        if (!value.ok()) return value.status();
        out.env.emplace_back(*std::move(name), *std::move(value));
      }
    }

    absl::StatusOr<std::string> hint = String(exec, "installHint", where);
    if (!hint.ok()) return hint.status();
    out.install_hint = *std::move(hint);

    absl::StatusOr<bool> provide = Bool(exec, "provideClusterInfo", where);
    if (!provide.ok()) return provide.status();
    out.provide_cluster_info = *provide;
    return out;
  }

  std::string source_;
  fs::path base_dir_;
};

// yaml-cpp throws on surprises we did not guard against; none may escape.
absl::StatusOr<RestConfig> ParseGuarded(std::string source, const fs::path& base_dir,
                                        std::string_view yaml, std::string_view context) {
  try {
    return KubeconfigParser(source, base_dir).Parse(yaml, context);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", absl::StripPrefix(absl::string_view(e.what()), "yaml-cpp: ")));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat(source, ": unexpected exception"));
  }
}

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

bool FileExists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace

absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml,
                                           const std::filesystem::path& base_dir,
                                           std::string_view context) {
  return ParseGuarded("kubeconfig", base_dir, yaml, context);
}

absl::StatusOr<RestConfig> LoadKubeconfigFile(const std::filesystem::path& path,
                                              std::string_view context) {
  const std::string source = absl::StrCat("kubeconfig ", Quote(path.string()));
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat(source, ": ", text.status().message()));
  }
  // Paths kept in the config (tokenFile, exec command) must not depend on a
  // later change of working directory.
  std::error_code ec;
  fs::path base_dir = fs::absolute(path, ec).parent_path();
  if (ec) base_dir = path.parent_path();
  return ParseGuarded(source, base_dir, *text, context);
}

InClusterEnv InClusterEnvFromProcess() {
  InClusterEnv env;
  env.host = GetEnv("KUBERNETES_SERVICE_HOST");
  env.port = GetEnv("KUBERNETES_SERVICE_PORT");
  return env;
}

absl::StatusOr<RestConfig> InClusterConfig(const InClusterEnv& env) {
  if (env.host.empty() || env.port.empty()) {
    return absl::FailedPreconditionError(
        "in-cluster config: not running in a cluster (KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be set)");
  }
  RestConfig config;
  const bool ipv6 = env.host.find(':') != std::string::npos && env.host.front() != '[';
  config.server = ipv6 ? absl::StrCat("https://[", env.host, "]:", env.port)
                       : absl::StrCat("https://", env.host, ":", env.port);

  const fs::path token = env.secrets_dir / "token";
  if (!FileExists(token)) {
    return absl::NotFoundError(
        absl::StrCat("in-cluster config: token file ", Quote(token.string()), ": no such file"));
  }
  config.bearer_token_file = token.string();

  const fs::path ca = env.secrets_dir / "ca.crt";
  absl::StatusOr<std::string> ca_pem = ReadWholeFile(ca);
  if (!ca_pem.ok()) {
    return absl::Status(ca_pem.status().code(),
                        absl::StrCat("in-cluster config: CA file ", Quote(ca.string()), ": ",
                                     ca_pem.status().message()));
  }
  config.ca_pem = *std::move(ca_pem);

  absl::StatusOr<std::string> ns = ReadWholeFile(env.secrets_dir / "namespace");
  const absl::string_view ns_name = ns.ok() ? absl::StripAsciiWhitespace(*ns) : "";
  config.namespace_name = ns_name.empty() ? "default" : std::string(ns_name);
  return config;
}

absl::StatusOr<RestConfig> LoadDefaultConfig(std::string_view context) {
  const std::string kubeconfig_env = GetEnv("KUBECONFIG");
  for (absl::string_view entry : absl::StrSplit(kubeconfig_env, ':', absl::SkipEmpty())) {
    const fs::path path{std::string(entry)};
    if (FileExists(path)) return LoadKubeconfigFile(path, context);
  }
  const std::string home = GetEnv("HOME");
  if (!home.empty()) {
    const fs::path path = fs::path(home) / ".kube" / "config";
    if (FileExists(path)) return LoadKubeconfigFile(path, context);
  }
  absl::StatusOr<RestConfig> in_cluster = InClusterConfig(InClusterEnvFromProcess());
  if (in_cluster.status().code() == absl::StatusCode::kFailedPrecondition) {
    return absl::FailedPreconditionError(
        absl::StrCat("no kubeconfig found ($KUBECONFIG, $HOME/.kube/config) and ",
                     in_cluster.status().message()));
  }
  return in_cluster;
}

}  // namespace quorum::kube
