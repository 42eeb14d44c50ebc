// Log lines carry the fields of the scopes around them (ScopedLogFields), as
// JSON members or as key=value after the message.
#include "src/base/logging.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace quorum {
namespace {

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string LogTwoLines() {
  testing::internal::CaptureStderr();
  {
    ScopedLogFields scope({{"controller", "etcdcluster"}, {"name", "kv \"1\""}});
    spdlog::info("step");
  }
  spdlog::info("outside");
  spdlog::default_logger()->flush();
  return testing::internal::GetCapturedStderr();
}

TEST(LoggingTest, JsonLinesCarryTheScopedFieldsAsMembers) {
  ASSERT_TRUE(SetupLogging("json", "info").ok());
  const std::vector<std::string> lines = Lines(LogTwoLines());
  ASSERT_EQ(lines.size(), 2u);
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["msg"], "step");
  EXPECT_EQ(first["controller"], "etcdcluster");
  EXPECT_EQ(first["name"], "kv \"1\"");
  const nlohmann::json second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["msg"], "outside");
  EXPECT_FALSE(second.contains("controller")) << "the scope ended";
}

TEST(LoggingTest, TextLinesCarryTheScopedFieldsAfterTheMessage) {
  ASSERT_TRUE(SetupLogging("text", "info").ok());
  const std::vector<std::string> lines = Lines(LogTwoLines());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("step controller=etcdcluster name=kv \"1\""), std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1].find("controller="), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace quorum
