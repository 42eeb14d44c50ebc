# Short commands for people and CI. The build itself is CMake (+ Ninja), the
# tests are CTest; CTest starts and stops the integration tests' control plane
# itself (a fixture), so nothing here has to.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
# Where the upstream binaries and the dev control plane live (outside the checkout).
QUORUM_CACHE ?= $(HOME)/.cache/quorum
export QUORUM_CACHE
DEV_CONTROLPLANE := $(QUORUM_CACHE)/dev-controlplane
FORMAT_DIRS := src test bench api cmd
BENCH_ARGS ?=
# make faults: which rows of the fault table (comma list; empty = all) and how often.
FAULT_ROWS ?=
FAULT_REPEAT ?= 3
# The node of the e2e tests and the demo: kubelet + containerd + runc, kube-proxy,
# CoreDNS, kube-scheduler and kube-router's NetworkPolicy firewall beside the control
# plane (hack/node.sh, docs/testbed.md).
NODE_SH := hack/node.sh
DEMO := hack/node-demo.sh

define cmake_build
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS)
endef

# The dev control plane is long-lived: no watchdog (QUORUM_OWNER_PID=none).
define controlplane_up
	QUORUM_OWNER_PID=none hack/controlplane.sh start "$(DEV_CONTROLPLANE)"
	@echo
	@echo "Use it with kubectl:"
	@echo "  source $(DEV_CONTROLPLANE)/env     # exports KUBECONFIG, QUORUM_APISERVER, QUORUM_BIN, ..."
	@echo "  \$$QUORUM_BIN/kubectl get namespaces"
	@echo "or: KUBECONFIG=$(DEV_CONTROLPLANE)/kubeconfig kubectl get namespaces"
	@echo "Stop it with: make controlplane-down"
endef

.PHONY: help deps build install test unit integration test-matrix format controlplane-up controlplane-down bench bench-scale bench-node bench-backup demo demo-down faults clean

help:
	@echo "make demo               control plane + a real node + operator + a sample EtcdCluster and PostgresCluster"
	@echo "make demo-down          stop everything make demo started"
	@echo "make test               install what is missing, build, run every test (ctest)"
	@echo "make deps               install missing Debian packages and build the pinned control-plane binaries"
	@echo "make build              configure and build with CMake + Ninja into $(BUILD_DIR)/"
	@echo "make install [PREFIX=~/.local]  build and install kubectl-quorum (\`kubectl quorum\`) into PREFIX/bin"
	@echo "make unit               build, then run the unit tests only"
	@echo "make integration        build, then run the integration tests only (real control plane)"
	@echo "make test-matrix        build, then the integration tests against each pinned Kubernetes minor"
	@echo "make format             clang-format -i the C++ sources"
	@echo "make controlplane-up    start the dev control plane in $(DEV_CONTROLPLANE)"
	@echo "make controlplane-down  stop it"
	@echo "make bench              build, start the dev control plane, run the kube client benchmark"
	@echo "make bench-scale N=1000 [UNRELATED=2000]  the operator process at scale on its own control plane"
	@echo "make bench-node         the real node: image build, node start/stop, EtcdCluster Ready, PostgreSQL failover"
	@echo "make bench-backup       the real node: pgBackRest full backup (MB/s) and restore of ~1 GB, an etcd snapshot of 100 MB"
	@echo "make faults [FAULT_ROWS=1,4 FAULT_REPEAT=1]  the fault table against the running demo (docs/reliability.md)"
	@echo "make clean              remove $(BUILD_DIR)/"

deps:
	hack/deps.sh

build:
	$(cmake_build)

# kubectl-quorum, the kubectl plugin (docs/kubectl-quorum.md), stripped, into
# $(PREFIX)/bin: kubectl finds it there when that folder is on PATH. The
# operator itself is installed as an image (deploy/quorum.yaml).
PREFIX ?= $(HOME)/.local
install:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target kubectl-quorum
	cmake --install $(BUILD_DIR) --prefix "$(PREFIX)" --strip

# CTest runs TEST_JOBS tests at a time (most tests wait on processes, not on
# the CPU): unit and integration tests side by side, the hidden-home demo
# before the node starts, then two e2e tests at a time on the node (resource
# `node` in test/ctest-resources.json); the e2e tests that touch cluster-wide
# objects run alone (RUN_SERIAL).
TEST_JOBS ?= 3
CTEST := ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error --parallel $(TEST_JOBS) \
	--resource-spec-file $(CURDIR)/test/ctest-resources.json

test: deps
	$(cmake_build)
	$(CTEST)

unit:
	$(cmake_build)
	$(CTEST) -L unit

integration:
	$(cmake_build)
	$(CTEST) -L integration

# The Kubernetes version matrix (hack/test-matrix.sh, docs/testbed.md): the
# integration tests against a control plane of each pinned minor (MATRIX_VERSIONS,
# default all: hack/tools/kube and hack/tools/kubeNN), then a table of the results.
# MATRIX_E2E=REGEX also runs the matching e2e tests on the real node per version.
MATRIX_VERSIONS ?=
MATRIX_E2E ?=
test-matrix:
	$(cmake_build)
	BUILD_DIR=$(BUILD_DIR) TEST_JOBS=$(TEST_JOBS) MATRIX_E2E='$(MATRIX_E2E)' hack/test-matrix.sh $(MATRIX_VERSIONS)

format:
	find $(FORMAT_DIRS) -type f \( -name '*.h' -o -name '*.cc' \) -print0 | xargs -0 -r clang-format -i

controlplane-up:
	$(controlplane_up)

controlplane-down:
	hack/controlplane.sh stop "$(DEV_CONTROLPLANE)"

bench:
	$(cmake_build)
	QUORUM_OWNER_PID=none hack/controlplane.sh start "$(DEV_CONTROLPLANE)"
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target kube_client_bench
	@test -x $(BUILD_DIR)/bench/kube_client_bench || { echo "$(BUILD_DIR)/bench/kube_client_bench was not built" >&2; exit 1; }
	source "$(DEV_CONTROLPLANE)/env" && $(BUILD_DIR)/bench/kube_client_bench $(BENCH_ARGS)
	@echo "(the dev control plane is still running: make controlplane-down stops it)"

# The operator at scale (docs/performance.md): a control plane of its own in
# $(BUILD_DIR)/bench-controlplane (stopped at the end), the CRDs, then
# bench/scale_bench with N EtcdClusters, N/10 PostgresClusters and UNRELATED
# ConfigMaps + Secrets in another namespace. Prints figures, asserts nothing.
N ?= 100
UNRELATED ?= 0
BENCH_SCALE_ARGS ?=
bench-scale:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target quorum-operator scale_bench
	dir="$(abspath $(BUILD_DIR))/bench-controlplane"; \
	QUORUM_OWNER_PID=$$$$ QUORUM_SERVICE_CIDR=10.0.0.0/16 hack/controlplane.sh start "$$dir"; \
	trap 'hack/controlplane.sh stop "$$dir"' EXIT; \
	source "$$dir/env"; \
	op="$(abspath $(BUILD_DIR))/cmd/quorum-operator"; \
	"$$op" crds | "$$QUORUM_BIN/kubectl" apply --server-side -f - >/dev/null; \
	for i in 1 2 3 4 5 6; do \
	  "$$QUORUM_BIN/kubectl" wait --for=condition=Established crd --all --timeout=60s >/dev/null 2>&1 && break; \
	  sleep 2; \
	done; \
	$(BUILD_DIR)/bench/scale_bench --operator "$$op" --kubeconfig "$$KUBECONFIG" \
	  --clusters $(N) --unrelated $(UNRELATED) $(BENCH_SCALE_ARGS)

# The real node's figures (docs/testbed.md): its own control plane and node in
# $(BUILD_DIR)/bench-controlplane, stopped at the end. One node per machine.
bench-node: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target quorum-operator etcdcluster_ready_bench postgrescluster_failover_bench
	hack/node-bench.sh $(BUILD_DIR) --runs 3

bench-backup: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target quorum-operator backup_bench
	hack/images.sh build >/dev/null
	hack/backup-bench.sh $(BUILD_DIR) $(BENCH_ARGS)

demo: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target quorum-operator kubectl-quorum
	$(DEMO) up "$(BUILD_DIR)" "$(DEV_CONTROLPLANE)"

demo-down:
	$(DEMO) down "$(DEV_CONTROLPLANE)"

# The fault table runs against the demo's test bed (make demo first), under the
# node's exec so that the Services' names resolve. All rows: docs/reliability.md.
faults:
	@test -f "$(DEV_CONTROLPLANE)/operator.pid" || { echo "make faults: no demo running (make demo first)"; exit 1; }
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target fault_table
	$(NODE_SH) exec "$(DEV_CONTROLPLANE)" -- "$(abspath $(BUILD_DIR))/test/faults/fault_table" \
	  --cp "$(DEV_CONTROLPLANE)" --faults "$(CURDIR)/hack/faults.sh" --repeat $(FAULT_REPEAT) \
	  $(if $(FAULT_ROWS),--rows $(FAULT_ROWS)) --out "$(abspath $(BUILD_DIR))/reliability.md"
	$(if $(FAULT_ROWS),,cp "$(BUILD_DIR)/reliability.md" docs/reliability.md)

clean:
	rm -rf $(BUILD_DIR)
