// The one translation unit that includes <httplib.h>.
#include "src/runtime/http_server.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "src/base/clock.h"
#include "src/runtime/admission.h"
#include "src/runtime/metrics.h"
#include "src/runtime/openssl_ptr.h"

namespace quorum::runtime {
namespace {

constexpr size_t kMaxBody = 16 << 20;  // the API server sends at most a few MB
// httplib's Stop() waits for every idle keep-alive connection to time out, so
// a short idle timeout keeps shutdown quick. Clients (the API server, Go's
// transport) retry a request on a connection the server closed while idle.
constexpr time_t kKeepAliveSeconds = 1;

// ------------------------------------------------------------------ runner

// Owns an httplib server and the thread that serves it.
class Runner {
 public:
  ~Runner() { Stop(); }

  // `threads` serve requests (httplib's default is at least 8 per server,
  // mostly idle; each is a stack and a wakeup).
  absl::Status Start(std::unique_ptr<httplib::Server> server, const std::string& host, int port,
                     size_t threads) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (server_ != nullptr) return absl::FailedPreconditionError("server already started");
    server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // Only SO_REUSEADDR: httplib's default SO_REUSEPORT would let a second
    // server silently share a port that is already taken.
    server->set_socket_options([](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    server->set_payload_max_length(kMaxBody);
    server->set_keep_alive_timeout(kKeepAliveSeconds);
    const int bound =
        port == 0 ? server->bind_to_any_port(host) : (server->bind_to_port(host, port) ? port : -1);
    if (bound <= 0) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port));
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    httplib::Server* s = server.get();
    thread_ = std::thread([s, done] {
      s->listen_after_bind();
      done->store(true);
    });
    // stop() is a no-op until the accept loop runs; wait for it so that a
    // Stop() right after Start() cannot hang.
    while (!s->is_running() && !done->load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server_ = std::move(server);
    port_ = bound;
    return absl::OkStatus();
  }

  int port() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return port_;
  }

  void Stop() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (server_ == nullptr) return;
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    port_ = 0;
  }

 private:
  mutable absl::Mutex mu_;
  std::unique_ptr<httplib::Server> server_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  int port_ ABSL_GUARDED_BY(mu_) = 0;
};

void PlainText(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "text/plain; charset=utf-8");
}

void OnException(const httplib::Request&, httplib::Response& res, std::exception_ptr) {
  PlainText(res, 500, "internal server error\n");
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read ", path));
  return out.str();
}

}  // namespace

// ------------------------------------------------------------ ProbeServer

class ProbeServer::Impl {
 public:
  using Check = std::pair<std::string, std::function<absl::Status()>>;

  explicit Impl(Options options) : options_(std::move(options)) {}

  void Add(bool ready, std::string name, std::function<absl::Status()> check) {
    absl::MutexLock lock(&mu_);
    (ready ? ready_ : health_).emplace_back(std::move(name), std::move(check));
  }

  absl::Status Start() {
    auto server = std::make_unique<httplib::Server>();
    server->set_exception_handler(OnException);
    server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      if (options_.metrics == nullptr) return PlainText(res, 404, "no metrics registry\n");
      res.set_content(options_.metrics->Render(), "text/plain; version=0.0.4");
    });
    server->Get("/healthz", [this](const httplib::Request& req, httplib::Response& res) {
      Probe("healthz", /*ready=*/false, req, res);
    });
    server->Get("/readyz", [this](const httplib::Request& req, httplib::Response& res) {
      Probe("readyz", /*ready=*/true, req, res);
    });
    // One request per connection: httplib waits on an idle keep-alive
    // connection by polling every ~10 ms, so a scraper that keeps its
    // connection open would wake the process 100 times a second. Probes and
    // scrapes are rare; a new connection each costs less.
    server->set_keep_alive_max_count(1);
    // Probes and scrapes are tiny and rare: two threads (one can sit in a
    // slow connection while the other answers).
    return runner_.Start(std::move(server), options_.bind_address, options_.port, 2);
  }

  Runner& runner() { return runner_; }

 private:
  // Kubernetes' format: "[+]name ok" / "[-]name failed: why" lines, then a
  // verdict; a bare "ok" when everything passes and ?verbose is absent.
  void Probe(const char* what, bool ready, const httplib::Request& req, httplib::Response& res) {
    std::vector<Check> checks;
    {
      absl::MutexLock lock(&mu_);
      checks = ready ? ready_ : health_;
    }
    const bool verbose = req.has_param("verbose");
    std::string body;
    bool failed = false;
    for (const auto& [name, check] : checks) {
      absl::Status s;
      try {
        s = check();
      } catch (const std::exception& e) {
        s = absl::InternalError(absl::StrCat("check threw: ", e.what()));
      } catch (...) {
        s = absl::InternalError("check threw");
      }
      if (!s.ok()) {
        failed = true;
        absl::StrAppend(&body, "[-]", name, " failed: ", s.message(), "\n");
      } else if (verbose) {
        absl::StrAppend(&body, "[+]", name, " ok\n");
      }
    }
    if (!failed && !verbose) return PlainText(res, 200, "ok");
    absl::StrAppend(&body, what, failed ? " check failed\n" : " check passed\n");
    PlainText(res, failed ? 500 : 200, body);
  }

  const Options options_;
  absl::Mutex mu_;
  std::vector<Check> health_ ABSL_GUARDED_BY(mu_);
  std::vector<Check> ready_ ABSL_GUARDED_BY(mu_);
  Runner runner_;
};

ProbeServer::ProbeServer(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
ProbeServer::~ProbeServer() { Stop(); }
void ProbeServer::AddHealthCheck(std::string name, std::function<absl::Status()> check) {
  impl_->Add(false, std::move(name), std::move(check));
}
void ProbeServer::AddReadyCheck(std::string name, std::function<absl::Status()> check) {
  impl_->Add(true, std::move(name), std::move(check));
}
absl::Status ProbeServer::Start() { return impl_->Start(); }
int ProbeServer::port() const { return impl_->runner().port(); }
void ProbeServer::Stop() { impl_->runner().Stop(); }

// ------------------------------------------------------ certificate reload

namespace {

using openssl::BioPtr;
using openssl::ChainPtr;
using openssl::KeyPtr;
using openssl::X509Ptr;

int NoPassword(char*, int, int, void*) { return -1; }

// A parsed certificate (leaf plus any intermediates) and its key.
struct ServingPair {
  std::string cert_pem, key_pem;  // as read, to notice changes
  X509Ptr leaf;
  ChainPtr chain;
  KeyPtr key;
};

absl::StatusOr<ServingPair> ParsePair(std::string cert_pem, std::string key_pem,
                                      const std::string& cert_file, const std::string& key_file) {
  ServingPair p;
  p.chain.reset(sk_X509_new_null());
  BioPtr certs(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  while (certs) {
    X509* x = PEM_read_bio_X509(certs.get(), nullptr, NoPassword, nullptr);
    if (x == nullptr) break;
    if (!p.leaf) {
      p.leaf.reset(x);
    } else {
      sk_X509_push(p.chain.get(), x);
    }
  }
  BioPtr key(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  if (key) p.key.reset(PEM_read_bio_PrivateKey(key.get(), nullptr, NoPassword, nullptr));
  ERR_clear_error();
  if (!p.leaf) {
    return absl::InvalidArgumentError(absl::StrCat(cert_file, " holds no PEM certificate"));
  }
  if (!p.key) {
    return absl::InvalidArgumentError(
        absl::StrCat(key_file, " holds no unencrypted PEM private key"));
  }
  if (X509_check_private_key(p.leaf.get(), p.key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("the key in ", key_file, " does not match the certificate in ", cert_file));
  }
  p.cert_pem = std::move(cert_pem);
  p.key_pem = std::move(key_pem);
  return p;
}

// Serves the current certificate to every TLS handshake, re-reading the files
// at most once per interval. SSL_CTX_set_cert_cb runs per handshake, so no
// SSL_CTX is ever swapped under httplib.
class CertReloader {
 public:
  CertReloader(std::string cert_file, std::string key_file, absl::Duration interval, Clock& clock)
      : cert_file_(std::move(cert_file)),
        key_file_(std::move(key_file)),
        interval_(interval),
        clock_(clock) {}

  absl::Status Load() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::StatusOr<ServingPair> pair = Read();
    if (!pair.ok()) return pair.status();
    absl::MutexLock lock(&mu_);
    current_ = *std::move(pair);
    checked_ = clock_.Now();
    return absl::OkStatus();
  }

  // SSL_CTX cert_cb: 1 on success, 0 aborts the handshake.
  static int Callback(SSL* ssl, void* arg) {
    auto* self = static_cast<CertReloader*>(arg);
    absl::MutexLock lock(&self->mu_);
    self->MaybeReload();
    if (!self->current_.has_value()) return 0;
    ServingPair& p = *self->current_;
    return SSL_use_cert_and_key(ssl, p.leaf.get(), p.key.get(), p.chain.get(), 1) == 1 ? 1 : 0;
  }

 private:
  absl::StatusOr<ServingPair> Read() const {
    absl::StatusOr<std::string> cert = ReadFile(cert_file_);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile(key_file_);
    if (!key.ok()) return key.status();
    return ParsePair(*std::move(cert), *std::move(key), cert_file_, key_file_);
  }

  void MaybeReload() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const absl::Time now = clock_.Now();
    if (now - checked_ < interval_) return;
    checked_ = now;
    absl::StatusOr<std::string> cert = ReadFile(cert_file_);
    absl::StatusOr<std::string> key = ReadFile(key_file_);
    if (cert.ok() && key.ok() && current_.has_value() && *cert == current_->cert_pem &&
        *key == current_->key_pem) {
      last_error_.clear();
      return;
    }
    absl::StatusOr<ServingPair> pair =
        !cert.ok()  ? cert.status()
        : !key.ok() ? key.status()
                    : ParsePair(*std::move(cert), *std::move(key), cert_file_, key_file_);
    if (!pair.ok()) {
      // Usually a rotation caught half-way (certificate written, key not
      // yet): keep serving the previous pair and say so once.
      if (std::string e(pair.status().message()); e != last_error_) {
        spdlog::warn("webhook serving certificate not reloaded, keeping the previous one: {}", e);
        last_error_ = std::move(e);
      }
      return;
    }
    current_ = *std::move(pair);
    last_error_.clear();
    spdlog::info("webhook serving certificate reloaded from {}", cert_file_);
  }

  const std::string cert_file_, key_file_;
  const absl::Duration interval_;
  Clock& clock_;
  absl::Mutex mu_;
  std::optional<ServingPair> current_ ABSL_GUARDED_BY(mu_);
  absl::Time checked_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

// ---------------------------------------------------------- WebhookServer

class WebhookServer::Impl {
 public:
  explicit Impl(Options options)
      : options_(std::move(options)),
        reloader_(options_.cert_file, options_.key_file, options_.reload_interval,
                  options_.clock != nullptr ? *options_.clock : RealClock()) {
    if (options_.metrics != nullptr) {
      requests_ = &options_.metrics->Counter("webhook_requests_total",
                                             "Admission webhook requests by path and HTTP code.",
                                             {"path", "code"});
      latency_ = &options_.metrics->Histogram("webhook_latency_seconds",
                                              "Admission webhook request latency.", {"path"});
    }
  }

  ~Impl() { runner_.Stop(); }  // before reloader_ and handlers_ go away

  absl::Status Register(std::string path, AdmissionHandler handler) {
    if (path.empty() || path[0] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat("webhook path \"", path, "\" must start with /"));
    }
    if (!handler) return absl::InvalidArgumentError("null admission handler");
    absl::MutexLock lock(&mu_);
    if (started_) return absl::FailedPreconditionError("register webhooks before Start()");
    if (!handlers_.emplace(path, std::move(handler)).second) {
      return absl::AlreadyExistsError(absl::StrCat("webhook path ", path, " registered twice"));
    }
    return absl::OkStatus();
  }

  absl::Status Start() {
    {
      absl::MutexLock lock(&mu_);
      if (started_) return absl::FailedPreconditionError("webhook server already started");
      started_ = true;  // freezes handlers_
    }
    absl::Status s = Listen();
    if (!s.ok()) {
      absl::MutexLock lock(&mu_);
      started_ = false;
    }
    return s;
  }

  Runner& runner() { return runner_; }

 private:
  const AdmissionHandler* Find(const std::string& path) {
    absl::MutexLock lock(&mu_);
    auto it = handlers_.find(path);
    return it == handlers_.end() ? nullptr : &it->second;  // stable: no writes after Start
  }

  void Count(const std::string& path, int status) {
    // Unknown paths share one label value so that scanners cannot grow the
    // series without bound.
    if (requests_ != nullptr) {
      requests_->Inc({Find(path) != nullptr ? path : "other", absl::StrCat(status)});
    }
  }

  absl::Status Listen() {
    if (absl::Status s = reloader_.Load(); !s.ok()) return s;
    auto server = std::make_unique<httplib::SSLServer>([this](SSL_CTX& ctx) {
      SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
      SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION);
      SSL_CTX_set_cert_cb(&ctx, &CertReloader::Callback, &reloader_);
      return true;
    });
    if (!server->is_valid()) return absl::InternalError("cannot create the TLS context");
    server->set_exception_handler(OnException);
    // One catch-all route per method: the path is looked up in handlers_, so
    // registered paths need no regex escaping.
    server->Post(".*",
                 [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); });
    auto not_post = [this](const httplib::Request& req, httplib::Response& res) {
      if (Find(req.path) == nullptr) {
        PlainText(res, 404, "not found\n");
      } else {
        res.set_header("Allow", "POST");
        PlainText(res, 405, "admission reviews are POSTed\n");
      }
      Count(req.path, res.status);
    };
    server->Get(".*", not_post).Put(".*", not_post).Patch(".*", not_post).Delete(".*", not_post);
    // Admission requests come from the API server, a few at a time (each is
    // validated in memory in well under a millisecond).
    return runner_.Start(std::move(server), options_.bind_address, options_.port, 4);
  }

  void Serve(const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    const AdmissionHandler* handler = Find(req.path);
    if (handler == nullptr) {
      PlainText(res, 404, "not found\n");
    } else {
      Admit(*handler, req, res);
    }
    Count(req.path, res.status);
    if (latency_ != nullptr && handler != nullptr) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      latency_->Observe({req.path}, took.count());
    }
  }

  static void Admit(const AdmissionHandler& handler, const httplib::Request& req,
                    httplib::Response& res) {
    std::string type = absl::AsciiStrToLower(req.get_header_value("Content-Type"));
    type = std::string(absl::StripAsciiWhitespace(type.substr(0, type.find(';'))));
    if (type != "application/json") {
      return PlainText(res, 415, "content type must be application/json\n");
    }
    absl::StatusOr<AdmissionRequest> request = ParseAdmissionReview(req.body);
    if (!request.ok()) return PlainText(res, 400, absl::StrCat(request.status().message(), "\n"));
    AdmissionResponse response;
    try {
      response = handler(*request);
    } catch (const std::exception& e) {
      spdlog::error("admission handler for {} threw: {}", req.path, e.what());
      response = Denied(absl::StrCat("internal error in admission webhook: ", e.what()), 500);
    } catch (...) {
      spdlog::error("admission handler for {} threw", req.path);
      response = Denied("internal error in admission webhook", 500);
    }
    res.status = 200;
    res.set_content(BuildAdmissionReviewResponse(request->uid, response), "application/json");
  }

  const Options options_;
  CertReloader reloader_;
  CounterFamily* requests_ = nullptr;
  HistogramFamily* latency_ = nullptr;
  absl::Mutex mu_;
  std::map<std::string, AdmissionHandler> handlers_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  Runner runner_;  // last: stopped before the members its handlers use
};

WebhookServer::WebhookServer(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
WebhookServer::~WebhookServer() { Stop(); }
absl::Status WebhookServer::Register(
    std::string path, std::function<AdmissionResponse(const AdmissionRequest&)> handler) {
  return impl_->Register(std::move(path), std::move(handler));
}
absl::Status WebhookServer::Start() { return impl_->Start(); }
int WebhookServer::port() const { return impl_->runner().port(); }
void WebhookServer::Stop() { impl_->runner().Stop(); }

}  // namespace quorum::runtime
