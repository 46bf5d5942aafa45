#!/usr/bin/env bash
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

# lint.sh builds the golangci-lint pinned in hack/tools/go.mod into hack/tools/bin (a no-op
# when it is up to date) and runs it with .golangci.yml. Its govet linter runs every analyzer
# go vet runs by default (unusedresult and waitgroup included), so go vet is not run again.
# Arguments replace the default ./... package pattern.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

golangci_lint="${NETFORK_ROOT}/hack/tools/bin/golangci-lint"
# go build reuses its cache, so this only compiles after a version bump.
netfork::run go -C hack/tools build -o "${golangci_lint}" \
  github.com/golangci/golangci-lint/v2/cmd/golangci-lint

if [[ $# -eq 0 ]]; then
  set -- ./...
fi
netfork::run "${golangci_lint}" run "$@"
