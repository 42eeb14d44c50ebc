// The snapshot subcommands against real components: etcd clusters from
// hack/build-tools.sh, the S3 store of the `s3` fixture (hack/s3.sh, SeaweedFS
// with TLS and generated credentials), the quorum-operator binary as a backup
// Job runs it, and etcdutl restoring what it stored.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "src/backup/sigv4.h"
#include "src/backup/snapshot_job.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/testmain/paths.h"

namespace quorum::backup {
namespace {

using etcd::Client;
using etcd::testing::EtcdHarness;
using etcd::testing::HarnessOptions;
using etcd::testing::ReadFile;

constexpr int kKeys = 1000;

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

// The object store's env file (written by hack/s3.sh start).
std::map<std::string, std::string> S3Env() {
  std::map<std::string, std::string> env;
  const char* dir = std::getenv("QUORUM_S3_DIR");
  std::ifstream in(std::string(dir == nullptr ? "" : dir) + "/env");
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = line;
    if (!absl::ConsumePrefix(&l, "export ")) continue;
    const size_t eq = l.find('=');
    std::string v(l.substr(eq + 1));
    if (v.size() >= 2 && v.front() == '\'') v = v.substr(1, v.size() - 2);
    env[std::string(l.substr(0, eq))] = v;
  }
  return env;
}

struct CommandRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs the operator binary with `args` and extra environment `env` (secrets
// travel there, as in a Job's pod).
CommandRun Operator(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env, const std::string& scratch) {
  std::string cmd = "env";
  for (const auto& [k, v] : env) absl::StrAppend(&cmd, " '", k, "=", v, "'");
  // QUORUM_SNAPSHOT_BIN: another build of the same subcommands (default: this
  // build's quorum-operator).
  const char* bin = std::getenv("QUORUM_SNAPSHOT_BIN");
  absl::StrAppend(&cmd, " ",
                  bin != nullptr && *bin != '\0'
                      ? std::string(bin)
                      : std::string(QUORUM_BINARY_DIR) + "/cmd/quorum-operator");
  for (const std::string& a : args) absl::StrAppend(&cmd, " '", a, "'");
  absl::StrAppend(&cmd, " >", scratch, "/out 2>", scratch, "/err");
  CommandRun r;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(scratch + "/out");
  r.err = ReadFile(scratch + "/err");
  return r;
}

std::string EtcdutlDir() {
  const std::string cmd =
      std::string(QUORUM_SOURCE_DIR) + "/hack/build-tools.sh etcdutl 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  char buf[512];
  std::string out;
  while (fgets(buf, sizeof buf, p) != nullptr) out += buf;
  return pclose(p) == 0 ? Trim(out) : "";
}

std::string Key(int i) { return absl::StrCat("backup/key-", i); }

class SnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/quorum-snapshot-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    scratch_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(scratch_, ec);
  }

  // A 3-member cluster holding kKeys keys; with `secure`, TLS everywhere and
  // auth on (root / root-password).
  void StartSource(bool secure) {
    source_ = std::make_unique<EtcdHarness>(HarnessOptions{.max_members = 3, .tls = secure});
    ASSERT_TRUE(source_->Init().ok());
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(source_->Config());
    ASSERT_TRUE(c.ok());
    client_ = *std::move(c);
    absl::Status s = source_->StartNewCluster(*client_, 3);
    ASSERT_TRUE(s.ok()) << s;
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(client_->Put(Key(i), absl::StrCat("v", i)).ok());
    if (secure) {
      ASSERT_TRUE(client_->UserAdd("root", "root-password").ok());
      ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
      ASSERT_TRUE(client_->AuthEnable().ok());
    }
  }

  std::vector<std::string> EtcdArgs(bool secure) {
    std::vector<std::string> a = {"--endpoints=" + absl::StrJoin(source_->ClientUrls(), ","),
                                  "--work-dir=" + scratch_ + "/work",
                                  "--result-file=" + scratch_ + "/result"};
    if (secure) {
      std::ofstream(scratch_ + "/client.crt") << source_->tls().client_cert_pem;
      std::ofstream(scratch_ + "/client.key") << source_->tls().client_key_pem;
      a.push_back("--ca-file=" + source_->tls().ca_file);
      a.push_back("--cert-file=" + scratch_ + "/client.crt");
      a.push_back("--key-file=" + scratch_ + "/client.key");
    }
    return a;
  }

  // Restores `snapshot` into a new one-member cluster with etcdutl, starts it,
  // and expects every key back.
  // With `auth`, the snapshot carries etcd's users and its auth switch: the
  // restored cluster wants the old root credentials.
  void ExpectRestoreGivesKeysBack(const std::string& snapshot, bool auth = false) {
    const std::string etcdutl = EtcdutlDir();
    ASSERT_FALSE(etcdutl.empty()) << "hack/build-tools.sh etcdutl failed";
    EtcdHarness restored(HarnessOptions{.max_members = 1, .name_prefix = "restored"});
    ASSERT_TRUE(restored.Init().ok());
    const std::string cmd =
        absl::StrCat(etcdutl, "/etcdutl snapshot restore '", snapshot, "' --data-dir '",
                     restored.DataDir(0), "' --name ", restored.Name(0), " --initial-cluster ",
                     restored.InitialCluster({0}), " --initial-advertise-peer-urls ",
                     restored.PeerUrl(0), " >'", scratch_, "/restore.log' 2>&1");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFile(scratch_ + "/restore.log");
    etcd::ClientConfig config = restored.Config();
    if (auth) {
      config.username = "root";
      config.password = "root-password";
    }
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(config);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(restored.Start(0, true, restored.InitialCluster({0})).ok());
    absl::Status ready = restored.WaitReady(**c, 0, absl::Seconds(30));
    ASSERT_TRUE(ready.ok()) << ready << restored.LogTail(0);
    int present = 0;
    for (int i = 0; i < kKeys; ++i) {
      absl::StatusOr<etcd::GetResponse> got = (*c)->Get(Key(i));
      if (got.ok() && got->value == absl::StrCat("v", i)) ++present;
    }
    EXPECT_EQ(present, kKeys);
    // New identity: a restored member is not the old cluster's.
    absl::StatusOr<etcd::MemberListResponse> old_members = client_->MemberList(false);
    absl::StatusOr<etcd::MemberListResponse> new_members = (*c)->MemberList();
    ASSERT_TRUE(new_members.ok()) << new_members.status();
    if (old_members.ok()) {
      EXPECT_NE(old_members->cluster_id, new_members->cluster_id);
    }
  }

  std::string scratch_;
  std::unique_ptr<EtcdHarness> source_;
  std::unique_ptr<Client> client_;
};

TEST_F(SnapshotTest, SnapshotToAFolderIsVerifiedAndRestoresEveryKey) {
  ASSERT_NO_FATAL_FAILURE(StartSource(/*secure=*/false));
  std::vector<std::string> args = {"etcd-snapshot", "--dir=" + scratch_ + "/claim/sub",
                                   "--name=nightly.db"};
  for (std::string& a : EtcdArgs(false)) args.push_back(a);
  const CommandRun run = Operator(args, {}, scratch_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  absl::StatusOr<SnapshotJobResult> result = ParseResultJson(ReadFile(scratch_ + "/result"));
  ASSERT_TRUE(result.ok()) << result.status() << ReadFile(scratch_ + "/result");
  const std::string file = scratch_ + "/claim/sub/nightly.db";
  EXPECT_EQ(result->uri, "file://" + file);
  const std::string bytes = ReadFile(file);
  EXPECT_EQ(result->size, bytes.size());
  EXPECT_EQ(result->sha256, Sha256Hex(bytes));
  EXPECT_GE(result->revision, kKeys);
  // A follower, not the leader, served it.
  absl::StatusOr<etcd::StatusResponse> st = client_->Status(result->member);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_NE(st->leader, st->member_id);
  ExpectRestoreGivesKeysBack(file);
}

TEST_F(SnapshotTest, SnapshotOfATlsAuthClusterToS3RestoresEveryKey) {
  const std::map<std::string, std::string> s3 = S3Env();
  ASSERT_TRUE(s3.contains("QUORUM_S3_ENDPOINT")) << "the s3 fixture did not run";
  ASSERT_NO_FATAL_FAILURE(StartSource(/*secure=*/true));
  const std::string secret = Trim(ReadFile(s3.at("QUORUM_S3_SECRET_KEY_FILE")));
  const std::map<std::string, std::string> env = {
      {"ETCD_USERNAME", "root"},
      {"ETCD_PASSWORD", "root-password"},
      {"AWS_ACCESS_KEY_ID", Trim(ReadFile(s3.at("QUORUM_S3_ACCESS_KEY_FILE")))},
      {"AWS_SECRET_ACCESS_KEY", secret}};
  const std::vector<std::string> store = {
      "--s3-endpoint=" + s3.at("QUORUM_S3_ENDPOINT"), "--s3-ca-file=" + s3.at("QUORUM_S3_CA_FILE"),
      "--s3-bucket=" + s3.at("QUORUM_S3_BUCKET"), "--s3-force-path-style",
      "--s3-key=" + std::filesystem::path(scratch_).filename().string() + "/etcd/snap 1.db"};
  std::vector<std::string> args = {"etcd-snapshot"};
  for (const auto& group : {EtcdArgs(true), store}) {
    for (const std::string& a : group) args.push_back(a);
  }
  const CommandRun run = Operator(args, env, scratch_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  absl::StatusOr<SnapshotJobResult> result = ParseResultJson(ReadFile(scratch_ + "/result"));
  ASSERT_TRUE(result.ok()) << result.status() << ReadFile(scratch_ + "/result");
  EXPECT_EQ(result->uri, "s3://" + s3.at("QUORUM_S3_BUCKET") + "/" +
                             std::filesystem::path(scratch_).filename().string() +
                             "/etcd/snap 1.db");

  // Fetched back (as a restore's init container does), checked against the
  // digest the backup reported.
  std::vector<std::string> fetch = {"fetch-snapshot", "--out=" + scratch_ + "/fetched/snapshot.db",
                                    "--sha256=" + result->sha256};
  for (const std::string& a : store) fetch.push_back(a);
  CommandRun got = Operator(fetch, env, scratch_);
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(Sha256Hex(ReadFile(scratch_ + "/fetched/snapshot.db")), result->sha256);

  // A wrong digest is refused and leaves no file behind.
  fetch[1] = "--out=" + scratch_ + "/wrong/snapshot.db";
  fetch[2] = "--sha256=" + std::string(64, '0');
  got = Operator(fetch, env, scratch_);
  EXPECT_NE(got.exit_code, 0);
  EXPECT_NE(got.err.find("DATA_LOSS"), std::string::npos) << got.err;
  EXPECT_FALSE(std::filesystem::exists(scratch_ + "/wrong/snapshot.db"));

  // Wrong credentials fail clearly, and the secret shows up nowhere.
  std::map<std::string, std::string> bad = env;
  bad["AWS_SECRET_ACCESS_KEY"] = "not-the-secret";
  const CommandRun denied = Operator(args, bad, scratch_);
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("PERMISSION_DENIED"), std::string::npos) << denied.err;
  for (const std::string& text :
       {run.out, run.err, denied.out, denied.err, ReadFile(scratch_ + "/result")}) {
    EXPECT_EQ(text.find(secret), std::string::npos);
    EXPECT_EQ(text.find("root-password"), std::string::npos);
  }

  ExpectRestoreGivesKeysBack(scratch_ + "/fetched/snapshot.db", /*auth=*/true);
}

}  // namespace
}  // namespace quorum::backup
