#include "src/runtime/transforms.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::runtime {
namespace {

TEST(TransformsTest, StripPodKeepsWhatControllersRead) {
  Json pod = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "e-0", "namespace": "db", "uid": "u1", "resourceVersion": "7",
      "labels": {"app.kubernetes.io/instance": "e", "controller-revision-hash": "r1"},
      "annotations": {"status": "{\"big\": \"patroni state\"}"},
      "ownerReferences": [{"uid": "s1", "kind": "StatefulSet"}],
      "deletionTimestamp": "2026-12-01T00:00:00Z"},
    "spec": {"nodeName": "n1", "containers": [{"name": "etcd", "image": "etcd"}]},
    "status": {"phase": "Running", "podIP": "10.244.0.5", "hostIP": "10.1.1.1",
      "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null,
                      "lastTransitionTime": "2026-12-01T00:00:00Z"}],
      "containerStatuses": [{"name": "etcd", "ready": true, "restartCount": 3,
        "image": "etcd", "imageID": "sha", "containerID": "c",
        "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}})");
  StripPod(pod);
  const Json want = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "e-0", "namespace": "db", "uid": "u1", "resourceVersion": "7",
      "labels": {"app.kubernetes.io/instance": "e", "controller-revision-hash": "r1"},
      "ownerReferences": [{"uid": "s1", "kind": "StatefulSet"}],
      "deletionTimestamp": "2026-12-01T00:00:00Z"},
    "spec": {"nodeName": "n1"},
    "status": {"phase": "Running", "podIP": "10.244.0.5",
      "conditions": [{"type": "Ready", "status": "True"}],
      "containerStatuses": [{"name": "etcd", "ready": true, "restartCount": 3,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}})");
  EXPECT_EQ(pod, want) << pod.dump(2);
}

TEST(TransformsTest, StripStatefulSetStatusKeepsWhatControllersRead) {
  Json sts = Json::parse(R"({
    "metadata": {"name": "pg-main", "generation": 4, "labels": {"a": "b"}},
    "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "postgres"}]}}},
    "status": {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 1, "availableReplicas": 2,
      "currentReplicas": 2, "observedGeneration": 4, "currentRevision": "r1",
      "updateRevision": "r2", "collisionCount": 0,
      "conditions": [{"type": "X", "status": "True"}]}})");
  Json want = sts;
  want["status"] = Json::parse(R"({"replicas": 3, "readyReplicas": 2, "updatedReplicas": 1,
      "observedGeneration": 4, "currentRevision": "r1", "updateRevision": "r2"})");
  StripStatefulSetStatus(sts);
  EXPECT_EQ(sts, want) << sts.dump(2);
  Json no_status = {{"metadata", {{"name", "x"}}}};
  StripStatefulSetStatus(no_status);
  EXPECT_EQ(no_status, (Json{{"metadata", {{"name", "x"}}}}));
}

TEST(TransformsTest, OddShapesAreLeftAlone) {
  Json not_object = Json::array({1, 2});
  StripPod(not_object);
  DropStatus(not_object);
  EXPECT_EQ(not_object, Json::array({1, 2}));
  Json pod = {{"metadata", "x"}, {"spec", 3}, {"status", {{"conditions", "y"}}}};
  StripPod(pod);
  EXPECT_EQ(pod["status"]["conditions"], "y");
  Json svc = {{"spec", {{"type", "ClusterIP"}}}, {"status", {{"loadBalancer", Json::object()}}}};
  DropStatus(svc);
  EXPECT_FALSE(svc.contains("status"));
}

}  // namespace
}  // namespace quorum::runtime
