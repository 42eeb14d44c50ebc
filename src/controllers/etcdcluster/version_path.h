// The etcd version path an image change asks for, judged before any member is
// rolled (issue 36). etcd supports patch changes within a minor and upgrades
// of one minor at a time; 3.5 → 3.6 only from 3.5.26 on (etcd's upgrade
// guide: earlier 3.5 patches can leave members that block the upgrade);
// a minor downgrade only through etcd's own downgrade procedure, which
// Quorum does not run. The running versions are what the members answered
// (Status), the target is the version in the etcd image's tag.
//
// When the path is unsupported, the members keep the image they run (the
// live StatefulSet's) and the reconciler reports the rule broken; an image
// whose tag names no version (a digest, a custom tag) is not judged.
//
// Pure functions; thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_VERSION_PATH_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_VERSION_PATH_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/controllers/etcdcluster/names.h"
#include "src/controllers/etcdcluster/observe.h"

namespace quorum::etcdcluster {

struct EtcdVersion {
  int major = 0, minor = 0, patch = 0;
  auto operator<=>(const EtcdVersion&) const = default;
};

// "3.6.16", "v3.6.16", "3.6.16-rc.0" (the pre-release part is ignored);
// nullopt for anything else.
std::optional<EtcdVersion> ParseEtcdVersion(std::string_view text);
// The version in an image reference's tag (…/etcd:v3.6.16); nullopt for a
// digest, no tag or a tag that is not a version.
std::optional<EtcdVersion> ImageVersion(std::string_view image);

// etcd 3.6's --snapshot-count default: a member takes a Raft snapshot once it
// has applied this many entries since its last one.
inline constexpr int64_t kDefaultSnapshotCount = 10000;

// What shows that no member's Raft log still holds entries an older minor
// wrote. A member replays, at start, only the entries after its last Raft
// snapshot, and takes a snapshot as soon as it has applied more than
// `snapshot_count` entries since the previous one: so a member that ran the
// minor of `since` throughout and has applied past since.raft_index +
// snapshot_count has taken a snapshot after since.raft_index, and every entry
// it will replay was written by that minor or later. (A member's reported
// storage version is no evidence: etcd 3.6 reports the 3.6 schema at once on
// a 3.5 data directory whose log 3.7 still cannot replay.)
struct LogEvidence {
  std::optional<api::EtcdClusterStatus::MinorSince> since;
  std::optional<uint64_t> lowest_applied;  // over every member; nullopt if one did not answer
  int64_t snapshot_count = kDefaultSnapshotCount;
};

// The rule moving members that run `running` to `target` breaks, as a
// sentence; "" when etcd supports it (or `running` is empty). `lowest_run`:
// the lowest version the cluster ever ran (status.lowestVersion), if known:
// a cluster that ran 3.5 goes to 3.7 only once `log` shows every member has
// taken a Raft snapshot since all ran 3.6, because etcd 3.7 cannot replay
// entries 3.5 wrote (seen with 3.5.35 → 3.6.16 → 3.7.3: the 3.7 member stops
// at start with "unmarshal should never fail"); until then the way is a
// snapshot restored into a new cluster on 3.6, which starts a clean log.
std::string UnsupportedVersionPath(const std::vector<EtcdVersion>& running, EtcdVersion target,
                                   std::optional<EtcdVersion> lowest_run = std::nullopt,
                                   const LogEvidence& log = {});

// status.minorSince after `view`: `recorded` while it names the lowest minor
// every member answered, else that minor with the highest Raft index a member
// reported; `recorded` unchanged when some member did not answer.
std::optional<api::EtcdClusterStatus::MinorSince> MinorSince(
    const std::optional<api::EtcdClusterStatus::MinorSince>& recorded, const EtcdView& view);

// The LogEvidence of `cluster` as `view` shows it: MinorSince, the lowest
// applied index, and spec.options' snapshot-count (else the default).
LogEvidence LogEvidenceOf(const EtcdCluster& cluster, const EtcdView& view);

// The lower of `recorded` (status.lowestVersion) and the versions the
// members answered in `view`, as text ("" when neither has one).
std::string LowestVersion(const std::string& recorded, const EtcdView& view);

// The etcd container's image the spec asks for (podTemplate, else Quorum's
// default), and the one `sts` (the live StatefulSet, may be null) runs ("").
std::string DesiredEtcdImage(const EtcdCluster& cluster);
std::string LiveEtcdImage(const Json* sts);

struct VersionGate {
  std::string rule;  // "" when the desired image may be rolled out
  std::string held;  // with a rule: the image the members keep
};

// Judges rolling the desired image onto the members `view` saw (their
// answered versions), given the live StatefulSet.
VersionGate JudgeVersionPath(const EtcdCluster& cluster, const EtcdView& view, const Json* sts);

// `cluster` with the etcd container's image set to `image` (in its
// podTemplate, as a user would write it).
EtcdCluster WithEtcdImage(EtcdCluster cluster, const std::string& image);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_VERSION_PATH_H_
