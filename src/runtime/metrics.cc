#include "src/runtime/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace quorum::runtime {
namespace {

std::string FormatValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return absl::StrCat(static_cast<int64_t>(v));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string Labels(const std::vector<std::string>& names, const LabelValues& values,
                   const std::string& extra = "") {
  std::string out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    absl::StrAppend(&out, out.empty() ? "" : ",", names[i], "=\"", EscapeLabelValue(values[i]),
                    "\"");
  }
  if (!extra.empty()) absl::StrAppend(&out, out.empty() ? "" : ",", extra);
  return out.empty() ? "" : absl::StrCat("{", out, "}");
}

void Header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

template <typename Map>
AtomicDouble& Find(absl::Mutex& mu, Map& series, const LabelValues& values) {
  absl::MutexLock lock(&mu);
  auto& slot = series[values];
  if (!slot) slot = std::make_unique<AtomicDouble>();
  return *slot;
}

}  // namespace

void AtomicDouble::Add(double v) {
  double cur = bits_.load(std::memory_order_relaxed);
  while (!bits_.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> labels)
    : name_(std::move(name)), help_(std::move(help)), labels_(std::move(labels)) {}

AtomicDouble& CounterFamily::With(const LabelValues& values) { return Find(mu_, series_, values); }

double CounterFamily::Value(const LabelValues& values) { return With(values).Get(); }

double CounterFamily::Total() const {
  absl::MutexLock lock(&mu_);
  double sum = 0;
  for (const auto& [values, v] : series_) sum += v->Get();
  return sum;
}

void CounterFamily::Render(std::string& out) const {
  Header(out, name_, help_, "counter");
  absl::MutexLock lock(&mu_);
  for (const auto& [values, v] : series_) {
    absl::StrAppend(&out, name_, Labels(labels_, values), " ", FormatValue(v->Get()), "\n");
  }
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> labels)
    : name_(std::move(name)), help_(std::move(help)), labels_(std::move(labels)) {}

AtomicDouble& GaugeFamily::With(const LabelValues& values) { return Find(mu_, series_, values); }

double GaugeFamily::Value(const LabelValues& values) { return With(values).Get(); }

void GaugeFamily::Render(std::string& out) const {
  Header(out, name_, help_, "gauge");
  absl::MutexLock lock(&mu_);
  for (const auto& [values, v] : series_) {
    absl::StrAppend(&out, name_, Labels(labels_, values), " ", FormatValue(v->Get()), "\n");
  }
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> labels, std::vector<double> bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      labels_(std::move(labels)),
      bounds_(std::move(bounds)) {}

std::vector<double> HistogramFamily::DefaultBounds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

HistogramFamily::Series& HistogramFamily::With(const LabelValues& values) {
  absl::MutexLock lock(&mu_);
  auto& slot = series_[values];
  if (!slot) slot = std::make_unique<Series>(bounds_.size());
  return *slot;
}

void HistogramFamily::Observe(const LabelValues& values, double v) {
  Series& s = With(values);
  const size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  if (i < bounds_.size()) s.buckets[i].fetch_add(1, std::memory_order_relaxed);
  s.count.fetch_add(1, std::memory_order_relaxed);
  s.sum.Add(v);
}

uint64_t HistogramFamily::Count(const LabelValues& values) { return With(values).count.load(); }

void HistogramFamily::Render(std::string& out) const {
  Header(out, name_, help_, "histogram");
  absl::MutexLock lock(&mu_);
  for (const auto& [values, s] : series_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < bounds_.size(); ++i) {
      cumulative += s->buckets[i].load(std::memory_order_relaxed);
      absl::StrAppend(&out, name_, "_bucket",
                      Labels(labels_, values, absl::StrCat("le=\"", FormatValue(bounds_[i]), "\"")),
                      " ", cumulative, "\n");
    }
    const uint64_t count = s->count.load(std::memory_order_relaxed);
    absl::StrAppend(&out, name_, "_bucket", Labels(labels_, values, "le=\"+Inf\""), " ", count,
                    "\n");
    absl::StrAppend(&out, name_, "_sum", Labels(labels_, values), " ", FormatValue(s->sum.Get()),
                    "\n");
    absl::StrAppend(&out, name_, "_count", Labels(labels_, values), " ", count, "\n");
  }
}

CollectorFamily::CollectorFamily(std::string name, std::string help, MetricType type,
                                 std::vector<std::string> labels, Collect collect)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      labels_(std::move(labels)),
      collect_(std::move(collect)) {}

void CollectorFamily::Render(std::string& out) const {
  Header(out, name_, help_, type_ == MetricType::kCounter ? "counter" : "gauge");
  std::vector<Sample> samples = collect_();
  std::sort(samples.begin(), samples.end(),
            [](const Sample& a, const Sample& b) { return a.labels < b.labels; });
  for (const Sample& s : samples) {
    absl::StrAppend(&out, name_, Labels(labels_, s.labels), " ", FormatValue(s.value), "\n");
  }
}

CounterFamily& Registry::Counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> labels) {
  absl::MutexLock lock(&mu_);
  auto& slot = families_[name];
  if (!slot) slot = std::make_unique<CounterFamily>(name, help, std::move(labels));
  return dynamic_cast<CounterFamily&>(*slot);
}

GaugeFamily& Registry::Gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> labels) {
  absl::MutexLock lock(&mu_);
  auto& slot = families_[name];
  if (!slot) slot = std::make_unique<GaugeFamily>(name, help, std::move(labels));
  return dynamic_cast<GaugeFamily&>(*slot);
}

HistogramFamily& Registry::Histogram(const std::string& name, const std::string& help,
                                     std::vector<std::string> labels, std::vector<double> bounds) {
  absl::MutexLock lock(&mu_);
  auto& slot = families_[name];
  if (!slot) {
    slot = std::make_unique<HistogramFamily>(name, help, std::move(labels), std::move(bounds));
  }
  return dynamic_cast<HistogramFamily&>(*slot);
}

CollectorFamily& Registry::Collector(const std::string& name, const std::string& help,
                                     MetricType type, std::vector<std::string> labels,
                                     CollectorFamily::Collect collect) {
  absl::MutexLock lock(&mu_);
  auto& slot = families_[name];
  if (!slot) {
    slot =
        std::make_unique<CollectorFamily>(name, help, type, std::move(labels), std::move(collect));
  }
  return dynamic_cast<CollectorFamily&>(*slot);
}

std::string Registry::Render() const {
  // Families are never removed, so the pointers outlive the lock; rendering
  // outside it keeps a collector that reads other locked state (the cache)
  // from ever waiting on the registry, or making it wait.
  std::vector<const Family*> families;
  {
    absl::MutexLock lock(&mu_);
    families.reserve(families_.size());
    for (const auto& [name, family] : families_) families.push_back(family.get());
  }
  std::string out;
  for (const Family* family : families) family->Render(out);
  return out;
}

}  // namespace quorum::runtime
