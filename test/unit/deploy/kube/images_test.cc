// images/*/Dockerfile are built here only by hack/images.sh (the real node's test
// bed); this checks what can be checked without building: every file they COPY from the build
// context exists, the operator image runs the binary as the user the Deployment demands, the
// PostgreSQL image pins the Patroni the tests run, and docs/images.md names every default image the
// code uses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/unit/deploy/kube/manifest_files.h"

namespace quorum::deploytest {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A Dockerfile's instructions, continuation lines joined, comments dropped.
std::vector<std::pair<std::string, std::string>> Instructions(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string pending;
  for (absl::string_view raw : absl::StrSplit(ReadFile(path), '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (pending.empty() && (line.empty() || line.front() == '#')) continue;
    if (absl::ConsumeSuffix(&line, "\\")) {
      pending += std::string(line) + " ";
      continue;
    }
    pending += std::string(line);
    const size_t space = pending.find(' ');
    out.emplace_back(pending.substr(0, space),
                     space == std::string::npos ? "" : pending.substr(space + 1));
    pending.clear();
  }
  return out;
}

// The last value of an instruction (the final stage's for USER/ENTRYPOINT).
std::string Last(const std::vector<std::pair<std::string, std::string>>& ins,
                 const std::string& name) {
  std::string value;
  for (const auto& [n, v] : ins) {
    if (n == name) value = v;
  }
  return value;
}

// The base images of the stages, in order, with ${ARG}s replaced by the defaults
// of the ARGs declared before them (a build may override them: hack/images.sh does).
std::vector<std::string> FromImages(const std::vector<std::pair<std::string, std::string>>& ins) {
  std::map<std::string, std::string> args;
  std::vector<std::string> out;
  for (const auto& [n, v] : ins) {
    if (n == "ARG") {
      const size_t eq = v.find('=');
      if (eq != std::string::npos) args[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (n == "FROM") {
      std::string image = v;
      for (const auto& [name, value] : args) {
        const std::string ref = "${" + name + "}";
        for (size_t at; (at = image.find(ref)) != std::string::npos;)
          image.replace(at, ref.size(), value);
      }
      out.push_back(image);
    }
  }
  return out;
}

void ExpectCopiedFilesExist(const std::string& dockerfile) {
  for (const auto& [name, args] : Instructions(Repo(dockerfile))) {
    if (name != "COPY" && name != "ADD") continue;
    std::vector<std::string> words = absl::StrSplit(args, ' ', absl::SkipEmpty());
    if (absl::StrContains(args, "--from=")) continue;  // from another stage
    std::vector<std::string> sources;
    for (const std::string& w : words) {
      if (!absl::StartsWith(w, "--")) sources.push_back(w);
    }
    ASSERT_GE(sources.size(), 2u) << dockerfile << ": " << args;
    sources.pop_back();  // the destination
    for (const std::string& s : sources) {
      // The operator's prebuilt stage copies from a context hack/images.sh makes.
      if (absl::StartsWith(s, "prebuilt/")) continue;
      EXPECT_TRUE(std::filesystem::exists(Repo(s))) << dockerfile << " copies missing " << s;
    }
  }
}

TEST(ImagesTest, EveryCopiedFileExists) {
  ExpectCopiedFilesExist("images/operator/Dockerfile");
  ExpectCopiedFilesExist("images/postgres/Dockerfile");
}

TEST(ImagesTest, OperatorImageIsMultiStageShellFreeAndRunsAsTheDeploymentsUser) {
  const auto ins = Instructions(Repo("images/operator/Dockerfile"));
  const std::vector<std::string> stages = FromImages(ins);
  ASSERT_GE(stages.size(), 2u);
  EXPECT_TRUE(absl::StrContains(stages.back(), "distroless")) << stages.back();

  const Json dep = Find(LoadDocuments(Repo("deploy/quorum.yaml")), "Deployment", "quorum-operator");
  const Json pod = dep["spec"]["template"]["spec"];
  const std::string uid = std::to_string(pod["securityContext"]["runAsUser"].get<int>());
  const std::string gid = std::to_string(pod["securityContext"]["runAsGroup"].get<int>());
  EXPECT_EQ(Last(ins, "USER"), uid + ":" + gid);

  // The Deployment gives only args: the image's entrypoint must be the
  // binary itself (exec form: there is no shell to run a string).
  const Json container = pod["containers"][0];
  EXPECT_FALSE(container.contains("command"));
  EXPECT_EQ(Last(ins, "ENTRYPOINT"), R"(["/quorum-operator"])");
  EXPECT_TRUE(absl::StrContains(ReadFile(Repo("images/operator/Dockerfile")),
                                "ninja -C /build quorum-operator"));
}

TEST(ImagesTest, PostgresImagePinsTheTestedPatroniAndShipsTheRoleCallback) {
  const auto ins = Instructions(Repo("images/postgres/Dockerfile"));
  std::smatch m;
  const std::string env = ReadFile(Repo("hack/patroni-env.sh"));
  ASSERT_TRUE(std::regex_search(env, m, std::regex("version=\"([0-9.]+)\"")));
  EXPECT_TRUE(absl::StrContains(ReadFile(Repo("images/postgres/Dockerfile")),
                                "ARG PATRONI_VERSION=" + m[1].str()))
      << "the image must run the Patroni version the tests run (hack/patroni-env.sh)";
  EXPECT_TRUE(absl::StrContains(ReadFile(Repo("images/postgres/Dockerfile")),
                                "src/patroni/role-callback.sh"));
  EXPECT_EQ(Last(ins, "ENTRYPOINT"), R"(["/opt/patroni/bin/patroni"])");
  ASSERT_FALSE(FromImages(ins).empty());
  EXPECT_TRUE(absl::StartsWith(FromImages(ins).back(), "debian:12")) << FromImages(ins).back();
}

TEST(ImagesTest, PostgresImageFitsThePodSpecTheOperatorBuilds) {
  const std::string names_h = Repo("src/controllers/postgrescluster/names.h");
  ASSERT_TRUE(std::filesystem::exists(names_h)) << names_h << " is missing";
  const std::string names = ReadFile(names_h);
  const auto ins = Instructions(Repo("images/postgres/Dockerfile"));
  std::smatch m;
  // The pod's securityContext runs as kPostgresUid: the image's user.
  ASSERT_TRUE(std::regex_search(names, m, std::regex(R"(kPostgresUid = ([0-9]+);)")));
  EXPECT_EQ(Last(ins, "USER"), m[1].str() + ":" + m[1].str());
  // The pod's command is `patroni <kConfigFile>`: patroni must be on the
  // PATH, and the image's own default argument is the same file.
  ASSERT_TRUE(std::regex_search(names, m, std::regex(R"re(kConfigFile\[\] = "([^"]+)")re")));
  EXPECT_EQ(Last(ins, "CMD"), "[\"" + m[1].str() + "\"]");
  EXPECT_TRUE(absl::StrContains(Last(ins, "ENV"), "PATH=/opt/patroni/bin:"));
  const std::string builders = ReadFile(Repo("src/controllers/postgrescluster/builders.cc"));
  EXPECT_TRUE(absl::StrContains(builders, R"({"command", Json::array({"patroni", kConfigFile})})"))
      << "the pod's command changed: check images/postgres/Dockerfile";
  // Its data and configuration folders exist for the mounts.
  ASSERT_TRUE(std::regex_search(names, m, std::regex(R"re(kDataMount\[\] = "([^"]+)")re")));
  EXPECT_TRUE(absl::StrContains(ReadFile(Repo("images/postgres/Dockerfile")), m[1].str()));
}

TEST(ImagesTest, DocsNameEveryDefaultImageTheCodeUses) {
  const std::string doc = ReadFile(Repo("docs/images.md"));
  // The operator's, from the Deployment.
  const Json dep = Find(LoadDocuments(Repo("deploy/quorum.yaml")), "Deployment", "quorum-operator");
  EXPECT_TRUE(absl::StrContains(
      doc, dep["spec"]["template"]["spec"]["containers"][0]["image"].get<std::string>()));
  // etcd's and PostgreSQL's, from the sources that define them.
  const std::regex image(R"re("((quay\.io|ghcr\.io)/[a-z0-9./-]+:[A-Za-z0-9.-]+)")re");
  for (const char* source : {"src/controllers/etcdcluster/names.h", "api/postgrescluster.cc"}) {
    if (!std::filesystem::exists(Repo(source))) continue;
    const std::string text = ReadFile(Repo(source));
    int found = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), image);
         it != std::sregex_iterator(); ++it, ++found) {
      EXPECT_TRUE(absl::StrContains(doc, (*it)[1].str()))
          << "docs/images.md does not name " << (*it)[1] << " (" << source << ")";
    }
    EXPECT_GT(found, 0) << source;
  }
}

}  // namespace
}  // namespace quorum::deploytest
