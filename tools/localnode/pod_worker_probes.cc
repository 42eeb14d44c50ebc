// PodWorker: startup, liveness and readiness probes (exec, HTTP, TCP).
#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"
#include "tools/localnode/env.h"
#include "tools/localnode/pod_worker.h"
#include "tools/localnode/pod_worker_internal.h"
#include "tools/localnode/volumes.h"

namespace quorum::localnode {
namespace {

using pod_worker_internal::IntOr;
using pod_worker_internal::Str;
using pod_worker_internal::Time;

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

bool HttpProbe(const std::string& url, int timeout_s) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return false;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s) * 1000);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  CURLcode rc = curl_easy_perform(curl);
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  return rc == CURLE_OK && code >= 200 && code < 400;
}

bool TcpProbe(const std::string& host, int port, int timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, timeout_s * 1000) == 1) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      ok = err == 0;
    }
  }
  close(fd);
  return ok;
}

}  // namespace

bool PodWorker::ProbeOnce(const Container& c, const Json& probe) {
  const int timeout = std::max(1, IntOr(probe, "timeoutSeconds", 1));
  if (probe.contains("httpGet")) {
    const Json& h = probe["httpGet"];
    std::string host = Str(h, "host");
    if (host.empty()) host = ip_;
    std::string scheme = Str(h, "scheme");
    if (scheme.empty()) scheme = "HTTP";
    std::string path = Str(h, "path");
    if (path.empty() || path[0] != '/') path = "/" + path;
    return HttpProbe(absl::StrCat(scheme == "HTTPS" ? "https" : "http", "://", host, ":",
                                  ResolvePort(h.value("port", Json()), c), path),
                     timeout);
  }
  if (probe.contains("tcpSocket")) {
    const Json& t = probe["tcpSocket"];
    std::string host = Str(t, "host");
    return TcpProbe(host.empty() ? ip_ : host, std::stoi(ResolvePort(t.value("port", Json()), c)),
                    timeout);
  }
  if (probe.contains("exec")) {
    SpawnSpec spec;
    for (const Json& a : probe["exec"].value("command", Json::array()))
      spec.argv.push_back(a.get<std::string>());
    if (spec.argv.empty()) return false;
    spec.argv[0] = LookPath(spec.argv[0], "/usr/local/bin:/usr/bin:/bin");
    if (spec.argv[0].empty()) return false;
    spec.netns_path = netns_path_;
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
    auto mounts = ContainerMounts(pod_, c.spec, volumes_);
    if (mounts.ok()) spec.mounts = *mounts;
    spec.mounts.push_back({pod_dir_ + "/hosts", "/etc/hosts", true});
    auto pid = Spawn(spec);
    if (!pid.ok()) return false;
    const absl::Time deadline = absl::Now() + absl::Seconds(timeout);
    int status = 0;
    while (absl::Now() < deadline) {
      if (waitpid(*pid, &status, WNOHANG) == *pid)
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
      absl::SleepFor(absl::Milliseconds(20));
    }
    SignalGroup(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
    return false;
  }
  return true;  // grpc and unknown probe kinds: not supported, treated as passing
}

void PodWorker::RunProbes(Container& c) {
  if (c.pid <= 0) return;
  const absl::Time now = absl::Now();
  auto due = [&](Probe& p) {
    if (!p.spec.is_object() || now < p.next) return false;
    p.next = now + absl::Seconds(std::max(1, IntOr(p.spec, "periodSeconds", 10)));
    return true;
  };
  auto record = [&](Probe& p, bool ok) {
    if (ok) {
      ++p.successes;
      p.failures = 0;
    } else {
      ++p.failures;
      p.successes = 0;
    }
  };
  if (!c.startup_done) {
    if (!due(c.startup)) return;
    record(c.startup, ProbeOnce(c, c.startup.spec));
    if (c.startup.successes >= 1) {
      c.startup_done = true;
      // Liveness and readiness start right away once the container started.
      c.readiness.next = c.liveness.next = now;
    } else if (c.startup.failures >= IntOr(c.startup.spec, "failureThreshold", 3)) {
      ctx_.recorder->Warning(pod_, "Unhealthy",
                             absl::StrCat("Startup probe failed: container ", Str(c.spec, "name"),
                                          " will be restarted"));
      StopContainer(c, absl::Seconds(IntOr(pod_["spec"], "terminationGracePeriodSeconds", 30)));
    }
    return;
  }
  if (due(c.liveness)) {
    record(c.liveness, ProbeOnce(c, c.liveness.spec));
    if (c.liveness.failures >= IntOr(c.liveness.spec, "failureThreshold", 3)) {
      ctx_.recorder->Warning(pod_, "Unhealthy",
                             absl::StrCat("Liveness probe failed: container ", Str(c.spec, "name"),
                                          " will be restarted"));
      StopContainer(c, absl::Seconds(IntOr(pod_["spec"], "terminationGracePeriodSeconds", 30)));
      return;
    }
  }
  if (!c.readiness.spec.is_object()) {
    c.ready = true;
  } else if (due(c.readiness)) {
    record(c.readiness, ProbeOnce(c, c.readiness.spec));
    if (c.readiness.successes >= IntOr(c.readiness.spec, "successThreshold", 1)) c.ready = true;
    if (c.readiness.failures >= IntOr(c.readiness.spec, "failureThreshold", 3)) c.ready = false;
  }
}

}  // namespace quorum::localnode
