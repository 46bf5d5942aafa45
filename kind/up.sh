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

# up.sh (make kind-up) creates a kind cluster from netfork's node image, contained: its own
# docker network and firewall rule (lib/network.sh), every address inside 198.18.0.0/15 and
# netfork's ULA. It prints the kubeconfig context; down.sh (make kind-down) deletes it.
#   --name NAME              cluster name (default netfork; context kind-NAME)
#   --topology T             single: 1 control-plane node, IPv4
#                            dual:   1 control-plane node, dual-stack (IPv4 primary)
#                            ha:     3 control planes + 1 worker, dual-stack, kind's load balancer
#   --workers N              worker nodes (default 0, ha 1)
#   --ip-family F            ipv4 or dual: the cluster's families (default: single ipv4, dual and
#                            ha dual); --topology ha --ip-family ipv4 is an IPv4 HA cluster, the
#                            start of a day-2 dual-stack change (docs/operations.md). The docker
#                            network carries IPv6 either way.
#   --untaint                let pods schedule on control-plane nodes too
#   --feature-gates G        kube-apiserver --feature-gates (netfork's gates are apiserver-only)
#   --runtime-config R       kube-apiserver --runtime-config
#   --apiserver-arg K=V      one more kube-apiserver flag (kubeadm apiServer.extraArgs), repeatable,
#                            e.g. --apiserver-arg shutdown-delay-duration=10s
#   --image IMAGE            node image (default netfork/kind-node:<version>)
#   --service-bits N         prefix length of the IPv4 Service range, 20 to 28 (default 21): a
#                            smaller range at the start of the slot's, e.g. one a test fills;
#                            20 takes the slot's whole block, its spare /24s too
#   --upstream-servicecidr-controller
#                            kube-controller-manager also runs upstream's service-cidr-controller
#                            (for a cluster that will run upstream's apiserver); by default
#                            netfork's apiservers alone own ServiceCIDR deletion
# With DualStackAPIServer=true on a dual-stack topology, a kubeadm patch drops the single
# --advertise-address kubeadm writes, so each apiserver advertises its node's IPv4 and IPv6
# address (KEP-2438's default).
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/dockerfix.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/kind/lib/loadbalancer.sh"

name=netfork
topology=single
workers=""
untaint=false
gates=""
runtime_config=""
apiserver_args=()
image=""
service_bits=21
kcm_servicecidr=false
ip_family=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name | --topology | --workers | --ip-family | --feature-gates | --runtime-config | --apiserver-arg | --image | --service-bits)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --name=*) name="${1#*=}" ;;
    --topology=*) topology="${1#*=}" ;;
    --workers=*) workers="${1#*=}" ;;
    --ip-family=*) ip_family="${1#*=}" ;;
    --untaint) untaint=true ;;
    --upstream-servicecidr-controller) kcm_servicecidr=true ;;
    --feature-gates=*) gates="${1#*=}" ;;
    --runtime-config=*) runtime_config="${1#*=}" ;;
    --apiserver-arg=*) apiserver_args+=("${1#*=}") ;;
    --image=*) image="${1#*=}" ;;
    --service-bits=*) service_bits="${1#*=}" ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/up.sh)" ;;
  esac
  shift
done

[[ "${name}" =~ ^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$ ]] || netfork::kind::die "--name ${name}: want a DNS label of at most 32 characters"
case "${topology}" in
  single | dual) workers="${workers:-0}" ;;
  ha) workers="${workers:-1}" ;;
  *) netfork::kind::die "--topology ${topology}: want single, dual or ha" ;;
esac
case "${topology}:${ip_family}" in
  single: | single:ipv4) ip_family=ipv4 ;;
  dual: | dual:dual | ha: | ha:dual) ip_family=dual ;;
  ha:ipv4) ;;
  *:ipv4 | *:dual) netfork::kind::die "--ip-family ${ip_family} does not go with --topology ${topology}: single is IPv4, dual is dual-stack, ha takes either" ;;
  *) netfork::kind::die "--ip-family ${ip_family}: want ipv4 or dual" ;;
esac
[[ "${workers}" =~ ^[0-9]$ ]] || netfork::kind::die "--workers ${workers}: want 0 to 9"
[[ "${service_bits}" =~ ^(2[0-8])$ ]] || netfork::kind::die "--service-bits ${service_bits}: want 20 to 28"
for arg in "${apiserver_args[@]}"; do
  [[ "${arg}" =~ ^[a-z][-a-z0-9]*=.*$ ]] || netfork::kind::die "--apiserver-arg ${arg}: want NAME=VALUE without leading dashes"
done

"${NETFORK_ROOT}/hack/install-deps.sh" kind
netfork::kind::require_docker
netfork::kind::require_disk
image="${image:-$(netfork::kind::node_image_tag)}"
docker image inspect "${image}" >/dev/null 2>&1 || netfork::kind::die "node image ${image} does not exist: run make kind-image first"
netfork::kind::validate_gates "${gates}"
kind="${NETFORK_KIND_BIN}/node/kind"
[[ -x "${kind}" ]] || netfork::kind::die "${kind} does not exist: run make kind-image first"
network="$(netfork::kind::network_name "${name}")"
if "${kind}" get clusters 2>/dev/null | grep -qx "${name}" || docker network inspect "${network}" >/dev/null 2>&1; then
  netfork::kind::die "cluster name ${name} is already in use (make kind-down NAME=${name} deletes it)"
fi

start=${SECONDS}
netfork::kind::ensure_runtime "${image}"
netfork::kind::detect_node_quirks
dir="${NETFORK_KIND_CLUSTERS}/${name}"
rm -rf "${dir}"
mkdir -p "${dir}"
slot="$(netfork::kind::free_slot)"
netfork::kind::slot_vars "${slot}"

# From here on, anything made is undone if the script does not reach the end.
created=false
undo() {
  [[ "${created}" == true ]] && return 0
  netfork::log "creating ${name} failed; removing what was made"
  NETFORK_KIND_QUIET=1 "${NETFORK_ROOT}/kind/down.sh" --name "${name}" >/dev/null 2>&1 || true
}
trap undo EXIT
trap 'exit 130' INT TERM
printf 'slot=%s\nbridge=%s\ntopology=%s\nfamily=%s\nkcm_servicecidr=%s\n' "${slot}" "${NETFORK_KIND_BRIDGE}" "${topology}" "${ip_family}" "${kcm_servicecidr}" >"${dir}/state"
netfork::kind::firewall_add "${NETFORK_KIND_BRIDGE}"
netfork::kind::network_create "${name}" "${slot}"
dualstack=false
if [[ "${ip_family}" == dual && ",${gates}," == *",DualStackAPIServer=true,"* ]]; then
  dualstack=true
  NETFORK_KIND_PATCHES="${dir}/patches"
  netfork::kind::dualstack_patches "${NETFORK_KIND_PATCHES}"
fi
# after network_create, which sets the slot's variables again
NETFORK_KIND_SVC_V4="${NETFORK_KIND_SVC_V4%/*}/${service_bits}"
netfork::kind::config "${name}" >"${dir}/kind.yaml"

shim="${dir}/bin"
lb_image=""
[[ "${topology}" == ha ]] && lb_image="$(netfork::kind::loadbalancer_image)"
netfork::kind::docker_shim "${shim}" "${lb_image}"
env=(PATH="${shim}:${PATH}" KIND_EXPERIMENTAL_DOCKER_NETWORK="${network}")
[[ -n "${NETFORK_KIND_SNAPSHOTTER:-}" ]] && env+=(KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER="${NETFORK_KIND_SNAPSHOTTER}")
netfork::run env "${env[@]}" "${kind}" create cluster --name "${name}" --image "${image}" \
  --config "${dir}/kind.yaml" --kubeconfig "${dir}/kubeconfig" --wait 0s

for node in $(docker ps --filter "label=io.x-k8s.kind.cluster=${name}" --filter "label=io.x-k8s.kind.role" --format '{{.Names}}'); do
  [[ "$(docker inspect -f '{{index .Config.Labels "io.x-k8s.kind.role"}}' "${node}")" == external-load-balancer ]] && continue
  netfork::kind::node_containment "${node}"
done
kubectl=("${NETFORK_KIND_BIN}/node/kubectl" --kubeconfig "${dir}/kubeconfig")
if [[ "${untaint}" == true ]]; then
  "${kubectl[@]}" taint nodes -l node-role.kubernetes.io/control-plane node-role.kubernetes.io/control-plane:NoSchedule- >/dev/null 2>&1 || true
fi
if [[ "${dualstack}" == true ]]; then
  for node in $(netfork::kind::nodes "${name}" control-plane); do
    # The patch removed kubeadm's single --advertise-address; should a kubeadm ever order its
    # flags differently, set the pair by rewriting the manifest instead.
    if docker exec "${node}" grep -q -- '--advertise-address=' "${APISERVER_MANIFEST}"; then
      netfork::log "${node}: kube-apiserver advertises $(netfork::kind::node_ips "${node}") (manifest rewrite)"
      netfork::kind::set_apiserver "${node}" "--advertise-address=$(netfork::kind::node_ips "${node}")"
    fi
  done
fi
netfork::kind::wait_ready "${kubectl[@]}"
# Merge the context into the user's kubeconfig as kind does (the first file of $KUBECONFIG
# that exists, else its last, else ~/.kube/config), so `kubectl --context kind-NAME` works
# anywhere; down.sh removes it again.
if ! out="$("${kind}" export kubeconfig --name "${name}" 2>&1)"; then
  netfork::kind::die "could not merge context kind-${name} into your kubeconfig: ${out//$'\n'/ }"
fi
created=true
netfork::log "cluster ${name} (${topology}) ready in $((SECONDS - start))s"
echo "context: kind-${name}   kubeconfig: ${dir#"${NETFORK_ROOT}/"}/kubeconfig   kubectl: ${kubectl[0]#"${NETFORK_ROOT}/"}"
