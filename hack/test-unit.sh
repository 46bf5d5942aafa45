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

# test-unit.sh runs the unit tests: every package of the module except the suites under
# test/e2e, test/integration and test/fidelity, which start apiservers and etcd and run from
# their own scripts. The harness programs under test/ (bench, upgrade, cluster-check,
# conformance-compare) have unit tests of their own, and run here.
# Every package runs with -race: the allocators, the etcd group commit, the repair loops and
# the controllers are concurrent code. No -count=1, so unchanged packages come from the test
# cache. WHAT="./pkg/..." narrows the packages; VERBOSE=1 adds -v; TIMEOUT sets the
# per-binary timeout; GOTESTFLAGS adds flags (e.g. GOTESTFLAGS="-run TestAllocate -count=1",
# or GOTESTFLAGS=-race=false for a quicker run without the race detector).
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# -race needs cgo, and so a C compiler.
hack/install-deps.sh test

module="$(go list -m)"
read -r -a what <<<"${WHAT:-./...}"
# -e lists packages that do not compile too, so go test reports their errors rather than
# this script dropping them.
mapfile -t pkgs < <(go list -e "${what[@]}" 2>/dev/null |
  grep -Ev "^${module//./\\.}/test/(e2e|integration|fidelity)(/|$)" || true)
if [[ ${#pkgs[@]} -eq 0 ]]; then
  netfork::log "no unit-test packages in ${what[*]} yet; nothing to test"
  exit 0
fi

# local-up's end-to-end tests run the kube-apiserver `make build` made, and skip without one.
if [[ -z "${NETFORK_APISERVER_BINARY:-}" && -x "${NETFORK_OUTPUT}/bin/kube-apiserver" ]]; then
  export NETFORK_APISERVER_BINARY="${NETFORK_OUTPUT}/bin/kube-apiserver"
  netfork::log "local-up end-to-end tests use ${NETFORK_APISERVER_BINARY}"
fi

flags=(-race -timeout "${TIMEOUT:-20m}")
if [[ "${VERBOSE:-0}" == 1 ]]; then
  flags+=(-v)
fi
read -r -a extra <<<"${GOTESTFLAGS:-}"
netfork::log "testing ${#pkgs[@]} packages"
status=0
netfork::run go test "${flags[@]}" "${extra[@]}" "${pkgs[@]}" || status=$?
# The chart module (test/bench/chart) is a module of its own; it runs with the whole suite.
if [[ -z "${WHAT:-}" ]]; then
  netfork::run go -C test/bench/chart test "${flags[@]}" "${extra[@]}" ./... || status=$?
fi
exit "${status}"
