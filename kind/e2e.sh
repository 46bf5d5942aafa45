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

# e2e.sh (make test-e2e-kind) runs test/e2e on a fresh kind cluster: node image (cached) ->
# cluster -> the ginkgo suite (API-level KEP specs and the data-path specs) with the disruption
# hook -> logs exported on failure -> cluster deleted, always, Ctrl-C included.
#   --topology T        single | dual | ha (default dual); dual and ha run the apiservers with
#                       DualStackAPIServer=true and --shutdown-delay-duration=10s
#   --name NAME         cluster name (default netfork-e2e)
#   --label-filter F    ginkgo label filter (e.g. '!disruptive'); GINKGO_FOCUS/GINKGO_SKIP too
#   --keep              leave the cluster up afterwards (make kind-down NAME=... deletes it)
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/kind/lib/logs.sh"

topology=dual
name=netfork-e2e
label_filter=""
keep=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --topology | --name | --label-filter)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --topology=*) topology="${1#*=}" ;;
    --name=*) name="${1#*=}" ;;
    --label-filter=*) label_filter="${1#*=}" ;;
    --keep) keep=true ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/e2e.sh)" ;;
  esac
  shift
done
case "${topology}" in
  single | dual | ha) ;;
  *) netfork::kind::die "--topology ${topology}: want single, dual or ha" ;;
esac

start=${SECONDS}
"${NETFORK_ROOT}/kind/image.sh"
image_done=${SECONDS}

up_args=(--name "${name}" --topology "${topology}")
if [[ "${topology}" != single ]]; then
  up_args+=(--feature-gates DualStackAPIServer=true --apiserver-arg shutdown-delay-duration=10s)
fi
# shellcheck disable=SC2317 # cleanup runs from the EXIT, INT and TERM traps
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ ${status} -ne 0 ]]; then
    netfork::kind::export_logs "${name}" "${NETFORK_KIND_OUTPUT}/logs/${name}-$(date +%Y%m%d-%H%M%S)" || true
  fi
  if [[ "${keep}" == true && ${status} -eq 0 ]]; then
    netfork::log "kept cluster ${name}"
  else
    "${NETFORK_ROOT}/kind/down.sh" --name "${name}" >/dev/null 2>&1 || true
    netfork::log "deleted cluster ${name}"
  fi
  exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"${NETFORK_ROOT}/kind/up.sh" "${up_args[@]}"
up_done=${SECONDS}

export NETFORK_E2E_HOOK="${NETFORK_ROOT}/kind/e2e-hook.sh" NETFORK_KIND_NAME="${name}"
if [[ -n "${label_filter}" ]]; then
  # its own variable: GINKGO_ARGS is split on spaces, and a filter such as
  # 'KEP-1880 && !disruptive' must reach ginkgo as one argument
  export GINKGO_LABEL_FILTER="${label_filter}"
fi
status=0
# -v so that go test prints ginkgo's per-spec report and summary even when everything passed.
# KUBECONFIG is the suite's alone: the cleanup's down.sh must see the user's, to remove the
# context up.sh merged there.
KUBECONFIG="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" GOFLAGS="${GOFLAGS:+${GOFLAGS} }-v" \
  "${NETFORK_ROOT}/hack/test-e2e.sh" || status=$?
netfork::log "image $((image_done - start))s, cluster $((up_done - image_done))s, suite $((SECONDS - up_done))s, total $((SECONDS - start))s (${topology})"
exit "${status}"
