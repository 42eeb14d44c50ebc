// Server-side apply that costs nothing when nothing changed: compare the
// desired object (only the fields we own) with the cached one first and send
// the apply only when some desired field differs. The API server adds
// defaults and other managers' fields, so the test is "desired is a subset
// of actual", not equality. Thread-safe (pure comparison + one request).
#ifndef QUORUM_SRC_RUNTIME_APPLY_H_
#define QUORUM_SRC_RUNTIME_APPLY_H_

#include "absl/status/statusor.h"
#include "src/kube/client.h"
#include "src/runtime/store.h"

namespace quorum::runtime {

// True when every field of `desired` has the same value in `actual`:
// objects compare key by key (extra keys in `actual` are fine), arrays
// element by element with the same length, scalars by value.
bool IsSubset(const Json& desired, const Json& actual);

// Applies `desired` (apiVersion, kind, metadata.name/namespace, owned
// fields) unless `cached` already holds it. Returns whether a request was
// sent. Errors: the client's (errors.h); a refused write (IsRefusedWrite)
// names the object: "the API server refused <Kind> <name>: <its message>".
absl::StatusOr<bool> ApplyIfChanged(kube::Client& client, const kube::GroupVersionResource& gvr,
                                    const Json& desired, const ObjectPtr& cached,
                                    const std::string& field_manager);

// The API server refused a write on its merits — a policy or quota
// (PermissionDenied, 403) or an invalid object (InvalidArgument, 400/422) —
// rather than being unavailable or in a race: retrying at once cannot help, so
// the user is told (status, event) while the queue retries with backoff.
bool IsRefusedWrite(const absl::Status& s);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_APPLY_H_
