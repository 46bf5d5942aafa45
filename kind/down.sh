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

# down.sh (make kind-down) deletes a cluster up.sh made and everything made for it: the kind
# nodes, its docker network, its firewall rules and its folder in _output/kind/clusters. It
# also cleans up after a half-made cluster, so it is what up.sh runs on failure.
#   --name NAME   cluster name (default netfork)
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"

name=netfork
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name="${2:?--name needs a value}"; shift 2 ;;
    --name=*) name="${1#*=}"; shift ;;
    *) netfork::kind::die "unknown argument $1 (usage: down.sh [--name NAME])" ;;
  esac
done
"${NETFORK_ROOT}/hack/install-deps.sh" kind
netfork::kind::require_docker

dir="${NETFORK_KIND_CLUSTERS}/${name}"
network="$(netfork::kind::network_name "${name}")"
kind="${NETFORK_KIND_BIN}/node/kind"
found=false
# A node with a frozen pod container cannot be removed, by kind or by docker: thaw first.
mapfile -t nodes < <(docker ps -aq --filter "label=io.x-k8s.kind.cluster=${name}")
if [[ ${#nodes[@]} -gt 0 ]]; then
  found=true
  netfork::kind::thaw "${nodes[@]}"
fi
# kind deletes the nodes and removes kind-NAME's cluster, user and context from the user's
# kubeconfig (each file of $KUBECONFIG, else ~/.kube/config) where up.sh merged them, also
# when no node is left.
kind_err=""
if [[ -x "${kind}" ]] && ! out="$("${kind}" delete cluster --name "${name}" 2>&1)"; then
  kind_err="${out//$'\n'/ }"
fi
# Whatever kind did not remove (or no kind binary): by label, volumes too, and the containers
# netfork runs beside the nodes (a conformance run's registry).
mapfile -t nodes < <(netfork::kind::containers "${name}")
if [[ ${#nodes[@]} -gt 0 ]]; then
  found=true
  netfork::kind::thaw "${nodes[@]}"
  docker rm -f -v "${nodes[@]}" >/dev/null
fi
bridge=""
if docker network inspect "${network}" >/dev/null 2>&1; then
  found=true
  bridge="$(docker network inspect -f '{{index .Options "com.docker.network.bridge.name"}}' "${network}")"
  netfork::run docker network rm "${network}" >/dev/null
fi
[[ -n "${bridge}" ]] || bridge="$(netfork::kind::state "${name}" bridge)"
if [[ -n "${bridge}" ]]; then
  found=true
  netfork::kind::firewall_del "${bridge}"
fi
[[ -d "${dir}" ]] && found=true
rm -rf "${dir}"
[[ -z "${kind_err}" ]] || netfork::kind::die "kind delete cluster --name ${name} failed (the rest is deleted): ${kind_err}"
if [[ "${found}" == true ]]; then
  [[ -n "${NETFORK_KIND_QUIET:-}" ]] || netfork::log "deleted cluster ${name}"
else
  netfork::kind::die "no cluster named ${name}"
fi
