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
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
source "${NETFORK_ROOT}/hack/kind/lib/common.sh"
source "${NETFORK_ROOT}/hack/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/hack/kind/lib/build.sh"
source "${NETFORK_ROOT}/hack/kind/lib/base.sh"
source "${NETFORK_ROOT}/hack/kind/lib/images.sh"
source "${NETFORK_ROOT}/hack/kind/lib/network.sh"
source "${NETFORK_ROOT}/hack/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/hack/kind/lib/logs.sh"

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
    *) netfork::kind::die "unknown argument $1 (see the header of hack/kind/e2e-upstream.sh)" ;;
  esac
done
[[ "${procs}" =~ ^[1-9]$ ]] || netfork::kind::die "--procs ${procs}: want 1 to 9"

out="${NETFORK_KIND_OUTPUT}/upstream-e2e"
mkdir -p "${out}"
start=${SECONDS}
"${NETFORK_ROOT}/hack/kind/image.sh"

# The e2e binary needs the test dependencies of k8s.io/kubernetes/test/e2e, which go mod tidy
# keeps out of hack/kind/node's go.sum: build it in a copy of that module (same pins).
mod="${NETFORK_KIND_OUTPUT}/e2e-module"
mkdir -p "${mod}"
cp "${NETFORK_KIND_NODE_MODULE}/go.mod" "${NETFORK_KIND_NODE_MODULE}/go.sum" "${mod}/"
(cd "${mod}" && GOFLAGS=-mod=mod CGO_ENABLED=0 netfork::kind::heavy go test -c -o "${out}/e2e.test" \
  -ldflags "$(netfork::kind::upstream_ldflags)" k8s.io/kubernetes/test/e2e)
(cd "${mod}" && GOFLAGS=-mod=mod CGO_ENABLED=0 netfork::kind::heavy go build -o "${out}/" \
  github.com/onsi/ginkgo/v2/ginkgo k8s.io/kubernetes/test/images/agnhost)

# e2e_image prints every tag of registry.k8s.io/e2e-test-images/$1 that e2e.test names, on
# one line: the specs use more than one (v1.37 lists agnhost 2.55 and 2.66.1).
e2e_image() {
  "${out}/e2e.test" --list-images 2>/dev/null | grep -E "^registry\.k8s\.io/e2e-test-images/$1:" | tr '\n' ' ' | sed 's/ $//'
}
agnhost="$(e2e_image agnhost)"
[[ -n "${agnhost}" ]] || netfork::kind::die "e2e.test --list-images names no agnhost image"
# shellcheck disable=SC2016 # a RUN line for the image's shell, which expands it at build time
NETFORK_KIND_IMAGE_RUN='useradd -u 1000 user-defined-in-image && groupadd -g 50000 group-defined-in-image && usermod -aG group-defined-in-image user-defined-in-image && mkdir -p /uploads && ln -s /agnhost /agnhost-2 && for a in $(busybox --list); do command -v "$a" >/dev/null || ln -s /bin/busybox "/usr/local/bin/$a"; done' \
  NETFORK_KIND_IMAGE_CMD='["pause"]' \
  netfork::kind::component_image e2e-agnhost debian-e2e '["/agnhost"]' "${agnhost}" "${out}/agnhost:/agnhost"
NETFORK_KIND_IMAGE_CMD='["netexec", "--http-port=80"]' \
  netfork::kind::component_image e2e-nginx debian-e2e '["/agnhost"]' "$(e2e_image nginx)" "${out}/agnhost:/agnhost"
# shellcheck disable=SC2016 # a RUN line for the image's shell, which expands it at build time
NETFORK_KIND_IMAGE_RUN='for a in $(busybox --list); do command -v "$a" >/dev/null || ln -s /bin/busybox "/usr/local/bin/$a"; done' \
  NETFORK_KIND_IMAGE_CMD='["sh"]' \
  netfork::kind::component_image e2e-busybox debian-e2e '' "$(e2e_image busybox)"
netfork::log "e2e binary and images ready ($((SECONDS - start))s)"

# shellcheck disable=SC2317 # cleanup runs from the EXIT, INT and TERM traps
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ ${status} -ne 0 ]]; then
    netfork::kind::export_logs "${name}" "${out}/logs" || true
  fi
  if [[ "${keep}" != true ]]; then
    "${NETFORK_ROOT}/hack/kind/down.sh" --name "${name}" >/dev/null 2>&1 || true
  fi
  exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"${NETFORK_ROOT}/hack/kind/up.sh" --name "${name}" --topology single --workers 1 --untaint
for node in $(docker ps --filter "label=io.x-k8s.kind.cluster=${name}" --format '{{.Names}}'); do
  for archive in e2e-agnhost e2e-nginx e2e-busybox; do
    netfork::kind::load_archive "${node}" "${NETFORK_KIND_IMAGES}/${archive}.tar"
  done
done
netfork::log "cluster up and images loaded ($((SECONDS - start))s)"

rm -rf "${out}/report"
mkdir -p "${out}/report"
# ginkgo runs in the background so that a SIGTERM to this script (not only a terminal's
# Ctrl-C, which reaches ginkgo too) interrupts it at once; the EXIT trap then deletes the cluster.
echo "+ ginkgo --procs=${procs} --focus=... e2e.test (log: ${out#"${NETFORK_ROOT}/"}/e2e.log)"
"${out}/ginkgo" --procs="${procs}" --timeout=90m --focus="${focus}" --skip="${skip}" \
  --junit-report=junit.xml --output-dir="${out}/report" "${out}/e2e.test" -- \
  --kubeconfig="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" --provider=skeleton \
  --report-dir="${out}/report" >"${out}/e2e.log" 2>&1 &
ginkgo_pid=$!
trap 'kill -TERM "${ginkgo_pid}" 2>/dev/null; wait "${ginkgo_pid}"; exit 130' INT TERM
tail -n +1 --pid="${ginkgo_pid}" -f "${out}/e2e.log" &
status=0
wait "${ginkgo_pid}" || status=$?
trap 'exit 130' INT TERM
grep -E '^Ran [0-9]+ of [0-9]+ Specs|Passed \| [0-9]+ Failed' "${out}/e2e.log" | tail -n 2 || true
netfork::log "upstream e2e exited ${status} after $((SECONDS - start))s; log ${out#"${NETFORK_ROOT}/"}/e2e.log, junit ${out#"${NETFORK_ROOT}/"}/report/junit.xml"
exit "${status}"
