#include "src/kube/transport.h"

#include <curl/curl.h>
#include <openssl/ssl.h>

#include <array>
#include <mutex>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "src/base/strings.h"
#include "src/base/work_scope.h"

namespace quorum::kube {
namespace {

// Idle connections kept per transport (see CURLOPT_MAXCONNECTS in Once()):
// more than the threads that send requests at once, so none is closed and
// reopened between requests; each idle one costs a socket and a TLS session.
constexpr long kMaxConnections = 32;

// The longest a stream's poll waits when nothing happens (see PerformStream).
constexpr int kIdlePollMs = 10 * 60 * 1000;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Whether libcurl's TLS backend is OpenSSL, whose SSL_CTX the callback below
// is handed (another backend would hand another type).
bool CurlUsesOpenSsl() {
  static const bool openssl = [] {
    const curl_version_info_data* v = curl_version_info(CURLVERSION_NOW);
    return v != nullptr && v->ssl_version != nullptr && absl::StartsWith(v->ssl_version, "OpenSSL");
  }();
  return openssl;
}

// Called once per new TLS connection. libcurl sets SSL_MODE_RELEASE_BUFFERS,
// with which OpenSSL frees a connection's ~17 KiB record buffer whenever it
// is empty and allocates it again for the next record: every read of a watch
// stream or a response then made a "large" malloc, and glibc consolidates
// all fast bins of the arena before each such malloc (malloc_consolidate was
// 29 % of the idle operator's samples, 8.5 % while settling). Without the
// mode each connection keeps its two buffers (~34 KiB) while it lives; the
// transport keeps at most kMaxConnections.
CURLcode KeepRecordBuffers(CURL*, void* ssl_ctx, void*) {
  SSL_CTX_clear_mode(static_cast<SSL_CTX*>(ssl_ctx), SSL_MODE_RELEASE_BUFFERS);
  return CURLE_OK;
}

// The parts of the server URL we need to rewrite for tls-server-name.
struct ServerUrl {
  std::string scheme, host, port, prefix;
};

absl::StatusOr<ServerUrl> ParseServer(std::string_view server) {
  ServerUrl u;
  const size_t sep = server.find("://");
  if (sep == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL \"", Absl(server), "\" has no scheme"));
  }
  u.scheme = absl::AsciiStrToLower(Absl(server.substr(0, sep)));
  if (u.scheme != "https" && u.scheme != "http") {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL \"", Absl(server), "\": scheme must be http or https"));
  }
  std::string_view rest = server.substr(sep + 3);
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) u.prefix = std::string(rest.substr(slash));
  while (!u.prefix.empty() && u.prefix.back() == '/') u.prefix.pop_back();
  size_t colon = hostport.rfind(':');
  if (!hostport.empty() && hostport.front() == '[') {  // [IPv6]:port
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("server URL \"", Absl(server), "\": bad IPv6 host"));
    }
    colon = hostport.find(':', close);
  }
  u.host = std::string(hostport.substr(0, colon));
  u.port = colon == std::string_view::npos ? (u.scheme == "https" ? "443" : "80")
                                           : std::string(hostport.substr(colon + 1));
  int port = 0;
  if (u.host.empty() || !absl::SimpleAtoi(u.port, &port) || port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL \"", Absl(server), "\": bad host or port"));
  }
  return u;
}

struct CurlSlist {
  curl_slist* list = nullptr;
  ~CurlSlist() { curl_slist_free_all(list); }
  void Add(const std::string& s) { list = curl_slist_append(list, s.c_str()); }
};

// The most a response's Content-Length reserves up front (a larger body grows
// as it arrives, so a wrong header cannot make us allocate it).
constexpr curl_off_t kMaxReserve = 16 << 20;

// State for one transfer, reachable from curl's callbacks.
struct Transfer {
  CURL* easy = nullptr;
  HttpResponse response;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  bool stopped_by_handler = false;

  long Code() const {
    long code = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
    return code;
  }
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  const long code = t->Code();
  if (t->on_data != nullptr && code >= 200 && code < 300) {
    if (!(*t->on_data)(std::string_view(data, len))) {
      t->stopped_by_handler = true;
      return 0;  // aborts the transfer with CURLE_WRITE_ERROR
    }
    return len;
  }
  if (t->response.body.empty()) {
    // One allocation of the announced size instead of doubling up to it:
    // each growth past 1 KiB is a "large" malloc, before which glibc
    // consolidates the arena's fast bins (3 % of the CPU while settling).
    curl_off_t announced = -1;
    curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
    if (announced > 0 && announced <= kMaxReserve) t->response.body.reserve(announced);
  }
  t->response.body.append(data, len);
  return len;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  constexpr std::string_view kRetryAfter = "retry-after:";
  if (line.size() > kRetryAfter.size() &&
      absl::EqualsIgnoreCase(Absl(line.substr(0, kRetryAfter.size())), Absl(kRetryAfter))) {
    t->response.retry_after =
        std::string(absl::StripAsciiWhitespace(Absl(line.substr(kRetryAfter.size()))));
  }
  return size * n;
}

absl::Status CurlError(CURLcode rc, const char* errbuf, std::string_view what) {
  std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  const std::string msg = absl::StrCat(Absl(what), ": ", detail);
  if (rc == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(msg);
  return absl::UnavailableError(msg);
}

}  // namespace

class Transport::Impl {
 public:
  Impl(const RestConfig& config, ServerUrl url, std::unique_ptr<CredentialProvider> creds)
      : config_(config), url_(std::move(url)), creds_(std::move(creds)) {
    share_ = curl_share_init();
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &Impl::Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &Impl::Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    refreshable_ = config.exec.has_value() || !config.bearer_token_file.empty();
    // tls-server-name: address the server by that name (for SNI and
    // certificate checks) while connecting to the configured host.
    if (!config.tls_server_name.empty() && url_.scheme == "https") {
      base_ = absl::StrCat(url_.scheme, "://", config.tls_server_name, ":", url_.port, url_.prefix);
      connect_to_ =
          absl::StrCat(config.tls_server_name, ":", url_.port, ":", url_.host, ":", url_.port);
    } else {
      base_ = absl::StrCat(url_.scheme, "://", url_.host, ":", url_.port, url_.prefix);
    }
  }

  ~Impl() {
    for (CURL* e : pool_) curl_easy_cleanup(e);
    curl_share_cleanup(share_);
  }

  absl::StatusOr<HttpResponse> Do(const HttpRequest& req, bool stream,
                                  const std::function<bool(std::string_view)>* on_data,
                                  Cancellation* cancel) {
    absl::StatusOr<HttpResponse> r = Once(req, stream, on_data, cancel);
    if (r.ok() && r->code == 401 && refreshable_) {
      creds_->Invalidate();
      r = Once(req, stream, on_data, cancel);
    }
    return r;
  }

  TransportStats stats() const {
    return {requests_.load(std::memory_order_relaxed),
            connections_.load(std::memory_order_relaxed)};
  }

 private:
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<Impl*>(user)->locks_[data % kLocks].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<Impl*>(user)->locks_[data % kLocks].unlock();
  }

  CURL* Acquire() {
    {
      absl::MutexLock lock(&pool_mu_);
      if (!pool_.empty()) {
        CURL* e = pool_.back();
        pool_.pop_back();
        return e;
      }
    }
    return curl_easy_init();
  }

  void Release(CURL* e) {
    curl_easy_reset(e);
    absl::MutexLock lock(&pool_mu_);
    pool_.push_back(e);
  }

  static int AbortWhenCancelled(void* scope, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<const WorkScope*>(scope)->cancelled() ? 1 : 0;
  }

  // NOLINTNEXTLINE(readability-function-size): one transfer's curl options, in order
  absl::StatusOr<HttpResponse> Once(const HttpRequest& req, bool stream,
                                    const std::function<bool(std::string_view)>* on_data,
                                    Cancellation* cancel) {
    // A reconcile's request stops with its work (see src/base/work_scope.h).
    const WorkScope* scope = stream ? nullptr : WorkScope::Current();
    if (scope != nullptr) {
      absl::Status s = CheckCurrentWork(absl::StrCat(req.method, " ", req.path));
      if (!s.ok()) return s;
    }
    absl::StatusOr<Credentials> creds = creds_->Get();
    if (!creds.ok()) return creds.status();

    Transfer t;
    t.easy = Acquire();
    t.on_data = on_data;
    char errbuf[CURL_ERROR_SIZE] = {0};
    const std::string url = base_ + req.path;
    CurlSlist headers;
    headers.Add("Accept: " + req.accept);
    if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
      headers.Add("Content-Type: " +
                  (req.content_type.empty() ? std::string("application/json") : req.content_type));
    }
    if (!req.authorization.empty()) {
      headers.Add("Authorization: " + req.authorization);
    } else if (!creds->bearer_token.empty()) {
      headers.Add("Authorization: Bearer " + creds->bearer_token);
    }
    headers.Add("Expect:");  // no 100-continue round trip
    CurlSlist connect_to;
    if (!connect_to_.empty()) connect_to.Add(connect_to_);

    CURL* e = t.easy;
    curl_easy_setopt(e, CURLOPT_SHARE, share_);
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    // The connection cache is shared by every thread, but curl_easy_perform
    // keeps at most MAXCONNECTS (default 5) open when a transfer ends: with
    // more concurrent requests than that (workers, informers, events) the
    // surplus was closed after each request, so most requests paid a new TCP
    // and TLS handshake (~60 per second while 1,000 clusters were created).
    curl_easy_setopt(e, CURLOPT_MAXCONNECTS, kMaxConnections);
    curl_easy_setopt(e, CURLOPT_USERAGENT, config_.user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.list);
    if (connect_to.list != nullptr) curl_easy_setopt(e, CURLOPT_CONNECT_TO, connect_to.list);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    if (req.method == "HEAD") curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    }
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    if (!stream || req.timeout.has_value()) {
      absl::Duration timeout = req.timeout.value_or(config_.timeout);
      if (scope != nullptr) timeout = CapToCurrentDeadline(timeout);
      if (timeout > absl::ZeroDuration()) {
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                         static_cast<long>(absl::ToInt64Milliseconds(timeout)));
      }
    }
    SetTls(e, *creds);
    if (url_.scheme == "https" && CurlUsesOpenSsl()) {
      curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, &KeepRecordBuffers);
    }
    if (scope != nullptr) {
      // curl calls this about once a second and more often while data moves.
      curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, &AbortWhenCancelled);
      curl_easy_setopt(e, CURLOPT_XFERINFODATA, scope);
    }

    CURLcode rc = stream ? PerformStream(e, cancel) : curl_easy_perform(e);
    long connects = 0;
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
    requests_.fetch_add(1, std::memory_order_relaxed);
    connections_.fetch_add(connects, std::memory_order_relaxed);
    t.response.code = t.Code();
    absl::Status status = absl::OkStatus();
    if (rc == CURLE_ABORTED_BY_CALLBACK) {
      status = absl::CancelledError(absl::StrCat(req.method, " ", req.path, ": cancelled"));
    } else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t.stopped_by_handler)) {
      status = CurlError(rc, errbuf, absl::StrCat(req.method, " ", base_, req.path));
    }
    Release(e);
    if (!status.ok()) return status;
    return std::move(t.response);
  }

  CURLcode PerformStream(CURL* e, Cancellation* cancel) {
    CURLM* multi = curl_multi_init();
    curl_multi_add_handle(multi, e);
    CURLcode result = CURLE_OK;
    {
      CancellationRegistration reg(cancel, [multi] { curl_multi_wakeup(multi); });
      int running = 1;
      while (running > 0) {
        if (cancel != nullptr && cancel->cancelled()) {
          result = CURLE_ABORTED_BY_CALLBACK;
          break;
        }
        if (curl_multi_perform(multi, &running) != CURLM_OK) {
          result = CURLE_RECV_ERROR;
          break;
        }
        // No timer of our own: curl shortens the wait to its own next
        // timeout, data wakes it, and a cancellation calls
        // curl_multi_wakeup (a wakeup before the poll is not lost). A
        // parked watch used to wake every second for nothing.
        if (running > 0) curl_multi_poll(multi, nullptr, 0, kIdlePollMs, nullptr);
      }
      if (result == CURLE_OK) {
        int left = 0;
        while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
          if (msg->msg == CURLMSG_DONE) result = msg->data.result;
        }
      }
    }
    curl_multi_remove_handle(multi, e);
    curl_multi_cleanup(multi);
    return result;
  }

  void SetTls(CURL* e, const Credentials& creds) {
    if (config_.insecure_skip_tls_verify) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (!config_.ca_pem.empty()) {
      curl_blob ca{const_cast<char*>(config_.ca_pem.data()), config_.ca_pem.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
    }
    const std::string& cert =
        creds.client_cert_pem.empty() ? config_.client_cert_pem : creds.client_cert_pem;
    const std::string& key =
        creds.client_key_pem.empty() ? config_.client_key_pem : creds.client_key_pem;
    if (!cert.empty() && !key.empty()) {
      curl_blob c{const_cast<char*>(cert.data()), cert.size(), CURL_BLOB_COPY};
      curl_blob k{const_cast<char*>(key.data()), key.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &c);
      curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
      curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &k);
    }
  }

  static constexpr int kLocks = 8;
  const RestConfig& config_;
  const ServerUrl url_;
  std::unique_ptr<CredentialProvider> creds_;
  bool refreshable_ = false;
  std::string base_;
  std::string connect_to_;
  CURLSH* share_ = nullptr;
  std::array<std::mutex, kLocks> locks_;
  absl::Mutex pool_mu_;
  std::vector<CURL*> pool_ ABSL_GUARDED_BY(pool_mu_);
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> connections_{0};
};

absl::StatusOr<std::unique_ptr<Transport>> Transport::Create(const RestConfig& config,
                                                             Clock& clock) {
  GlobalInit();
  absl::StatusOr<ServerUrl> url = ParseServer(config.server);
  if (!url.ok()) return url.status();
  auto t = std::unique_ptr<Transport>(new Transport(config, nullptr));
  t->impl_ =
      std::make_unique<Impl>(t->config_, *std::move(url), NewCredentialProvider(t->config_, clock));
  return t;
}

Transport::Transport(const RestConfig& config, std::unique_ptr<Impl> impl)
    : config_(config), impl_(std::move(impl)) {}

Transport::~Transport() = default;

absl::StatusOr<HttpResponse> Transport::Do(const HttpRequest& request) {
  return impl_->Do(request, /*stream=*/false, nullptr, nullptr);
}

absl::StatusOr<HttpResponse> Transport::Stream(const HttpRequest& request,
                                               const std::function<bool(std::string_view)>& on_data,
                                               Cancellation* cancel) {
  return impl_->Do(request, /*stream=*/true, &on_data, cancel);
}

TransportStats Transport::stats() const { return impl_->stats(); }

}  // namespace quorum::kube
