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

# bench-services.sh builds and runs the Service-allocation benchmark (test/bench)
# against netfork's kube-apiserver from `make build` and upstream's at the release netfork
# is pinned to, from hack/upstream-apiserver.sh (built once into _output/upstream/<version>),
# unless $NETFORK_UPSTREAM_APISERVER names one. Arguments go to the benchmark, e.g.
# --full, --n=1000 --contenders=netfork,upstream, --profile, --help.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

netfork_apiserver="${NETFORK_OUTPUT}/bin/kube-apiserver"
if [[ ! -x "${netfork_apiserver}" ]]; then
  netfork::log "${netfork_apiserver#"${NETFORK_ROOT}/"} is missing; run make build first"
  exit 1
fi
upstream_apiserver="${NETFORK_UPSTREAM_APISERVER:-}"
if [[ -z "${upstream_apiserver}" ]]; then
  upstream_apiserver="$(hack/upstream-apiserver.sh "$(netfork::gomod::k8s_version go.mod)")"
fi
netfork::run go build -o "${NETFORK_OUTPUT}/bin/bench-services" ./test/bench
# The chart is drawn by test/bench/chart, a module of its own (gonum.org/v1/plot stays out of
# the apiserver's module graph).
netfork::run go -C test/bench/chart build -o "${NETFORK_OUTPUT}/bin/bench-chart" .

# exec, so Ctrl-C and SIGTERM reach the benchmark, which stops every process it started.
exec "${NETFORK_OUTPUT}/bin/bench-services" \
  --netfork-binary="${netfork_apiserver}" --upstream-binary="${upstream_apiserver}" \
  --chart-binary="${NETFORK_OUTPUT}/bin/bench-chart" "$@"
