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

# logs.sh collects a cluster's logs without crictl (which kind export logs needs and the
# module proxy does not serve): each node's journal, pod and container logs, static-pod
# manifests and containerd's view, plus the API's objects and events. Sourced after cluster.sh.

# netfork::kind::export_logs writes cluster $1's logs into folder $2.
netfork::kind::export_logs() {
  local name="$1" out="$2" node kubectl="${NETFORK_KIND_BIN}/node/kubectl"
  mkdir -p "${out}"
  for node in $(docker ps -a --filter "label=io.x-k8s.kind.cluster=${name}" --format '{{.Names}}'); do
    mkdir -p "${out}/${node}"
    docker logs "${node}" >"${out}/${node}/container.log" 2>&1 || true
    docker exec "${node}" journalctl --no-pager >"${out}/${node}/journal.log" 2>&1 || true
    docker exec "${node}" ctr -n k8s.io containers ls >"${out}/${node}/containers.txt" 2>&1 || true
    docker exec "${node}" ip -d addr >"${out}/${node}/ip-addr.txt" 2>&1 || true
    docker exec "${node}" ip route >"${out}/${node}/ip-route.txt" 2>&1 || true
    docker exec "${node}" nft list ruleset >"${out}/${node}/nft.txt" 2>&1 || true
    docker exec "${node}" tar -C / -czf - var/log/pods etc/kubernetes/manifests kind/version 2>/dev/null \
      >"${out}/${node}/files.tar.gz" || true
  done
  if [[ -f "${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" ]]; then
    KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" "${kubectl}" get nodes,pods,services,endpointslices,servicecidrs,ipaddresses -A -o wide \
      >"${out}/objects.txt" 2>&1 || true
    KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" "${kubectl}" get events -A --sort-by=.lastTimestamp \
      >"${out}/events.txt" 2>&1 || true
  fi
  netfork::log "logs of ${name} in ${out#"${NETFORK_ROOT}/"}"
}
