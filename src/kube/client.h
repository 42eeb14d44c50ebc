// Client: the REST verbs of the Kubernetes API for any resource, addressed
// by group/version/resource — get, list (one page or all pages), create,
// update (optimistic concurrency through metadata.resourceVersion), delete
// (propagation policy, preconditions), JSON/merge patch, server-side apply
// and the status subresource — plus watch (see watch.h). Objects are
// nlohmann::json values exactly as the API server sends them.
//
// Every request waits for the client-side rate limiter first. Errors are the
// typed statuses of errors.h; a 2xx response whose body is not JSON is
// Internal ("malformed response"), never a crash.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_KUBE_CLIENT_H_
#define QUORUM_SRC_KUBE_CLIENT_H_

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/base/clock.h"
#include "src/kube/config.h"
#include "src/kube/rate_limiter.h"
#include "src/kube/resource.h"
#include "src/kube/transport.h"

namespace quorum::kube {

using Json = nlohmann::json;

// Compact JSON of `object`. Text from libpq, Patroni or etcd may hold invalid
// UTF-8: each invalid byte becomes U+FFFD instead of an exception, so a status
// message with bad bytes is still written (every request body goes through it).
std::string DumpJson(const Json& object);

enum class PatchType {
  kJson,            // application/json-patch+json (RFC 6902)
  kMerge,           // application/merge-patch+json (RFC 7386; lists are replaced)
  kStrategicMerge,  // built-in types only
  kApply,           // server-side apply (application/apply-patch+yaml, JSON body)
};

enum class PropagationPolicy { kDefault, kForeground, kBackground, kOrphan };

struct WriteOptions {
  std::string field_manager;  // empty: the client's default field manager
  bool dry_run = false;
  // The caller does not read the written object: its body is not parsed and
  // the result is an empty object (a StatefulSet's reply is several KiB of
  // JSON with managedFields). Errors are reported as always.
  bool discard_response = false;
};

struct PatchOptions {
  std::string field_manager;
  bool force = false;  // apply only: take ownership of conflicting fields
  bool dry_run = false;
  std::string subresource;        // e.g. "status"
  bool discard_response = false;  // as WriteOptions::discard_response
};

struct DeleteOptions {
  PropagationPolicy propagation = PropagationPolicy::kDefault;
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

// What the client reports about each request, for metrics.
struct RequestRecord {
  std::string_view verb;  // get, list, create, update, patch, delete, watch
  std::string_view resource;
  long code;  // HTTP code, 0 on transport failure
  absl::Duration latency;
};

class Client {
 public:
  // Errors: InvalidArgument for an unusable server URL.
  static absl::StatusOr<std::unique_ptr<Client>> Create(const RestConfig& config,
                                                        Clock& clock = RealClock());

  // Field manager used when an option leaves it empty (default "quorum").
  void set_field_manager(std::string name) { field_manager_ = std::move(name); }
  const std::string& field_manager() const { return field_manager_; }
  // Called after every request (from the requesting thread); set before use.
  void set_request_observer(std::function<void(const RequestRecord&)> fn) {
    observer_ = std::move(fn);
  }

  // `ns` is empty for cluster-scoped resources and for all-namespace lists.
  absl::StatusOr<Json> Get(const GroupVersionResource& gvr, std::string_view ns,
                           std::string_view name, std::string_view subresource = "");
  // One page: the List object with metadata.continue when more remain.
  absl::StatusOr<Json> List(const GroupVersionResource& gvr, std::string_view ns,
                            const ListOptions& options = {});
  // Follows `continue` until done; returns one List holding every item and
  // the resourceVersion of the first page (the snapshot's). Errors include
  // Gone when the continue token expired mid-way (the caller relists).
  absl::StatusOr<Json> ListAll(const GroupVersionResource& gvr, std::string_view ns,
                               ListOptions options = {});
  absl::StatusOr<Json> Create(const GroupVersionResource& gvr, std::string_view ns,
                              const Json& object, const WriteOptions& options = {});
  // POST to a subresource of an existing object (e.g. serviceaccounts/token,
  // pods/eviction) and return the response object.
  absl::StatusOr<Json> CreateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, std::string_view subresource,
                                         const Json& object, const WriteOptions& options = {});
  // PUT of the whole object; a stale metadata.resourceVersion gives Conflict.
  absl::StatusOr<Json> Update(const GroupVersionResource& gvr, std::string_view ns,
                              const Json& object, const WriteOptions& options = {});
  // PUT to the status subresource.
  absl::StatusOr<Json> UpdateStatus(const GroupVersionResource& gvr, std::string_view ns,
                                    const Json& object, const WriteOptions& options = {});
  absl::Status Delete(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                      const DeleteOptions& options = {});
  absl::StatusOr<Json> Patch(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name, PatchType type, const Json& patch,
                             const PatchOptions& options = {});
  // Server-side apply of `object` (apiVersion, kind, metadata.name and the
  // fields this manager owns). An identical second apply writes nothing.
  absl::StatusOr<Json> Apply(const GroupVersionResource& gvr, std::string_view ns,
                             const Json& object, PatchOptions options = {.force = true});
  // Server-side apply to the status subresource.
  absl::StatusOr<Json> ApplyStatus(const GroupVersionResource& gvr, std::string_view ns,
                                   const Json& object, PatchOptions options = {.force = true});

  // A raw GET of any path (discovery, /version, /readyz), parsed as JSON.
  absl::StatusOr<Json> GetPath(std::string_view path);

  Transport& transport() { return *transport_; }
  Clock& clock() { return clock_; }
  const RestConfig& config() const { return transport_->config(); }

 private:
  Client(std::unique_ptr<Transport> transport, Clock& clock);
  friend class Watcher;
  // One request; the body parsed as JSON unless `discard_body` (then an empty
  // object). Errors from the status code first.
  absl::StatusOr<Json> Send(std::string_view verb, std::string_view resource, HttpRequest req,
                            bool discard_body = false);

  std::unique_ptr<Transport> transport_;
  Clock& clock_;
  TokenBucket limiter_;
  std::string field_manager_ = "quorum";
  std::function<void(const RequestRecord&)> observer_;
};

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_CLIENT_H_
