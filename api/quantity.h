// Kubernetes resource quantities ("10Gi", "500m", "1.5e3"): parsing and
// comparison, exactly enough for admission rules such as "a PVC cannot
// shrink". The grammar is apimachinery's resource.Quantity:
//
//   quantity ::= [+-] number suffix
//   number   ::= digits | digits "." digits | digits "." | "." digits
//   suffix   ::= "" | Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | k | M | G | T | P | E
//              | ("e" | "E") [+-] digits
//
// Values are held exactly in units of 10^-9 (nano); finer fractions round up
// (away from zero), as Kubernetes does. Magnitudes above 2^63-1 are refused
// rather than capped.
//
// Thread-safety: value type; functions are pure.
#ifndef QUORUM_API_QUANTITY_H_
#define QUORUM_API_QUANTITY_H_

#include <compare>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace quorum::api {

class Quantity {
 public:
  Quantity() = default;
  static Quantity FromNano(__int128 nano) { return Quantity(nano); }
  static Quantity FromInt(int64_t units) { return Quantity(static_cast<__int128>(units) * kNano); }

  __int128 nano() const { return nano_; }
  // The value in whole units, rounded up (away from zero).
  int64_t CeilUnits() const;
  bool IsZero() const { return nano_ == 0; }
  bool IsNegative() const { return nano_ < 0; }
  // A plain decimal rendering (e.g. "4294967296", "0.5"), for messages.
  std::string ToString() const;

  friend auto operator<=>(const Quantity&, const Quantity&) = default;

  static constexpr __int128 kNano = 1'000'000'000;

 private:
  explicit Quantity(__int128 nano) : nano_(nano) {}
  __int128 nano_ = 0;
};

// Errors: InvalidArgument naming what is wrong (empty, bad number, unknown
// suffix, more than 20 significant digits); OutOfRange above 2^63-1.
absl::StatusOr<Quantity> ParseQuantity(std::string_view text);

// A quantity as JSON carries it (CRDs declare quantities int-or-string): a
// string is parsed, an integer taken as is. Errors: as ParseQuantity, and
// InvalidArgument for any other JSON type.
absl::StatusOr<Quantity> QuantityFromJson(const nlohmann::json& value);

}  // namespace quorum::api

#endif  // QUORUM_API_QUANTITY_H_
