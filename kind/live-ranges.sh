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
# change a running cluster's Service ranges under a probe workload (expand, a renumber rolled
# back, a renumber to the end with kubectl servicecidr): node image (cached) and the plugin ->
# a fresh contained cluster whose IPv4 Service range is a /24 (a /21 above 200 Services), so
# that its Services fill it -> the specs, which roll the nodes through kind/e2e-hook.sh ->
# logs exported on failure -> cluster deleted, always, Ctrl-C included.
#   --topology T     single | ha (default single); ha runs its apiservers with
#                    DualStackAPIServer=true, the Services' creates go through kind's load balancer
#   --ip-family F    ipv4 | dual (default: single ipv4, ha dual): the cluster as created; the
#                    day-2 dual-stack specs run on an ipv4 one and skip on a dual one
#   --name NAME      cluster name (default netfork-live)
#   --services N     Services the probes reach by name (default 100, at most 1000)
#   --keep           leave the cluster up afterwards (make kind-down NAME=... deletes it)
# GINKGO_FOCUS=REGEXP runs only the specs it matches, e.g. GINKGO_FOCUS=renumbers.
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
ip_family=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --topology | --name | --services | --ip-family)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --topology=*) topology="${1#*=}" ;;
    --name=*) name="${1#*=}" ;;
    --services=*) services="${1#*=}" ;;
    --ip-family=*) ip_family="${1#*=}" ;;
    --keep) keep=true ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/live-ranges.sh)" ;;
  esac
  shift
done
case "${topology}:${ip_family}" in
  single: | single:ipv4) ip_family=ipv4 ;;
  ha: | ha:dual) ip_family=dual ;;
  ha:ipv4) ;;
  single:dual) netfork::kind::die "--ip-family dual needs --topology ha (single is IPv4)" ;;
  single:* | ha:*) netfork::kind::die "--ip-family ${ip_family}: want ipv4 or dual" ;;
  *) netfork::kind::die "--topology ${topology}: want single or ha" ;;
esac
# a /24 holds 253 ClusterIPs besides the kubernetes Service's and a /21 2045; the fill needs
# some left over, and a renumber's record holds at most about a thousand Services
if ! [[ "${services}" =~ ^[0-9]+$ ]] || ((services < 10 || services > 1000)); then
  netfork::kind::die "--services ${services}: want 10 to 1000"
fi
service_bits=24
((services > 200)) && service_bits=21

start=${SECONDS}
"${NETFORK_ROOT}/kind/image.sh"
WHAT=cmd/kubectl-servicecidr "${NETFORK_ROOT}/hack/build.sh"
image_done=${SECONDS}

up_args=(--name "${name}" --topology "${topology}" --ip-family "${ip_family}" --service-bits "${service_bits}")
[[ "${ip_family}" == dual ]] && up_args+=(--feature-gates DualStackAPIServer=true)
# ha, as make test-e2e-kind: a stopping apiserver stays published as terminating and keeps
# serving for 10 s while kube-proxy moves new connections to the others (KEP-1669); without the
# delay it stops at once, and a connection kube-proxy still sends it fails (a 503 in a roll)
[[ "${topology}" == ha ]] && up_args+=(--apiserver-arg shutdown-delay-duration=10s)
netfork::kind::delete_on_exit "${name}" "${NETFORK_KIND_OUTPUT}/logs/${name}-$(date +%Y%m%d-%H%M%S)" "${keep}"
"${NETFORK_ROOT}/kind/up.sh" "${up_args[@]}"
up_done=${SECONDS}

status=0
# KUBECONFIG is the suite's alone: the exit trap's down.sh must see the user's, to remove the
# context up.sh merged there. -v: ginkgo's per-spec report and the specs' measurements.
# The hook rolls the nodes; the renumber specs run the plugin make build writes.
KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" GOFLAGS="${GOFLAGS:+${GOFLAGS} }-v" \
  NETFORK_E2E_HOOK="${NETFORK_ROOT}/kind/e2e-hook.sh" NETFORK_KIND_NAME="${name}" \
  NETFORK_E2E_SERVICECIDR="${NETFORK_OUTPUT}/bin/kubectl-servicecidr" \
  NETFORK_E2E_LIVE_RANGES="${services}" GINKGO_LABEL_FILTER=live-ranges TIMEOUT=90m \
  "${NETFORK_ROOT}/hack/test-e2e.sh" || status=$?
netfork::log "image $((image_done - start))s, cluster $((up_done - image_done))s, specs $((SECONDS - up_done))s, total $((SECONDS - start))s (${topology}, ${ip_family})"
exit "${status}"
