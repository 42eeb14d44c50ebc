#include "api/cron.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace quorum::api {
namespace {

constexpr int kSearchDays = 8 * 366;  // covers a leap day on a given weekday

struct FieldRange {
  const char* name;
  int min;
  int max;
  // Lower-case names of the values from `min` on (months, weekdays), as
  // Kubernetes CronJob accepts them in any case; null: numbers only.
  const char* const* names = nullptr;
  int name_count = 0;
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* kWeekdayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldRange kFields[] = {{"minute", 0, 59},
                                  {"hour", 0, 23},
                                  {"day of month", 1, 31},
                                  {"month", 1, 12, kMonthNames, 12},
                                  {"day of week", 0, 7, kWeekdayNames, 7}};

absl::Status Bad(const FieldRange& f, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(f.name, ": ", what));
}

absl::StatusOr<int> Number(const FieldRange& f, absl::string_view s) {
  const std::string lower = absl::AsciiStrToLower(s);
  for (int i = 0; i < f.name_count; ++i) {
    if (lower == f.names[i]) return f.min + i;
  }
  int v = 0;
  if (s.empty() || !absl::SimpleAtoi(s, &v) || s.front() == '+' || s.front() == '-') {
    return Bad(f, absl::StrCat("\"", s, "\" is not a number"));
  }
  if (v < f.min || v > f.max) {
    return Bad(f, absl::StrCat(v, " is out of range ", f.min, "-", f.max));
  }
  return v;
}

// One list element: `*`, `n`, `a-b`, each with an optional `/step`; sets the
// bits of the values it selects.
absl::Status ParseElement(const FieldRange& f, absl::string_view e, std::vector<bool>& bits) {
  absl::string_view range = e;
  int step = 1;
  if (size_t slash = e.find('/'); slash != absl::string_view::npos) {
    range = e.substr(0, slash);
    absl::string_view s = e.substr(slash + 1);
    if (s.empty() || !absl::SimpleAtoi(s, &step) || step < 1 || s.front() == '+' ||
        step > f.max - f.min + 1) {
      return Bad(f, absl::StrCat("step \"", s, "\" must be 1-", f.max - f.min + 1));
    }
  }
  int lo = f.min, hi = f.max;
  if (range != "*" && range != "?") {  // "?" is "*", as Kubernetes CronJob reads it
    const size_t dash = range.find('-');
    absl::StatusOr<int> a = Number(f, range.substr(0, dash));
    if (!a.ok()) return a.status();
    lo = hi = *a;
    if (dash != absl::string_view::npos) {
      absl::StatusOr<int> b = Number(f, range.substr(dash + 1));
      if (!b.ok()) return b.status();
      hi = *b;
      if (hi < lo) return Bad(f, absl::StrCat("range \"", range, "\" runs backwards"));
    } else if (step > 1) {
      hi = f.max;  // "a/n": from a to the end
    }
  }
  for (int v = lo; v <= hi; v += step) bits[v] = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<bool>> ParseField(const FieldRange& f, absl::string_view field) {
  std::vector<bool> bits(f.max + 1, false);
  for (absl::string_view e : absl::StrSplit(field, ',')) {
    if (e.empty()) return Bad(f, absl::StrCat("empty list element in \"", field, "\""));
    if (absl::Status s = ParseElement(f, e, bits); !s.ok()) return s;
  }
  return bits;
}

template <size_t N>
void Copy(const std::vector<bool>& from, std::bitset<N>& to) {
  for (size_t i = 0; i < N && i < from.size(); ++i) to[i] = from[i];
}

int Weekday(const absl::CivilDay& d) {
  switch (absl::GetWeekday(d)) {
    case absl::Weekday::sunday:
      return 0;
    case absl::Weekday::monday:
      return 1;
    case absl::Weekday::tuesday:
      return 2;
    case absl::Weekday::wednesday:
      return 3;
    case absl::Weekday::thursday:
      return 4;
    case absl::Weekday::friday:
      return 5;
    case absl::Weekday::saturday:
      return 6;
  }
  return 0;
}

}  // namespace

absl::StatusOr<CronSchedule> CronSchedule::Parse(absl::string_view spec) {
  if (absl::string_view macro = absl::StripAsciiWhitespace(spec); absl::StartsWith(macro, "@")) {
    static constexpr std::pair<absl::string_view, absl::string_view> kMacros[] = {
        {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
        {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
        {"@hourly", "0 * * * *"}};
    for (const auto& [name, fields] : kMacros) {
      if (macro == name) return Parse(fields);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", macro,
        "\" is not a cron macro; use @yearly, @annually, @monthly, @weekly, @daily, @midnight, "
        "@hourly or five fields"));
  }
  const std::vector<absl::string_view> fields =
      absl::StrSplit(spec, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "want 5 fields (minute hour day-of-month month day-of-week), got ", fields.size()));
  }
  std::vector<std::vector<bool>> bits;
  for (size_t i = 0; i < 5; ++i) {
    absl::StatusOr<std::vector<bool>> b = ParseField(kFields[i], fields[i]);
    if (!b.ok()) return b.status();
    bits.push_back(*std::move(b));
  }
  CronSchedule c;
  Copy(bits[0], c.minutes_);
  Copy(bits[1], c.hours_);
  Copy(bits[2], c.days_);
  Copy(bits[3], c.months_);
  Copy(bits[4], c.weekdays_);
  if (bits[4][7]) c.weekdays_[0] = true;  // 7 is Sunday too
  c.any_day_ = fields[2] == "*" || fields[2] == "?";
  c.any_weekday_ = fields[4] == "*" || fields[4] == "?";
  if (c.Next(absl::UnixEpoch()) == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", spec, "\" never fires (no such day in the months it names)"));
  }
  return c;
}

bool CronSchedule::DayMatches(const absl::CivilDay& day) const {
  if (!months_[day.month()]) return false;
  const bool dom = days_[day.day()];
  const bool dow = weekdays_[Weekday(day)];
  if (any_day_ || any_weekday_) return dom && dow;
  return dom || dow;
}

absl::Time CronSchedule::Next(absl::Time t) const {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::CivilMinute from = absl::ToCivilMinute(t, utc) + 1;
  absl::CivilDay day(from);
  for (int i = 0; i < kSearchDays; ++i, ++day) {
    if (!DayMatches(day)) continue;
    const int first = i == 0 ? from.hour() * 60 + from.minute() : 0;
    for (int m = first; m < 24 * 60; ++m) {
      if (hours_[m / 60] && minutes_[m % 60]) {
        return absl::FromCivil(absl::CivilMinute(day) + m, utc);
      }
    }
  }
  return absl::InfiniteFuture();
}

absl::Time CronSchedule::Prev(absl::Time t) const {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::CivilMinute to = absl::ToCivilMinute(t, utc);
  absl::CivilDay day(to);
  for (int i = 0; i < kSearchDays; ++i, --day) {
    if (!DayMatches(day)) continue;
    const int last = i == 0 ? to.hour() * 60 + to.minute() : 24 * 60 - 1;
    for (int m = last; m >= 0; --m) {
      if (hours_[m / 60] && minutes_[m % 60]) {
        return absl::FromCivil(absl::CivilMinute(day) + m, utc);
      }
    }
  }
  return absl::InfinitePast();
}

}  // namespace quorum::api
