// backup_bench: backups and restores on the real node, end to end (API
// server, operator, the real node, PostgreSQL with pgBackRest, etcd, an S3
// store), printing:
//   * pgBackRest: the database's size, a full PostgresBackup's time (the
//     backup's own start to stop, and create to Complete), its MB/s and the
//     stored size; then a point-in-time restore into a new PostgresCluster
//     (spec.dataSource.pgbackrest with target.time: 1000 rows committed after
//     the backup, time T, 1000 more, all archived; the restore recovers to T):
//     create to Ready and to the first query, which must count every row of
//     the big table and exactly the first 1000 later ones;
//   * etcd: the data's size, an EtcdBackup to S3: create to Complete and the
//     snapshot's size.
//
//   backup_bench --kubeconfig PATH --namespace NS --exec 'hack/node.sh exec CP_DIR --'
//       --etcdctl PATH --etcd-s3-endpoint URL [--pg-rows N] [--etcd-mb N] [--only pg|etcd]
//       [--pg-data random|repeated]
//
// hack/backup-bench.sh prepares all of it (`make bench-backup`): the namespace
// holds a Service `s3` (HTTPS, the store's CA and keys in Secret
// pgbackrest-s3) and Secret s3-creds for the plain-HTTP store of the etcd
// snapshot.
#include <array>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"

namespace {

using quorum::kube::Json;
const quorum::kube::GroupVersionResource kPg{"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
const quorum::kube::GroupVersionResource kPgBackups{"postgres.quorum.dev", "v1alpha1",
                                                    "postgresbackups"};
const quorum::kube::GroupVersionResource kEtcd{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const quorum::kube::GroupVersionResource kEtcdBackups{"etcd.aenix.io", "v1alpha1", "etcdbackups"};
const quorum::kube::GroupVersionResource kSecrets{"", "v1", "secrets"};

struct Options {
  std::string kubeconfig, ns, exec, etcdctl, etcd_s3_endpoint;
  int pg_rows = 1100000;  // ~1 KB each: ~1.2 GB with indexes and overhead
  int etcd_mb = 100;
  bool pg = true, etcd = true;  // --only pg|etcd
  // --pg-data random (default): ~1 KB of random hex per row, which compresses
  // about 2x; repeated: one md5 repeated, which compresses ~30x.
  bool pg_random = true;
};

// Runs a command; its exit code and standard output.
std::pair<int, std::string> Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  return {pclose(p), out};
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool WaitFor(const std::function<bool()>& done, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (absl::Now() < until) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(250));
  }
  return false;
}

bool Ready(quorum::kube::Client& c, const quorum::kube::GroupVersionResource& gvr,
           const std::string& ns, const std::string& name) {
  auto o = c.Get(gvr, ns, name);
  if (!o.ok()) return false;
  for (const Json& cond : o->value("status", Json::object()).value("conditions", Json::array()))
    if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
  return false;
}

class Bench {
 public:
  Bench(quorum::kube::Client& c, Options o) : c_(c), o_(std::move(o)) {}

  // psql as the cluster's superuser through its primary Service, over TLS.
  std::pair<int, std::string> Sql(const std::string& cluster, const std::string& sql) {
    auto s = c_.Get(kSecrets, o_.ns, cluster + "-superuser");
    if (!s.ok()) return {1, ""};
    std::string uri, ca;
    absl::Base64Unescape(s->value("data", Json::object()).value("uri", ""), &uri);
    absl::Base64Unescape(s->value("data", Json::object()).value("ca.crt", ""), &ca);
    const std::string ca_file = "/tmp/backup-bench-" + cluster + "-ca.crt";
    if (FILE* f = std::fopen(ca_file.c_str(), "w")) {
      std::fputs(ca.c_str(), f);
      std::fclose(f);
    }
    uri += (uri.find('?') == std::string::npos ? "?" : "&") + std::string("sslrootcert=") + ca_file;
    return Run(absl::StrCat(o_.exec, " psql ", Quote(uri), " -XAtq -v ON_ERROR_STOP=1 -c ",
                            Quote(sql), " 2>&1"));
  }

  Json Repo() const {
    return {{"name", "repo1"},
            {"s3",
             {{"bucket", "quorum-backups"},
              {"endpoint", absl::StrCat("s3.", o_.ns, ".svc")},
              {"region", "us-east-1"}}}};
  }
  Json Global() const {
    return {{"repo1-s3-uri-style", "path"},
            {"repo1-storage-ca-file", "/etc/pgbackrest/conf.d/ca.crt"},
            {"start-fast", "y"}};
  }

  Json Cluster(const std::string& name) const {
    return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", name}, {"namespace", o_.ns}}},
            {"spec",
             {{"postgresVersion", 15},
              {"instances",
               Json::array({{{"name", "main"},
                             {"replicas", 1},
                             {"dataVolumeClaimSpec",
                              {{"accessModes", Json::array({"ReadWriteOnce"})},
                               {"resources", {{"requests", {{"storage", "5Gi"}}}}}}}}})}}}};
  }

  // The object's status once its phase is final (or at the timeout).
  Json WaitPhase(const quorum::kube::GroupVersionResource& gvr, const std::string& name,
                 absl::Duration timeout) {
    Json status;
    WaitFor(
        [&] {
          auto b = c_.Get(gvr, o_.ns, name);
          if (!b.ok()) return false;
          status = b->value("status", Json::object());
          const std::string p = status.value("phase", "");
          return p == "Complete" || p == "Failed";
        },
        timeout);
    return status;
  }

  int PgBackRest();
  int Etcd();
  // 1000 rows of table `later` committed, the time T returned (RFC 3339,
  // UTC), 1000 more committed after it, and all of it archived; "" on error.
  std::string RowsAroundATime(const std::string& cluster);

 private:
  quorum::kube::Client& c_;
  Options o_;
};

double Mb(int64_t bytes) { return static_cast<double>(bytes) / 1e6; }

std::string Bench::RowsAroundATime(const std::string& cluster) {
  // Two statements: one psql -c string is one transaction, which would
  // commit the rows after the time it reads.
  std::pair<int, std::string> r =
      Sql(cluster,
          "create table later(id int primary key); insert into later select generate_series(1, "
          "1000);");
  if (r.first == 0) {
    r = Sql(cluster,
            "select to_char(clock_timestamp() at time zone 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"');");
  }
  const std::string target(absl::StripAsciiWhitespace(r.second));
  if (r.first != 0) {
    std::fprintf(stderr, "rows before T: %s\n", r.second.c_str());
    return "";
  }
  // The later rows commit clearly after T; then everything is archived.
  WaitFor(
      [&] {
        return absl::StripAsciiWhitespace(
                   Sql(cluster, absl::StrCat("select clock_timestamp() > '", target,
                                             "'::timestamptz + interval '1 second';"))
                       .second) == "t";
      },
      absl::Seconds(30));
  r = Sql(cluster, "insert into later select generate_series(1001, 2000);");
  if (r.first == 0) r = Sql(cluster, "select pg_walfile_name(pg_switch_wal());");
  const std::string segment(absl::StripAsciiWhitespace(r.second));
  const bool archived = WaitFor(
      [&] {
        return std::string(absl::StripAsciiWhitespace(
                   Sql(cluster, "select coalesce(last_archived_wal, '') from pg_stat_archiver;")
                       .second)) >= segment;
      },
      absl::Minutes(3));
  if (r.first != 0 || !archived) {
    std::fprintf(stderr, "rows after T, or their archiving, failed: %s\n", r.second.c_str());
    return "";
  }
  return target;
}

int Bench::PgBackRest() {
  Json source = Cluster("big");
  source["spec"]["backups"] = {
      {"pgbackrest",
       {{"repos", Json::array({Repo()})},
        {"configuration", Json::array({{{"secret", {{"name", "pgbackrest-s3"}}}}})},
        {"global", Global()}}}};
  if (!c_.Create(kPg, o_.ns, source).ok()) return 1;
  if (!WaitFor([&] { return Ready(c_, kPg, o_.ns, "big"); }, absl::Minutes(8))) {
    std::fprintf(stderr, "PostgresCluster big never Ready\n");
    return 1;
  }
  absl::Time t0 = absl::Now();
  std::pair<int, std::string> load;
  WaitFor(
      [&] {
        load = Sql("big",
                   absl::StrCat("set client_min_messages = warning; drop table if exists big; "
                                "create table big as select g as id, ",
                                o_.pg_random ? "(select string_agg(md5(random()::text), '') from "
                                               "generate_series(1, 30) s where g > 0)"
                                             : "repeat(md5(g::text), 30)",
                                " as v from generate_series(1, ", o_.pg_rows,
                                ") g; select pg_database_size(current_database());"));
        return load.first == 0;
      },
      absl::Minutes(20));
  if (load.first != 0) {
    std::fprintf(stderr, "load failed: %s\n", load.second.c_str());
    return 1;
  }
  int64_t db_bytes = 0;
  (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(load.second), &db_bytes);
  std::printf("pgbackrest: database %.0f MB (%d rows of ~1 KB, %s), loaded in %.1f s\n",
              Mb(db_bytes), o_.pg_rows, o_.pg_random ? "random hex" : "one md5 repeated",
              absl::ToDoubleSeconds(absl::Now() - t0));

  const Json backup = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
                       {"kind", "PostgresBackup"},
                       {"metadata", {{"name", "full"}, {"namespace", o_.ns}}},
                       {"spec", {{"clusterRef", {{"name", "big"}}}, {"repoName", "repo1"}}}};
  t0 = absl::Now();
  if (!c_.Create(kPgBackups, o_.ns, backup).ok()) return 1;
  const Json status = WaitPhase(kPgBackups, "full", absl::Minutes(60));
  const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
  if (status.value("phase", "") != "Complete") {
    std::fprintf(stderr, "backup: %s\n", status.dump().c_str());
    return 1;
  }
  const Json& b = status["backup"];
  absl::Time start, stop;
  std::string err;
  const bool times = absl::ParseTime(absl::RFC3339_full, b.value("startTime", ""), &start, &err) &&
                     absl::ParseTime(absl::RFC3339_full, b.value("stopTime", ""), &stop, &err);
  const double secs = times ? absl::ToDoubleSeconds(stop - start) : 0;
  const int64_t size = b.value("size", int64_t{0}), stored = b.value("repoSize", int64_t{0});
  std::printf(
      "pgbackrest: full backup of %.0f MB: %.0f s (pgBackRest's start to stop), %.1f MB/s; "
      "create to Complete %.1f s; stored %.0f MB (%.1fx smaller)\n",
      Mb(size), secs, secs > 0 ? Mb(size) / secs : 0, wall, Mb(stored),
      stored > 0 ? static_cast<double>(size) / stored : 0);

  const std::string target = RowsAroundATime("big");
  if (target.empty()) return 1;
  Json restored = Cluster("big-restored");
  restored["spec"]["dataSource"] = {
      {"pgbackrest",
       {{"clusterName", "big"},
        {"repo", Repo()},
        {"configuration", Json::array({{{"secret", {{"name", "pgbackrest-s3"}}}}})},
        {"global",
         {{"repo1-s3-uri-style", "path"},
          {"repo1-storage-ca-file", "/etc/pgbackrest/restore.d/ca.crt"}}},
        {"target", {{"time", target}}}}}};
  t0 = absl::Now();
  if (!c_.Create(kPg, o_.ns, restored).ok()) return 1;
  if (!WaitFor([&] { return Ready(c_, kPg, o_.ns, "big-restored"); }, absl::Minutes(60))) {
    std::fprintf(stderr, "big-restored never Ready\n");
    return 1;
  }
  const double ready = absl::ToDoubleSeconds(absl::Now() - t0);
  std::pair<int, std::string> count;
  WaitFor(
      [&] {
        count = Sql("big-restored", "select count(*), (select count(*) from later) from big;");
        return count.first == 0;
      },
      absl::Minutes(5));
  const double answered = absl::ToDoubleSeconds(absl::Now() - t0);
  const std::string counts(absl::StripAsciiWhitespace(count.second));
  std::printf(
      "pgbackrest: point-in-time restore into a new cluster (to %s): create to Ready %.1f s, "
      "to the first query %.1f s (rows of big|later: %s)\n",
      target.c_str(), ready, answered, counts.c_str());
  const std::string want = absl::StrCat(o_.pg_rows, "|1000");
  if (counts != want) std::fprintf(stderr, "want %s rows after the restore\n", want.c_str());
  return count.first == 0 && counts == want ? 0 : 1;
}

int Bench::Etcd() {
  const Json cluster = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                        {"kind", "EtcdCluster"},
                        {"metadata", {{"name", "snap"}, {"namespace", o_.ns}}},
                        {"spec", {{"replicas", 3}, {"storage", {{"emptyDir", Json::object()}}}}}};
  if (!c_.Create(kEtcd, o_.ns, cluster).ok()) return 1;
  if (!WaitFor([&] { return Ready(c_, kEtcd, o_.ns, "snap"); }, absl::Minutes(8))) {
    std::fprintf(stderr, "EtcdCluster snap never Ready\n");
    return 1;
  }
  auto e = c_.Get(kEtcd, o_.ns, "snap");
  const std::string endpoint = e->value("status", Json::object()).value("clientEndpoint", "");
  // 100 KB values (75 KB of random bytes in base64): o_.etcd_mb * 10 keys.
  absl::Time t0 = absl::Now();
  const std::string load = absl::StrCat(
      "for i in $(seq 1 ", o_.etcd_mb * 10, "); do head -c 75000 /dev/urandom | base64 -w0 | ",
      o_.etcdctl, " --endpoints=", endpoint, " put key$i >/dev/null || exit 1; done");
  auto loaded = Run(absl::StrCat(o_.exec, " sh -c ", Quote(load), " 2>&1"));
  if (loaded.first != 0) {
    std::fprintf(stderr, "etcd load failed: %s\n", loaded.second.c_str());
    return 1;
  }
  std::printf("etcd: %d MB written (%d keys of 100 KB) in %.1f s\n", o_.etcd_mb, o_.etcd_mb * 10,
              absl::ToDoubleSeconds(absl::Now() - t0));
  const Json backup = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                       {"kind", "EtcdBackup"},
                       {"metadata", {{"name", "snap-1"}, {"namespace", o_.ns}}},
                       {"spec",
                        {{"clusterRef", {{"name", "snap"}}},
                         {"destination",
                          {{"s3",
                            {{"endpoint", o_.etcd_s3_endpoint},
                             {"bucket", "quorum-backups"},
                             {"forcePathStyle", true},
                             {"credentialsSecretRef", {{"name", "s3-creds"}}}}}}}}}};
  t0 = absl::Now();
  if (!c_.Create(kEtcdBackups, o_.ns, backup).ok()) return 1;
  const Json status = WaitPhase(kEtcdBackups, "snap-1", absl::Minutes(30));
  const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
  if (status.value("phase", "") != "Complete") {
    std::fprintf(stderr, "etcd backup: %s\n", status.dump().c_str());
    return 1;
  }
  const int64_t size = status["snapshot"].value("size", int64_t{0});
  std::printf("etcd: snapshot to S3: create to Complete %.1f s, %.0f MB (revision %lld)\n", wall,
              Mb(size), static_cast<long long>(status["snapshot"].value("revision", int64_t{0})));
  return 0;
}

int Main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as soon as it is known
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--kubeconfig") {
      o.kubeconfig = value;
    } else if (flag == "--namespace") {
      o.ns = value;
    } else if (flag == "--exec") {
      o.exec = value;
    } else if (flag == "--etcdctl") {
      o.etcdctl = value;
    } else if (flag == "--etcd-s3-endpoint") {
      o.etcd_s3_endpoint = value;
    } else if (flag == "--pg-rows" && absl::SimpleAtoi(value, &o.pg_rows)) {
    } else if (flag == "--etcd-mb" && absl::SimpleAtoi(value, &o.etcd_mb)) {
    } else if (flag == "--pg-data" && (value == "random" || value == "repeated")) {
      o.pg_random = value == "random";
    } else if (flag == "--only" && (value == "pg" || value == "etcd")) {
      o.pg = value == "pg";
      o.etcd = value == "etcd";
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (o.ns.empty() || o.exec.empty() || o.etcdctl.empty() || o.etcd_s3_endpoint.empty()) {
    std::fprintf(stderr, "--namespace, --exec, --etcdctl and --etcd-s3-endpoint are required\n");
    return 2;
  }
  auto config = quorum::kube::LoadKubeconfigFile(o.kubeconfig);
  if (!config.ok()) return 1;
  auto client = quorum::kube::Client::Create(*config);
  if (!client.ok()) return 1;
  Bench bench(**client, o);
  const int pg = o.pg ? bench.PgBackRest() : 0;
  const int etcd = o.etcd ? bench.Etcd() : 0;
  return pg != 0 ? pg : etcd;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
