#!/usr/bin/env bash
# lint.sh builds the golangci-lint pinned in hack/tools/go.mod into hack/tools/bin (a no-op
# when it is up to date) and runs it with .golangci.yml, then go vet. Arguments replace the
# default ./... package pattern.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

golangci_lint="${NETFORK_ROOT}/hack/tools/bin/golangci-lint"
# go build reuses its cache, so this only compiles after a version bump.
netfork::run go -C hack/tools build -o "${golangci_lint}" \
  github.com/golangci/golangci-lint/v2/cmd/golangci-lint

if [[ $# -eq 0 ]]; then
  set -- ./...
fi
failed=0
netfork::run "${golangci_lint}" run "$@" || failed=1
netfork::run go vet "$@" || failed=1
exit "${failed}"
