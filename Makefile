# Copyright 2026 The netfork Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# netfork's Makefile only names the entry points; each target runs one script of hack/ (build,
# test, verify) or kind/ (the kind path), which is where the work (and its documentation) lives.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help
.SUFFIXES:

# Variables the scripts read; set them on the command line, e.g. make test-unit VERBOSE=1.
#   WHAT        build.sh: command dirs (cmd/local-up); test-*.sh: package patterns
#   ARGS        run: arguments for local-up; after "--" they go to every kube-apiserver
#               bench: arguments for test/bench (e.g. ARGS=--full)
#               test-live-ranges: arguments for kind/live-ranges.sh (e.g. ARGS="--ip-family ipv4")
#   VERBOSE=1   test-*.sh: go test -v
#   GOTESTFLAGS test-*.sh: more go test flags
#   NAME        kind-up/kind-down: cluster name (default netfork)
#   TOPOLOGY    kind-up, test-e2e-kind, test-conformance: single, dual or ha;
#               test-live-ranges, bench-kind: single or ha
#   N, W, ROUNDS bench-kind: Services, client workers, rounds
#   APISERVER   test-conformance: netfork (default) or upstream (the pinned release's)
#   FOCUS       test-conformance: the specs, a ginkgo regexp (default '\[Conformance\]')
#   SKIP        test-conformance: leave out the focused specs this ginkgo regexp matches
#   SHARD       test-conformance: I/N, only the I-th of N stable slices of the focused specs
#   CLUSTER     test-conformance: run on this kind cluster (make kind-up NAME=...) and keep it
export WHAT VERBOSE GOTESTFLAGS APISERVER FOCUS SKIP SHARD CLUSTER

.PHONY: help
help: ## Show the targets and what they do.
	@echo "usage: make <target> [WHAT=...] [ARGS=...] [VERBOSE=1]"
	@awk 'BEGIN { FS = ":.*## " } /^[a-z0-9-]+:.*## / { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build _output/bin/kube-apiserver, local-up and kubectl-servicecidr (WHAT=cmd/local-up builds one).
	hack/build.sh

.PHONY: run
run: build ## Start a local control plane: make run ARGS="--apiservers 3 -- --feature-gates=DualStackAPIServer=true".
	$(CURDIR)/_output/bin/local-up $(ARGS)

.PHONY: test
test: build test-unit test-integration ## Build, then run unit and integration tests (what CI runs).

.PHONY: test-unit
test-unit: ## Run unit tests: every package outside test/ (VERBOSE=1, WHAT=./pkg/...).
	hack/test-unit.sh

.PHONY: test-integration
test-integration: ## Run test/integration on embedded etcd, one package at a time (VERBOSE=1).
	hack/test-integration.sh

.PHONY: test-e2e
test-e2e: ## Run the ginkgo e2e suite against $KUBECONFIG, or against a local-up it starts and stops.
	hack/test-e2e.sh

.PHONY: test-e2e-gates
test-e2e-gates: ## Run the feature-gate matrix: every valid gate combination on one kept local-up, checked, with the e2e suite.
	hack/test-e2e-gates.sh

.PHONY: test-upgrade
test-upgrade: ## Run the upgrade/downgrade scenarios with real upstream binaries (VERSIONS=v1.37.1,v1.36.3,v1.35.4,v1.33.13 for the skew peer and older ones).
	hack/upgrade-downgrade.sh

.PHONY: test-e2e-ci
test-e2e-ci: ## What CI runs after make test: the e2e suite, the gate matrix and the pinned release's upgrade scenarios, on local-up.
	hack/test-e2e-ci.sh

.PHONY: test-fidelity
test-fidelity: ## Run one Service scenario on netfork and on upstream's binary; fail on a difference test/fidelity/differences.yaml does not list.
	hack/test-fidelity.sh

.PHONY: test-netns
test-netns: build ## Run the netns e2e specs on 3 dual-stack apiservers in network namespaces (root; else SKIP).
	hack/local-up-netns.sh --test

.PHONY: bench
bench: build ## Benchmark Service create/delete, netfork vs upstream (short; ARGS=--full for all).
	hack/bench.sh $(ARGS)

.PHONY: bench-kind
bench-kind: ## Service churn on a kind cluster, netfork's apiserver vs upstream's on the same nodes: [TOPOLOGY=single|ha] [N=1000] [W=10] [ROUNDS=1].
	kind/bench.sh --topology "$(or $(TOPOLOGY),single)" --n "$(or $(N),1000)" --workers "$(or $(W),10)" --rounds "$(or $(ROUNDS),1)" $(ARGS)

.PHONY: lint
lint: ## Run golangci-lint (pinned in hack/tools), go vet's analyzers included.
	hack/lint.sh

.PHONY: verify
verify: ## Run every hack/verify-*.sh check (pins, gofmt, go mod tidy).
	hack/verify.sh

.PHONY: kind-image
kind-image: ## Build the kind node image netfork/kind-node:<version> offline (cached; see docs/kind.md).
	kind/image.sh

.PHONY: kind-up
kind-up: ## Create a contained kind cluster: make kind-up [NAME=netfork] [TOPOLOGY=single|dual|ha] [ARGS=...].
	kind/up.sh --name "$(or $(NAME),netfork)" --topology "$(or $(TOPOLOGY),single)" $(ARGS)

.PHONY: kind-down
kind-down: ## Delete a kind-up cluster, its network and firewall rules: make kind-down [NAME=netfork].
	kind/down.sh --name "$(or $(NAME),netfork)"

.PHONY: test-e2e-kind
test-e2e-kind: ## Image, fresh kind cluster, test/e2e with the data-path specs, logs on failure, cluster deleted.
	kind/e2e.sh --topology "$(or $(TOPOLOGY),dual)" $(ARGS)

.PHONY: test-live-ranges
test-live-ranges: ## Image, fresh kind cluster, the [Feature:LiveRanges] e2e specs (expand, renumber, day-2 dual-stack, probed), cluster deleted: [TOPOLOGY=single|ha] [ARGS=...].
	kind/live-ranges.sh --topology "$(or $(TOPOLOGY),single)" $(ARGS)

.PHONY: test-e2e-kind-upstream
test-e2e-kind-upstream: ## Upstream's e2e binary at go.mod's pin ([sig-network] Services, ServiceCIDRs) on a kind cluster.
	kind/e2e-upstream.sh $(ARGS)

.PHONY: test-conformance
test-conformance: ## Upstream's conformance suite on a fresh kind cluster: [APISERVER=upstream] [TOPOLOGY=...] [FOCUS=...] [SKIP=...] [SHARD=I/N] [CLUSTER=...].
	kind/conformance.sh --apiserver "$${APISERVER:-netfork}" $(if $(TOPOLOGY),--topology "$(TOPOLOGY)") \
	  $${FOCUS:+--focus "$$FOCUS"} $${SKIP:+--skip "$$SKIP"} $${SHARD:+--shard "$$SHARD"} $${CLUSTER:+--cluster "$$CLUSTER"} $(ARGS)

.PHONY: release-tarball
release-tarball: ## Write _output/release/kubernetes-server-linux-amd64.tar.gz for kind build node-image --type file.
	kind/release-tarball.sh

.PHONY: clean
clean: ## Remove _output and hack/tools/bin.
	hack/clean.sh
