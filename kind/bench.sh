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

# bench.sh (make bench-kind) measures Service churn on a kind cluster with netfork's
# kube-apiserver and with upstream's of the pinned release on the same nodes: node image
# (cached) -> one fresh contained cluster -> per round, every control plane switched to
# netfork's apiserver (netfork::kind::switch_apiserver), one measurement, then to upstream's,
# one measurement -> the table of both, with ratios and spread -> the cluster deleted,
# always, Ctrl-C and SIGTERM included. A measurement is test/bench's --cluster mode: N
# Services created and deleted by W workers through the cluster's endpoint (kind's load
# balancer on ha), checked after each phase, the CPU time of each node's components read
# around each phase, the apiservers' restarts and readiness flaps counted.
#   --topology T   single (default): 1 control plane, IPv4; ha: 3 control planes + 1 worker,
#                  dual-stack, every third Service PreferDualStack
#   --n N          Services per measurement (default 1000, at most 6000): the cluster's IPv4
#                  Service range is the slot's /21, its whole /20 above 2000, and above 4000
#                  a second ServiceCIDR, bench-bulk, holds the slot's bulk /21 (kind/lib/network.sh)
#   --workers W    client workers (default 10)
#   --rounds R     rounds (default 1)
#   --image IMAGE  use this node image as it is instead of make kind-image's
#   --profile      the cluster's apiservers serve /debug/pprof (--profiling=true), and the first
#                  control plane's is profiled 10 s at a time, back to back, through every create
#                  phase (profiles/cpu-<apiserver>-r<round>-create-<k>.pprof)
#   --keep         leave the cluster (bench-<topology>) up afterwards
# Results go to _output/bench-kind/<topology>-n<N>/: cluster-results.json and .csv, one
# record per measurement, and table.txt.
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/suite.sh"

topology=single
n=1000
workers=10
rounds=1
image=""
keep=false
profile=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --topology | --n | --workers | --rounds | --image)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --topology=*) topology="${1#*=}" ;;
    --n=*) n="${1#*=}" ;;
    --workers=*) workers="${1#*=}" ;;
    --rounds=*) rounds="${1#*=}" ;;
    --image=*) image="${1#*=}" ;;
    --keep) keep=true ;;
    --profile) profile=(--profile --profile-duration=10s) ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/bench.sh)" ;;
  esac
  shift
done
case "${topology}" in
  single | ha) ;;
  *) netfork::kind::die "--topology ${topology}: want single or ha" ;;
esac
if ! [[ "${n}" =~ ^[1-9][0-9]{0,3}$ ]] || ((n > 6000)); then
  netfork::kind::die "--n ${n}: want 1 to 6000 (the IPv4 Service ranges of a kind cluster's slot hold 6,140 addresses)"
fi
service_bits=21
((n > 2000)) && service_bits=20
[[ "${workers}" =~ ^[1-9][0-9]{0,2}$ ]] || netfork::kind::die "--workers ${workers}: want 1 to 999"
[[ "${rounds}" =~ ^[1-9]$ ]] || netfork::kind::die "--rounds ${rounds}: want 1 to 9"
name="bench-${topology}"

# Nothing is built or created before every check that can refuse the run has passed.
netfork::kind::require_docker
netfork::kind::require_disk
if [[ -n "$(docker ps -aq --filter "label=io.x-k8s.kind.cluster=${name}")" ]] ||
  docker network inspect "$(netfork::kind::network_name "${name}")" >/dev/null 2>&1; then
  netfork::kind::die "cluster name ${name} is already in use (make kind-down NAME=${name} deletes it)"
fi
if [[ -n "${image}" ]] && ! docker image inspect "${image}" >/dev/null 2>&1; then
  netfork::kind::die "--image ${image}: no such image (make kind-image builds netfork's)"
fi

start=${SECONDS}
out="${NETFORK_OUTPUT}/bench-kind/${topology}-n${n}"
rm -rf "${out}"
mkdir -p "${out}"
if [[ -z "${image}" ]]; then
  "${NETFORK_ROOT}/kind/image.sh"
  image="$(netfork::kind::node_image_tag)"
fi
netfork::run go build -o "${NETFORK_OUTPUT}/bin/bench-services" ./test/bench
bench="${NETFORK_OUTPUT}/bin/bench-services"

netfork::kind::delete_on_exit "${name}" "${out}/logs" "${keep}"
# kube-controller-manager keeps netfork's controller list for both apiservers: the nodes and
# every component but the apiserver stay the same across the measurements.
up_args=()
[[ ${#profile[@]} -eq 0 ]] || up_args+=(--apiserver-arg profiling=true)
"${NETFORK_ROOT}/kind/up.sh" --name "${name}" --topology "${topology}" --image "${image}" --service-bits "${service_bits}" "${up_args[@]}"
kubeconfig="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig"
kubectl=("${NETFORK_KIND_BIN}/node/kubectl" --kubeconfig "${kubeconfig}")
if ((n > 4000)); then
  netfork::kind::slot_vars "$(netfork::kind::state "${name}" slot)"
  printf '%s\n' "apiVersion: networking.k8s.io/v1" "kind: ServiceCIDR" "metadata: {name: bench-bulk}" \
    "spec: {cidrs: [\"${NETFORK_KIND_SVC_BULK_V4}\"]}" | "${kubectl[@]}" create -f - >/dev/null
  "${kubectl[@]}" wait servicecidr/bench-bulk --for=condition=Ready --timeout=120s >/dev/null
  netfork::log "ServiceCIDR bench-bulk ${NETFORK_KIND_SVC_BULK_V4} Ready: ${n} Services need more than the /20"
fi
mapfile -t control_planes < <(netfork::kind::nodes "${name}" control-plane)
mapfile -t workers_nodes < <(netfork::kind::nodes "${name}" worker)
endpoints=()
for node in "${control_planes[@]}"; do
  ip="$(netfork::kind::node_ips "${node}")"
  endpoints+=("https://${ip%%,*}:6443")
done
all_nodes=("${control_planes[@]}" "${workers_nodes[@]}")
# kube-controller-manager's garbage collector deletes the EndpointSlices of deleted Services;
# on ha it deletes about 20 a second, so the wait for them grows with N: 100 ms per Service, at
# least bench-services' default 3 minutes.
settle=$((n / 10 > 180 ? n / 10 : 180))
args=(--cluster="${kubeconfig}" --topology="${topology}" --n="${n}" --workers="${workers}" --settle-timeout="${settle}s"
  --nodes="$(IFS=,; echo "${all_nodes[*]}")" --apiserver-endpoints="$(IFS=,; echo "${endpoints[*]}")" --output-dir="${out}")
[[ "${topology}" == ha ]] && args+=(--dual-stack)
args+=("${profile[@]}")

# wait_controllers waits until kube-controller-manager works again after an apiserver switch,
# which can make it lose its lease and restart: a probe Service gets its EndpointSlice.
wait_controllers() {
  local t0=${SECONDS}
  "${kubectl[@]}" -n default create service clusterip bench-probe --tcp=80 >/dev/null
  until [[ -n "$("${kubectl[@]}" -n default get endpointslices -l kubernetes.io/service-name=bench-probe -o name 2>/dev/null)" ]]; do
    ((SECONDS - t0 < 180)) || netfork::kind::die "kube-controller-manager wrote no EndpointSlice for a probe Service within 180s"
    sleep 2
  done
  "${kubectl[@]}" -n default delete service bench-probe >/dev/null
}

# Each measurement starts on freshly started apiservers of its kind, the first one too, and
# on a cluster whose nodes are Ready, whose CoreDNS is available again and whose
# kube-controller-manager writes EndpointSlices.
status=0
for ((round = 1; round <= rounds; round++)); do
  for apiserver in netfork upstream; do
    for node in "${control_planes[@]}"; do
      netfork::kind::switch_apiserver "${node}" "${apiserver}"
    done
    netfork::kind::wait_ready "${kubectl[@]}"
    wait_controllers
    netfork::log "round ${round}/${rounds}: ${apiserver}"
    "${bench}" "${args[@]}" --apiserver="${apiserver}" --round="${round}" >"${out}/table.txt" || status=$?
  done
done
cat "${out}/table.txt"
netfork::log "bench-kind ${topology} n=${n} w=${workers}: ${rounds} round(s) in $((SECONDS - start))s; results in ${out#"${NETFORK_ROOT}/"}"
exit "${status}"
