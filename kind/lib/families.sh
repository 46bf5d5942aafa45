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

# families.sh turns a running IPv4 cluster's nodes dual-stack and back, the node side of a day-2
# family change (docs/operations.md): a control plane's serving certificate, kube-apiserver and
# kube-controller-manager flags; a node's kubelet node IPs; kube-proxy's cluster CIDRs. The IPv6
# ranges are the cluster's slot's (network.sh); the IPv4 ones are what the nodes run now, so a
# renumbered cluster keeps its range. Sourced after ranges.sh.

# KUBELET_FLAGS is where kubeadm keeps a node's kubelet flags, --node-ip among them.
KUBELET_FLAGS=/var/lib/kubelet/kubeadm-flags.env

# netfork::kind::manifest_flag prints the value of flag $3 in node $1's static-pod manifest $2.
netfork::kind::manifest_flag() {
  docker exec "$1" sed -n "s|^    - $3=||p" "$2" | head -n 1
}

# netfork::kind::family_check fails unless $1 is ipv4 or dual.
netfork::kind::family_check() {
  [[ "$1" == ipv4 || "$1" == dual ]] || netfork::kind::die "family ${1:-}: want ipv4 or dual"
}

# netfork::kind::family_cidrs prints CIDR list $1 with only its first (IPv4) entry for family
# ipv4 ($2), or that entry and $3 for dual.
netfork::kind::family_cidrs() {
  local first="${1%%,*}"
  [[ "${first}" != *:* ]] || netfork::kind::die "${1}: the cluster's primary family is IPv6; a day-2 change starts from IPv4"
  if [[ "$2" == dual ]]; then
    echo "${first},$3"
  else
    echo "${first}"
  fi
}

# netfork::kind::gates_with prints feature-gate list $1 with DualStackAPIServer=true, whatever
# it said of it before.
netfork::kind::gates_with() {
  local gate out=()
  IFS=, read -r -a gates <<<"$1"
  for gate in "${gates[@]}"; do
    [[ -n "${gate}" && "${gate}" != DualStackAPIServer=* ]] && out+=("${gate}")
  done
  out+=(DualStackAPIServer=true)
  (IFS=,; echo "${out[*]}")
}

# netfork::kind::set_family rolls control plane $1 of cluster $2 to family $3 (ipv4 or dual):
# a serving certificate that also names the node's IPv6 address and the kubernetes Service's
# IPv6 address; kube-apiserver with both Service ranges, both advertise addresses and
# DualStackAPIServer=true (for dual), or the IPv4 ones alone; kube-controller-manager with the
# same Service ranges and both Pod ranges (for new nodes: existing nodes keep their podCIDRs).
# DualStackAPIServer stays on in ipv4, so that the apiservers themselves make the kubernetes
# Service single-stack again and delete its IPv6 EndpointSlice.
netfork::kind::set_family() {
  local node="$1" cluster="$2" family="$3" services pods ips gates
  netfork::kind::family_check "${family}"
  netfork::kind::slot_vars "$(netfork::kind::state "${cluster}" slot)"
  services="$(netfork::kind::manifest_flag "${node}" "${APISERVER_MANIFEST}" --service-cluster-ip-range)"
  pods="$(netfork::kind::manifest_flag "${node}" "${KCM_MANIFEST}" --cluster-cidr)"
  [[ -n "${services}" && -n "${pods}" ]] || netfork::kind::die "${node}: no --service-cluster-ip-range or --cluster-cidr in its manifests"
  services="$(netfork::kind::family_cidrs "${services}" "${family}" "${NETFORK_KIND_SVC_V6}")"
  pods="$(netfork::kind::family_cidrs "${pods}" "${family}" "${NETFORK_KIND_POD_V6}")"
  ips="$(netfork::kind::node_ips "${node}")"
  if [[ "${family}" == dual ]]; then
    [[ "${ips}" == *,* ]] || netfork::kind::die "${node}: no IPv6 address on the cluster's docker network"
  else
    ips="${ips%%,*}"
  fi
  gates="$(netfork::kind::gates_with "$(netfork::kind::manifest_flag "${node}" "${APISERVER_MANIFEST}" --feature-gates)")"
  netfork::kind::issue_serving_cert "${node}" "${services}" "$(netfork::kind::node_ips "${node}")"
  netfork::kind::set_apiserver "${node}" "--service-cluster-ip-range=${services}" \
    "--advertise-address=${ips}" "--feature-gates=${gates}"
  netfork::kind::set_kcm_flags "${node}" "--service-cluster-ip-range=${services}" "--cluster-cidr=${pods}"
}

# netfork::kind::set_node_family gives node $1's kubelet its address of each family $2 has as
# --node-ip, restarts it and waits for its /healthz. For dual it first turns on what kind
# turns on only in clusters created with IPv6: IPv6 on every interface (docker enables it on
# eth0 alone, and kube-proxy, reading net.ipv6.conf.all.disable_ipv6, would stay single-stack)
# and IPv6 forwarding, so new Pods' IPv6 traffic routes. The way back leaves both on: turning
# IPv6 off on every interface would take eth0's address, which docker never gives back.
netfork::kind::set_node_family() {
  local node="$1" family="$2" ips
  netfork::kind::family_check "${family}"
  ips="$(netfork::kind::node_ips "${node}")"
  if [[ "${family}" == dual ]]; then
    [[ "${ips}" == *,* ]] || netfork::kind::die "${node}: no IPv6 address on the cluster's docker network"
    docker exec "${node}" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
      net.ipv6.conf.all.forwarding=1
  else
    ips="${ips%%,*}"
  fi
  docker exec "${node}" grep -q -- '--node-ip=' "${KUBELET_FLAGS}" ||
    netfork::kind::die "${node}: ${KUBELET_FLAGS} sets no --node-ip"
  docker exec "${node}" sed -i -e "s|--node-ip=[^ \"]*|--node-ip=${ips}|" "${KUBELET_FLAGS}"
  netfork::kind::restart_kubelet "${node}"
}

# netfork::kind::set_proxy_family sets kube-proxy's clusterCIDR (its local-traffic detection)
# to the Pod ranges of family $2, as kube-controller-manager on control plane $1 has them, and
# restarts its DaemonSet, which then programs every family the nodes have addresses of.
netfork::kind::set_proxy_family() {
  local node="$1" family="$2" pods kubectl
  netfork::kind::family_check "${family}"
  pods="$(netfork::kind::manifest_flag "${node}" "${KCM_MANIFEST}" --cluster-cidr)"
  [[ "${family}" == dual ]] || pods="${pods%%,*}"
  kubectl="kubectl --kubeconfig /etc/kubernetes/admin.conf -n kube-system"
  docker exec "${node}" sh -ec "
    ${kubectl} get configmap kube-proxy -o yaml | sed -e 's|^\\(    clusterCIDR: \\).*|\\1${pods}|' | ${kubectl} replace -f - >/dev/null
    ${kubectl} get configmap kube-proxy -o jsonpath='{.data.config\\.conf}' | grep -qx 'clusterCIDR: ${pods}'
    ${kubectl} rollout restart daemonset kube-proxy >/dev/null
    ${kubectl} rollout status daemonset kube-proxy --timeout 180s >&2" ||
    netfork::kind::die "${node}: kube-proxy not restarted with clusterCIDR ${pods}"
}
