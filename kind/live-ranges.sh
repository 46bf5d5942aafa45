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

# live-ranges.sh (make test-live-ranges) runs test/e2e's [Feature:LiveRanges] specs, which
# change a running cluster's Service ranges under a probe workload: node image (cached) ->
# a fresh contained cluster whose IPv4 Service range is a /24, so that its Services fill it
# -> the specs -> logs exported on failure -> cluster deleted, always, Ctrl-C included.
#   --topology T     single | ha (default single); ha runs its apiservers with
#                    DualStackAPIServer=true, the Services' creates go through kind's load balancer
#   --name NAME      cluster name (default netfork-live)
#   --services N     Services the probes reach by name (default 100)
#   --keep           leave the cluster up afterwards (make kind-down NAME=... deletes it)
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/kind/lib/logs.sh"

topology=single
name=netfork-live
services=100
keep=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --topology | --name | --services)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --topology=*) topology="${1#*=}" ;;
    --name=*) name="${1#*=}" ;;
    --services=*) services="${1#*=}" ;;
    --keep) keep=true ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/live-ranges.sh)" ;;
  esac
  shift
done
case "${topology}" in
  single | ha) ;;
  *) netfork::kind::die "--topology ${topology}: want single or ha" ;;
esac
# a /24 holds 253 ClusterIPs besides the kubernetes Service's; the fill needs some left over
if ! [[ "${services}" =~ ^[0-9]+$ ]] || ((services < 10 || services > 200)); then
  netfork::kind::die "--services ${services}: want 10 to 200 (the cluster's Service range is a /24)"
fi

start=${SECONDS}
"${NETFORK_ROOT}/kind/image.sh"
image_done=${SECONDS}

up_args=(--name "${name}" --topology "${topology}" --service-bits 24)
[[ "${topology}" == ha ]] && up_args+=(--feature-gates DualStackAPIServer=true)
netfork::kind::delete_on_exit "${name}" "${NETFORK_KIND_OUTPUT}/logs/${name}-$(date +%Y%m%d-%H%M%S)" "${keep}"
"${NETFORK_ROOT}/kind/up.sh" "${up_args[@]}"
up_done=${SECONDS}

status=0
# KUBECONFIG is the suite's alone: the exit trap's down.sh must see the user's, to remove the
# context up.sh merged there. -v: ginkgo's per-spec report and the specs' measurements.
KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" GOFLAGS="${GOFLAGS:+${GOFLAGS} }-v" \
  NETFORK_E2E_LIVE_RANGES="${services}" GINKGO_LABEL_FILTER=live-ranges TIMEOUT=40m \
  "${NETFORK_ROOT}/hack/test-e2e.sh" || status=$?
netfork::log "image $((image_done - start))s, cluster $((up_done - image_done))s, specs $((SECONDS - up_done))s, total $((SECONDS - start))s (${topology})"
exit "${status}"
