// What the operator's cache holds per resource type (runtime::ResourceScope):
// only objects our builders label (owned objects, our member pods and their
// claims), with fields no controller reads dropped. A Secret named in a spec
// (a user's TLS or DCS credentials) is read through the API server on demand
// and not watched, so unrelated Secrets in the cluster cost nothing and are
// never held. The binary and the controllers' integration tests use the same
// scopes, so that the tests see what users run.
//
// Thread-safety: a pure function.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_CACHE_SCOPES_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_CACHE_SCOPES_H_

#include <map>
#include <string>

#include "src/runtime/cache.h"

namespace quorum::controllers {

// Keyed by runtime::ResourceKey, for runtime::ManagerOptions::cache_scopes.
std::map<std::string, runtime::ResourceScope> CacheScopes();

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_CACHE_SCOPES_H_
