// RFC 6902 JSON Patch between two JSON documents, for mutating webhooks that
// compute a new object and must answer with the operations that produce it.
//
// Objects are compared member by member (add for a new member, remove for a
// missing one, recursion for both); any other difference, arrays included,
// replaces the value whole — a defaulting webhook fills in lists, it does
// not edit them element by element, and a whole replacement cannot be
// misapplied to a list that changed meanwhile. Member names are escaped per
// RFC 6901 ("~" → "~0", "/" → "~1"). Applying the result to `from` gives
// `to`; equal documents give an empty array.
//
// Thread-safety: pure function.
#ifndef QUORUM_SRC_WEBHOOKS_JSON_PATCH_H_
#define QUORUM_SRC_WEBHOOKS_JSON_PATCH_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace quorum::webhooks {

// The operations array, members in sorted order (deterministic).
nlohmann::json CreateJsonPatch(const nlohmann::json& from, const nlohmann::json& to);

// One RFC 6901 reference token: "a/b~c" → "a~1b~0c".
std::string EscapeJsonPointerToken(std::string_view token);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_JSON_PATCH_H_
