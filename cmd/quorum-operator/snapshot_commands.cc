#include "cmd/quorum-operator/snapshot_commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "src/backup/delete_files.h"
#include "src/backup/s3.h"
#include "src/backup/snapshot_job.h"
#include "src/etcd/snapshot.h"

namespace quorum {
namespace {

struct S3Flags {
  std::string endpoint, bucket, key, region = "us-east-1", ca_file;
  bool force_path_style = false;
};

struct TakeFlags {
  std::string endpoints, ca_file, cert_file, key_file;
  std::string work_dir = "/tmp", dir, name = "snapshot.db";
  std::string result_file = "/dev/termination-log";
  S3Flags s3;
};

struct FetchFlags {
  std::string file, out, sha256;
  std::string skip_if_exists, skip_unless_env;
  S3Flags s3;
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string Slurp(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void AddS3Flags(CLI::App* cmd, S3Flags& f) {
  cmd->add_option("--s3-endpoint", f.endpoint, "http(s)://host[:port] of the object store");
  cmd->add_option("--s3-bucket", f.bucket, "Bucket");
  cmd->add_option("--s3-key", f.key, "Object key");
  cmd->add_option("--s3-region", f.region, "Region (SigV4 scope)")->capture_default_str();
  cmd->add_flag("--s3-force-path-style", f.force_path_style, "https://endpoint/bucket/key");
  cmd->add_option("--s3-ca-file", f.ca_file, "CA bundle for an https endpoint");
}

backup::S3Location Location(const S3Flags& f) {
  return backup::S3Location{.endpoint = f.endpoint,
                            .bucket = f.bucket,
                            .key = f.key,
                            .region = f.region,
                            .force_path_style = f.force_path_style,
                            .ca_file = f.ca_file};
}

backup::SigV4Credentials S3Credentials() {
  return backup::CleanCredentials(Env("AWS_ACCESS_KEY_ID"), Env("AWS_SECRET_ACCESS_KEY"));
}

// The result (or the error) goes to stdout or stderr and to the termination
// message, which the controller reads from the finished pod.
int Report(const std::string& result_file, const absl::StatusOr<backup::SnapshotJobResult>& r) {
  const std::string text = r.ok() ? backup::ResultJson(*r)
                                  : std::string(absl::StatusCodeToString(r.status().code())) +
                                        ": " + std::string(r.status().message());
  std::fprintf(r.ok() ? stdout : stderr, "%s\n", text.c_str());
  if (!result_file.empty()) {
    std::ofstream out(result_file, std::ios::trunc);
    if (out) out << text.substr(0, 4000);  // the kubelet keeps 4 KiB
  }
  return r.ok() ? 0 : 1;
}

int RunTake(const TakeFlags& f) {
  backup::SnapshotJobOptions o;
  o.etcd.endpoints = absl::StrSplit(f.endpoints, ',', absl::SkipEmpty());
  o.etcd.ca_pem = Slurp(f.ca_file);
  o.etcd.cert_pem = Slurp(f.cert_file);
  o.etcd.key_pem = Slurp(f.key_file);
  o.etcd.username = Env("ETCD_USERNAME");
  o.etcd.password = Env("ETCD_PASSWORD");
  o.etcd.timeout = absl::Seconds(10);
  o.work_dir = f.work_dir;
  o.directory = f.dir;
  o.name = f.name;
  if (!f.s3.endpoint.empty()) {
    o.s3 = Location(f.s3);
    o.s3_credentials = S3Credentials();
  }
  return Report(f.result_file, backup::TakeSnapshot(o));
}

// Checks the trailer and, when given, the stored file's digest.
absl::Status Verify(const std::string& path, const std::string& want_sha256) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError("cannot read " + path);
  etcd::SnapshotDigest digest;
  std::string buf(1 << 20, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    digest.Feed(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  absl::StatusOr<etcd::SnapshotDigestResult> d = digest.Finish();
  if (!d.ok()) return d.status();
  if (!want_sha256.empty() && d->sha256 != want_sha256) {
    return absl::DataLossError("snapshot sha256 " + d->sha256 + ", want " + want_sha256);
  }
  return absl::OkStatus();
}

// A restore init container runs on every start of the pod: it fetches only
// when the member is about to bootstrap (no data yet, the first member).
bool ShouldSkipFetch(const FetchFlags& f) {
  std::error_code ec;
  if (!f.skip_if_exists.empty() && std::filesystem::exists(f.skip_if_exists, ec)) {
    std::fprintf(stdout, "%s exists: nothing to restore\n", f.skip_if_exists.c_str());
    return true;
  }
  if (!f.skip_unless_env.empty()) {
    const size_t eq = f.skip_unless_env.find('=');
    const std::string name = f.skip_unless_env.substr(0, eq);
    const std::string want = eq == std::string::npos ? "" : f.skip_unless_env.substr(eq + 1);
    if (Env(name.c_str()) != want) {
      std::fprintf(stdout, "%s is not %s: nothing to restore\n", name.c_str(), want.c_str());
      return true;
    }
  }
  return false;
}

int RunFetch(const FetchFlags& f) {
  if (ShouldSkipFetch(f)) return 0;
  absl::Status s;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(f.out).parent_path(), ec);
  const std::string part = f.out + ".part";
  if (!f.s3.endpoint.empty()) {
    s = backup::GetObject(Location(f.s3), S3Credentials(), part, absl::Now());
  } else if (!f.file.empty()) {
    if (!fs::copy_file(f.file, part, fs::copy_options::overwrite_existing, ec)) {
      s = absl::NotFoundError("cannot copy " + f.file + ": " + ec.message());
    }
  } else {
    s = absl::InvalidArgumentError("want --s3-endpoint or --file");
  }
  if (s.ok()) s = Verify(part, f.sha256);
  if (s.ok()) fs::rename(part, f.out, ec);
  if (s.ok() && ec) s = absl::InternalError("cannot write " + f.out + ": " + ec.message());
  if (!s.ok()) {
    fs::remove(part, ec);
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::fprintf(stdout, "snapshot verified at %s\n", f.out.c_str());
  return 0;
}

struct RemoveFlags {
  std::string dir;
  std::vector<std::string> paths;
};

int RunRemove(const RemoveFlags& f) {
  absl::Status s = backup::DeleteSnapshotFiles(f.dir, f.paths);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::fprintf(stdout, "deleted %zu snapshot file(s) from %s\n", f.paths.size(), f.dir.c_str());
  return 0;
}

}  // namespace

SnapshotCommands AddSnapshotCommands(CLI::App& app) {
  auto take_flags = std::make_shared<TakeFlags>();
  auto fetch_flags = std::make_shared<FetchFlags>();
  CLI::App* take =
      app.add_subcommand("etcd-snapshot",
                         "Snapshot an etcd cluster into a folder or S3 (env: ETCD_USERNAME, "
                         "ETCD_PASSWORD, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
  take->add_option("--endpoints", take_flags->endpoints, "Comma-separated client URLs")->required();
  take->add_option("--ca-file", take_flags->ca_file, "CA of the members' serving certificates");
  take->add_option("--cert-file", take_flags->cert_file, "Client certificate");
  take->add_option("--key-file", take_flags->key_file, "Client key");
  take->add_option("--work-dir", take_flags->work_dir, "Scratch folder")->capture_default_str();
  take->add_option("--dir", take_flags->dir, "Store the snapshot in this folder");
  take->add_option("--name", take_flags->name, "File name in --dir")->capture_default_str();
  take->add_option("--result-file", take_flags->result_file, "Where to write the result JSON")
      ->capture_default_str();
  AddS3Flags(take, take_flags->s3);

  CLI::App* fetch = app.add_subcommand("fetch-snapshot",
                                       "Copy a stored snapshot to --out and verify it (env: "
                                       "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
  fetch->add_option("--file", fetch_flags->file, "A snapshot file (e.g. on a mounted claim)");
  fetch->add_option("--out", fetch_flags->out, "Destination path")->required();
  fetch->add_option("--sha256", fetch_flags->sha256, "Expected SHA-256 of the stored file");
  fetch->add_option("--skip-if-exists", fetch_flags->skip_if_exists,
                    "Do nothing when this path exists (the member's data folder)");
  fetch->add_option("--skip-unless-env", fetch_flags->skip_unless_env,
                    "NAME=VALUE: do nothing unless the environment variable has this value");
  AddS3Flags(fetch, fetch_flags->s3);

  auto remove_flags = std::make_shared<RemoveFlags>();
  CLI::App* remove = app.add_subcommand(
      "delete-snapshots", "Remove snapshot files (paths relative to --dir; absent ones are fine)");
  remove->add_option("--dir", remove_flags->dir, "The folder (a mounted claim)")->required();
  remove->add_option("paths", remove_flags->paths, "Relative paths of the files")->required();
  return SnapshotCommands{.take = take,
                          .fetch = fetch,
                          .remove = remove,
                          .run_take = [take_flags] { return RunTake(*take_flags); },
                          .run_fetch = [fetch_flags] { return RunFetch(*fetch_flags); },
                          .run_remove = [remove_flags] { return RunRemove(*remove_flags); }};
}

}  // namespace quorum
