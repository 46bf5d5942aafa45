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

# ci.sh is CI's kind step: node image (cached) -> a single-node dual-stack cluster with
# DualStackAPIServer=true -> test/e2e minus the disruptive specs, which need several control
# planes (kind/e2e.sh) -> on the same cluster, CI's subset of upstream's conformance suite
# (kind/conformance.sh --cluster; the subset is below) -> logs on failure -> cluster
# deleted, always, Ctrl-C and SIGTERM included. Where docker cannot run containers at all it
# prints "SKIP: <reason>" and exits 0; any other failure fails.
#
# kind/ci.sh --prepare builds what the step needs and makes no cluster: the node image,
# upstream's e2e.test and the conformance subset's images. .ci/run starts it at nice 19 beside
# the steps before this one, whose integration tests and upgrade scenarios leave the CPU idle
# while they wait, so that the step itself finds every build cached.
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"

# CI's conformance subset: the [Conformance] specs, not [Serial], that cross the seams netfork
# assembles the control plane through, in about five minutes after e2e.test is built:
# aggregation (the APIService priority table), CRDs and their conversion webhooks, admission
# webhooks, watch and discovery (the server chain), and the Service, ServiceCIDR, IPAddress,
# EndpointSlice and kubernetes Service specs (netfork's allocators and its endpoints).
# make test-conformance runs the whole suite.
ci_conformance=(
  'sig-api-machinery\] Aggregator '
  'sig-api-machinery\] AdmissionWebhook .*(deny pod and configmap creation|mutate custom resource with different stored version|deny crd creation) '
  'sig-api-machinery\] CustomResourceConversionWebhook '
  'sig-api-machinery\] CustomResourceDefinition '
  'sig-api-machinery\] Watchers '
  'sig-api-machinery\] AggregatedDiscovery '
  'sig-network\] Services '
  'sig-network\] ServiceCIDR and IPAddress API '
  'sig-network\] EndpointSlice '
  'sig-network\] API Server '
)

# probe_image imports a one-file image (a static Go program that exits 0) to try docker with,
# since no image can be pulled here, unless an earlier run did; it prints the image's name.
probe_image() {
  local dir
  if docker image inspect netfork/kind-probe:1 >/dev/null 2>&1; then
    echo netfork/kind-probe:1
    return
  fi
  dir="$(mktemp -d)"
  mkdir -p "${dir}/rootfs"
  printf 'package main\n\nfunc main() {}\n' >"${dir}/main.go"
  (cd "${dir}" && printf 'module probe\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -o rootfs/true .)
  tar -C "${dir}/rootfs" -c true | docker import - netfork/kind-probe:1 >/dev/null
  rm -rf "${dir}"
  echo netfork/kind-probe:1
}

prepare=false
case "${1:-}" in
  "") ;;
  --prepare) prepare=true ;;
  *) echo "kind/ci.sh: unknown argument $1 (want none, or --prepare)" >&2; exit 2 ;;
esac

if ! command -v docker >/dev/null; then
  echo "SKIP: docker is not installed"
  exit 0
fi
if ! docker info >/dev/null 2>&1; then
  echo "SKIP: docker is not running (docker info failed)"
  exit 0
fi
image="$(probe_image)"
if ! out="$(docker run --rm --network none --entrypoint /true "${image}" 2>&1)"; then
  echo "SKIP: docker cannot run containers: ${out//$'\n'/ }"
  exit 0
fi
"${NETFORK_ROOT}/hack/install-deps.sh" kind

if [[ "${prepare}" == true ]]; then
  "${NETFORK_ROOT}/kind/image.sh"
  source "${NETFORK_ROOT}/kind/lib/suite.sh"
  netfork::kind::build_e2e
  netfork::kind::conformance_images
  exit 0
fi

name=netfork-ci
start=${SECONDS}
# e2e.sh deletes the cluster when its suite fails and keeps it when it passes; from then on the
# cluster is this script's to delete, whatever happens.
# shellcheck disable=SC2317 # runs from the EXIT trap
delete_cluster() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$(docker ps -aq --filter "label=io.x-k8s.kind.cluster=${name}")" ]] &&
    ! "${NETFORK_ROOT}/kind/down.sh" --name "${name}"; then
    ((status != 0)) || status=1
  fi
  netfork::log "kind step exited ${status} after $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s"
  exit "${status}"
}
trap delete_cluster EXIT
trap 'exit 130' INT TERM
"${NETFORK_ROOT}/kind/e2e.sh" --topology dual --name "${name}" --label-filter '!disruptive' --keep
focus="$(printf '%s|' "${ci_conformance[@]}")"
"${NETFORK_ROOT}/kind/conformance.sh" --cluster "${name}" --focus "\\[(${focus%|}).*\\[Conformance\\]" --skip '\[Serial\]'
