#include "src/runtime/store.h"

#include <gtest/gtest.h>

namespace quorum::runtime {
namespace {

ObjectPtr Obj(const std::string& ns, const std::string& name, const std::string& rv,
              Json extra = Json::object()) {
  Json o = {{"metadata", {{"name", name}, {"resourceVersion", rv}}}};
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  o.merge_patch(extra);
  return std::make_shared<const Json>(std::move(o));
}

std::vector<std::string> Names(const std::vector<ObjectPtr>& objs) {
  std::vector<std::string> out;
  for (const auto& o : objs) out.push_back((*o)["metadata"]["name"]);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StoreTest, KeysAreNamespaceSlashNameOrJustName) {
  EXPECT_EQ(ObjectKey(*Obj("db", "a", "1")), "db/a");
  EXPECT_EQ(ObjectKey(*Obj("", "node-1", "1")), "node-1");
  EXPECT_EQ(ObjectKey(Json::array()), "");
}

TEST(StoreTest, UpsertGetDeleteKeepOldSnapshotsIntact) {
  Store store;
  EXPECT_EQ(store.Upsert(Obj("db", "a", "1")), nullptr);
  ObjectPtr first = store.Get("db/a");
  ObjectPtr old = store.Upsert(Obj("db", "a", "2"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ((*old)["metadata"]["resourceVersion"], "1");
  EXPECT_EQ((*first)["metadata"]["resourceVersion"], "1") << "readers keep their snapshot";
  EXPECT_EQ((*store.Get("db/a"))["metadata"]["resourceVersion"], "2");
  EXPECT_EQ(store.ListNamespace("db").size(), 1u) << "an update keeps the object indexed";
  EXPECT_NE(store.Delete("db/a"), nullptr);
  EXPECT_EQ(store.Get("db/a"), nullptr);
  EXPECT_EQ(store.Delete("db/a"), nullptr);
}

TEST(StoreTest, PackedBytesFollowUpsertsReplacesAndDeletes) {
  Store store;
  EXPECT_EQ(store.packed_bytes(), 0u);
  store.Upsert(Obj("db", "a", "1"));
  const size_t one = store.packed_bytes();
  EXPECT_GT(one, 0u);
  std::string noise;  // does not compress, not even against itself as the dictionary
  for (uint32_t x = 7; noise.size() < 1000;) {
    x = x * 1103515245 + 12345;
    noise.push_back(static_cast<char>('a' + (x >> 16) % 26));
  }
  store.Upsert(Obj("db", "a", "2", {{"data", {{"k", noise}}}}));
  store.Upsert(Obj("db", "a", "3", {{"data", {{"k", std::string(noise.rbegin(), noise.rend())}}}}));
  EXPECT_GT(store.packed_bytes(), one + 500) << "a bigger version replaces the smaller";
  store.Upsert(Obj("db", "a", "4"));
  const size_t again = store.packed_bytes();
  store.Upsert(Obj("db", "b", "1"));
  EXPECT_GT(store.packed_bytes(), again);
  store.Replace("db", {Obj("db", "b", "1")});
  EXPECT_LT(store.packed_bytes(), again + 8) << "a relist that drops an object frees its bytes";
  store.Delete("db/b");
  EXPECT_EQ(store.packed_bytes(), 0u);
}

TEST(StoreTest, AlikeObjectsArePackedSmallAndReadBackWhole) {
  Store store;
  auto sts = [](int i) {
    Json containers = Json::array();
    for (const char* c : {"etcd", "metrics", "backup"}) {
      containers.push_back({{"name", c},
                            {"image", "registry.k8s.io/etcd:3.6.16"},
                            {"args",
                             {"--name=$(POD_NAME)", "--data-dir=/var/lib/etcd",
                              "--listen-client-urls=https://0.0.0.0:2379"}}});
    }
    return Obj(
        "db", "etcd-" + std::to_string(i), std::to_string(100 + i),
        {{"spec", {{"replicas", 3}, {"template", {{"spec", {{"containers", containers}}}}}}}});
  };
  size_t plain = 0;
  for (int i = 0; i < 50; ++i) {
    ObjectPtr o = sts(i);
    plain += Json::to_msgpack(*o).size();
    store.Upsert(o);
  }
  EXPECT_LT(store.packed_bytes() * 3, plain) << "alike objects compress against each other";
  for (int i = 0; i < 50; ++i) {
    ObjectPtr got = store.Get("db/etcd-" + std::to_string(i));
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(*got, *sts(i)) << i;
  }
  store.Delete("db/etcd-0");  // the object the dictionary came from
  EXPECT_EQ(*store.Get("db/etcd-7"), *sts(7)) << "the dictionary outlives its object";

  Store uncompressed(/*compress=*/false);
  size_t msgpack_bytes = 0;
  for (int i = 0; i < 5; ++i) {
    uncompressed.Upsert(sts(i));
    msgpack_bytes += Json::to_msgpack(*sts(i)).size();
  }
  EXPECT_GE(uncompressed.packed_bytes(), msgpack_bytes) << "uncompressed when asked";
  EXPECT_EQ(*uncompressed.Get("db/etcd-3"), *sts(3));
}

TEST(StoreTest, NamespaceAndControllerIndexesFollowChanges) {
  Store store;
  Json owned = {
      {"metadata",
       {{"ownerReferences", Json::array({{{"kind", "Other"}, {"name", "x"}, {"uid", "u-0"}},
                                         {{"kind", "EtcdCluster"},
                                          {"name", "main"},
                                          {"uid", "u-1"},
                                          {"controller", true}}})}}}};
  store.Upsert(Obj("db", "a", "1", owned));
  store.Upsert(Obj("db", "b", "1"));
  store.Upsert(Obj("web", "c", "1", owned));
  EXPECT_EQ(Names(store.ListNamespace("db")), (std::vector<std::string>{"a", "b"}));
  const std::string main = "EtcdCluster/main/u-1";
  EXPECT_EQ(Names(store.ByIndex(kControllerIndex, main)), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(store.IndexedValues(kNamespaceIndex, "db", kControllerIndex),
            (std::vector<std::pair<std::string, std::string>>{{"db/a", main}}))
      << "b has no controller";
  // update moves "a" out of the controller index; merge() keeps namespace/name
  Json moved = *store.Get("db/a");
  moved["metadata"].erase("ownerReferences");
  store.Upsert(std::make_shared<const Json>(moved));
  EXPECT_EQ(Names(store.ByIndex(kControllerIndex, main)), (std::vector<std::string>{"c"}));
  EXPECT_TRUE(store.IndexedValues(kNamespaceIndex, "db", kControllerIndex).empty());
  store.Delete("web/c");
  EXPECT_TRUE(store.ByIndex(kControllerIndex, main).empty());
  EXPECT_TRUE(store.IndexedValues("no-such-index", "x", kControllerIndex).empty());
  EXPECT_TRUE(store.ByIndex("no-such-index", "x").empty());
}

TEST(StoreTest, CustomIndexCoversExistingAndNewObjects) {
  Store store;
  store.Upsert(Obj("db", "pg", "1", {{"spec", {{"secret", "creds"}}}}));
  store.AddIndex("secret", [](const Json& o) -> std::vector<std::string> {
    if (!o.contains("spec")) return {};
    return {o["metadata"]["namespace"].get<std::string>() + "/" +
            o["spec"]["secret"].get<std::string>()};
  });
  store.Upsert(Obj("db", "pg2", "1", {{"spec", {{"secret", "creds"}}}}));
  store.Upsert(Obj("db", "pg3", "1", {{"spec", {{"secret", "other"}}}}));
  EXPECT_EQ(Names(store.ByIndex("secret", "db/creds")), (std::vector<std::string>{"pg", "pg2"}));
}

TEST(StoreTest, RedefinedIndexAndRepeatedValuesStayConsistent) {
  Store store;
  // The same value twice: filed once, gone after one delete.
  store.AddIndex("twice", [](const Json& o) -> std::vector<std::string> {
    if (!o["metadata"].contains("tag")) return {};
    return {"t", "t"};
  });
  Json tagged = {{"metadata", {{"tag", true}}}};
  store.Upsert(Obj("db", "a", "1", tagged));
  store.Upsert(Obj("db", "b", "1", tagged));
  EXPECT_EQ(Names(store.ByIndex("twice", "t")), (std::vector<std::string>{"a", "b"}));
  store.Upsert(Obj("db", "a", "2", tagged));  // an update refiles under the same value
  store.Delete("db/b");
  EXPECT_EQ(Names(store.ByIndex("twice", "t")), (std::vector<std::string>{"a"}));
  // Redefining an index refiles every object; later updates and deletes follow it.
  store.AddIndex("first", [](const Json&) { return std::vector<std::string>{"x"}; });
  store.AddIndex("first", [](const Json& o) {
    return std::vector<std::string>{o["metadata"]["name"].get<std::string>()};
  });
  EXPECT_TRUE(store.ByIndex("first", "x").empty());
  EXPECT_EQ(Names(store.ByIndex("first", "a")), (std::vector<std::string>{"a"}));
  store.Upsert(Obj("db", "a", "3"));
  store.Delete("db/a");
  EXPECT_TRUE(store.ByIndex("first", "a").empty());
  EXPECT_TRUE(store.ByIndex("twice", "t").empty());
  EXPECT_EQ(store.size(), 0u);
}

TEST(StoreTest, ReplaceReportsOnlyTheDifferenceWithinItsNamespace) {
  Store store;
  store.Upsert(Obj("db", "same", "1"));
  store.Upsert(Obj("db", "changed", "1"));
  store.Upsert(Obj("db", "gone", "1"));
  store.Upsert(Obj("web", "untouched", "1"));
  ReplaceDelta d = store.Replace(
      "db", {Obj("db", "same", "1"), Obj("db", "changed", "2"), Obj("db", "new", "1")});
  EXPECT_EQ(Names(d.added), (std::vector<std::string>{"new"}));
  ASSERT_EQ(d.updated.size(), 1u);
  EXPECT_EQ((*d.updated[0].first)["metadata"]["resourceVersion"], "1");
  EXPECT_EQ((*d.updated[0].second)["metadata"]["resourceVersion"], "2");
  EXPECT_EQ(Names(d.deleted), (std::vector<std::string>{"gone"}));
  EXPECT_NE(store.Get("web/untouched"), nullptr) << "other namespaces are not replaced";
  EXPECT_EQ(store.size(), 4u);

  ReplaceDelta all = store.Replace("", {});
  EXPECT_EQ(all.deleted.size(), 4u);
  EXPECT_EQ(store.size(), 0u);
}

}  // namespace
}  // namespace quorum::runtime

namespace quorum::runtime {
namespace {

TEST(StoreTest, InstanceIndexFindsOneClustersObjectsOnly) {
  Store store;
  auto labelled = [](const std::string& ns, const std::string& name, const std::string& inst) {
    return Obj(ns, name, "1", {{"metadata", {{"labels", {{kInstanceLabel, inst}}}}}});
  };
  store.Upsert(labelled("db", "a-0", "a"));
  store.Upsert(labelled("db", "a-1", "a"));
  store.Upsert(labelled("db", "b-0", "b"));
  store.Upsert(labelled("other", "a-0", "a"));
  store.Upsert(Obj("db", "plain", "1"));
  EXPECT_EQ(Names(store.ByIndex(kInstanceIndex, "db/a")), (std::vector<std::string>{"a-0", "a-1"}));
  store.Upsert(labelled("db", "a-1", "b"));  // relabelled: moves to b
  EXPECT_EQ(Names(store.ByIndex(kInstanceIndex, "db/a")), (std::vector<std::string>{"a-0"}));
  EXPECT_EQ(Names(store.ByIndex(kInstanceIndex, "db/b")), (std::vector<std::string>{"a-1", "b-0"}));
}

TEST(StoreTest, ReadersHoldingAnObjectShareOneDecode) {
  Store store;
  store.Upsert(Obj("db", "a", "1"));
  ObjectPtr first = store.Get("db/a");
  ObjectPtr second = store.Get("db/a");
  EXPECT_EQ(first.get(), second.get()) << "decoded once while a reader holds it";
  EXPECT_EQ(store.ByIndex(kNamespaceIndex, "db").front().get(), first.get());
  store.Upsert(Obj("db", "a", "2"));
  ObjectPtr third = store.Get("db/a");
  EXPECT_EQ((*third)["metadata"]["resourceVersion"], "2") << "a new version is a new snapshot";
  EXPECT_EQ((*first)["metadata"]["resourceVersion"], "1");
  first.reset();
  second.reset();
  third.reset();
  EXPECT_EQ((*store.Get("db/a"))["metadata"]["resourceVersion"], "2") << "decoded again";
}

TEST(StoreTest, AReadScopeKeepsWhatItsThreadReadDecodedUntilItEnds) {
  Store store;
  store.Upsert(Obj("db", "a", "1"));
  store.Upsert(Obj("db", "b", "1"));
  std::weak_ptr<const Json> a_seen;
  {
    ReadScope reads;
    const Json* first = store.Get("db/a").get();  // the caller lets go at once
    a_seen = store.Get("db/a");
    EXPECT_EQ(store.Get("db/a").get(), first) << "decoded once within the scope";
    {
      ReadScope inner;
      EXPECT_EQ(store.ByIndex(kNamespaceIndex, "db").size(), 2u);
    }
    EXPECT_FALSE(a_seen.expired());
  }
  EXPECT_TRUE(a_seen.expired()) << "the scope's end lets the snapshot go";
  std::weak_ptr<const Json> b_seen = store.Get("db/b");
  EXPECT_TRUE(b_seen.expired()) << "no scope: nothing is held";
}

}  // namespace
}  // namespace quorum::runtime
