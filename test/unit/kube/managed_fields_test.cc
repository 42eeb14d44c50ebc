// WithoutManagedFields: only object.metadata.managedFields of a watch event
// goes, with one comma; everything else, and any line it does not
// understand, stays byte for byte.
#include "src/kube/managed_fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/kube/watch.h"

namespace quorum::kube {
namespace {

std::string Cut(std::string_view line) {
  std::string scratch;
  return std::string(WithoutManagedFields(line, scratch));
}

TEST(WithoutManagedFieldsTest, CutsOnlyTheObjectsMetadataMember) {
  struct Case {
    const char* name;
    std::string line;
    std::string want;
  };
  const std::string mf = R"("managedFields":[{"manager":"m","fieldsV1":{"f:a":{},"f:b\"]}":{}}}])";
  const std::vector<Case> cases = {
      {"last member (the API server's order)",
       R"({"type":"ADDED","object":{"metadata":{"name":"a",)" + mf + R"(},"spec":{}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"},"spec":{}}})"},
      {"first member", R"({"type":"ADDED","object":{"metadata":{)" + mf + R"(,"name":"a"}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"},
      {"only member", R"({"type":"ADDED","object":{"metadata":{)" + mf + R"(}}})",
       R"({"type":"ADDED","object":{"metadata":{}}})"},
      {"spaces around", R"({"type":"ADDED","object":{"metadata":{"name":"a" , )" + mf + R"( }}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"  }}})"},
      {"a key of that name in data stays",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"},"data":{"managedFields":"x"}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"},"data":{"managedFields":"x"}}})"},
      {"a nested metadata stays",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"},"spec":{"template":{"metadata":{)" +
           mf + R"(}}}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"a"},"spec":{"template":{"metadata":{)" +
           mf + R"(}}}}})"},
      {"the text inside a string stays",
       R"({"type":"ADDED","object":{"metadata":{"name":"\"managedFields\":[1]","x":1}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"\"managedFields\":[1]","x":1}}})"},
      {"a value, not a key, stays",
       R"({"type":"ADDED","object":{"metadata":{"name":"managedFields"}}})",
       R"({"type":"ADDED","object":{"metadata":{"name":"managedFields"}}})"},
      {"outside object (an ERROR's status) stays",
       R"({"type":"ERROR","status":{"metadata":{)" + mf + R"(}}})",
       R"({"type":"ERROR","status":{"metadata":{)" + mf + R"(}}})"},
      {"truncated line stays", R"({"type":"ADDED","object":{"metadata":{"managedFields":[{"a":)",
       R"({"type":"ADDED","object":{"metadata":{"managedFields":[{"a":)"},
      {"unterminated string stays", R"({"type":"ADDED","object":{"metadata":{"name":"a)",
       R"({"type":"ADDED","object":{"metadata":{"name":"a)"},
      {"not JSON stays", "]]]not json", "]]]not json"},
  };
  for (const Case& c : cases) EXPECT_EQ(Cut(c.line), c.want) << c.name;
}

TEST(WithoutManagedFieldsTest, ParsedEventsEqualTheFullEventLessManagedFields) {
  const std::string line =
      R"({"type":"MODIFIED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",)"
      R"("labels":{"app":"x"},"managedFields":[{"manager":"kubelet","operation":"Update",)"
      R"("fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{}}}}}}]},)"
      R"("status":{"phase":"Pending"}}})";
  absl::StatusOr<WatchEvent> full = ParseWatchEvent(line);
  absl::StatusOr<WatchEvent> cut = ParseWatchEvent(line, /*drop_managed_fields=*/true);
  ASSERT_TRUE(full.ok() && cut.ok());
  full->object["metadata"].erase("managedFields");
  EXPECT_EQ(cut->object, full->object);
  EXPECT_EQ(cut->type, WatchEventType::kModified);

  WatchDecoder decoder(/*drop_managed_fields=*/true);
  std::vector<nlohmann::json> seen;
  ASSERT_TRUE(decoder
                  .Feed(line + "\n" + line + "\n",
                        [&](WatchEvent ev) {
                          seen.push_back(ev.object);
                          return true;
                        })
                  .ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], full->object);
}

}  // namespace
}  // namespace quorum::kube
