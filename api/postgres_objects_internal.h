// Validation and decoding that PostgresRole and PostgresDatabase share.
// Internal to api/.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRES_OBJECTS_INTERNAL_H_
#define QUORUM_API_POSTGRES_OBJECTS_INTERNAL_H_

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/decode.h"
#include "api/field_error.h"
#include "api/postgres_objects.h"

namespace quorum::api::internal {

const nlohmann::json* ChildOf(const nlohmann::json* o, const char* key);

// "spec.x[i]".
std::string Indexed(const std::string& base, size_t i);

// Checks spec.cluster, the effective SQL name (spec.name, else metadata.name;
// `what` = "role" or "database"), connectionLimit, reclaimPolicy, the keys of
// spec against `known`, and with `old` the immutability of cluster and name.
// Returns the effective name ("" when invalid).
std::string CheckCommonSpec(const nlohmann::json& obj, const nlohmann::json* old,
                            const std::set<std::string>& known, const char* what,
                            std::vector<FieldError>& out);

// A role name where a role is referenced (owner, grants): valid and not
// reserved.
void CheckRoleReference(const nlohmann::json* v, const std::string& field,
                        std::vector<FieldError>& out);

// metadata (name, namespace, uid, generation, deletion) and the shared status.
void DecodeObjectMeta(Decoder& d, const nlohmann::json& obj, ObjectMeta& out);
void DecodeObjectStatus(Decoder& d, const nlohmann::json& obj, PostgresObjectStatus& out);

}  // namespace quorum::api::internal

#endif  // QUORUM_API_POSTGRES_OBJECTS_INTERNAL_H_
