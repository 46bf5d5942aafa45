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

# e2e-hook.sh is the disruption hook of test/e2e (NETFORK_E2E_HOOK) for a kind cluster: it stops
# and starts the kube-apiserver of one control-plane node by moving its static-pod manifest out
# of and back into kubelet's manifest folder, which is how kubelet stops a static pod: SIGTERM,
# then the pod's grace period.
#   e2e-hook.sh count         print the number of apiservers (control-plane nodes)
#   e2e-hook.sh stop INDEX    stop apiserver INDEX (0-based, kind's node order); returns once it exited
#   e2e-hook.sh start INDEX   start it again; returns once its /readyz is ok
#   e2e-hook.sh service-range INDEX CIDRS
#                             roll control plane INDEX to the Service range CIDRS (CIDR[,CIDR]):
#                             serving certificate, kube-apiserver and kube-controller-manager
#                             flags (lib/ranges.sh); returns once its /readyz is ok
#   e2e-hook.sh family INDEX ipv4|dual
#                             roll control plane INDEX to one or both IP families: serving
#                             certificate, kube-apiserver Service ranges, advertise addresses and
#                             DualStackAPIServer=true, kube-controller-manager Service and Pod
#                             ranges (lib/families.sh); returns once its /readyz is ok
#   e2e-hook.sh node-family NODE ipv4|dual
#                             give NODE's kubelet its address of each family; returns once healthy
#   e2e-hook.sh proxy-family ipv4|dual
#                             set kube-proxy's cluster CIDRs to the family's Pod ranges and
#                             restart it; returns once every kube-proxy is ready again
#   e2e-hook.sh nodes         print every node's name, control planes first
#   e2e-hook.sh kubelet-config NODE
#                             rewrite NODE's kubelet configuration from kubeadm's kubelet-config
#                             ConfigMap and restart kubelet; returns once it is healthy
# NETFORK_KIND_NAME names the cluster (default netfork).
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/kind/lib/ranges.sh"
source "${NETFORK_ROOT}/kind/lib/families.sh"

name="${NETFORK_KIND_NAME:-netfork}"
mapfile -t nodes < <(netfork::kind::nodes "${name}" control-plane)
[[ ${#nodes[@]} -gt 0 ]] || netfork::kind::die "cluster ${name} has no control-plane node (NETFORK_KIND_NAME)"
stopped=/etc/kubernetes/kube-apiserver.yaml.stopped

# running_node fails unless $1 is a running node of the cluster.
running_node() {
  if [[ -z "${1:-}" ]] || ! docker ps --format '{{.Names}}' --filter "label=io.x-k8s.kind.cluster=${name}" | grep -qx -- "$1"; then
    netfork::kind::die "${2}: not a running node of cluster ${name}"
  fi
}

node_at() {
  [[ "$1" =~ ^[0-9]+$ && "$1" -lt ${#nodes[@]} ]] || netfork::kind::die "index $1: cluster ${name} has apiservers 0 to $((${#nodes[@]} - 1))"
  echo "${nodes[$1]}"
}

case "${1:-}" in
  count)
    echo "${#nodes[@]}"
    ;;
  stop)
    node="$(node_at "${2:-}")"
    pid="$(netfork::kind::apiserver_pid "${node}")"
    if docker exec "${node}" test -f "${APISERVER_MANIFEST}"; then
      docker exec "${node}" mv "${APISERVER_MANIFEST}" "${stopped}"
    fi
    start=${SECONDS}
    while [[ -n "${pid}" ]] && docker exec "${node}" kill -0 "${pid}" 2>/dev/null; do
      ((SECONDS - start < 180)) || netfork::kind::die "${node}: kube-apiserver (pid ${pid}) still running after 180s"
      sleep 0.2
    done
    netfork::log "${node}: kube-apiserver stopped after $((SECONDS - start))s"
    ;;
  start)
    node="$(node_at "${2:-}")"
    if docker exec "${node}" test -f "${stopped}"; then
      docker exec "${node}" mv "${stopped}" "${APISERVER_MANIFEST}"
    fi
    netfork::kind::wait_apiserver "${node}" ""
    netfork::log "${node}: kube-apiserver ready"
    ;;
  service-range)
    node="$(node_at "${2:-}")"
    [[ -n "${3:-}" ]] || netfork::kind::die "service-range ${2:-}: which CIDRS?"
    start=${SECONDS}
    netfork::kind::set_service_range "${node}" "$3"
    netfork::log "${node}: serving ${3} after $((SECONDS - start))s"
    ;;
  family)
    node="$(node_at "${2:-}")"
    start=${SECONDS}
    netfork::kind::set_family "${node}" "${name}" "${3:-}"
    netfork::log "${node}: kube-apiserver and kube-controller-manager $3 after $((SECONDS - start))s"
    ;;
  node-family)
    running_node "${2:-}" "node-family ${2:-}"
    netfork::kind::set_node_family "$2" "${3:-}"
    netfork::log "$2: kubelet restarted with its $3 node IPs"
    ;;
  proxy-family)
    netfork::kind::set_proxy_family "${nodes[0]}" "${2:-}"
    netfork::log "kube-proxy restarted for $2"
    ;;
  nodes)
    printf '%s\n' "${nodes[@]}"
    netfork::kind::nodes "${name}" worker
    ;;
  kubelet-config)
    running_node "${2:-}" "kubelet-config ${2:-}"
    netfork::kind::reload_kubelet_config "$2"
    netfork::log "$2: kubelet restarted with kubeadm's kubelet-config"
    ;;
  *)
    netfork::kind::die "usage: e2e-hook.sh count | stop INDEX | start INDEX | service-range INDEX CIDRS | family INDEX ipv4|dual | node-family NODE ipv4|dual | proxy-family ipv4|dual | nodes | kubelet-config NODE"
    ;;
esac
