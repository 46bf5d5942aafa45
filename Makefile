# netfork's Makefile only names the entry points; each target runs one hack/ script, which
# is where the work (and its documentation) lives.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help
.SUFFIXES:

# Variables the scripts read; set them on the command line, e.g. make test-unit VERBOSE=1.
#   WHAT        build.sh: command dirs (cmd/local-up); test-*.sh: package patterns
#   ARGS        run: arguments for local-up; after "--" they go to every kube-apiserver
#               bench: arguments for hack/bench-services (e.g. ARGS=--full)
#   VERBOSE=1   test-*.sh: go test -v
#   GOTESTFLAGS test-*.sh: more go test flags
export WHAT VERBOSE GOTESTFLAGS

.PHONY: help
help: ## Show the targets and what they do.
	@echo "usage: make <target> [WHAT=...] [ARGS=...] [VERBOSE=1]"
	@awk 'BEGIN { FS = ":.*## " } /^[a-z0-9-]+:.*## / { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build _output/bin/kube-apiserver and local-up (WHAT=cmd/local-up builds one).
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
test-e2e: ## Run the ginkgo e2e suite against $KUBECONFIG (default: the make run cluster).
	hack/test-e2e.sh

.PHONY: test-netns
test-netns: build ## Run the netns e2e specs on 3 dual-stack apiservers in network namespaces (root; else SKIP).
	hack/local-up-netns.sh --test

.PHONY: bench
bench: build ## Benchmark Service create/delete, netfork vs upstream (short; ARGS=--full for all).
	hack/bench.sh $(ARGS)

.PHONY: lint
lint: ## Run golangci-lint (pinned in hack/tools) and go vet.
	hack/lint.sh

.PHONY: verify
verify: ## Run every hack/verify-*.sh check (pins, gofmt, go mod tidy).
	hack/verify.sh

.PHONY: clean
clean: ## Remove _output and hack/tools/bin.
	hack/clean.sh
