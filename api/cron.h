// Standard five-field cron schedules ("minute hour day-of-month month
// day-of-week"), as crontab(5) and Kubernetes CronJob read them, evaluated in
// UTC: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n` (and `a/n`, meaning
// a to the field's end), lists `x,y,...`; day-of-week 0-7 (0 and 7 are
// Sunday). When both day-of-month and day-of-week are restricted (neither is
// `*`), a day matches when either matches (Vixie cron's rule). The macros
// Kubernetes CronJob accepts stand for their five fields: @yearly and
// @annually (0 0 1 1 *), @monthly (0 0 1 * *), @weekly (0 0 * * 0), @daily and
// @midnight (0 0 * * *), @hourly (0 * * * *). Like Kubernetes CronJob (and
// the aenix operator, which validates with the same parser), month and
// weekday names (jan-dec, sun-sat, any case) stand for their numbers and `?`
// for `*`. @every is not accepted.
//
// Thread-safety: value type and pure functions.
#ifndef QUORUM_API_CRON_H_
#define QUORUM_API_CRON_H_

#include <bitset>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace quorum::api {

class CronSchedule {
 public:
  // InvalidArgument naming the bad field ("hour: 24 is out of range 0-23"),
  // or saying the schedule never fires (e.g. "0 0 30 2 *").
  static absl::StatusOr<CronSchedule> Parse(absl::string_view spec);

  // The first firing time strictly after `t` (whole minutes, UTC), or
  // absl::InfiniteFuture() when none comes within 8 years.
  absl::Time Next(absl::Time t) const;
  // The last firing time at or before `t`, or absl::InfinitePast() when none
  // came within the 8 years before it.
  absl::Time Prev(absl::Time t) const;

 private:
  bool DayMatches(const absl::CivilDay& day) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1-31
  std::bitset<13> months_;   // 1-12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool any_day_ = true;      // day-of-month was `*`
  bool any_weekday_ = true;  // day-of-week was `*`
};

}  // namespace quorum::api

#endif  // QUORUM_API_CRON_H_
