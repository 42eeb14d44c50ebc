// The space planner: a pure function from what each member of one etcd
// cluster says about its backend (maintenance/status) to the single next
// housekeeping step. No I/O, no clock; the caller takes the step, observes
// again and asks again, so an interrupted episode resumes on the next call.
//
// Two episodes, the first that applies wins:
//  * NOSPACE: a member's backend reached its quota and etcd raised the
//    NOSPACE alarm; every write is refused until it is disarmed. The remedy
//    is etcd's documented one: compact the key history to the current
//    revision, defragment each member once (members apply the compaction at
//    their own pace, so their reported use is not waited for) so that the
//    freed pages go back to the file system (followers first, one at a time;
//    the leader last, after its
//    leadership moved to a follower that is already defragmented, so the
//    cluster never waits on a blocked leader), then disarm. If the data still
//    in use fills the quota after that, disarming would only make the next
//    write raise the alarm again: kWait says so instead (the user must raise
//    quota-backend-bytes or delete data).
//  * Fragmented: no alarm, but a member's file is at least kDefragShare of
//    the quota and at least half of it is free pages (auto-compaction freed
//    them): defragment the same way, without compaction or disarm, so that
//    the alarm is not reached in the first place.
// Every voting member must answer before any step of an episode: a member
// that does not answer may be the one that is full (kWait).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_ETCD_SPACE_H_
#define QUORUM_SRC_ETCD_SPACE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quorum::etcd {

// etcd's default backend quota (--quota-backend-bytes unset or 0).
inline constexpr int64_t kDefaultQuotaBytes = int64_t{2} << 30;
// A member whose file reaches this share of the quota is defragmented
// without an alarm once at least half of the file is free pages.
inline constexpr double kDefragShare = 0.5;
// After compaction and defragmentation, data in use at or above this share
// of the quota is not disarmed: the next write would raise the alarm again.
inline constexpr double kStillFullShare = 0.9;

struct SpaceMember {
  uint64_t id = 0;
  std::string client_url;  // where to send Defragment; "" until the member joined
  bool is_learner = false;
  bool answered = false;  // its status came back
  int64_t db_size = 0;    // bytes of the backend file
  int64_t db_size_in_use = 0;
};

struct SpaceObservation {
  std::vector<SpaceMember> members;
  uint64_t leader_id = 0;              // 0: no leader known
  bool nospace_alarm = false;          // a NOSPACE alarm is raised (any member's status lists it)
  bool compacted = false;              // this episode's compaction is done
  std::vector<uint64_t> defragmented;  // members defragmented since the compaction
  int64_t revision = 0;                // the store's current revision (to compact to)
  int64_t quota_bytes = kDefaultQuotaBytes;
};

struct SpaceAction {
  enum Kind {
    kNone,        // nothing to do
    kWait,        // an episode cannot go on now (reason says why): look again later
    kCompact,     // Compact(revision)
    kDefragment,  // Defragment(endpoint) of member_id
    kMoveLeader,  // MoveLeader(member_id): away from the leader before its defragmentation
    kDisarm,      // disarm the NOSPACE alarms
  };
  Kind kind = kNone;
  uint64_t member_id = 0;
  std::string endpoint;
  int64_t revision = 0;
  std::string reason;  // one human sentence for events and logs
};

SpaceAction NextSpaceAction(const SpaceObservation& observation);

// True when the member's file holds enough free pages for a defragmentation
// to be worth blocking it: at least 1 MiB and a tenth of the file.
bool WorthDefragmenting(const SpaceMember& member);

// "Compact", "Defragment", ... for events, logs and tests.
std::string_view SpaceKindName(SpaceAction::Kind kind);

// The quota etcd uses for an option value of quota-backend-bytes: its
// decimal byte count; etcd's default when empty, 0 or not a positive number.
int64_t QuotaBytes(std::string_view option_value);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_SPACE_H_
