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
# The node of the e2e tests and the demo: local (the quorum-localnode stand-in) or
# real (kubelet + containerd + runc: hack/node.sh, docs/testbed.md).
QUORUM_NODE ?= local
export QUORUM_NODE
ifeq ($(QUORUM_NODE),real)
DEMO := hack/node-demo.sh
DEMO_TARGETS := quorum-operator
else
DEMO := hack/localnode-demo.sh
DEMO_TARGETS := quorum-operator quorum-localnode
endif

define cmake_build
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DQUORUM_NODE=$(QUORUM_NODE)
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

.PHONY: help deps build test unit integration format controlplane-up controlplane-down bench demo demo-down clean

help:
	@echo "make demo               control plane + node runtime + operator + a sample EtcdCluster and PostgresCluster"
	@echo "make demo-down          stop everything make demo started"
	@echo "make test               install what is missing, build, run every test (ctest)"
	@echo "make deps               install missing Debian packages and build the pinned control-plane binaries"
	@echo "make build              configure and build with CMake + Ninja into $(BUILD_DIR)/"
	@echo "make unit               build, then run the unit tests only"
	@echo "make integration        build, then run the integration tests only (real control plane)"
	@echo "make format             clang-format -i the C++ sources"
	@echo "make controlplane-up    start the dev control plane in $(DEV_CONTROLPLANE)"
	@echo "make controlplane-down  stop it"
	@echo "make bench              build, start the dev control plane, run the kube client benchmark"
	@echo "make clean              remove $(BUILD_DIR)/"

deps:
	hack/deps.sh

build:
	$(cmake_build)

test: deps
	$(cmake_build)
	ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error

unit:
	$(cmake_build)
	ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error -L unit

integration:
	$(cmake_build)
	ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error -L integration

format:
	find $(FORMAT_DIRS) -type f \( -name '*.h' -o -name '*.cc' \) -print0 | xargs -0 -r clang-format -i

controlplane-up:
	$(controlplane_up)

controlplane-down:
	hack/controlplane.sh stop "$(DEV_CONTROLPLANE)"

bench:
	$(cmake_build)
	QUORUM_OWNER_PID=none hack/controlplane.sh start "$(DEV_CONTROLPLANE)"
	@test -x $(BUILD_DIR)/bench/kube_client_bench || { echo "$(BUILD_DIR)/bench/kube_client_bench was not built" >&2; exit 1; }
	source "$(DEV_CONTROLPLANE)/env" && $(BUILD_DIR)/bench/kube_client_bench $(BENCH_ARGS)
	@echo "(the dev control plane is still running: make controlplane-down stops it)"

demo: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) --parallel $(JOBS) --target $(DEMO_TARGETS)
	$(DEMO) up "$(BUILD_DIR)" "$(DEV_CONTROLPLANE)"

demo-down:
	$(DEMO) down "$(DEV_CONTROLPLANE)"

clean:
	rm -rf $(BUILD_DIR)
