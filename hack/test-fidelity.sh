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

# test-fidelity.sh runs test/fidelity: one scripted Service scenario on local-up, once with
# netfork's kube-apiserver and once with upstream's binary of the pinned release, comparing
# what every observer sees (client responses, admission requests, the audit log, watch
# events, metrics deltas, allocator and registry logs, raw etcd values). It fails on a
# normalized difference that test/fidelity/differences.yaml does not list with its reason,
# and on a listed one that no longer shows. It runs the scenario in each mode: with the
# watch cache, and with --watch-cache=false on both apiservers. It builds netfork's
# binaries (hack/build.sh) and upstream's (hack/upstream-apiserver.sh, cached in
# _output/upstream/).
#   FIDELITY_OUT    where each mode's data dirs, audit logs, apiserver logs and normalized
#                   observations stay, in a directory per mode (default _output/fidelity)
#   FIDELITY_MODES  the modes to run, comma-separated (default every one: watch-cache,
#                   no-watch-cache)
#   TIMEOUT         go test timeout (default 15m)
#   GOTESTFLAGS     more go test flags
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

netfork::run hack/build.sh
upstream="$(hack/upstream-apiserver.sh "$(netfork::gomod::k8s_version go.mod)")"
out="${FIDELITY_OUT:-${NETFORK_OUTPUT}/fidelity}"
mkdir -p "${out}"

read -r -a extra <<<"${GOTESTFLAGS:-}"
NETFORK_FIDELITY_UPSTREAM="${upstream}" \
  NETFORK_FIDELITY_NETFORK="${NETFORK_OUTPUT}/bin/kube-apiserver" \
  NETFORK_FIDELITY_LOCAL_UP="${NETFORK_OUTPUT}/bin/local-up" \
  NETFORK_FIDELITY_OUT="$(cd "${out}" && pwd)" \
  NETFORK_FIDELITY_MODES="${FIDELITY_MODES:-}" \
  netfork::run go test -v -count=1 -timeout "${TIMEOUT:-15m}" "${extra[@]}" ./test/fidelity/
