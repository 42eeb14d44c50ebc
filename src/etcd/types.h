// Values that etcd's v3 API returns, as the Client hands them out: members,
// member status, alarms, KV reads, auth status. Plain data, no behaviour.
#ifndef QUORUM_SRC_ETCD_TYPES_H_
#define QUORUM_SRC_ETCD_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quorum::etcd {

struct Member {
  uint64_t id = 0;
  std::string name;  // empty until the member's process has joined
  std::vector<std::string> peer_urls;
  std::vector<std::string> client_urls;  // empty until the member has joined
  bool is_learner = false;
  bool operator==(const Member&) const = default;
};

struct MemberListResponse {
  uint64_t cluster_id = 0;
  std::vector<Member> members;
};

struct MemberAddResponse {
  Member added;
  std::vector<Member> members;  // the membership after the change
};

// What one member says about itself (maintenance/status).
struct StatusResponse {
  std::string version;  // server version, e.g. "3.6.16"
  int64_t db_size = 0;  // bytes
  int64_t db_size_in_use = 0;
  uint64_t leader = 0;  // 0 when this member knows no leader
  uint64_t raft_index = 0;
  uint64_t raft_term = 0;
  uint64_t raft_applied_index = 0;
  bool is_learner = false;
  std::vector<std::string> errors;  // e.g. "NOSPACE" alarms raised on this member
  uint64_t member_id = 0;
  uint64_t cluster_id = 0;
  int64_t revision = 0;  // the store's revision when it answered (header.revision)
};

struct Alarm {
  uint64_t member_id = 0;
  std::string type;  // "NOSPACE", "CORRUPT"
  bool operator==(const Alarm&) const = default;
};

struct GetResponse {
  std::optional<std::string> value;  // nullopt: no such key
  int64_t revision = 0;              // the store's revision when read
  int64_t mod_revision = 0;          // the key's last change; 0 when absent
};

struct AuthStatusResponse {
  bool enabled = false;
  uint64_t auth_revision = 0;
};

enum class Permission { kRead, kWrite, kReadWrite };

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_TYPES_H_
