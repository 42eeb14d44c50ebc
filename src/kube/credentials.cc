#include "src/kube/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

extern char** environ;

namespace quorum::kube {
namespace {

using nlohmann::json;

// Refresh exec credentials this long before they expire, as client-go does,
// so that a request does not leave with a token that expires in flight.
constexpr absl::Duration kExpiryMargin = absl::Seconds(10);
// The plugin timeout when the config's request timeout is unusable (<= 0 or infinite).
constexpr absl::Duration kDefaultExecTimeout = absl::Seconds(30);
constexpr size_t kMaxStdout = 1 << 20;
constexpr size_t kMaxStderr = 64 << 10;
constexpr size_t kMaxStderrInMessage = 4 << 10;
constexpr char kExecInfoEnv[] = "KUBERNETES_EXEC_INFO";

std::string Quote(std::string_view s) {
  return absl::StrCat("\"", absl::string_view(s.data(), s.size()), "\"");
}

// Reads a whole file; the error says why, the caller says which file.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError("no such file");
    if (err == EACCES) return absl::PermissionDeniedError("permission denied");
    return absl::FailedPreconditionError(std::strerror(err));
  }
  std::string data;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return absl::FailedPreconditionError(std::strerror(err));
    }
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

class StaticTokenProvider : public CredentialProvider {
 public:
  explicit StaticTokenProvider(std::string token) : token_(std::move(token)) {}
  absl::StatusOr<Credentials> Get() override {
    Credentials credentials;
    credentials.bearer_token = token_;
    return credentials;
  }

 private:
  const std::string token_;
};

// Re-reads the file at most every `reread` so that a rotated token (kubelet
// rewrites projected service-account tokens) is picked up without a read per
// request.
class TokenFileProvider : public CredentialProvider {
 public:
  TokenFileProvider(std::string path, absl::Duration reread, Clock& clock)
      : path_(std::move(path)), reread_(reread), clock_(clock) {}

  absl::StatusOr<Credentials> Get() override {
    absl::MutexLock lock(&mu_);
    const absl::Time now = clock_.Now();
    if (!read_at_.has_value() || now - *read_at_ >= reread_) {
      absl::StatusOr<std::string> content = ReadWholeFile(path_);
      if (!content.ok()) {
        return absl::Status(content.status().code(), absl::StrCat("token file ", Quote(path_), ": ",
                                                                  content.status().message()));
      }
      const absl::string_view token = absl::StripAsciiWhitespace(*content);
      if (token.empty()) {
        // Possibly caught mid-rotation: worth retrying with back-off.
        return absl::UnavailableError(absl::StrCat("token file ", Quote(path_), " is empty"));
      }
      token_ = std::string(token);
      read_at_ = now;
    }
    Credentials credentials;
    credentials.bearer_token = token_;
    return credentials;
  }

  void Invalidate() override {
    absl::MutexLock lock(&mu_);
    read_at_.reset();
  }

 private:
  const std::string path_;
  const absl::Duration reread_;
  Clock& clock_;
  absl::Mutex mu_;
  std::string token_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> read_at_ ABSL_GUARDED_BY(mu_);
};

// What a finished (or killed) child left behind.
struct ProcessResult {
  bool timed_out = false;
  int exit_code = -1;   // when it exited
  int term_signal = 0;  // when a signal ended it
  std::string out;
  std::string err;
};

void AppendCapped(std::string& to, const char* data, size_t n, size_t cap) {
  if (to.size() < cap) to.append(data, std::min(n, cap - to.size()));
}

// Runs `argv` (argv[0] looked up in PATH unless it has a '/') with `env`,
// stdin from /dev/null, capturing stdout and stderr. The child leads its own
// process group so that a timeout also kills whatever it started. Errors: the
// errno of a failed start, as Unavailable.
// NOLINTNEXTLINE(readability-function-size): fork/exec/poll/wait, every fd closed on each path
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& args,
                                         const std::vector<std::string>& env,
                                         absl::Duration timeout) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return absl::UnavailableError(std::strerror(errno));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return absl::UnavailableError(std::strerror(err));
  }

  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attr, &signals);
  sigaddset(&signals, SIGPIPE);  // servers often ignore SIGPIPE; the plugin should not
  posix_spawnattr_setsigdefault(&attr, &signals);

  pid_t pid = -1;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawn_error != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return absl::UnavailableError(std::strerror(spawn_error));
  }

  // Real time, not the injected Clock: this bounds a real process.
  using SteadyClock = std::chrono::steady_clock;
  const SteadyClock::time_point deadline = SteadyClock::now() + absl::ToChronoNanoseconds(timeout);
  auto remaining_ms = [&deadline]() -> int {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now());
    return static_cast<int>(std::clamp<int64_t>(left.count(), 0, INT_MAX));
  };

  ProcessResult result;
  // Read both pipes as data arrives: a plugin that fills one pipe while we
  // block on the other would otherwise deadlock.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  const size_t caps[2] = {kMaxStdout, kMaxStderr};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const int wait_ms = remaining_ms();
    if (wait_ms == 0) {
      result.timed_out = true;
      break;
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[8192];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        AppendCapped(*sinks[i], buf, static_cast<size_t>(n), caps[i]);
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;  // poll ignores negative descriptors
      }
    }
  }

  int status = 0;
  bool reaped = false;
  while (!result.timed_out && !reaped) {
    // Both pipes are closed, so the child is normally gone or about to be;
    // a short bounded wait covers one that closed its output and lingers.
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = true;
    } else if (w < 0 && errno != EINTR) {
      break;
    } else if (remaining_ms() == 0) {
      result.timed_out = true;
    } else {
      ::poll(nullptr, 0, std::min(remaining_ms(), 5));
    }
  }
  if (!reaped) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

const json* Field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

absl::Status BadCredential(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("exec credential: ", absl::string_view(what.data(), what.size())));
}

// The parser behind ParseExecCredential; also reports the apiVersion so the
// provider can check it against the configured one. Never quotes a secret.
absl::StatusOr<Credentials> ParseExecCredentialImpl(std::string_view text,
                                                    std::string* api_version) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return BadCredential("not valid JSON");
  if (!doc.is_object()) return BadCredential("not a JSON object");

  const json* kind = Field(doc, "kind");
  if (kind == nullptr || !kind->is_string() ||
      kind->get_ref<const std::string&>() != "ExecCredential") {
    return BadCredential("kind must be \"ExecCredential\"");
  }
  const json* version = Field(doc, "apiVersion");
  if (version == nullptr || !version->is_string() ||
      (version->get_ref<const std::string&>() != "client.authentication.k8s.io/v1" &&
       version->get_ref<const std::string&>() != "client.authentication.k8s.io/v1beta1")) {
    return BadCredential(
        "apiVersion must be client.authentication.k8s.io/v1 or "
        "client.authentication.k8s.io/v1beta1");
  }
  if (api_version != nullptr) *api_version = version->get_ref<const std::string&>();

  const json* status = Field(doc, "status");
  if (status == nullptr || !status->is_object()) return BadCredential("status is missing");

  Credentials credentials;
  auto string_field = [status](const char* key, std::string& out) -> absl::Status {
    const json* value = Field(*status, key);
    if (value == nullptr || value->is_null()) return absl::OkStatus();
    if (!value->is_string())
      return BadCredential(absl::StrCat("status.", key, " must be a string"));
    out = value->get_ref<const std::string&>();
    return absl::OkStatus();
  };
  if (absl::Status s = string_field("token", credentials.bearer_token); !s.ok()) return s;
  if (absl::Status s = string_field("clientCertificateData", credentials.client_cert_pem);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = string_field("clientKeyData", credentials.client_key_pem); !s.ok()) return s;
  if (credentials.client_cert_pem.empty() != credentials.client_key_pem.empty()) {
    return BadCredential(
        "status.clientCertificateData and status.clientKeyData must come together");
  }
  if (credentials.bearer_token.empty() && credentials.client_cert_pem.empty()) {
    return BadCredential("status has neither a token nor clientCertificateData and clientKeyData");
  }

  std::string expiry;
  if (absl::Status s = string_field("expirationTimestamp", expiry); !s.ok()) return s;
  if (!expiry.empty()) {
    absl::Time t;
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, expiry, &t, &error)) {
      return BadCredential(absl::StrCat("status.expirationTimestamp ", Quote(expiry),
                                        " is not an RFC 3339 time: ", error));
    }
    credentials.expiry = t;
  }
  return credentials;
}

// Accessors above are guarded so nothing should throw; if anything does, the
// text may hold a token, so the message says nothing about it.
absl::StatusOr<Credentials> ParseExecCredentialGuarded(std::string_view text,
                                                       std::string* api_version) {
  try {
    return ParseExecCredentialImpl(text, api_version);
  } catch (const std::exception&) {
    return BadCredential("could not be parsed");
  }
}

// The KUBERNETES_EXEC_INFO the plugin reads: who is asking, and, when the
// kubeconfig says so, which cluster it is for.
std::string BuildExecInfo(const RestConfig& config) {
  json spec = {{"interactive", false}};
  if (config.exec->provide_cluster_info) {
    json cluster = {{"server", config.server}};
    if (!config.tls_server_name.empty()) cluster["tls-server-name"] = config.tls_server_name;
    if (config.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config.ca_pem.empty()) {
      cluster["certificate-authority-data"] = absl::Base64Escape(config.ca_pem);
    }
    spec["cluster"] = std::move(cluster);
  }
  const json info = {
      {"kind", "ExecCredential"}, {"apiVersion", config.exec->api_version}, {"spec", spec}};
  // Replace rather than throw on bytes that are not UTF-8.
  return info.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Runs the kubeconfig's exec plugin and caches its output until shortly
// before the expiry it reports. Concurrent Get()s share one run.
class ExecProvider : public CredentialProvider {
 public:
  ExecProvider(const RestConfig& config, Clock& clock)
      : exec_(*config.exec),
        exec_info_(BuildExecInfo(config)),
        timeout_(config.timeout > absl::ZeroDuration() && config.timeout < absl::Hours(1)
                     ? config.timeout
                     : kDefaultExecTimeout),
        clock_(clock) {}

  absl::StatusOr<Credentials> Get() override {
    absl::MutexLock lock(&mu_);
    if (cached_.has_value() &&
        (!cached_->expiry.has_value() || clock_.Now() < *cached_->expiry - kExpiryMargin)) {
      return *cached_;
    }
    absl::StatusOr<Credentials> fresh = Run();
    if (!fresh.ok()) return fresh.status();
    cached_ = *fresh;
    return fresh;
  }

  void Invalidate() override {
    absl::MutexLock lock(&mu_);
    cached_.reset();
  }

 private:
  std::string Prefix() const { return absl::StrCat("exec plugin ", Quote(exec_.command)); }
  std::string Hint() const {
    const absl::string_view hint = absl::StripAsciiWhitespace(exec_.install_hint);
    return hint.empty() ? std::string() : absl::StrCat("; install hint: ", hint);
  }

  // The process environment, overridden by the configured entries, plus the
  // exec info (as client-go: configured values win over inherited ones).
  std::vector<std::string> Environment() const {
    auto overridden = [this](std::string_view entry) {
      const std::string_view name = entry.substr(0, entry.find('='));
      if (name == kExecInfoEnv) return true;
      return std::any_of(exec_.env.begin(), exec_.env.end(),
                         [name](const auto& kv) { return kv.first == name; });
    };
    std::vector<std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      if (!overridden(*e)) env.emplace_back(*e);
    }
    for (const auto& [name, value] : exec_.env) env.push_back(absl::StrCat(name, "=", value));
    env.push_back(absl::StrCat(kExecInfoEnv, "=", exec_info_));
    return env;
  }

  absl::StatusOr<Credentials> Run() const {
    std::vector<std::string> args = {exec_.command};
    args.insert(args.end(), exec_.args.begin(), exec_.args.end());
    absl::StatusOr<ProcessResult> result = RunProcess(args, Environment(), timeout_);
    if (!result.ok()) {
      return absl::UnavailableError(
          absl::StrCat(Prefix(), ": could not start: ", result.status().message(), Hint()));
    }
    std::string stderr_text(absl::StripAsciiWhitespace(result->err));
    if (stderr_text.size() > kMaxStderrInMessage) {
      stderr_text.resize(kMaxStderrInMessage);
      stderr_text += "...";
    }
    const std::string stderr_part = stderr_text.empty() ? "" : absl::StrCat(": ", stderr_text);
    if (result->timed_out) {
      return absl::UnavailableError(absl::StrCat(Prefix(), ": timed out after ",
                                                 absl::FormatDuration(timeout_), stderr_part));
    }
    if (result->term_signal != 0) {
      return absl::UnavailableError(
          absl::StrCat(Prefix(), ": killed by signal ", result->term_signal, stderr_part));
    }
    if (result->exit_code != 0) {
      return absl::UnavailableError(
          absl::StrCat(Prefix(), ": exited with code ", result->exit_code, stderr_part, Hint()));
    }

    std::string api_version;
    absl::StatusOr<Credentials> credentials = ParseExecCredentialGuarded(result->out, &api_version);
    if (!credentials.ok()) {
      return absl::Status(credentials.status().code(),
                          absl::StrCat(Prefix(), ": ", credentials.status().message()));
    }
    if (api_version != exec_.api_version) {
      return absl::InvalidArgumentError(absl::StrCat(Prefix(), ": printed apiVersion ", api_version,
                                                     ", configured ", exec_.api_version));
    }
    return credentials;
  }

  const ExecConfig exec_;
  const std::string exec_info_;
  const absl::Duration timeout_;
  Clock& clock_;
  absl::Mutex mu_;  // held while the plugin runs, so that it runs once for all waiters
  std::optional<Credentials> cached_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<CredentialProvider> NewCredentialProvider(const RestConfig& config, Clock& clock) {
  if (config.exec.has_value()) return std::make_unique<ExecProvider>(config, clock);
  if (!config.bearer_token_file.empty()) {
    return std::make_unique<TokenFileProvider>(config.bearer_token_file, config.token_file_reread,
                                               clock);
  }
  return std::make_unique<StaticTokenProvider>(config.bearer_token);
}

absl::StatusOr<Credentials> ParseExecCredential(std::string_view json_text) {
  return ParseExecCredentialGuarded(json_text, nullptr);
}

}  // namespace quorum::kube
