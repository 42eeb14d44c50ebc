// The deterministic YAML writer: block layout and string quoting.
#include "api/yaml_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::api {
namespace {

using Json = nlohmann::json;

TEST(YamlWriterTest, WritesBlockStyleWithIndentedSequences) {
  const Json doc = Json::parse(R"({
    "b": {"c": 1, "d": [{"x": true, "y": null}, "s", [], {}, [1, 2]]},
    "a": "plain", "e": {}, "f": -1.5})");
  EXPECT_EQ(ToYaml(doc),
            "a: plain\n"
            "b:\n"
            "  c: 1\n"
            "  d:\n"
            "    - x: true\n"
            "      \"y\": null\n"  // YAML 1.1 reads a plain y as true
            "    - s\n"
            "    - []\n"
            "    - {}\n"
            "    -\n"
            "      - 1\n"
            "      - 2\n"
            "e: {}\n"
            "f: -1.5\n");
}

TEST(YamlWriterTest, QuotesStringsYamlWouldReadAsSomethingElse) {
  for (const char* s : {"true", "False", "yes",        "off",  "null",     "~",    "",     "1000",
                        "1.5",  "0x1F",  "1e3",        "-",    "-x",       "a: b", "a #b", ":x",
                        "x:",   " lead", "trail ",     "[x]",  "{x}",      "a,b",  "*ref", "&a",
                        "!tag", "%x",    "@x",         "`x",   "'q",       "\"q",  "?",    "|",
                        ">",    "#",     "2024-01-01", ".inf", "tab\there"}) {
    EXPECT_FALSE(IsPlainYamlString(s)) << s;
    EXPECT_EQ(ToYaml(Json{{"k", s}}), "k: " + Json(s).dump() + "\n") << s;
  }
  for (const char* s : {"10Gi", "ReadWriteOnce", "etcd.aenix.io/v1alpha1", "a:b", "x-y", "4Gi",
                        "e3", "http://x", "It's fine.", "100m", "has spaces inside"}) {
    EXPECT_TRUE(IsPlainYamlString(s)) << s;
  }
}

TEST(YamlWriterTest, MultiLineStringsBecomeLiteralBlocks) {
  EXPECT_EQ(ToYaml(Json{{"d", "line one\n\n\tline two"}}), "d: |-\n  line one\n\n  \tline two\n");
  EXPECT_EQ(ToYaml(Json{{"d", "ends\n"}}), "d: |\n  ends\n");
  EXPECT_EQ(ToYaml(Json{{"s", Json::array({"a\nb"})}}), "s:\n  - |-\n    a\n    b\n");
  // Not safe as a literal: quoted with escapes instead.
  EXPECT_EQ(ToYaml(Json{{"d", "trailing \nspace"}}), "d: \"trailing \\nspace\"\n");
  EXPECT_EQ(ToYaml(Json{{"d", " indented\nfirst"}}), "d: \" indented\\nfirst\"\n");
  EXPECT_EQ(ToYaml(Json{{"d", "two\n\n"}}), "d: \"two\\n\\n\"\n");
}

TEST(YamlWriterTest, ScalarsAtTheTop) {
  EXPECT_EQ(ToYaml(Json(5)), "5\n");
  EXPECT_EQ(ToYaml(Json("true")), "\"true\"\n");
  EXPECT_EQ(ToYaml(Json::object()), "{}\n");
  EXPECT_EQ(ToYaml(Json("a\nb")), "|-\n  a\n  b\n");
}

}  // namespace
}  // namespace quorum::api
