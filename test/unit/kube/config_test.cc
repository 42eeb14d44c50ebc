#include "src/kube/config.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace quorum::kube {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Abseil here has its own string_view, which gMock's string matchers do not take.
std::string Message(const absl::Status& status) { return std::string(status.message()); }

// A fresh folder under the test's temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::path(::testing::TempDir()) / "kube_config_test.XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path Write(const fs::path& relative, const std::string& content) const {
    const fs::path full = path_ / relative;
    fs::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << content;
    return full;
  }

 private:
  fs::path path_;
};

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

constexpr char kCaPem[] = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
constexpr char kCertPem[] = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
constexpr char kKeyPem[] = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

std::string InlineKubeconfig() {
  return absl::StrCat(R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example.com:6443/
    certificate-authority-data: )",
                      absl::Base64Escape(kCaPem), R"(
    tls-server-name: api.dev.internal
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: )",
                      absl::Base64Escape(kCertPem), R"(
    client-key-data: )",
                      absl::Base64Escape(kKeyPem), R"(
- name: robot
  user:
    token: static-token
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: admin
- name: prod
  context:
    cluster: prod-cluster
    user: robot
    namespace: payments
)");
}

TEST(ParseKubeconfigTest, ReadsInlineCertificatesOfTheCurrentContext) {
  absl::StatusOr<RestConfig> config = ParseKubeconfig(InlineKubeconfig(), "/nowhere");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://dev.example.com:6443");
  EXPECT_EQ(config->tls_server_name, "api.dev.internal");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_EQ(config->client_cert_pem, kCertPem);
  EXPECT_EQ(config->client_key_pem, kKeyPem);
  EXPECT_EQ(config->bearer_token, "");
  EXPECT_EQ(config->bearer_token_file, "");
  EXPECT_FALSE(config->exec.has_value());
  EXPECT_EQ(config->namespace_name, "default");
}

TEST(ParseKubeconfigTest, AnExplicitContextOverridesTheCurrentOneAndCarriesItsNamespace) {
  absl::StatusOr<RestConfig> config = ParseKubeconfig(InlineKubeconfig(), "/nowhere", "prod");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://prod.example.com");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->ca_pem, "");
  EXPECT_EQ(config->client_cert_pem, "");
  EXPECT_EQ(config->bearer_token, "static-token");
  EXPECT_EQ(config->namespace_name, "payments");
}

TEST(ParseKubeconfigTest, AcceptsBase64DataSplitOverSeveralLines) {
  std::string wrapped = absl::Base64Escape(kCaPem);
  wrapped.insert(20, "\n      ");
  const std::string yaml = absl::StrCat(R"(current-context: c
clusters:
- name: k
  cluster:
    server: https://k
    certificate-authority-data: |
      )",
                                        wrapped, R"(
contexts:
- name: c
  context: {cluster: k}
)");
  absl::StatusOr<RestConfig> config = ParseKubeconfig(yaml, "/nowhere");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ca_pem, kCaPem);
}

TEST(ParseKubeconfigTest, ReadsCertificateFilesRelativeToTheBaseDirAndAbsoluteAsGiven) {
  TempDir dir;
  dir.Write("pki/ca.crt", kCaPem);
  dir.Write("pki/client.crt", kCertPem);
  const fs::path key = dir.Write("elsewhere/client.key", kKeyPem);
  const std::string yaml = absl::StrCat(R"(current-context: c
clusters:
- name: k
  cluster:
    server: https://k:443
    certificate-authority: pki/ca.crt
users:
- name: u
  user:
    client-certificate: ./pki/client.crt
    client-key: )",
                                        key.string(), R"(
contexts:
- name: c
  context: {cluster: k, user: u, namespace: team-a}
)");
  absl::StatusOr<RestConfig> config = ParseKubeconfig(yaml, dir.path());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_EQ(config->client_cert_pem, kCertPem);
  EXPECT_EQ(config->client_key_pem, kKeyPem);
  EXPECT_EQ(config->namespace_name, "team-a");
}

TEST(ParseKubeconfigTest, InlineDataWinsOverAFileOfTheSameField) {
  const std::string yaml = absl::StrCat(R"(current-context: c
clusters:
- name: k
  cluster:
    server: https://k
    certificate-authority: does-not-exist.crt
    certificate-authority-data: )",
                                        absl::Base64Escape(kCaPem), R"(
contexts:
- name: c
  context: {cluster: k}
)");
  absl::StatusOr<RestConfig> config = ParseKubeconfig(yaml, "/nowhere");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ca_pem, kCaPem);
}

TEST(ParseKubeconfigTest, KeepsTokenFileAsAResolvedPathAndTheStaticTokenAsIs) {
  TempDir dir;
  dir.Write("secrets/token", "file-token\n");
  const std::string yaml = R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k"}
users:
- name: u
  user:
    token: static-token
    tokenFile: secrets/token
contexts:
- name: c
  context: {cluster: k, user: u}
)";
  absl::StatusOr<RestConfig> config = ParseKubeconfig(yaml, dir.path());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->bearer_token, "static-token");
  EXPECT_EQ(config->bearer_token_file, (dir.path() / "secrets/token").string());
}

TEST(ParseKubeconfigTest, ReadsAnExecPluginWithArgsEnvAndHint) {
  const std::string yaml = R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k"}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, k, "--verbose=false"]
      env:
      - {name: REGION, value: eu-west-1}
      - {name: EMPTY}
      installHint: install get-token from example.com
      provideClusterInfo: true
- name: v
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
contexts:
- name: c
  context: {cluster: k, user: u}
- name: d
  context: {cluster: k, user: v}
)";
  absl::StatusOr<RestConfig> config = ParseKubeconfig(yaml, "/etc/kube");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(config->exec.has_value());
  EXPECT_EQ(config->exec->api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(config->exec->command, "/etc/kube/bin/get-token");
  EXPECT_THAT(config->exec->args, ::testing::ElementsAre("--cluster", "k", "--verbose=false"));
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(config->exec->env, (Env{{"REGION", "eu-west-1"}, {"EMPTY", ""}}));
  EXPECT_EQ(config->exec->install_hint, "install get-token from example.com");
  EXPECT_TRUE(config->exec->provide_cluster_info);

  absl::StatusOr<RestConfig> bare = ParseKubeconfig(yaml, "/etc/kube", "d");
  ASSERT_TRUE(bare.ok()) << bare.status();
  ASSERT_TRUE(bare->exec.has_value());
  EXPECT_EQ(bare->exec->command, "aws") << "a bare command is looked up in PATH";
  EXPECT_FALSE(bare->exec->provide_cluster_info);
}

TEST(ParseKubeconfigTest, AContextWithoutAUserIsAnonymous) {
  absl::StatusOr<RestConfig> config = ParseKubeconfig(R"(current-context: c
clusters: [{name: k, cluster: {server: "http://localhost:8080"}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                                                      "/nowhere");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "http://localhost:8080");
  EXPECT_EQ(config->bearer_token, "");
  EXPECT_FALSE(config->exec.has_value());
}

struct MalformedCase {
  std::string name;
  std::string yaml;
  std::string context;
  absl::StatusCode code;
  std::string message;  // a part of the expected message
};

// `{{CLUSTER}}`, `{{USER}}` and `{{CONTEXT}}` stand for a valid entry of each list.
std::string Fill(std::string yaml) {
  return absl::StrReplaceAll(yaml, {{"{{CLUSTER}}", "{name: k, cluster: {server: \"https://k\"}}"},
                                    {"{{USER}}", "{name: u, user: {token: t}}"},
                                    {"{{CONTEXT}}", "{name: c, context: {cluster: k, user: u}}"}});
}

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

class MalformedKubeconfigTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedKubeconfigTest, IsRejectedWithAMessageNamingTheProblem) {
  const MalformedCase& c = GetParam();
  absl::StatusOr<RestConfig> config = ParseKubeconfig(Fill(c.yaml), "/nowhere", c.context);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), c.code) << config.status();
  EXPECT_THAT(Message(config.status()), HasSubstr(c.message));
  EXPECT_THAT(Message(config.status()), ::testing::StartsWith("kubeconfig: "));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedKubeconfigTest,
    ::testing::Values(
        MalformedCase{"NotYaml", "clusters: [ {name: k\ncontexts: }", "",
                      absl::StatusCode::kInvalidArgument, "malformed YAML: error at line"},
        MalformedCase{"BadIndentation",
                      "current-context: c\nclusters:\n- name: k\n  cluster: x\n   server: y\n", "",
                      absl::StatusCode::kInvalidArgument, "malformed YAML: error at line 5"},
        MalformedCase{"EmptyDocument", "", "", absl::StatusCode::kInvalidArgument,
                      "empty document"},
        MalformedCase{"OnlyAComment", "# nothing here\n", "c", absl::StatusCode::kInvalidArgument,
                      "empty document"},
        MalformedCase{"ListInsteadOfMap", "- a\n- b\n", "", absl::StatusCode::kInvalidArgument,
                      "must be a map"},
        MalformedCase{"ScalarDocument", "just text", "", absl::StatusCode::kInvalidArgument,
                      "must be a map"},
        MalformedCase{"MissingCurrentContext",
                      "clusters: [{{CLUSTER}}]\nusers: [{{USER}}]\ncontexts: [{{CONTEXT}}]\n", "",
                      absl::StatusCode::kInvalidArgument, "current-context is not set"},
        MalformedCase{"UnknownCurrentContext",
                      "current-context: foo\nclusters: [{{CLUSTER}}]\ncontexts: [{{CONTEXT}}]\n",
                      "", absl::StatusCode::kInvalidArgument,
                      "kubeconfig: context \"foo\" not found"},
        MalformedCase{"UnknownExplicitContext", "clusters: [{{CLUSTER}}]\n", "bar",
                      absl::StatusCode::kInvalidArgument, "context \"bar\" not found"},
        MalformedCase{"UnknownCluster",
                      "contexts: [{name: c, context: {cluster: nope}}]\nclusters: [{{CLUSTER}}]\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "context \"c\": cluster \"nope\" not found"},
        MalformedCase{"UnknownUser",
                      "contexts: [{name: c, context: {cluster: k, user: nobody}}]\n"
                      "clusters: [{{CLUSTER}}]\nusers: [{{USER}}]\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "context \"c\": user \"nobody\" not found"},
        MalformedCase{"ContextWithoutCluster", "contexts: [{name: c, context: {user: u}}]\n", "c",
                      absl::StatusCode::kInvalidArgument, "context \"c\": cluster is not set"},
        MalformedCase{"ClusterWithoutServer",
                      "contexts: [{{CONTEXT}}]\nclusters: [{name: k, cluster: {}}]\n"
                      "users: [{{USER}}]\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "clusters[0] (\"k\"): server is not set"},
        MalformedCase{
            "BadBase64Ca",
            "contexts: [{{CONTEXT}}]\nusers: [{{USER}}]\nclusters:\n- name: x\n- name: k\n"
            "  cluster: {server: \"https://k\", certificate-authority-data: \"%%not*\"}\n",
            "c", absl::StatusCode::kInvalidArgument,
            "clusters[1] (\"k\"): certificate-authority-data is not valid base64"},
        MalformedCase{"BadBase64Key",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\nusers:\n- name: u\n"
                      "  user: {client-certificate-data: Q0VSVA==, client-key-data: \"!!!\"}\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "users[0] (\"u\"): client-key-data is not valid base64"},
        MalformedCase{"MissingKeyFile",
                      "contexts: [{name: c, context: {cluster: k, user: admin}}]\n"
                      "clusters: [{{CLUSTER}}]\nusers:\n- name: admin\n"
                      "  user: {client-certificate-data: Q0VSVA==, client-key: x.key}\n",
                      "c", absl::StatusCode::kNotFound,
                      "kubeconfig: users[0] (\"admin\"): client-key \"x.key\": no such file"},
        MalformedCase{
            "MissingCaFile",
            "contexts: [{{CONTEXT}}]\nusers: [{{USER}}]\nclusters:\n"
            "- {name: k, cluster: {server: \"https://k\", certificate-authority: /no/ca}}\n",
            "c", absl::StatusCode::kNotFound, "certificate-authority \"/no/ca\": no such file"},
        MalformedCase{"MissingTokenFile",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\n"
                      "users: [{name: u, user: {tokenFile: no-token}}]\n",
                      "c", absl::StatusCode::kNotFound, "tokenFile \"no-token\": no such file"},
        MalformedCase{"CertificateWithoutKey",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\n"
                      "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n",
                      "c", absl::StatusCode::kInvalidArgument, "needs a client key"},
        MalformedCase{"ServerIsAMap",
                      "contexts: [{{CONTEXT}}]\nclusters: [{name: k, cluster: {server: {a: b}}}]\n",
                      "c", absl::StatusCode::kInvalidArgument, "server must be a string"},
        MalformedCase{"InsecureIsNotABool",
                      "contexts: [{{CONTEXT}}]\nclusters:\n"
                      "- {name: k, cluster: {server: \"https://k\", insecure-skip-tls-verify: "
                      "maybe}}\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "insecure-skip-tls-verify must be true or false"},
        MalformedCase{"ContextsIsAMap", "contexts: {c: {cluster: k}}\n", "c",
                      absl::StatusCode::kInvalidArgument, "contexts must be a list"},
        MalformedCase{"ClusterEntryIsAScalar", "contexts: [{{CONTEXT}}]\nclusters: [k]\n", "c",
                      absl::StatusCode::kInvalidArgument, "clusters[0]: must be a map"},
        MalformedCase{"ExecWithoutCommand",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\nusers:\n"
                      "- {name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}\n",
                      "c", absl::StatusCode::kInvalidArgument,
                      "users[0] (\"u\"): exec: command is not set"},
        MalformedCase{"ExecWithAnOldApiVersion",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\nusers:\n"
                      "- {name: u, user: {exec: {apiVersion: "
                      "client.authentication.k8s.io/v1alpha1, command: x}}}\n",
                      "c", absl::StatusCode::kInvalidArgument, "is not supported"},
        MalformedCase{"ExecArgsNotAList",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\nusers:\n"
                      "- {name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
                      "command: x, args: \"--a --b\"}}}\n",
                      "c", absl::StatusCode::kInvalidArgument, "args must be a list"},
        MalformedCase{"ExecEnvWithoutName",
                      "contexts: [{{CONTEXT}}]\nclusters: [{{CLUSTER}}]\nusers:\n"
                      "- {name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
                      "command: x, env: [{value: v}]}}}\n",
                      "c", absl::StatusCode::kInvalidArgument, "exec.env[0]: name must be set"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(ParseKubeconfigTest, NeverThrowsOnArbitraryInput) {
  const std::vector<std::string> inputs = {"\t\t:",
                                           "{",
                                           "[[[",
                                           "key: [1, 2",
                                           "*alias",
                                           "!!binary x",
                                           "? a\n: b",
                                           "---\n...\n---",
                                           "current-context: [1]",
                                           "current-context: c\ncontexts: [[1]]",
                                           "current-context: c\ncontexts: [{name: [x]}]",
                                           std::string("a: \0b", 5)};
  for (const std::string& input : inputs) {
    absl::StatusOr<RestConfig> config = ParseKubeconfig(input, "/nowhere");
    EXPECT_FALSE(config.ok()) << "input: " << input;
  }
}

TEST(LoadKubeconfigFileTest, ResolvesRelativePathsAgainstTheFilesFolder) {
  TempDir dir;
  dir.Write("kube/ca.crt", kCaPem);
  const fs::path file = dir.Write("kube/config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k", certificate-authority: ca.crt}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  absl::StatusOr<RestConfig> config = LoadKubeconfigFile(file);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ca_pem, kCaPem);
}

TEST(LoadKubeconfigFileTest, AMissingFileIsNotFound) {
  TempDir dir;
  absl::StatusOr<RestConfig> config = LoadKubeconfigFile(dir.path() / "absent");
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound) << config.status();
  EXPECT_THAT(Message(config.status()), HasSubstr("absent"));
}

TEST(LoadKubeconfigFileTest, ErrorsNameTheFile) {
  TempDir dir;
  const fs::path file = dir.Write("config", "current-context: nope\n");
  absl::StatusOr<RestConfig> config = LoadKubeconfigFile(file);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(config.status()), HasSubstr(file.string()));
  EXPECT_THAT(Message(config.status()), HasSubstr("context \"nope\" not found"));
}

TEST(InClusterConfigTest, BuildsTheConfigFromTheServiceAccountMount) {
  TempDir dir;
  dir.Write("token", "sa-token");
  dir.Write("ca.crt", kCaPem);
  dir.Write("namespace", "operators\n");
  absl::StatusOr<RestConfig> config = InClusterConfig({"10.96.0.1", "443", dir.path()});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_EQ(config->namespace_name, "operators");
  EXPECT_EQ(config->bearer_token_file, (dir.path() / "token").string());
  EXPECT_EQ(config->bearer_token, "") << "the token is re-read from the file, never copied";
}

TEST(InClusterConfigTest, BracketsAnIpv6HostAndDefaultsTheNamespace) {
  TempDir dir;
  dir.Write("token", "sa-token");
  dir.Write("ca.crt", kCaPem);
  absl::StatusOr<RestConfig> config = InClusterConfig({"fd00:10:96::1", "6443", dir.path()});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:6443");
  EXPECT_EQ(config->namespace_name, "default");
}

TEST(InClusterConfigTest, FailsWhenNotInAClusterOrTheMountIsIncomplete) {
  TempDir dir;
  EXPECT_EQ(InClusterConfig({"", "", dir.path()}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(InClusterConfig({"10.0.0.1", "", dir.path()}).status().code(),
            absl::StatusCode::kFailedPrecondition);

  dir.Write("ca.crt", kCaPem);
  absl::StatusOr<RestConfig> no_token = InClusterConfig({"10.0.0.1", "443", dir.path()});
  EXPECT_EQ(no_token.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(no_token.status()), HasSubstr("token"));

  fs::remove(dir.path() / "ca.crt");
  dir.Write("token", "sa-token");
  absl::StatusOr<RestConfig> no_ca = InClusterConfig({"10.0.0.1", "443", dir.path()});
  EXPECT_EQ(no_ca.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(no_ca.status()), HasSubstr("ca.crt"));
}

TEST(InClusterEnvFromProcessTest, ReadsTheServiceEnvironment) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.1.2.3");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "8443");
  const InClusterEnv env = InClusterEnvFromProcess();
  EXPECT_EQ(env.host, "10.1.2.3");
  EXPECT_EQ(env.port, "8443");
  EXPECT_EQ(env.secrets_dir, "/var/run/secrets/kubernetes.io/serviceaccount");
}

std::string MinimalKubeconfig(const std::string& server) {
  return absl::StrCat("current-context: c\nclusters: [{name: k, cluster: {server: \"", server,
                      "\"}}]\ncontexts: [{name: c, context: {cluster: k}}]\n");
}

TEST(LoadDefaultConfigTest, UsesTheFirstExistingKubeconfigEntry) {
  TempDir dir;
  const fs::path second = dir.Write("second", MinimalKubeconfig("https://second"));
  const fs::path third = dir.Write("third", MinimalKubeconfig("https://third"));
  ScopedEnv kubeconfig("KUBECONFIG", absl::StrCat((dir.path() / "first").string(),
                                                  "::", second.string(), ":", third.string()));
  absl::StatusOr<RestConfig> config = LoadDefaultConfig();
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://second");
}

TEST(LoadDefaultConfigTest, FallsBackToTheHomeKubeconfig) {
  TempDir dir;
  dir.Write(".kube/config", MinimalKubeconfig("https://home"));
  ScopedEnv kubeconfig("KUBECONFIG", std::nullopt);
  ScopedEnv home("HOME", dir.path().string());
  absl::StatusOr<RestConfig> config = LoadDefaultConfig();
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://home");
}

TEST(LoadDefaultConfigTest, PassesTheContextOn) {
  TempDir dir;
  dir.Write(".kube/config", MinimalKubeconfig("https://home"));
  ScopedEnv kubeconfig("KUBECONFIG", std::nullopt);
  ScopedEnv home("HOME", dir.path().string());
  EXPECT_THAT(Message(LoadDefaultConfig("other").status()),
              HasSubstr("context \"other\" not found"));
}

TEST(LoadDefaultConfigTest, WithoutKubeconfigOrClusterSaysSo) {
  TempDir dir;
  ScopedEnv kubeconfig("KUBECONFIG", (dir.path() / "absent").string());
  ScopedEnv home("HOME", dir.path().string());
  ScopedEnv host("KUBERNETES_SERVICE_HOST", std::nullopt);
  ScopedEnv port("KUBERNETES_SERVICE_PORT", std::nullopt);
  absl::StatusOr<RestConfig> config = LoadDefaultConfig();
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(config.status()), HasSubstr("no kubeconfig found"));
}

}  // namespace
}  // namespace quorum::kube
