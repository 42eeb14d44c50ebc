#include "api/quantity.h"

#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::api {
namespace {

using u128 = unsigned __int128;

constexpr __int128 kMaxUnits = std::numeric_limits<int64_t>::max();
constexpr __int128 kMaxNano = kMaxUnits * Quantity::kNano;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Suffix → (power of ten, power of 1024). False when unknown.
bool SuffixScale(std::string_view s, int& pow10, int& pow1024) {
  pow10 = 0;
  pow1024 = 0;
  if (s.empty()) return true;
  if (s.size() == 2 && s[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    const size_t i = kBinary.find(s[0]);
    if (i == std::string_view::npos) return false;
    pow1024 = static_cast<int>(i) + 1;
    return true;
  }
  if (s.size() != 1) return false;
  switch (s[0]) {
    case 'n':
      pow10 = -9;
      return true;
    case 'u':
      pow10 = -6;
      return true;
    case 'm':
      pow10 = -3;
      return true;
    case 'k':
      pow10 = 3;
      return true;
    case 'M':
      pow10 = 6;
      return true;
    case 'G':
      pow10 = 9;
      return true;
    case 'T':
      pow10 = 12;
      return true;
    case 'P':
      pow10 = 15;
      return true;
    case 'E':
      pow10 = 18;
      return true;
    default:
      return false;
  }
}

absl::Status Invalid(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid quantity \"", Absl(text), "\": ", Absl(why), " (examples: 4Gi, 500Mi, 10G, 1.5e9)"));
}

}  // namespace

int64_t Quantity::CeilUnits() const {
  __int128 q = nano_ / kNano;
  if (nano_ % kNano != 0) q += nano_ > 0 ? 1 : -1;
  return static_cast<int64_t>(q);
}

std::string Quantity::ToString() const {
  u128 mag = nano_ < 0 ? static_cast<u128>(-nano_) : static_cast<u128>(nano_);
  u128 whole = mag / static_cast<u128>(kNano);
  u128 frac = mag % static_cast<u128>(kNano);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(whole % 10)));
    whole /= 10;
  } while (whole != 0);
  std::string out = nano_ < 0 ? "-" + digits : digits;
  if (frac != 0) {
    std::string f(9, '0');
    for (int i = 8; i >= 0; --i) {
      f[i] = static_cast<char>('0' + static_cast<int>(frac % 10));
      frac /= 10;
    }
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

absl::StatusOr<Quantity> ParseQuantity(std::string_view text) {
  std::string_view s = text;
  if (s.empty()) return Invalid(text, "empty");
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  std::string_view int_part = s.substr(0, i);
  std::string_view frac_part;
  if (i < s.size() && s[i] == '.') {
    const size_t start = ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    frac_part = s.substr(start, i - start);
  }
  if (int_part.empty() && frac_part.empty()) return Invalid(text, "no number");
  std::string_view suffix = s.substr(i);

  int pow10 = 0, pow1024 = 0;
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') && suffix != "Ei") {
    std::string_view e = suffix.substr(1);
    bool e_negative = false;
    if (e[0] == '+' || e[0] == '-') {
      e_negative = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty() || e.size() > 4) return Invalid(text, "bad exponent");
    int value = 0;
    for (char c : e) {
      if (!IsDigit(c)) return Invalid(text, "bad exponent");
      value = value * 10 + (c - '0');
    }
    pow10 = e_negative ? -value : value;
  } else if (!SuffixScale(suffix, pow10, pow1024)) {
    return Invalid(text, absl::StrCat("unknown suffix \"", Absl(suffix), "\""));
  }

  // Significant digits: strip trailing zeros of the fraction and leading
  // zeros of the whole, keeping the scale.
  while (!frac_part.empty() && frac_part.back() == '0') frac_part.remove_suffix(1);
  std::string digits = std::string(int_part) + std::string(frac_part);
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  if (digits.empty()) return Quantity();
  if (digits.size() > 20) return Invalid(text, "more than 20 significant digits");

  u128 n = 0;
  for (char c : digits) n = n * 10 + static_cast<u128>(c - '0');
  n <<= 10 * pow1024;  // at most 2^67 * 2^60 < 2^127
  const int p = pow10 + 9 - static_cast<int>(frac_part.size());
  if (p >= 0) {
    for (int k = 0; k < p; ++k) {
      if (n > static_cast<u128>(kMaxNano)) break;
      n *= 10;
    }
  } else {
    bool remainder = false;
    for (int k = 0; k < -p && n != 0; ++k) {
      remainder |= n % 10 != 0;
      n /= 10;
    }
    if (remainder) n += 1;
  }
  if (n > static_cast<u128>(kMaxNano)) {
    return absl::OutOfRangeError(
        absl::StrCat("quantity \"", Absl(text), "\" is larger than 2^63-1"));
  }
  const __int128 v = static_cast<__int128>(n);
  return Quantity::FromNano(negative ? -v : v);
}

absl::StatusOr<Quantity> QuantityFromJson(const nlohmann::json& value) {
  if (value.is_string()) return ParseQuantity(value.get_ref<const std::string&>());
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      const uint64_t u = value.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return absl::OutOfRangeError("quantity is larger than 2^63-1");
      }
      return Quantity::FromInt(static_cast<int64_t>(u));
    }
    return Quantity::FromInt(value.get<int64_t>());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a quantity must be a string such as \"4Gi\" or an integer, not ", value.type_name()));
}

}  // namespace quorum::api
