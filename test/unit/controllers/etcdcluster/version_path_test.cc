// version_path.h: which etcd image changes roll and which hold the members on
// what they run.
#include "src/controllers/etcdcluster/version_path.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "api/etcdcluster_defaults.h"

namespace quorum::etcdcluster {
namespace {

EtcdVersion V(int major, int minor, int patch) { return {major, minor, patch}; }

TEST(VersionPathTest, ParsesVersionsAndImageTags) {
  EXPECT_EQ(ParseEtcdVersion("3.6.16"), V(3, 6, 16));
  EXPECT_EQ(ParseEtcdVersion("v3.5.21"), V(3, 5, 21));
  EXPECT_EQ(ParseEtcdVersion("3.7.0-rc.1"), V(3, 7, 0));
  EXPECT_FALSE(ParseEtcdVersion("3.6").has_value());
  EXPECT_FALSE(ParseEtcdVersion("latest").has_value());
  EXPECT_FALSE(ParseEtcdVersion("").has_value());
  EXPECT_EQ(ImageVersion("quay.io/coreos/etcd:v3.6.16"), V(3, 6, 16));
  EXPECT_EQ(ImageVersion("registry:5000/etcd:3.5.26"), V(3, 5, 26));
  EXPECT_FALSE(ImageVersion("registry:5000/etcd").has_value()) << "a port is no tag";
  EXPECT_FALSE(ImageVersion("quay.io/coreos/etcd@sha256:abcd").has_value());
  EXPECT_FALSE(ImageVersion("my/etcd:stable").has_value());
}

// Seen on real etcd (3.5.35 → 3.6.16 → 3.7.3 of one data directory): the 3.7
// member stops replaying entries 3.5 wrote. A cluster born on 3.6 goes on.
TEST(VersionPathTest, AClusterThatRan35DoesNotGoTo37InPlace) {
  const std::string rule = UnsupportedVersionPath({V(3, 6, 16)}, V(3, 7, 3), V(3, 5, 35));
  EXPECT_TRUE(absl::StrContains(rule, "ran etcd 3.5.35")) << rule;
  EXPECT_TRUE(absl::StrContains(rule, "spec.bootstrap.restore")) << rule;
  EXPECT_EQ(UnsupportedVersionPath({V(3, 6, 16)}, V(3, 7, 3), V(3, 6, 10)), "");
  EXPECT_EQ(UnsupportedVersionPath({V(3, 6, 16)}, V(3, 7, 3)), "") << "nothing recorded";
  EXPECT_EQ(UnsupportedVersionPath({V(3, 6, 16)}, V(3, 6, 20), V(3, 5, 35)), "")
      << "patches within 3.6 stay allowed";
  EXPECT_EQ(UnsupportedVersionPath({V(3, 6, 16), V(3, 7, 3)}, V(3, 7, 3), V(3, 5, 35)), "")
      << "a roll already under way goes on";
}

// The way on for a cluster that ran 3.5: every member has applied more than
// --snapshot-count entries past the index at which all ran 3.6, so each has
// taken a Raft snapshot after every entry 3.5 wrote.
TEST(VersionPathTest, AClusterThatRan35GoesTo37OnceEveryMemberSnapshottedOn36) {
  using Since = api::EtcdClusterStatus::MinorSince;
  struct Case {
    const char* name;
    LogEvidence log;
    const char* rule;  // a part of the rule broken; "" when supported
  } cases[] = {
      {"nothing recorded", {}, "not every member has answered 3.6"},
      {"recorded while some ran 3.5",
       {.since = Since{"3.5", 10}, .lowest_applied = 50000},
       "not every member has answered 3.6"},
      {"a member did not answer",
       {.since = Since{"3.6", 1000}, .snapshot_count = 100},
       "not every member answered"},
      {"the slowest member is short of it",
       {.since = Since{"3.6", 1000}, .lowest_applied = 1090, .snapshot_count = 100},
       "(11 writes to go)"},
      {"exactly at the bound: the snapshot may not have happened",
       {.since = Since{"3.6", 1000}, .lowest_applied = 1100, .snapshot_count = 100},
       "by index 1101"},
      {"past it", {.since = Since{"3.6", 1000}, .lowest_applied = 1101, .snapshot_count = 100}, ""},
      {"default count",
       {.since = Since{"3.6", 1000}, .lowest_applied = 5000},
       "--snapshot-count=10000"},
  };
  for (const Case& c : cases) {
    const std::string rule = UnsupportedVersionPath({V(3, 6, 16)}, V(3, 7, 3), V(3, 5, 35), c.log);
    if (std::string(c.rule).empty()) {
      EXPECT_EQ(rule, "") << c.name;
    } else {
      EXPECT_TRUE(absl::StrContains(rule, c.rule)) << c.name << ": " << rule;
      EXPECT_TRUE(absl::StrContains(rule, "spec.bootstrap.restore")) << c.name << ": " << rule;
    }
  }
}

TEST(VersionPathTest, TheLowestVersionIsKept) {
  EtcdView view;
  view.members.push_back({.status = etcd::StatusResponse{.version = "3.6.16"}});
  view.members.push_back({.status = std::nullopt});
  EXPECT_EQ(LowestVersion("", view), "3.6.16");
  EXPECT_EQ(LowestVersion("3.5.35", view), "3.5.35");
  EXPECT_EQ(LowestVersion("3.7.0", view), "3.6.16");
  EXPECT_EQ(LowestVersion("", EtcdView{}), "");
  EXPECT_EQ(LowestVersion("3.5.12", EtcdView{}), "3.5.12");
}

TEST(VersionPathTest, TheRulesEtcdDocuments) {
  struct Case {
    const char* name;
    std::vector<EtcdVersion> running;
    EtcdVersion target;
    const char* rule;  // a word of the rule broken; "" when supported
  } cases[] = {
      {"patch up", {V(3, 6, 10)}, V(3, 6, 16), ""},
      {"patch down", {V(3, 6, 16)}, V(3, 6, 10), ""},
      {"one minor up", {V(3, 6, 16)}, V(3, 7, 0), ""},
      {"3.5 to 3.6 from a late patch", {V(3, 5, 26)}, V(3, 6, 16), ""},
      {"mixed mid-upgrade, going on", {V(3, 6, 16), V(3, 7, 0)}, V(3, 7, 0), ""},
      {"nothing answered", {}, V(4, 0, 0), ""},
      {"skips a minor", {V(3, 5, 26)}, V(3, 7, 0), "skips a minor"},
      {"skips from the lowest", {V(3, 5, 26), V(3, 6, 16)}, V(3, 7, 0), "skips a minor"},
      {"3.5 to 3.6 from an early patch", {V(3, 5, 12)}, V(3, 6, 16), "3.5.26"},
      {"minor down", {V(3, 6, 16)}, V(3, 5, 26), "downgrade"},
      {"minor down from a mixed cluster", {V(3, 6, 16), V(3, 7, 0)}, V(3, 6, 16), "downgrade"},
      {"major", {V(3, 6, 16)}, V(4, 0, 0), "major"},
  };
  for (const Case& c : cases) {
    const std::string rule = UnsupportedVersionPath(c.running, c.target);
    if (std::string(c.rule).empty()) {
      EXPECT_EQ(rule, "") << c.name;
    } else {
      EXPECT_TRUE(absl::StrContains(rule, c.rule)) << c.name << ": " << rule;
    }
  }
}

EtcdCluster WithImage(const std::string& image) {
  Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdCluster"},
              {"metadata", {{"name", "kv"}, {"namespace", "db"}, {"uid", "u"}}},
              {"spec", {{"replicas", 3}}}};
  if (!image.empty()) {
    obj["spec"]["podTemplate"] = {
        {"spec", {{"containers", Json::array({{{"name", "etcd"}, {"image", image}}})}}}};
  }
  api::DefaultEtcdCluster(obj);
  absl::StatusOr<EtcdCluster> c = api::DecodeEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : EtcdCluster{};
}

Json LiveStatefulSet(const std::string& image) {
  return {{"spec",
           {{"template",
             {{"spec", {{"containers", Json::array({{{"name", "etcd"}, {"image", image}}})}}}}}}}};
}

EtcdView Running(const std::vector<std::string>& versions) {
  EtcdView v;
  v.members_known = true;
  uint64_t id = 1;
  for (const std::string& version : versions) {
    etcd::StatusResponse s;
    s.version = version;
    v.members.push_back({.member = {.id = id++}, .status = s});
  }
  return v;
}

// The members keep what they run when the spec's image breaks a rule;
// otherwise (or when nothing can be judged) the spec's image rolls.
TEST(VersionPathTest, AnUnsupportedImageChangeHoldsTheLiveImage) {
  const Json live = LiveStatefulSet("quay.io/coreos/etcd:v3.5.12");
  VersionGate g = JudgeVersionPath(WithImage(""), Running({"3.5.12", "3.5.12"}), &live);
  EXPECT_TRUE(absl::StrContains(g.rule, "3.5.26")) << g.rule;
  EXPECT_EQ(g.held, "quay.io/coreos/etcd:v3.5.12");
  EXPECT_TRUE(absl::StrContains(g.rule, kDefaultImage)) << "names the image asked for: " << g.rule;

  g = JudgeVersionPath(WithImage("quay.io/coreos/etcd:v3.5.26"), Running({"3.5.12"}), &live);
  EXPECT_EQ(g.rule, "") << "a patch upgrade rolls";
  g = JudgeVersionPath(WithImage("my/etcd:stable"), Running({"3.5.12"}), &live);
  EXPECT_EQ(g.rule, "") << "a tag without a version is not judged";
  g = JudgeVersionPath(WithImage("quay.io/coreos/etcd:v3.7.0"), Running({}), &live);
  EXPECT_EQ(g.rule, "") << "no member answered: nothing to judge by";
  g = JudgeVersionPath(WithImage("quay.io/coreos/etcd:v3.7.0"), Running({"3.5.12"}), nullptr);
  EXPECT_EQ(g.rule, "") << "no StatefulSet yet: nothing runs";
}

TEST(VersionPathTest, WithEtcdImageSetsOnlyTheEtcdContainersImage) {
  EtcdCluster c = WithImage("");
  c.spec.pod_template.spec = {
      {"containers", Json::array({{{"name", "sidecar"}, {"image", "s:1"}}})}};
  const EtcdCluster held = WithEtcdImage(c, "quay.io/coreos/etcd:v3.5.12");
  EXPECT_EQ(DesiredEtcdImage(held), "quay.io/coreos/etcd:v3.5.12");
  EXPECT_EQ(held.spec.pod_template.spec["containers"][0]["image"], "s:1");
  EXPECT_EQ(DesiredEtcdImage(WithEtcdImage(WithImage("a/etcd:v3.6.1"), "b/etcd:v3.6.2")),
            "b/etcd:v3.6.2");
}

TEST(VersionPathTest, MinorSinceIsRecordedWhenEveryMemberFirstRunsAMinor) {
  using Since = api::EtcdClusterStatus::MinorSince;
  auto view = [](std::vector<std::pair<std::string, uint64_t>> members) {
    EtcdView v;
    v.members_known = true;
    for (const auto& [version, index] : members) {
      if (version.empty()) {
        v.members.push_back({.status = std::nullopt});
      } else {
        v.members.push_back(
            {.status = etcd::StatusResponse{.version = version, .raft_index = index}});
      }
    }
    return v;
  };
  EXPECT_EQ(MinorSince(std::nullopt, view({{"3.5.35", 7}, {"3.5.35", 9}})), (Since{"3.5", 9}));
  EXPECT_EQ(MinorSince(Since{"3.5", 9}, view({{"3.6.16", 40}, {"3.5.35", 41}})), (Since{"3.5", 9}))
      << "mid-roll: the lowest minor is still 3.5";
  EXPECT_EQ(MinorSince(Since{"3.5", 9}, view({{"3.6.16", 60}, {"3.6.16", 61}})),
            (Since{"3.6", 61}));
  EXPECT_EQ(MinorSince(Since{"3.6", 61}, view({{"3.6.16", 900}, {"3.6.16", 901}})),
            (Since{"3.6", 61}))
      << "kept while the minor stays";
  EXPECT_EQ(MinorSince(Since{"3.5", 9}, view({{"3.6.16", 60}, {"", 0}})), (Since{"3.5", 9}))
      << "a member that did not answer may still run 3.5";
  EXPECT_EQ(MinorSince(std::nullopt, EtcdView{}), std::nullopt);

  EtcdCluster c = WithImage("");
  c.spec.options["snapshot-count"] = "250";
  c.status.minor_since = Since{"3.6", 61};
  const LogEvidence e = LogEvidenceOf(c, view({{"3.6.16", 900}, {"3.6.16", 901}}));
  EXPECT_EQ(e.snapshot_count, 250);
  EXPECT_EQ(e.since, (Since{"3.6", 61}));
  EXPECT_FALSE(LogEvidenceOf(c, view({{"3.6.16", 900}, {"", 0}})).lowest_applied.has_value());
}

}  // namespace
}  // namespace quorum::etcdcluster
