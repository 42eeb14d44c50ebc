#include "src/base/logging.h"

#include <spdlog/formatter.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

namespace quorum {
namespace {

thread_local LogFields tls_fields;

// The text pattern, then " key=value" for each scoped field.
class TextFormatter : public spdlog::formatter {
 public:
  TextFormatter()
      : inner_(std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%fZ %^%-5l%$ %v",
                                                           spdlog::pattern_time_type::utc)) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    inner_->format(msg, dest);
    if (tls_fields.empty()) return;
    size_t end = dest.size();
    while (end > 0 && (dest[end - 1] == '\n' || dest[end - 1] == '\r')) --end;
    std::string tail(dest.data() + end, dest.size() - end);
    dest.resize(end);
    for (const auto& [k, v] : tls_fields) {
      const std::string field = " " + k + "=" + v;
      dest.append(field.data(), field.data() + field.size());
    }
    dest.append(tail.data(), tail.data() + tail.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<TextFormatter>();
  }

 private:
  std::unique_ptr<spdlog::formatter> inner_;
};

// {"ts":"...","level":"info","logger":"quorum","msg":"..."}
class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using namespace std::chrono;
    const auto t = msg.time;
    const auto secs = time_point_cast<seconds>(t);
    const auto micros = duration_cast<microseconds>(t - secs).count();
    const std::time_t tt = system_clock::to_time_t(secs);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char ts[64];
    std::snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long>(micros));
    const auto level = spdlog::level::to_string_view(msg.level);
    std::string line = "{\"ts\":\"";
    line += ts;
    line += "\",\"level\":\"";
    line.append(level.data(), level.size());
    line += "\",\"msg\":\"";
    line += JsonEscape(std::string_view(msg.payload.data(), msg.payload.size()));
    line += "\"";
    for (const auto& [k, v] : tls_fields) {
      line += ",\"" + JsonEscape(k) + "\":\"" + JsonEscape(v) + "\"";
    }
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

std::string JsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

ScopedLogFields::ScopedLogFields(LogFields fields) : previous_size_(tls_fields.size()) {
  for (auto& f : fields) tls_fields.push_back(std::move(f));
}

ScopedLogFields::~ScopedLogFields() { tls_fields.resize(previous_size_); }

const LogFields& CurrentLogFields() { return tls_fields; }

absl::Status SetupLogging(std::string_view format, std::string_view level) {
  const spdlog::level::level_enum lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(
        "--log-level: want trace, debug, info, warn or error, got \"" + std::string(level) + "\"");
  }
  auto logger =
      std::make_shared<spdlog::logger>("quorum", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (format == "json") {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else if (format == "text") {
    logger->set_formatter(std::make_unique<TextFormatter>());
  } else {
    return absl::InvalidArgumentError("--log-format: want text or json, got \"" +
                                      std::string(format) + "\"");
  }
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

}  // namespace quorum
