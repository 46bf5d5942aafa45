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

# e2e-upstream.sh (make test-e2e-kind-upstream) runs upstream's own e2e binary of the release
# go.mod pins, built from this module graph (go test -c k8s.io/kubernetes/test/e2e), against a
# netfork kind cluster of one untainted control plane and one worker, focused on [sig-network]
# Services, Service CIDRs, the ServiceCIDR/IPAddress API, EndpointSlices and "should have
# Endpoints and EndpointSlices pointing to API Server". The test images it needs cannot be
# pulled: agnhost is built from k8s.io/kubernetes/test/images/agnhost and tagged as that
# release's image manifest says, on a Debian rootfs with what upstream's Alpine base adds; nginx and busybox are stand-ins
# (agnhost netexec on port 80; Debian with busybox). Then the cluster is deleted, always.
#   --procs N       ginkgo processes (default 2)
#   --focus RE      replace the default focus; --skip RE replaces the default skip
#   --keep          leave the cluster (netfork-upstream) up
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/suite.sh"

procs=2
focus='\[sig-network\] (Services|Service CIDRs|ServiceCIDR and IPAddress API|EndpointSlice)|should have Endpoints and EndpointSlices pointing to API Server'
skip='\[Slow\]|\[Serial\]|\[Disruptive\]|\[Flaky\]|LoadBalancer|\[Feature:|\[Alpha\]|GCE|ESIPP|SCTP|Windows'
keep=false
name=netfork-upstream
while [[ $# -gt 0 ]]; do
  case "$1" in
    --procs) procs="${2:?}"; shift 2 ;;
    --focus) focus="${2:?}"; shift 2 ;;
    --skip) skip="${2:?}"; shift 2 ;;
    --keep) keep=true; shift ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/e2e-upstream.sh)" ;;
  esac
done
[[ "${procs}" =~ ^[1-9]$ ]] || netfork::kind::die "--procs ${procs}: want 1 to 9"

out="${NETFORK_KIND_OUTPUT}/upstream-e2e"
mkdir -p "${out}"
start=${SECONDS}
"${NETFORK_ROOT}/kind/image.sh"
netfork::kind::build_e2e
netfork::kind::e2e_images
netfork::log "e2e binary and images ready ($((SECONDS - start))s)"

netfork::kind::delete_on_exit "${name}" "${out}/logs" "${keep}"
"${NETFORK_ROOT}/kind/up.sh" --name "${name}" --topology single --workers 1 --untaint
netfork::kind::load_images "${name}" "${NETFORK_KIND_E2E_ARCHIVES[@]}"
netfork::log "cluster up and images loaded ($((SECONDS - start))s)"

rm -rf "${out}/report"
mkdir -p "${out}/report"
num_nodes="$(netfork::kind::schedulable_nodes "${name}")"
status=0
netfork::kind::ginkgo "${out}/e2e.log" --procs="${procs}" --timeout=90m --focus="${focus}" --skip="${skip}" \
  --junit-report=junit.xml --output-dir="${out}/report" "${NETFORK_KIND_E2E_BIN}/e2e.test" -- \
  --kubeconfig="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" --provider=skeleton \
  --num-nodes="${num_nodes}" --report-dir="${out}/report" || status=$?
grep -E '^Ran [0-9]+ of [0-9]+ Specs|Passed \| [0-9]+ Failed' "${out}/e2e.log" | tail -n 2 || true
netfork::log "upstream e2e exited ${status} after $((SECONDS - start))s; log ${out#"${NETFORK_ROOT}/"}/e2e.log, junit ${out#"${NETFORK_ROOT}/"}/report/junit.xml"
exit "${status}"
