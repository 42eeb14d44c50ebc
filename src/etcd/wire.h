// The wire format of etcd's v3 JSON gateway: request bodies and response
// parsing, kept apart from the I/O so that malformed answers can be tested.
// 64-bit integers travel as decimal strings, bytes as padded base64, and
// false/zero/empty fields are omitted (so an absent field is its zero value).
//
// Parsers never throw; they return Internal when the body is not a JSON
// object (or lacks what the call cannot do without) and otherwise take what
// is there, ignoring fields of unexpected types.
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_ETCD_WIRE_H_
#define QUORUM_SRC_ETCD_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/etcd/types.h"

namespace quorum::etcd::wire {

// --- Request bodies -----------------------------------------------------------
std::string MemberListRequest(bool linearizable);
std::string MemberAddRequest(const std::vector<std::string>& peer_urls, bool is_learner);
std::string MemberIdRequest(uint64_t id);  // remove, promote
std::string MemberUpdateRequest(uint64_t id, const std::vector<std::string>& peer_urls);
std::string MoveLeaderRequest(uint64_t target_id);
// Compacts the key history up to `revision`; physical: answer once the
// freed space is reusable (the compaction reached the backend).
std::string CompactRequest(int64_t revision, bool physical);
// Deactivates one alarm (its member and type as Alarms() listed them).
std::string AlarmDisarmRequest(const Alarm& alarm);
std::string PutRequest(std::string_view key, std::string_view value);
std::string RangeRequest(std::string_view key);
// Deletes every key that starts with `prefix` (non-empty).
std::string DeletePrefixRequest(std::string_view prefix);
// A transaction that deletes `key` only while its value is `value`.
std::string DeleteIfValueRequest(std::string_view key, std::string_view value);
// The range_end that makes [prefix, range_end) every key starting with
// `prefix`: its last byte incremented (bytes 0xff dropped first); "\0" (every
// key from `prefix` on) when nothing is left.
std::string PrefixRangeEnd(std::string_view prefix);
std::string AuthenticateRequest(std::string_view name, std::string_view password);
std::string UserAddRequest(std::string_view name, std::string_view password);
std::string RoleAddRequest(std::string_view name);
// {name}: user delete.
std::string NameRequest(std::string_view name);
// {role}: role delete (etcd names the field differently there).
std::string RoleRequest(std::string_view role);
std::string UserGrantRoleRequest(std::string_view user, std::string_view role);
std::string RoleGrantPermissionRequest(std::string_view role, std::string_view key,
                                       std::string_view range_end, Permission permission);

// --- Responses ----------------------------------------------------------------
// Internal also when the answer has no members (etcd always lists itself).
absl::StatusOr<MemberListResponse> ParseMemberList(std::string_view body);
// Internal also when the added member has no ID.
absl::StatusOr<MemberAddResponse> ParseMemberAdd(std::string_view body);
absl::StatusOr<StatusResponse> ParseStatus(std::string_view body);
// Alarms of type NONE are dropped; numeric types are named.
absl::StatusOr<std::vector<Alarm>> ParseAlarms(std::string_view body);
// The revision of a put.
absl::StatusOr<int64_t> ParsePut(std::string_view body);
absl::StatusOr<GetResponse> ParseRange(std::string_view body);
// How many keys a delete removed.
absl::StatusOr<int64_t> ParseDeleted(std::string_view body);
// Whether a transaction's compares held (its success branch ran).
absl::StatusOr<bool> ParseTxnSucceeded(std::string_view body);
absl::StatusOr<AuthStatusResponse> ParseAuthStatus(std::string_view body);
// The names /v3/auth/user/list and /v3/auth/role/list answer.
absl::StatusOr<std::vector<std::string>> ParseUserNames(std::string_view body);
absl::StatusOr<std::vector<std::string>> ParseRoleNames(std::string_view body);
// Internal also when there is no token.
absl::StatusOr<std::string> ParseToken(std::string_view body);

}  // namespace quorum::etcd::wire

#endif  // QUORUM_SRC_ETCD_WIRE_H_
