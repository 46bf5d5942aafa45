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

# conformance.sh (make test-conformance) runs upstream's conformance suite of the pinned release
# as hydrophone runs it: node image (cached) -> a fresh contained kind cluster -> upstream's
# e2e.test and ginkgo built from this module graph, every image the specs run built offline
# and loaded into every node -> the focused specs that are not [Serial] in parallel, then the
# [Serial] ones alone -> JUnit, logs and a summary in _output/conformance/<apiserver>-<topology>
# [-shard-I-of-N]/, and _output/conformance/compare.txt over every run there -> the cluster
# deleted, always, Ctrl-C and SIGTERM included.
#   --apiserver A   netfork (default), or upstream: upstream's kube-apiserver of the pinned
#                   release, switched into every control plane's static pod once kubeadm has
#                   made the cluster, so that both runs differ in nothing but the apiserver
#   --topology T    single (default): 1 control plane + 2 workers, IPv4; dual: the same,
#                   dual-stack; ha: 3 control planes + 2 workers, dual-stack. netfork runs
#                   dual and ha with DualStackAPIServer=true. With --cluster: the cluster's own,
#                   as up.sh recorded it
#   --focus RE      the specs (default '\[Conformance\]')
#   --skip RE       leave out the focused specs this matches (default: none)
#   --shard I/N     only the I-th of N stable slices of the focused specs
#                   (conformance-compare shard over a dry run's report)
#   --procs N       ginkgo processes of the parallel part (default 4)
#   --image IMAGE   use this node image as it is instead of make kind-image's
#   --keep          leave the cluster (conformance-<apiserver>) up afterwards
#   --cluster NAME  run on the kind cluster NAME that up.sh made, as it is, instead of making
#                   one, and leave it up; its control planes must serve the --apiserver's
#                   version (results go to <apiserver>-<topology>-on-NAME[-shard-I-of-N]/).
#                   CI runs its conformance subset so (kind/ci.sh)
# A run that cannot start (docker down, less than 20 GB free, or 5 GB with --cluster, the
# cluster name in use or, with --cluster, no such cluster, no such --image) prints one line and
# exits 1 having created nothing.
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/suite.sh"

apiserver=netfork
topology=""
focus='\[Conformance\]'
skip=""
shard=""
procs=4
image=""
keep=false
cluster=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --apiserver | --topology | --focus | --skip | --shard | --procs | --image | --cluster)
      [[ $# -ge 2 ]] || netfork::kind::die "$1 needs a value"
      set -- "$1=$2" "${@:3}"
      continue ;;
    --apiserver=*) apiserver="${1#*=}" ;;
    --topology=*) topology="${1#*=}" ;;
    --focus=*) focus="${1#*=}" ;;
    --skip=*) skip="${1#*=}" ;;
    --shard=*) shard="${1#*=}" ;;
    --procs=*) procs="${1#*=}" ;;
    --image=*) image="${1#*=}" ;;
    --cluster=*) cluster="${1#*=}" ;;
    --keep) keep=true ;;
    *) netfork::kind::die "unknown argument $1 (see the header of kind/conformance.sh)" ;;
  esac
  shift
done
case "${apiserver}" in
  netfork | upstream) ;;
  *) netfork::kind::die "--apiserver ${apiserver}: want netfork or upstream" ;;
esac
case "${topology}" in
  "" | single | dual | ha) ;;
  *) netfork::kind::die "--topology ${topology}: want single, dual or ha" ;;
esac
[[ -n "${focus}" ]] || netfork::kind::die "--focus: want a regexp"
[[ "${procs}" =~ ^[1-9]$ ]] || netfork::kind::die "--procs ${procs}: want 1 to 9"
[[ -z "${cluster}" || -z "${image}" ]] || netfork::kind::die "--image and --cluster: the cluster's nodes already run their image"
if [[ -n "${shard}" ]] && { [[ ! "${shard}" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || ((BASH_REMATCH[1] > BASH_REMATCH[2])); }; then
  netfork::kind::die "--shard ${shard}: want I/N with 1 <= I <= N, e.g. 2/4"
fi
name="${cluster:-conformance-${apiserver}}"

# Nothing is built or created before every check that can refuse the run has passed. A run
# that makes its cluster needs an image build's and a cluster's disk and the test images' on
# top; on an existing cluster, only what loading the test images into its nodes and the
# registry writes.
NETFORK_KIND_MIN_FREE_GB=20
[[ -z "${cluster}" ]] || NETFORK_KIND_MIN_FREE_GB=5
netfork::kind::require_docker
netfork::kind::require_disk
if [[ -n "${cluster}" ]]; then
  [[ -n "$(netfork::kind::nodes "${name}" control-plane)" && -f "${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" ]] ||
    netfork::kind::die "--cluster ${name}: no such cluster (make kind-up NAME=${name} makes one)"
  # the topology up.sh made it with, as it recorded it
  has="$(netfork::kind::state "${name}" topology)"
  [[ -n "${has}" ]] || netfork::kind::die "--cluster ${name}: ${NETFORK_KIND_CLUSTERS#"${NETFORK_ROOT}/"}/${name}/state names no topology"
  [[ -z "${topology}" || "${topology}" == "${has}" ]] ||
    netfork::kind::die "--topology ${topology}: cluster ${name} is ${has}"
  topology="${has}"
elif [[ -n "$(docker ps -aq --filter "label=io.x-k8s.kind.cluster=${name}")" ]] ||
  docker network inspect "$(netfork::kind::network_name "${name}")" >/dev/null 2>&1; then
  netfork::kind::die "cluster name ${name} is already in use (make kind-down NAME=${name} deletes it)"
fi
if [[ -n "${image}" ]] && ! docker image inspect "${image}" >/dev/null 2>&1; then
  netfork::kind::die "--image ${image}: no such image (make kind-image builds netfork's)"
fi
topology="${topology:-single}"
label="${apiserver}-${topology}"
out="${NETFORK_OUTPUT}/conformance/${label}"
[[ -z "${cluster}" ]] || out+="-on-${cluster}"
[[ -z "${shard}" ]] || out+="-shard-${shard%/*}-of-${shard#*/}"

start=${SECONDS}
# the commit the run is of, named now: the checkout may move while the suite runs
commit="$(git -C "${NETFORK_ROOT}" describe --always --dirty --abbrev=7)"
started="$(date -u +%Y-%m-%dT%H:%MZ)"
rm -rf "${out}"
mkdir -p "${out}"
if [[ -z "${image}" && -z "${cluster}" ]]; then
  "${NETFORK_ROOT}/kind/image.sh"
  image="$(netfork::kind::node_image_tag)"
fi
t_image=$((SECONDS - start))
netfork::kind::build_e2e
netfork::kind::conformance_images
netfork::run go build -o "${NETFORK_OUTPUT}/bin/conformance-compare" ./test/conformance-compare
compare="${NETFORK_OUTPUT}/bin/conformance-compare"
t_e2e=$((SECONDS - start - t_image))

# The specs: a dry run lists what the focus selects and the skip leaves; a shard narrows them
# to its own slice.
skip_args=()
[[ -n "${skip}" ]] && skip_args=(--skip="${skip}")
netfork::run "${NETFORK_KIND_E2E_BIN}/e2e.test" --ginkgo.dry-run --ginkgo.no-color --ginkgo.focus="${focus}" \
  "${skip_args[@]/#--/--ginkgo.}" \
  --ginkgo.json-report="${out}/specs.json" >"${out}/dry-run.log" 2>&1 ||
  netfork::kind::die "the dry run of e2e.test failed (see ${out#"${NETFORK_ROOT}/"}/dry-run.log)"
if [[ -n "${shard}" ]]; then
  focus="$("${compare}" shard --shard "${shard}" "${out}/specs.json")"
fi

if [[ -n "${cluster}" ]]; then
  # the cluster is not this run's: its logs on failure, but it stays
  netfork::kind::delete_on_exit "${name}" "${out}/logs" true
else
  netfork::kind::delete_on_exit "${name}" "${out}/logs" "${keep}"
  up_args=(--name "${name}" --topology "${topology}" --workers 2 --image "${image}")
  [[ "${topology}" != single && "${apiserver}" == netfork ]] && up_args+=(--feature-gates DualStackAPIServer=true)
  # upstream's apiserver has no ServiceCIDR controller of its own
  [[ "${apiserver}" == upstream ]] && up_args+=(--upstream-servicecidr-controller)
  "${NETFORK_ROOT}/kind/up.sh" "${up_args[@]}"
fi
netfork::version::get_vars
want_version="${NETFORK_GIT_VERSION}"
[[ "${apiserver}" == upstream ]] && want_version="${K8S_VERSION}"
# Each control plane must answer with the apiserver this run is about, asked directly.
for node in $(netfork::kind::nodes "${name}" control-plane); do
  if [[ "${apiserver}" == upstream && -z "${cluster}" ]]; then
    netfork::kind::switch_apiserver "${node}" upstream
  else
    netfork::kind::check_apiserver_version "${node}" "${want_version}"
  fi
done
netfork::kind::load_images "${name}" "${NETFORK_KIND_E2E_ARCHIVES[@]}"
# A spec's imagePullPolicy Always pulls from a registry in the cluster's network that serves
# the same archives (netfork::kind::start_registry says what happens to the rest).
netfork::kind::start_registry "${name}" "${NETFORK_KIND_E2E_ARCHIVES[@]}"
t_cluster=$((SECONDS - start - t_image - t_e2e))

# write_compare writes compare.txt next to the runs: per topology, each apiserver's runs there
# merged (shards and reruns, a later run's outcome of a spec replacing an earlier one's), with
# upstream's apiserver as the baseline once both have run.
write_compare() {
  local root="${NETFORK_OUTPUT}/conformance" t a files args base code
  for t in single dual ha; do
    args=()
    for a in upstream netfork; do
      files="$(find "${root}" -path "${root}/${a}-${t}*" -name 'junit-*.xml' -printf '%T@ %p\n' | sort -n | cut -d' ' -f2- | paste -sd,)"
      [[ -n "${files}" ]] && args+=("${a}-${t}=${files}")
    done
    ((${#args[@]} > 0)) || continue
    base=()
    ((${#args[@]} == 2)) && base=(--baseline "upstream-${t}")
    echo "== ${t} topology, $(date -u +%Y-%m-%dT%H:%MZ)"
    code=0
    "${compare}" compare "${base[@]}" "${args[@]}" || code=$?
    ((code != 1)) || netfork::log "${t}: a spec that passed with upstream's apiserver did not pass with netfork's (see compare.txt)"
    echo
  done >"${root}/compare.txt"
}

# As hydrophone: the specs not marked [Serial] in parallel, then the [Serial] ones alone.
run_part() {
  local part="$1"
  shift
  netfork::kind::ginkgo "${out}/e2e-${part}.log" "$@" --timeout=24h --no-color --focus="${focus}" \
    "${skip_args[@]}" \
    --junit-report="junit-${part}.xml" --output-dir="${out}" "${NETFORK_KIND_E2E_BIN}/e2e.test" -- \
    --kubeconfig="${NETFORK_KIND_CLUSTERS}/${name}/kubeconfig" --provider=skeleton --num-nodes="${num_nodes}"
}
num_nodes="$(netfork::kind::schedulable_nodes "${name}")"
status=0
run_part parallel --procs="${procs}" --label-filter='!Serial' || status=$?
t_parallel=$((SECONDS - start - t_image - t_e2e - t_cluster))
run_part serial --procs=1 --label-filter='Serial' || status=$?
t_serial=$((SECONDS - start - t_image - t_e2e - t_cluster - t_parallel))

{
  echo "conformance run ${label}${shard:+ shard ${shard}}: started ${started}, netfork ${commit}, upstream ${K8S_VERSION}, apiserver ${want_version}"
  echo "specs the focus selects: $(jq '[.[].SpecReports[]? | select(.LeafNodeType == "It" and .State == "passed")] | length' "${out}/specs.json")${shard:+ (this shard runs its slice of them)}"
  echo "seconds: image ${t_image}, e2e binaries and test images ${t_e2e}, cluster ${t_cluster}, parallel (${procs} procs) ${t_parallel}, serial ${t_serial}, total $((SECONDS - start))"
  echo
  "${compare}" compare "${label}=${out}/junit-parallel.xml,${out}/junit-serial.xml" || true
} >"${out}/summary.txt" 2>&1
cat "${out}/summary.txt" >&2
write_compare
exit "${status}"
