#include "src/runtime/packed_codec.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace quorum::runtime {
namespace {

// Stand-ins for packed objects of one kind: alike but for a name and a value.
std::string Object(int i) {
  return absl::StrCat(
      R"j({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"etcd-)j", i,
      R"j(","namespace":"db","labels":{"app.kubernetes.io/instance":"etcd-)j", i,
      R"j("}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"etcd",)j",
      R"j("image":"registry.k8s.io/etcd:3.6.16","args":["--name=$(POD)",)j",
      R"j("--data-dir=/var/lib/etcd","--initial-cluster-token=etcd-)j", i, R"j("]}]}}}})j");
}

std::string RoundTrip(const PackedCodec& codec, const std::string& encoded) {
  std::string scratch;
  std::optional<std::string_view> plain = codec.Decode(encoded, scratch);
  return plain ? std::string(*plain) : "<corrupt>";
}

TEST(PackedCodecTest, AlikeObjectsShrinkAgainstTheFirstAndRoundTrip) {
  PackedCodec codec;
  std::vector<std::string> encoded;
  for (int i = 0; i < 20; ++i) encoded.push_back(codec.Encode(Object(i)));
  EXPECT_EQ(codec.dictionary_bytes(), Object(0).size()) << "the first object is the dictionary";
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(RoundTrip(codec, encoded[i]), Object(i)) << i;
    EXPECT_LT(encoded[i].size() * 4, Object(i).size()) << i << ": alike objects shrink a lot";
  }
}

TEST(PackedCodecTest, SmallObjectsStayPlainUntilADictionaryExists) {
  PackedCodec codec;
  const std::string tiny = "{\"a\":1}";
  const std::string early = codec.Encode(tiny);
  EXPECT_EQ(codec.dictionary_bytes(), 0u) << "too small to be the dictionary";
  EXPECT_EQ(early.size(), tiny.size() + 1) << "kept plain, behind its tag";
  codec.Encode(Object(1));
  EXPECT_GT(codec.dictionary_bytes(), 0u);
  EXPECT_EQ(RoundTrip(codec, early), tiny) << "bytes encoded before the dictionary still decode";
  EXPECT_EQ(RoundTrip(codec, codec.Encode(tiny)), tiny);
}

TEST(PackedCodecTest, UnlikeAndIncompressibleObjectsRoundTrip) {
  PackedCodec codec;
  codec.Encode(Object(0));
  std::string noise;
  uint32_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 1103515245 + 12345;
    noise.push_back(static_cast<char>(x >> 24));
  }
  const std::string encoded = codec.Encode(noise);
  EXPECT_LE(encoded.size(), noise.size() + 1) << "never more than the tag over the plain bytes";
  EXPECT_EQ(RoundTrip(codec, encoded), noise);
  const std::string big(PackedCodec::kMaxDictionary + 1, 'x');
  PackedCodec fresh;
  EXPECT_EQ(RoundTrip(fresh, fresh.Encode(big)), big);
  EXPECT_EQ(fresh.dictionary_bytes(), 0u) << "too large to be the dictionary";
}

TEST(PackedCodecTest, WithoutADictionaryObjectsStayPlainAndNoCopyIsKept) {
  PackedCodec codec(/*use_dictionary=*/false);
  for (int i = 0; i < 3; ++i) {
    const std::string encoded = codec.Encode(Object(i));
    EXPECT_EQ(encoded.size(), Object(i).size() + 1) << i;
    EXPECT_EQ(RoundTrip(codec, encoded), Object(i)) << i;
  }
  EXPECT_EQ(codec.dictionary_bytes(), 0u);
}

TEST(PackedCodecTest, CorruptBytesAreRefused) {
  PackedCodec codec;
  codec.Encode(Object(0));
  std::string scratch;
  EXPECT_FALSE(codec.Decode("", scratch).has_value());
  EXPECT_FALSE(codec.Decode("q123", scratch).has_value()) << "unknown tag";
  EXPECT_FALSE(codec.Decode("z-not-a-frame", scratch).has_value());
  PackedCodec without_dictionary;
  EXPECT_FALSE(without_dictionary.Decode(codec.Encode(Object(1)), scratch).has_value());
}

}  // namespace
}  // namespace quorum::runtime
