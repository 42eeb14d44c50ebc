// A small Prometheus metrics registry: counters, gauges and histograms with
// label values, rendered in the Prometheus text exposition format (0.0.4).
// Metric families are created once (usually at startup) and then updated
// from any thread; Render() may run concurrently with updates.
// Thread-safety: every method of every class here is thread-safe.
#ifndef QUORUM_SRC_RUNTIME_METRICS_H_
#define QUORUM_SRC_RUNTIME_METRICS_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace quorum::runtime {

using LabelValues = std::vector<std::string>;

// A double that can be added to atomically.
class AtomicDouble {
 public:
  void Add(double v);
  void Set(double v) { bits_.store(v, std::memory_order_relaxed); }
  double Get() const { return bits_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> bits_{0};
};

class Family {
 public:
  virtual ~Family() = default;
  virtual void Render(std::string& out) const = 0;
};

// Counter: only goes up. With(labels) returns a stable reference for the
// label values (created on first use); keep it to avoid the lookup.
class CounterFamily : public Family {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> labels);
  AtomicDouble& With(const LabelValues& values);
  void Inc(const LabelValues& values = {}, double v = 1) { With(values).Add(v); }
  double Value(const LabelValues& values = {});
  // The sum over every series (all label values seen so far).
  double Total() const;
  void Render(std::string& out) const override;

 private:
  const std::string name_, help_;
  const std::vector<std::string> labels_;
  mutable absl::Mutex mu_;
  std::map<LabelValues, std::unique_ptr<AtomicDouble>> series_ ABSL_GUARDED_BY(mu_);
};

// Gauge: goes up and down.
class GaugeFamily : public Family {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> labels);
  AtomicDouble& With(const LabelValues& values);
  void Set(const LabelValues& values, double v) { With(values).Set(v); }
  double Value(const LabelValues& values = {});
  void Render(std::string& out) const override;

 private:
  const std::string name_, help_;
  const std::vector<std::string> labels_;
  mutable absl::Mutex mu_;
  std::map<LabelValues, std::unique_ptr<AtomicDouble>> series_ ABSL_GUARDED_BY(mu_);
};

// Histogram with fixed upper bounds (seconds, usually).
class HistogramFamily : public Family {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> labels,
                  std::vector<double> bounds);
  void Observe(const LabelValues& values, double v);
  // Number of observations for the label values (for tests).
  uint64_t Count(const LabelValues& values);
  void Render(std::string& out) const override;

  // 1 ms .. ~60 s, roughly doubling: suits reconciles and API requests.
  static std::vector<double> DefaultBounds();

 private:
  struct Series {
    explicit Series(size_t n) : buckets(n) {}
    std::vector<std::atomic<uint64_t>> buckets;  // non-cumulative
    std::atomic<uint64_t> count{0};
    AtomicDouble sum;
  };
  Series& With(const LabelValues& values);

  const std::string name_, help_;
  const std::vector<std::string> labels_;
  const std::vector<double> bounds_;
  mutable absl::Mutex mu_;
  std::map<LabelValues, std::unique_ptr<Series>> series_ ABSL_GUARDED_BY(mu_);
};

// One series of a CollectorFamily: its label values, in the family's label
// order, and its value.
struct Sample {
  LabelValues labels;
  double value = 0;
};

// What a CollectorFamily's series are, for the # TYPE line.
enum class MetricType { kCounter, kGauge };

// A family whose series are computed at every Render by `collect` (a
// Prometheus client's custom collector): for state the process already holds,
// such as objects in the cache, so that a series exists exactly as long as
// what it describes and nothing has to be kept up to date in between.
// `collect` runs on the rendering thread, possibly on several at once; it
// must be thread-safe and must not block on I/O. Samples are rendered sorted by label values; two
// with the same label values are the caller's bug (both are rendered).
class CollectorFamily : public Family {
 public:
  using Collect = std::function<std::vector<Sample>()>;
  CollectorFamily(std::string name, std::string help, MetricType type,
                  std::vector<std::string> labels, Collect collect);
  void Render(std::string& out) const override;

 private:
  const std::string name_, help_;
  const MetricType type_;
  const std::vector<std::string> labels_;
  const Collect collect_;
};

// Owns metric families and renders them all. Asking twice for the same name
// returns the same family (the help and labels of the first call win).
class Registry {
 public:
  CounterFamily& Counter(const std::string& name, const std::string& help,
                         std::vector<std::string> labels = {});
  GaugeFamily& Gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> labels = {});
  HistogramFamily& Histogram(const std::string& name, const std::string& help,
                             std::vector<std::string> labels = {},
                             std::vector<double> bounds = HistogramFamily::DefaultBounds());
  CollectorFamily& Collector(const std::string& name, const std::string& help, MetricType type,
                             std::vector<std::string> labels, CollectorFamily::Collect collect);
  // Renders every family; collectors run outside the registry's lock.
  std::string Render() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Family>> families_ ABSL_GUARDED_BY(mu_);
};

// Escapes a label value for the text format (backslash, quote, newline).
std::string EscapeLabelValue(const std::string& v);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_METRICS_H_
