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

# upgrade.sh switches the kube-apiserver of each control-plane node of a kind cluster, one node
# at a time, between netfork, upstream releases and gate settings, by rewriting the
# node's static-pod manifest as upstream's kind upgrade jobs do, under a Service create/delete
# load. After every node it runs test/cluster-check against a snapshot taken before the load:
# no Service lost, no duplicate ClusterIP or NodePort, every ClusterIP has its IPAddress, the
# kubernetes Service's shape. While every control plane runs upstream's apiserver,
# kube-controller-manager runs upstream's service-cidr-controller, as the ServiceCIDRs need an
# owner and upstream's apiserver has none.
#   --name NAME     cluster (default netfork); make kind-up TOPOLOGY=ha for the HA path
#   --steps LIST    comma-separated targets, each applied to every control plane in turn
#                   (default upstream@PREV,upstream,netfork,netfork-dualstack,upstream, where
#                   PREV is the patch release before go.mod's pin, e.g. v1.37.1 for v1.37.2;
#                   without it for a .0 pin):
#                     upstream            upstream's apiserver at go.mod's pin (in every node
#                                         image), no netfork gates, one advertise address
#                     upstream@vX.Y.Z     the same at another release, built by
#                                         hack/upstream-apiserver.sh and loaded into the nodes
#                     netfork             netfork's image, default gates, one advertise address
#                     netfork-dualstack   netfork's image, DualStackAPIServer=true, IPv4,IPv6 advertise pair
#   --services N    Services kept through the run and checked (default 30)
# NETFORK_CLUSTER_CHECK overrides the checker command (default: built from test/cluster-check).
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/suite.sh"
source "${NETFORK_ROOT}/kind/lib/ranges.sh"

name=netfork
steps=upstream,netfork,netfork-dualstack,upstream
skew="$(netfork::gomod::previous_patch "${K8S_VERSION}")"
[[ -z "${skew}" ]] || steps="upstream@${skew},${steps}"
services=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name="${2:?--name needs a value}"; shift 2 ;;
    --steps) steps="${2:?--steps needs a value}"; shift 2 ;;
    --services) services="${2:?--services needs a value}"; shift 2 ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/upgrade.sh)" ;;
  esac
done
IFS=, read -r -a targets <<<"${steps}"
for t in "${targets[@]}"; do
  case "${t}" in
    upstream | netfork | netfork-dualstack) ;;
    upstream@v1.*) [[ "${t}" =~ ^upstream@v1\.[0-9]+\.[0-9]+$ ]] || netfork::kind::die "--steps: ${t}: want upstream@v1.MINOR.PATCH" ;;
    *) netfork::kind::die "--steps: ${t} is not upstream, upstream@vX.Y.Z, netfork or netfork-dualstack" ;;
  esac
done
[[ "${services}" =~ ^[0-9]+$ ]] || netfork::kind::die "--services ${services}: want a number"
"${NETFORK_ROOT}/hack/install-deps.sh" kind
netfork::kind::require_docker
netfork::version::get_vars
mapfile -t nodes < <(netfork::kind::nodes "${name}" control-plane)
[[ ${#nodes[@]} -gt 0 ]] || netfork::kind::die "no kind cluster named ${name} (make kind-up NAME=${name})"
export KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig"
[[ -f "${KUBECONFIG}" ]] || netfork::kind::die "${KUBECONFIG} missing: was ${name} made by make kind-up?"
kubectl="${NETFORK_KIND_BIN}/node/kubectl"

out="${NETFORK_KIND_OUTPUT}/upgrade/${name}"
rm -rf "${out}"
mkdir -p "${out}"
if [[ -n "${NETFORK_CLUSTER_CHECK:-}" ]]; then
  read -r -a check <<<"${NETFORK_CLUSTER_CHECK}"
else
  netfork::run go build -o "${NETFORK_OUTPUT}/bin/cluster-check" ./test/cluster-check
  check=("${NETFORK_OUTPUT}/bin/cluster-check")
fi

# Upstream releases other than the pin are not in the node image: build each one's apiserver
# image once and load it into every control plane before anything changes.
for t in $(printf '%s\n' "${targets[@]}" | grep '^upstream@' | sort -u); do
  version="${t#upstream@}"
  [[ "${version}" != "${K8S_VERSION}" ]] || continue
  bin="$(hack/upstream-apiserver.sh "${version}")"
  netfork::kind::component_image "upstream-kube-apiserver-${version}" debian '["/usr/local/bin/kube-apiserver"]' \
    "$(netfork::kind::upstream_apiserver_image "${version}")" "${bin}:/usr/local/bin/kube-apiserver"
  for node in "${nodes[@]}"; do
    netfork::kind::load_archive "${node}" "${NETFORK_KIND_IMAGES}/upstream-kube-apiserver-${version}.tar"
  done
  netfork::log "upstream kube-apiserver ${version} loaded into ${#nodes[@]} control plane(s)"
done

ns_keep=netfork-upgrade-keep
ns_load=netfork-upgrade-load
# an earlier run's namespaces, deleted without waiting, may still be terminating
"${kubectl}" wait --for=delete "namespace/${ns_keep}" "namespace/${ns_load}" --timeout=300s >/dev/null
"${kubectl}" create namespace "${ns_keep}" >/dev/null
"${kubectl}" create namespace "${ns_load}" >/dev/null
load_pid=""
cleanup() {
  local status=$?
  [[ -n "${load_pid}" ]] && kill "${load_pid}" 2>/dev/null && wait "${load_pid}" 2>/dev/null
  "${kubectl}" delete namespace "${ns_keep}" "${ns_load}" --wait=false >/dev/null 2>&1 || true
  "${kubectl}" delete servicecidr upgrade-owner-probe --ignore-not-found --wait=false >/dev/null 2>&1 || true
  exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

netfork::log "creating ${services} Services to keep"
for ((i = 0; i < services; i++)); do
  type=ClusterIP
  ((i % 2)) && type=NodePort
  "${kubectl}" -n "${ns_keep}" create service "${type,,}" "keep-${i}" --tcp=80 >/dev/null
done
netfork::run "${check[@]}" --kubeconfig "${KUBECONFIG}" --snapshot-out "${out}/snapshot.json"

# The load creates and deletes Services until stopped, counting what failed (requests in flight
# when an apiserver stops may fail; the checker decides whether the cluster stayed consistent).
(
  n=0 failed=0
  trap 'echo "load: ${n} create/delete pairs, ${failed} failed requests" >"${out}/load.txt"; exit 0' TERM
  while true; do
    n=$((n + 1))
    "${kubectl}" -n "${ns_load}" create service clusterip "load-${n}" --tcp=80 >/dev/null 2>&1 || failed=$((failed + 1))
    "${kubectl}" -n "${ns_load}" delete service "load-${n}" --wait=false >/dev/null 2>&1 || failed=$((failed + 1))
  done
) &
load_pid=$!

# Upstream's apiserver runs no ServiceCIDR controller: while every control plane runs it,
# kube-controller-manager's service-cidr-controller owns ServiceCIDRs, and it hands them back
# to netfork's apiservers as soon as one runs netfork again (docs/kind.md). A cluster made with
# --upstream-servicecidr-controller keeps it throughout. What each control plane runs is asked
# of its apiserver (/version): an earlier run may have left the cluster on upstream's
# apiservers, with kube-controller-manager's controller on.
declare -A running
for node in "${nodes[@]}"; do
  served="$(netfork::kind::apiserver_version "${node}")" ||
    netfork::kind::die "${node}: kube-apiserver does not answer /version"
  running[${node}]=upstream
  [[ "${served}" != *+netfork ]] || running[${node}]=netfork
done
kcm_owns=false
docker exec "${nodes[0]}" grep -q -- '--controllers=.*-service-cidr-controller' "${KCM_MANIFEST}" || kcm_owns=true
case "$(netfork::kind::state "${name}" kcm_servicecidr)" in
  true) kcm_owns=keep ;;
  false) ;;
  *) # made before up.sh recorded the choice: the controller on beside netfork's apiserver was it
    if [[ "${kcm_owns}" == true && " ${running[*]} " == *" netfork "* ]]; then kcm_owns=keep; fi ;;
esac
hand_over() {
  local n all=true
  [[ "${kcm_owns}" == keep ]] && return 0
  for n in "${nodes[@]}"; do [[ "${running[${n}]}" == upstream* ]] || all=false; done
  [[ "${all}" == "${kcm_owns}" ]] && return 0
  netfork::log "every control plane runs upstream's apiserver: ${all}; kube-controller-manager's service-cidr-controller on: ${all}"
  for n in "${nodes[@]}"; do
    netfork::kind::kcm_servicecidr_controller "${n}" "${all}"
  done
  kcm_owns="${all}"
  [[ "${all}" == false ]] || probe_owner
}

# probe_owner checks that ServiceCIDRs have an owner: a new one turns Ready and, deleted, goes
# (its finalizer released). It takes the last /24 of the slot's Service block (kind/lib/network.sh),
# which nothing else of this script uses.
probe_owner() {
  local cidr o3 t0=${SECONDS}
  cidr="$("${kubectl}" get servicecidr kubernetes -o jsonpath='{.spec.cidrs[0]}')"
  o3="$(cut -d. -f3 <<<"${cidr}")"
  cidr="$(cut -d. -f1,2 <<<"${cidr}").$((o3 / 16 * 16 + 15)).0/24"
  printf '%s\n' "apiVersion: networking.k8s.io/v1" "kind: ServiceCIDR" "metadata: {name: upgrade-owner-probe}" \
    "spec: {cidrs: [\"${cidr}\"]}" | "${kubectl}" create -f - >/dev/null
  "${kubectl}" wait servicecidr/upgrade-owner-probe --for=condition=Ready --timeout=60s >/dev/null ||
    netfork::kind::die "ServiceCIDR upgrade-owner-probe (${cidr}) not Ready within 60s: no controller owns ServiceCIDRs"
  "${kubectl}" delete servicecidr upgrade-owner-probe --timeout=90s >/dev/null ||
    netfork::kind::die "ServiceCIDR upgrade-owner-probe (${cidr}) not released within 90s of its delete: no controller owns ServiceCIDRs"
  netfork::log "ServiceCIDR ${cidr}: Ready and released in $((SECONDS - t0))s"
}

netfork::log "control planes run: $(for n in "${nodes[@]}"; do printf '%s=%s ' "${n}" "${running[${n}]}"; done)"
hand_over
start=${SECONDS}
for target in "${targets[@]}"; do
  for node in "${nodes[@]}"; do
    t0=${SECONDS}
    netfork::kind::switch_apiserver "${node}" "${target}"
    running[${node}]="${target}"
    hand_over
    netfork::log "${node} -> ${target} in $((SECONDS - t0))s; checking"
    netfork::run "${check[@]}" --kubeconfig "${KUBECONFIG}" --snapshot-in "${out}/snapshot.json"
  done
done
kill "${load_pid}"
wait "${load_pid}" || true
load_pid=""
if [[ "${kcm_owns}" == true ]]; then
  netfork::log "the cluster ends on upstream's apiservers: kube-controller-manager keeps its service-cidr-controller"
fi
netfork::run "${check[@]}" --kubeconfig "${KUBECONFIG}" --snapshot-in "${out}/snapshot.json"
netfork::log "$(cat "${out}/load.txt" 2>/dev/null)"
netfork::log "upgrade path ${steps} on ${#nodes[@]} control plane(s) passed every check in $((SECONDS - start))s"
