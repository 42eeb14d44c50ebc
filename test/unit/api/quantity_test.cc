// Kubernetes quantity parsing: suffixes, exponents, rounding, limits.
#include "api/quantity.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"

namespace quorum::api {
namespace {

constexpr __int128 kNano = Quantity::kNano;
constexpr __int128 kGi = __int128{1} << 30;

__int128 Nano(const char* text) {
  absl::StatusOr<Quantity> q = ParseQuantity(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? q->nano() : -1;
}

TEST(QuantityTest, ParsesEverySuffix) {
  struct Case {
    const char* text;
    __int128 nano;
  } cases[] = {
      {"0", 0},
      {"4Gi", 4 * kGi * kNano},
      {"1Ki", 1024 * kNano},
      {"1Mi", (__int128{1} << 20) * kNano},
      {"1Ti", (__int128{1} << 40) * kNano},
      {"1Pi", (__int128{1} << 50) * kNano},
      {"1Ei", (__int128{1} << 60) * kNano},
      {"1n", 1},
      {"1u", 1000},
      {"500m", 500'000'000},
      {"1k", 1000 * kNano},
      {"10M", 10'000'000 * kNano},
      {"10G", __int128{10'000'000'000} * kNano},
      {"1T", __int128{1'000'000'000'000} * kNano},
      {"1P", __int128{1'000'000'000'000'000} * kNano},
      {"1E", __int128{1'000'000'000'000'000'000} * kNano},
      {"1.5Gi", 1'610'612'736 * kNano},
      {"1e3", 1000 * kNano},
      {"1E3", 1000 * kNano},
      {"2.5e-3", 2'500'000},
      {"+5", 5 * kNano},
      {"-5Mi", -5 * (__int128{1} << 20) * kNano},
      {".5", 500'000'000},
      {"5.", 5 * kNano},
      {"007", 7 * kNano},
      {"1.000000000000000000000", kNano},  // trailing zeros are not significant
  };
  for (const Case& c : cases) EXPECT_TRUE(Nano(c.text) == c.nano) << c.text;
}

TEST(QuantityTest, RoundsFinerThanNanoUp) {
  EXPECT_TRUE(Nano("0.5n") == 1);
  EXPECT_TRUE(Nano("1e-12") == 1);
  EXPECT_TRUE(Nano("0.0000000001Ki") == 103);  // 102.4n
  EXPECT_TRUE(Nano("-0.5n") == -1);
}

TEST(QuantityTest, RefusesMalformedText) {
  for (const char* text : {"", "Gi", "5Xi", "5 Gi", "abc", "1e", "1..2", "--1", "+", ".", "1ee3",
                           "1e+", "1Gib", "1i", "1e12345", "123456789012345678901"}) {
    absl::StatusOr<Quantity> q = ParseQuantity(text);
    EXPECT_TRUE(absl::IsInvalidArgument(q.status())) << "\"" << text << "\": " << q.status();
  }
  EXPECT_TRUE(absl::StrContains(ParseQuantity("5Xi").status().message(), "unknown suffix"));
}

TEST(QuantityTest, RefusesValuesAboveInt64) {
  EXPECT_TRUE(ParseQuantity("7Ei").ok());
  EXPECT_TRUE(ParseQuantity("9223372036854775807").ok());
  for (const char* text : {"8Ei", "9223372036854775808", "1e19", "10E"}) {
    EXPECT_TRUE(absl::IsOutOfRange(ParseQuantity(text).status())) << text;
  }
}

TEST(QuantityTest, ComparesAcrossSuffixes) {
  EXPECT_GT(*ParseQuantity("1Gi"), *ParseQuantity("1G"));
  EXPECT_EQ(*ParseQuantity("1024Mi"), *ParseQuantity("1Gi"));
  EXPECT_EQ(*ParseQuantity("1000m"), *ParseQuantity("1"));
  EXPECT_LT(*ParseQuantity("9999Mi"), *ParseQuantity("10Gi"));
  EXPECT_LT(*ParseQuantity("-1"), *ParseQuantity("0"));
}

TEST(QuantityTest, ReadsStringsAndIntegersFromJson) {
  EXPECT_EQ(*QuantityFromJson(nlohmann::json("2Gi")), *ParseQuantity("2Gi"));
  EXPECT_EQ(*QuantityFromJson(nlohmann::json(10737418240)), *ParseQuantity("10Gi"));
  EXPECT_EQ(*QuantityFromJson(nlohmann::json(uint64_t{5})), Quantity::FromInt(5));
  EXPECT_TRUE(absl::IsInvalidArgument(QuantityFromJson(nlohmann::json(1.5)).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(QuantityFromJson(nlohmann::json(true)).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(QuantityFromJson(nlohmann::json::object()).status()));
  EXPECT_TRUE(absl::IsOutOfRange(QuantityFromJson(nlohmann::json(UINT64_MAX)).status()));
}

TEST(QuantityTest, RendersAndRoundsToUnits) {
  EXPECT_EQ(ParseQuantity("500m")->ToString(), "0.5");
  EXPECT_EQ(ParseQuantity("4Gi")->ToString(), "4294967296");
  EXPECT_EQ(ParseQuantity("-1.25")->ToString(), "-1.25");
  EXPECT_EQ(ParseQuantity("500m")->CeilUnits(), 1);
  EXPECT_EQ(ParseQuantity("-500m")->CeilUnits(), -1);
  EXPECT_EQ(ParseQuantity("3")->CeilUnits(), 3);
  EXPECT_TRUE(ParseQuantity("0Gi")->IsZero());
}

}  // namespace
}  // namespace quorum::api
