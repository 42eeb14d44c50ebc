#include "src/controllers/common/job_outcome.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::controllers {
namespace {

TEST(OneShotJobNameTest, FitsSixtyThreeCharactersDeterministicallyAndKeepsTheSuffix) {
  EXPECT_EQ(OneShotJobName("nightly", "snapshot"), "nightly-snapshot");
  const std::string fits(63 - 7, 'a');
  EXPECT_EQ(OneShotJobName(fits, "backup"), fits + "-backup") << "63 characters: kept";
  for (const std::string suffix : {"snapshot", "backup"}) {
    const std::string a = OneShotJobName(std::string(70, 'a'), suffix);
    const std::string b = OneShotJobName(std::string(70, 'a') + "b", suffix);
    EXPECT_EQ(a.size(), 63u) << a;
    EXPECT_TRUE(absl::EndsWith(a, "-" + suffix)) << a;
    EXPECT_NE(a, b) << "names that share their first characters differ by the hash";
    EXPECT_EQ(a, OneShotJobName(std::string(70, 'a'), suffix)) << "deterministic";
  }
}

TEST(OneShotPodSpecTest, RunsOnceAsTheUserWithNoTokenAndADroppedContainer) {
  const nlohmann::json c = {{"name", "c"}, {"securityContext", RestrictedContainerSecurity()}};
  const nlohmann::json pod = OneShotPodSpec(c, nlohmann::json::array(), 26);
  EXPECT_EQ(pod["restartPolicy"], "Never");
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["securityContext"]["runAsUser"], 26);
  EXPECT_EQ(pod["securityContext"]["fsGroup"], 26);
  EXPECT_EQ(pod["containers"][0]["securityContext"]["capabilities"]["drop"][0], "ALL");
  EXPECT_EQ(pod["containers"][0]["securityContext"]["readOnlyRootFilesystem"], true);
}

}  // namespace
}  // namespace quorum::controllers
