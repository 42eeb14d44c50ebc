#include "src/kube/credentials.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/clock.h"
#include "src/kube/config.h"

namespace quorum::kube {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// Abseil here has its own string_view, which gMock's string matchers do not take.
std::string Message(const absl::Status& status) { return std::string(status.message()); }

// A fresh folder under the test's temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::path(::testing::TempDir()) / "kube_credentials_test.XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path Write(const std::string& name, const std::string& content) const {
    const fs::path full = path_ / name;
    std::ofstream(full, std::ios::binary | std::ios::trunc) << content;
    return full;
  }
  fs::path WriteScript(const std::string& name, const std::string& body) const {
    const fs::path full = Write(name, "#!/bin/sh\n" + body);
    fs::permissions(full, fs::perms::owner_all);
    return full;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(path_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  fs::path path_;
};

constexpr char kV1[] = "client.authentication.k8s.io/v1";

// ------------------------------------------------------------------ choice

TEST(NewCredentialProviderTest, PrefersExecOverTokenFileOverStaticToken) {
  TempDir dir;
  FakeClock clock;
  RestConfig config;
  config.bearer_token = "static";
  config.bearer_token_file = dir.Write("token", "from-file").string();
  config.exec.emplace();
  config.exec->api_version = kV1;
  config.exec->command = dir.WriteScript("plugin", R"(
echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
echo '"status":{"token":"from-exec"}}'
)")
                             .string();

  absl::StatusOr<Credentials> exec = NewCredentialProvider(config, clock)->Get();
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->bearer_token, "from-exec");

  config.exec.reset();
  absl::StatusOr<Credentials> file = NewCredentialProvider(config, clock)->Get();
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->bearer_token, "from-file");

  config.bearer_token_file.clear();
  absl::StatusOr<Credentials> fixed = NewCredentialProvider(config, clock)->Get();
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(fixed->bearer_token, "static");

  config.bearer_token.clear();
  absl::StatusOr<Credentials> none = NewCredentialProvider(config, clock)->Get();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->bearer_token, "");
  EXPECT_FALSE(none->expiry.has_value());
}

// -------------------------------------------------------------- token file

class TokenFileTest : public ::testing::Test {
 protected:
  TokenFileTest() {
    config_.bearer_token_file = (dir_.path() / "token").string();
    config_.token_file_reread = absl::Minutes(1);
  }
  std::string Token(CredentialProvider& provider) {
    absl::StatusOr<Credentials> credentials = provider.Get();
    if (!credentials.ok()) return "error: " + Message(credentials.status());
    return credentials->bearer_token;
  }

  TempDir dir_;
  FakeClock clock_;
  RestConfig config_;
};

TEST_F(TokenFileTest, ReReadsTheFileOnceTheIntervalHasPassed) {
  dir_.Write("token", "  token-1\n");
  std::unique_ptr<CredentialProvider> provider = NewCredentialProvider(config_, clock_);
  EXPECT_EQ(Token(*provider), "token-1");

  dir_.Write("token", "token-2\n");
  EXPECT_EQ(Token(*provider), "token-1");
  clock_.Advance(absl::Seconds(59));
  EXPECT_EQ(Token(*provider), "token-1");
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(Token(*provider), "token-2");
}

TEST_F(TokenFileTest, ReReadsTheFileRightAfterInvalidate) {
  dir_.Write("token", "token-1");
  std::unique_ptr<CredentialProvider> provider = NewCredentialProvider(config_, clock_);
  EXPECT_EQ(Token(*provider), "token-1");
  dir_.Write("token", "token-2");
  provider->Invalidate();
  EXPECT_EQ(Token(*provider), "token-2");
}

TEST_F(TokenFileTest, AMissingFileIsNotFoundAndAnEmptyOneUnavailable) {
  std::unique_ptr<CredentialProvider> provider = NewCredentialProvider(config_, clock_);
  absl::StatusOr<Credentials> missing = provider->Get();
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(Message(missing.status()), HasSubstr(config_.bearer_token_file));

  dir_.Write("token", " \n");
  absl::StatusOr<Credentials> empty = provider->Get();
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kUnavailable) << empty.status();

  dir_.Write("token", "token-1");
  EXPECT_EQ(Token(*provider), "token-1") << "errors are not cached";
}

// ---------------------------------------------------- ParseExecCredential

TEST(ParseExecCredentialTest, ReadsATokenWithItsExpiry) {
  absl::StatusOr<Credentials> credentials = ParseExecCredential(R"({
    "kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1",
    "spec": {"interactive": false},
    "status": {"token": "abc", "expirationTimestamp": "2030-01-02T03:04:05Z"}})");
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->bearer_token, "abc");
  EXPECT_EQ(credentials->client_cert_pem, "");
  EXPECT_EQ(credentials->expiry,
            absl::FromCivil(absl::CivilSecond(2030, 1, 2, 3, 4, 5), absl::UTCTimeZone()));
}

TEST(ParseExecCredentialTest, ReadsAClientCertificateAndAnOffsetExpiry) {
  absl::StatusOr<Credentials> credentials = ParseExecCredential(R"({
    "kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1beta1",
    "status": {"clientCertificateData": "CERT", "clientKeyData": "KEY",
               "expirationTimestamp": "2030-01-02T03:04:05.5+01:00"}})");
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->bearer_token, "");
  EXPECT_EQ(credentials->client_cert_pem, "CERT");
  EXPECT_EQ(credentials->client_key_pem, "KEY");
  EXPECT_EQ(credentials->expiry,
            absl::FromCivil(absl::CivilSecond(2030, 1, 2, 2, 4, 5), absl::UTCTimeZone()) +
                absl::Milliseconds(500));
}

TEST(ParseExecCredentialTest, WithoutExpiryHasNone) {
  absl::StatusOr<Credentials> credentials = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("status":{"token":"abc"}})");
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_FALSE(credentials->expiry.has_value());
}

struct BadCredentialCase {
  std::string name;
  std::string json;
  std::string message;
};

void PrintTo(const BadCredentialCase& c, std::ostream* os) { *os << c.name; }

class BadExecCredentialTest : public ::testing::TestWithParam<BadCredentialCase> {};

TEST_P(BadExecCredentialTest, IsInvalidArgumentAndNeverQuotesTheToken) {
  absl::StatusOr<Credentials> credentials = ParseExecCredential(GetParam().json);
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(credentials.status()), HasSubstr(GetParam().message));
  EXPECT_THAT(Message(credentials.status()), Not(HasSubstr("s3cr3t")));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadExecCredentialTest,
    ::testing::Values(
        BadCredentialCase{"Empty", "", "not valid JSON"},
        BadCredentialCase{"NotJson", "token: s3cr3t", "not valid JSON"},
        BadCredentialCase{"Truncated", R"({"kind":"ExecCredential","status":{"token":"s3cr3t")",
                          "not valid JSON"},
        BadCredentialCase{"AList", R"(["s3cr3t"])", "not a JSON object"},
        BadCredentialCase{"WrongKind",
                          R"({"kind":"Secret","apiVersion":"client.authentication.k8s.io/v1",)"
                          R"("status":{"token":"s3cr3t"}})",
                          "kind must be \"ExecCredential\""},
        BadCredentialCase{"KindNotAString",
                          R"({"kind":7,"apiVersion":"client.authentication.k8s.io/v1",)"
                          R"("status":{"token":"s3cr3t"}})",
                          "kind must be"},
        BadCredentialCase{"OldApiVersion",
                          R"({"kind":"ExecCredential",)"
                          R"("apiVersion":"client.authentication.k8s.io/v1alpha1",)"
                          R"("status":{"token":"s3cr3t"}})",
                          "apiVersion must be"},
        BadCredentialCase{
            "NoStatus",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})",
            "status is missing"},
        BadCredentialCase{
            "NoCredentialInStatus",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"expirationTimestamp":"2030-01-02T03:04:05Z"}})",
            "neither a token nor"},
        BadCredentialCase{
            "TokenNotAString",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"token":["s3cr3t"]}})",
            "status.token must be a string"},
        BadCredentialCase{
            "CertificateWithoutKey",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"clientCertificateData":"s3cr3t"}})",
            "must come together"},
        BadCredentialCase{
            "ExpiryNotRfc3339",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"token":"s3cr3t","expirationTimestamp":"tomorrow"}})",
            "expirationTimestamp \"tomorrow\" is not an RFC 3339 time"},
        BadCredentialCase{
            "ExpiryNotAString",
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"token":"s3cr3t","expirationTimestamp":1893553445}})",
            "expirationTimestamp must be a string"}),
    [](const ::testing::TestParamInfo<BadCredentialCase>& info) { return info.param.name; });

// ------------------------------------------------------------- exec plugin

// The plugin counts its runs in `runs`, saves its KUBERNETES_EXEC_INFO in
// `exec-info`, and prints token-<run>-<first arg> expiring at $EXPIRY.
constexpr char kCountingPlugin[] = R"(
n=$(( $(cat "$STATE_DIR/runs" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$STATE_DIR/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$STATE_DIR/exec-info"
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
printf '"status":{"token":"token-%s-%s","expirationTimestamp":"%s"}}\n' "$n" "$1" "$EXPIRY"
)";

class ExecPluginTest : public ::testing::Test {
 protected:
  // A config that runs `body` as a shell script with $STATE_DIR set.
  RestConfig ConfigFor(const std::string& body, std::string expiry = "") {
    RestConfig config;
    config.server = "https://k.example.com:6443";
    config.exec = ExecConfig{
        .api_version = kV1,
        .command = dir_.WriteScript(absl::StrCat("plugin-", ++plugins_), body).string(),
        .args = {"arg"},
        .env = {{"STATE_DIR", dir_.path().string()}, {"EXPIRY", std::move(expiry)}},
        .install_hint = "Install the plugin from https://example.com/plugin",
    };
    return config;
  }
  std::string Token(CredentialProvider& provider) {
    absl::StatusOr<Credentials> credentials = provider.Get();
    if (!credentials.ok()) return "error: " + Message(credentials.status());
    return credentials->bearer_token;
  }
  std::string Rfc3339(absl::Time t) {
    return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
  }

  TempDir dir_;
  FakeClock clock_;
  int plugins_ = 0;
};

TEST_F(ExecPluginTest, CachesTheCredentialUntilTenSecondsBeforeItExpires) {
  const absl::Time expiry = clock_.Now() + absl::Minutes(5);
  std::unique_ptr<CredentialProvider> provider =
      NewCredentialProvider(ConfigFor(kCountingPlugin, Rfc3339(expiry)), clock_);

  absl::StatusOr<Credentials> first = provider->Get();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->bearer_token, "token-1-arg");
  EXPECT_EQ(first->expiry, expiry);

  EXPECT_EQ(Token(*provider), "token-1-arg");
  clock_.Advance(absl::Minutes(5) - absl::Seconds(11));
  EXPECT_EQ(Token(*provider), "token-1-arg");
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(Token(*provider), "token-2-arg");
  EXPECT_EQ(dir_.Read("runs"), "2\n");
}

TEST_F(ExecPluginTest, WithoutExpiryCachesUntilInvalidated) {
  std::unique_ptr<CredentialProvider> provider =
      NewCredentialProvider(ConfigFor(kCountingPlugin), clock_);
  EXPECT_EQ(Token(*provider), "token-1-arg");
  clock_.Advance(absl::Hours(24 * 365));
  EXPECT_EQ(Token(*provider), "token-1-arg");
  provider->Invalidate();
  EXPECT_EQ(Token(*provider), "token-2-arg");
}

TEST_F(ExecPluginTest, ConcurrentCallersShareOneRun) {
  std::unique_ptr<CredentialProvider> provider =
      NewCredentialProvider(ConfigFor(kCountingPlugin), clock_);
  std::vector<std::string> tokens(8);
  std::vector<std::thread> threads;
  for (std::string& token : tokens) {
    threads.emplace_back([this, &provider, &token] { token = Token(*provider); });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(tokens, ::testing::Each("token-1-arg"));
  EXPECT_EQ(dir_.Read("runs"), "1\n");
}

TEST_F(ExecPluginTest, TellsThePluginItIsNotInteractiveAndWhichClusterItServes) {
  RestConfig config = ConfigFor(kCountingPlugin);
  config.exec->provide_cluster_info = true;
  config.ca_pem = "CA";
  ASSERT_EQ(Token(*NewCredentialProvider(config, clock_)), "token-1-arg");
  const std::string info = dir_.Read("exec-info");
  EXPECT_THAT(info, HasSubstr(R"("kind":"ExecCredential")"));
  EXPECT_THAT(info, HasSubstr(R"("apiVersion":"client.authentication.k8s.io/v1")"));
  EXPECT_THAT(info, HasSubstr(R"("interactive":false)"));
  EXPECT_THAT(info, HasSubstr(R"("server":"https://k.example.com:6443")"));
  EXPECT_THAT(info, HasSubstr(R"("certificate-authority-data":"Q0E=")"));

  config.exec->provide_cluster_info = false;
  ASSERT_EQ(Token(*NewCredentialProvider(config, clock_)), "token-2-arg");
  EXPECT_THAT(dir_.Read("exec-info"), Not(HasSubstr("server")));
}

TEST_F(ExecPluginTest, ConfiguredEnvOverridesTheProcessEnv) {
  ::setenv("QUORUM_TEST_PLUGIN_VAR", "from-parent", 1);
  ::setenv("QUORUM_TEST_PLUGIN_INHERITED", "inherited", 1);
  RestConfig config = ConfigFor(R"(
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
printf '"status":{"token":"%s-%s"}}' "$QUORUM_TEST_PLUGIN_VAR" "$QUORUM_TEST_PLUGIN_INHERITED"
)");
  config.exec->env.emplace_back("QUORUM_TEST_PLUGIN_VAR", "from-config");
  const std::string token = Token(*NewCredentialProvider(config, clock_));
  ::unsetenv("QUORUM_TEST_PLUGIN_VAR");
  ::unsetenv("QUORUM_TEST_PLUGIN_INHERITED");
  EXPECT_EQ(token, "from-config-inherited");
}

TEST_F(ExecPluginTest, ReturnsClientCertificatesFromThePlugin) {
  absl::StatusOr<Credentials> credentials = NewCredentialProvider(ConfigFor(R"(
echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
echo '"status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}}'
)"),
                                                                  clock_)
                                                ->Get();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->client_cert_pem, "CERT");
  EXPECT_EQ(credentials->client_key_pem, "KEY");
  EXPECT_EQ(credentials->bearer_token, "");
}

TEST_F(ExecPluginTest, AFailingPluginIsUnavailableWithExitCodeStderrAndHint) {
  std::unique_ptr<CredentialProvider> provider = NewCredentialProvider(ConfigFor(R"(
echo "some progress" 
echo "  error: you must log in first  " >&2
exit 3
)"),
                                                                       clock_);
  absl::StatusOr<Credentials> credentials = provider->Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(Message(credentials.status()),
              HasSubstr("exited with code 3: error: you must log in first; install hint: Install "
                        "the plugin from https://example.com/plugin"));
}

TEST_F(ExecPluginTest, AMissingPluginIsUnavailableWithTheHint) {
  RestConfig config = ConfigFor("");
  config.exec->command = (dir_.path() / "no-such-plugin").string();
  absl::StatusOr<Credentials> credentials = NewCredentialProvider(config, clock_)->Get();
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(Message(credentials.status()), HasSubstr("could not start"));
  EXPECT_THAT(Message(credentials.status()), HasSubstr("install hint"));
}

TEST_F(ExecPluginTest, MalformedOutputIsInvalidArgumentWithoutTheOutput) {
  absl::StatusOr<Credentials> credentials =
      NewCredentialProvider(ConfigFor("echo 'token=s3cr3t'\n"), clock_)->Get();
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(credentials.status()), HasSubstr("not valid JSON"));
  EXPECT_THAT(Message(credentials.status()), Not(HasSubstr("s3cr3t")));
}

TEST_F(ExecPluginTest, AnswerInAnotherApiVersionThanConfiguredIsRejected) {
  RestConfig config = ConfigFor(kCountingPlugin);
  config.exec->api_version = "client.authentication.k8s.io/v1beta1";
  absl::StatusOr<Credentials> credentials = NewCredentialProvider(config, clock_)->Get();
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(credentials.status()), HasSubstr("apiVersion"));
}

TEST_F(ExecPluginTest, LotsOfStderrDoesNotDeadlock) {
  absl::StatusOr<Credentials> credentials = NewCredentialProvider(ConfigFor(R"(
head -c 1000000 /dev/zero | tr '\0' x >&2
echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
echo '"status":{"token":"after-noise"}}'
)"),
                                                                  clock_)
                                                ->Get();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->bearer_token, "after-noise");
}

int OpenDescriptors() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++count;
  return count;
}

TEST_F(ExecPluginTest, RunsLeaveNoDescriptorsOpen) {
  const RestConfig good = ConfigFor(kCountingPlugin);
  const RestConfig bad = ConfigFor("echo oops >&2; exit 1\n");
  const int before = OpenDescriptors();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(NewCredentialProvider(good, clock_)->Get().ok());
    EXPECT_FALSE(NewCredentialProvider(bad, clock_)->Get().ok());
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

TEST_F(ExecPluginTest, AHangingPluginAndItsChildrenAreKilledAtTheTimeout) {
  RestConfig config = ConfigFor(R"(
echo "waiting for the browser" >&2
sleep 60
echo '{}'
)");
  config.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  absl::StatusOr<Credentials> credentials = NewCredentialProvider(config, clock_)->Get();
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(Message(credentials.status()),
              HasSubstr("timed out after 300ms: waiting for the browser"));
}

}  // namespace
}  // namespace quorum::kube
