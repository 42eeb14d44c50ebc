#include "src/kubectl/logs_command.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/members.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

// Why a container's log cannot be read yet ("" when it can): it has never
// run (no status, or only waiting with no earlier run).
std::string NotStarted(const Json& pod, const std::string& container) {
  const Json statuses = pod.value("status", Json::object()).value("containerStatuses", Json());
  if (!statuses.is_array()) return "not started (no container status)";
  for (const Json& s : statuses) {
    if (!s.is_object() || s.value("name", "") != container) continue;
    const Json state = s.value("state", Json::object());
    const Json last = s.value("lastState", Json::object());
    if (state.contains("running") || state.contains("terminated") || !last.empty()) return "";
    const std::string reason =
        state.value("waiting", Json::object()).value("reason", std::string("waiting"));
    return absl::StrCat("not started (", reason, ")");
  }
  return "not started (no container status)";
}

std::vector<std::string> ContainerNames(const Json& pod) {
  std::vector<std::string> out;
  const Json containers = pod.value("spec", Json::object()).value("containers", Json());
  if (!containers.is_array()) return out;
  for (const Json& c : containers) {
    if (c.is_object() && c.contains("name") && c["name"].is_string()) out.push_back(c["name"]);
  }
  return out;
}

// An API error's message (a Status object's), else the body itself.
std::string ErrorMessage(const kube::HttpResponse& response) {
  Json status = Json::parse(response.body, nullptr, false);
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    return status["message"];
  }
  return absl::StrCat("HTTP ", response.code);
}

// Streams one container's log to `out` (under `mu`), prefixed.
void ReadOne(kube::Client& client, const LogsOptions& o, const LogSource& source, std::ostream& out,
             std::ostream& err, std::mutex& mu) {
  LinePrefixer prefixer(source.prefix);
  kube::HttpRequest request{.path = PodLogPath(o.ns, source, o), .accept = "*/*"};
  absl::StatusOr<kube::HttpResponse> response = client.transport().Stream(
      request,
      [&](std::string_view chunk) {
        const std::string text = prefixer.Feed(chunk);
        std::lock_guard<std::mutex> lock(mu);
        out << text << std::flush;
        return true;
      },
      nullptr);
  std::lock_guard<std::mutex> lock(mu);
  out << prefixer.Flush() << std::flush;
  const std::string who = absl::StrCat("pod ", source.pod, " container ", source.container);
  if (!response.ok()) {
    err << who << ": " << response.status().message() << "\n";
  } else if (response->code < 200 || response->code >= 300) {
    err << who << ": " << ErrorMessage(*response) << "\n";
  } else if (o.follow) {
    err << who << ": the log ended (the container stopped or the pod is gone)\n";
  }
}

}  // namespace

LogPlan PlanLogs(const Json& pods, const std::string& container) {
  LogPlan plan;
  if (!pods.is_array()) return plan;
  for (const Json& pod : pods) {
    const std::string name = pod.value("metadata", Json::object()).value("name", "");
    std::vector<std::string> containers = ContainerNames(pod);
    if (!container.empty()) {
      const bool has =
          std::find(containers.begin(), containers.end(), container) != containers.end();
      if (!has) {
        plan.skipped.push_back(absl::StrCat("pod ", name, ": has no container ", container));
        continue;
      }
      containers = {container};
    }
    std::vector<std::string> started;
    for (const std::string& c : containers) {
      const std::string why = NotStarted(pod, c);
      if (why.empty()) {
        started.push_back(c);
      } else {
        plan.skipped.push_back(absl::StrCat("pod ", name, " container ", c, ": ", why));
      }
    }
    for (const std::string& c : started) {
      const std::string prefix = containers.size() > 1 ? absl::StrCat("[", name, "/", c, "] ")
                                                       : absl::StrCat("[", name, "] ");
      plan.sources.push_back({.pod = name, .container = c, .prefix = prefix});
    }
  }
  return plan;
}

std::string PodLogPath(const std::string& ns, const LogSource& s, const LogsOptions& o) {
  std::string path = absl::StrCat(kube::ResourcePath(kube::kPods, ns, s.pod, "log"),
                                  "?container=", kube::PercentEncode(s.container));
  if (o.follow) absl::StrAppend(&path, "&follow=true");
  if (o.since) {
    const int64_t seconds =
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(*o.since))));
    absl::StrAppend(&path, "&sinceSeconds=", seconds);
  }
  if (o.tail) absl::StrAppend(&path, "&tailLines=", *o.tail);
  return path;
}

std::string LinePrefixer::Feed(std::string_view chunk) {
  std::string out;
  size_t start = 0;
  for (size_t nl = chunk.find('\n'); nl != std::string_view::npos; nl = chunk.find('\n', start)) {
    out.append(prefix_).append(partial_).append(chunk.substr(start, nl - start)).push_back('\n');
    partial_.clear();
    start = nl + 1;
  }
  partial_.append(chunk.substr(start));
  return out;
}

std::string LinePrefixer::Flush() {
  if (partial_.empty()) return "";
  std::string out = absl::StrCat(prefix_, partial_, "\n");
  partial_.clear();
  return out;
}

absl::Status RunLogs(kube::Client& client, const LogsOptions& o, std::ostream& out,
                     std::ostream& err) {
  if (o.tail && *o.tail < 0) return absl::InvalidArgumentError("--tail: want 0 or more lines");
  if (o.since && *o.since <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--since: want a positive duration such as 10m");
  }
  absl::StatusOr<FoundCluster> found = FindCluster(client, o.ns, o.target);
  if (!found.ok()) return found.status();
  absl::StatusOr<Json> pods = FetchMemberPods(client, o.ns, *found);
  if (!pods.ok()) return pods.status();
  const LogPlan plan = PlanLogs(*pods, o.container);
  for (const std::string& s : plan.skipped) err << s << "\n";
  if (pods->empty())
    err << KindName(found->kind) << " " << o.target.name << " has no member pods\n";
  std::mutex mu;
  if (!o.follow) {
    for (const LogSource& s : plan.sources) ReadOne(client, o, s, out, err, mu);
    return absl::OkStatus();
  }
  std::vector<std::thread> threads;
  for (const LogSource& s : plan.sources) {
    threads.emplace_back([&, s] { ReadOne(client, o, s, out, err, mu); });
  }
  for (std::thread& t : threads) t.join();
  return absl::OkStatus();
}

}  // namespace quorum::kubectl
