#include "src/kubectl/wait.h"

#include <algorithm>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/base/cancellation.h"
#include "src/kube/errors.h"
#include "src/kube/watch.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

absl::Status Deleted(const kube::GroupVersionResource& gvr, const std::string& ns,
                     const std::string& name) {
  return absl::NotFoundError(
      absl::StrCat(gvr.resource, " \"", name, "\" was deleted from namespace ", ns));
}

// One read of the object into `result`. Errors: NotFound (deleted), as the API answered.
absl::Status Reread(kube::Client& client, const kube::GroupVersionResource& gvr,
                    const std::string& ns, const std::string& name,
                    const std::function<bool(const Json&)>& done, WaitResult& result) {
  absl::StatusOr<Json> fresh = client.Get(gvr, ns, name);
  if (absl::IsNotFound(fresh.status())) return Deleted(gvr, ns, name);
  if (!fresh.ok()) return fresh.status();
  result.object = *std::move(fresh);
  result.done = done(result.object);
  return absl::OkStatus();
}

// Reads the object once a second until `done` or `end`: for users who may
// get the object but not watch it.
absl::StatusOr<WaitResult> Poll(kube::Client& client, const kube::GroupVersionResource& gvr,
                                const std::string& ns, const std::string& name,
                                const std::function<bool(const Json&)>& done, absl::Time end,
                                WaitResult result) {
  while (!result.done && absl::Now() < end) {
    absl::SleepFor(std::min(absl::Seconds(1), end - absl::Now()));
    if (absl::Status s = Reread(client, gvr, ns, name, done, result); !s.ok()) return s;
  }
  return result;
}

}  // namespace

absl::StatusOr<WaitResult> WaitForObject(kube::Client& client,
                                         const kube::GroupVersionResource& gvr,
                                         const std::string& ns, const std::string& name,
                                         const std::function<bool(const Json&)>& done,
                                         absl::Duration timeout) {
  absl::StatusOr<Json> first = client.Get(gvr, ns, name);
  if (!first.ok()) return first.status();
  WaitResult result{.done = done(*first), .object = *std::move(first)};
  if (result.done || timeout <= absl::ZeroDuration()) return result;

  const absl::Time end = absl::Now() + timeout;
  Cancellation stop, finished;  // stop: the deadline passed, or watching is forbidden
  std::thread timer([&] {
    if (!finished.WaitFor(timeout)) stop.Cancel();
  });
  absl::Cleanup stop_timer = [&] {
    finished.Cancel();
    timer.join();
  };
  bool forbidden = false, deleted = false;
  kube::Watcher watcher(
      client, gvr, ns,
      {.list = {.field_selector = "metadata.name=" + name,
                .resource_version = result.object["metadata"].value("resourceVersion", "")},
       .on_error = [&](const absl::Status& s, absl::Duration) {
         if (!kube::IsForbidden(s)) return;
         forbidden = true;
         stop.Cancel();
       }});
  auto handler = [&](kube::WatchEvent& event) {
    if (event.type == kube::WatchEventType::kDeleted) {
      deleted = true;
      return false;
    }
    result.object = std::move(event.object);
    result.done = done(result.object);
    return !result.done;
  };
  while (true) {
    absl::Status s = watcher.Run(handler, stop);
    if (deleted) return Deleted(gvr, ns, name);
    if (forbidden) return Poll(client, gvr, ns, name, done, end, std::move(result));
    if (!kube::IsGone(s)) return result;  // done, or cancelled by the deadline
    if (absl::Status r = Reread(client, gvr, ns, name, done, result); !r.ok()) return r;
    if (result.done) return result;
    watcher.set_resource_version(result.object["metadata"].value("resourceVersion", ""));
  }
}

}  // namespace quorum::kubectl
